#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Per-I/O latency, for each backend, on an emulated disk of known fixed
# latency (ssd model, 2 ms): fio at a fixed rate; smrd's per-op I/O counts
# must equal diskstats' completions within 1%, its mean latency fio's
# completion latency within 10%, every I/O over slow-io must arrive as a
# slow record with the right device and op. Then two smrd instances (bpf and
# perf) and bpftrace trace the same disk at once and all see every I/O.
# The mean is judged against fio's total latency (submission to completion):
# the request is issued inside io_submit, and on a loaded machine fio reaps
# late, so its completion latency alone misses part of what smrd times.
. "$(dirname "$0")/lib.sh"
use_emu
need bpftrace
[ -e /sys/kernel/btf/vmlinux ] || unavailable bpf "no /sys/kernel/btf/vmlinux: the bpf backends need the kernel's BTF"

LAT_US=2000
RATE=150
# 5 s at 150 IOPS: ~750 I/Os a backend; the soak runs 8 s
[ "${SMRD_SOAK:-0}" = 1 ] && SECS=${TRACE_SECS:-8} || SECS=${TRACE_SECS:-5}

ds() { awk -v d="$1" '$3 == d { print $4, $8 }' /proc/diskstats; }
mval() { metrics_py get "$1" "$2" "${@:3}"; }
# intervals_pass N [PORT...]: waits until each smrd (by port) took N more samples
samples_at() { curl -sf --max-time 5 "http://127.0.0.1:$1/metrics" | sed -n 's/^smrd_diskstats_samples_total //p'; }
intervals_pass() {
	local n=$1 p want=()
	shift
	[ $# -gt 0 ] || set -- "$PORT"
	for p in "$@"; do want+=("$p:$(( $(samples_at "$p") + n ))"); done
	reached() { local w; for w in "${want[@]}"; do [ "$(samples_at "${w%:*}")" -ge "${w#*:}" ] || return 1; done; }
	wait_until $((n * 3 + 5)) "$n more samples (ports $*)" reached
}

emu_up DEV fixed ssd --ssd-us $LAT_US || exit 1
NAME=${DEV#/dev/}
DEVT=$(( $(cat /sys/block/$NAME/dev | cut -d: -f1) << 20 | $(cat /sys/block/$NAME/dev | cut -d: -f2) ))

# bpf-unstamped: the bpf backend told not to read the kernel's stamps, so
# it times every request from block_rq_issue, as on a queue that keeps no
# I/O statistics (none here does: writeback throttling is on for all)
for B in ${TRACE_BACKENDS:-bpf bpf-unstamped perf}; do
	step "backend $B"
	BE=${B%-unstamped}
	if [ "$B" = bpf-unstamped ]; then export SMRD_TRACE_KERNEL_STAMPS=0; else unset SMRD_TRACE_KERNEL_STAMPS; fi
	start_smrd --interval 1 --include "^$NAME\$" --exclude '^$' --trace-backend "$BE" --slow-io 0.0015
	got=$(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace_backend"])')
	check "status says the $BE backend is active (got $got)" [ "$got" = "$BE" ]
	intervals_pass 1
	# smrd's own reads of the disk's signatures (no udevd here) are traced
	# I/Os too: count from here. The diskstats counts compared are smrd's,
	# from the same scrapes: one sample's diskstats and traced counts are
	# taken together, where /proc/diskstats read beside a scrape can count
	# an I/O that the scrape's sample (up to an interval old) did not
	scrape >"$T/m0-$B"
	timeout -k 5 $((SECS + 60)) fio --clocksource=clock_gettime --name=t --filename="$DEV" --direct=1 --ioengine=libaio --rw=randrw \
		--rwmixread=50 --bs=4k --iodepth=1 --rate_iops=$RATE --time_based --runtime="$SECS" --lat_percentiles=1 --output-format=json \
		--output="$T/fio-$B.json" >/dev/null 2>&1 || fail "fio ($B) exited $?"
	intervals_pass 2	# the last I/Os reach the histograms
	scrape >"$T/m-$B"
	check_by python3 - "$T/fio-$B.json" "$T/m-$B" "$NAME" "$SRCDIR/tests/e2e/metrics.py" "$T/m0-$B" <<'PY'
import json, sys, importlib.util
fio, mpath, dev, mp, m0path = sys.argv[1:6]
spec = importlib.util.spec_from_file_location("metrics", mp); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
samples = m.parse(mpath)
before = {(n, tuple(sorted(l.items()))): v for n, l, v in m.parse(m0path)}
def delta(name, **labels):
    """name's increase since the baseline scrape"""
    now = m.value(samples, name, **labels) or 0
    return now - before.get((name, tuple(sorted(labels.items()))), 0)
dr = int(delta("smrd_disk_reads_completed_total", device=dev))
dw = int(delta("smrd_disk_writes_completed_total", device=dev))
job = json.load(open(fio))["jobs"][0]
bad = 0
for op, ds_n in (("read", dr), ("write", dw)):
    cnt = delta("smrd_disk_io_latency_seconds_count", device=dev, op=op)
    s = delta("smrd_disk_io_latency_seconds_sum", device=dev, op=op)
    inf = delta("smrd_disk_io_latency_seconds_bucket", device=dev, op=op, le="+Inf")
    fio_n, fio_mean = job[op]["total_ios"], job[op]["lat_ns"]["mean"] / 1e9
    mean = s / cnt if cnt else 0
    print(f"  {op}: smrd {cnt:.0f} I/Os, mean {mean*1000:.3f} ms; diskstats {ds_n}; fio {fio_n}, mean lat {fio_mean*1000:.3f} ms"
          f" (clat {job[op]['clat_ns']['mean'] / 1e6:.3f} ms); smrd {(mean / fio_mean - 1) * 100 if fio_mean else 0:+.1f}%")
    for ok, what in ((ds_n > 0 and abs(cnt - ds_n) <= 0.01 * ds_n, f"{op} count equals diskstats within 1%"),
                     (fio_mean > 0 and abs(mean - fio_mean) <= 0.1 * fio_mean, f"{op} mean latency within 10% of fio's total latency"),
                     (inf == cnt, f"{op} +Inf bucket equals the count")):
        print(("ok: " if ok else "FAIL: ") + what)
        bad += not ok
slow = delta("smrd_trace_slow_ios_total")
total = sum(delta("smrd_disk_io_latency_seconds_count", device=dev, op=o) for o in ("read", "write"))
print(f"  slow records {slow:.0f} for {total:.0f} I/Os, all slower than the 1.5 ms threshold")
ok = abs(slow - total) <= 0.01 * total
print(("ok: " if ok else "FAIL: ") + "every I/O over slow-io was recorded one by one")
# Loop devices (the emulated disk is one) end a request now and then without
# block_rq_complete (bpftrace misses the same ones): the bpf tracer counts each as expired when
# its tag is issued again. Every other loss must be 0, and every I/O
# diskstats counted is either traced or such a completion.
lost = {l.get("reason"): v - before.get((n, tuple(sorted(l.items()))), 0) for n, l, v in samples
        if n == "smrd_trace_lost_events_total"}
expired = lost.pop("expired", 0)
other = sum(lost.values())
print(f"  lost events {other:.0f}; completions never reported, counted as expired: {expired:.0f}"
      f" (diskstats {dr + dw} - traced {total:.0f} = {dr + dw - total:.0f})")
ok_lost = other == 0 and abs(total + expired - (dr + dw)) <= 1
print(("ok: " if ok_lost else "FAIL: ") + "nothing lost, and every I/O traced but the completions the kernel never reported")
sys.exit(bad + (not ok) + (not ok_lost))
PY
	ctl --json show "$NAME" >"$T/show-$B.json"
	check_by python3 - "$T/show-$B.json" "$NAME" "$T/fio-$B.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["latency"]
rec = r["recent_slow"]
ok = len(rec) == 10 and all(x["op"] in ("read", "write") and x["latency"] >= 0.0015 for x in rec)
print(f"  recent slow I/Os: {len(rec)}, latencies {min(x['latency'] for x in rec)*1000:.2f}..{max(x['latency'] for x in rec)*1000:.2f} ms" if rec else "  no recent slow I/Os")
print(("ok: " if ok else "FAIL: ") + "show lists the disk's slow I/Os with op and latency")
# The same I/Os as fio's: its total-latency percentiles (submission to
# completion), whatever a loaded machine added to the emulated 2 ms. Not
# clat: the request is issued inside io_submit, so on a busy machine part of
# what smrd times is fio's submission latency. The histogram's buckets are a
# few percent wide. p90, not p99: of ~1100 writes the p99 is the 11th
# slowest, which this VM's stolen CPU decides (11.7 against 19.3 ms in one
# CI run, with writes up to 47 ms on a disk that takes 2).
pct = json.load(open(sys.argv[3]))["jobs"][0]["write"]["lat_ns"]["percentile"]
f50, f90 = pct["50.000000"] / 1e9, pct["90.000000"] / 1e9
w = r["write"]["windows"]["1m"]
ok2 = (w["p50"] is not None and 0.0015 <= w["p50"] and abs(w["p50"] - f50) <= 0.2 * f50 + 0.0002
       and 0.7 * f90 <= w["p90"] <= 1.3 * f90 + 0.0005)
print(f"  write p50 {w['p50']*1000:.2f} ms, p90 {w['p90']*1000:.2f} ms over the last minute; fio p50 {f50*1000:.2f} ms, p90 {f90*1000:.2f} ms")
print(("ok: " if ok2 else "FAIL: ") + "percentiles match fio's for the same I/Os, at or above the emulated 2 ms")
sys.exit((not ok) + (not ok2))
PY
	ctl show "$NAME" | sed -n '/^latency/,/^counters/p' | head -12
	# The kernel stamps the emulated disk's requests: block_rq_issue's
	# program is detached once its first completion says so, and the
	# counts above are exact without it. Where smrd must time requests
	# itself the program stays.
	case $B in
	bpf) check "block_rq_issue is no longer traced: the kernel stamps the disk's requests" \
		grep -q 'block_rq_issue not traced: the kernel stamps' "$T/smrd.log"
		check "and was not attached again while fio ran" \
			bash -c "! grep -q 'timing requests from block_rq_issue again' '$T/smrd.log'" ;;
	bpf-unstamped) check "block_rq_issue stays traced: smrd stamps the disk's requests itself" \
		bash -c "! grep -q 'block_rq_issue not traced' '$T/smrd.log'" ;;
	esac
	stop_smrd
done
unset SMRD_TRACE_KERNEL_STAMPS

step "two smrd instances (bpf, perf) and bpftrace on the same disk at once"
start_smrd --interval 1 --include "^$NAME\$" --exclude '^$' --trace-backend bpf
P1=$SMRD_PID PORT1=$PORT
"$SMRD" --config /dev/null --listen 127.0.0.1:0 --socket "$T/smrd2.sock" --state-dir "$T/state2" --interval 1 \
	--include "^$NAME\$" --exclude '^$' --trace-backend perf >"$T/smrd2.log" 2>&1 &
P2=$!
at_exit 'kill "$P2" 2>/dev/null'
WAIT_LOG=$T/smrd2.log wait_until 20 "the second smrd (perf) to listen" grep -q '(port [0-9]*)' "$T/smrd2.log" || finish
PORT2=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/smrd2.log" | head -1)
# both tracers have their filters set (one interval)
intervals_pass 1 "$PORT1" "$PORT2"
read -r r0 w0 <<<"$(ds "$NAME")"
# bpftrace starts fio itself (-c): its probes are attached before fio's
# first I/O, and it exits when fio does. No signal can reach it before its
# handler is in place (the old SIGINT-then-wait hung when it did).
FIO=$(readlink -f "$(command -v fio)")
tracefs_up || finish
DOING="bpftrace running fio on $DEV"
# writes only: discovery's signature reads after fio closes the device (the
# kernel's change uevent) are completions too, and not the writes compared
timeout -k 5 90 bpftrace -e "tracepoint:block:block_rq_complete /args->dev == $DEVT && strncmp(args->rwbs, \"W\", 1) == 0/ { @n = count(); }" \
	-c "$FIO --name=t2 --filename=$DEV --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=4 --rate_iops=300 --time_based --runtime=4 --output=/dev/null" \
	>"$T/bt.out" 2>&1
rc=$?
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && expired "bpftrace and its fio to finish a 4 s run" 90 "$T/bt.out"
check "bpftrace ran fio and exited 0 (exit $rc)" [ "$rc" -eq 0 ]
read -r r1 w1 <<<"$(ds "$NAME")"
intervals_pass 2 "$PORT1" "$PORT2"
n_bt=$(sed -n 's/^@n: \([0-9]*\)/\1/p' "$T/bt.out")
curl -sf --max-time 5 "http://127.0.0.1:$PORT1/metrics" >"$T/m1"
curl -sf --max-time 5 "http://127.0.0.1:$PORT2/metrics" >"$T/m2"
stop_pid "$P2" 20 "the second smrd (perf) to exit after SIGTERM" "$T/smrd2.log" || fail "second smrd exited badly"
c1=$(metrics_py get "$T/m1" smrd_disk_io_latency_seconds_count device="$NAME" op=write)
c2=$(metrics_py get "$T/m2" smrd_disk_io_latency_seconds_count device="$NAME" op=write)
want=$((w1 - w0))
say "  diskstats writes $want; smrd(bpf) ${c1:-none}, smrd(perf) ${c2:-none}, bpftrace write completions ${n_bt:-none}"
# Every tracer must see the same completions as the others; against
# diskstats, which counts at a different point of the completion path, one
# I/O apart has been seen (all three tracers then agree on the lower count).
same() { [ "$(printf '%.0f' "${1:-0}")" = "${n_bt:-x}" ]; }
check "smrd (bpf) saw exactly what bpftrace saw" same "$c1"
check "smrd (perf) saw exactly what bpftrace saw" same "$c2"
check "and that is every write diskstats counted (within one)" python3 -c "import sys; sys.exit(not ($want > 0 and abs(int('${n_bt:-0}') - $want) <= 1))"
stop_smrd
finish
