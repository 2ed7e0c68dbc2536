/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ZFS events heard from zed (smrctl zevent, docs/zfs.md): each is mapped
 * from its vdev path to the disk smrd watches, recorded through the one
 * event path (recorder.h: history, journal, notifier) beside smrd's own
 * events (rebuild-start, rebuild-end, zfs-delay, zfs-deadman, zfs-sitout,
 * zfs-statechange), counted for the metrics, and said with what smrd knows
 * of the disk (a delay during a destage storm). On vdev_attach the rebuild
 * guard judges the new disk (the callback: rebuildguard.h).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "devmap.h"
#include "events.h"
#include "guard.h"
#include "history.h"
#include "recorder.h"
#include "registry.h"
#include "zevent.h"

#define ZFSEVENTS_COUNTERS_MAX 256	/* (device, class) pairs counted; more go to device "other" */

typedef struct ZfsEvents ZfsEvents;

typedef struct ZfsEventsCallbacks {
	/* zed's vdev_attach of d into pool through path (rebuildguard_warn()):
	 * true with *check and warning when it warned. */
	bool (*attached)(Disk *d, const char *source, const char *path, const char *pool, uint64_t when_usec,
			 uint64_t now_real_usec, RebuildCheck *check, char warning[static REBUILD_TEXT_MAX],
			 void *userdata);
	/* A resilver or scrub began in a pool (zed's resilver_start,
	 * scrub_start, or a vdev_attach, which starts a resilver): its
	 * progress is worth reading now. */
	void (*scan_started)(const char *pool, void *userdata);
	void *userdata;
} ZfsEventsCallbacks;

/* What was done with one event. */
typedef struct ZfsEventResult {
	char device[32];		/* the watched disk, "" when the event names none */
	bool duplicate;			/* its EID was recorded before (zed replays): not again */
	char message[REBUILD_TEXT_MAX];	/* as recorded */
	int64_t event_id;		/* the history's id */
	bool warned;
	RebuildCheck check;		/* vdev_attach of a watched disk: the guard's verdict */
	char warning[REBUILD_TEXT_MAX];	/* the rebuild-warning's message when warned */
} ZfsEventResult;

/* recorder: the one event path (NULL: nothing recorded); map: how a vdev
 * path finds its disk (devmap.h); both kept, not owned. */
int zfsevents_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const ZfsEventsCallbacks *cb, ZfsEvents **ret);
ZfsEvents *zfsevents_free(ZfsEvents *z);
/* Records e (received at now_real_usec): -ENXIO (ret_error says) when its
 * vdev path is not a watched disk, nothing recorded; 0 otherwise (ret's
 * duplicate when its EID and time were recorded before: nothing again). */
int zfsevents_handle(ZfsEvents *z, const ZfsEvent *e, uint64_t now_real_usec, ZfsEventResult *ret,
		     char **ret_error);
typedef void (*ZfsCountCb)(const char *device, const char *zfs_class, uint64_t n, void *userdata);
/* Events counted since start, by disk ("" none) and subclass. */
void zfsevents_counts(const ZfsEvents *z, ZfsCountCb cb, void *userdata);
