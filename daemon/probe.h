/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The idle-cleaning probe (off by default, `probe = yes`): one O_DIRECT
 * 4 KiB read at a random offset, at most one in flight and one per
 * probe-interval per disk, only while the detector wants one (after a
 * write burst, host quiet but not gone). libaio with an eventfd on the
 * event loop: a probe stuck behind a band rewrite blocks nothing.
 */
#pragma once

#include "context.h"

typedef struct Probe Probe;

/* Sends a probe to d if it is due. */
void probe_maybe(Context *ctx, Disk *d, double now);
/* Probe reads that completed since the last call (subtracted from the
 * host's traffic), with their summed latency in seconds. */
unsigned probe_take_completed(Disk *d, double *ret_seconds);
/* The disk is going: its probe is closed, or left to drain if in flight. */
void probe_disk_gone(Context *ctx, Disk *d);
void probe_stop_all(Context *ctx);
