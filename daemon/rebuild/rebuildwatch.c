/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watch's parts and their wiring (rebuildwatch.h): the
 * watcher's readings go to each disk's rebuild state, a rebuild seen with
 * no warning check yet goes to the guard, zed's resilver_start to the
 * watcher, every one with the wall clock read once per handler.
 */
#include "rebuildwatch.h"

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
	zfsevents_warn(w->zfs, d, source, path, now, now, &check, warning);
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
	ZfsEventsCallbacks zcb = {.scan_started = on_scan_started, .userdata = w};
	RebuildsCallbacks rcb = {.unwarned = on_unwarned, .userdata = w};
	ScanWatchCallbacks scb = {.wanted = on_wanted, .status = on_status, .interval = on_interval, .userdata = w};
	int r = devmap_new(disks, src->sysfs_fd, src->udev_fd, "/dev", &w->map);
	if (r >= 0)
		r = zfsevents_new(disks, recorder, w->map, &zcb, &w->zfs);
	/* the configuration's field, read at each run: a reload applies at once */
	if (r >= 0)
		r = zfsevents_watch_slow_io(w->zfs, e, reaper, &cfg->zpool_command);
	if (r >= 0)
		r = rebuilds_new(disks, recorder, w->map, &rcb, &w->rebuilds);
	if (r >= 0)
		r = scanwatch_new(e, reaper, cfg->zpool_command, cfg->rebuild_interval, &scb, &w->scan);
	if (r < 0) {
		rebuildwatch_free(w);
		return r;
	}
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
