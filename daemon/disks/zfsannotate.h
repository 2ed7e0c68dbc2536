/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zfs-annotate (off by default): writes each classified ZFS pool member's
 * class and SMR confidence where ZFS can see them, as the vdev user
 * properties org.smrd:class and org.smrd:smr_confidence of its leaf
 * (OpenZFS 2.2 and later; vdevprops(7)), named by its vdev GUID:
 *   zpool get -H -o value org.smrd:class,org.smrd:smr_confidence POOL GUID
 *   zpool set org.smrd:class=dm-smr POOL GUID   (each property that differs)
 * only when a value changed (the confidence by VDEV_CONFIDENCE_STEP: each
 * set is a line of the pool's history), each set in the log. One child at
 * a time, through zpool-command, its time and output bounded. The disk is
 * remembered by pool and vdev GUID, never by pointer.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "reaper.h"
#include "registry.h"
#include "vdevclass.h"
#include "zpoolstatus.h"

#define ZFSANNOTATE_TIMEOUT_USEC (10 * 1000000ULL)	/* one zpool run; killed past it */
#define ZFSANNOTATE_RETRY_SECONDS 600.0			/* a vdev whose get or set failed waits this long */
#define ZFSANNOTATE_MAX 4096				/* vdevs followed; more are left alone (logged once) */

typedef struct ZfsAnnotate ZfsAnnotate;

/* What smrd knows of one leaf's properties. */
typedef struct ZfsAnnotation {
	char pool[ZPOOL_NAME_MAX + 1];
	char vdev[24];			/* its GUID */
	VdevClass have;			/* in ZFS, as smrd last read or wrote it */
	bool read;			/* have was read (or written) */
	double written;			/* when smrd last set a property of it (CLOCK_REALTIME s), 0 never */
	double failed;			/* when its last get or set failed, 0 not */
	char error[160];		/* why, "" none */
} ZfsAnnotation;

/* cfg is the daemon's, kept: zfs-annotate and zpool-command are read at
 * each zfsannotate_sync(). */
int zfsannotate_new(sd_event *e, Reaper *reaper, const Config *cfg, ZfsAnnotate **ret);
/* Kills a run under way. */
ZfsAnnotate *zfsannotate_free(ZfsAnnotate *z);
/* Compares every ZFS member's class (not unknown) with what ZFS has and
 * starts what differs; cheap when nothing does (every sample). now:
 * CLOCK_REALTIME seconds. */
void zfsannotate_sync(ZfsAnnotate *z, DiskRegistry *disks, double now);
/* What smrd knows of the disk's leaf, NULL when it follows none (off, no
 * ZFS member, never classified). */
const ZfsAnnotation *zfsannotate_of(const ZfsAnnotate *z, const Disk *d);
/* zpool runs started since start; whether one is under way or waits. */
uint64_t zfsannotate_runs(const ZfsAnnotate *z);
bool zfsannotate_busy(const ZfsAnnotate *z);
