/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector (pure): per disk, from one interval's counters, the windowed
 * latency histograms and the slow I/Os, with an explicit `now`, decide
 * whether a destage storm is under way, which I/Os stalled, which latency
 * bands the disk shows, whether it cleans while idle, and how strongly its
 * recent behaviour looks like SMR cleaning (the GC score). It emits events;
 * the caller stores and logs them. docs/detection.md explains every rule.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bands.h"
#include "diskmodel.h"
#include "events.h"
#include "hist.h"
#include "idlebudget.h"

#define DETECT_MAX_OVERRIDES 32

/* Thresholds: each has a config key "detect.<name>" (see detect.c's table). */
typedef struct DetectParams {
	double fast_latency, fast_transfer, fast_iops, fast_memory;
	double collapse_ratio, collapse_stall, queue_wait, stall_spread, collapse_service, crawl_rate, busy, wait_share;
	double host_steal;
	double storm_confirm, storm_window, storm_end, storm_onset;
	double slow_confirm, slow_fast_share, slow_stall, slow_service;
	double stall_threshold, timeout_share;
	double band_window, band_min_share, band_min_count, band_valley, band_slow, band_ratio;
	double idle_max_iops, idle_read_slow, idle_after, idle_confirm, idle_end;
	double half_life, w_storm, w_idle, w_band, w_stall, score_without_storm, behaviour_score;
	double cache_seq_size, cache_rate_window, forecast_warn, forecast_min;
	unsigned n_overrides;
	struct {
		char device[32];
		double stall_threshold;
	} overrides[DETECT_MAX_OVERRIDES];
} DetectParams;

void detect_params_init(DetectParams *p);
/* Sets "name" (without the "detect." prefix); "stall-threshold.DEVICE" sets
 * one disk's threshold. -EINVAL with *ret_error for unknown names and values
 * out of range; 0 with a warning in *ret_error for a retired name, which
 * changes nothing. */
int detect_param_set(DetectParams *p, const char *name, const char *value, char **ret_error);
bool detect_param_known(const char *name);
void detect_params_print(const DetectParams *p, FILE *f);
/* Every parameter as a command-line flag, with its help, default and range. */
void detect_params_help(FILE *f);
double detect_stall_threshold(const DetectParams *p, const char *device);

typedef struct DetectEvent {
	DetectEventKind kind;
	int op;				/* TRACE_*, or -1 */
	double time;			/* when it began, on the caller's clock */
	double duration;		/* seconds; 0 for instants */
	double latency;			/* seconds: the peak, or the stall's */
	uint64_t count, bytes;		/* I/Os and bytes during it */
	uint64_t sector;
	double value;			/* kind-specific: see detect.c */
	char message[320];
} DetectEvent;


typedef void (*DetectEmit)(const DetectEvent *e, void *userdata);

/* One interval of one disk. Latencies come from the tracer when it runs
 * (write_max/read_max NaN, interval NULL otherwise); the rest from diskstats.
 * Traced, the writes that waited come one by one through detect_slow_io()
 * before the interval that completed them. */
typedef struct DetectSample {
	double now, dt;
	double reads, writes;
	double read_bytes, write_bytes;
	double read_time, write_time;	/* seconds summed over completed I/Os */
	double discards, flushes;	/* completed (diskstats 4.18+, 5.5+) */
	double discard_time, flush_time;	/* seconds summed over them */
	double busy;			/* share of dt with I/O in flight (any op, flushes too) */
	double queue;			/* I/Os in flight on average over dt (weighted_ms); NaN unknown */
	unsigned in_flight;		/* any op, flushes too */
	double read_max, write_max;	/* slowest completed in the interval */
	const Hist *interval[2];	/* reads, writes completed in the interval; NULL untraced */
	const Hist *window[2];		/* reads, writes over band_window; NULL untraced */
	double host_steal;		/* seconds the most-robbed CPU lost to a hypervisor; NaN or 0 unknown */
	double wall;			/* local time at its end: seconds since the epoch plus the UTC offset
					 * (the idle budget's hour of the day); NaN unknown */
	bool smr_static;		/* the disk's static evidence makes it an SMR suspect: its idle
					 * budget is kept from this interval on (DiskDetect's budget) */
} DetectSample;

/* The host, not the disk: a hypervisor held a CPU for host-steal of the
 * interval or more. Every disk's I/O waited with it. */
bool detect_host_stalled(const DetectParams *p, const DetectSample *s);

/* The ring of recent intervals starts inside DiskDetect with room for the
 * default window (3 s) at the default interval (1 s) and a little less, and moves to
 * the heap only when the parameters need more (detect_done frees it). */
#define DETECT_HISTORY_INLINE 6
#define DETECT_HISTORY_MAX 1024

/* A band as kept between searches (Band in 20 bytes, not 40: two ops' four
 * bands on every disk): detect_bands() gives them back as Bands. */
typedef struct DetectBand {
	float centre, lo, hi, share;
	uint32_t count;
} DetectBand;

typedef struct DetectInterval {
	double t;
	float dt, writes, write_time, write_bytes;
	float fast;		/* writes acked faster than platters (traced) */
	float part;		/* seconds of it that were slow: dt if slow, else what the rate lost */
	float wait;		/* seconds of it the queue spent in writes' waits */
	float peak;		/* the longest of those waits */
	bool slow, busy, waiting;	/* waiting: a write waited longer than its queue explains */
	bool stuck;		/* nothing completed: slow only until a flush or discard explains it */
	double first_wait;	/* when the first write that waited was sent (traced); INFINITY none */
	float stalls;		/* writes that waited (traced) */
	double waits_from, waits_to;	/* when the first and the last of them ended */
} DetectInterval;

/* Writes that waited (slow-I/O records) since the last interval, as spans
 * with a count: the writes behind one band rewrite, or one flush, end
 * together. Times relative to waits_base. */
#define DETECT_WAITS 8
typedef struct DetectWait {
	float start, end;
	float lat;		/* the longest of them: a merged span is no one write's wait */
	uint32_t n : 31;
	uint32_t stall : 1;	/* one of them took the disk's stall threshold or longer */
} DetectWait;

/* Flushes and discards that took collapse-stall or longer: writes in
 * flight with one waited for it, not for a band rewrite. */
#define DETECT_SHADOWS 4
typedef struct DetectShadow {
	double start, end;
} DetectShadow;

/* Intervals in which the hypervisor took CPU time: a wait across one is
 * the host's for as long as it stole (a wait of 16 s covers 16 intervals). */
#define DETECT_STEALS 16
typedef struct DetectSteal {
	double start, end;
	float stolen;		/* seconds, the most-robbed CPU's */
} DetectSteal;

/* How a storm was recognised. */
typedef enum DetectStormKind {
	STORM_CLIFF,			/* writes fell from a fast phase seen here */
	STORM_MIXTURE,			/* already slow: fast acks mixed with long waits */
	STORM_SERIAL,			/* already slow: every write waits */
} DetectStormKind;

typedef struct DetectScore {
	double score;
	double storm, idle, band, stall;	/* each evidence's contribution now */
	bool held;			/* held at score-without-storm: no storm on record */
} DetectScore;

/* The fast phase: writes acknowledged faster than platters can. */
typedef struct DetectFast {
	double last, iops, latency;
	double last_storm;		/* the last interval of a storm that fell from it; -INFINITY none */
	double fell_at;			/* when the rate first fell after the last fast interval; 0 none */
} DetectFast;

/* The recent intervals, for the storm's confirmation window: as many as
 * the window holds (cap grows to fit it). */
typedef struct DetectRing {
	DetectInterval slots[DETECT_HISTORY_INLINE];
	DetectInterval *heap;		/* NULL while slots is enough */
	unsigned cap, head, len;
	unsigned prev_in_flight;	/* at the previous sample */
} DetectRing;

/* A run of busy writing with no fast phase known: a disk already slow. */
typedef struct DetectRun {
	double t, writes, bytes, fast, stalls, wait, busy, done, write_time, peak;
} DetectRun;

typedef struct DetectStorm {
	bool active;
	DetectStormKind kind;
	double start, last, peak, iops, latency;
	/* its slow seconds, for the figures a person expects of a storm (2.5
	 * writes/s at 400 ms), not the average with the fast acks around them */
	double slow_seconds, slow_writes, slow_wtime, slow_bytes;
	uint64_t count;			/* since start */
	uint64_t known;			/* including the history's */
	double seen;			/* the last interval of a storm; -INFINITY never */
} DetectStorm;

/* Writes that waited, and the flushes and discards that explain some. */
typedef struct DetectWaits {
	DetectWait list[DETECT_WAITS];
	unsigned n;
	double base;
	DetectShadow shadows[DETECT_SHADOWS];
	unsigned shadow_next;
	DetectSteal *steals;		/* DETECT_STEALS of them, made with the first: NULL where the
					 * hypervisor never took CPU time (bare metal) */
	unsigned steal_next;
	double stall_threshold;		/* the disk's, as detect_slow_io last had it */
} DetectWaits;

/* Idle cleaning after a storm, and the host's traffic that decides it. */
typedef struct DetectIdle {
	bool active;
	double start, last, peak;
	uint64_t reads;
	unsigned pending;
	double pending_since;
	double host_io_last;
	bool host_quiet;
	uint64_t probes;		/* probe reads answered */
	double probe_max;
} DetectIdle;

typedef struct DetectStalls {
	uint64_t count[4];		/* by TRACE_* op */
	double max, risk_last;
	/* the slowest slow I/O of each of the last ten minutes */
	float minute_max[10];
	int32_t minute_of[10];
	/* stalls in each of the last sixty minutes (slot: minute % 60), for
	 * the count of the last hour; a slot older than hour_newest - 59 is 0 */
	uint16_t hour[60];		/* saturating: a minute of 65535 stalls says enough */
	int32_t hour_newest;		/* the newest minute counted */
} DetectStalls;

typedef struct DetectBands {
	DetectBand found[2][BANDS_MAX];	/* reads, writes */
	unsigned n[2];
	bool evidence;
	double next;			/* when to search again */
} DetectBands;

/* When each kind of evidence was last seen (-INFINITY never), and the
 * verdict it made. */
typedef struct DetectEvidence {
	double storm, idle, band, stall;
	bool behaviour;			/* reclassified as DM-SMR by behaviour */
	bool behaviour_stored;		/* the history holds a behaviour verdict (detect_restore) */
	bool restore_pending;		/* a stored storm start waiting for its end's figures */
	double restore_pending_at;
} DetectEvidence;

/* What the last media-cache event said: its message is worded from these
 * figures, so the same figures are the same news. */
typedef struct CacheSaid {
	uint64_t bytes, count, sector;
	double value, duration, latency;
} CacheSaid;

typedef struct DiskDetect {
	DetectFast fast;
	DetectRing ring;
	DetectRun run;
	DetectStorm storm;
	DetectWaits waits;
	DetectIdle idle;
	DetectStalls stalls;
	DetectBands bands;
	DetectEvidence ev;
	DetectScore score;		/* as of the last interval (or restore): computed once */
	CacheTrack cache;		/* the media cache, learnt from the storms */
	/* its writes and idle by hour of the day, kept only for a disk that can
	 * be SMR: allocated at the first interval whose sample says its static
	 * evidence does, or after its first storm, or once a media cache is
	 * known; NULL for the others (a CMR disk, an SSD) */
	IdleBudget *budget;
	CacheSaid cache_said;		/* the last media-cache event: one per change */
	double forecast;		/* seconds until it is full, as of the last interval; NaN */
	bool imminent;			/* the forecast is under forecast-warn: a stall is imminent */
} DiskDetect;

void detect_init(DiskDetect *d);
/* The bands found at the last search for op (0 reads, 1 writes); returns how many. */
unsigned detect_bands(const DiskDetect *d, int op, Band ret[BANDS_MAX]);
/* Frees what the detector allocated (the ring's heap, the curve's points,
 * the idle budget, the stolen intervals) and empties them. */
void detect_done(DiskDetect *d);
/* One interval: storms, idle cleaning, bands, and the behaviour verdict
 * (reclassify: whether behaviour may make the disk dm-smr; false when static
 * evidence already does, smrd.conf declares its class, or it is stacked). */
void detect_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, bool reclassify,
		     DetectEmit emit, void *userdata);
/* One I/O slower than the slow threshold, as the tracer saw it. */
typedef struct DetectSlowIo {
	int op;				/* TRACE_* */
	double latency;			/* seconds */
	double still;			/* the longest the disk completed nothing while it was in flight
					 * (the tracer's still_ns, at most latency); NaN unknown */
	uint64_t sector;
	uint32_t bytes;
	double done;			/* on the detector's clock */
} DetectSlowIo;

/* One I/O slower than the slow threshold (which must be at most
 * collapse-stall for the writes that wait to be seen); a stall from
 * stall_threshold seconds (the disk's own: disk_stall_threshold());
 * io_timeout in seconds, 0 unknown. */
void detect_slow_io(DiskDetect *d, const DetectParams *p, const char *device, double stall_threshold,
		    const DetectSlowIo *io, double io_timeout, DetectEmit emit, void *userdata);
/* Whether a probe read would tell something now: after a write burst, the
 * host quiet but not gone (DETECT_PROBE_MAX_IDLE). */
#define DETECT_PROBE_MAX_IDLE 60.0
bool detect_wants_probe(const DiskDetect *d, const DetectParams *p, double now);
/* A probe read's latency; spacing is the probe interval. */
void detect_probe(DiskDetect *d, const DetectParams *p, double latency, double now, double spacing,
		  DetectEmit emit, void *userdata);
/* The slowest I/O over the slow threshold that completed in the last ten
 * minutes (seconds; 0 if none). */
double detect_slowest_recent(const DiskDetect *d, double now);
/* Stall events of the last hour, to the minute (the current one and the
 * 59 before it), stored ones replayed by detect_restore included. */
uint64_t detect_stalls_hour(const DiskDetect *d, double now);
/* The storm's slow seconds: writes per second and their mean latency; false
 * (and the figures untouched) before it had one with writes. */
bool detect_storm_slow(const DiskDetect *d, double *ret_iops, double *ret_latency);
/* The GC score at now (detect_interval keeps the last in d->score). */
void detect_score(const DiskDetect *d, const DetectParams *p, double now, DetectScore *ret);
/* Replays a stored event (time on the detector's clock, its latency) so
 * that the score and the behaviour verdict survive a restart: a storm only
 * if a write in it waited collapse-stall or longer (what today's rules
 * require), in time order; then detect_restore_done. */
void detect_restore(DiskDetect *d, const DetectParams *p, DetectEventKind kind, double time, double latency);
/* A stored media-cache event (the model learnt before a restart): the
 * latest wins. */
void detect_restore_cache(DiskDetect *d, const DetectEvent *e);
/* A stored idle-recovery event: a point of the curve, oldest first (the
 * curve is refitted by detect_restore_done). */
void detect_restore_point(DiskDetect *d, const DetectEvent *e);
/* Bytes/s filling the media cache now (cache-rate-window). */
double detect_fill_rate(const DiskDetect *d, const DetectParams *p, double now);
/* smrd.conf's or qualify's figure for the disk's media cache (bytes). */
void detect_seed_cache(DiskDetect *d, double bytes);
/* After the last detect_restore: the behaviour verdict stands only with a
 * storm behind it, and d->score is what the restored evidence makes at now. */
void detect_restore_done(DiskDetect *d, const DetectParams *p, double now);
