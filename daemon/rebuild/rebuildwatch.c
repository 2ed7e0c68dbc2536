/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watch's parts and their wiring (rebuildwatch.h): the
 * watcher's readings go to each disk's rebuild state, a rebuild seen with
 * no warning check yet goes to the guard, zed's resilver_start to the
 * watcher, every one with the wall clock read once per handler.
 */
#include "rebuildwatch.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"
#include "rebuilds.h"
#include "scanwatch.h"
#include "util.h"

struct RebuildWatch {
	const Config *cfg;
	DevMap *map;
	ZfsEvents *zfs;
	RebuildGuard *guard;
	Rebuilds *rebuilds;
	ScanWatch *scan;
};

/* Seconds local time is ahead of UTC at now (the tools' text dates). */
static double utc_offset(double now)
{
	time_t t = (time_t)now;
	struct tm tm;
	return localtime_r(&t, &tm) ? (double)tm.tm_gmtoff : 0;
}

static double wall_now(void)
{
	return (double)now_usec(CLOCK_REALTIME) / 1e6;
}

static bool on_wanted(void *userdata)
{
	RebuildWatch *w = userdata;
	return rebuilds_zfs_wanted(w->rebuilds);
}

static void on_status(const ZpoolStatus *s, void *userdata)
{
	RebuildWatch *w = userdata;
	double now = wall_now();
	rebuilds_zpool(w->rebuilds, s, now, utc_offset(now));
}

/* each interval: btrfs, read without a child */
static void on_interval(void *userdata)
{
	RebuildWatch *w = userdata;
	rebuilds_btrfs_read(w->rebuilds, wall_now());
}

/* a rebuild seen with no warning check yet (a btrfs replace, a resilver
 * whose attach came before smrd ran): the same guard as zed's attach */
static void on_unwarned(Disk *d, const char *source, const char *path, void *userdata)
{
	RebuildWatch *w = userdata;
	RebuildCheck check;
	char warning[REBUILD_TEXT_MAX];
	uint64_t now = now_usec(CLOCK_REALTIME);
	const RebuildState *s = disk_rebuild(d);
	/* what it writes is the rebuild's own total now */
	rebuildguard_warn(w->guard, d, source, path, s->kind == REBUILD_KIND_RESILVER ? s->pool : NULL, s->total_bytes,
			  now, now, &check, warning);
}

/* zed's vdev_attach: the guard, what it writes read from the pool when known */
static bool on_attached(Disk *d, const char *source, const char *path, const char *pool, uint64_t when_usec,
			uint64_t now_real_usec, RebuildCheck *check, char warning[static REBUILD_TEXT_MAX], void *userdata)
{
	RebuildWatch *w = userdata;
	return rebuildguard_warn(w->guard, d, source, path, pool, NAN, when_usec, now_real_usec, check, warning);
}

static int on_btrfs_share(const char *path, Disk *d, double *ret_bytes, char *ret_from, size_t from_len,
			  const char **ret_mount, void *userdata)
{
	RebuildWatch *w = userdata;
	return rebuilds_btrfs_share(w->rebuilds, path, d, ret_bytes, ret_from, from_len, ret_mount);
}

/* zed says a resilver or scrub began: its progress is read now, not at the next interval */
static void on_scan_started(const char *pool, void *userdata)
{
	RebuildWatch *w = userdata;
	(void)pool;
	if (w->scan)
		scanwatch_kick(w->scan);
}

int rebuildwatch_new(sd_event *e, const Config *cfg, DiskRegistry *disks, Recorder *recorder, const DiskSources *src,
		     Reaper *reaper, RebuildWatch **ret)
{
	RebuildWatch *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	w->cfg = cfg;
	ZfsEventsCallbacks zcb = {.attached = on_attached, .scan_started = on_scan_started, .userdata = w};
	RebuildsCallbacks rcb = {.unwarned = on_unwarned, .userdata = w};
	ScanWatchCallbacks scb = {.wanted = on_wanted, .status = on_status, .interval = on_interval, .userdata = w};
	int r = devmap_new(disks, src->sysfs_fd, src->udev_fd, "/dev", &w->map);
	/* the configuration's field, read at each run: a reload applies at once */
	if (r >= 0)
		r = rebuildguard_new(e, disks, recorder, w->map, reaper, &cfg->zpool_command, &w->guard);
	if (r >= 0)
		r = zfsevents_new(disks, recorder, w->map, &zcb, &w->zfs);
	if (r >= 0)
		r = rebuilds_new(disks, recorder, w->map, &rcb, &w->rebuilds);
	if (r >= 0)
		r = scanwatch_new(e, reaper, cfg->zpool_command, cfg->rebuild_interval, &scb, &w->scan);
	if (r < 0) {
		rebuildwatch_free(w);
		return r;
	}
	rebuildguard_set_btrfs_share(w->guard, on_btrfs_share, w);
	*ret = w;
	return 0;
}

RebuildWatch *rebuildwatch_free(RebuildWatch *w)
{
	if (!w)
		return NULL;
	scanwatch_free(w->scan);
	rebuilds_free(w->rebuilds);
	zfsevents_free(w->zfs);
	rebuildguard_free(w->guard);
	devmap_free(w->map);
	free(w);
	return NULL;
}

void rebuildwatch_configure(RebuildWatch *w)
{
	if (w && scanwatch_configure(w->scan, w->cfg->zpool_command, w->cfg->rebuild_interval) < 0)
		log_warning("rebuild watch: out of memory: keeping zpool-command as it was");
}

DevMap *rebuildwatch_devmap(const RebuildWatch *w)
{
	return w ? w->map : NULL;
}

ZfsEvents *rebuildwatch_zfs(const RebuildWatch *w)
{
	return w ? w->zfs : NULL;
}

RebuildGuard *rebuildwatch_guard(const RebuildWatch *w)
{
	return w ? w->guard : NULL;
}
