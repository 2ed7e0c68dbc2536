/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the write cliff in a qualification run (pure): from every I/O's
 * submit time and latency, the fast phase (the media cache taking writes),
 * the cliff, and what the disk does after it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IoRec {
	double t;		/* submitted, seconds since the phase began */
	float lat;		/* seconds */
} IoRec;

typedef struct CliffResult {
	bool found;
	double cliff_t;			/* seconds into the phase */
	double fast_iops, fast_lat;	/* before it: rate and median latency */
	double slow_iops, slow_lat;	/* after it */
	uint64_t fast_ios, slow_ios;
} CliffResult;

/* A cliff is the first slow I/O (10x the early median latency and at least
 * 50 ms) after which, for `confirm` seconds, completions fall to a tenth of
 * the fast rate and at least half are slow. duration: the phase's length. */
void cliff_find(const IoRec *r, size_t n, double duration, double confirm, CliffResult *ret);
/* Median of latencies of r[from, to); NaN if empty. */
double cliff_median_lat(const IoRec *r, size_t from, size_t to);
