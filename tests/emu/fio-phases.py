#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads fio's per-I/O completion-latency log (--write_lat_log with
--log_avg_msec=0) and checks the shape a scenario expects, printing what it
measured: phase lengths, IOPS and latencies. Cross-checks fio's own count
and mean latency against the /proc/diskstats delta of the device.

  fio-phases.py cliff  LOG --cache-mib 32 --high-water 0.9 --bs 4096
  fio-phases.py steady LOG --min-ms 5 --max-ms 15
  fio-phases.py nocliff LOG
  fio-phases.py bands  LOG --band-ms 400
  common: --json FIO_JSON --diskstats "IOS TICKS_MS SECTORS" (delta, for the op)
          --emu-log LOG: the emulator's --trace lines; then the latency and
          rate bounds judge the model's figures, and the host's stalls (the
          emulator woken late) are measured and printed, not judged
"""
import argparse
import json
import statistics
import sys

FAILS = 0
FAST_IOPS_LIVE_MIN = 500   # half the model's floor: fio on a loaded host
HOST_STALL_MS = 10     # a wake-up this late is the host not running the emulator


def check(ok, what):
    global FAILS
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILS += 1


def load(path):
    """[(completion_s, latency_ms)] in completion order."""
    ios = []
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 2:
                continue
            ios.append((int(parts[0]) / 1000.0, int(parts[1]) / 1e6))
    ios.sort()
    return ios


def load_trace(path, op):
    """The emulator's requests of one op: [(arrival s, modelled ms, late ms)] in arrival order."""
    reqs = []
    with open(path) as f:
        for line in f:
            p = line.split()
            # smr-emu: W OFF+LEN at ARRIVAL_US model LAT_US us late LATE_US us
            if len(p) == 11 and p[0] == "smr-emu:" and p[1] == op[0].upper() and p[3] == "at":
                reqs.append((int(p[4]) / 1e6, int(p[6]) / 1e3, int(p[9]) / 1e3))
    reqs.sort()
    return reqs


def host_stalls(reqs, ios):
    """Prints what the host added on top of the model: wake-ups late by
    HOST_STALL_MS or more, and how many of fio's I/Os took over 100 ms."""
    late = [l for _, _, l in reqs if l >= HOST_STALL_MS]
    slow_fio = sum(1 for _, l in ios if l > 100)
    slow_model = sum(1 for _, m, _ in reqs if m > 100)
    print(f"host: {len(late)} of {len(reqs)} requests woken {HOST_STALL_MS} ms or more late"
          f"{f', the latest by {max(late):.1f} ms, {sum(late):.0f} ms in all' if late else ''}; "
          f"over 100 ms: {slow_fio} by fio, {slow_model} by the model (the host's share is not judged)")


def model_rate(reqs, iodepth):
    """Requests a second the model serves with iodepth in flight (Little's law)."""
    return iodepth / (statistics.mean(m for _, m, _ in reqs) / 1000.0) if reqs else 0


def model_seconds(reqs):
    """[(second since the first arrival, [modelled ms])] for the whole seconds."""
    if not reqs:
        return []
    t0 = reqs[0][0]
    secs = {}
    for t, m, _ in reqs:
        secs.setdefault(int(t - t0), []).append(m)
    out = sorted(secs.items())
    return out[1:-1] if len(out) > 2 else out


def per_second(ios):
    secs = {}
    for t, lat in ios:
        secs.setdefault(int(t), []).append(lat)
    last = int(ios[-1][0]) if ios else 0
    return [(s, secs.get(s, [])) for s in range(last + 1)]


def table(ios):
    print("  second   IOPS   mean ms    max ms")
    for s, lats in per_second(ios):
        if lats:
            print(f"  {s:6d} {len(lats):6d} {statistics.mean(lats):9.2f} {max(lats):9.1f}")
        else:
            print(f"  {s:6d}      0         -         -")


def pct(lats, q):
    s = sorted(lats)
    return s[min(len(s) - 1, int(q * len(s)))]


def cliff(ios, a):
    # The cliff: the first I/O slower than 100 ms that the next ones follow
    # (the median of the next five over 100 ms too): a lone one is the host
    # stalling the emulator (CI: a 101.7 ms write at 1466 IOPS, 2.5 s before
    # the cache filled). Everything before is the fast phase; the slow
    # phase starts at the cliff and runs to the end.
    def sustained(k):
        nxt = [lat for _, lat in ios[k + 1:k + 6]]
        return not nxt or statistics.median(nxt) > 100
    i = next((k for k, (_, lat) in enumerate(ios) if lat > 100 and sustained(k)), None)
    check(i is not None, "a cliff: some write took over 100 ms")
    if i is None:
        return
    t_cliff = ios[i][0] - ios[i][1] / 1000.0
    fast = ios[:i]
    slow = ios[i:]
    t_end = ios[-1][0]
    fast_iops = len(fast) / t_cliff if t_cliff > 0 else 0
    slow_iops = len(slow) / (t_end - t_cliff) if t_end > t_cliff else 0
    fast_mean = statistics.mean(l for _, l in fast) if fast else 0
    slow_lats = [l for _, l in slow]
    predicted_ios = a.cache_mib * 1048576 * a.high_water / a.bs
    predicted_s = predicted_ios / fast_iops if fast_iops else 0
    print(f"fast phase: {t_cliff:.2f} s, {len(fast)} writes, {fast_iops:.0f} IOPS, mean {fast_mean:.3f} ms")
    print(f"cliff at {t_cliff:.2f} s; the cache predicts {predicted_s:.2f} s "
          f"({predicted_ios:.0f} writes of {a.bs} B to high water at {fast_iops:.0f} IOPS)")
    print(f"slow phase: {t_end - t_cliff:.2f} s, {len(slow)} writes, {slow_iops:.1f} IOPS, "
          f"median {pct(slow_lats, 0.5):.0f} ms, mean {statistics.mean(slow_lats):.0f} ms, max {max(slow_lats):.0f} ms")
    if a.reqs is None:
        check(fast_iops > 1000, f"fast phase over 1000 IOPS ({fast_iops:.0f})")
        # the cache takes one write at a time: at QD4 each waits behind three
        check(fast_mean / a.iodepth < 1,
              f"fast phase sub-millisecond per write in flight ({fast_mean:.3f} ms at QD{a.iodepth})")
    else:
        # The model's fast phase: its writes before its own cliff (the same
        # rule on modelled latencies). The cache takes one write at a time:
        # at QD4 each waits behind three, so the rate is QD / mean latency.
        j = next((k for k, (_, m, _) in enumerate(a.reqs) if m > 100 and
                  (not a.reqs[k + 1:k + 6] or statistics.median(x for _, x, _ in a.reqs[k + 1:k + 6]) > 100)), None)
        mfast = a.reqs[:j] if j is not None else []
        check(j is not None, f"the model has a cliff too (after {len(mfast)} writes)")
        if mfast:
            mmean = statistics.mean(m for _, m, _ in mfast)
            print(f"model: fast phase {len(mfast)} writes, mean {mmean:.3f} ms, {model_rate(mfast, a.iodepth):.0f} IOPS "
                  f"at QD{a.iodepth}; fio measured {fast_iops:.0f} IOPS, mean {fast_mean:.3f} ms")
            check(mmean / a.iodepth < 1 and model_rate(mfast, a.iodepth) > 1000,
                  f"the model's fast phase: sub-millisecond per write in flight, over 1000 IOPS "
                  f"({mmean / a.iodepth:.3f} ms, {model_rate(mfast, a.iodepth):.0f} IOPS)")
        # Live, through loop, FUSE and fio: a bound with room for a busy host
        check(fast_iops > FAST_IOPS_LIVE_MIN, f"fio's fast phase over {FAST_IOPS_LIVE_MIN} IOPS ({fast_iops:.0f})")
    check(slow_iops < 50, f"after the cliff under 50 IOPS ({slow_iops:.1f})")
    check(pct(slow_lats, 0.5) > 100, f"after the cliff write latency over 100 ms (median {pct(slow_lats, 0.5):.0f} ms)")
    check(0.75 * predicted_s <= t_cliff <= 1.25 * predicted_s,
          f"cliff within 25% of the predicted time ({t_cliff:.2f} s vs {predicted_s:.2f} s)")
    check(len(fast) <= predicted_ios * 1.02 + a.iodepth,
          f"no more fast writes than the cache holds ({len(fast)} <= {predicted_ios:.0f})")


def steady(ios, a):
    worst = max(l for _, l in ios)
    secs = [(s, lats) for s, lats in per_second(ios) if lats]
    # The first and last seconds are partial; judge the whole ones.
    inner = secs[1:-1] if len(secs) > 2 else secs
    means = [statistics.mean(l) for _, l in inner]
    iops = [len(l) for _, l in inner]
    print(f"{len(ios)} I/Os over {ios[-1][0]:.1f} s; per second: IOPS {min(iops)}..{max(iops)}, "
          f"mean latency {min(means):.2f}..{max(means):.2f} ms; slowest I/O {worst:.1f} ms")
    if a.reqs is None:
        check(all(a.min_ms <= m <= a.max_ms for m in means),
              f"every second's mean latency within {a.min_ms}-{a.max_ms} ms")
        check(worst < 100, f"no I/O over 100 ms ({worst:.1f})")
        check(min(iops) >= 0.5 * statistics.median(iops), "no second under half the median IOPS (no cliff)")
        return
    judge_model_steady(a, "I/O", a.min_ms, a.max_ms)


def judge_model_steady(a, what, min_ms=None, max_ms=None):
    """Steady by the model: each whole second's mean modelled latency in
    bounds, no request it served over 100 ms, and its rate (QD / mean
    latency) never under half its median: no cliff."""
    secs = model_seconds(a.reqs)
    if not secs:
        check(False, "the emulator traced no request")
        return
    means = [statistics.mean(ms) for _, ms in secs]
    rates = [model_rate([(0, m, 0) for m in ms], a.iodepth) for _, ms in secs]
    worst = max(m for _, m, _ in a.reqs)
    print(f"model: {len(a.reqs)} requests; per second: mean latency {min(means):.2f}..{max(means):.2f} ms, "
          f"rate {min(rates):.0f}..{max(rates):.0f}/s; slowest {worst:.1f} ms")
    if min_ms is not None:
        check(all(min_ms <= m <= max_ms for m in means),
              f"every second's mean modelled latency within {min_ms}-{max_ms} ms")
    check(worst < 100, f"no {what} over 100 ms by the model ({worst:.1f})")
    check(min(rates) >= 0.5 * statistics.median(rates), "no second under half the model's median rate (no cliff)")


def nocliff(ios, a):
    worst = max(l for _, l in ios)
    secs = [(s, lats) for s, lats in per_second(ios) if lats]
    inner = secs[1:-1] if len(secs) > 2 else secs
    iops = [len(l) for _, l in inner]
    mibs = [n * a.bs / 1048576 for n in iops]
    print(f"{len(ios)} writes of {a.bs} B over {ios[-1][0]:.1f} s: {min(mibs):.0f}..{max(mibs):.0f} MiB/s "
          f"per second, slowest write {worst:.1f} ms")
    if a.reqs is None:
        check(worst < 100, f"no write over 100 ms ({worst:.1f})")
        check(min(iops) >= 0.5 * statistics.median(iops), "no second under half the median rate (no cliff)")
        return
    judge_model_steady(a, "write")


def bands(ios, a):
    lats = [l for _, l in ios]
    base = [l for l in lats if l < a.band_ms / 4]
    band = [l for l in lats if a.band_ms / 2 <= l <= a.band_ms * 1.5]
    between = len(lats) - len(base) - len(band)
    print(f"{len(lats)} reads: {len(base)} in the baseline band (median {pct(base, 0.5) if base else 0:.1f} ms), "
          f"{len(band)} behind a band rewrite (median {pct(band, 0.5) if band else 0:.0f} ms, "
          f"expected ~{a.band_ms:.0f} ms), {between} in between")
    print("  log2 histogram (ms):")
    hist = {}
    for l in lats:
        b = 0
        while (1 << b) < l:
            b += 1
        hist[b] = hist.get(b, 0) + 1
    for b in sorted(hist):
        print(f"  <= {1 << b:6d} ms {hist[b]:6d} {'#' * min(60, hist[b])}")
    check(len(base) >= 10 and 4 <= pct(base, 0.5) <= 20, "a baseline band near 8 ms (seek + rotation)")
    check(len(band) >= 3, "a second band behind band rewrites")
    if band:
        m = pct(band, 0.5)
        check(0.75 * a.band_ms <= m <= 1.25 * a.band_ms,
              f"its centre within 25% of band_size / rate ({m:.0f} vs {a.band_ms:.0f} ms)")
    check(between <= 0.2 * len(lats), "the bands are separated (few reads in between)")


def crosscheck(ios, a):
    fio_bytes = None
    if a.json:
        with open(a.json) as f:
            job = json.load(f)["jobs"][0][a.op]
        n, mean, fio_bytes = job["total_ios"], job["clat_ns"]["mean"] / 1e6, job["io_bytes"]
        print(f"fio: {n} {a.op}s, {fio_bytes} bytes, mean completion latency {mean:.3f} ms")
        check(abs(n - len(ios)) <= a.iodepth, f"the latency log holds every I/O ({len(ios)} of {n})")
    if a.diskstats:
        ds_n, ds_ms, ds_sectors = (int(x) for x in a.diskstats.split())
        ds_mean = ds_ms / ds_n if ds_n else 0
        log_mean = statistics.mean(l for _, l in ios)
        print(f"/proc/diskstats: {ds_n} {a.op}s completed, {ds_sectors * 512} bytes, mean {ds_mean:.3f} ms "
              f"(fio log: {len(ios)}, {log_mean:.3f} ms)")
        # diskstats also counts what fio had in flight when it stopped.
        if fio_bytes is not None:
            check(abs(ds_sectors * 512 - fio_bytes) <= a.iodepth * a.bs,
                  "diskstats moved the bytes fio moved")
        if ds_n > len(ios) + a.iodepth:
            # The block layer split fio's requests (max_sectors_kb): counts and
            # per-request latency are not comparable, bytes are.
            print(f"  the block layer split fio's {a.bs}-byte requests into {ds_n / len(ios):.1f} on average")
            return
        check(abs(ds_n - len(ios)) <= a.iodepth, "diskstats completed what fio logged")
        # Ticks are whole milliseconds per I/O: compare means only where they resolve.
        if log_mean >= 2:
            check(abs(ds_mean - log_mean) <= 0.1 * log_mean + 0.5, "diskstats' mean latency agrees with fio's within 10%")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", choices=["cliff", "steady", "nocliff", "bands"])
    ap.add_argument("log")
    ap.add_argument("--op", default="write", choices=["read", "write"])
    ap.add_argument("--bs", type=int, default=4096)
    ap.add_argument("--iodepth", type=int, default=1)
    ap.add_argument("--cache-mib", type=float, default=32)
    ap.add_argument("--high-water", type=float, default=0.9)
    ap.add_argument("--min-ms", type=float, default=5)
    ap.add_argument("--max-ms", type=float, default=15)
    ap.add_argument("--band-ms", type=float, default=400)
    ap.add_argument("--json")
    ap.add_argument("--diskstats")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--emu-log")
    a = ap.parse_args()
    ios = load(a.log)
    if not ios:
        check(False, f"{a.log} holds no I/O")
        return 1
    a.reqs = load_trace(a.emu_log, a.op) if a.emu_log else None
    if a.reqs is not None:
        host_stalls(a.reqs, ios)
    if a.table:
        table(ios)
    {"cliff": cliff, "steady": steady, "nocliff": nocliff, "bands": bands}[a.shape](ios, a)
    crosscheck(ios, a)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
