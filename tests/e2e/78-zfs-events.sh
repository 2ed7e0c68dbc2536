#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ZFS events through zed (issue 42, docs/zfs.md). ZFS cannot run here (no
# kernel module), so this test plays zed: it picks the zedlets by zed's
# own rule (a file whose name begins with the event's class or subclass,
# then no letter: zed_exec.c) from a zedlet directory holding links to the
# SHIPPED ones, and runs each with the environment zed builds (zed_event.c:
# payload as ZEVENT_*, GUIDs as 0x%.16llX, ZEVENT_TIME_*, IFS, PATH, ZED_*).
# smrd watches two loop devices: one a WD Red EFAX by its udev model (on
# the DM-SMR model list, partitioned as zpool partitions a whole disk), one
# a Toshiba P300 (a CMR model). Checked:
#   - vdev_attach through a by-id link to the DM-SMR disk's partition: a
#     rebuild-warning warning, recorded, printed, notified; none for the CMR;
#   - right after it, as a `zpool` stand-in (zpool-replay.py) gives the
#     pool's tree and slow_io_n=5 slow_io_t=60 on its mirror: a second
#     rebuild-warning naming them, recorded and notified;
#   - events mapped to the right disk, in smrctl events, the disk page and
#     smrd_zfs_events_total; smrctl rebuild-check says the same;
#   - hostile events (a 300-byte pool, a 5000-byte path, spaces, newlines,
#     $(...), a link out of /dev, a vdev smrd does not watch) refused with
#     a message, nothing recorded, nothing run, smrd alive;
#   - every kind recorded reaches the journal with its MESSAGE_ID, and
#     smrd_events_total counts it;
#   - an event zed delivers again (its EID and time: zed replays its queue)
#     is recorded once; a flood of delays is recorded and counted whole,
#     logged a few lines a minute;
#   - smrd down: the zedlet exits non-zero with one line, at once.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
private_journal
need sfdisk
need partx
losetup -f >/dev/null 2>&1 || unavailable loop "no free loop device"
rm -f /tmp/pwned-smrd-zfs
at_exit "rm -f /tmp/pwned-smrd-zfs"

step "two loop devices: a DM-SMR model (partitioned) and a CMR one"
truncate -s 256M "$T/smr.img" "$T/cmr.img" "$T/other.img"
printf 'label: gpt\n,,\n' | sfdisk -q "$T/smr.img" >/dev/null || { fail "sfdisk"; finish; }
SMR=$(attach_loop "$T/smr.img" -P) CMR=$(attach_loop "$T/cmr.img") OTHER=$(attach_loop "$T/other.img")
S=${SMR#/dev/} C=${CMR#/dev/}
for d in "$S" "$C"; do echo 1 >"/sys/block/$d/queue/rotational"; done
# this kernel's loop driver may not scan (max_part=0): the table added by hand
[ -b "${SMR}p1" ] || partx -a "$SMR" 2>/dev/null
wait_until 10 "the partition ${SMR}p1" test -b "${SMR}p1"
mkdir -p "$T/udev/data"
printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-WX12D3456789\n' >"$T/udev/data/b$(cat "/sys/block/$S/dev")"
printf 'E:ID_MODEL=TOSHIBA_HDWD120\nE:ID_SERIAL_SHORT=CMR-0001\n' >"$T/udev/data/b$(cat "/sys/block/$C/dev")"
# by-id links as udev indexes them (/run/udev/links/, one directory per
# link naming the device that claims it): smrd finds them there, not in its
# /dev, where the unit's PrivateDevices=yes leaves no disk
SMR_ID=/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789
udev_link "$T/udev" "$SMR_ID" "$S"
udev_link "$T/udev" "$SMR_ID-part1" "${S}p1"
# a link out of /dev, in this test's own mount namespace
mount -t tmpfs tmpfs /dev/shm || { fail "a private /dev/shm"; finish; }
mkdir -p /dev/shm/by-id
ln -s /etc/passwd /dev/shm/by-id/evil

# the hook keeps each notification's environment
mkdir -p "$T/notes" "$T/bin"
printf '#!/bin/sh\nenv >"%s/notes/$$.env"\n' "$T" >"$T/hook.sh" && chmod +x "$T/hook.sh"
# zpool: the pool's tree with the partition as the leaf being resilvered,
# slow_io_n/t set on its mirror (tests/fixtures/zpool/get-slowio-mirror.txt)
printf '#!/bin/sh\nZR_FIXTURES=%s ZR_PATH=%s ZR_POOL=tank ZR_SLOWIO=get-slowio-mirror.txt exec python3 %s "$@"\n' \
	"'$SRCDIR/tests/fixtures/zpool'" "'$SMR_ID-part1'" "'$SRCDIR/tests/e2e/zpool-replay.py'" >"$T/bin/zpool"
chmod +x "$T/bin/zpool"
start_smrd --interval 1 --include "^($S|$C)\$" --exclude '^$' --udev-root "$T/udev" \
	--notify-command "$T/hook.sh" --notify-interval 1 --zpool-command "$T/bin/zpool"
classes() { ctl --json disks | python3 -c 'import json,sys; print(" ".join(d["device"]+"="+d["class"] for d in json.load(sys.stdin)["disks"]))'; }
say "  classes: $(classes)"
check "smrd classifies $S dm-smr and $C cmr" bash -c "[[ ' $(classes) ' == *' $S=dm-smr '* && ' $(classes) ' == *' $C=cmr '* ]]"

# zed's zedlet directory: the shipped zedlets enabled by links, a zed.rc
# saying where smrctl and smrd are (as an admin's would)
Z=$T/zed.d
mkdir -p "$Z"
for f in "$BUILDDIR"/*-smrd.sh; do ln -s "$f" "$Z/${f##*/}"; done
printf 'ZED_SMRCTL=%s\nZED_SMRD_SOCKET=%s\n' "$SMRCTL" "$SOCK" >"$Z/zed.rc"
check "nine zedlets shipped" [ "$(ls "$Z"/*-smrd.sh | wc -l)" = 9 ]
EID=100
# zed CLASS VAR=VALUE...: the zedlets zed would run for CLASS, each with
# zed's environment; their output in $T/zed.out, their exit codes in $T/zed.rc
zed() {
	local class=$1 sub=${1##*.} z name rc
	shift
	EID=$((EID + 1))
	: >"$T/zed.out"; : >"$T/zed.codes"
	for z in "$Z"/*; do
		name=${z##*/}
		case $name in zed.rc) continue ;; esac
		for c in "$class" "$sub" all; do
			[[ $name == "$c"* && ! ${name:${#c}:1} =~ [A-Za-z] ]] || continue
			rc=0
			timeout -k 2 30 env -i IFS=$' \t\n' PATH=/usr/bin:/bin:/usr/sbin:/sbin ZPOOL=/sbin/zpool \
				ZFS_ALIAS=zfs-2.2.7-1 ZED_PID=$$ ZED_ZEDLET_DIR="$Z" ZEVENT_VERSION=0 \
				ZEVENT_CLASS="$class" ZEVENT_SUBCLASS="$sub" ZEVENT_EID=$EID ZEVENT_POOL_GUID=0x1B3B9DB6E7AC6F4A \
				ZEVENT_POOL_STATE=0 ZEVENT_POOL_STATE_STR=ACTIVE ZEVENT_POOL_CONTEXT=0 \
				ZEVENT_TIME="$(date +%s) 5" ZEVENT_TIME_SECS="$(date +%s)" ZEVENT_TIME_NSECS=5 \
				ZEVENT_TIME_STRING="$(date '+%Y-%m-%d %H:%M:%S%z')" "$@" "$z" >>"$T/zed.out" 2>&1 || rc=$?
			echo "$name $rc" >>"$T/zed.codes"
		done
	done
	sed 's/^/    /' "$T/zed.out"
}
ran() { grep -c . "$T/zed.codes"; }
codes() { awk '{ print $2 }' "$T/zed.codes" | sort -u | tr '\n' ' '; }
events_json() { ctl --json events --limit 1000 >"$T/events.json"; }
# count_kind KIND DEVICE: events of KIND on DEVICE ("-": on none, a pool's
# own); KIND zfs: any of ZFS's (rebuild-start, rebuild-end, zfs-*)
count_kind() { python3 -c 'import json,sys
k, dev = sys.argv[2], sys.argv[3].strip("-")
zfs = lambda e: e["kind"] in ("rebuild-start", "rebuild-end") or e["kind"].startswith("zfs-")
print(sum(1 for e in json.load(open(sys.argv[1]))["events"] if (zfs(e) if k == "zfs" else e["kind"] == k) and e["device"] == dev))' "$T/events.json" "$@"; }

step "zpool replace onto the DM-SMR disk (its partition, by-id): vdev_attach"
zed sysevent.fs.zfs.vdev_attach ZEVENT_POOL=tank ZEVENT_VDEV_GUID=0x06F2E3F1A1B2C3D4 ZEVENT_VDEV_STATE=7 \
	ZEVENT_VDEV_STATE_STR=HEALTHY ZEVENT_VDEV_PATH="$SMR_ID-part1" ZEVENT_VDEV_DEVID=ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789-part1
check "zed runs exactly one zedlet of ours for it, which exits 0" [ "$(ran) $(codes)" = "1 0 " ]
check "it prints the warning" grep -q "WARNING: ZFS pool tank is rebuilding onto $S (serial WD-WX12D3456789" "$T/zed.out"
# slow_io_n/t are read in the background (zpool status -P, zpool get)
slow_io_said() { ctl --json events --device "$S" --limit 100 | grep -q "slow_io_n=5 slow_io_t=60 on mirror-0: zed may degrade $S"; }
WAIT_LOG=$T/smrd.log wait_until 10 "the slow I/O warning" slow_io_said
events_json
check "two rebuild-warning events on $S: the guard's, then slow_io_n/t's" [ "$(count_kind rebuild-warning "$S")" = 2 ]
check "the attach is recorded on $S (the partition's whole disk)" [ "$(count_kind rebuild-start "$S")" = 1 ]

step "zpool replace onto the CMR disk: vdev_attach"
zed sysevent.fs.zfs.vdev_attach ZEVENT_POOL=tank ZEVENT_VDEV_GUID=0x0000000000000042 ZEVENT_VDEV_PATH="$CMR"
check "the zedlet exits 0" [ "$(ran) $(codes)" = "1 0 " ]
check "no warning printed" bash -c "! grep -q WARNING '$T/zed.out'"
events_json
check "the attach is recorded on $C" [ "$(count_kind rebuild-start "$C")" = 1 ]
check "no rebuild-warning on $C" [ "$(count_kind rebuild-warning "$C")" = 0 ]

step "a resilver, a slow I/O on the DM-SMR disk, a state change"
zed sysevent.fs.zfs.resilver_start ZEVENT_POOL=tank ZEVENT_RESILVER_TYPE=healing
check "resilver_start: exit 0" [ "$(ran) $(codes)" = "1 0 " ]
zed ereport.fs.zfs.delay ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR_ID" ZEVENT_VDEV_TYPE=disk \
	ZEVENT_ZIO_DELAY=31204567890 ZEVENT_ZIO_ERR=0 ZEVENT_ZIO_OFFSET=1048576 ZEVENT_ZIO_SIZE=131072
check "delay: exit 0" [ "$(ran) $(codes)" = "1 0 " ]
check "delay: said with what smrd knows" grep -q "ZFS delay on tank/$S (an I/O took 31.2 s), a DM-SMR disk" "$T/zed.out"
zed resource.fs.zfs.statechange ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$CMR" ZEVENT_VDEV_STATE=5 ZEVENT_VDEV_STATE_STR=FAULTED
check "statechange: exit 0" [ "$(ran) $(codes)" = "1 0 " ]
for c in resilver_finish scrub_start scrub_finish; do zed "sysevent.fs.zfs.$c" ZEVENT_POOL=tank >/dev/null; done
for c in deadman sitout; do zed "ereport.fs.zfs.$c" ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR_ID-part1" >/dev/null; done
zed ereport.fs.zfs.checksum ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$CMR"
check "no zedlet of ours for a checksum ereport" [ "$(ran)" = 0 ]
events_json
check "ZFS events: 4 on $S, 2 on $C, 4 on the pool alone" \
	[ "$(count_kind zfs "$S") $(count_kind zfs "$C") $(count_kind zfs -)" = "4 2 4" ]
check "the delay is a zfs-delay on $S, the resilver's start a rebuild-start of the pool" \
	[ "$(count_kind zfs-delay "$S") $(count_kind rebuild-start -)" = "1 2" ]
scrape >"$T/metrics.txt"
check "smrd_zfs_events_total counts them by disk and class" bash -c "grep -qx 'smrd_zfs_events_total{device=\"$S\",class=\"vdev_attach\"} 1' '$T/metrics.txt' &&
	grep -qx 'smrd_zfs_events_total{device=\"$S\",class=\"delay\"} 1' '$T/metrics.txt' &&
	grep -qx 'smrd_zfs_events_total{device=\"\",class=\"resilver_start\"} 1' '$T/metrics.txt'"
curl -sf --max-time 5 "http://127.0.0.1:$PORT/disk/$S" >"$T/page.html"
check "the disk page lists the warning and the delay" bash -c "grep -q 'rebuilding onto $S' '$T/page.html' && grep -q 'ZFS delay on tank/$S' '$T/page.html'"
ctl events --device "$S" >"$T/events.txt"
check "smrctl events shows them" grep -q "ZFS vdev_attach on tank/$S" "$T/events.txt"

step "smrctl rebuild-check, before zpool replace"
ctl rebuild-check "$SMR_ID" >"$T/rc-smr.txt"; rc1=$?
sed 's/^/    /' "$T/rc-smr.txt"
check "the DM-SMR disk by its by-id link: a warning, exit 1" bash -c "[ $rc1 = 1 ] && grep -q '^verdict:   WARNING' '$T/rc-smr.txt'"
check "CMR: risk none" bash -c "ctl() { timeout 60 '$SMRCTL' --socket '$SOCK' \"\$@\"; }; ctl --json rebuild-check $C | grep -q '\"risk\": \"none\"'"
ctl rebuild-check /dev/null >/dev/null 2>"$T/rc-null.txt"
check "a character device is refused" grep -q "is neither a kernel device name nor a link udev made" "$T/rc-null.txt"
check "slow_io_n/t not known before the disk is in a pool" grep -q "^slow I/O:  not known: not in a ZFS pool yet" "$T/rc-smr.txt"

step "notifications"
notified() { grep -l "SMRD_EVENT=rebuild-warning" "$T"/notes/*.env 2>/dev/null | wc -l; }
# the second came within notify-interval: sent at its end, summed up
wait_until 10 "the rebuild-warning notifications" bash -c "[ \$(grep -l SMRD_EVENT=rebuild-warning '$T'/notes/*.env 2>/dev/null | wc -l) -ge 2 ]"
check "two rebuild-warning notifications, both for $S, one naming slow_io_n" bash -c "[ '$(notified)' = 2 ] &&
	[ \$(grep -l SMRD_EVENT=rebuild-warning '$T'/notes/*.env | xargs grep -l 'SMRD_DEVICE=$S' | wc -l) = 2 ] &&
	grep -l SMRD_EVENT=rebuild-warning '$T'/notes/*.env | xargs grep -q 'slow_io_n=5 slow_io_t=60'"

step "zed replays its queue: the same event again is recorded once"
TR=$(date +%s)
zed ereport.fs.zfs.delay ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR_ID" ZEVENT_ZIO_DELAY=2000000000 \
	ZEVENT_TIME_SECS="$TR" ZEVENT_TIME="$TR 5" >/dev/null
# zed's slow I/Os on a disk in an incident (here the rebuild its attach
# began) past the first are counted in it, not rows
zfs_delays() { ctl --json incidents --device "$S" | python3 -c 'import json,sys
print(sum(i["zfs_delays"] for i in json.load(sys.stdin)["incidents"]))'; }
delays=$(zfs_delays)
EID=$((EID - 1))
zed ereport.fs.zfs.delay ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR_ID" ZEVENT_ZIO_DELAY=2000000000 \
	ZEVENT_TIME_SECS="$TR" ZEVENT_TIME="$TR 5"
check "the replay: exit 0, said to be recorded before" bash -c "[ '$(codes)' = '0 ' ] && grep -q 'was recorded before' '$T/zed.out'"
check "not recorded again" [ "$(zfs_delays)" = "$delays" ]

step "a flood of zed delays: each recorded and counted, a few logged"
logged=$(grep -c "ZFS delay on tank/$S" "$T/smrd.log")
for i in $(seq 25); do
	zed ereport.fs.zfs.delay ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR_ID" ZEVENT_ZIO_DELAY=1500000000 >/dev/null
done
# the incident's counts are written once a sample
counted() { [ "$(zfs_delays)" = $((delays + 25)) ]; }
wait_until 5 "the delays counted" counted
check "25 more zfs-delay events recorded, in the rebuild's incident" [ "$(zfs_delays)" = $((delays + 25)) ]
events_json
ctl --json incidents >"$T/incidents.json"
# 25 in a few seconds span at most two minutes of the budget (10 lines a disk a minute)
check "at most 20 of them logged ($(( $(grep -c "ZFS delay on tank/$S" "$T/smrd.log") - logged )))" \
	[ $(( $(grep -c "ZFS delay on tank/$S" "$T/smrd.log") - logged )) -le 20 ]
scrape >"$T/metrics.txt"
check "smrd_events_total counts every kind zed's events recorded" python3 - "$T/events.json" "$T/metrics.txt" "$T/incidents.json" <<'PY'
import collections, json, re, sys
recorded = collections.Counter(e["kind"] for e in json.load(open(sys.argv[1]))["events"])
counted = {m.group(1): float(m.group(2)) for m in re.finditer(r'^smrd_events_total\{kind="([a-z-]+)"\} (\S+)$',
                                                            open(sys.argv[2]).read(), re.M)}
# the rows of the kinds never counted in an incident, and ZFS's slow I/Os, rows or not, as incidents count them
slow = ("zfs-delay", "zfs-deadman", "zfs-sitout")
bad = {k: (n, counted.get(k)) for k, n in recorded.items() if k not in slow and counted.get(k) != n}
in_incidents = sum(i["zfs_delays"] for i in json.load(open(sys.argv[3]))["incidents"])
zfs = sum(counted.get(k, 0) for k in slow)
print(f"  recorded {dict(recorded)}; counted differently: {bad}; ZFS slow I/Os {zfs:.0f}, in incidents {in_incidents}")
sys.exit(1 if bad or zfs != in_incidents else 0)
PY
journal_check "$T/events.json"

step "hostile events: refused, nothing recorded, nothing run"
events_json; before=$(count_kind zfs -)$(count_kind zfs "$S")$(count_kind zfs "$C")
long_pool=$(printf 'p%.0s' $(seq 300)) long_path=/dev/$(printf 'x%.0s' $(seq 5000))
hostile() {
	local what=$1 want=$2
	shift 2
	zed sysevent.fs.zfs.vdev_attach "$@" >/dev/null
	check "$what: refused (exit 1) with '$want'" bash -c "[ '$(codes)' = '1 ' ] && grep -q -- '$want' '$T/zed.out'"
}
hostile "a 300-byte pool name" "ZEVENT_POOL is longer than 255 bytes" ZEVENT_POOL="$long_pool" ZEVENT_VDEV_PATH="$SMR"
hostile "a 5000-byte path" "ZEVENT_VDEV_PATH is longer than 255 bytes" ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$long_path"
hostile "a path with a space" "ZEVENT_VDEV_PATH holds a character" ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR x"
hostile "a newline" "control character" ZEVENT_POOL=$'tank\nZEVENT_POOL=x' ZEVENT_VDEV_PATH="$SMR"
hostile "\$(...) in the path" "ZEVENT_VDEV_PATH holds" ZEVENT_POOL=tank ZEVENT_VDEV_PATH='/dev/$(touch /tmp/pwned-smrd-zfs)'
hostile "\`...\` and ; in the pool" "ZEVENT_POOL is not a pool name" ZEVENT_POOL='t`touch /tmp/pwned-smrd-zfs`;x' ZEVENT_VDEV_PATH="$SMR"
hostile "a link out of /dev" "is not a block device under /dev" ZEVENT_POOL=tank ZEVENT_VDEV_PATH=/dev/shm/by-id/evil
hostile "a vdev that does not exist" "does not exist" ZEVENT_POOL=tank ZEVENT_VDEV_PATH=/dev/sdzz9
hostile "a block device smrd does not watch" "is not on a disk smrd watches" ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$OTHER"
events_json
check "nothing recorded" [ "$(count_kind zfs -)$(count_kind zfs "$S")$(count_kind zfs "$C")" = "$before" ]
check "nothing ran" [ ! -e /tmp/pwned-smrd-zfs ]
check "smrd is alive" alive

step "smrd down: the zedlet says so and exits, without waiting"
stop_smrd
zed sysevent.fs.zfs.vdev_attach ZEVENT_POOL=tank ZEVENT_VDEV_PATH="$SMR"
check "exit 3, one line naming the socket" bash -c "[ '$(codes)' = '3 ' ] && [ \$(wc -l <'$T/zed.out') = 1 ] && grep -q 'did not take ZFS event' '$T/zed.out'"
finish
