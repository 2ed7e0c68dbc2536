/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replays traffic through the detector as the daemon would see it: one
 * interval at a time, diskstats rebuilt the way this kernel keeps them
 * (measured on a virtio disk during a 1.6 s flush: in-flight counts the
 * flush, io_ticks advances while anything is in flight, time_in_queue is
 * credited when an I/O completes; flushes and discards are counted apart
 * from writes), the tracer's per-interval histograms, its slow-I/O records
 * handed over before the interval that completed them, and the band
 * search's windows. For test-traces (the corpus shapes) and test-healthy
 * (real host traffic on healthy disks).
 *
 * Traffic is kept in slots of REPLAY_SLOT seconds (what completed in each,
 * per op, with its histogram; the busy time; what was in flight at its
 * end) plus every I/O of REPLAY_KEEP seconds or more on its own: intervals
 * that start on a slot boundary are rebuilt exactly as from every I/O,
 * and an hour of 13000 I/Os a second fits in a few hundred KiB.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "detect.h"

#define REPLAY_SLOT 0.05
#define REPLAY_KEEP 0.05
/* The stand-stills the tracer keeps for still_ns: the daemon's default slow-io. */
#define REPLAY_STILL_GAP_NS 100000000ULL
/* The detector's clock is the trace's plus this (an after hook sees it). */
#define REPLAY_CLOCK_BASE 1000.0

typedef struct ReplayIo {
	double submit, done;	/* seconds */
	double still;		/* kept ones: the tracer's still_ns, in seconds */
	uint32_t bytes;
	uint8_t op;		/* TRACE_READ, TRACE_WRITE, TRACE_DISCARD, TRACE_FLUSH */
} ReplayIo;

typedef struct ReplayBucket {
	uint8_t op, bucket;	/* reads and writes only: the detector's histograms */
	uint32_t count;
} ReplayBucket;

typedef struct ReplaySlot {
	uint32_t busy_us;	/* of the slot, with anything in flight */
	uint32_t in_flight;	/* at its end */
	uint32_t n[TRACE_OPS];	/* completed in it */
	double bytes[TRACE_OPS], lat[TRACE_OPS];	/* their bytes and summed latency (seconds) */
	uint32_t first, count;	/* its buckets in the trace's pool */
} ReplaySlot;

typedef struct ReplayTrace {
	double t0;		/* the trace's clock at slot 0's start */
	ReplaySlot *slot;
	size_t n_slots;
	ReplayBucket *bucket;
	size_t n_buckets;
	ReplayIo *slow;		/* REPLAY_KEEP or longer, in completion order */
	size_t n_slow;
	uint64_t ios;		/* all of them */
} ReplayTrace;

typedef struct ReplayOptions {
	double phase;		/* intervals end on the slot grid at whole seconds plus phase (0..1) */
	double slow;		/* the tracer's slow threshold, seconds (0.1 as the daemon's default) */
	bool untraced;		/* diskstats alone: no histograms, no slow records */
	bool reclassify;	/* whether behaviour may make the disk dm-smr */
	double tail;		/* seconds of silence replayed after the last I/O */
	double wall0;		/* local time at the trace's clock 0 (the idle budget's hours); 0 none */
	bool smr_static;	/* the disk's static evidence says SMR: its idle budget from the start */
	/* after each interval, if set: what the detector was given and its state */
	void (*after)(const DetectSample *s, const DiskDetect *d, void *userdata);
} ReplayOptions;

/* What came out. */
typedef struct ReplayResult {
	unsigned events[_EVENT_KIND_MAX];
	double first_storm;	/* the trace's clock at the interval that emitted the first storm; NaN none */
	double max_score;	/* the highest GC score after any interval */
	double seconds;		/* of trace replayed */
	unsigned forecasts;	/* intervals with a stall forecast */
	bool cache_known;	/* a media cache was learnt */
	double cache_bytes;	/* the media cache at the end; NaN unknown */
} ReplayResult;

/* Builds the slots of I/Os in any order; -errno. */
int replay_trace_from_io(const ReplayIo *io, size_t n, ReplayTrace *ret);
void replay_trace_free(ReplayTrace *t);
/* emit gets every event, and *now_out (if not NULL) the trace's clock at
 * the interval emitting it. */
int replay_detect(const ReplayTrace *t, const DetectParams *p, const ReplayOptions *o, DetectEmit emit,
		  void *userdata, double *now_out, ReplayResult *ret);

/* The file format of tests/fixtures/real, gzip'd: '#' comments, then
 *   S INDEX BUSY_US IN_FLIGHT [OP:N:SECTORS:LAT_US[:BUCKET=COUNT,...]]...
 * for every slot with anything in it (OP one of R W D F), then
 *   I ISSUE_US LATENCY_US OP SECTORS
 * for each I/O of REPLAY_KEEP or more (issue from slot 0's start). */
int replay_trace_write(const ReplayTrace *t, FILE *f);
/* Reads that format (gzip'd or plain), or per-I/O lines
 * (ISSUE_US LATENCY_US OP SECTORS, what io-record prints); -errno. */
int replay_trace_load(const char *path, ReplayTrace *ret);
