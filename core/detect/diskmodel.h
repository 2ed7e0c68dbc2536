/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A drive-managed SMR disk as the host sees it (pure): how many bytes of
 * random writes its media cache takes from clean before writes must wait
 * (the cliff), what it sustains after that, how long one wait is, and how
 * fast idle time gives the fast space back. smrctl qualify measures it in
 * one run; smrd learns it from the disk's own storms (CacheTrack) and
 * forecasts the next stall from it. docs/detection.md, "The media cache",
 * gives the model and its limits.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "idlecurve.h"

typedef struct DiskModel {
	double media_cache_bytes;	/* absorbed fast from clean; NaN unknown */
	double cache_spread;		/* the samples' largest deviation from it, as a share (0.05: 5%) */
	unsigned cache_samples;		/* fills from clean it rests on (storms, qualify runs) */
	bool cache_lower_bound;		/* a fill not known to start clean: the cache is at least this */
	double slow_write_bps;		/* bytes/s sustained after the cliff; NaN */
	double rewrite_seconds;		/* one wait in the slow phase (a band rewrite); NaN */
	double idle_recovery_bps;	/* fast space a second of its longest rest gave back; NaN */
	double recovery_rest;		/* ... that rest, seconds; NaN */
	unsigned recovery_samples;	/* rests measured */
	IdleFit curve;			/* the fast space after a rest of any length (idlecurve.h) */
} DiskModel;

void disk_model_init(DiskModel *m);
bool disk_model_known(const DiskModel *m);
/* A fill observed: bytes absorbed fast before the cliff. from_clean: the
 * fill is known to have started with the cache empty; else it is a lower
 * bound, which only ever raises an estimate that rests on no clean fill. */
void disk_model_add_cache(DiskModel *m, double bytes, bool from_clean);
void disk_model_add_recovery(DiskModel *m, double bytes_per_second);
/* Seconds to write `bytes` of random blocks from clean: the cache at
 * fast_bps, the rest at the slow rate (NaN when that is unknown). */
double disk_model_write_seconds(const DiskModel *m, double bytes, double fast_bps);

/* ------------------------------------------------- the daemon's estimate */

#define CACHE_RING 16

/* One disk's cache as smrd tracks it between storms. Fill rises with the
 * bytes of small writes (large ones are sequential: a DM-SMR disk sends
 * them to the bands), falls along the learnt idle-recovery curve while the
 * disk has no I/O at all (or at the learnt rate until there is a curve),
 * and is full at the end of a storm. Its own rests give the curve its
 * points: a rest begun in a storm (the cache at its wait threshold) with
 * the storm's end in it, and what the writes after it took before the
 * next cliff. */
typedef struct CacheTrack {
	DiskModel model;
	double fill;			/* bytes, the estimate */
	bool sure;			/* anchored by a storm's end or an idle long enough to clean it all */
	bool from_start;		/* counting since smrd first saw the disk: a fill from clean, assumed */
	double since_anchor;		/* bytes absorbed since the anchor */
	double idle_since_anchor;	/* seconds without writes since the anchor */
	double last_write;		/* when the last interval with filling writes ended */
	double run_start;		/* when the writes last resumed after a pause */
	float ring_bytes[CACHE_RING];	/* the last intervals' filling bytes, for the cliff's */
	double ring_end[CACHE_RING];
	float ring_dt[CACHE_RING];
	unsigned ring_head, ring_len;
	double seq_avg;			/* the last interval's write size if it was a sequential stream, else 0 */
	double mixed_bytes, mixed_writes, mixed_seq;	/* the interval after that stream, while its share is unknown */
	double slow_bytes, slow_seconds;	/* the storm's slow phase */
	bool warned;			/* the forecast fell under the warning in this fill */
	bool forecast_shown;		/* a forecast was given in this fill: it counts down to the full cache */
	/* rests, and the curve's points they gave */
	double io_end;			/* when the I/O of the last interval with any ended, about */
	bool io_storm;			/* ... and whether a storm was under way then */
	double quiet_from;		/* when the run without I/O under way began; NaN while I/O goes on */
	double quiet_fill;		/* the fill then */
	bool quiet_storm, quiet_anchor;	/* it began in a storm; the storm ended (an anchor) in it */
	double point_rest;		/* such a rest, the writes after it going on to a cliff; NaN none */
	/* one a length of rest, the newest; oldest first: room for IDLE_POINTS_MAX,
	 * allocated with the first (only a disk that rested after a storm has
	 * one), freed by cache_done */
	IdlePoint *points;
	unsigned n_points;
	bool point_learnt;		/* the last cliff gave a point (the caller's idle-recovery event) */
	double fitted_on;		/* the cache the curve was fitted on (it is refitted when that moves) */
} CacheTrack;

/* One interval, as the cache sees it. */
typedef struct CacheSample {
	double now, dt;
	double write_bytes, writes;
	double ios;			/* every I/O completed (reads, writes, discards, flushes) */
	double busy;			/* share of dt with I/O in flight */
	unsigned in_flight;		/* I/Os in flight at its end */
	bool storm;			/* a storm under way */
} CacheSample;

typedef struct CacheParams {
	double seq_size;		/* bytes: writes this large on average are sequential */
	double rate_window;		/* seconds the fill rate is smoothed over */
	double min_rate;		/* bytes/s under which nothing is filling */
} CacheParams;

void cache_init(CacheTrack *c);
/* Frees what the tracking allocated (the curve's points). */
void cache_done(CacheTrack *c);
/* From smrd.conf (disk.ID.media-cache) or a qualify run: counted as one fill
 * from clean, refined by the storms. */
void cache_seed(CacheTrack *c, double bytes);
/* The model as the history restored it: the fill is unknown again. */
void cache_restore(CacheTrack *c, const DiskModel *m);
/* One interval (ending at s->now) outside a storm or in one. */
void cache_interval(CacheTrack *c, const CacheParams *p, const CacheSample *s);
/* A point of the curve as the history kept it (an idle-recovery event). */
void cache_restore_point(CacheTrack *c, const IdlePoint *pt);
/* Each point learnt is an idle-recovery event, and only those: a restart
 * that reads them back in order has the same points. The newest this many
 * are read: enough to hold every length's newest. */
#define IDLE_RESTORE_EVENTS 512
/* The curve refitted to the points (after restoring them). */
void cache_refit(CacheTrack *c);
/* The newest point; NULL none. */
const IdlePoint *cache_last_point(const CacheTrack *c);
/* A storm began, its cliff at `cliff` (NaN: unknown, a disk found already
 * slow), flagged at now: what was absorbed since the anchor is a fill;
 * full from here. Returns true if the model changed. */
bool cache_storm_start(CacheTrack *c, double cliff, double now);
/* A write sent at `sent` waited, and no storm: the cliff of a disk written
 * slower than it cleans, if the cache is nearly full by the estimate (else
 * a hiccup, and false). */
bool cache_wait(CacheTrack *c, double sent, double now);
/* The storm ended at now: the cache is full; its slow phase's figures are
 * the disk's sustained rate (and the recovery rate's first guess). */
bool cache_storm_end(CacheTrack *c, double now, double peak_wait);
/* Filling bytes/s over the last rate_window seconds (or since writes
 * resumed); 0 when nothing filled in the last 3 s. */
double cache_rate(const CacheTrack *c, const CacheParams *p, double now);
/* The fill as a share of the cache; NaN when the cache is unknown. */
double cache_fill_ratio(const CacheTrack *c);
/* Seconds until the cache is full at the recent rate: NaN when it is
 * unknown, unsure, not filling, already full, or a storm is under way. */
double cache_forecast(const CacheTrack *c, const CacheParams *p, double now);
