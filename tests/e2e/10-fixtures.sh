#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrd --oneshot on every fixture tree (and on the real captured trees in
# shared/, when present): each disk gets the class its tree was built for,
# the page passes promtool, and every diskstats counter equals what
# node_exporter reports for the same /proc/diskstats.
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
	check "$case: promtool check metrics" sh -c "promtool check metrics <'$T/$case.prom'"

	# node_exporter, same tree, diskstats only, nothing excluded.
	node_port=$((node_port + 1))
	prometheus-node-exporter --path.procfs="$dir/proc" --path.sysfs="$dir/sys" \
		--path.udev.data="$dir/udev/data" --collector.disable-defaults --collector.diskstats \
		--collector.diskstats.device-exclude='^$' \
		--web.listen-address=127.0.0.1:$node_port >"$T/node.log" 2>&1 &
	npid=$!
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$node_port/metrics" >"$T/$case.node" 2>/dev/null && break; sleep 0.1; done
	kill $npid; wait $npid 2>/dev/null
	check "$case: counters equal node_exporter's" metrics_py compare-node "$T/$case.node" "$T/$case.prom"
done

# The real /sys trees captured on real machines (shared/data, beside the clone).
REAL=$SRCDIR/../shared/data/real-sysfs
if [ -d "$REAL" ]; then
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
	check "real: DVD drive is not a disk" metrics_py get "$p" smrd_disk_info device=sr0 class=unknown
	check "real: LVM tree's dm-0 is unknown" metrics_py get "$T/simple-lvm.prom" smrd_disk_info device=dm-0 class=unknown
else
	say "note: $REAL not found, real captured trees not tried"
fi
finish
