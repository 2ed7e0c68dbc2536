/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every view shows of one disk (the metrics page, the JSON replies and
 * smrctl, the HTML pages), worked out once per sample by the monitor from
 * the detector, the counters and the latency windows. A view only formats
 * it: two views of one sample cannot disagree, and a new per-disk figure is
 * one field here (bgpctl's one record, many outputs). The class is
 * worked out on reading (disk_summary(), disk_verdict()): the static
 * verdict changes with a reload or a re-read, between samples. The latency
 * percentiles are summed on their first read in a sample (diskview_latency):
 * most samples nobody reads them.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "detect.h"
#include "membership.h"
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
	double slow_max;
} OpView;

/* A traced disk's percentiles, summed on the first read in a sample
 * (smrctl show/top and the pages read them, /metrics never):
 * diskview_latency(). Allocated on the first read of a traced op. */
typedef struct ViewLatency {
	LatSummary win[TRACE_OPS][_VIEW_WINDOW_MAX];
	uint64_t summed[TRACE_OPS][_VIEW_WINDOW_MAX];	/* the sample + 1 win[] was summed in; 0 never */
} ViewLatency;

/* How urgent a disk looks: the status page lists the most urgent first.
 * A stall forecast near comes first: the one problem that can still be
 * avoided. */
typedef enum DiskSeverity {
	DISK_SEVERITY_OK,
	DISK_SEVERITY_SUSPECT,		/* an SMR suspect, nothing under way */
	DISK_SEVERITY_IDLE_CLEANING,
	DISK_SEVERITY_STALLS,		/* stalls in the last hour */
	DISK_SEVERITY_STORM,
	DISK_SEVERITY_IMMINENT,		/* stall imminent: the media cache fills */
	_DISK_SEVERITY_MAX,
	_DISK_SEVERITY_INVALID = -EINVAL,
} DiskSeverity;

/* The pools, arrays and volume groups a disk is part of, as every view
 * writes them (smrctl, the pages, SMRD_POOL): "type:name", space-separated
 * ("zfs:tank", "zfs:tank lvm:vg0"), "" for none. Room for every
 * membership a disk can have (MEMBERSHIP_MAX of MEMBER_STR). */
#define DISKVIEW_POOL_MAX (MEMBERSHIP_MAX * (MEMBER_STR + 8))

/* What only a disk that learnt an idle-recovery curve shows (an SMR disk
 * that rested after a storm): a block of its own, allocated with the
 * first point. */
typedef struct DiskViewCurve {
	IdlePoint points[IDLE_POINTS_MAX];	/* oldest first (the fit is the view's cache.curve) */
	unsigned n_points;
	IdleBudgetDay budget;		/* the idle budget (idlebudget.h): known with a curve */
} DiskViewCurve;

typedef struct DiskView {
	uint64_t sample;		/* the sample it shows; 0 before the monitor's first */
	bool storm, idle;		/* a destage storm, idle cleaning under way */
	double storm_since, idle_since;	/* CLOCK_REALTIME seconds while under way, else NaN */
	bool behaviour;			/* the detector found dm-smr behaviour (disk_summary decides) */
	float behaviour_confidence;	/* in dm-smr, when behaviour makes it */
	DetectScore score;		/* the GC score and its parts */
	uint64_t storms, storms_known;	/* since start; with the history's */
	float fast_iops, fast_latency;	/* the fast phase remembered */
	float storm_iops, storm_latency;	/* of the storm under way, or the last */
	uint64_t stalls[TRACE_OPS];	/* since start, by op */
	uint64_t stalls_hour;		/* stall events of the last hour, any op (with the history's) */
	float stall_max;
	double stall_threshold;		/* seconds: the disk's own (disk_stall_threshold) */
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
	bool imminent;			/* the detector's stall-imminent: forecast under forecast-warn */
	/* the idle-recovery curve's points and the idle budget's day: NULL
	 * for a disk without points (most): read it through diskview_curve() */
	DiskViewCurve *curve;
	/* an SMR suspect: its SMR confidence (static and behaviour) reaches
	 * the TRIM hint's, as of the sample (registry_count counts them) */
	bool suspect;
	DiskSeverity severity;
	char *pool;			/* NULL for none: read it through diskview_pool_str() */
	DiskRates rates;
	OpView op[TRACE_OPS];
	ViewLatency *lat;		/* NULL until a traced op's percentiles are read */
} DiskView;

struct Disk;

/* Nothing known yet: what a disk shows before the monitor's first sample. */
void diskview_init(DiskView *v);
/* The bands of op (0 reads, 1 writes) as Bands; returns how many. */
unsigned diskview_bands(const DiskView *v, int op, Band ret[BANDS_MAX]);
/* Behaviour adds to what the static evidence says, never subtracts. */
double diskview_smr_confidence(const DiskView *v, double static_confidence);
/* The figures that follow from the others and from the disk: its stall
 * threshold, whether it is a suspect, its severity (the end of
 * diskview_update; a test that sets a view by hand calls it). */
void diskview_derive(struct Disk *d, const DetectParams *p);
/* The pool string, from the disk's memberships: whenever they change
 * (disk_set_members), not every sample. */
void diskview_pool(struct Disk *d);
/* The curve's points and the budget's day: none (no points, the budget
 * unknown) for a disk without them. */
const DiskViewCurve *diskview_curve(const DiskView *v);
/* The same, to change: made on first use; NULL when out of memory (a
 * test that sets a view by hand uses it too). */
DiskViewCurve *diskview_curve_mut(DiskView *v);
/* The pool string, "" for none. */
const char *diskview_pool_str(const DiskView *v);
/* "ok", "suspect", "idle-cleaning", "stalls", "storm", "stall-imminent". */
const char *diskview_severity_to_string(DiskSeverity s);
/* One op's latency over one window, as of the view's sample: summed from
 * the disk's windows on the first read in a sample, then kept. A bad op or
 * window, an op never traced (or no memory to keep it) gives an empty
 * summary. */
const LatSummary *diskview_latency(struct Disk *d, int op, ViewWindow w);
/* The same, and the window's buckets in *ret (summed once for both). */
const LatSummary *diskview_latency_hist(struct Disk *d, int op, ViewWindow w, Hist *ret);
