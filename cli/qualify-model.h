/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disk model a qualification measures (pure): from the random writes
 * until the cliff and after it, and from refills after two rests, the
 * figures of core/detect/diskmodel.h's DiskModel, each with how it was measured
 * and how far it can be off. Skylight (Aghayev & Desnoyers, FAST'15) read
 * the same figures off real DM-SMR drives by host-side timing alone.
 *
 *  - media cache: the bytes written before the first write that waited
 *    (the cliff), from a clean start;
 *  - sustained rate: bytes a second of random writes after the cliff;
 *  - rewrite time: the gaps in the completion stream after the cliff (no
 *    write completes while the drive rewrites a band, whatever the queue
 *    depth), their median;
 *  - idle recovery: after a rest the disk takes writes fast again until it
 *    must wait; the bytes it took after two rests of different lengths,
 *    as a slope, so that what it takes after any rest (hysteresis, the
 *    delay before cleaning starts) cancels out.
 * docs/qualify.md gives each with its limits.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cliff.h"
#include "diskmodel.h"

#define MODEL_MAX_SKIPPED 4

typedef struct QualifyModel {
	DiskModel m;			/* NaN where not measured */
	double cache_err;		/* +- bytes */
	double slow_err;		/* +- bytes/s */
	double rewrite_err;		/* +- seconds */
	unsigned rewrites;		/* waits the rewrite time rests on */
	double recovery_err;		/* +- bytes/s */
	bool recovery_lower_bound;	/* the longer rest cleaned it all: at least this */
	double fast_bps;		/* bytes/s before the cliff */
	const char *skipped[MODEL_MAX_SKIPPED];	/* what was not measured, and why */
	unsigned n_skipped;
} QualifyModel;

/* A refill: random writes after a rest until the first that waited. */
typedef struct Refill {
	double rest;			/* seconds of idle before it */
	double bytes;			/* written before the first wait */
	bool waited;			/* false: the budget ran out first (the cache was clean) */
	bool muddled;			/* ran past the cache with writes waiting now and then, no
					 * one of them a threshold: what it took is no free space */
} Refill;

/* From the write phase (records, its length, the cliff in it, the block
 * size and queue depth): the cache, the sustained rate and the rewrite
 * time. Without a cliff with writes waiting nothing is known. */
void qualify_model_writes(const IoRec *r, size_t n, double duration, const CliffResult *c, uint64_t bs,
			  unsigned qd, QualifyModel *ret);
/* A latency that says a write waited for a rewrite in a refill. */
double qualify_model_wait_floor(const QualifyModel *q, const CliffResult *c);
/* Scanning a refill's records as they complete for the first write that
 * waited and was no hiccup: a write of latency >= floor after which no
 * more than max_fast writes completed fast within `window` seconds. A
 * drive's own flush, or the host's scheduler, lets the writes run at the
 * fast rate again at once; a cache that ran out keeps the rate down, even
 * where most writes are still quick between the waits (aicodix's
 * ST8000AS0002: 3-15x down; the emulator's mixed shape 20x). */
typedef struct WaitScan {
	double floor, window;
	unsigned max_fast;
	size_t seen, cand;
	bool candidate;
	double cand_sent, cand_done;
	unsigned fast_after;		/* since the candidate */
	unsigned fast_run;		/* since the last wait */
	double cover, cover_end;	/* of the window, by other waits */
} WaitScan;

void wait_scan_init(WaitScan *w, double floor, double window, unsigned max_fast);
/* Feeds the records completed so far (r[0..n), completion order), the
 * run `elapsed` seconds in: true once a wait is confirmed (its submit
 * time in w->cand_sent). */
bool wait_scan_feed(WaitScan *w, const IoRec *r, size_t n, double elapsed);
/* The window after a wait that tells it from a hiccup, and the fast
 * writes in it that make it one: a fifth of the fast phase's rate. */
double qualify_model_wait_window(const QualifyModel *q);
unsigned qualify_model_max_fast(const QualifyModel *q, double window, uint64_t bs);
/* Bytes submitted before `sent` (INFINITY: all of them). */
double qualify_refill_bytes(const IoRec *r, size_t n, uint64_t bs, double sent);
/* The recovery rate from two refills, the shorter rest first. */
void qualify_model_recovery(QualifyModel *q, const Refill *shorter, const Refill *longer, unsigned qd, uint64_t bs);
void qualify_model_skip(QualifyModel *q, const char *why);
/* The longer rest: long enough to give back about half the cache at the
 * rate the shorter one showed, at least twice the shorter, at most `max`. */
double qualify_longer_rest(const QualifyModel *q, const Refill *shorter, double max);
/* "after ~30M of random writes this disk sustains ~10K/s with ~400 ms
 * waits; idle time gives back ~1.2M/s; rewriting 1 TB of random blocks
 * (a resilver) at that rate would take ~3.2 years, against ~1.1 days at
 * its fast rate"; "" without a cliff. */
#define RESILVER_BYTES 1e12
const char *qualify_model_meaning(const QualifyModel *q, char *buf, size_t n);
