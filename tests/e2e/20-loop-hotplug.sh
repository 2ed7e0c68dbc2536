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
# is_within MS BOUND: MS was measured (not empty) and is at most BOUND.
is_within() { [ -n "$1" ] && [ "$1" -le "$2" ]; }
# lag: smrd's own worst lateness of its sampling timer in the last minute, in ms
lag() { scrape | awk '/^smrd_event_loop_lag_seconds / { printf "%d\n", $2 * 1000 }'; }
start_smrd --interval $INTERVAL --include '^loop[0-9]+$' --exclude '^$'
truncate -s 256M "$T/disk.img"

t0=$(now_ms)
LOOP=$(attach_loop "$T/disk.img" --direct-io=on)
NAME=${LOOP#/dev/}
seen=""
# polled for longer than the bound, so that a late disk is measured, not lost
while [ "$(now_ms)" -lt $((t0 + 10000)) ]; do
	scrape >"$T/m1" 2>/dev/null
	if metrics_py get "$T/m1" smrd_disk_info device="$NAME" >/dev/null; then seen=$(($(now_ms) - t0)); break; fi
	sleep 0.05
done
say "measured: $NAME appeared in /metrics ${seen:-never (10 s)} ms after attach (interval ${INTERVAL}s)"
check "$NAME appears within two intervals (${seen:-never} ms <= $((2 * INTERVAL * 1000 + 500)))" \
	is_within "$seen" $((2 * INTERVAL * 1000 + 500))
check "smrctl disks lists $NAME" sh -c "'$SMRCTL' --socket '$SOCK' disks | grep -q '^$NAME '"
ctl disks | sed 's/^/    /'

timeout -k 5 60 fio --clocksource=clock_gettime --name=w --filename="$LOOP" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
	--size=8M --output-format=terse --terse-version=3 >"$T/fio.out" 2>&1 || fail "fio failed"
# until smrd has sampled the last of fio's writes
kern_writes() { awk -v n="$NAME" '$3 == n {print $8}' /proc/diskstats; }
smrd_writes() { scrape >"$T/m2" && [ "$(metrics_py get "$T/m2" smrd_disk_writes_completed_total device="$NAME")" = "$(kern_writes)" ]; }
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to count fio's writes" smrd_writes
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
while [ "$(now_ms)" -lt $((t0 + 10000)) ]; do
	scrape >"$T/m3" 2>/dev/null
	if ! grep -q "device=\"$NAME\"" "$T/m3"; then gone=$(($(now_ms) - t0)); break; fi
	sleep 0.05
done
say "measured: $NAME left /metrics ${gone:-never (10 s)} ms after detach"
check "$NAME leaves within two intervals (${gone:-never} ms <= $((2 * INTERVAL * 1000 + 500)))" \
	is_within "$gone" $((2 * INTERVAL * 1000 + 500))
ctl show "$NAME" >/dev/null 2>&1
rc=$?
check "smrctl show $NAME now fails with exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "daemon still running" alive
stop_smrd

# A disk that answers every read in 1.5 s, with no udev database to say what
# is on it (issue 26: at start its 51 signature reads held the event loop
# for 76 s; hot-plugged, /metrics, the socket and sampling froze for ~50 s).
# The reads are off the loop: smrd listens at once, its event loop never
# runs its sampling timer a second late while they go on (smrd's own
# figure: a client's includes its fork and start-up), and every scrape and
# smrctl status is answered.
step "a slow disk with no udev data, at start and hot-plugged"
use_emu
emu_up SLOW slow cmr --seek-ms 1500 --rot-ms 1 --write-cache 0 >/dev/null || { fail "emu_up"; finish; }
reads_of() { awk -v d="${1#/dev/}" '$3 == d { print $4 }' /proc/diskstats; }	# a loop's counters outlive a detach
r0=$(reads_of "$SLOW")
mkdir -p "$T/no-udev"
t0=$(now_ms)
start_smrd --interval $INTERVAL --include "^${SLOW#/dev/}\$" --exclude '^$' --udev-root "$T/no-udev"
say "  smrd listened $(($(now_ms) - t0)) ms after its start, the slow disk present"
check "smrd listens within 5 s beside a slow disk ($(($(now_ms) - t0)) ms)" [ $(($(now_ms) - t0)) -lt 5000 ]
LAG_MS=1000	# one read of the slow disk on the loop would hold it 1.5 s
responsive() {	# responsive SECS: worst scrape and status over SECS as the client saw it, in ms (99999: no answer in 10 s)
	local end=$(( $(now_ms) + $1 * 1000 )) worst=0 t d
	while [ "$(now_ms)" -lt "$end" ]; do
		t=$(now_ms); curl -sf --max-time 10 "http://127.0.0.1:$PORT/metrics" >/dev/null || t=$((t - 99999)); d=$(($(now_ms) - t))
		[ "$d" -gt "$worst" ] && worst=$d
		t=$(now_ms); timeout -k 2 10 "$SMRCTL" --socket "$SOCK" status >/dev/null || t=$((t - 99999)); d=$(($(now_ms) - t))
		[ "$d" -gt "$worst" ] && worst=$d
		sleep 0.2
	done
	echo "$worst"
}
s0=$(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
w=$(responsive 6)
s1=$(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
l=$(lag)
say "measured: at start, worst client scrape/status $w ms; smrd's event loop at most ${l:-?} ms late"
check "at start: the event loop is never held while its signatures are read (${l:-no figure} ms < $LAG_MS)" \
	is_within "$l" $((LAG_MS - 1))
check "  ... and every scrape and status is answered within 10 s (worst $w ms)" [ "$w" -lt 10000 ]
check "  ... and sampling went on ($s0 -> $s1 samples)" [ $((s1 - s0)) -ge 4 ]
reads=$(( $(reads_of "$SLOW") - r0 ))
check "  ... while smrd read the slow disk's signatures in the background ($reads reads of 1.5 s done)" [ "$reads" -ge 2 ]
stop_smrd
start_smrd --interval $INTERVAL --include '^loop[0-9]+$' --exclude '^$' --udev-root "$T/no-udev"
emu_up SLOW2 slow2 cmr --seek-ms 1500 --rot-ms 1 --write-cache 0 >/dev/null || { fail "emu_up"; finish; }
wait_until 10 "the hot-plugged slow disk to be watched" bash -c "'$SMRCTL' --socket '$SOCK' disks | grep -q '^${SLOW2#/dev/} '"
w=$(responsive 6)
l=$(lag)
say "measured: hot-plugged, worst client scrape/status $w ms; smrd's event loop at most ${l:-?} ms late"
check "hot-plugged: the event loop is never held while its signatures are read (${l:-no figure} ms < $LAG_MS)" \
	is_within "$l" $((LAG_MS - 1))
check "  ... and every scrape and status is answered within 10 s (worst $w ms)" [ "$w" -lt 10000 ]
check "daemon still running" alive
stop_smrd
finish
