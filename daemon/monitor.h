/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's shell: feeds each disk's interval, latency windows and slow
 * I/Os to the pure detector, and hands its events to the one event path
 * (recorder.h). It restores each disk's past from the history, owns the
 * idle-cleaning prober, and fills each disk's view (core/disk/diskview.h)
 * once per sample.
 */
#pragma once

#include <systemd/sd-event.h>

#include "config.h"
#include "detect.h"
#include "registry.h"
#include "history.h"
#include "prober.h"
#include "recorder.h"
#include "tracer.h"

typedef struct Monitor Monitor;
typedef struct MonitorDisk MonitorDisk;

/* cfg stays the caller's and is read at every tick (a reload changes it in
 * place); history and recorder are the context's (a disk's past is read
 * from the one, its events go to the other); live: probes may be sent (the
 * registry's disks are this host's). */
int monitor_new(sd_event *e, const Config *cfg, DiskRegistry *disks, History *history, Recorder *recorder, bool live,
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
/* Intervals in which the host held a CPU long enough that no disk's waits were taken as evidence. */
uint64_t monitor_host_stalls(const Monitor *m);
