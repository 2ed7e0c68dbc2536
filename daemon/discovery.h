/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finds the whole disks to watch: libudev enumeration and a uevent monitor on
 * the real /sys, a directory scan of <root>/block under --sysfs-root.
 */
#pragma once

#include <stdbool.h>

#include "context.h"

/* Sets up the uevent monitor on the event loop (real /sys only, not oneshot). */
int discovery_new(Context *ctx, Discovery **ret);
Discovery *discovery_free(Discovery *d);
/* Enumerates every block device, adds new disks and drops vanished ones. */
int discovery_scan(Context *ctx);
/* Re-reads one device: adds, updates or removes it. */
void discovery_probe(Context *ctx, const char *name);
/* Probes a new disk fully; for a known one only checks that it still exists
 * with a medium (changes to known disks arrive as uevents). Cheap enough to
 * call for every disk on every scan. */
void discovery_check(Context *ctx, const char *name);
/* Re-applies filters and the model list to every watched disk (after a reload). */
void discovery_reclassify(Context *ctx);
