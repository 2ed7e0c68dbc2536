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
	ZfsCounter *counters;		/* as many as devices came, ZFSEVENTS_COUNTERS_MAX at most */
	size_t n_counters;
	ZfsCounter other;		/* every device past them */
};

int zfsevents_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const ZfsEventsCallbacks *cb, ZfsEvents **ret)
{
	ZfsEvents *z = calloc(1, sizeof *z);
	if (!z)
		return -ENOMEM;
	*z = (ZfsEvents){.disks = disks, .recorder = recorder, .map = map};
	snprintf(z->other.device, sizeof z->other.device, "other");
	if (cb)
		z->cb = *cb;
	*ret = z;
	return 0;
}

ZfsEvents *zfsevents_free(ZfsEvents *z)
{
	if (z) {
		free(z->counters);
		free(z);
	}
	return NULL;
}

static void count(ZfsEvents *z, const char *device, ZfsEventKind k)
{
	for (size_t i = 0; i < z->n_counters; i++)
		if (streq(z->counters[i].device, device))
			return (void)z->counters[i].n[k]++;
	/* bounded: every device past the limit (or out of memory) is "other" */
	ZfsCounter *c = z->n_counters < ZFSEVENTS_COUNTERS_MAX ? realloc(z->counters, (z->n_counters + 1) * sizeof *c)
							       : NULL;
	if (!c)
		return (void)z->other.n[k]++;
	z->counters = c;
	c = &z->counters[z->n_counters++];
	*c = (ZfsCounter){0};
	snprintf(c->device, sizeof c->device, "%s", device);
	c->n[k]++;
}

static void counts_of(const ZfsCounter *c, ZfsCountCb cb, void *userdata)
{
	for (int k = 0; k < _ZFS_EVENT_KIND_MAX; k++)
		if (c->n[k])
			cb(c->device, zfs_event_kind_to_string(k), c->n[k], userdata);
}

void zfsevents_counts(const ZfsEvents *z, ZfsCountCb cb, void *userdata)
{
	for (size_t i = 0; z && i < z->n_counters; i++)
		counts_of(&z->counters[i], cb, userdata);
	if (z)
		counts_of(&z->other, cb, userdata);
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

/* The guard on vdev_attach (rebuildguard.h, through the callback). */
static void guard(ZfsEvents *z, Disk *d, const ZfsEvent *e, uint64_t now, ZfsEventResult *res)
{
	char source[64];
	snprintf(source, sizeof source, "ZFS pool %.40s", e->pool);
	if (z->cb.attached)
		res->warned = z->cb.attached(d, source, e->vdev_path, e->pool, event_time(e, now), now, &res->check,
					     res->warning, z->cb.userdata);
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
