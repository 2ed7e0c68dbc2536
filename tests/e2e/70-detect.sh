#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Detection end to end on the emulated disks, with fio, all at once:
#   dm-smr 4 KiB random writes QD4: a destage storm reported within 10 s of
#     the cliff (the first write fio saw take >= 100 ms); stall events with
#     the right device, op and latency, as many as fio saw over 1 s; random
#     reads afterwards give at least two read bands near the emulator's true
#     values (seek + rotation ~8 ms, one band rewrite 400 ms); the disk
#     becomes dm-smr by behaviour, and `smrctl show` says why.
#   cmr 4 KiB random writes QD4 and dm-smr sequential 1 MiB writes: no storm,
#     no event, GC score never above 0.2 (sampled every second).
#   The idle-cleaning probe (on here, off by default): a dm-smr disk left
#     alone after a short random-write burst is probed and found cleaning;
#     the probes find nothing on the cmr and sequential disks.
#   Events, the score and the verdict survive SIGTERM and kill -9 restarts.
#   Every event kind that happened reached a private journald with the
#   MESSAGE_ID and priority docs/detection.md gives it.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
use_emu
private_journal

# 12 s of writes bring the cliff, its storm and stalls to every dm-smr
# disk here; the soak (SMRD_SOAK=1) writes for 20 s
[ "${SMRD_SOAK:-0}" = 1 ] && RUNTIME=${DETECT_RUNTIME:-20} || RUNTIME=${DETECT_RUNTIME:-12}

emu_up SMR smr dm-smr --seed 11 || exit 1
emu_up CMR cmr cmr --seed 12 || exit 1
emu_up SEQ seq dm-smr --seed 13 || exit 1
emu_up PRB probe dm-smr --seed 14 || exit 1
S=${SMR#/dev/} C=${CMR#/dev/} Q=${SEQ#/dev/} P=${PRB#/dev/}
SMRD_ARGS=(--interval 1 --include "^($S|$C|$Q|$P)\$" --exclude '^$' --probe yes --probe-interval 1)
[ -n "${DETECT_BACKEND:-}" ] && SMRD_ARGS+=(--trace-backend "$DETECT_BACKEND")
start_smrd "${SMRD_ARGS[@]}"
say "smr $S, cmr $C, seq $Q; trace backend $(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace_backend"])')"

# Every second: each disk's score, storm flag and class, for the false-positive count.
watch_disks() {
	while [ ! -e "$T/stop-watch" ]; do
		ctl --json disks 2>/dev/null | python3 -c '
import json, sys, time
for d in json.load(sys.stdin)["disks"]:
    print(time.time(), d["device"], d["gc_score"], int(d["storm"]), d["class"])' >>"$T/watch" || true
		sleep 1
	done
}
watch_disks &
WATCH=$!
at_exit 'touch "$T/stop-watch"; kill "$WATCH" 2>/dev/null' 
# A user following the events live, across the restarts below.
"$SMRCTL" --socket "$SOCK" events --follow --json >"$T/follow.jsonl" 2>"$T/follow.err" &
FOLLOW=$!
at_exit 'kill "$FOLLOW" 2>/dev/null' 

# two samples of the quiet disks before the writes
two_samples() { scrape | grep -q '^smrd_diskstats_samples_total [2-9]'; }
wait_until 10 "two samples" two_samples
START_MS=$(now_ms)
emu_bg run_fio smr "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=11
emu_bg run_fio cmr "$CMR" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=12
emu_bg run_fio seq "$SEQ" --rw=write --bs=1M --iodepth=1 --runtime="$RUNTIME" --size=4G
emu_bg run_fio burst "$PRB" --rw=randwrite --bs=4k --iodepth=1 --runtime=$((RUNTIME < 14 ? RUNTIME : 14)) --randseed=14
wait_bg $(($RUNTIME + 90)) "the fio runs"
step "random reads on $SMR after the writes"
run_fio reads "$SMR" --rw=randread --bs=4k --iodepth=1 --runtime=$((RUNTIME / 2)) --randseed=3 || fail "fio reads"
# bands are searched every 10 s: until a search found both of the read
# bands checked below, and the probe found the burst disk cleaning
bands_found() {
	scrape >"$T/metrics.now" && python3 - "$T/metrics.now" "$S" "$SRCDIR/tests/e2e/metrics.py" <<'PY' &&
import sys, importlib.util
spec = importlib.util.spec_from_file_location("metrics", sys.argv[3]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
b = [v for (name, labels, v) in m.parse(sys.argv[1])
     if name == "smrd_disk_latency_band_seconds" and labels.get("device") == sys.argv[2] and labels.get("op") == "read"]
sys.exit(not (any(0.008 / 1.5 <= x <= 0.008 * 1.5 for x in b) and any(0.4 / 1.5 <= x <= 0.4 * 1.5 for x in b)))
PY
		ctl --json events --device "$P" | grep -q idle-cleaning-start
}
t_bands=$(now_ms)
WAIT_LOG=$T/smrd.log wait_until 30 "the read bands on $S and idle cleaning on $P" bands_found
say "  read bands and idle cleaning $(( ($(now_ms) - t_bands) / 1000 )) s after the reads"
touch "$T/stop-watch"
wait_pid "$WATCH" 30 "the every-second disk watcher to stop" || true
ctl --json events >"$T/events.json" || fail "smrctl events"
ctl events >"$T/events.txt"
scrape >"$T/metrics" || fail "scrape"
ctl show "$S" >"$T/show.txt"
step "smrctl events"
sed 's/^/  /' "$T/events.txt" | head -20
journal_check "$T/events.json"
[ "$(wc -l <"$T/events.txt")" -gt 20 ] && say "  ... $(wc -l <"$T/events.txt") events in all"

check_by python3 - "$T" "$S" "$C" "$Q" "$START_MS" "$SRCDIR/tests/e2e/metrics.py" "$P" <<'PY'
import json, sys, importlib.util
T, S, C, Q, start_ms, mp, P = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7]
spec = importlib.util.spec_from_file_location("metrics", mp); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad += not ok

# fio's per-I/O log: completion time (ms since start), latency (ns), direction (1 = write)
writes = []
for line in open(f"{T}/smr_clat.1.log"):
    f = [x.strip() for x in line.split(",")]
    if f[2] == "1":
        writes.append((int(f[0]), int(f[1]) / 1e9))
cliff = min(((t - lat * 1000) for t, lat in writes if lat >= 0.1), default=None)
events = json.load(open(f"{T}/events.json"))["events"]
incidents = json.load(open(f"{T}/events.json"))["incidents"]
def of(dev, kind=None):
    return [e for e in events if e["device"] == dev and (kind is None or e["kind"] == kind)]
storms = of(S, "storm-start")
check(cliff is not None, f"fio saw the cliff on {S}")
check(len(storms) == 1, f"one storm reported on {S} (got {len(storms)})")
if cliff is not None and storms:
    cliff_s = (start_ms + cliff) / 1000
    delay = storms[0]["logged"] - cliff_s
    print(f"  cliff at +{cliff/1000:.2f} s into fio; storm flagged {delay:.2f} s after it "
          f"(its start estimated {storms[0]['time'] - cliff_s:+.2f} s from the cliff)")
    check(0 <= delay <= 10, f"storm flagged within 10 s of the cliff ({delay:.2f} s)")
    print(f"  {storms[0]['message']}")

stalls = of(S, "stall")	# each incident's first: the rest are counted in it
n_stalls = sum(i["slow_ios"] for i in incidents if i["device"] == S)
fio_stalls = sum(1 for t, lat in writes if lat >= 1.0)
lat = sorted(e["latency"] for e in stalls)
print(f"  stall events on {S}: {n_stalls}, {len(stalls)} of them rows (fio saw {fio_stalls} writes over 1 s)"
      + (f", latency {lat[0]:.2f}-{lat[-1]:.2f} s, median {lat[len(lat)//2]:.2f} s" if lat else ""))
check(len(stalls) > 0 and abs(n_stalls - fio_stalls) <= max(3, 0.1 * fio_stalls), "stall events match fio's slow writes")
check(all(e["op"] == "write" for e in stalls), "stall events say op=write")
check(all(1.0 <= e["latency"] <= 5 for e in stalls), "stall latencies are those of writes behind band rewrites")
samples = m.parse(f"{T}/metrics")
sm = m.value(samples, "smrd_disk_stall_events_total", device=S, op="write") or 0
check(sm == n_stalls, f"smrd_disk_stall_events_total{{op=write}} = {sm:.0f} = the events")

bands = sorted(v for (name, labels, v) in samples
               if name == "smrd_disk_latency_band_seconds" and labels.get("device") == S and labels.get("op") == "read")
print("  read bands on %s: %s" % (S, ", ".join(f"{b*1000:.1f} ms" for b in bands)))
check(len(bands) >= 2, "at least two read bands")
check(any(0.008 / 1.5 <= b <= 0.008 * 1.5 for b in bands), "a band near seek + rotation (8 ms)")
check(any(0.4 / 1.5 <= b <= 0.4 * 1.5 for b in bands), "a band near one band rewrite (400 ms)")
print("  other events on %s: %s" % (S, ", ".join(sorted({e['kind'] for e in of(S)} - {'stall', 'storm-start'})) or "none"))

# false positives: every second's sample of the cmr and sequential disks
for dev, what in ((C, "cmr random writes QD4"), (Q, "dm-smr sequential 1 MiB writes")):
    rows = [l.split() for l in open(f"{T}/watch") if l.split()[1] == dev]
    mx = max(float(r[2]) for r in rows) if rows else None
    storm_s = sum(int(r[3]) for r in rows)
    evs = of(dev)
    print(f"  {what} ({dev}): {len(rows)} samples, max GC score {mx}, storm seconds {storm_s}, events {len(evs)}")
    for e in evs:
        print(f"    unexpected: {e['kind']} {e['message']}")
    check(rows and mx <= 0.2 and storm_s == 0 and not [e for e in evs if e["kind"] == "storm-start"],
          f"no storm and GC score <= 0.2 on {what}")
# the probe
probes = {d: m.value(samples, "smrd_disk_probe_reads_total", device=d) or 0 for d in (P, C, Q)}
idle = of(P, "idle-cleaning-start")
burst_end = max(e["time"] for e in of(P, "storm-end")) if of(P, "storm-end") else None
print(f"  probe reads: {P} {probes[P]:.0f}, {C} {probes[C]:.0f}, {Q} {probes[Q]:.0f}")
if idle:
    print(f"  {P}: {idle[0]['message']}" + (f" ({idle[0]['logged'] - burst_end:.1f} s after its storm ended)" if burst_end else ""))
check(probes[P] > 0 and len(idle) == 1, f"the probe found {P} cleaning after its burst, with the host silent")
# idle cleaning counts only after a storm (issue 25): a disk that never
# stormed is never read by smrd, whatever its bursts
check(probes[C] == 0 and probes[Q] == 0, "the cmr and sequential disks, which never stormed, were never probed")
smr_rows = [l.split() for l in open(f"{T}/watch") if l.split()[1] == S]
print(f"  {S}: max GC score {max(float(r[2]) for r in smr_rows):.2f}, class now {smr_rows[-1][4]}")
check(smr_rows[-1][4] == "dm-smr", f"{S} is dm-smr by behaviour")
sys.exit(1 if bad else 0)
PY

need promtool
promtool check metrics <"$T/metrics" >"$T/promtool.out" 2>&1
check "promtool check metrics accepts the page with the detector's series" [ $? -eq 0 ]
sed 's/^/  promtool: /' "$T/promtool.out" | head -5
check "smrctl show explains the verdict by behaviour" grep -q "classified dm-smr by behaviour" "$T/show.txt"
check "smrctl show lists the detector's evidence" grep -q "smrd detector" "$T/show.txt"
check "smrctl show prints the read bands" grep -q "read latency bands:" "$T/show.txt"
step "smrctl show $S (excerpt)"
sed -n '/^class/,/recent events/p' "$T/show.txt" | sed 's/^/  /'

# Restarts: SIGTERM, then kill -9; the history, the score and the verdict survive.
n_before=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$T/events.json")
for how in TERM KILL; do
	step "restart after SIG$how"
	if [ "$how" = TERM ]; then
		stop_smrd
	else
		kill -KILL "$SMRD_PID"
		wait_pid "$SMRD_PID" 10 "smrd to die of SIGKILL" "$T/smrd.log"
		SMRD_PID=""
	fi
	start_smrd "${SMRD_ARGS[@]}"
	# the history, the score and the class, as they are read back at start
	restored() {
		[ "$(ctl --json events | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')" -ge "$n_before" ] &&
			ctl --json show "$S" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not (d["gc_score"] > 0.5 and d["class"] == "dm-smr"))'
	}
	wait_until 10 "the history, score and class back after SIG$how" restored
	n=$(ctl --json events | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')
	check "after SIG$how and a restart, smrctl events still has all $n_before events (got $n)" [ "$n" -ge "$n_before" ]
	read -r cls score <<<"$(ctl --json show "$S" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["class"], d["gc_score"])')"
	check "after SIG$how the score ($score) and the class ($cls) are restored" \
		python3 -c "import sys; sys.exit(not ($score > 0.5 and '$cls' == 'dm-smr'))"
done
# the follower polls once a second: a poll or so after the last restart
sleep 1.5
check "events --follow is still running after both restarts" kill -0 "$FOLLOW"
stop_pid "$FOLLOW" 10 "smrctl events --follow to exit on SIGTERM" "$T/follow.err"
check_by python3 - "$T/follow.jsonl" "$T/events.json" <<'PY'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = json.load(open(sys.argv[2]))["events"]
ids = [e["id"] for e in got]
print(f"  events --follow --json printed {len(got)} events, {len(set(ids))} distinct; the history had {len(want)}")
ok = ids == sorted(set(ids)) and {e["id"] for e in want} <= set(ids)
print(("ok: " if ok else "FAIL: ") + "events --follow streamed every event once, in order, across two restarts")
sys.exit(not ok)
PY
ctl events --device "$S" --since 10min >"$T/ev-dev.txt"
check "events --device filters (an incident's steps beneath it)" bash -c "! grep -v ' $S ' '$T/ev-dev.txt' | grep -v '^    ' | grep -q ."
check "events --since 10min keeps them" [ -s "$T/ev-dev.txt" ]
ctl events --since @$(( $(date +%s) + 60 )) >"$T/ev-none.txt"
check "events --since the future is empty" grep -qx -- '-- No events --' "$T/ev-none.txt"
stop_smrd
finish
