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
#include "events.h"
#include "hist.h"

#define DETECT_MAX_OVERRIDES 32

/* Thresholds: each has a config key "detect.<name>" (see detect.c's table). */
typedef struct DetectParams {
	double fast_latency, fast_transfer, fast_iops, fast_memory;
	double collapse_ratio, collapse_stall, queue_wait, stall_spread, collapse_service, crawl_rate, busy;
	double storm_confirm, storm_window, storm_end, storm_onset;
	double slow_confirm, slow_fast_share, slow_stall, slow_service;
	double stall_threshold, timeout_share;
	double band_window, band_min_share, band_min_count, band_valley, band_slow, band_ratio;
	double idle_max_iops, idle_read_slow, idle_after, idle_burst, idle_confirm, idle_end;
	double half_life, w_storm, w_idle, w_band, w_stall, behaviour_score;
	unsigned n_overrides;
	struct {
		char device[32];
		double stall_threshold;
	} overrides[DETECT_MAX_OVERRIDES];
} DetectParams;

void detect_params_init(DetectParams *p);
/* Sets "name" (without the "detect." prefix); "stall-threshold.DEVICE" sets
 * one disk's threshold. -EINVAL with *ret_error for unknown names and values
 * out of range. */
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
 * (write_max/read_max NaN, interval NULL otherwise); the rest from diskstats. */
typedef struct DetectSample {
	double now, dt;
	double reads, writes;
	double read_bytes, write_bytes;
	double read_time, write_time;	/* seconds summed over completed I/Os */
	double busy;			/* share of dt with I/O in flight */
	double queue;			/* I/Os in flight on average over dt (weighted_ms); NaN unknown */
	unsigned in_flight;
	double read_max, write_max;	/* slowest completed in the interval */
	const Hist *interval[2];	/* reads, writes completed in the interval; NULL untraced */
	const Hist *window[2];		/* reads, writes over band_window; NULL untraced */
} DetectSample;

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
	float dt, writes, write_time;
	float part;		/* seconds of it that were slow: dt if slow, else what the rate lost */
	bool slow, busy, waiting;	/* waiting: a write waited longer than its queue explains */
} DetectInterval;

/* How a storm was recognised. */
typedef enum DetectStormKind {
	STORM_CLIFF,			/* writes fell from a fast phase seen here */
	STORM_MIXTURE,			/* already slow: fast acks mixed with long waits */
	STORM_SERIAL,			/* already slow: every write waits */
} DetectStormKind;

typedef struct DetectScore {
	double score;
	double storm, idle, band, stall;	/* each evidence's contribution now */
} DetectScore;

typedef struct DiskDetect {
	/* the fast phase: writes acknowledged faster than platters can */
	double fast_last, fast_iops, fast_latency;
	double fell_at;			/* when the rate first fell after the last fast interval; 0 none */
	/* the recent intervals, for the storm's confirmation window: as many
	 * as the window holds (hist_cap grows to fit it) */
	DetectInterval hist_inline[DETECT_HISTORY_INLINE];
	DetectInterval *hist_heap;		/* NULL while hist_inline is enough */
	unsigned hist_cap, hist_head, hist_len;
	unsigned prev_in_flight;		/* at the previous sample */
	/* a run of busy writing with no fast phase known: a disk already slow */
	struct {
		double t, writes, bytes, fast, stalls, busy, done, write_time, peak;
		unsigned stuck;
	} run;
	/* the storm */
	bool storm;
	DetectStormKind storm_kind;
	double storm_start, storm_last, storm_peak, storm_iops, storm_latency;
	uint64_t storm_writes, storm_bytes;
	uint64_t storms;			/* since start */
	uint64_t storms_known;			/* including the history's */
	/* write bursts and idle cleaning */
	double write_busy_run, burst_last, host_io_last;
	bool host_quiet;
	uint64_t probes;
	double probe_max;
	bool idle;
	double idle_start, idle_last, idle_peak;
	uint64_t idle_reads;
	unsigned idle_pending;
	double idle_pending_since;
	/* the slowest slow I/O of each of the last ten minutes */
	float minute_max[10];
	int32_t minute_of[10];
	/* stalls */
	uint64_t stalls[4];
	double stall_max, risk_last;
	/* bands */
	DetectBand bands[2][BANDS_MAX];
	unsigned n_bands[2];
	bool band_evidence;
	double bands_next;
	/* when each kind of evidence was last seen; -INFINITY = never */
	double ev_storm, ev_idle, ev_band, ev_stall;
	bool behaviour;				/* reclassified as DM-SMR by behaviour */
} DiskDetect;

void detect_init(DiskDetect *d);
/* The bands found at the last search for op (0 reads, 1 writes); returns how many. */
unsigned detect_bands(const DiskDetect *d, int op, Band ret[BANDS_MAX]);
/* Frees what detect_interval allocated and empties the ring of recent intervals. */
void detect_done(DiskDetect *d);
/* One interval: storms, idle cleaning, bands, and the behaviour verdict
 * (static_smr says whether static evidence already makes the disk SMR). */
void detect_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, bool static_smr,
		     DetectEmit emit, void *userdata);
/* One I/O slower than the slow threshold; a stall from stall_threshold
 * seconds (the disk's own: disk_stall_threshold()); io_timeout in seconds,
 * 0 unknown. */
void detect_slow_io(DiskDetect *d, const DetectParams *p, const char *device, double stall_threshold, int op,
		    double latency,
		    uint64_t sector, uint32_t bytes, double done, double io_timeout, DetectEmit emit,
		    void *userdata);
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
void detect_score(const DiskDetect *d, const DetectParams *p, double now, DetectScore *ret);
/* Replays a stored event (time on the detector's clock) so that the score
 * and the behaviour verdict survive a restart. */
void detect_restore(DiskDetect *d, DetectEventKind kind, double time);
