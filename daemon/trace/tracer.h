/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer: picks a backend (bpf, else perf, else none: diskstats
 * averages), keeps the kernel's filter equal to the watched disks, and each
 * interval moves histogram deltas into the disks and slow I/Os into a
 * bounded queue.
 */
#pragma once

#include <systemd/sd-event.h>

#include "registry.h"
#include "trace.h"

#define SLOW_QUEUE_LEN 1024

typedef struct SlowRecord {
	char device[32];
	int op;
	uint64_t sector;
	uint32_t bytes;
	int error;
	double latency;			/* seconds */
	double still;			/* seconds the disk completed nothing before it (at most latency) */
	uint64_t done_realtime_usec;
	uint64_t done_mono_usec;
} SlowRecord;

typedef struct Tracer Tracer;

typedef struct TracerCallbacks {
	/* One I/O slower than the slow threshold, as soon as the kernel hands it over. */
	void (*slow_io)(Disk *d, const SlowRecord *r, void *userdata);
	void *userdata;
} TracerCallbacks;

/* Picks the first of backends (NULL-terminated) that opens, as `want`
 * allows (auto, a backend's name, or none); live: the registry's disks are
 * this kernel's (never trace a captured tree's device numbers). The tracer
 * reads the registry it is given and never changes which disks are in it. */
int tracer_new(sd_event *e, const TraceBackendOps *const *backends, const char *want, bool live, double slow_seconds,
	       DiskRegistry *disks, const TracerCallbacks *cb, Tracer **ret);
Tracer *tracer_free(Tracer *t);
/* Makes the traced set equal to the registry's disks. */
void tracer_sync(Tracer *t);
/* Once per interval, after the diskstats sample: moves the kernel's
 * histogram deltas into the disks' latency windows. */
void tracer_collect(Tracer *t, uint64_t now_mono_usec, uint64_t now_real_usec);
/* I/Os from deliver seconds go to the slow_io callback; from keep seconds
 * (at least deliver) they are also kept for tracer_slow_at and counted. */
void tracer_set_slow(Tracer *t, double deliver, double keep);

const char *tracer_backend(const Tracer *t);	/* bpf, perf or none */
const char *tracer_refused(const Tracer *t);	/* why others were not used; "" if none */
void tracer_counters(const Tracer *t, TraceCounters *ret);
uint64_t tracer_slow_total(const Tracer *t);
/* The i-th most recent slow I/O (0 = newest); NULL past the end. */
const SlowRecord *tracer_slow_at(const Tracer *t, unsigned i);
