/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel side of the tracer and smrd share: the latency histogram's
 * layout and bucketing, the fixed Prometheus bounds, the ops, and the
 * slow-I/O record. Included by the BPF program (types from vmlinux.h) and by
 * user space (types from <linux/types.h>), so it uses only __u64 and
 * friends and inline arithmetic the BPF verifier accepts.
 */
#pragma once

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum trace_op { TRACE_READ, TRACE_WRITE, TRACE_DISCARD, TRACE_FLUSH, TRACE_OPS };

/*
 * Log-linear buckets over microseconds: exact below 4 us, then 4 sub-buckets
 * per power of two up to 2^28 us (268 s): at most 25% wide, so percentiles
 * are within ~12% and two latency bands a factor of 1.5 apart stay apart.
 */
#define HIST_SUB_BITS 2
#define HIST_SUB (1 << HIST_SUB_BITS)
#define HIST_MAX_POW 28
#define HIST_BUCKETS (HIST_SUB + (HIST_MAX_POW - HIST_SUB_BITS + 1) * HIST_SUB)	/* 112 */

/* The fixed bounds of smrd_disk_io_latency_seconds, in nanoseconds: counted
 * exactly (not derived from the log-linear buckets, whose edges are binary). */
#define HIST_LE 20
#define HIST_LE_NS_INIT { \
	100000ULL, 250000ULL, 500000ULL, 1000000ULL, 2500000ULL, 5000000ULL, \
	10000000ULL, 25000000ULL, 50000000ULL, 100000000ULL, 250000000ULL, 500000000ULL, \
	1000000000ULL, 2500000000ULL, 5000000000ULL, 10000000000ULL, 20000000000ULL, \
	30000000000ULL, 60000000000ULL, 120000000000ULL }

/* Which fixed bound a latency falls under (HIST_LE for +Inf). Compares
 * from the fastest up: the common I/O is decided by the first one, with no
 * array for the verifier to bound. Kept equal to HIST_LE_NS_INIT by
 * tests/unit/test-hist.c. */
static inline unsigned int hist_le_index(__u64 ns)
{
	if (ns <= 100000ULL) return 0;
	if (ns <= 250000ULL) return 1;
	if (ns <= 500000ULL) return 2;
	if (ns <= 1000000ULL) return 3;
	if (ns <= 2500000ULL) return 4;
	if (ns <= 5000000ULL) return 5;
	if (ns <= 10000000ULL) return 6;
	if (ns <= 25000000ULL) return 7;
	if (ns <= 50000000ULL) return 8;
	if (ns <= 100000000ULL) return 9;
	if (ns <= 250000000ULL) return 10;
	if (ns <= 500000000ULL) return 11;
	if (ns <= 1000000000ULL) return 12;
	if (ns <= 2500000000ULL) return 13;
	if (ns <= 5000000000ULL) return 14;
	if (ns <= 10000000000ULL) return 15;
	if (ns <= 20000000000ULL) return 16;
	if (ns <= 30000000000ULL) return 17;
	if (ns <= 60000000000ULL) return 18;
	if (ns <= 120000000000ULL) return 19;
	return HIST_LE;
}

/*
 * Watched disks, as the kernel side looks them up on every I/O: an
 * open-addressed table of (dev_t << 32 | slot + 1), 0 for a free entry and
 * WATCH_TOMB for a deleted one (its low half 0: it never matches, and a
 * lookup goes on past it). At most 1024 disks in 4096 entries, so an entry
 * is found within WATCH_PROBES of its home or placed elsewhere by nobody.
 */
#define WATCH_BITS 12
#define WATCH_TAB (1 << WATCH_BITS)
#define WATCH_PROBES 8
#define WATCH_TOMB (0xffffffffULL << 32)

static inline __u32 watch_home(__u32 dev)
{
	return (__u32)(dev * 2654435761U) >> (32 - WATCH_BITS);
}

struct trace_hist {
	__u64 bucket[HIST_BUCKETS];
	__u64 le[HIST_LE + 1];		/* per bound, not cumulative; the last is +Inf */
	__u64 count;			/* the kernel side leaves it 0: the sum of le[] */
	__u64 sum_ns;
};

static inline unsigned int trace_log2(__u64 v)
{
	unsigned int r = 0, s;
	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFFULL) << 4; v >>= s; r |= s;
	s = (v > 0xFFULL) << 3; v >>= s; r |= s;
	s = (v > 0xFULL) << 2; v >>= s; r |= s;
	s = (v > 0x3ULL) << 1; v >>= s; r |= s;
	r |= (unsigned int)(v >> 1);
	return r;
}

/* ns / 1000 by a multiply and a shift, exact below 2^32 ns (4.29 s): BPF
 * has no multiply-high, so the compiler emits a 64-bit div for "/ 1000",
 * which the JIT keeps, per I/O. */
static inline __u64 ns_to_us(__u64 ns)
{
	return ns < (1ULL << 32) ? (ns * 274877907ULL) >> 38 : ns / 1000;
}

static inline unsigned int hist_bucket(__u64 us)
{
	if (us < HIST_SUB)
		return (unsigned int)us;
	unsigned int e = trace_log2(us);
	if (e > HIST_MAX_POW)
		return HIST_BUCKETS - 1;
	unsigned int sub = (unsigned int)(us >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return HIST_SUB + (e - HIST_SUB_BITS) * HIST_SUB + sub;
}

/* Sent through the ring buffer for every I/O slower than the threshold. */
struct trace_slow {
	__u64 done_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 lat_ns;
	__u64 sector;
	__u32 dev;		/* the kernel's dev_t: major << 20 | minor */
	__u32 bytes;
	__u32 op;
	__u32 error;
	/* the longest the disk completed nothing (any op) while this one was
	 * in flight: the time since the last completion, or the last stand-still
	 * of slow_ns or more if it began later and lasted longer. A write that
	 * waited while the disk went on completing others waited in a queue,
	 * not for the disk (docs/detection.md) */
	__u64 still_ns;
};

/* What the kernel half keeps per disk for still_ns. */
struct trace_still {
	__u64 last_done;	/* the last completion */
	__u64 gap_end, gap_ns;	/* the last stand-still of slow_ns or more: where it ended, how long */
};

/* still_ns of an I/O of lat_ns completing at now, from st as it was
 * before this completion. */
static inline __u64 trace_still_of(const struct trace_still *st, __u64 now, __u64 lat)
{
	__u64 issue = now - lat, still = lat;
	/* a completion since its issue, at this instant or (another CPU's)
	 * after it: the disk did not stand still up to now */
	if (st->last_done > issue)
		still = now > st->last_done ? now - st->last_done : 0;
	if (st->gap_end > issue && st->gap_end <= now && st->last_done > issue) {
		__u64 g = st->gap_ns < st->gap_end - issue ? st->gap_ns : st->gap_end - issue;
		if (g > still)
			still = g;
	}
	return still;
}

/* Notes a completion at now in st; slow_ns: the stand-stills worth keeping. */
static inline void trace_still_done(struct trace_still *st, __u64 now, __u64 slow_ns)
{
	if (st->last_done && now <= st->last_done)
		return;		/* never back in time: a gap would read longer than it was */
	if (st->last_done && now - st->last_done >= slow_ns) {
		st->gap_end = now;
		st->gap_ns = now - st->last_done;
	}
	st->last_done = now;
}

/* Counters the tracer keeps about itself (per CPU in the kernel). */
enum trace_stat {
	TRACE_STAT_UNUSED0,		/* were issues and completions: a completion is */
	TRACE_STAT_UNUSED1,		/* counted by its histogram, an issue by nobody */
	TRACE_STAT_INFLIGHT_FULL,	/* issue not tracked: its in-flight slots were all taken */
	TRACE_STAT_UNMATCHED,		/* completion with no issue (began before us, or lost) */
	TRACE_STAT_SLOW_DROPPED,	/* slow-I/O record lost: ring buffer full */
	TRACE_STAT_SLOW_SENT,
	TRACE_STAT_EXPIRED,		/* issue never completed: its tag issued again, or its slot taken after 15 min */
	TRACE_STAT_REQUEUED,		/* requeued before completing; timed again from the next issue */
	TRACE_STATS
};

#define TRACE_MAX_INFLIGHT 16384
#define TRACE_MAX_DISKS 1024		/* slots of the histogram array */
