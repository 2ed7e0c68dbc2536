/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ZFS events heard from zed (smrctl zevent, docs/zfs.md): each is mapped
 * from its vdev path to the disk smrd watches, recorded through the one
 * event path (recorder.h: history, journal, notifier) beside smrd's own
 * events (rebuild-start, rebuild-end, zfs-delay, zfs-deadman, zfs-sitout,
 * zfs-statechange), counted for the metrics, and said with what smrd knows
 * of the disk (a delay during a destage storm). On vdev_attach the rebuild
 * guard (core/rebuild/guard.h) judges the new disk and, if it takes a
 * rebuild slowly, records a "rebuild-warning", which the notifier hears
 * like any event; the pool's slow_io_n/slow_io_t are then read in the
 * background (slowio.h), and a second rebuild-warning follows when zed may
 * degrade the disk.
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
#include "slowio.h"
#include "zevent.h"

#define ZFSEVENTS_COUNTERS_MAX 256	/* (device, class) pairs counted; more go to device "other" */

typedef struct ZfsEvents ZfsEvents;

typedef struct ZfsEventsCallbacks {
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
/* What the daemon knows of d, for the guard; basis is left NULL (the
 * caller points it at its own disk_summary()'s, which outlives the call). */
void zfsevents_facts(const Disk *d, uint64_t now_real_usec, RebuildFacts *ret);
/* The rebuild guard on d, which `source` ("ZFS pool tank", "btrfs file
 * system /srv") rebuilds onto through `path`: *check its verdict, and when
 * it warns, warning's text and true; the rebuild-warning is recorded at
 * when_usec once per rebuild (rebuild_state_warned(); not again when the
 * rebuild followed has one, nor when the history has it: a restart).
 * zed's vdev_attach and the rebuild watcher both come here. */
bool zfsevents_warn(ZfsEvents *z, Disk *d, const char *source, const char *path, uint64_t when_usec,
		    uint64_t now_real_usec, RebuildCheck *check, char warning[static REBUILD_TEXT_MAX]);
/* From now on, when the guard warns about a disk a resilver writes onto
 * (zed's vdev_attach, or the watcher's resilver), the pool's slow_io_n and
 * slow_io_t are read in the background with the zpool *zpool names (the
 * configuration's field, read at each run: slowio.h); when zed may degrade
 * the disk for slow I/O during a destage storm, a second rebuild-warning
 * says so, recorded as the first. */
int zfsevents_watch_slow_io(ZfsEvents *z, sd_event *e, Reaper *reaper, char *const *zpool);
/* For smrctl rebuild-check: the pool d is in, as far as smrd knows (the
 * resilver followed onto it, else its ZFS label), NULL none (or no pool
 * name zpool takes, or not watching slow I/O); the last
 * reading of its slow_io_n/t, a new one started when there is none for
 * that pool within the hour (*ret NULL: none yet). */
const char *zfsevents_slow_io(ZfsEvents *z, Disk *d, const SlowIoResult **ret);
typedef void (*ZfsCountCb)(const char *device, const char *zfs_class, uint64_t n, void *userdata);
/* Events counted since start, by disk ("" none) and subclass. */
void zfsevents_counts(const ZfsEvents *z, ZfsCountCb cb, void *userdata);
