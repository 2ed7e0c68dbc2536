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
 *  - idle recovery: after a rest begun where writes wait, the disk takes
 *    writes fast again until it must wait; what it took after rests of
 *    growing length are points on a curve (idlecurve.h), fitted with a
 *    form that says how the rate falls; the figure is the average over
 *    the longest rest.
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
	bool recovery_lower_bound;	/* the longest rest cleaned it all: at least this */
	IdlePoint curve[IDLE_POINTS_MAX];	/* fast space after each rest (the fit is m.curve) */
	unsigned n_curve;
	double fast_bps;		/* bytes/s before the cliff */
	double seq_bps;			/* bytes/s of the 1 MiB writes in order right after the random ones
					 * fell: what a rebuild's large ordered writes get past the cache
					 * (smrd.conf's disk.ID.rebuild-rate); NaN not measured */
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
 * waited and was no hiccup: a write of latency >= floor after which the
 * waits went on within `window` seconds, no more than max_fast writes
 * completing fast between two of them. A
 * drive's own flush, or the host's scheduler, lets the writes run at the
 * fast rate again at once; a cache that ran out keeps the rate down, even
 * where most writes are still quick between the waits (aicodix's
 * ST8000AS0002: 3-15x down; the emulator's mixed shape 20x). */
#define WAIT_EVENTS 32
typedef struct WaitScan {
	double floor, window;
	unsigned max_fast;
	size_t seen, cand;
	bool candidate, confirmed;
	bool any_fast;			/* a write completed fast before the candidate */
	bool at_start;			/* the candidate waited before any write went fast */
	double cand_sent, cand_done;
	unsigned fast_run;		/* since the last wait */
	double cover, cover_end;	/* of the window, by other waits */
	/* the waits after the candidate in its window, those that ended with
	 * one band rewrite taken as one: when each was sent, and the fast
	 * writes before it (since the one before, or the candidate) */
	unsigned n_ev;
	double ev_sent[WAIT_EVENTS];
	unsigned ev_run[WAIT_EVENTS];
	double last_done;		/* when the last wait ended */
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
/* Idle recovery from the refills after rests of growing length, each
 * begun at the wait threshold: the curve's points and fit, and the
 * average over the longest rest. */
void qualify_model_curve(QualifyModel *q, const Refill *r, unsigned n, unsigned qd, uint64_t bs);
void qualify_model_skip(QualifyModel *q, const char *why);
/* "after ~30M of random writes this disk sustains ~10K/s with ~400 ms
 * waits; idle time gives back ~1.2M/s; a rebuild writing 1 TB in order in
 * large writes would take ~2.1 h at the 130M/s they ran at past the cache
 * (1 TB of random blocks at the rate above: ~3.2 years)"; "" without a
 * cliff. A rebuild writes in order (a sequential resilver, a btrfs
 * replace): its rate is the sequential one, not the random blocks'. */
#define RESILVER_BYTES 1e12
const char *qualify_model_meaning(const QualifyModel *q, char *buf, size_t n);
