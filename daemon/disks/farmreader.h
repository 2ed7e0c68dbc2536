/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads Seagate's FARM recording type through smartctl-command (smartctl
 * 7.4 or later: `smartctl -n standby -l farm --json /dev/NAME`), one disk
 * at a time, off the event loop (a child through childrun: its output
 * bounded, its time bounded). -n standby: a spun-down drive is answered
 * from its power mode and never woken. A smartctl that refuses -l farm, or
 * none at all, is said once and asked no more until reset. Its owner asks
 * (when the model list is matched for a disk, on reread) and is told what
 * was read through the callback it gave.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "farm.h"
#include "reaper.h"

#define FARMREADER_TIMEOUT_USEC (30 * 1000000ULL)	/* one smartctl run; killed past it */
#define FARMREADER_OUTPUT_MAX (1024 * 1024)		/* a SAS drive's log is some tens of KiB */
#define FARMREADER_QUEUE_MAX 4096			/* disks waiting; more are refused (logged) */

typedef struct FarmReader FarmReader;

typedef struct FarmReaderCallbacks {
	/* smartctl answered for the device that was major:minor when it was
	 * asked (the caller checks it still is) */
	void (*read)(const char *name, unsigned major, unsigned minor, const FarmReading *r, void *userdata);
	void *userdata;
} FarmReaderCallbacks;

/* smartctl: the configuration's smartctl-command, read at each run ("" or
 * NULL: never run); dev_dir: where the device nodes are ("/dev"); reaper:
 * where its runs' groups are owned (childrun.h). */
int farmreader_new(sd_event *e, Reaper *reaper, char *const *smartctl, const char *dev_dir,
		   const FarmReaderCallbacks *cb, FarmReader **ret);
/* Kills a run under way; nothing more is told. */
FarmReader *farmreader_free(FarmReader *r);
/* Queues a read of the disk, unless it is waiting already: 0; -ENOTSUP
 * when smartctl-command is empty or was found unable; -E2BIG when the
 * queue is full; -EINVAL for a name that is not a device's. */
int farmreader_ask(FarmReader *r, const char *name, unsigned major, unsigned minor);
/* A new configuration: a smartctl found unable is tried again. */
void farmreader_reset(FarmReader *r);
/* Runs started and disks waiting, for tests and status. */
uint64_t farmreader_runs(const FarmReader *r);
unsigned farmreader_waiting(const FarmReader *r);
