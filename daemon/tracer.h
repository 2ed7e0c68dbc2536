/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer: picks a backend (bpf, else perf, else none: diskstats
 * averages), keeps the kernel's filter equal to the watched disks, and each
 * interval moves histogram deltas into the disks and slow I/Os into a
 * bounded queue.
 */
#pragma once

#include "context.h"
#include "trace.h"

#define SLOW_QUEUE_LEN 1024

typedef struct SlowRecord {
	char device[32];
	int op;
	uint64_t sector;
	uint32_t bytes;
	int error;
	double latency;			/* seconds */
	uint64_t done_realtime_usec;
	uint64_t done_mono_usec;
} SlowRecord;

typedef struct Tracer Tracer;

int tracer_start(Context *ctx);
void tracer_stop(Context *ctx);
/* Makes the traced set equal to the registry's disks. */
void tracer_sync(Context *ctx);
/* Once per interval, after the diskstats sample. */
void tracer_collect(Context *ctx);
void tracer_set_slow(Context *ctx, double seconds);

const char *tracer_backend(const Context *ctx);	/* bpf, perf or none */
const char *tracer_refused(const Context *ctx);	/* why others were not used; "" if none */
void tracer_counters(const Context *ctx, TraceCounters *ret);
uint64_t tracer_slow_total(const Context *ctx);
/* The i-th most recent slow I/O (0 = newest); NULL past the end. */
const SlowRecord *tracer_slow_at(const Context *ctx, unsigned i);
