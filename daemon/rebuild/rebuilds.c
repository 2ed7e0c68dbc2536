/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuilds onto watched disks (rebuilds.h). A leaf's path is a tool's
 * output: it goes to the mapper (devmap.h), which finds the disk by device
 * number; a name that is no plain file name is not looked up at all.
 */
#include "rebuilds-private.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"
#include "events.h"
#include "guard.h"
#include "log.h"
#include "rebuildstate.h"
#include "util.h"

int rebuilds_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const RebuildsCallbacks *cb, Rebuilds **ret)
{
	Rebuilds *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	*r = (Rebuilds){.disks = disks, .recorder = recorder, .map = map};
	if (cb)
		r->cb = *cb;
	rebuilds_btrfs_init(r);
	*ret = r;
	return 0;
}

Rebuilds *rebuilds_free(Rebuilds *r)
{
	if (!r)
		return NULL;
	rebuilds_btrfs_done(r);
	free(r);
	return NULL;
}

static bool zfs_member(const Disk *d)
{
	for (unsigned i = 0; i < d->n_members; i++)
		if (d->members[i].type == MEMBER_ZFS)
			return true;
	return false;
}

bool rebuilds_zfs_wanted(const Rebuilds *r)
{
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		const Disk *d = registry_at(r->disks, i);
		if (zfs_member(d) || (disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING && !rebuild_kind_btrfs(disk_rebuild(d)->kind)))
			return true;
	}
	return false;
}

/* The disk whose ZFS label names this vdev GUID (ID_FS_UUID_SUB, decimal). */
static Disk *by_guid(Rebuilds *r, uint64_t guid)
{
	char want[48];
	snprintf(want, sizeof want, "vdev %" PRIu64, guid);
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		Disk *d = registry_at(r->disks, i);
		for (unsigned j = 0; j < d->n_members; j++)
			if (d->members[j].type == MEMBER_ZFS && streq(d->members[j].detail, want))
				return d;
	}
	return NULL;
}

int rebuilds_map_leaf(Rebuilds *r, const ZpoolLeaf *leaf, Disk **ret)
{
	Disk *d = leaf->guid ? by_guid(r, leaf->guid) : NULL;
	if (d) {
		*ret = d;
		return 0;
	}
	/* zpool's own output: smrd's /dev may be asked (devmap.h) */
	if (leaf->path[0] == '/')
		return devmap_disk(r->map, leaf->path, true, ret) < 0 ? -ENXIO : 0;
	/* the text's name: zpool strips /dev/ and the /dev/disk/by-* it knows */
	if (!leaf->path[0] || strchr(leaf->path, '/') || streq(leaf->path, ".") || streq(leaf->path, ".."))
		return -ENXIO;
	static const char *const dirs[] = {"/dev/", "/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-vdev/",
					   "/dev/disk/by-uuid/", "/dev/disk/by-partuuid/"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		char p[512];
		snprintf(p, sizeof p, "%s%s", dirs[i], leaf->path);
		if (devmap_disk(r->map, p, true, ret) == 0)
			return 0;
	}
	return -ENXIO;
}

static void facts(const Disk *d, RebuildDiskFacts *ret)
{
	const DiskView *v = &d->view;
	DiskClass c = disk_class(d);
	bool no_cliff = (c == DISK_CLASS_CMR || c == DISK_CLASS_SSD) && !disk_model_known(&v->cache);
	*ret = (RebuildDiskFacts){
		.model = no_cliff ? NULL : &v->cache,
		.cache_free_bytes = v->cache_sure && isfinite(v->cache.media_cache_bytes) && isfinite(v->cache_fill)
			? v->cache.media_cache_bytes * fmax(1 - v->cache_fill, 0) : NAN,
		/* a disk with no cliff has one rate, its own, which smrd never
		 * measured: no estimate until the rebuild shows it (a guessed
		 * 3.5" rate is off by the source's pace, the interface, the
		 * file system). A cliff's fast part keeps the default: the
		 * slow part outweighs it. */
		.fast_bps = no_cliff ? NAN : REBUILD_FAST_BPS_DEFAULT, .storm = v->storm,
		.written_bytes = d->ds.primed && d->ds.n_fields > DS_WRITE_SECTORS
			? (double)d->ds.total[DS_WRITE_SECTORS] * 512 : NAN,
	};
}

void rebuilds_record_end(Rebuilds *r, Disk *d, double now)
{
	const RebuildState *s = disk_rebuild(d);
	char text[REBUILD_DONE_TEXT_MAX];
	double error = rebuild_done_text(s, d->name, text);
	EventRecord e = {.kind = EVENT_REBUILD_DONE, .disk = d, .time_usec = (uint64_t)(fmax(now, 0) * 1e6),
			 .duration = s->duration, .value = error, .latency = NAN, .message = text,
			 .bytes = isfinite(s->total_bytes) ? (int64_t)s->total_bytes : 0};
	if (r->recorder)
		(void)recorder_record(r->recorder, &e, e.time_usec, NULL);
}

void rebuilds_apply(Rebuilds *r, Disk *d, const RebuildSample *o, const char *source, const char *path, double now)
{
	RebuildDiskFacts f;
	facts(d, &f);
	RebuildState *s = disk_rebuild_mut(d);
	if (!s) {
		log_warning("%s: out of memory: its rebuild is not followed", d->name);
		return;
	}
	RebuildChange c = rebuild_state_observe(s, o, &f, now);
	if (c == REBUILD_CHANGE_STARTED)
		log_info("%s of %s onto %s seen", rebuild_kind_to_string(o->kind), o->pool, d->name);
	else if (c == REBUILD_CHANGE_ENDED)
		rebuilds_record_end(r, d, now);
	if (source && r->cb.unwarned && rebuild_state_wants_warning(s))
		r->cb.unwarned(d, source, path, r->cb.userdata);
}

void rebuilds_zpool(Rebuilds *r, const ZpoolStatus *s, double now, double utc_offset)
{
	size_t n = registry_size(r->disks);
	_cleanup_free_ bool *seen = calloc(n ? n : 1, sizeof *seen);
	if (!seen)
		return;
	for (unsigned p = 0; p < s->n_pools; p++) {
		const ZpoolScan *scan = &s->pools[p];
		for (unsigned l = 0; l < scan->n_leaves; l++) {
			Disk *d;
			RebuildSample o;
			if (rebuilds_map_leaf(r, &scan->leaves[l], &d) < 0 ||
			    rebuild_sample_from_zpool(scan, &scan->leaves[l], utc_offset, &o) < 0)
				continue;
			int32_t i = registry_index(r->disks, d);
			if (i >= 0)
				seen[i] = true;
			char source[REBUILD_POOL_MAX + 16];
			snprintf(source, sizeof source, "ZFS pool %s", scan->pool);
			rebuilds_apply(r, d, &o, source, scan->leaves[l].path, now);
		}
	}
	/* a rebuild followed whose leaf is no longer listed: its pool's scan
	 * says how it ended (finished, canceled), or it is gone with its pool */
	for (size_t i = 0; i < n; i++) {
		Disk *d = registry_at(r->disks, i);
		if (seen[i] || disk_rebuild(d)->phase != REBUILD_PHASE_RUNNING || rebuild_kind_btrfs(disk_rebuild(d)->kind))
			continue;
		const ZpoolScan *scan = zpool_status_find(s, disk_rebuild(d)->pool);
		RebuildSample o;
		if (scan && rebuild_sample_from_zpool(scan, NULL, utc_offset, &o) == 0) {
			if (o.phase == REBUILD_PHASE_RUNNING)
				continue;	/* still under way: the leaf left out of a long list */
			o.done_bytes = NAN;	/* the pool's, not the disk's */
			o.total_bytes = NAN;
			rebuilds_apply(r, d, &o, NULL, NULL, now);
		} else if (!s->pools_truncated && rebuild_state_gone(d->rebuild, now) == REBUILD_CHANGE_ENDED)
			rebuilds_record_end(r, d, now);
	}
}

