#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrd --oneshot on every fixture tree (and on the real captured trees in
# shared/, when present): each disk gets the class its tree was built for,
# the page passes promtool, and every diskstats counter equals what
# node_exporter reports for the same /proc/diskstats. Per-disk settings by
# identity; two disks that present one WWN each get their own past at start.
. "$(dirname "$0")/lib.sh"
need promtool
need prometheus-node-exporter
need curl

FIX=$SRCDIR/tests/fixtures/sysfs

python3 "$FIX/../make-sysfs.py" "$T/regen"
check "committed fixture trees match make-sysfs.py" diff -r --no-dereference "$FIX" "$T/regen"

oneshot() { # root, extra args
	local root=$1; shift
	"$SMRD" --oneshot --config /dev/null --sysfs-root "$root/sys" --procfs-root "$root/proc" \
		--udev-root "$root/udev" --exclude '^$' "$@"
}

node_port=19300
for dir in "$FIX"/*/; do
	case=$(basename "$dir")
	oneshot "$dir" >"$T/$case.prom" 2>"$T/$case.log" || fail "$case: smrd --oneshot exited non-zero"
	while read -r dev cls conf; do
		got=$(metrics_py get "$T/$case.prom" smrd_disk_info device="$dev" class="$cls")
		check "$case: $dev is $cls" [ "$got" = 1 ]
		got=$(metrics_py get "$T/$case.prom" smrd_disk_smr_confidence device="$dev")
		check "$case: $dev SMR confidence $conf (got $got)" python3 -c "import sys; sys.exit(abs($got-$conf)>1e-9)"
	done <"$dir/expected"
	# pools, arrays and volume groups: each expected series, and no other
	if [ -f "$dir/members" ]; then
		while read -r dev type name; do
			got=$(metrics_py get "$T/$case.prom" smrd_disk_membership_info device="$dev" type="$type" name="$name")
			check "$case: $dev is a member of $type $name" [ "$got" = 1 ]
		done <"$dir/members"
		n=$(grep -c '^smrd_disk_membership_info{' "$T/$case.prom")
		check "$case: $(wc -l <"$dir/members") memberships, no other ($n)" [ "$n" -eq "$(wc -l <"$dir/members")" ]
	fi
	check "$case: promtool check metrics" sh -c "promtool check metrics <'$T/$case.prom'"

	# node_exporter, same tree, diskstats only, nothing excluded.
	node_port=$((node_port + 1))
	prometheus-node-exporter --path.procfs="$dir/proc" --path.sysfs="$dir/sys" \
		--path.udev.data="$dir/udev/data" --collector.disable-defaults --collector.diskstats \
		--collector.diskstats.device-exclude='^$' \
		--web.listen-address=127.0.0.1:$node_port >"$T/node.log" 2>&1 &
	npid=$!
	WAIT_LOG=$T/node.log wait_until 15 "node_exporter on port $node_port ($case)" \
		curl -sf --max-time 2 -o "$T/$case.node" "http://127.0.0.1:$node_port/metrics"
	stop_pid $npid 10 "node_exporter to exit" "$T/node.log"
	check "$case: counters equal node_exporter's" metrics_py compare-node "$T/$case.node" "$T/$case.prom"
done

# Per-disk settings by identity (smrd.conf disk.<ID>.*): sdb declared DM-SMR
# by its serial, sda's stall threshold by its WWN, nvme0n1 by its by-id
# name; an identity that names no disk is said at start.
step "per-disk settings by WWN, serial and by-id name"
M=$FIX/mixed
printf 'S:disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_500GB_S4EVNX0N123456\n' >"$T/nvme-links"
mkdir -p "$T/mixed-udev/data" && cp -a "$M/udev/data/." "$T/mixed-udev/data/"
cat "$T/nvme-links" >>"$T/mixed-udev/data/b259:0"
cat >"$T/disks.conf" <<'EOF2'
disk.WD-WCC7K0AAAAAA.expect = dm-smr
disk.wwn-0x50014ee2bbbbbbbb.stall-threshold = 7
disk./dev/disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_500GB_S4EVNX0N123456.stall-threshold = 3
disk.WD-NOSUCHDISK.expect = cmr
EOF2
"$SMRD" --oneshot --config "$T/disks.conf" --sysfs-root "$M/sys" --procfs-root "$M/proc" --udev-root "$T/mixed-udev" \
	--exclude '^$' >"$T/decl.prom" 2>"$T/decl.log" || fail "smrd --oneshot with per-disk settings"
check "sdb declared dm-smr by serial: class dm-smr" \
	[ "$(metrics_py get "$T/decl.prom" smrd_disk_info device=sdb class=dm-smr)" = 1 ]
check "  ... SMR confidence 1 (declared)" [ "$(metrics_py get "$T/decl.prom" smrd_disk_smr_confidence device=sdb)" = 1 ]
check "  ... and smrd_disk_info says it was declared (the dashboards show it)" \
	[ "$(metrics_py get "$T/decl.prom" smrd_disk_info device=sdb declared=dm-smr)" = 1 ]
check "  ... a listed disk is not declared" [ "$(metrics_py get "$T/decl.prom" smrd_disk_info device=sda declared=)" = 1 ]
grep 'names no watched disk' "$T/decl.log" | sed 's/^/    /'
check "the identity that names no disk is reported" grep -q 'disk.WD-NOSUCHDISK names no watched disk' "$T/decl.log"
check "  ... and only that one" [ "$(grep -c 'names no watched disk' "$T/decl.log")" = 1 ]
# the detector's settings are on a running daemon's page (the last --config wins)
start_smrd --config "$T/disks.conf" --sysfs-root "$M/sys" --procfs-root "$M/proc" --udev-root "$T/mixed-udev" \
	--exclude '^$'
scrape >"$T/decl2.prom"
check "sda's stall threshold by WWN: 7 s" \
	[ "$(metrics_py get "$T/decl2.prom" smrd_disk_stall_threshold_seconds device=sda)" = 7 ]
check "nvme0n1's by /dev/disk/by-id: 3 s" \
	[ "$(metrics_py get "$T/decl2.prom" smrd_disk_stall_threshold_seconds device=nvme0n1)" = 3 ]
check "sdb keeps the default (1 s)" \
	[ "$(metrics_py get "$T/decl2.prom" smrd_disk_stall_threshold_seconds device=sdb)" = 1 ]
check "smrctl show sdb lists the declaration as decisive evidence" \
	sh -c "'$SMRCTL' --socket '$SOCK' show sdb | grep -Eq '^  \* +2 dm-smr +smrd.conf .*disk.WD-WCC7K0AAAAAA.expect = dm-smr'"
sed -i 's/^disk.WD-NOSUCHDISK.expect = cmr$/disk.WD-STILLNOSUCH.expect = cmr/' "$T/disks.conf"
ctl reload >/dev/null
wait_until 5 "the reload's report" grep -q 'disk.WD-STILLNOSUCH names no watched disk' "$T/smrd.log"
check "a reload reports an identity that names no disk" grep -q 'disk.WD-STILLNOSUCH names no watched disk' "$T/smrd.log"
stop_smrd

# Two disks behind one USB-SATA bridge present one WWN (audit 4, finding 7):
# at start each gets its own past, told apart by name. sdb's storm is on
# record under the plain WWN, as an smrd before the fix recorded it.
step "two disks with one WWN: each its own past at start"
mkdir -p "$T/twin-udev/data" && cp -a "$M/udev/data/." "$T/twin-udev/data/"
printf 'E:ID_WWN=0x50014ee2bbbbbbbb\n' >>"$T/twin-udev/data/b8:16"	# sda's
rm -rf "$T/state" && mkdir -m 0750 "$T/state"
printf '%d\t%s\tsdb\t0x50014ee2bbbbbbbb\twrite\twarning\t30\t10\t0\t1\t%s\n' 120 storm-start 'a storm' 90 storm-end \
	'its end' | "$HISTORY_SEED" "$T/state" >/dev/null || fail "history-seed"
start_smrd --sysfs-root "$M/sys" --procfs-root "$M/proc" --udev-root "$T/twin-udev" --exclude '^$'
on_record() { ctl --json show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["detection"]["storm"]["on_record"])'; }
back() { [ "$(on_record "$1")" = 1 ]; }
wait_until 5 "sdb's storm back from the history" back sdb
check "sdb gets its storm back" back sdb
check "sda, with sdb's WWN, does not get sdb's storm (on record: $(on_record sda))" [ "$(on_record sda)" = 0 ]
stop_smrd

# The real /sys trees captured on real machines (the workplace's shared data,
# never copied into the repository): SMRD_REAL_SYSFS, else beside the clone.
REAL=""
for d in "${SMRD_REAL_SYSFS:-}" "$SRCDIR/../shared/data/real-sysfs" /work/shared/data/real-sysfs; do
	[ -n "$d" ] && ls "$d"/*.tar.xz >/dev/null 2>&1 && { REAL=$d; break; }
done
if [ -z "$REAL" ]; then
	fail "the captured real sysfs trees are missing (looked in \$SMRD_REAL_SYSFS, ../shared/data/real-sysfs beside the clone, /work/shared/data/real-sysfs): point SMRD_REAL_SYSFS at them"
else
	for tb in "$REAL"/*.tar.xz; do
		n=$(basename "$tb" .tar.xz)
		mkdir -p "$T/real/$n" && tar -xJf "$tb" -C "$T/real/$n"
		"$SMRD" --oneshot --config /dev/null --sysfs-root "$T/real/$n/$n/sys" \
			--procfs-root "$T/real/$n/$n/proc" --exclude '^$' >"$T/$n.prom" 2>"$T/$n.log"
		check "real tree $n: oneshot succeeds and passes promtool" sh -c "promtool check metrics <'$T/$n.prom'"
		grep '^smrd_disk_info' "$T/$n.prom" | sed 's/^/    /'
	done
	# What lsblk's dumps say these disks are.
	p=$T/multi-devs-bcachefs.prom
	check "real: KINGSTON SH103S3 SATA SSD is ssd" metrics_py get "$p" smrd_disk_info device=sda class=ssd
	check "real: WDC WD800JD HDD is cmr" metrics_py get "$p" smrd_disk_info device=sdb class=cmr
	check "real: KINGSTON NVMe is ssd" metrics_py get "$p" smrd_disk_info device=nvme0n1 class=ssd
	# an optical drive has no media cache to fill: not watched at all
	check "real: the DVD drive (sr0) is not watched" bash -c "grep -q 'device=\"sda\"' '$p' && ! grep -q 'device=\"sr0\"' '$p'"
	# dm-0 is stacked on loop0-3 (slaves/): its members are watched, it is not, unless asked
	check "real: LVM tree's dm-0 is not watched (stacked)" sh -c "! grep -q 'device=\"dm-0\"' '$T/simple-lvm.prom'"
	"$SMRD" --oneshot --config /dev/null --sysfs-root "$T/real/simple-lvm/simple-lvm/sys" --watch-stacked yes \
		--procfs-root "$T/real/simple-lvm/simple-lvm/proc" --exclude '^$' >"$T/simple-lvm-stacked.prom" 2>"$T/simple-lvm-stacked.err"
	check "real: LVM tree's dm-0 is unknown with watch-stacked" \
		metrics_py get "$T/simple-lvm-stacked.prom" smrd_disk_info device=dm-0 class=unknown
fi
finish
