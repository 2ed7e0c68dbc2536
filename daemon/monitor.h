/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's shell: feeds each disk's interval, latency windows and slow
 * I/Os to the pure detector, and sends its events to the history database,
 * the log and the journal. It owns the history and the idle-cleaning
 * prober. Also gives the effective verdict: the static one, upgraded by
 * behaviour.
 */
#pragma once

#include <systemd/sd-event.h>

#include "config.h"
#include "detect.h"
#include "disk.h"
#include "history.h"
#include "tracer.h"

typedef struct Monitor Monitor;

/* cfg stays the caller's and is read at every tick (a reload changes it in
 * place); live: probes may be sent (the registry's disks are this host's).
 * Logs how the history database opened. */
int monitor_new(sd_event *e, const Config *cfg, DiskRegistry *disks, bool live, Monitor **ret);
/* Open storms stay open: a restart restores them from the history. */
Monitor *monitor_free(Monitor *m);
/* Once per interval, after the sampler and the tracer. */
void monitor_tick(Monitor *m, uint64_t now_mono_usec);
/* One slow I/O from the tracer. */
void monitor_slow_io(Monitor *m, Disk *d, const SlowRecord *r);
/* A disk is going away: close its open storm or episode and its probe. */
void monitor_disk_gone(Monitor *m, Disk *d);
/* The verdict as exported: static evidence plus behaviour. */
void monitor_verdict(const Monitor *m, const ModelList *models, const Disk *d, Verdict *ret);
/* The same without the evidence: class, confidences and the one-line basis. */
void monitor_summary(const Monitor *m, const Disk *d, VerdictSummary *ret);
/* The class monitor_verdict() would give, without copying its evidence. */
DiskClass monitor_class(const Monitor *m, const Disk *d);
void monitor_score(const Monitor *m, const Disk *d, DetectScore *ret);
/* The two parts of the verdict that counting needs, without copying it. */
double monitor_smr_confidence(const Monitor *m, const Disk *d);
bool monitor_smr_by_behaviour(const Disk *d);
/* Disks whose SMR confidence reaches the TRIM hint's, and storms under way. */
void monitor_count(const Monitor *m, unsigned *ret_suspects, unsigned *ret_storms);
/* Deletes a disk's events and resets its detector (after a replacement). */
int monitor_forget(Monitor *m, Disk *d);
History *monitor_history(const Monitor *m);
uint64_t monitor_events_total(const Monitor *m, DetectEventKind k);
