/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of watched disks, kept sorted by name for stable output and
 * lookups.
 */
#pragma once

#include "disk.h"

#define REGISTRY_MAX_DISKS 8192

typedef struct DiskRegistry DiskRegistry;

DiskRegistry *registry_new(void);
DiskRegistry *registry_free(DiskRegistry *r);
size_t registry_size(const DiskRegistry *r);
/* The i-th disk in name order. */
Disk *registry_at(const DiskRegistry *r, size_t i);
Disk *registry_get(const DiskRegistry *r, const char *name);
/* Inserts a copy of d, which then owns what d pointed to (members,
 * latency, the detector's ring); -EEXIST, or -E2BIG past
 * REGISTRY_MAX_DISKS, and d keeps it (disk_release). */
int registry_add(DiskRegistry *r, const Disk *d, Disk **ret);
/* Removes and frees; returns whether it was there. */
bool registry_remove(DiskRegistry *r, const char *name);

/* SMR suspects and storms under way, as of the last sample (the views' suspect and storm). */
void registry_count(const DiskRegistry *r, unsigned *ret_suspects, unsigned *ret_storms);
