#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# On the real /sys: a loop device attached while smrd runs appears in
# /metrics and `smrctl disks` within two intervals, its counters follow fio's
# writes exactly, the page passes promtool, and it leaves after detach.
. "$(dirname "$0")/lib.sh"
need fio
need promtool
need curl
[ "$(id -u)" -eq 0 ] || { say "FAIL: needs root for loop devices"; exit 1; }

INTERVAL=1
start_smrd --interval $INTERVAL --include '^loop[0-9]+$' --exclude '^$'
truncate -s 256M "$T/disk.img"

t0=$(now_ms)
LOOP=$(attach_loop "$T/disk.img" --direct-io=on)
NAME=${LOOP#/dev/}
seen=""
for _ in $(seq 100); do
	scrape >"$T/m1" 2>/dev/null
	if metrics_py get "$T/m1" smrd_disk_info device="$NAME" >/dev/null; then seen=$(($(now_ms) - t0)); break; fi
	sleep 0.05
done
say "measured: $NAME appeared in /metrics ${seen:-never} ms after attach (interval ${INTERVAL}s)"
check "$NAME appears within two intervals" [ -n "$seen" ] && [ "${seen:-99999}" -le $((2 * INTERVAL * 1000 + 500)) ]
check "smrctl disks lists $NAME" sh -c "'$SMRCTL' --socket '$SOCK' disks | grep -q '^$NAME '"
ctl disks | sed 's/^/    /'

timeout -k 5 60 fio --clocksource=clock_gettime --name=w --filename="$LOOP" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
	--size=8M --output-format=terse --terse-version=3 >"$T/fio.out" 2>&1 || fail "fio failed"
sleep $((2 * INTERVAL + 1))
scrape >"$T/m2"
smrd_w=$(metrics_py get "$T/m2" smrd_disk_writes_completed_total device="$NAME")
kern_w=$(awk -v n="$NAME" '$3 == n {print $8}' /proc/diskstats)
smrd_b=$(metrics_py get "$T/m2" smrd_disk_written_bytes_total device="$NAME")
kern_b=$(awk -v n="$NAME" '$3 == n { printf "%.0f\n", $10 * 512 }' /proc/diskstats)
say "measured: writes smrd=$smrd_w kernel=$kern_w, bytes smrd=$smrd_b kernel=$kern_b (fio wrote 2048 x 4 KiB)"
check "write count equals /proc/diskstats" python3 -c "import sys; sys.exit(not ($smrd_w == $kern_w >= 2048))"
check "written bytes equal /proc/diskstats" python3 -c "import sys; sys.exit(not ($smrd_b == $kern_b >= 8388608))"
check "promtool check metrics is clean" sh -c "promtool check metrics <'$T/m2'"
ctl show "$NAME" | sed 's/^/    /'
check "smrctl show $NAME --json is valid JSON" sh -c "'$SMRCTL' --socket '$SOCK' show '$NAME' --json | python3 -m json.tool >/dev/null"

t0=$(now_ms)
detach_loop "$LOOP"
gone=""
for _ in $(seq 100); do
	scrape >"$T/m3" 2>/dev/null
	if ! grep -q "device=\"$NAME\"" "$T/m3"; then gone=$(($(now_ms) - t0)); break; fi
	sleep 0.05
done
say "measured: $NAME left /metrics ${gone:-never} ms after detach"
check "$NAME leaves within two intervals" [ -n "$gone" ] && [ "${gone:-99999}" -le $((2 * INTERVAL * 1000 + 500)) ]
ctl show "$NAME" >/dev/null 2>&1
rc=$?
check "smrctl show $NAME now fails with exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "daemon still running" alive
stop_smrd
finish
