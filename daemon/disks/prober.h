/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The idle-cleaning prober (off by default, `probe = yes`): one O_DIRECT
 * 4 KiB read at a random offset, at most one in flight per disk, when its
 * owner (the monitor) asks. libaio with an eventfd on the event loop: a
 * probe stuck behind a band rewrite blocks nothing. A completed probe is
 * reported through the callback it was given.
 */
#pragma once

#include <systemd/sd-event.h>

#include "disk.h"

typedef struct Prober Prober;

/* A disk's probe as its owner keeps it: NULL until the first is sent. */
typedef struct ProbeSlot {
	struct Probe *probe;
	bool failed;			/* it cannot be probed: never tried again */
} ProbeSlot;

typedef struct ProberCallbacks {
	/* A probe read of d completed (latency in seconds, at monotonic `now`). */
	void (*result)(Disk *d, double latency, double now, void *userdata);
	void *userdata;
} ProberCallbacks;

/* dev_dir: where the disks' nodes are ("/dev"). */
int prober_new(sd_event *e, const char *dev_dir, const ProberCallbacks *cb, Prober **ret);
/* Closes every probe (at exit the kernel waits for those in flight). */
Prober *prober_free(Prober *p);
/* Sends a probe to d unless one is in flight or the last is under
 * `spacing` seconds old; the caller has decided that one is wanted. */
void prober_maybe(Prober *p, ProbeSlot *slot, Disk *d, double now, double spacing);
/* Probe reads of d that completed since the last call (subtracted from
 * the host's traffic), with their summed latency in seconds. */
unsigned prober_take_completed(ProbeSlot *slot, double *ret_seconds);
/* d is going: its probe is closed, or left to drain if one is in flight. */
void prober_disk_gone(Prober *p, ProbeSlot *slot);
