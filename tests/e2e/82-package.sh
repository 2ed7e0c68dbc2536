#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: builds, is lintian-clean, installs, smrd
# --check-config from the installed paths, systemd-analyze verify on the
# installed units, purges clean. Then under a real systemd: a minimal Debian
# 12 root (debootstrap, kept in /var/cache/smrd-tests), its systemd booted as
# PID 1 of a new PID namespace, the .deb installed there, and through that
# systemd: socket activation (a scrape, smrctl status), READY with STATUS=,
# the watchdog kept (a drop-in shortens WatchdogSec), systemctl reload (a
# good and a broken config), a stall
# in the journal explained by journalctl -x from the installed catalog;
# rebuilds as the unit runs smrd (user smrd, no CAP_SYS_ADMIN, a private
# /dev without a disk): the installed zedlet run with zed's environment
# for a vdev_attach through a by-id link (a zpool stand-in replaying
# tests/fixtures/zpool: ZFS cannot run here), smrctl rebuild-check, a btrfs
# replace onto an emulated DM-SMR disk and a balance onto an added disk,
# each warned of, followed and done; systemctl stop, purge. It tests the package, not a build's sanitizers: it
# runs once.
. "$(dirname "$0")/lib.sh"
need dpkg-buildpackage
need systemd-analyze
need promtool
need lintian
need debootstrap
need nsenter
need btrfs
need mkfs.btrfs
FIX=$SRCDIR/tests/fixtures/sysfs/mixed

step ".deb"
if dpkg-query -W -f='${Status}' smrd 2>/dev/null | grep -q 'install ok installed'; then
	fail "an smrd package is already installed on this machine: not touching it"
	finish
fi
had_user=0; getent passwd smrd >/dev/null && had_user=1
mkdir -p "$T/deb/smrd"
sanitizer_skip "$T/deb/smrd"
(cd "$SRCDIR" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$T/deb/smrd"
t0=$(date +%s)
# the unit suite ran in this build already (and needs root and loop devices)
(cd "$T/deb/smrd" && DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" timeout -k 10 600 dpkg-buildpackage -us -uc -b) \
	>"$T/deb.log" 2>&1
rc=$?
deb=$(ls "$T"/deb/smrd_*.deb 2>/dev/null | head -1)
say "  dpkg-buildpackage exited $rc after $(( $(date +%s) - t0 )) s: ${deb:-no .deb}"
[ "$rc" -eq 0 ] || tail -30 "$T/deb.log"
check "the .deb builds" [ -n "$deb" ]
# what the build leaves behind is ignored (debian/.gitignore, /obj-*/), as
# git status shows it in a clone: nothing untracked after a build
(cd "$SRCDIR" && git ls-files -co --exclude-standard) | sort >"$T/deb-before"
(cd "$T/deb/smrd" && find . -type f | sed 's|^\./||') | sort | comm -13 "$T/deb-before" - |
	(cd "$SRCDIR" && git check-ignore --no-index -n -v --stdin) | awk -F'\t' '$1 == "::" { print $2 }' >"$T/deb-left"
sed 's/^/    left untracked: /' "$T/deb-left" | head -5
check "the build leaves no file git would list as untracked" [ ! -s "$T/deb-left" ]
if [ -n "$deb" ]; then
	# as root lintian warns that it runs as root: that line is not about the package
	lintian -I --pedantic "$deb" 2>&1 | grep -v 'running with root privileges' >"$T/lintian.txt"
	sed 's/^/    lintian: /' "$T/lintian.txt" | head -20
	check "lintian --pedantic -I: nothing (each override in debian/smrd.lintian-overrides says why)" [ ! -s "$T/lintian.txt" ]
fi
if [ -n "$deb" ]; then
	dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -E 'sbin/smrd$|bin/smrctl$|smrd.service$|smrd.socket$|sysusers.d/smrd.conf$|man8/smrd.8|smrd.catalog$|completions/smrctl$|vendor-completions/_smrctl$|vendor_completions.d/smrctl.fish$|etc/smrd/smrd.conf$' | sed 's/^/    /'
	at_exit 'dpkg --purge smrd >/dev/null 2>&1; [ $had_user = 0 ] && { userdel smrd 2>/dev/null; groupdel smrd 2>/dev/null; }' 
	dpkg -i "$deb" >"$T/dpkg-i.log" 2>&1 || { cat "$T/dpkg-i.log"; }
	check "the .deb installs" bash -c "dpkg-query -W -f='\${Status}' smrd | grep -q 'install ok installed'"
	check "postinst created the smrd user" bash -c "getent passwd smrd >/dev/null"
	check "smrd --check-config runs from the installed paths" bash -c "/usr/sbin/smrd --check-config >'$T/check.txt'"
	check "it reads the installed config and model list" bash -c "grep -q 'config file: /etc/smrd/smrd.conf' '$T/check.txt' && /usr/sbin/smrd --oneshot --sysfs-root '$FIX/sys' --procfs-root '$FIX/proc' --udev-root '$FIX/udev' --exclude '^\$' | grep -q 'class=\"dm-smr\"'"
	check "smrctl --help runs" bash -c "/usr/bin/smrctl --help >/dev/null"
	check "man smrd.conf is installed" test -e /usr/share/man/man5/smrd.conf.5.gz
	check "completion for bash, zsh and fish is installed where the shells look" bash -c "test -e /usr/share/bash-completion/completions/smrctl && test -e /usr/share/zsh/vendor-completions/_smrctl && test -e /usr/share/fish/vendor_completions.d/smrctl.fish"
	# every path the docs tell a user to put in a config file exists, uncompressed
	grep -ohE '/usr/share/(smrd|doc/smrd)/[A-Za-z0-9_./-]+\.(yml|json|md)' "$SRCDIR/contrib/prometheus/README.md" \
		"$SRCDIR/contrib/grafana/README.md" "$SRCDIR/docs/alerts.md" "$SRCDIR/README.md" \
		"$SRCDIR/contrib/prometheus/smrd-alerts.yml" | sort -u >"$T/doc-paths"
	say "  paths the docs give: $(tr '\n' ' ' <"$T/doc-paths")"
	missing=$(while read -r p; do [ -f "$p" ] || echo "$p"; done <"$T/doc-paths")
	check "every one is installed as it is named (not .gz)" bash -c "[ -s '$T/doc-paths' ] && [ -z '$missing' ]"
	[ -n "$missing" ] && say "    missing: $missing"
	check "the installed rules pass promtool" promtool check rules /usr/share/smrd/prometheus/smrd-alerts.yml \
		/usr/share/smrd/prometheus/smrd-rules.yml
	check "the three dashboards are installed as JSON" bash -c "for d in overview disk fleet; do python3 -m json.tool /usr/share/smrd/grafana/smrd-\$d.json >/dev/null || exit 1; done"
	check "each runbook_url names a section of the installed alerts.md" python3 - <<'PY'
import re, sys
alerts = open("/usr/share/smrd/prometheus/smrd-alerts.yml").read()
doc = open("/usr/share/doc/smrd/alerts.md").read()
anchors = {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", doc, re.M)}
urls = re.findall(r'runbook_url: "http://\{\{ \$labels.instance \}\}/docs/alerts#([^"]+)"', alerts)
sys.exit(not urls or any(u not in anchors for u in urls))
PY
	systemd-analyze verify --man=no /lib/systemd/system/smrd.service /lib/systemd/system/smrd.socket \
		/lib/systemd/system/smrd-metrics.socket >"$T/verify.txt" 2>&1
	vrc=$?
	sed 's/^/    verify: /' "$T/verify.txt" | head -10
	check "systemd-analyze verify accepts the installed units" [ "$vrc" -eq 0 ]
	dpkg --purge smrd >"$T/purge.log" 2>&1
	check "it purges clean" bash -c "! dpkg-query -W -f='\${Status}' smrd 2>/dev/null | grep -q installed && [ ! -e /usr/sbin/smrd ] && [ ! -e /etc/smrd/smrd.conf ] && [ ! -e /lib/systemd/system/smrd.service ]"
fi
[ -n "$deb" ] || finish

step "a minimal Debian 12 root for systemd to boot"
# the package's run-time dependencies, and what booting and the checks need
# package-root.sh keeps it in /var/cache/smrd-tests; tests/run makes it after
# the plain build, so that here it is only unpacked. Made here (a fresh
# machine, run alone), the debootstrap gets what is left of the deadline.
left=$(( TEST_DEADLINE - ($(date +%s%3N) - TEST_START_MS) / 1000 - 150 ))
[ "$left" -lt 30 ] && left=30
root_tar=$("$SRCDIR/tests/e2e/package-root.sh" --deps "$(dpkg-deb -f "$deb" Depends)" --timeout "$left" 2>"$T/package-root.log")
sed 's/^/  /' "$T/package-root.log"
[ -s "$root_tar" ] || { fail "no Debian root (tests/e2e/package-root.sh BUILDDIR makes it; see above)"; finish; }
say "  the root from $root_tar"
R=$T/root
mkdir -p "$R" && tar -C "$R" -xf "$root_tar"
# what a container has no use for, and would wait for (a console, a seat);
# udevd too: the udev database smrd reads is the test's (written below)
for u in getty.target serial-getty@.service console-getty.service systemd-logind.service e2scrub_reap.service \
	systemd-timesyncd.service systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
	systemd-udev-trigger.service; do
	ln -sf /dev/null "$R/etc/systemd/system/$u"
done
cp "$deb" "$R/var/tmp/smrd.deb"
cat >"$T/boot.sh" <<'BOOT'
#!/bin/sh
# in the new mount and PID namespaces: the root a mount point of its own
# (systemd's sandboxing sets up namespaces from it: on a bare directory that
# fails with EINVAL), its own /proc, /sys, cgroup2, /run and /tmp, the
# host's /dev (the disks smrd watches), then systemd as PID 1
R=$1
mount --bind "$R" "$R" && mount --make-rshared "$R" &&
mount -t proc proc "$R/proc" && mount -t sysfs sysfs "$R/sys" && mount -t cgroup2 cgroup2 "$R/sys/fs/cgroup" &&
	mount -t tmpfs tmpfs "$R/run" && mount -t tmpfs tmpfs "$R/tmp" && mount --bind /dev "$R/dev" || exit 1
exec chroot "$R" /lib/systemd/systemd --system --unit=multi-user.target
BOOT
chmod +x "$T/boot.sh"
unshare --fork --pid --mount --propagation private "$T/boot.sh" "$R" >"$T/boot.log" 2>&1 &
UNSHARE=$!
# unshare's child is the namespace's PID 1: killing it ends every process in it
# and the mount namespace with its mounts
at_exit 'p1=$(pgrep -P '"$UNSHARE"' | head -1); [ -n "$p1" ] && kill -9 "$p1"; kill -9 '"$UNSHARE"' 2>/dev/null; wait '"$UNSHARE"' 2>/dev/null'
PID1=""
pid1() { PID1=$(pgrep -P "$UNSHARE" | head -1); [ -n "$PID1" ]; }
wait_until 10 "systemd to start as PID 1 of the new namespace" pid1
in_root() { timeout -k 5 60 nsenter -t "$PID1" -m -p chroot "$R" "$@"; }
booted() { in_root systemctl is-system-running 2>/dev/null | grep -qE '^(running|degraded)$'; }
if ! wait_until 90 "systemd in the root to finish booting" booted; then
	in_root systemctl list-jobs --no-pager 2>&1 | head -20
	finish
fi
say "  booted: $(in_root systemctl is-system-running); failed units: $(in_root systemctl --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')"
check "systemd runs as PID 1 of the root's namespace" bash -c "[ \"\$(nsenter -t $PID1 -p -m chroot '$R' cat /proc/1/comm)\" = systemd ]"

step "the .deb under that systemd"
in_root env DEBIAN_FRONTEND=noninteractive dpkg -i /var/tmp/smrd.deb >"$T/root-dpkg.log" 2>&1
check "the .deb installs in the root" bash -c "grep -q 'Setting up smrd' '$T/root-dpkg.log'"
grep -q 'Setting up smrd' "$T/root-dpkg.log" || tail -20 "$T/root-dpkg.log"
for u in smrd.socket smrd-metrics.socket; do
	check "$u is enabled and listening after install" bash -c "[ \"\$(timeout 30 nsenter -t $PID1 -m -p chroot '$R' systemctl is-active $u)\" = active ]"
done
# stalls made easy to see: a read of a millisecond (the least either takes)
# is one, from the tracer
cat >>"$R/etc/smrd/smrd.conf" <<'CONF'
detect.stall-threshold = 0.001
slow-io = 0.001
CONF
# the packaged WatchdogSec=30s would want a 16 s wait to see a ping: a
# drop-in asks for one every 2 s
mkdir -p "$R/etc/systemd/system/smrd.service.d"
printf '[Service]\nWatchdogSec=4s\n' >"$R/etc/systemd/system/smrd.service.d/watchdog.conf"
# the package started the service; stopped, its sockets stay and start it again
in_root systemctl stop smrd.service 2>/dev/null
in_root systemctl daemon-reload
check "smrd.service stopped, its sockets still listening" bash -c "[ \"\$(timeout 30 nsenter -t $PID1 -m -p chroot '$R' systemctl is-active smrd.service smrd.socket smrd-metrics.socket | tr '\\n' ' ')\" = 'inactive active active ' ]"
code=$(curl -s -o "$T/root-metrics.txt" -w '%{http_code}' --max-time 20 http://127.0.0.1:9863/metrics)
check "a scrape of :9863 starts smrd through smrd-metrics.socket, and is answered" bash -c "[ '$code' = 200 ] && grep -q '^smrd_build_info' '$T/root-metrics.txt'"
# active once READY=1 came (Type=notify): until then it is activating
started() { [ "$(in_root systemctl is-active smrd.service)" = active ]; }
wait_until 20 "smrd.service to be active (READY=1)" started || in_root journalctl -u smrd.service --no-pager -n 15
in_root smrctl status >"$T/root-status.txt" 2>&1
check "smrctl status answers through smrd.socket" grep -q 'disks' "$T/root-status.txt"
in_root systemctl show smrd.service -p Type -p StatusText -p NRestarts -p WatchdogUSec >"$T/show1.txt"
sed 's/^/    /' "$T/show1.txt"
check "Type=notify, and READY came with a STATUS= line" grep -q '^StatusText=Watching [0-9]* disk' "$T/show1.txt"
check "the watchdog drop-in holds (WatchdogUSec=4s)" grep -qx 'WatchdogUSec=4s' "$T/show1.txt"
w0=$(in_root systemctl show smrd.service -p WatchdogTimestampMonotonic --value)
w1=$w0
pinged() { w1=$(in_root systemctl show smrd.service -p WatchdogTimestampMonotonic --value); [ "$w1" -gt "$w0" ]; }
[ -n "$w0" ] && wait_until 12 "a watchdog ping (WatchdogSec=4s: every 2 s at most)" pinged
say "  watchdog pings: $w0 -> $w1 (WatchdogSec=4s: every 2 s at most)"
check "the watchdog is kept (its timestamp moves)" bash -c "[ -n '$w0' ] && [ '$w1' -gt '$w0' ]"

step "a stall, in the journal, explained by the catalog"
disk=$(in_root smrctl --json disks | python3 -c 'import json,sys; d=json.load(sys.stdin)["disks"]; print(d[0]["device"] if d else "")')
say "  smrd in the root watches: $(in_root smrctl disks 2>/dev/null | awk 'NR > 1 { print $1 }' | tr '\n' ' ')"
if [ -n "$disk" ]; then
	in_root dd if=/dev/$disk of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null
	stall_id=22e527359e6345ef839807ec0027da0d
	journaled() { in_root journalctl -q --no-pager MESSAGE_ID=$stall_id | grep -q .; }
	if wait_until 20 "a stall event on $disk in the root's journal" journaled; then
		in_root journalctl -x --no-pager MESSAGE_ID=$stall_id -n 1 >"$T/journal-x.txt" 2>&1
		sed 's/^/    /' "$T/journal-x.txt" | head -12
		check "journalctl -x explains it from the installed catalog" bash -c "grep -q 'Subject: An I/O on $disk stalled' '$T/journal-x.txt' && grep -q 'detect.stall-threshold' '$T/journal-x.txt'"
		# stderr is the journal under systemd (JOURNAL_STREAM): the native
		# entry is the event's one, no second copy from the stderr stream
		msg=$(in_root journalctl -q --no-pager -o cat MESSAGE_ID=$stall_id -n 1)
		copies=$(in_root journalctl -q --no-pager -o cat -u smrd.service | grep -cxF -- "$msg")
		say "  \"$msg\" is in journalctl -u smrd $copies time(s)"
		check "one journal entry per event, not the native one and the stderr line" [ "$copies" -eq 1 ]
	fi
else
	fail "smrd in the root watches no disk"
fi

step "rebuilds as the unit runs smrd: the zed path, rebuild-check, a btrfs replace and a balance"
# On the host (the root has the host's /dev): a raid1 on A and B, an
# emulated DM-SMR disk to replace B onto (as 81 has it: the copy runs into
# its cliff and lasts seconds), a disk D to add and balance onto, and Z for
# zed's attach; udev's database in the root names Z, D and the emulated
# disk WD40EFAX (dm-smr by the model list), with Z's by-id link in its
# index, as systemd-udevd keeps them (smrd reads it: its /dev has no disk).
use_emu
EMU_SIZE=512M
emu_up SMR smr dm-smr --seq-min-kib 256 --seed 82 >/dev/null || { fail "emu_up"; finish; }
truncate -s 512M "$T/a.img" "$T/b.img" "$T/d.img" "$T/z.img"
A=$(attach_loop "$T/a.img") B=$(attach_loop "$T/b.img") D=$(attach_loop "$T/d.img") Z=$(attach_loop "$T/z.img")
S=${SMR#/dev/}
mkfs.btrfs -q -f -d raid1 -m raid1 "$A" "$B" >"$T/mkfs.out" 2>&1 || { fail "mkfs.btrfs: $(cat "$T/mkfs.out")"; finish; }
# in the root's mount namespace, under /mnt (the unit's /tmp is its own)
in_ns() { timeout -k 5 120 nsenter -t "$PID1" -m "$@"; }
in_ns mkdir -p "$R/mnt/rb" && in_ns mount "$A" "$R/mnt/rb" || { fail "mounting the raid1 in the root"; finish; }
at_exit "nsenter -t \$PID1 -m umount '$R/mnt/rb' 2>/dev/null"
in_ns sh -c "head -c $((64 << 20)) /dev/zero | openssl enc -aes-128-ctr -nosalt -K $(printf '%032x' 82) -iv 0 \
	2>/dev/null >'$R/mnt/rb/data' && sync" || fail "filling the raid1"
ZID=/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WXZED0000001
in_ns bash -c "$(declare -f udev_link)
mkdir -p '$R/run/udev/data'
for d in $S ${D#/dev/} ${Z#/dev/}; do
	printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-WX%s\n' \$d >'$R/run/udev/data/b'\$(cat /sys/block/\$d/dev)
done
udev_link '$R/run/udev' '$ZID' '${Z#/dev/}'" || fail "the root's udev database"
# zpool as the unit's smrd runs it: ZFS cannot run here, so a stand-in
# prints tests/fixtures/zpool's mirror pool (status-P-replacing.txt,
# get-slowio-mirror.txt, their .source files cite how they were made),
# named tank, the leaf being resilvered renamed Z's link; anything else
# is zpool's answer with no pool (root has no python: sed)
mkdir -p "$R/usr/local/share/smrd-test"
cp "$SRCDIR/tests/fixtures/zpool/status-P-replacing.txt" "$SRCDIR/tests/fixtures/zpool/get-slowio-mirror.txt" \
	"$R/usr/local/share/smrd-test/"
cat >"$R/usr/local/sbin/zpool" <<ZPOOL
#!/bin/sh
F=/usr/local/share/smrd-test
NEW=/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1
case "\$*" in
"status -P tank") exec sed "s|\$NEW|$ZID|; s|pool: dpool|pool: tank|; s|^\tdpool |\ttank  |" \$F/status-P-replacing.txt ;;
"get -H -p -o name,property,value,source allocated,numchildren,slow_io_n,slow_io_t tank all-vdevs")
	exec sed "s|\$NEW|$ZID|" \$F/get-slowio-mirror.txt ;;
*) echo "no pools available" >&2; exit 1 ;;
esac
ZPOOL
chmod 755 "$R/usr/local/sbin/zpool"
cat >>"$R/etc/smrd/smrd.conf" <<CONF
include = "^($S|${D#/dev/}|${Z#/dev/})\$"
exclude = "^\$"
rebuild-interval = 1
CONF
in_root systemctl restart smrd.service
watching() { [ "$(in_root smrctl --json disks | python3 -c 'import json,sys
print(sorted(d["device"] + "=" + d["class"] for d in json.load(sys.stdin)["disks"]))')" = \
	"$(python3 -c 'import sys; print(sorted(d + "=dm-smr" for d in sys.argv[1:]))' "$S" "${D#/dev/}" "${Z#/dev/}")" ]; }
wait_until 20 "smrd in the root to watch $S, ${D#/dev/} and ${Z#/dev/} as dm-smr" watching

# smrd as the unit runs it
spid=$(in_root systemctl show smrd.service -p MainPID --value)
in_root cat "/proc/$spid/status" >"$T/smrd-status.txt"
capeff=$(awk '/^CapEff:/ { print $2 }' "$T/smrd-status.txt")
check "smrd runs as user smrd (uid $(awk '/^Uid:/ { print $2 }' "$T/smrd-status.txt")), without CAP_SYS_ADMIN (CapEff $capeff)" \
	bash -c "[ \"\$(awk '/^Uid:/ { print \$2 }' '$T/smrd-status.txt')\" = \"\$(nsenter -t $PID1 -m -p chroot '$R' id -u smrd)\" ] &&
	[ \$(( 0x$capeff >> 21 & 1 )) = 0 ]"
in_root ls "/proc/$spid/root/dev" >"$T/smrd-dev.txt"
check "its /dev is private: none of the disks it watches is there ($(tr '\n' ' ' <"$T/smrd-dev.txt" | head -c 120))" \
	bash -c "[ -s '$T/smrd-dev.txt' ] && ! grep -qxE '$S|${D#/dev/}|${Z#/dev/}|disk' '$T/smrd-dev.txt'"

# zed's vdev_attach of Z into tank through its by-id link: the installed
# zedlet, with the environment zed gives it (zed_event.c)
in_root env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin ZED_ZEDLET_DIR=/etc/zfs/zed.d ZEVENT_VERSION=0 \
	ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach ZEVENT_SUBCLASS=vdev_attach ZEVENT_EID=82 ZEVENT_POOL=tank \
	ZEVENT_POOL_GUID=0x16C2C1B5E3B5E39F ZEVENT_POOL_STATE=0 ZEVENT_POOL_STATE_STR=ACTIVE ZEVENT_POOL_CONTEXT=0 \
	ZEVENT_TIME="$(date +%s) 5" ZEVENT_TIME_SECS="$(date +%s)" ZEVENT_TIME_NSECS=5 ZEVENT_VDEV_GUID=0x06F2E3F1A1B2C3D4 \
	ZEVENT_VDEV_PATH="$ZID" ZEVENT_VDEV_TYPE=disk ZEVENT_VDEV_STATE=7 ZEVENT_VDEV_STATE_STR=HEALTHY \
	/etc/zfs/zed.d/vdev_attach-smrd.sh >"$T/zedlet.out" 2>&1
zrc=$?
sed 's/^/    /' "$T/zedlet.out"
check "the installed zedlet exits 0 and warns of ${Z#/dev/}" \
	bash -c "[ $zrc = 0 ] && grep -q 'WARNING: ZFS pool tank is rebuilding onto ${Z#/dev/}' '$T/zedlet.out'"
# what it writes, once the unit's smrd read the pool (the stand-in: mirror-0's 917G)
named() { in_root smrctl --json events --device "${Z#/dev/}" --limit 50 | grep -q 'onto [a-z0-9]* ([^)]*): 917G to write'; }
wait_until 15 "the rebuild-warning on ${Z#/dev/} to name what the resilver writes" named
rc=0; in_root smrctl rebuild-check "${Z#/dev/}" tank >"$T/rc-zfs.txt" 2>&1 || rc=$?
sed 's/^/    /' "$T/rc-zfs.txt"
check "smrctl rebuild-check ${Z#/dev/} tank: exit 1, mirror-0's share, slow_io_events=off" \
	bash -c "[ $rc = 1 ] && grep -q '^to write:  917G: mirror-0' '$T/rc-zfs.txt' && grep -q 'slow_io_events=off tank VDEV' '$T/rc-zfs.txt'"
rc=0; in_root smrctl rebuild-check "$S" /mnt/rb >"$T/rc-btrfs.txt" 2>&1 || rc=$?
check "smrctl rebuild-check $S /mnt/rb: exit 1, what a replace copies" \
	bash -c "[ $rc = 1 ] && grep -q 'a replace copies one device' '$T/rc-btrfs.txt'"

# kinds DEVICE: the kinds of rebuild-warning and rebuild-done events on DEVICE
rebuild_events() { in_root smrctl --json events --device "$1" --limit 100 | python3 -c 'import json,sys
print(" ".join(sorted(e["kind"] for e in json.load(sys.stdin)["events"] if e["kind"] in ("rebuild-warning", "rebuild-done"))))'; }
# followed DEVICE KIND: smrctl rebuilds follows a KIND onto DEVICE
followed() { in_root smrctl --json rebuilds | python3 -c 'import json,sys
sys.exit(not any(r["device"] == sys.argv[1] and r["kind"] == sys.argv[2] and r["state"] == "running"
                 for r in json.load(sys.stdin)["rebuilds"]))' "$@"; }
done_on() { [ "$(rebuild_events "$1")" = "rebuild-done rebuild-warning" ]; }
in_ns btrfs replace start 2 "$SMR" "$R/mnt/rb" >"$T/replace.out" 2>&1 || fail "btrfs replace start: $(cat "$T/replace.out")"
wait_until 20 "smrd to follow the replace onto $S" followed "$S" btrfs-replace
wait_until 60 "the replace to end, and smrd to record it" done_on "$S"
say "  $(in_ns btrfs replace status -1 "$R/mnt/rb" | tail -1)"
check "the replace onto $S: a rebuild-warning, followed, a rebuild-done" done_on "$S"
# a balance onto D: paused at once (it takes a second), followed, resumed
in_ns btrfs device add -f -K "$D" "$R/mnt/rb" >"$T/add.out" 2>&1 || fail "btrfs device add: $(cat "$T/add.out")"
in_ns btrfs balance start --full-balance "$R/mnt/rb" >"$T/balance.out" 2>&1 &
bal=$!
for i in $(seq 100); do in_ns btrfs balance pause "$R/mnt/rb" >/dev/null 2>&1 && break; sleep 0.01; done
wait "$bal"
wait_until 20 "smrd to follow the paused balance onto ${D#/dev/}" followed "${D#/dev/}" balance
in_ns btrfs balance resume "$R/mnt/rb" >"$T/balance.out" 2>&1 || fail "btrfs balance resume: $(cat "$T/balance.out")"
wait_until 20 "smrd to record the balance's end" done_on "${D#/dev/}"
check "the balance onto ${D#/dev/}: a rebuild-warning, followed, a rebuild-done" done_on "${D#/dev/}"
in_root journalctl -q --no-pager -u smrd.service -p warning -n 6 | sed 's/^/    /'
in_ns umount "$R/mnt/rb"
in_root systemctl stop smrd.service
for l in "$A" "$B" "$D" "$Z"; do detach_loop "$l"; done
emu_cleanup
sed -i '/^include = /d; /^exclude = /d; /^rebuild-interval = /d' "$R/etc/smrd/smrd.conf"
in_root systemctl start smrd.service

step "reload, good and broken"
in_root systemctl reload smrd.service
check "systemctl reload works" bash -c "[ \"\$(timeout 30 nsenter -t $PID1 -m -p chroot '$R' systemctl is-active smrd.service)\" = active ]"
echo 'intervall = 2' >>"$R/etc/smrd/smrd.conf"
in_root systemctl reload smrd.service
bad_reload() { in_root systemctl show smrd.service -p StatusText --value | grep -q FAILED; }
wait_until 10 "the failed reload to show in systemctl status" bad_reload
in_root systemctl status smrd.service --no-pager >"$T/status-bad.txt" 2>&1
grep -i 'status:' "$T/status-bad.txt" | sed 's/^/    /'
check "systemctl status says the reload failed, and why" bash -c "grep -q 'reload FAILED.*intervall' '$T/status-bad.txt'"
check "and smrd goes on with the previous configuration" bash -c "[ \"\$(timeout 30 nsenter -t $PID1 -m -p chroot '$R' systemctl is-active smrd.service)\" = active ]"
sed -i '/^intervall/d' "$R/etc/smrd/smrd.conf"

step "stop and purge"
in_root systemctl stop smrd.service smrd.socket smrd-metrics.socket
in_root systemctl show smrd.service -p ActiveState -p Result -p ExecMainStatus >"$T/show-stop.txt"
sed 's/^/    /' "$T/show-stop.txt"
check "systemctl stop is clean (exit 0, result success)" bash -c "grep -qx 'ActiveState=inactive' '$T/show-stop.txt' && grep -qx 'Result=success' '$T/show-stop.txt' && grep -qx 'ExecMainStatus=0' '$T/show-stop.txt'"
in_root env DEBIAN_FRONTEND=noninteractive dpkg --purge smrd >"$T/root-purge.log" 2>&1
left=$(cd "$R" && ls -d usr/sbin/smrd usr/bin/smrctl etc/smrd var/lib/smrd lib/systemd/system/smrd.service usr/share/smrd \
	usr/share/doc/smrd etc/systemd/system/multi-user.target.wants/smrd.service etc/systemd/system/sockets.target.wants/smrd.socket 2>/dev/null)
check "purge leaves nothing of smrd in the root${left:+ (left: $left)}" [ -z "$left" ]
finish
