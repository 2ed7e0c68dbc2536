#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated disks reproduce the primer's shapes, judged by fio's own
# per-I/O logs and /proc/diskstats (not by smrd):
#   1. dm-smr 4 KiB random writes, QD1 and QD4: fast phase, then a cliff
#      where the cache size predicts it
#   2. dm-smr sequential 1 MiB writes: no cliff
#   3. dm-smr random reads right after 1: two latency bands
#   4. cmr 4 KiB random writes QD4: steady 5-15 ms
#   5. two emulated disks at once, and a clean teardown when a step fails
# The emulators trace every request (--trace): latency bounds judge the
# model's figures, and the host's stalls (an emulator woken late) are
# measured and printed beside fio's, not mistaken for the disk's.
# The gate runs 1 at QD4 beside 4, the teardown and a short demo; with
# SMRD_SOAK=1, also 1 at QD1, 3 and 2, at 20 s, and the 20 s demo.
. "$(dirname "$0")/lib.sh"
use_emu

SOAK=${SMRD_SOAK:-0}
RUNTIME=${EMU_RUNTIME:-$([ "$SOAK" = 1 ] && echo 20 || echo 14)}
DEMO_SECS=$([ "$SOAK" = 1 ] && echo 20 || echo 14)
PHASES=$SRCDIR/tests/emu/fio-phases.py

judge() {	# judge NAME SHAPE EMU [fio-phases options]: prints the measurements
	local name=$1 shape=$2 emu=$3 op=write
	shift 3
	[ -n "$emu" ] && set -- --emu-log "$T/emu-$emu/emu.log" "$@"
	case " $* " in *" --op read "*) op=read ;; esac
	local ds
	if [ "$op" = read ]; then ds=$(awk '{ print $1, $2, $5 }' "$T/$name.ds"); else ds=$(awk '{ print $3, $4, $6 }' "$T/$name.ds"); fi
	step "$name"
	python3 "$PHASES" "$shape" "$T/${name}_clat.1.log" --json "$T/$name.json" --diskstats "$ds" "$@" \
		| sed 's/^/  /'
	local rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && ok "scenario $name" || fail "scenario $name"
}

# 1 (QD4) and 4 side by side: two emulated disks on two loop devices at once.
emu_up SMR4 smr-qd4 dm-smr --seed 2 --trace || exit 1
emu_up CMR cmr cmr --seed 4 --trace || exit 1
emu_bg run_fio smr-qd4 "$SMR4" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=2
emu_bg run_fio cmr-qd4 "$CMR" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=4
wait_bg $(($RUNTIME + 90)) "the fio runs"
judge smr-qd4 cliff smr-qd4 --iodepth 4
judge cmr-qd4 steady cmr --iodepth 4 --min-ms 5 --max-ms 15

if [ "$SOAK" = 1 ]; then
	# 1 (QD1), then 3 on the same disk while its cache is still being cleaned.
	emu_up SMR1 smr-qd1 dm-smr --seed 1 --trace || exit 1
	run_fio smr-qd1 "$SMR1" --rw=randwrite --bs=4k --iodepth=1 --runtime="$RUNTIME" --randseed=1
	run_fio smr-reads "$SMR1" --rw=randread --bs=4k --iodepth=1 --runtime=$((RUNTIME / 2)) --randseed=3
	judge smr-qd1 cliff smr-qd1 --table
	judge smr-reads bands "" --op read --band-ms 400

	# 2
	emu_up SEQ seq dm-smr --seed 5 --trace || exit 1
	run_fio smr-seq "$SEQ" --rw=write --bs=1M --iodepth=1 --runtime=$((RUNTIME / 2)) --size=4G
	judge smr-seq nocliff seq --bs 1048576
else
	say "  (QD1 cliff, reads behind rewrites and 1 MiB sequential writes: SMRD_SOAK=1)"
fi
emu_cleanup

# 5: a step fails while writes are stuck behind band rewrites; the trap must
# still take everything down: our fio, loop device, mount and smr-emu only.
step "teardown after a failing step"
(
	set -u
	EMU_WORK=$T/fail
	mkdir -p "$EMU_WORK"
	. "$SRCDIR/tests/emu/emu.sh"
	trap emu_cleanup EXIT
	emu_up DEV doomed dm-smr --cache-mib 2 --seed 6 >/dev/null || exit 1
	emu_bg fio --clocksource=clock_gettime --name=doomed --filename="$DEV" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
		--iodepth=4 --time_based --runtime=60 --output=/dev/null
	echo "$DEV ${EMU_PIDS[0]} ${EMU_BG[0]} ${EMU_MNTS[0]} ${EMU_STORES[0]}" >"$T/fail.state"
	sleep 3	# past the 2 MiB cache: writes now wait for band rewrites
	exit 3
)
rc=$?
read -r dev emu_pid fio_pid mnt store <"$T/fail.state"
say "  failing step exited $rc; it had $dev, smr-emu $emu_pid, fio $fio_pid"
check "the failing step's exit code came through" [ "$rc" -eq 3 ]
check "its fio is gone" bash -c "! kill -0 $fio_pid 2>/dev/null"
check "its smr-emu is gone" bash -c "! kill -0 $emu_pid 2>/dev/null"
check "its mount is gone" bash -c "! mountpoint -q '$mnt'"
check "its loop device is detached" bash -c "! losetup -l -n -O NAME,BACK-FILE | grep -q '$mnt'"
check "its backing store is removed" [ ! -e "$store" ]

step "the demo (contrib/demo/smr-demo.sh $DEMO_SECS)"
# what a new user runs first: a row a second on the clock while fio runs,
# the storm in the rows, smrctl events with its start and end in order, the verdict
timeout -k 5 150 "$SRCDIR/contrib/demo/smr-demo.sh" "$DEMO_SECS" "$BUILDDIR" >"$T/demo.out" 2>&1 </dev/null
rc=$?
sed -n '/== 3/,/== 5/p' "$T/demo.out" | sed 's/^/    /' | head -60
check "the demo ran to its end" bash -c "[ $rc = 0 ] && grep -q 'fio.s own summary' '$T/demo.out'"
# the page is worth watching while the cliff comes, not after: its address
# is given before the writes start
check "the demo gives the status page's address before the writes" bash -c \
	"sed -n '/== 2/,/== 3/p' '$T/demo.out' | grep -qE 'status page, live: http://127.0.0.1:[0-9]+/ '"
python3 - "$T/demo.out" "$DEMO_SECS" <<'PY' >"$T/demo.check"
import re, sys
out, secs = open(sys.argv[1]).read(), int(sys.argv[2])
rows = [l.split() for l in out.splitlines() if re.match(r"^\s+\d+\s+(running|done)\s", l)]
nums = [int(r[0]) for r in rows]
done = next((int(r[0]) for r in rows if r[1] == "done"), None)
storm = [int(r[0]) for r in rows if "STORM" in r]
# the storm is an incident now: its start and end are its steps
# ("    HH:MM:SS storm-start ..."); a row of its own would read "DATE TIME DEV storm-start"
ev = re.findall(r"^\s*(?:\S+ )?(\d\d:\d\d:\d\d)(?: \S+)?\s+(storm-start|storm-end)\s", out, re.M)
DONE_SLACK = 6
print(f"rows {nums[:1]}..{nums[-1:]}, fio done at row {done} (bound {secs}-{secs + DONE_SLACK}), storm rows {storm[:1]}..{storm[-1:]}, events {[k for _, k in ev]}")
# a second the machine was too busy to ask in is missing, not every later row late.
# fio cannot be done before its run time; it ends after its last write (a
# band rewrite behind it) and its own start-up, seconds on a busy host
ok = (nums == sorted(set(nums)) and nums[:1] == [1] and len(nums) >= secs * 0.6 and done is not None and
      secs <= done <= secs + DONE_SLACK and storm and
      [k for _, k in ev] == ["storm-start", "storm-end"] and ev[0][0] <= ev[1][0] and
      re.search(r"^class dm-smr ", out, re.M) is not None)
sys.exit(not ok)
PY
rc=$?
say "  $(cat "$T/demo.check")"
check "its rows keep up with the clock (fio ends at second $DEMO_SECS-$((DEMO_SECS + 6)), a row for 60% of the seconds or more), the storm shows, events in order, the verdict dm-smr" [ "$rc" = 0 ]

finish
