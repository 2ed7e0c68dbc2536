/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuilds onto watched disks (rebuilds.h). A leaf's path is a tool's
 * output: it goes to the mapper (devmap.h), which finds the disk by device
 * number; a name that is no plain file name is not looked up at all.
 */
#include "rebuilds.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/sysmacros.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
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

#define JOINED_MAX 32

typedef struct Member {
	char uuid[40];
	dev_t dev;
} Member;

typedef struct DiskWritten {
	unsigned major, minor;
	double bytes;
} DiskWritten;

struct Rebuilds {
	DiskRegistry *disks;
	Recorder *recorder;
	DevMap *map;
	RebuildsCallbacks cb;
	const char *sys_root, *mountinfo;
	BtrfsFs fs[BTRFSFS_MAX];	/* as last read */
	unsigned n_fs;
	/* the last scan's devices of each file system, and the watched ones
	 * seen joining one since (btrfs device add), until a balance onto
	 * them is followed */
	Member members[BTRFSFS_MAX * BTRFSFS_DEVS_MAX];
	unsigned n_members;
	bool scanned;
	Member joined[JOINED_MAX];
	unsigned n_joined;
	/* each watched disk's write counter at the last interval's scan and
	 * the one before (read from sysfs, a replace's first reading takes
	 * what its target wrote since the one before as its head start) */
	DiskWritten *written, *written_before;
	size_t n_written, n_written_before;
	bool sysfs;		/* no CAP_SYS_ADMIN: btrfs read from sysfs, not its tools */
};

int rebuilds_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const RebuildsCallbacks *cb, Rebuilds **ret)
{
	Rebuilds *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	*r = (Rebuilds){.disks = disks, .recorder = recorder, .map = map, .sys_root = "/sys", .mountinfo = "/proc/self/mountinfo"};
	if (cb)
		r->cb = *cb;
	if (!rebuilds_btrfs_privileged()) {
		r->sysfs = true;
		log_info("rebuild watch: no CAP_SYS_ADMIN, btrfs replace and balance followed from /sys/fs/btrfs "
			 "(docs/zfs.md: no tool progress, the target's own writes)");
	}
	*ret = r;
	return 0;
}

void rebuilds_set_btrfs_sysfs(Rebuilds *r, bool sysfs)
{
	r->sysfs = sysfs;
}

void rebuilds_set_roots(Rebuilds *r, const char *sys_root, const char *mountinfo)
{
	r->sys_root = sys_root;
	r->mountinfo = mountinfo;
}

Rebuilds *rebuilds_free(Rebuilds *r)
{
	if (!r)
		return NULL;
	free(r->written);
	free(r->written_before);
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

/* at its end (now), through the one event path */
static void record_end(Rebuilds *r, Disk *d, double now)
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

/* source: what rebuilds, for the warning (NULL: not a start's reading) */
static void apply(Rebuilds *r, Disk *d, const RebuildSample *o, const char *source, const char *path, double now)
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
		record_end(r, d, now);
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
			apply(r, d, &o, source, scan->leaves[l].path, now);
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
			apply(r, d, &o, NULL, NULL, now);
		} else if (!s->pools_truncated && rebuild_state_gone(d->rebuild, now) == REBUILD_CHANGE_ENDED)
			record_end(r, d, now);
	}
}

/* ------------------------------------------------------------- btrfs */

/* The watched disk dev is, or whose partition it is. */
static Disk *disk_of(Rebuilds *r, dev_t dev)
{
	return devmap_disk_of(r->map, dev);
}

static bool btrfs_member(const Disk *d)
{
	for (unsigned i = 0; i < d->n_members; i++)
		if (d->members[i].type == MEMBER_BTRFS)
			return true;
	return false;
}

static bool following_kind(const Disk *d, const char *mount, RebuildKind kind)
{
	return disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING && disk_rebuild(d)->kind == kind &&
	       streq(disk_rebuild(d)->pool, mount);
}

static bool following(const Disk *d, const char *mount)
{
	return following_kind(d, mount, REBUILD_KIND_BTRFS_REPLACE);
}

static int member_at(const Member *m, unsigned n, const char *uuid, dev_t dev)
{
	for (unsigned i = 0; i < n; i++)
		if (m[i].dev == dev && streq(m[i].uuid, uuid))
			return (int)i;
	return -1;
}

static bool fs_known(const Rebuilds *r, const char *uuid)
{
	for (unsigned i = 0; i < r->n_members; i++)
		if (streq(r->members[i].uuid, uuid))
			return true;
	return false;
}

static void drop_joined(Rebuilds *r, int i)
{
	if (i < 0 || (unsigned)i >= r->n_joined)
		return;
	memmove(&r->joined[i], &r->joined[i + 1], (r->n_joined - (unsigned)i - 1) * sizeof r->joined[0]);
	r->n_joined--;
}

/* A watched device new in a file system the last scan knew: it joined. */
static void note_joins(Rebuilds *r)
{
	_cleanup_free_ Member *now = calloc(BTRFSFS_MAX * BTRFSFS_DEVS_MAX, sizeof *now);
	if (!now)
		return;
	unsigned n = 0;
	for (unsigned i = 0; i < r->n_fs; i++)
		for (unsigned j = 0; j < r->fs[i].n_devs && n < BTRFSFS_MAX * BTRFSFS_DEVS_MAX; j++) {
			Member m = {.dev = r->fs[i].devs[j]};
			memcpy(m.uuid, r->fs[i].uuid, sizeof m.uuid);
			now[n++] = m;
			if (!r->scanned || !fs_known(r, m.uuid) || member_at(r->members, r->n_members, m.uuid, m.dev) >= 0 ||
			    member_at(r->joined, r->n_joined, m.uuid, m.dev) >= 0 || !disk_of(r, m.dev))
				continue;
			if (r->n_joined == JOINED_MAX)
				drop_joined(r, 0);	/* the oldest */
			r->joined[r->n_joined++] = m;
		}
	memcpy(r->members, now, n * sizeof *now);
	r->n_members = n;
	r->scanned = true;
}

static double disk_written(const Disk *d)
{
	return d->ds.primed && d->ds.n_fields > DS_WRITE_SECTORS ? (double)d->ds.total[DS_WRITE_SECTORS] * 512 : NAN;
}

/* Each watched disk's write counter now, the last one kept as the one before. */
static void note_written(Rebuilds *r)
{
	size_t n = registry_size(r->disks);
	DiskWritten *w = calloc(n ? n : 1, sizeof *w);
	if (!w)
		return;		/* the last kept: a head start too large at worst, bounded by the total */
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(r->disks, i);
		w[i] = (DiskWritten){.major = d->sys.major, .minor = d->sys.minor, .bytes = disk_written(d)};
	}
	free(r->written_before);
	r->written_before = r->written, r->n_written_before = r->n_written;
	r->written = w, r->n_written = n;
}

/* What d wrote since the scan before the last one: 0 unknown (not watched then) */
static double written_since_before(const Rebuilds *r, const Disk *d)
{
	for (size_t i = 0; i < r->n_written_before; i++) {
		const DiskWritten *w = &r->written_before[i];
		if (w->major == d->sys.major && w->minor == d->sys.minor) {
			double now = disk_written(d);
			return isfinite(now) && isfinite(w->bytes) && now >= w->bytes ? now - w->bytes : 0;
		}
	}
	return 0;
}

unsigned rebuilds_btrfs_mounts(Rebuilds *r, char *ret, size_t mount_len, unsigned max, double now)
{
	if (btrfsfs_scan(r->sys_root, r->mountinfo, r->fs, &r->n_fs) < 0)
		r->n_fs = 0;
	note_joins(r);
	note_written(r);
	unsigned n = 0;
	for (unsigned i = 0; i < r->n_fs && n < max; i++) {
		const BtrfsFs *fs = &r->fs[i];
		bool watched = false;
		for (unsigned j = 0; j < fs->n_devs && !watched; j++)
			watched = disk_of(r, fs->devs[j]) != NULL;
		if (watched && fs->mount[0] && strlen(fs->mount) < mount_len)
			snprintf(ret + (size_t)n++ * mount_len, mount_len, "%s", fs->mount);
	}
	/* a replace followed on a file system no longer mounted: over, unseen */
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		Disk *d = registry_at(r->disks, i);
		bool there = false;
		for (unsigned j = 0; j < n && !there; j++)
			there = streq(disk_rebuild(d)->pool, ret + (size_t)j * mount_len);
		if (!there && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING && rebuild_kind_btrfs(disk_rebuild(d)->kind) &&
		    rebuild_state_gone(d->rebuild, now) == REBUILD_CHANGE_ENDED)
			record_end(r, d, now);
	}
	if (!r->sysfs)
		return n;
	/* the tools' status would be refused: sysfs is read here, none is run */
	for (unsigned i = 0; i < n; i++)
		rebuilds_btrfs_sysfs(r, ret + (size_t)i * mount_len, now);
	return 0;
}

/* The disk the replace writes onto: the one followed, else the one watched
 * device of the file system with no btrfs signature; none when unsure. */
static Disk *btrfs_target(Rebuilds *r, const BtrfsFs *fs, const char *mount)
{
	Disk *found = NULL;
	unsigned n = 0;
	for (unsigned j = 0; j < fs->n_devs; j++) {
		Disk *d = disk_of(r, fs->devs[j]);
		if (d && following(d, mount))
			return d;
		if (d && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING)
			continue;	/* another rebuild onto it (a balance) is followed */
		if (d && !btrfs_member(d) && d != found)
			found = d, n++;
	}
	return n == 1 ? found : NULL;
}

static const BtrfsFs *fs_at(const Rebuilds *r, const char *mount)
{
	for (unsigned i = 0; i < r->n_fs; i++)
		if (streq(r->fs[i].mount, mount))
			return &r->fs[i];
	return NULL;
}

static void replace_reading(Rebuilds *r, const BtrfsFs *fs, Disk *d, const char *mount, const BtrfsReplaceStatus *b,
			    double now, double utc_offset);

void rebuilds_btrfs(Rebuilds *r, const char *mount, const BtrfsReplaceStatus *b, double now, double utc_offset)
{
	const BtrfsFs *fs = fs_at(r, mount);
	Disk *d = fs ? btrfs_target(r, fs, mount) : NULL;
	if (d)
		replace_reading(r, fs, d, mount, b, now, utc_offset);
}

static void replace_reading(Rebuilds *r, const BtrfsFs *fs, Disk *d, const char *mount, const BtrfsReplaceStatus *b,
			    double now, double utc_offset)
{
	/* the source's chunks are what the replace copies: the file system's
	 * on-disk bytes shared among its devices but the target (raid1: one copy each) */
	double total = fs->n_devs > 1 && isfinite(fs->disk_used) ? fs->disk_used / (fs->n_devs - 1) : NAN;
	if (following(d, mount) && isfinite(disk_rebuild(d)->total_bytes))
		total = disk_rebuild(d)->total_bytes;	/* fixed at the start: the copy adds to disk_used */
	RebuildSample o;
	if (rebuild_sample_from_btrfs(b, mount, total, now, utc_offset, &o) < 0)
		return;
	char source[REBUILD_POOL_MAX + 32], path[sizeof d->name + 8];
	snprintf(source, sizeof source, "btrfs file system %s", mount);
	snprintf(path, sizeof path, "/dev/%s", d->name);
	apply(r, d, &o, source, path, now);
}

/* d's line in show: its path (a tool's output) mapped like a vdev's; -1 none */
static int show_index(Rebuilds *r, const BtrfsShow *show, const Disk *d)
{
	for (unsigned k = 0; k < show->n_devs; k++) {
		Disk *m;
		if (startswith(show->devs[k].path, "/dev/") && devmap_disk(r->map, show->devs[k].path, true, &m) == 0 && m == d)
			return (int)k;
	}
	return -1;
}

/* What the balance leaves on d (total) and has left (done), from show; false
 * when d is not followed, did not join the file system since the last
 * balance onto it, and is not filling (a balance that keeps it as it is) */
static bool balance_figures(Rebuilds *r, const BtrfsFs *fs, const BtrfsBalanceStatus *b, const BtrfsShow *show,
			    const Disk *d, bool followed, bool joined, double *total, double *done, bool *filled)
{
	*total = *done = NAN;
	*filled = false;
	int k = show ? show_index(r, show, d) : -1;
	BtrfsFsFigures f = {.data_profile = fs->data_profile, .data_total = fs->data_total,
			    .data_disk_total = fs->data_disk_total, .disk_used = fs->disk_used};
	BtrfsLanding l;
	if (k < 0 || btrfs_balance_landing(b, show, (unsigned)k, &f, &l) < 0)
		return followed;
	*filled = !l.receives;
	/* Which disks it fills is judged from the layout before it moved much
	 * (a tenth of its chunks at most: mid-way, the chunks taken off a
	 * disk and not yet put back make any look short), or from the disk's
	 * joining, which also covers a small file system's first chunks,
	 * larger than a disk's share. Read from sysfs, with no chunk counts,
	 * only the joining (or its following) says. */
	bool early = !b->uncounted && b->completed * 10 <= b->expected;
	if (!followed && !joined && !(l.receives && early))
		return false;
	/* fixed at the start, as a replace's: the chunks it frees change the spread */
	*total = followed && isfinite(disk_rebuild(d)->total_bytes) ? disk_rebuild(d)->total_bytes : l.total;
	*done = isfinite(*total) ? fmin(l.done, *total) : l.done;
	return true;
}

void rebuilds_btrfs_balance(Rebuilds *r, const char *mount, const BtrfsBalanceStatus *b, const BtrfsShow *show,
			    double now)
{
	const BtrfsFs *fs = fs_at(r, mount);
	if (!fs)
		return;
	Disk *done_with[BTRFSFS_DEVS_MAX];
	unsigned n_done = 0;
	for (unsigned j = 0; j < fs->n_devs; j++) {
		Disk *d = disk_of(r, fs->devs[j]);
		bool again = false;
		for (unsigned i = 0; i < n_done && !again; i++)
			again = done_with[i] == d;
		if (!d || again)
			continue;	/* two partitions of one disk: one reading */
		done_with[n_done++] = d;
		bool followed = following_kind(d, mount, REBUILD_KIND_BTRFS_BALANCE);
		if (!followed && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING)
			continue;	/* another rebuild onto it (a replace) is followed */
		double total = NAN, done = NAN;
		bool filled = false;
		int joined = followed ? -1 : member_at(r->joined, r->n_joined, fs->uuid, fs->devs[j]);
		RebuildSample o;
		/* at its end (none), show is read while one is followed: whether it filled the disk */
		if ((!balance_figures(r, fs, b, show, d, followed, joined >= 0, &total, &done, &filled) &&
		     b->state != BTRFS_BALANCE_NONE) ||
		    rebuild_sample_from_balance(b, mount, total, done, filled, disk_rebuild(d), &o) < 0)
			continue;
		drop_joined(r, joined);	/* this balance is the one its joining called for */
		char source[REBUILD_POOL_MAX + 32], path[sizeof d->name + 8];
		snprintf(source, sizeof source, "btrfs file system %s", mount);
		snprintf(path, sizeof path, "/dev/%s", d->name);
		apply(r, d, &o, source, path, now);
	}
}

/* The disk a replace of mount is followed onto, wherever it is now */
static Disk *replace_followed(Rebuilds *r, const char *mount)
{
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		Disk *d = registry_at(r->disks, i);
		if (following(d, mount))
			return d;
	}
	return NULL;
}

void rebuilds_btrfs_sysfs(Rebuilds *r, const char *mount, double now)
{
	const BtrfsFs *fs = fs_at(r, mount);
	if (!fs)
		return;
	Disk *d = replace_followed(r, mount);
	bool member = false;
	for (unsigned j = 0; d && j < fs->n_devs && !member; j++)
		member = disk_of(r, fs->devs[j]) == d;
	BtrfsReplaceStatus rs;
	btrfs_replace_from_sysfs(fs->exclop, fs->replace_target, d != NULL, member, &rs);
	if (!d && (d = btrfs_target(r, fs, mount)) && rs.state == BTRFS_REPLACE_STARTED) {
		/* its first reading: what the target wrote since the interval
		 * before this one, when no replace ran, is the copy's (a target
		 * is a disk nothing else writes to), as a share of the total */
		double total = fs->n_devs > 1 && isfinite(fs->disk_used) ? fs->disk_used / (fs->n_devs - 1) : NAN;
		if (isfinite(total) && total > 0)
			rs.progress = fmin(written_since_before(r, d) / total, 1.0);
	}
	if (d)
		replace_reading(r, fs, d, mount, &rs, now, 0);
	BtrfsBalanceStatus bs;
	if (btrfs_balance_from_sysfs(fs->exclop, &bs) < 0)
		return;		/* no exclusive_operation: a balance cannot be told */
	bool followed = false;
	for (size_t i = 0; i < registry_size(r->disks) && !followed; i++)
		followed = following_kind(registry_at(r->disks, i), mount, REBUILD_KIND_BTRFS_BALANCE);
	_cleanup_free_ BtrfsShow *show = NULL;
	if (bs.state != BTRFS_BALANCE_NONE || followed) {
		show = calloc(1, sizeof *show);
		int e = show ? btrfsfs_show(mount, show) : -ENOMEM;
		if (e < 0) {
			log_debug("btrfs devices of %s: %s", mount, strerror(-e));
			free(show);
			show = NULL;
		}
	}
	rebuilds_btrfs_balance(r, mount, &bs, show, now);
}

bool rebuilds_btrfs_privileged(void)
{
	/* the replace-status and balance-progress ioctls ask for CAP_SYS_ADMIN */
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3] = {0};
	if (syscall(SYS_capget, &h, c) < 0)
		return true;	/* unknown: the tools say */
	return c[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32));
}
