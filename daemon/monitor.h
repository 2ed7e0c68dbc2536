/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's shell: feeds each disk's interval, latency windows and slow
 * I/Os to the pure detector, and sends its events to the history database,
 * the log and the journal. Also gives the effective verdict: the static one,
 * upgraded by behaviour.
 */
#pragma once

#include "context.h"
#include "detect.h"
#include "history.h"
#include "tracer.h"

typedef struct Monitor Monitor;

int monitor_start(Context *ctx);
void monitor_stop(Context *ctx);
/* Once per interval, after the sampler and the tracer. */
void monitor_tick(Context *ctx, uint64_t now_mono_usec);
/* One slow I/O from the tracer. */
/* A probe read's latency (seconds, at monotonic `now`). */
void monitor_probe_result(Context *ctx, Disk *d, double latency, double now);
void monitor_slow_io(Context *ctx, Disk *d, const SlowRecord *r);
/* A disk is going away: close its open storm or episode. */
void monitor_disk_gone(Context *ctx, Disk *d);
/* The verdict as exported: static evidence plus behaviour. */
void monitor_verdict(const Context *ctx, const Disk *d, Verdict *ret);
void monitor_score(const Context *ctx, const Disk *d, DetectScore *ret);
/* The two parts of the verdict that counting needs, without copying it. */
double monitor_smr_confidence(const Context *ctx, const Disk *d);
bool monitor_smr_by_behaviour(const Disk *d);
History *monitor_history(const Context *ctx);
uint64_t monitor_events_total(const Context *ctx, DetectEventKind k);
