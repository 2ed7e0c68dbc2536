#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No false alarms on a healthy disk doing ordinary work (issue 25): smrd
# watches this machine's own root disk while the test runs the workloads of
# tests/e2e/host-work.sh on it (big buffered writes then sync, fstrim,
# fsync-heavy databases, a parallel build, package unpacking, backups,
# mixed I/O), HOST_WORK_SECS seconds each. Whatever else the machine does
# meanwhile is on the disk too. Must hold: no destage storm, no behaviour
# verdict, no idle-cleaning episode, and a GC score that never passes 0.2
# in any one-second sample. Prints what the disk did (its slow flushes and
# discards are stalls of those ops, as they should be).
# The gate runs the writeback, fstrim and fsync workloads (the flushes and
# discards that look most like a cache's waits) for 10 s each at a fixed
# seed; SMRD_SOAK=1 runs all of them for 25 s at a fresh one.
. "$(dirname "$0")/lib.sh"
need fio
need meson
if [ "${SMRD_SOAK:-0}" = 1 ]; then
	SECS=${HOST_WORK_SECS:-25}
	HOST_WORK_SEED=${HOST_WORK_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
else
	SECS=${HOST_WORK_SECS:-10}
	HOST_WORK_SEED=${HOST_WORK_SEED:-1}
fi
. "$SRCDIR/tests/e2e/host-work.sh"
[ "${SMRD_SOAK:-0}" = 1 ] || WORKLOADS=${HOST_WORKLOADS:-writeback fstrim fsync}
say "workloads: $WORKLOADS, $SECS s each, seed $HOST_WORK_SEED (replay: HOST_WORK_SEED=$HOST_WORK_SEED)"

root_src=$(findmnt -n -o SOURCE /)
root=$(lsblk -no PKNAME "$root_src" 2>/dev/null | head -1)
[ -n "$root" ] || root=$(basename "$(readlink -f "$root_src")")
[ -e "/sys/block/$root" ] || unavailable rootdisk "the root file system is on $root_src, not on a block device"
WORK=$(mktemp -d /var/tmp/smrd-healthy.XXXXXX)
at_exit 'rm -rf "$WORK"'
[ "$(findmnt -n -o SOURCE --target "$WORK")" = "$root_src" ] || fail "$WORK is not on the root file system"

step "smrd watches the root disk $root"
start_smrd --interval 1 --include "^$root\$" --exclude '^$'
check "smrd watches $root" ctl show "$root"
ctl show "$root" | sed -n '1,8p' | sed 's/^/  /'

# one sample a second of what smrctl says of the disk
watch_disk() {
	while :; do
		ctl --json disks 2>/dev/null | python3 -c '
import json, sys, time
for d in json.load(sys.stdin)["disks"]:
    if d["device"] == sys.argv[1]:
        print(time.time(), d["gc_score"], int(d["storm"]), d["class"])' "$root" >>"$T/watch.txt"
		sleep 1
	done
}
watch_disk &
WATCH_PID=$!
at_exit 'kill $WATCH_PID 2>/dev/null'

before=$(scrape | grep -E "^smrd_disk_(writes_completed|reads_completed|discards_completed|flush_requests)_total\{device=\"$root\"" | awk '{s += $2} END {print s + 0}')
start=$(now_ms)
# what the disk completed (reads, writes, discards, flushes), from the
# kernel's own counters: a workload that did nothing proves nothing
ios_now() { awk '{ print $1 + $5 + $12 + $16 }' "/sys/block/$root/stat"; }
for wl in $WORKLOADS; do
	step "$wl for $SECS s"
	n0=$(ios_now)
	work "$wl" "$WORK" "$SECS"
	rc=$?
	n=$(( $(ios_now) - n0 ))
	check "$wl ran (exit $rc) and the disk did its work ($n I/Os, at least 100)" bash -c "[ $rc -eq 0 ] && [ $n -ge 100 ]"
done
sync
sleep 8	# the last interval, and a storm's end, reach the history
secs=$(( ($(now_ms) - start) / 1000 ))
after=$(scrape | grep -E "^smrd_disk_(writes_completed|reads_completed|discards_completed|flush_requests)_total\{device=\"$root\"" | awk '{s += $2} END {print s + 0}')
kill "$WATCH_PID" 2>/dev/null

step "judging"
ctl --json events --device "$root" --limit 10000 >"$T/events.json" || fail "smrctl events"
check_by python3 - "$T/events.json" "$T/watch.txt" "$secs" "$((after - before))" "$root" <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))["events"]
rows = [l.split() for l in open(sys.argv[2]) if l.strip()]
secs, ios, dev = int(sys.argv[3]), int(float(sys.argv[4])), sys.argv[5]
kinds = collections.Counter(e["kind"] for e in events)
stalls = collections.Counter(e["op"] for e in events if e["kind"] == "stall")
gc = max([float(r[1]) for r in rows] or [0])
storm_samples = sum(int(r[2]) for r in rows)
print(f"  {dev}: {secs / 60:.1f} min of ordinary work, {ios} I/Os, {len(rows)} one-second samples")
print(f"  events: {dict(kinds) or 'none'}; stalls by op: {dict(stalls) or 'none'}")
print(f"  storms {kinds['storm-start']}, behaviour verdicts {kinds['behaviour']}, idle cleaning "
      f"{kinds['idle-cleaning-start']}, samples in a storm {storm_samples}, GC score at most {gc:.2f}")
bad = []
if len(rows) < secs / 2:
    bad.append(f"only {len(rows)} samples of smrctl in {secs} s")
for k in ("storm-start", "behaviour", "idle-cleaning-start"):
    if kinds[k]:
        bad.append(f"{kinds[k]} {k} event(s) on a healthy disk: " +
                   "; ".join(e["message"] for e in events if e["kind"] == k)[:400])
if storm_samples:
    bad.append(f"{storm_samples} samples with a storm active")
if gc > 0.2:
    bad.append(f"GC score reached {gc:.2f}")
if any(r[3] == "dm-smr" for r in rows):
    bad.append("classified dm-smr")
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("ok: no storm, no verdict, no idle cleaning, GC score at most 0.2 on a healthy disk at work")
sys.exit(1 if bad else 0)
PY
stop_smrd
finish
