/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every view shows of one disk (the metrics page, the JSON replies and
 * smrctl, the HTML pages), worked out once per sample by the monitor from
 * the detector, the counters and the latency windows. A view only formats
 * it: two views of one sample cannot disagree, and a new per-disk figure is
 * one field here (bgpctl's one record, many outputs). The class is the one
 * thing worked out on reading (disk_summary(), disk_verdict()): the static
 * verdict changes with a reload or a probe, between samples.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "detect.h"
#include "trace-abi.h"

/* Per-second rates over the last interval, derived from the counters. */
typedef struct DiskRates {
	double reads, writes;		/* completed I/Os per second */
	double read_bytes, write_bytes;	/* bytes per second */
	double read_latency, write_latency;	/* seconds per I/O, average; NaN when idle */
	double utilisation;		/* io_ms share of the interval */
	double queue_depth;		/* average I/Os in flight: iostat's aqu-sz */
} DiskRates;

/* One op's latency over one window: seconds, NaN when it had no I/O. */
typedef struct LatSummary {
	uint64_t count;
	float mean, p50, p90, p99, p999, max;
} LatSummary;

typedef enum ViewWindow {
	VIEW_LAST,			/* the last interval */
	VIEW_1M,
	VIEW_10M,
	_VIEW_WINDOW_MAX,
} ViewWindow;

extern const struct ViewWindowInfo {
	const char *name;		/* "last", "1m", "10m" */
	double seconds;
} view_windows[_VIEW_WINDOW_MAX];

typedef struct OpView {
	bool traced;			/* an I/O of this op was ever timed */
	uint64_t total, slow;		/* timed since start; slower than slow-io */
	float slow_max;
	LatSummary win[_VIEW_WINDOW_MAX];
	/* what the windows were last summed from: unchanged, they are not summed again */
	uint64_t seen_total;
	uint32_t seen_slot;
} OpView;

typedef struct DiskView {
	uint64_t sample;		/* the sample it shows; 0 before the monitor's first */
	bool detecting;			/* the detector runs for it (not --oneshot) */
	bool storm, idle;		/* a destage storm, idle cleaning under way */
	double storm_since, idle_since;	/* CLOCK_REALTIME seconds while under way, else NaN */
	bool behaviour;			/* the detector found dm-smr behaviour (disk_summary decides) */
	float behaviour_confidence;	/* in dm-smr, when behaviour makes it */
	DetectScore score;		/* the GC score and its parts */
	bool score_held;		/* held at score-without-storm: no storm on record */
	uint64_t storms, storms_known;	/* since start; with the history's */
	float fast_iops, fast_latency;	/* the fast phase remembered */
	float storm_iops, storm_latency;	/* of the storm under way, or the last */
	uint64_t stalls[TRACE_OPS];
	float stall_max;
	float slowest_recent;		/* the slowest slow I/O of the last ten minutes */
	uint64_t probes;
	float probe_max;
	uint8_t n_bands[2];		/* reads, writes */
	DetectBand bands[2][BANDS_MAX];
	/* the media cache (docs/detection.md): NaN where unknown */
	DiskModel cache;
	float cache_fill;		/* share of it in use, 0-1 */
	bool cache_sure;		/* the fill is anchored, not a guess after a restart */
	float fill_rate;		/* bytes/s filling it now */
	float forecast;			/* seconds until it is full at that rate */
	DiskRates rates;
	OpView op[TRACE_OPS];
} DiskView;

/* Nothing known yet: what a disk shows before the monitor's first sample. */
void diskview_init(DiskView *v);
/* The bands of op (0 reads, 1 writes) as Bands; returns how many. */
unsigned diskview_bands(const DiskView *v, int op, Band ret[BANDS_MAX]);
/* Behaviour adds to what the static evidence says, never subtracts. */
double diskview_smr_confidence(const DiskView *v, double static_confidence);
