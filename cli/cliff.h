/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the write cliff in a qualification run (pure): from every I/O's
 * submit time and latency, where the completion rate fell from a fast phase
 * and stayed down, and what the disk did after it.
 *
 * A cliff is a sustained fall in the completion *rate*, whatever mixture of
 * latencies is behind it: a DM-SMR disk whose every write waits for a band
 * rewrite (2500 IOPS, then 3: RAIDIX), and one that still acknowledges most
 * writes in under a millisecond while a few wait a second or two (aicodix's
 * ST8000AS0002), fall alike. What tells a media cache from an SSD's SLC
 * cache is whether writes *wait* after the fall: a band rewrite stops the
 * disk, so some wait far longer than the queue in front of them explains;
 * an SSD past its SLC cache, or a virtual disk whose host writes back at a
 * capped rate, is slower for every write but keeps completing them, and
 * makes none wait however deep the queue.
 * docs/detection.md gives each rule with the figures behind it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IoRec {
	double t;		/* submitted, seconds since the phase began */
	float lat;		/* seconds */
} IoRec;

typedef struct CliffRules {
	double confirm;		/* seconds the rate must stay down after the fall (at least) */
	double ratio;		/* ... by this factor below the fast phase's rate */
	double min_fast;	/* seconds of fast phase before a fall with writes waiting */
	double min_plateau;	/* ... before one without (a DRAM burst is not a fast phase) */
	double stall;		/* seconds a write must wait to count as waiting... */
	double queue_wait;	/* ... and more than this per I/O in flight */
	double silent_share;	/* ... on a disk that completed nothing for this share of that */
	unsigned qd;		/* queue depth of the run */
} CliffRules;

/* The defaults, for a run at queue depth qd (docs/detection.md). */
void cliff_rules_init(CliffRules *rules, unsigned qd, double confirm);

typedef struct CliffResult {
	bool fell;			/* the rate fell and stayed down */
	bool found;			/* ... with writes waiting: a media cache filled */
	double cliff_t;			/* seconds into the phase where it fell */
	double fast_iops, fast_lat;	/* before it: rate and median latency */
	double slow_iops, slow_lat;	/* after it */
	uint64_t fast_ios, slow_ios;
	uint64_t stalls;		/* I/Os after the fall that waited (>= stall_floor, on a stopped disk) */
	double stall_floor;		/* seconds */
	double pause_floor;		/* seconds without a completion that make a wait */
	double slowest;			/* the slowest I/O after the fall */
} CliffResult;

/* duration: the phase's length so far. */
void cliff_find(const IoRec *r, size_t n, double duration, const CliffRules *rules, CliffResult *ret);
/* Median of latencies of r[from, to); NaN if empty. */
double cliff_median_lat(const IoRec *r, size_t from, size_t to);

/* The same fall as cliff_find() decides (fell, found, cliff_t; the floors
 * it judged waits by), kept as a run goes on: each call costs what was
 * completed since the last (records are appended, never changed), not the
 * whole run again. */
typedef struct CliffScan CliffScan;
int cliff_scan_new(const CliffRules *rules, CliffScan **ret);
CliffScan *cliff_scan_free(CliffScan *s);
static inline void cliff_scan_freep(CliffScan **s) { cliff_scan_free(*s); }
/* Takes r[fed so far .. n). */
int cliff_scan_feed(CliffScan *s, const IoRec *r, size_t n);
/* cliff_find(r, n, duration)'s fell, found and cliff_t (the rest of *ret
 * zero but the floors); 0 or -ENOMEM. */
int cliff_scan_fall(CliffScan *s, const IoRec *r, size_t n, double duration, CliffResult *ret);
