/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard, for every way data moves onto a watched disk (zed's
 * vdev_attach, a resilver or btrfs rebuild the watcher found): whether the
 * disk takes it slowly (core/rebuild/guard.h), what it would write and how
 * long that takes (core/rebuild/forecast.h), recorded once per rebuild as a
 * rebuild-warning through the one event path (recorder.h); then, for a
 * disk in a ZFS pool, whether zed may fault it for slow I/O, read in the
 * background (slowio.h) and warned of a second time when it may. The same
 * forecast answers smrctl rebuild-check before a rebuild starts, for the
 * pool or file system named.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "devmap.h"
#include "forecast.h"
#include "guard.h"
#include "reaper.h"
#include "recorder.h"
#include "registry.h"
#include "slowio.h"

typedef struct RebuildGuard RebuildGuard;

/* What a btrfs rebuild would write onto a disk of the file system a path
 * reaches, and how that was found: 0, or -errno (not a btrfs smrd reads). */
typedef int (*RebuildBtrfsShare)(const char *path, Disk *d, double *ret_bytes, char *ret_from, size_t from_len,
				 const char **ret_mount, void *userdata);

/* recorder: where warnings go (NULL: nothing recorded); *zpool: the
 * configuration's zpool-command, read at each run; all kept. */
int rebuildguard_new(sd_event *e, DiskRegistry *disks, Recorder *recorder, DevMap *map, Reaper *reaper,
		     char *const *zpool, RebuildGuard **ret);
RebuildGuard *rebuildguard_free(RebuildGuard *g);
/* How rebuild-check learns a btrfs file system's share (the rebuilds module's). */
void rebuildguard_set_btrfs_share(RebuildGuard *g, RebuildBtrfsShare share, void *userdata);
/* What the daemon knows of d, for the guard, at now_real_usec. */
void rebuildguard_facts(const Disk *d, uint64_t now_real_usec, RebuildFacts *ret);
/*
 * The guard on d, which `source` ("ZFS pool tank", "btrfs file system /srv")
 * rebuilds onto through `path`, writing `bytes` (NaN: not known yet, the
 * disk's size at most): *check its verdict, and when it warns, warning's
 * text (what it writes, how long that takes, from which figures, the
 * evidence) and true; the rebuild-warning is recorded at when_usec once
 * per rebuild (not again when the rebuild followed has one, nor when the
 * history has it: a restart). pool: the ZFS pool it joins (NULL none): zed's
 * slow I/O diagnosis of it is then read in the background.
 */
bool rebuildguard_warn(RebuildGuard *g, Disk *d, const char *source, const char *path, const char *pool, double bytes,
		       uint64_t when_usec, uint64_t now_real_usec, RebuildCheck *check,
		       char warning[static REBUILD_TEXT_MAX]);

/* rebuild-check's answer, being built or done. */
typedef struct RebuildCheckAnswer {
	RebuildFacts facts;
	RebuildForecast forecast;
	bool waiting;			/* zpool's figures for the pool are being read: ask again */
	char where[160];		/* "ZFS pool tank", "btrfs file system /srv"; "" none */
	char vdev[160];			/* the top-level vdev; "" none (btrfs: where says the mount) */
	char bytes_from[FORECAST_TEXT_MAX];	/* how the bytes to write were found */
	SlowIoResult slow_io;		/* in the pool it is in (slow_io_pool), judged from its last reading */
	const char *slow_io_pool;	/* NULL: in none */
} RebuildCheckAnswer;

/*
 * smrctl rebuild-check of d joining `target` (NULL: none named): "POOL",
 * "POOL/VDEV" (a top-level vdev such as mirror-0, or a leaf's path), or a
 * path reaching a btrfs file system. 0 and *ret; -EINVAL with *ret_error
 * for a target that names nothing smrd can read.
 */
int rebuildguard_check(RebuildGuard *g, Disk *d, const char *target, uint64_t now_real_usec, RebuildCheckAnswer *ret,
		       char **ret_error);
