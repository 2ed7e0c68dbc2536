/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zed's events in smrd. The vdev path is untrusted: checked again as the
 * parser does, then mapped by devmap.h (a kernel name, a udev link, else
 * a block device under smrd's /dev: zed is root); a partition is taken to
 * its whole disk, the disk found by device number, never by name, so that
 * no link can make one disk's event another's.
 */
#include "zfsevents.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>

#include "format.h"
#include "log.h"
#include "util.h"

typedef struct ZfsCounter {
	char device[32];
	uint64_t n[_ZFS_EVENT_KIND_MAX];
} ZfsCounter;

struct ZfsEvents {
	DiskRegistry *disks;
	Recorder *recorder;
	DevMap *map;
	ZfsEventsCallbacks cb;
	ZfsCounter *counters;
	size_t n_counters;
	SlowIo *slowio;		/* NULL until zfsevents_watch_slow_io() */
};

int zfsevents_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const ZfsEventsCallbacks *cb, ZfsEvents **ret)
{
	ZfsEvents *z = calloc(1, sizeof *z);
	if (!z)
		return -ENOMEM;
	*z = (ZfsEvents){.disks = disks, .recorder = recorder, .map = map,
			 .counters = calloc(ZFSEVENTS_COUNTERS_MAX + 1, sizeof(ZfsCounter))};
	if (cb)
		z->cb = *cb;
	if (!z->counters)
		return zfsevents_free(z), -ENOMEM;
	*ret = z;
	return 0;
}

ZfsEvents *zfsevents_free(ZfsEvents *z)
{
	if (z) {
		free(z->counters);
		slowio_free(z->slowio);
		free(z);
	}
	return NULL;
}

void zfsevents_facts(const Disk *d, uint64_t now_real_usec, RebuildFacts *ret)
{
	VerdictSummary v;
	disk_summary(d, &v);
	const DiskView *w = &d->view;
	double now = (double)now_real_usec / 1e6;
	*ret = (RebuildFacts){
		.disk_class = v.class, .by_behaviour = disk_by_behaviour(d),
		.storms = w->storms_known, .storm_now = w->storm,
		.storm_seconds = w->storm && isfinite(w->storm_since) ? fmax(now - w->storm_since, 0) : NAN,
		/* qualify's figure lands in smrd.conf as disk.ID.media-cache;
		 * a cache learnt from its storms is as good */
		.qualified = (isfinite(d->tuning.media_cache) && d->tuning.media_cache > 0) || disk_model_known(&w->cache),
		.model = &w->cache, .size_bytes = (double)d->sys.size_sectors * 512, .fast_bps = NAN,
	};
}

static void count(ZfsEvents *z, const char *device, ZfsEventKind k)
{
	size_t i;
	for (i = 0; i < z->n_counters; i++)
		if (streq(z->counters[i].device, device))
			break;
	if (i == z->n_counters) {
		/* bounded: the last slot is "other" for every disk past the limit */
		if (z->n_counters == ZFSEVENTS_COUNTERS_MAX) {
			i = ZFSEVENTS_COUNTERS_MAX;
			snprintf(z->counters[i].device, sizeof z->counters[i].device, "other");
		} else
			snprintf(z->counters[z->n_counters++].device, sizeof z->counters[i].device, "%s", device);
	}
	z->counters[i].n[k]++;
}

void zfsevents_counts(const ZfsEvents *z, ZfsCountCb cb, void *userdata)
{
	for (size_t i = 0; z && i <= ZFSEVENTS_COUNTERS_MAX; i++) {
		if (i >= z->n_counters && i != ZFSEVENTS_COUNTERS_MAX)
			continue;
		for (int k = 0; k < _ZFS_EVENT_KIND_MAX; k++)
			if (z->counters[i].n[k])
				cb(z->counters[i].device, zfs_event_kind_to_string(k), z->counters[i].n[k], userdata);
	}
}

/* The history's kind for a ZFS event (docs/zfs.md). */
static DetectEventKind history_kind(ZfsEventKind k)
{
	switch (k) {
	case ZFS_EVENT_VDEV_ATTACH: case ZFS_EVENT_RESILVER_START: case ZFS_EVENT_SCRUB_START:
		return EVENT_REBUILD_START;
	case ZFS_EVENT_RESILVER_FINISH: case ZFS_EVENT_SCRUB_FINISH:
		return EVENT_REBUILD_END;
	case ZFS_EVENT_DELAY: return EVENT_ZFS_DELAY;
	case ZFS_EVENT_DEADMAN: return EVENT_ZFS_DEADMAN;
	case ZFS_EVENT_SITOUT: return EVENT_ZFS_SITOUT;
	case ZFS_EVENT_STATECHANGE: return EVENT_ZFS_STATECHANGE;
	case _ZFS_EVENT_KIND_MAX: case _ZFS_EVENT_KIND_INVALID: break;
	}
	return EVENT_REBUILD_START;
}

static bool warning_kind(const ZfsEvent *e)
{
	return e->kind == ZFS_EVENT_DELAY || e->kind == ZFS_EVENT_DEADMAN || e->kind == ZFS_EVENT_SITOUT ||
	       (e->kind == ZFS_EVENT_STATECHANGE && e->vdev_state[0] && !streq(e->vdev_state, "HEALTHY"));
}

/* ZFS's time, unless it is far from ours (a hostile or broken clock):
 * the history sorts by it. */
static uint64_t event_time(const ZfsEvent *e, uint64_t now)
{
	uint64_t t = (uint64_t)e->time_sec * 1000000 + e->time_nsec / 1000;
	return e->time_sec > 0 && t <= now + 60 * UINT64_C(1000000) && t + 86400 * UINT64_C(1000000) >= now ? t : now;
}

/* Through the one event path; -EALREADY a duplicate, nothing recorded. */
static int record(ZfsEvents *z, EventRecord *r, uint64_t now, HistoryEvent *h)
{
	return z->recorder ? recorder_record(z->recorder, r, now, h) : -ENODEV;
}

bool zfsevents_warn(ZfsEvents *z, Disk *d, const char *source, const char *path, uint64_t when_usec,
		    uint64_t now_real_usec, RebuildCheck *check, char warning[static REBUILD_TEXT_MAX])
{
	RebuildFacts f;
	VerdictSummary v;
	zfsevents_facts(d, now_real_usec, &f);
	disk_summary(d, &v);
	f.basis = v.basis;
	rebuild_check(&f, check);
	if (!check->warn)
		return false;
	char t[FORMAT_MAX], sz[FORMAT_MAX];
	/* the figures first: a long path or evidence is what gets cut */
	int k = snprintf(warning, REBUILD_TEXT_MAX, "%.80s is rebuilding onto %s (serial %.40s, %.80s), expected %s for %s: %s",
			 source, d->name, d->sys.serial[0] ? d->sys.serial : "unknown", path,
			 isfinite(check->expected_seconds) ? format_duration(t, check->expected_seconds)
							   : "unknown (no cliff figures yet)",
			 format_size(sz, f.size_bytes), check->evidence);
	if (k >= REBUILD_TEXT_MAX)
		log_debug("%s: the rebuild warning was cut to %d bytes", d->name, REBUILD_TEXT_MAX - 1);
	/* a resilver followed (the watcher's): is zed set to degrade d for slow I/O? */
	const RebuildState *rs = disk_rebuild(d);
	if (rs->phase == REBUILD_PHASE_RUNNING && rs->kind == REBUILD_KIND_RESILVER)
		(void)slowio_check(z->slowio, d, rs->pool, (double)now_real_usec / 1e6);
	/* one per rebuild: the watcher may have seen the resilver before zed's attach came */
	if (rs->phase == REBUILD_PHASE_RUNNING && !rebuild_state_wants_warning(rs))
		return true;
	EventRecord r = {.kind = EVENT_REBUILD_WARNING, .disk = d, .time_usec = when_usec, .severity = "warning",
			 .once_per_rebuild = true, .count = 1, .duration = check->expected_seconds, .latency = NAN,
			 .value = (double)check->risk, .bytes = (int64_t)f.size_bytes, .message = warning};
	/* -EALREADY: this rebuild's warning is in the history (a restart, zed's replay) */
	(void)record(z, &r, now_real_usec, NULL);
	RebuildState *s = disk_rebuild_mut(d);
	if (s)
		rebuild_state_warned(s, (double)now_real_usec / 1e6);
	return true;
}

/* The guard on vdev_attach: the warning, if the disk takes a rebuild
 * slowly; then whether zed may degrade it (read in the background). */
static void guard(ZfsEvents *z, Disk *d, const ZfsEvent *e, uint64_t now, ZfsEventResult *res)
{
	char source[64];
	snprintf(source, sizeof source, "ZFS pool %.40s", e->pool);
	res->warned = zfsevents_warn(z, d, source, e->vdev_path, event_time(e, now), now, &res->check, res->warning);
	if (res->warned)
		(void)slowio_check(z->slowio, d, e->pool, (double)now / 1e6);
}

int zfsevents_handle(ZfsEvents *z, const ZfsEvent *e, uint64_t now_real_usec, ZfsEventResult *ret,
		     char **ret_error)
{
	ZfsEventResult res = {.check.expected_seconds = NAN};
	Disk *d = NULL;
	if (e->vdev_path[0]) {
		/* zed runs as root, and only root may send: smrd's /dev may be asked */
		int r = devmap_disk(z->map, e->vdev_path, true, &d);
		if (r < 0)
			return set_errorf(ret_error, -ENXIO, "vdev %s %s: event %" PRIu64 " not recorded", e->vdev_path,
					  devmap_strerror(r), e->eid);
	}
	double storm = d && d->view.storm && isfinite(d->view.storm_since)
		? fmax((double)now_real_usec / 1e6 - d->view.storm_since, 0) : NAN;
	char text[REBUILD_TEXT_MAX];
	zfs_event_text(e, d ? d->name : NULL, d ? disk_class_to_string(disk_class(d)) : NULL, storm, text);
	EventRecord rec = {.kind = history_kind(e->kind), .disk = d, .time_usec = event_time(e, now_real_usec),
			   .severity = warning_kind(e) ? "warning" : NULL, .count = 1,
			   .latency = e->has_zio_delay ? (double)e->zio_delay_ns / 1e9 : NAN, .duration = storm,
			   .value = (double)e->eid, .message = text, .has_eid = true, .eid = e->eid,
			   .eid_time_usec = (uint64_t)e->time_sec * 1000000 + e->time_nsec / 1000};
	HistoryEvent h = {0};
	snprintf(res.device, sizeof res.device, "%s", d ? d->name : "");
	if (record(z, &rec, now_real_usec, &h) == -EALREADY) {
		/* zed replays its queue (zed_event_seek()): recorded once */
		res.duplicate = true;
		snprintf(res.message, sizeof res.message, "event %" PRIu64 " was recorded before: not again", e->eid);
		*ret = res;
		return 0;
	}
	count(z, d ? d->name : "", e->kind);
	snprintf(res.message, sizeof res.message, "%s", h.message[0] ? h.message : text);
	res.event_id = h.id;
	if (d && e->kind == ZFS_EVENT_VDEV_ATTACH)
		guard(z, d, e, now_real_usec, &res);
	if ((e->kind == ZFS_EVENT_VDEV_ATTACH || e->kind == ZFS_EVENT_RESILVER_START || e->kind == ZFS_EVENT_SCRUB_START) &&
	    z->cb.scan_started)
		z->cb.scan_started(e->pool, z->cb.userdata);
	*ret = res;
	return 0;
}

/* slowio's findings: a second rebuild-warning, right after the guard's */
static void slow_io_found(Disk *d, const SlowIoResult *r, void *userdata)
{
	ZfsEvents *z = userdata;
	uint64_t now = now_usec(CLOCK_REALTIME);
	EventRecord rec = {.kind = EVENT_REBUILD_WARNING, .disk = d, .time_usec = now, .severity = "warning", .count = 1,
			   .duration = NAN, .latency = NAN, .value = NAN, .message = r->text};
	(void)record(z, &rec, now, NULL);
}

static int slow_io_map(const char *path, Disk **ret, void *userdata)
{
	ZfsEvents *z = userdata;
	return devmap_disk(z->map, path, true, ret);
}

int zfsevents_watch_slow_io(ZfsEvents *z, sd_event *e, Reaper *reaper, char *const *zpool)
{
	SlowIoCallbacks cb = {.map = slow_io_map, .found = slow_io_found, .userdata = z};
	z->slowio = slowio_free(z->slowio);
	return slowio_new(e, reaper, zpool, &cb, &z->slowio);
}

const char *zfsevents_slow_io(ZfsEvents *z, Disk *d, const SlowIoResult **ret)
{
	const RebuildState *rs = disk_rebuild(d);
	const char *pool = NULL;
	if (rs->phase == REBUILD_PHASE_RUNNING && rs->kind == REBUILD_KIND_RESILVER)
		pool = rs->pool;
	for (unsigned i = 0; !pool && i < d->n_members; i++)
		if (d->members[i].type == MEMBER_ZFS)
			pool = d->members[i].name;
	*ret = NULL;
	/* a label that is the pool's GUID (no name) names nothing zpool takes */
	if (!pool || !z || !z->slowio ||
	    slowio_check(z->slowio, d, pool, (double)now_usec(CLOCK_REALTIME) / 1e6) == -EINVAL)
		return NULL;
	*ret = slowio_result(z->slowio, d);
	return pool;
}
