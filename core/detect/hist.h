/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histograms (pure): the log-linear buckets the kernel side fills
 * (common/trace-abi.h), their arithmetic, percentiles, and the sliding
 * windows (last second, minute, ten minutes) the detector and smrctl read.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "trace-abi.h"
#include "util.h"

typedef struct trace_hist Hist;

extern const uint64_t hist_le_ns[HIST_LE];

/* Records one latency, exactly as the BPF program does. */
void hist_add(Hist *h, uint64_t lat_ns);
void hist_merge(Hist *into, const Hist *h);
/* into = a - b, for cumulative counters read twice; false if any went backwards. */
bool hist_delta(Hist *into, const Hist *a, const Hist *b);
/* Bucket edges in seconds; the last bucket's upper edge is +Inf. */
void hist_bucket_bounds(unsigned b, double *lo, double *hi);
/* The q-quantile (0..1) in seconds, interpolated inside its bucket; NaN when empty. */
double hist_quantile(const Hist *h, double q);
/* The upper edge of the highest non-empty bucket (seconds); NaN when empty. */
double hist_max(const Hist *h);
double hist_mean(const Hist *h);
/* Observations in buckets wholly at or under `seconds`, or wholly at or
 * over it (a bucket that straddles the bound counts in neither). */
uint64_t hist_count_under(const Hist *h, double seconds);
uint64_t hist_count_over(const Hist *h, double seconds);

/*
 * Sliding windows over one op's histograms: the last completed second, and
 * slots of SLOT_SECONDS covering WINDOW_SLOTS * SLOT_SECONDS. Slots are
 * stored sparse (non-empty buckets only): most disks use a dozen buckets,
 * idle ops none.
 */
#define WINDOW_SLOT_SECONDS 10
#define WINDOW_SLOTS 60		/* ten minutes */

typedef struct SparseHist {
	uint16_t n;
	uint16_t *idx;
	uint64_t *cnt;
	uint64_t count, sum_ns;
} SparseHist;

typedef struct LatWindow {
	Hist last_second;		/* the most recent interval, dense */
	Hist current;			/* the slot being filled, dense */
	double current_seconds;
	SparseHist slots[WINDOW_SLOTS];	/* completed slots, newest at head */
	unsigned head, used;
} LatWindow;

void lat_window_init(LatWindow *w);
void lat_window_free(LatWindow *w);
/* Adds one interval's delta (dt seconds); completes a slot every SLOT_SECONDS. */
int lat_window_push(LatWindow *w, const Hist *delta, double dt);
/* Sums the last `seconds` (rounded to slots, always including the slot in
 * progress); seconds <= 1 gives the last interval. */
void lat_window_sum(const LatWindow *w, double seconds, Hist *ret);
/* One slot: age 0 is the one being filled, 1 the newest completed one;
 * false past the oldest recorded. *ret_seconds is how much time it covers. */
bool lat_window_slot(const LatWindow *w, unsigned age, Hist *ret, double *ret_seconds);
