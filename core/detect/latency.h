/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A disk's traced latency: per op, the cumulative histogram (exported as
 * smrd_disk_io_latency_seconds) and the sliding windows, plus the count of
 * slow I/Os. Allocated per op on its first I/O: idle ops cost nothing.
 */
#pragma once

#include "hist.h"

typedef struct OpLatency {
	Hist total;
	LatWindow window;
	uint64_t slow;		/* I/Os over the slow threshold */
	double slow_max;	/* seconds, the slowest seen */
	uint64_t round;		/* the tracer's collection round that last fed it */
} OpLatency;

typedef struct DiskLatency {
	OpLatency *op[TRACE_OPS];
} DiskLatency;

const char *trace_op_to_string(int op);
int trace_op_from_string(const char *s);

/* The op's state, allocated on first use; NULL on OOM or a bad op. */
OpLatency *disk_latency_op(DiskLatency **l, int op);
/* Adds one interval's delta for an op, allocating on first use. */
int disk_latency_push(DiskLatency **l, int op, const Hist *delta, double dt);
void disk_latency_free(DiskLatency *l);
