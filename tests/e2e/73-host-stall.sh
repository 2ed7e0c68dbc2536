#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A host that stalls every disk at once is not a destage storm (issue 25;
# corpus seed 787085350: five look-alikes "stormed" in one second). A
# hypervisor that does not run the guest's virtual CPUs stops whatever
# completes their I/O (here the FUSE emulators; a virtio or iSCSI queue on
# a real guest) and says so in /proc/stat's steal. Three look-alike
# emulated disks (CMR, SSD, a virtual disk) take random writes at QD4
# while the test freezes all their emulators together (SIGSTOP for
# STALL_MS, SIGCONT for 300 ms, STALL_ROUNDS times) and writes the steal a
# hypervisor would show into the /proc/stat of one smrd's procfs root.
#   - the control, a second smrd reading this machine's own /proc, must
#     take the stall for storms on at least one disk: the shape is a
#     storm's, and the steal is what tells them apart;
#   - the smrd that sees the steal: no storm, no behaviour verdict, GC 0,
#     smrd_host_stalled_intervals_total > 0, smrd_host_steal_seconds_total
#     near what was injected, and one line in its log.
# The gate warms up for 8 s, stalls 4 times and writes 12 s more;
# SMRD_SOAK=1: 15 s, 6 stalls, 20 s.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
use_emu
EMU_SIZE=1G
STALL_MS=${STALL_MS:-2000}
if [ "${SMRD_SOAK:-0}" = 1 ]; then
	STALL_ROUNDS=${STALL_ROUNDS:-6} WARMUP=${STALL_WARMUP:-15} TAIL=20
else
	STALL_ROUNDS=${STALL_ROUNDS:-4} WARMUP=${STALL_WARMUP:-8} TAIL=12
fi

step "three look-alikes"
emu_up CMR cmr cmr --seed 1 || exit 1
emu_up SSD ssd ssd --seed 2 || exit 1
emu_up VD vd vdisk --seed 3 || exit 1
PIDS="${EMU_PIDS[*]}"
DEVS="${CMR#/dev/}|${SSD#/dev/}|${VD#/dev/}"

# smrd's procfs root: the machine's diskstats, a /proc/stat with steal added
mkdir -p "$T/proc"
: >"$T/proc/diskstats"
mount --bind /proc/diskstats "$T/proc/diskstats" || fail "bind-mounting /proc/diskstats"
at_exit 'umount "$T/proc/diskstats" 2>/dev/null'
cp /proc/stat "$T/proc/stat"
cat >"$T/steal.py" <<'PY'
# Copies /proc/stat to OUT ten times a second with EXTRA ticks of steal added
# to cpu0 (and the sum line); EXTRA is read from a file the stall updates.
import os, re, sys, time
out, extra_file, stop = sys.argv[1:4]
while not os.path.exists(stop):
    try:
        extra = int(open(extra_file).read() or 0)
    except (OSError, ValueError):
        extra = 0
    lines = []
    for line in open("/proc/stat"):
        f = line.split()
        if f and f[0] in ("cpu", "cpu0") and len(f) > 8:
            f[8] = str(int(f[8]) + extra)
            line = " ".join(f) + "\n"
        lines.append(line)
    with open(out + ".new", "w") as o:
        o.writelines(lines)
    os.rename(out + ".new", out)
    time.sleep(0.1)
PY
echo 0 >"$T/extra"
python3 "$T/steal.py" "$T/proc/stat" "$T/extra" "$T/stop-steal" &
STEAL_PID=$!
at_exit 'touch "$T/stop-steal"; kill -CONT $PIDS 2>/dev/null'

step "smrd with the steal, and a control without it"
start_smrd --interval 1 --procfs-root "$T/proc" --include "^($DEVS)\$" --exclude '^$'
mkdir -p "$T/control"
"$SMRD" --config /dev/null --listen 127.0.0.1:0 --socket "$T/control/smrd.sock" --state-dir "$T/control/state" \
	--interval 1 --include "^($DEVS)\$" --exclude '^$' >"$T/control/smrd.log" 2>&1 &
CONTROL=$!
for i in $(seq 100); do [ -S "$T/control/smrd.sock" ] && break; sleep 0.1; done
check "the control smrd is up" test -S "$T/control/smrd.sock"

step "random writes at QD4; the host stalls $STALL_ROUNDS times for $STALL_MS ms after $WARMUP s"
# the writes go on past the stalls for TAIL s: the control's storms end
# (storm-end, 5 s of writes that do not wait) before the judging
run_secs=$((WARMUP + STALL_ROUNDS * (STALL_MS + 300) / 1000 + TAIL))
for d in "$CMR" "$SSD" "$VD"; do
	emu_bg run_fio "w-${d#/dev/}" "$d" --rw=randwrite --bs=16k --iodepth=4 --size=256M --runtime=$run_secs \
		--rate_iops=1500 --randseed=7
done
sleep "$WARMUP"	# a baseline of ordinary intervals for both smrd
python3 - "$T/extra" "$STALL_MS" "$STALL_ROUNDS" "$(getconf CLK_TCK)" $PIDS <<'PY'
# Freezes every emulator at once, and counts the time as cpu0's steal while
# they are frozen, as a hypervisor's accounting would.
import os, signal, sys, time
extra_file, ms, rounds, hz, pids = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), [int(p) for p in sys.argv[5:]]
extra = 0
for _ in range(rounds):
    for p in pids:
        os.kill(p, signal.SIGSTOP)
    t0 = time.monotonic()
    while time.monotonic() - t0 < ms / 1000:
        time.sleep(0.05)
        extra = max(extra, int(open(extra_file).read() or 0))
        with open(extra_file + ".new", "w") as f:
            f.write(str(extra + int(0.05 * hz)))
        os.rename(extra_file + ".new", extra_file)
    for p in pids:
        os.kill(p, signal.SIGCONT)
    time.sleep(0.3)
print(f"  injected {rounds} stalls of {ms} ms; steal added: {int(open(extra_file).read()) / hz:.2f} s")
PY
wait_bg $((run_secs + 60)) "the writers"
sleep 6		# a storm's end needs storm-end seconds; the last intervals reach both

step "what each smrd made of it"
python3 - "$T/smrd.sock" "$T/control/smrd.sock" "$SMRCTL" "$CMR" "$SSD" "$VD" <<'PY' | tee "$T/result"
import json, subprocess, sys
sock, control, smrctl, *devs = sys.argv[1:]
for label, s in (("with steal", sock), ("control", control)):
    d = json.loads(subprocess.run([smrctl, "--socket", s, "--json", "disks"], capture_output=True, check=True).stdout)
    ev = json.loads(subprocess.run([smrctl, "--socket", s, "--json", "events", "--limit", "1000"],
                                   capture_output=True, check=True).stdout)["events"]
    for x in d["disks"]:
        kinds = sorted({e["kind"] for e in ev if e["device"] == x["device"]})
        storms = sum(1 for e in ev if e["device"] == x["device"] and e["kind"] == "storm-start")
        print(f"{label:10} {x['device']:7} storms {storms} class {x['class']:8} gc {x['gc_score']:.2f} events {','.join(kinds) or '-'}")
PY
storms_with=$(awk '$1 == "with" {n += $5} END {print n + 0}' "$T/result")
storms_control=$(awk '$1 == "control" {n += $4} END {print n + 0}' "$T/result")
if [ "$storms_control" -gt 0 ]; then
	say "ok: the control took the stall for $storms_control storm(s): the shape is a storm's"
else
	fail "the control flagged no storm: the injected stall is not one the detector would take for a cache (nothing shown)"
fi
check "no storm where the steal was seen (got $storms_with)" test "$storms_with" = 0
check "no behaviour verdict, GC 0" python3 -c '
import sys
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] == "with" and (f[6] == "dm-smr" or float(f[8]) > 0):
        sys.exit(l)' "$T/result"
scrape >"$T/metrics" || fail "scraping /metrics"
check "smrd_host_stalled_intervals_total counts the stall" python3 -c '
import sys
v = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("smrd_host_stalled_intervals_total ")]
print(f"  host-stalled intervals: {v}"); sys.exit(not v or v[0] < 1)' "$T/metrics"
check "smrd_host_steal_seconds_total holds the injected steal" python3 -c '
import sys
ms, n = int(sys.argv[2]), int(sys.argv[3])
v = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("smrd_host_steal_seconds_total ")]
print(f"  steal counted: {v} s (injected {n * ms / 1000:.1f} s)"); sys.exit(not v or v[0] < 0.8 * n * ms / 1000)' \
	"$T/metrics" "$STALL_MS" "$STALL_ROUNDS"
check "the log says why once" grep -q "the hypervisor held a CPU" "$T/smrd.log"
check "said once, not per interval" test "$(grep -c 'the hypervisor held a CPU' "$T/smrd.log")" = 1
kill "$CONTROL"; wait "$CONTROL"
check "the control exited cleanly" test $? = 0
stop_smrd
touch "$T/stop-steal"; wait "$STEAL_PID"
finish
