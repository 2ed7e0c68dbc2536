/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer backends' one interface: each turns the block tracepoints of
 * the watched devices into per-(device, op) histogram deltas and slow-I/O
 * records. BPF (primary) and perf_event_open (fallback) implement it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

typedef struct TraceBackend TraceBackend;

typedef void (*TraceHistFn)(uint32_t dev, int op, const Hist *delta, void *userdata);
typedef void (*TraceSlowFn)(const struct trace_slow *s, void *userdata);

typedef struct TraceCounters {
	uint64_t completed;
	uint64_t inflight_full;		/* issues not tracked: table full */
	uint64_t unmatched;		/* completions without an issue */
	uint64_t expired;		/* issues whose completion never came */
	uint64_t reissued;		/* requests issued again before completing */
	uint64_t slow_sent, slow_dropped;
	uint64_t lost_samples;		/* perf ring overflow */
} TraceCounters;

typedef struct TraceBackendOps {
	const char *name;
	/* -errno and a one-line reason when this backend cannot run here. */
	int (*open)(TraceBackend **ret, uint64_t slow_ns, char **why);
	/* Starts or stops tracing one device (kernel dev_t: major << 20 | minor). */
	int (*watch)(TraceBackend *b, uint32_t dev, bool on);
	/* Applies the watch set changed by watch() calls (one filter update). */
	int (*commit)(TraceBackend *b);
	/* Drains what the kernel has: histogram deltas since the last call and
	 * slow-I/O records. */
	int (*poll)(TraceBackend *b, TraceHistFn hist, TraceSlowFn slow, void *userdata);
	/* File descriptors that become readable when a batch is waiting. */
	unsigned (*fds)(TraceBackend *b, int *fds, unsigned max);
	void (*counters)(TraceBackend *b, TraceCounters *ret);
	void (*set_slow)(TraceBackend *b, uint64_t slow_ns);
	void (*close)(TraceBackend *b);
} TraceBackendOps;

extern const TraceBackendOps trace_bpf_ops;
extern const TraceBackendOps trace_perf_ops;

static inline uint32_t trace_dev(unsigned major, unsigned minor) { return major << 20 | minor; }
