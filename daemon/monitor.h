/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's shell: feeds each disk's interval, latency windows and slow
 * I/Os to the pure detector, and sends its events to the history database,
 * the log and the journal. It owns the history and the idle-cleaning
 * prober, and fills each disk's view (core/disk/diskview.h) once per sample.
 */
#pragma once

#include <systemd/sd-event.h>

#include "config.h"
#include "detect.h"
#include "registry.h"
#include "history.h"
#include "prober.h"
#include "retention.h"
#include "tracer.h"

typedef struct Monitor Monitor;
typedef struct MonitorDisk MonitorDisk;

/* What the monitor tells others: each detector event, once recorded. */
typedef struct MonitorCallbacks {
	void (*event)(Disk *d, DetectEventKind kind, const HistoryEvent *h, void *userdata);
	void *userdata;
} MonitorCallbacks;

/* cfg stays the caller's and is read at every tick (a reload changes it in
 * place); live: probes may be sent (the registry's disks are this host's);
 * cb may be NULL. Logs how the history database opened. */
int monitor_new(sd_event *e, const Config *cfg, DiskRegistry *disks, bool live, const MonitorCallbacks *cb,
		Monitor **ret);
/* Open storms stay open: a restart restores them from the history. */
Monitor *monitor_free(Monitor *m);
/* Once per interval, after the sampler and the tracer; host_steal: the
 * seconds the most-robbed CPU lost to a hypervisor since the last (NaN
 * unknown). */
void monitor_tick(Monitor *m, const TickTime *now, double host_steal);
/* One slow I/O from the tracer. */
void monitor_slow_io(Monitor *m, Disk *d, const SlowRecord *r, const TickTime *now);
/* A disk is going away: close its open storm or episode and its probe. */
void monitor_disk_gone(Monitor *m, Disk *d);
/* Deletes a disk's events and resets its detector (after a replacement). */
int monitor_forget(Monitor *m, Disk *d);
History *monitor_history(const Monitor *m);
uint64_t monitor_events_total(const Monitor *m, DetectEventKind k);
/* Intervals in which the host held a CPU long enough that no disk's waits were taken as evidence. */
uint64_t monitor_host_stalls(const Monitor *m);
