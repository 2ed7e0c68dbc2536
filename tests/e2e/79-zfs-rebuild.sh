#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A ZFS resilver onto an emulated DM-SMR disk, end to end (issue 42,
# docs/zfs.md). ZFS cannot run here (no kernel module), so two parts are
# played and the rest is real:
#   - zed is played: the SHIPPED zedlets are picked by zed's rule (a name
#     beginning with the class or subclass, then no letter: zed_exec.c) and
#     run with the environment zed builds (zed_event.c: payload as ZEVENT_*,
#     GUIDs as 0x%.16llX, ZEVENT_EID, ZEVENT_TIME_*, IFS, PATH, ZED_*);
#   - `zpool` is a stand-in (zpool-replay.py, first and only on smrd's
#     zpool-command) that replays a recorded resilver's status sequence
#     (tests/fixtures/zpool/json-resilver.json, then json-resilvered.json:
#     the DM-SMR mirror of openzfs/zfs#9800) with its figures rescaled to
#     the bytes written so far onto the emulated disk, read from its
#     counters in /proc/diskstats, and the rebuild's real start and end.
# Real: smrd, smrctl, the zedlets, the loop devices, the emulator (smr-emu,
# a DM-SMR disk with a small media cache, and a CMR one) and fio, which
# writes the resilver's stream onto the new disk: in LBA order (the
# sequential resilver, OpenZFS 0.8 on), each block one write of its size:
# 128 KiB records (recordsize's default) for most, 32 KiB RAIDZ columns
# (128 KiB over a 4+1 RAIDZ, issue 10214's setup) and 4 KiB metadata for the
# rest, eight in flight. The emulated disk sends sequential writes under
# 256 KiB to its media cache (--seq-min-kib), as the WD40EFAX did with
# resilvers that took nine days (ServeTheHome, 2020): the cliff comes within
# the rebuild's first two seconds. Checked:
#   - smrctl rebuild-check before the rebuild (zpool-replay.py also replays
#     the pool's vdevs: status-P-replacing.txt with get-slowio-mirror.txt,
#     and a degraded RAIDZ1, rzpool): for the DM-SMR, CMR and an unknown
#     disk (a plain loop device), into the mirror and the RAIDZ1, the bytes
#     a new disk would write (the vdev's allocated, a raidz's over its
#     children), the advice, exit 0 fine, 1 warning, 2 error; after it,
#     with the figures smrd learnt from the storm, the forecast within 30%
#     of the real duration (before it, the published range holds it);
#   - vdev_attach (by-id link): a rebuild-risk warning for the DM-SMR disk,
#     naming what the resilver writes (mirror-0's share, read from zpool
#     after the attach), none for the CMR one, each attach recorded on its
#     own disk;
#   - the rebuild followed on the DM-SMR disk only (smrctl rebuilds, the
#     metrics), its ETA (smrctl rebuilds --json, taken between 30% and 80%
#     of the bytes, once the cliff was seen) within 25% of the real duration;
#   - the destage storm flagged on the DM-SMR disk, none on the CMR one;
#   - at the end, a rebuild-done event on that disk with the real duration.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
# a private /dev/shm: the emulator's stores, gone with this namespace
mount -t tmpfs tmpfs /dev/shm || { fail "a private /dev/shm"; finish; }
use_emu
EMU_SIZE=1G
REBUILD_MIB=${REBUILD_MIB:-256}	# 2x the cache: half of the rebuild past the cliff

step "an emulated DM-SMR disk (WD40EFAX by udev) and a CMR one (Toshiba P300)"
# a media cache that takes the stream for a second or two before its cliff
# (the detector judges a storm against the fast phase before it), as a
# real one does for minutes, at 100 MiB/s: a DM-SMR disk's file workload
# began at 100 MB/s (docs/smr-primer.md). (A cache that took this stream
# under ~33 MB/s, 2.9 ms of busy time per write, would be no faster than
# platters and no storm would be flagged: docs/detection.md, "Not flagged".)
emu_up SMR smr dm-smr --seq-min-kib 256 --cache-mib 128 --cache-mibs 100 --seed 42 --stats || { fail "emu_up"; finish; }
emu_up CMR cmr cmr --seed 43 || { fail "emu_up"; finish; }
S=${SMR#/dev/} C=${CMR#/dev/}
# a third disk of no known kind: a plain loop device (no model, no serial)
truncate -s 1G "$T/unknown.img"
UNK=$(attach_loop "$T/unknown.img")
U=${UNK#/dev/}
SMR_GUID=0x06F2E3F1A1B2C3D4 CMR_GUID=0x0000000000000042 POOL_GUID=0x16C2C1B5E3B5E39F
# as udev records them once zpool attach has labelled them
mkdir -p "$T/udev/data"
# (blkid's zfs_member: LABEL the pool, UUID its GUID, UUID_SUB the vdev's)
label() { printf 'E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=dpool\nE:ID_FS_UUID=%d\nE:ID_FS_UUID_SUB=%d\n' "$POOL_GUID" "$1"; }
{ printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-WX12D3456789\n'; label "$SMR_GUID"; } \
	>"$T/udev/data/b$(cat "/sys/block/$S/dev")"
{ printf 'E:ID_MODEL=TOSHIBA_HDWD120\nE:ID_SERIAL_SHORT=CMR-0001\n'; label "$CMR_GUID"; } >"$T/udev/data/b$(cat "/sys/block/$C/dev")"
# by-id links (a path under /dev, as zed gives) in udev's index: smrd finds them there
SMR_ID=/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789
CMR_ID=/dev/disk/by-id/ata-TOSHIBA_HDWD120_CMR-0001
udev_link "$T/udev" "$SMR_ID" "$S" && udev_link "$T/udev" "$CMR_ID" "$C" || { fail "by-id links"; finish; }

# the zpool stand-in, the only zpool smrd can run
mkdir -p "$T/bin" "$T/zr"
cat >"$T/bin/zpool" <<EOF
#!/bin/sh
ZR_FIXTURES='$SRCDIR/tests/fixtures/zpool' ZR_DEV='$S' ZR_PATH='$SMR_ID' ZR_GUID='$SMR_GUID' \
ZR_TOTAL=$((REBUILD_MIB << 20)) ZR_STATE='$T/zr' ZR_SLOWIO=get-slowio-mirror.txt exec python3 '$SRCDIR/tests/e2e/zpool-replay.py' "\$@"
EOF
chmod +x "$T/bin/zpool"
start_smrd --interval 1 --include "^($S|$C|$U)\$" --exclude '^$' --udev-root "$T/udev" \
	--zpool-command "$T/bin/zpool" --rebuild-interval 1
classes() { ctl --json disks | python3 -c 'import json,sys; print(" ".join(d["device"]+"="+d["class"] for d in json.load(sys.stdin)["disks"]))'; }
check "smrd classifies $S dm-smr, $C cmr, $U unknown" \
	bash -c "[[ ' $(classes) ' == *' $S=dm-smr '* && ' $(classes) ' == *' $C=cmr '* && ' $(classes) ' == *' $U=unknown '* ]]"
# what makes smrd read zpool status at all: a watched disk in a pool
in_pool() { ctl show "$1" | grep -q "member of zfs dpool (on $1, vdev $(printf %d "$2"))"; }
both_in_pool() { in_pool "$S" "$SMR_GUID" && in_pool "$C" "$CMR_GUID"; }
check "smrd has $S and $C in zfs pool dpool, by their labels" both_in_pool

step "rebuild-check before the rebuild: the mirror dpool, the RAIDZ1 rzpool (zpool-replay.py's fixtures)"
# rcheck DEVICE [TARGET]: smrctl rebuild-check's exit code; its answer in $T/rc.json
rcheck() { local rc=0; ctl --json rebuild-check "$@" >"$T/rc.json" 2>"$T/rc.err" || rc=$?; echo "$rc"; }
# answer EXPR: a Python expression on the answer `a`
answer() { python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/rc.json" "$1"; }
advised() { python3 -c 'import json, sys
sys.exit(0 if any(sys.argv[2] in l["text"] for l in json.load(open(sys.argv[1]))["forecast"]["advice"]) else 1)' \
	"$T/rc.json" "$1"; }
REBUILD_BYTES=$((REBUILD_MIB << 20))
ctl rebuild-check "$S" dpool | sed 's/^/    /'
check "DM-SMR into dpool: exit 1 (a warning)" [ "$(rcheck "$S" dpool)" = 1 ]
cp "$T/rc.json" "$T/rc-before.json"
check "it would write mirror-0's share, what the resilver writes ($REBUILD_BYTES bytes), not the disk's size" \
	[ "$(answer "int(a['forecast']['bytes']), a['target']['vdev']")" = "($REBUILD_BYTES, 'mirror-0')" ]
check "from published figures, as a range (none of its own yet)" \
	[ "$(answer "a['forecast']['figures'], a['forecast']['low_seconds'] < a['forecast']['high_seconds']")" = "('published', True)" ]
check "advice: slow_io_events=off on its own vdev (slow_io_n=5 slow_io_t=60 on mirror-0)" advised "zpool set slow_io_events=off dpool VDEV"
check "advice: zpool replace -s (a mirror)" advised "zpool replace -s"
check "CMR into dpool: exit 0 (fine), the same bytes" \
	[ "$(rcheck "$C" dpool) $(answer "int(a['forecast']['bytes'])")" = "0 $REBUILD_BYTES" ]
rc=$(rcheck "$U" dpool)
check "unknown into dpool: exit 1, smrd cannot tell whether it is SMR" \
	bash -c "[ $rc = 1 ] && grep -q 'cannot tell whether it is SMR' '$T/rc.json'"
rc=$(rcheck "$S" rzpool)
check "DM-SMR into rzpool: exit 1, a quarter of raidz1-0 (rescaled to $REBUILD_BYTES bytes)" \
	[ "$rc $(answer "int(a['forecast']['bytes']), a['target']['vdev']")" = "1 ($REBUILD_BYTES, 'raidz1-0')" ]
check "  advice: a raidz resilvers only by healing" advised "resilvers only by healing"
check "CMR into rzpool/raidz1-0: exit 0" [ "$(rcheck "$C" rzpool/raidz1-0)" = 0 ]
rc=$(rcheck "$S" nopool)
check "a pool zpool does not know: exit 2, saying so" bash -c "[ $rc = 2 ] && grep -q 'no ZFS pool nopool' '$T/rc.err'"
check "a disk smrd does not watch: exit 2" [ "$(rcheck nosuchdisk dpool)" = 2 ]

# zed's zedlet directory: the shipped zedlets enabled by links, a zed.rc
Z=$T/zed.d
mkdir -p "$Z"
for f in "$BUILDDIR"/*-smrd.sh; do ln -s "$f" "$Z/${f##*/}"; done
printf 'ZED_SMRCTL=%s\nZED_SMRD_SOCKET=%s\n' "$SMRCTL" "$SOCK" >"$Z/zed.rc"
EID=200
# zed CLASS VAR=VALUE...: the zedlets zed would run for CLASS, each with
# zed's environment; output in $T/zed.out, "name exit-code" in $T/zed.codes
zed() {
	local class=$1 sub=${1##*.} z name rc c
	shift
	EID=$((EID + 1))
	: >"$T/zed.out"; : >"$T/zed.codes"
	for z in "$Z"/*; do
		name=${z##*/}
		[ "$name" = zed.rc ] && continue
		for c in "$class" "$sub" all; do
			[[ $name == "$c"* && ! ${name:${#c}:1} =~ [A-Za-z] ]] || continue
			rc=0
			timeout -k 2 30 env -i IFS=$' \t\n' PATH=/usr/bin:/bin:/usr/sbin:/sbin ZPOOL=/sbin/zpool \
				ZFS_ALIAS=zfs-2.2.7-1 ZED_PID=$$ ZED_ZEDLET_DIR="$Z" ZEVENT_VERSION=0 \
				ZEVENT_CLASS="$class" ZEVENT_SUBCLASS="$sub" ZEVENT_EID=$EID ZEVENT_POOL=dpool \
				ZEVENT_POOL_GUID=$POOL_GUID ZEVENT_POOL_STATE=0 ZEVENT_POOL_STATE_STR=ACTIVE \
				ZEVENT_POOL_CONTEXT=0 ZEVENT_TIME="$(date +%s) 5" ZEVENT_TIME_SECS="$(date +%s)" ZEVENT_TIME_NSECS=5 \
				ZEVENT_TIME_STRING="$(date '+%Y-%m-%d %H:%M:%S%z')" "$@" "$z" >>"$T/zed.out" 2>&1 || rc=$?
			echo "$name $rc" >>"$T/zed.codes"
		done
	done
	sed 's/^/    /' "$T/zed.out"
}
ran_ok() { [ "$(grep -c . "$T/zed.codes") $(awk '{ print $2 }' "$T/zed.codes" | sort -u | tr '\n' ' ')" = "1 0 " ]; }
events_json() { ctl --json events --limit 1000 >"$T/events.json"; }
count_kind() { python3 -c 'import json,sys
print(sum(1 for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == sys.argv[2] and e["device"] == sys.argv[3]))' \
	"$T/events.json" "$@"; }

step "zpool replace onto each disk: vdev_attach through its by-id link"
zed sysevent.fs.zfs.vdev_attach ZEVENT_VDEV_GUID=$SMR_GUID ZEVENT_VDEV_PATH="$SMR_ID" ZEVENT_VDEV_TYPE=disk \
	ZEVENT_VDEV_STATE=7 ZEVENT_VDEV_STATE_STR=HEALTHY
check "DM-SMR: the zedlet ran and exited 0" ran_ok
check "DM-SMR: it prints the warning" grep -q "WARNING: ZFS pool dpool is rebuilding onto $S" "$T/zed.out"
zed sysevent.fs.zfs.vdev_attach ZEVENT_VDEV_GUID=$CMR_GUID ZEVENT_VDEV_PATH="$CMR_ID" ZEVENT_VDEV_TYPE=disk \
	ZEVENT_VDEV_STATE=7 ZEVENT_VDEV_STATE_STR=HEALTHY
check "CMR: the zedlet ran and exited 0" ran_ok
check "CMR: no warning printed" bash -c "! grep -q WARNING '$T/zed.out'"
# then slow_io_n/t, read in the background (zpool status -P, zpool get: the stand-in's mirror has 5 in 60 s)
slow_io_said() { ctl --json events --device "$S" --limit 100 | grep -q "slow_io_n=5 slow_io_t=60 on mirror-0: zed may degrade $S"; }
WAIT_LOG=$T/smrd.log wait_until 10 "the slow I/O warning about $S" slow_io_said
events_json
check "two rebuild-warnings on $S (the guard's, then slow_io_n/t's); none on $C" \
	[ "$(count_kind rebuild-warning "$S") $(count_kind rebuild-warning "$C")" = "2 0" ]
check "the guard's warning names what the resilver writes (${REBUILD_MIB}M, mirror-0's share), not the disk's size" \
	grep -q "rebuilding onto $S ([^)]*): ${REBUILD_MIB}M to write, expected" "$T/events.json"
check "each attach recorded on its own disk" [ "$(count_kind rebuild-start "$S") $(count_kind rebuild-start "$C")" = "1 1" ]

step "the resilver: fio writes ${REBUILD_MIB} MiB onto $S while zpool-replay reports it"
sectors=$(awk -v d="$S" '$3 == d { print $10 }' /proc/diskstats)
t_start=$(now_ms)
echo "$((t_start / 1000)) $sectors" >"$T/zr/start"
zed sysevent.fs.zfs.resilver_start ZEVENT_RESILVER_TYPE=healing >/dev/null
check "resilver_start: the zedlet exited 0" ran_ok
fio --clocksource=clock_gettime --name=resilver --filename="$SMR" --direct=1 --ioengine=libaio --rw=write \
	--bssplit=128k/70:32k/20:4k/10 --iodepth=8 --size=${REBUILD_MIB}M --output="$T/fio.out" >/dev/null 2>&1 &
FIO=$!
at_exit 'kill $FIO 2>/dev/null'
: >"$T/rebuilds.log"
while kill -0 "$FIO" 2>/dev/null; do
	# each reading: when it was taken (ms), what smrctl said
	r=$(ctl --json rebuilds 2>/dev/null | tr -d '\n') && echo "$(now_ms) $r" >>"$T/rebuilds.log"
	# the metrics while the rebuild is followed: the last such scrape kept
	scrape >"$T/m.tmp" 2>/dev/null && grep -q "^smrd_rebuild_eta_seconds{device=\"$S\"}" "$T/m.tmp" &&
		mv "$T/m.tmp" "$T/metrics-run.txt"
	sleep 0.5
done
wait "$FIO"; fio_rc=$?
t_end=$(now_ms)
echo "$((t_end / 1000))" >"$T/zr/end"
check "fio wrote the rebuild (exit 0)" [ "$fio_rc" = 0 ]
zed sysevent.fs.zfs.resilver_finish >/dev/null
real_s=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
say "  the emulated resilver took $real_s s; $(grep -c . "$T/rebuilds.log") readings of smrctl rebuilds"
grep -m1 'cliff at' "$T/emu-smr/emu.log" | sed 's/^/  /'
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the rebuild's end" \
	bash -c "'$SMRCTL' --socket '$SOCK' --json events --limit 1000 | grep -q '\"rebuild-done\"'"

step "what smrd made of it"
# rebuild-check now: the figures smrd learnt from the storm (at its end), against the real duration
learnt() { [ "$(rcheck "$S" dpool)" = 1 ] && [ "$(answer "a['forecast']['figures']")" = learnt ]; }
WAIT_LOG=$T/smrd.log wait_until 15 "rebuild-check to give learnt figures (the storm's end)" learnt
check_by python3 - "$T/rc-before.json" "$T/rc.json" "$real_s" <<'PY'
import json, sys
before, after = (json.load(open(p))["forecast"] for p in sys.argv[1:3])
real = float(sys.argv[3])
ok = before["low_seconds"] <= real <= before["high_seconds"]
print(("ok: " if ok else "FAIL: ") + f"before it, from published figures: {before['low_seconds']:.1f} s to "
      f"{before['high_seconds']:.1f} s, which holds the real {real:.1f} s")
e = after["expected_seconds"]
ok2 = after["figures"] == "learnt" and e is not None and abs(e - real) <= 0.3 * real
print(("ok: " if ok2 else "FAIL: ") + f"after it, from {after['figures']} figures ({after['figures_text']}): expected "
      f"{e} s, within 30% of the real {real:.1f} s")
sys.exit(0 if ok and ok2 else 1)
PY
check_by python3 - "$T/rebuilds.log" "$S" "$C" "$t_start" "$t_end" <<'PY'
import json, sys
log, S, C, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) / 1000, int(sys.argv[5]) / 1000
real = t1 - t0
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
mine, other, window = [], [], []
for line in open(log):
    ms, _, doc = line.partition(" ")
    try:
        rs = json.loads(doc)["rebuilds"]
    except (ValueError, KeyError):
        continue
    for r in rs:
        (mine if r.get("device") == S else other).append(r)
        if r.get("device") != S or r.get("state") != "running" or r.get("eta_seconds") is None:
            continue
        share = r["written_bytes"] / r["to_write_bytes"] if r.get("to_write_bytes") else 0
        if r.get("cliff_seen") and 0.3 <= share <= 0.8:
            # the end it foresees, as a duration from the real start
            window.append((share, r["started"] + r["elapsed"] + r["eta_seconds"] - t0, r))
check(len(mine) > 0, f"smrctl rebuilds followed the resilver onto {S} ({len(mine)} readings)")
check(all(r.get("pool") == "dpool" and r.get("kind") == "resilver" for r in mine), "as dpool's resilver")
check(not any(r.get("device") == C for r in other), f"nothing followed on {C}")
check(len(window) >= 2, f"ETAs between 30% and 80% of the bytes, past the cliff: {len(window)}")
for share, foreseen, r in window:
    print(f"  {share:4.0%}: elapsed {r['elapsed']:.1f} s, eta {r['eta_seconds']:.1f} s -> {foreseen:.1f} s "
          f"(real {real:.1f} s, {(foreseen - real) / real:+.0%})")
if window:
    foreseen = sorted(f for _, f, _ in window)[len(window) // 2]
    check(abs(foreseen - real) <= 0.25 * real,
          f"the median foreseen duration {foreseen:.1f} s is within 25% of the real {real:.1f} s")
sys.exit(1 if fails else 0)
PY
touch "$T/metrics-run.txt"
check "metrics during the rebuild: smrd_rebuild_info for dpool's resilver onto $S, nothing for $C" bash -c \
	"grep -q '^smrd_rebuild_info{device=\"$S\",pool=\"dpool\",kind=\"resilver\"} 1' '$T/metrics-run.txt' &&
	! grep -q 'device=\"$C\"' <(grep '^smrd_rebuild_' '$T/metrics-run.txt')"
events_json
# the storm itself, which the ETA's "cliff seen" rests on (a missed one
# is what this test long failed on: docs/detection.md, "Not flagged")
check "a destage storm flagged on $S, none on $C" \
	bash -c "[ $(count_kind storm-start "$S") -ge 1 ] && [ $(count_kind storm-start "$C") = 0 ]"
check "one rebuild-done, on $S" [ "$(count_kind rebuild-done "$S") $(count_kind rebuild-done "$C")" = "1 0" ]
check_by python3 - "$T/events.json" "$S" "$real_s" <<'PY'
import json, re, sys
evs = [e for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "rebuild-done" and e["device"] == sys.argv[2]]
real = float(sys.argv[3])
msg = evs[0]["message"] if evs else ""
print(f"  rebuild-done: {msg}")
m = re.search(r"finished in ([0-9.]+) (s|min|h)\b", msg)
took = float(m.group(1)) * {"s": 1, "min": 60, "h": 3600}[m.group(2)] if m else None
ok = took is not None and abs(took - real) <= max(0.25 * real, 2)
print(("ok: " if ok else "FAIL: ") + f"it gives the real duration ({took} s against {real} s)")
sys.exit(0 if ok else 1)
PY
check "smrd is alive" alive
stop_smrd
finish
