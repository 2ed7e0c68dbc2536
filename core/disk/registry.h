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
/* Changes whenever a disk is added or removed: an index or a match kept
 * from before is good while it stays the same. */
uint64_t registry_generation(const DiskRegistry *r);
size_t registry_size(const DiskRegistry *r);
/* The i-th disk in name order. */
Disk *registry_at(const DiskRegistry *r, size_t i);
Disk *registry_get(const DiskRegistry *r, const char *name);
/* The disk of device number major:minor (a whole disk's, not a partition's), or NULL. */
Disk *registry_by_devnum(const DiskRegistry *r, unsigned major, unsigned minor);
/* Where d is in name order (registry_at), or -1. */
int32_t registry_index(const DiskRegistry *r, const Disk *d);
/* Inserts a copy of d, which then owns what d pointed to (members,
 * latency, the detector's ring); -EEXIST, or -E2BIG past
 * REGISTRY_MAX_DISKS, and d keeps it (disk_release). */
int registry_add(DiskRegistry *r, const Disk *d, Disk **ret);
/* Removes and frees; returns whether it was there. */
bool registry_remove(DiskRegistry *r, const char *name);
/* Whether another disk in r presents d's identity (disk_identity): USB-SATA
 * bridges often give every disk one serial, so it does not tell them apart. */
bool registry_identity_shared(const DiskRegistry *r, const Disk *d);
/* The key a disk's records are kept under (the history's disk_id, the
 * notifier's incidents and acks), written to buf: its identity, which
 * outlives a rename (sdb is sdc after a reboot), or identity@name while
 * another disk in r (NULL: none) presents the same identity; "" for a disk
 * with none. Returns buf. */
#define DISK_KEY_MAX 96		/* an identity cut at 60, '@', a name of up to 31 */
const char *registry_disk_key(const DiskRegistry *r, const Disk *d, char buf[DISK_KEY_MAX]);
/* identity@name, whether or not another disk shares the identity. */
const char *registry_named_key(const Disk *d, char buf[DISK_KEY_MAX]);

/* SMR suspects and storms under way, as of the last sample (the views' suspect and storm). */
void registry_count(const DiskRegistry *r, unsigned *ret_suspects, unsigned *ret_storms);
