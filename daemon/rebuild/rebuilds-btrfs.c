/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrfs rebuilds onto watched disks (rebuilds.h): a replace, a balance, a
 * device remove, read every interval from sysfs and the file system's
 * ioctls. The bytes a balance or a remove has written onto a disk are the
 * disk's own write counter since it began (what btrfs has allocated there
 * runs ahead of what reached the platters by the dirty data in between),
 * against what the move writes there (btrfs's allocator replayed from each
 * device's size and chunks, DEV_INFO, and each chunk type's figures as the
 * scan before the move found them: btrfsbalance.h); a replace's, the
 * kernel's per-mille progress (or, without CAP_SYS_ADMIN, the target's
 * counter) against the bytes the source holds.
 */
#include "rebuilds-private.h"

#include <linux/capability.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "format.h"
#include "log.h"
#include "util.h"

static int default_reach(const char *path, const char *uuid, void *userdata)
{
	return btrfsfs_reaches(path, uuid, userdata);
}

static int default_show(const char *mount, BtrfsShow *ret, void *userdata)
{
	(void)userdata;
	return btrfsfs_show(mount, ret);
}

static int default_replace(const char *mount, BtrfsReplaceStatus *ret, void *userdata)
{
	(void)userdata;
	return btrfsfs_replace_status(mount, ret);
}

static int default_balance(const char *mount, BtrfsBalanceStatus *ret, void *userdata)
{
	(void)userdata;
	return btrfsfs_balance_status(mount, ret);
}

void rebuilds_btrfs_init(Rebuilds *r)
{
	r->sys_root = "/sys";
	r->mountinfo = "/proc/self/mountinfo";
	r->ops = (RebuildsBtrfsOps){.reach = default_reach, .show = default_show, .replace_status = default_replace,
				    .balance_status = default_balance};
	if (!rebuilds_btrfs_privileged()) {
		r->sysfs = true;
		log_info("rebuild watch: no CAP_SYS_ADMIN, btrfs replace and balance followed from /sys/fs/btrfs "
			 "(docs/zfs.md: no progress of their own, the target's own writes)");
	}
}

void rebuilds_btrfs_done(Rebuilds *r)
{
	btrfsfs_list_done(&r->fs);
	free(r->members);
	free(r->written);
	free(r->written_before);
	free(r->removes);
	for (unsigned i = 0; i < r->n_quiet; i++)
		free(r->quiet[i].show);
	free(r->quiet);
}

void rebuilds_set_roots(Rebuilds *r, const char *sys_root, const char *mountinfo)
{
	r->sys_root = sys_root;
	r->mountinfo = mountinfo;
}

void rebuilds_set_btrfs_ops(Rebuilds *r, const RebuildsBtrfsOps *ops)
{
	r->ops = *ops;
}

void rebuilds_set_btrfs_sysfs(Rebuilds *r, bool sysfs)
{
	r->sysfs = sysfs;
}

bool rebuilds_btrfs_privileged(void)
{
	/* the replace-status and balance-progress ioctls ask for CAP_SYS_ADMIN */
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3] = {0};
	if (syscall(SYS_capget, &h, c) < 0)
		return true;	/* unknown: the kernel says */
	return c[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32));
}

/* ------------------------------------------------------------ lookups */

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
	const RebuildState *s = disk_rebuild(d);
	return s->phase == REBUILD_PHASE_RUNNING && s->kind == kind && streq(s->pool, mount);
}

/* The disk a rebuild of this kind on mount is followed onto; NULL none. */
static Disk *followed_onto(Rebuilds *r, const char *mount, RebuildKind kind)
{
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		Disk *d = registry_at(r->disks, i);
		if (following_kind(d, mount, kind))
			return d;
	}
	return NULL;
}

static bool fs_watched(Rebuilds *r, const BtrfsFs *fs)
{
	for (unsigned j = 0; j < fs->n_devs; j++)
		if (disk_of(r, fs->devs[j].dev))
			return true;
	return false;
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
	unsigned total = 0;
	for (unsigned i = 0; i < r->fs.n; i++)
		total += r->fs.fs[i].n_devs;
	Member *now = calloc(total ? total : 1, sizeof *now);
	if (!now)
		return;
	unsigned n = 0;
	for (unsigned i = 0; i < r->fs.n; i++)
		for (unsigned j = 0; j < r->fs.fs[i].n_devs; j++) {
			Member m = {.dev = r->fs.fs[i].devs[j].dev};
			memcpy(m.uuid, r->fs.fs[i].uuid, sizeof m.uuid);
			now[n++] = m;
			if (!r->scanned || !fs_known(r, m.uuid) || member_at(r->members, r->n_members, m.uuid, m.dev) >= 0 ||
			    member_at(r->joined, r->n_joined, m.uuid, m.dev) >= 0 || !disk_of(r, m.dev))
				continue;
			if (r->n_joined == JOINED_MAX)
				drop_joined(r, 0);	/* the oldest */
			r->joined[r->n_joined++] = m;
		}
	free(r->members);
	r->members = now;
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

/* What d wrote since the scan before the last one: a rebuild's first
 * reading counts it as the rebuild's (0 unknown: not watched then) */
static double head_start(const Rebuilds *r, const Disk *d, double total)
{
	for (size_t i = 0; i < r->n_written_before; i++) {
		const DiskWritten *w = &r->written_before[i];
		if (w->major == d->sys.major && w->minor == d->sys.minor) {
			double now = disk_written(d);
			double got = isfinite(now) && isfinite(w->bytes) && now >= w->bytes ? now - w->bytes : 0;
			return isfinite(total) ? fmin(got, total) : got;
		}
	}
	return 0;
}

/* d's line in show: its path (the kernel's) mapped like a vdev's; -1 none */
static int show_index(Rebuilds *r, const BtrfsShow *show, const Disk *d)
{
	for (unsigned k = 0; k < show->n_devs; k++) {
		Disk *m;
		if (startswith(show->devs[k].path, "/dev/") && devmap_disk(r->map, show->devs[k].path, true, &m) == 0 && m == d)
			return (int)k;
	}
	return -1;
}

static void apply_btrfs(Rebuilds *r, Disk *d, const RebuildSample *o, const char *mount, double now)
{
	char source[REBUILD_POOL_MAX + 32], path[sizeof d->name + 8];
	snprintf(source, sizeof source, "btrfs file system %s", mount);
	snprintf(path, sizeof path, "/dev/%s", d->name);
	rebuilds_apply(r, d, o, source, path, now);
}

/* The kernel refused a status to this process: sysfs from now on. */
static void unprivileged(Rebuilds *r)
{
	if (!r->sysfs)
		log_info("rebuild watch: btrfs refuses this process its replace and balance status: followed from "
			 "/sys/fs/btrfs from now on");
	r->sysfs = true;
}

/* ------------------------------------------------------------ replace */

/* The disk the replace writes onto: the one followed, else the one watched
 * device of the file system with no btrfs signature; none when unsure. */
static Disk *btrfs_target(Rebuilds *r, const BtrfsFs *fs)
{
	Disk *found = NULL;
	unsigned n = 0;
	for (unsigned j = 0; j < fs->n_devs; j++) {
		Disk *d = disk_of(r, fs->devs[j].dev);
		if (d && following_kind(d, fs->mount, REBUILD_KIND_BTRFS_REPLACE))
			return d;
		if (d && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING)
			continue;	/* another rebuild onto it (a balance) is followed */
		if (d && !btrfs_member(d) && d != found)
			found = d, n++;
	}
	return n == 1 ? found : NULL;
}

static void replace_reading(Rebuilds *r, const BtrfsFs *fs, double now)
{
	Disk *d = followed_onto(r, fs->mount, REBUILD_KIND_BTRFS_REPLACE);
	/* the source's chunks are what the replace copies: the file system's
	 * on-disk bytes shared among its devices but the target (raid1: one copy each) */
	double total = fs->n_devs > 1 && isfinite(fs->disk_used) ? fs->disk_used / (fs->n_devs - 1) : NAN;
	if (d && isfinite(disk_rebuild(d)->total_bytes))
		total = disk_rebuild(d)->total_bytes;	/* fixed at the start: the copy adds to disk_used */
	BtrfsReplaceStatus b;
	int e = r->sysfs ? -EPERM : r->ops.replace_status(fs->mount, &b, r->ops.userdata);
	if (e == -EPERM && !r->sysfs)
		unprivileged(r);
	if (e < 0) {
		bool member = false;
		for (unsigned j = 0; d && j < fs->n_devs && !member; j++)
			member = disk_of(r, fs->devs[j].dev) == d;
		btrfs_replace_from_sysfs(fs->exclop, fs->replace_target, d != NULL, member, &b);
	}
	if (!d) {
		d = btrfs_target(r, fs);
		/* its first reading without the kernel's progress: what the
		 * target wrote since the interval before is the copy's (a target
		 * is a disk nothing else writes to), as a share of the total */
		if (d && e < 0 && b.state == BTRFS_REPLACE_STARTED && isfinite(total) && total > 0)
			b.progress = head_start(r, d, total) / total;
	}
	RebuildSample o;
	if (d && rebuild_sample_from_btrfs(&b, fs->mount, total, now, &o) == 0)
		apply_btrfs(r, d, &o, fs->mount, now);
}

/* ------------------------------------------------------ balance, remove */

/* What a move writes onto each device of show (NULL: unknown). */
typedef struct Landings {
	const BtrfsShow *show;
	BtrfsLanding l[BTRFS_SHOW_DEVS_MAX];
	bool known;
} Landings;

static void landings_of(const BtrfsBalanceStatus *b, const BtrfsShow *show, const BtrfsFsFigures *f, Landings *ret)
{
	ret->show = show;
	ret->known = show && btrfs_balance_landing(b, show, f, ret->l) == 0;
}

static const BtrfsLanding *landing_of(Rebuilds *r, const Landings *ls, const Disk *d)
{
	int k = ls->known ? show_index(r, ls->show, d) : -1;
	return k >= 0 ? &ls->l[k] : NULL;
}

/* What the balance leaves on d in all (total), and whether d holds its
 * share (filled), from ls; false when d is not followed, did not join
 * the file system since the last balance onto it, and is not filling (a
 * balance that keeps it as it is). */
static bool balance_figures(Rebuilds *r, const BtrfsBalanceStatus *b, const Landings *ls, const Disk *d,
			    bool followed, bool joined, double *total, bool *filled)
{
	*total = NAN;
	*filled = false;
	const BtrfsLanding *l = landing_of(r, ls, d);
	if (!l)
		return followed;
	*filled = !l->receives;
	/* Which disks it fills is judged from the layout before it moved much
	 * (a tenth of its chunks at most: mid-way, the chunks taken off a
	 * disk and not yet put back make any look short), or from the disk's
	 * joining, which also covers a small file system's first chunks,
	 * larger than a disk's share. Told from sysfs, with no chunk counts,
	 * only the joining (or its following) says. */
	bool early = !b->uncounted && b->completed * 10 <= b->expected;
	if (!followed && !joined && !(l->receives && early))
		return false;
	/* fixed at the start, as a replace's: the layout it changes would change it */
	*total = followed && isfinite(disk_rebuild(d)->total_bytes) ? disk_rebuild(d)->total_bytes : l->total;
	return true;
}

/* The watched disks of fs, each once (two partitions of one disk: one reading). */
static unsigned fs_disks(Rebuilds *r, const BtrfsFs *fs, Disk **ret, unsigned max)
{
	unsigned n = 0;
	for (unsigned j = 0; j < fs->n_devs && n < max; j++) {
		Disk *d = disk_of(r, fs->devs[j].dev);
		bool again = false;
		for (unsigned i = 0; i < n && !again; i++)
			again = ret[i] == d;
		if (d && !again)
			ret[n++] = d;
	}
	return n;
}

static void balance_reading(Rebuilds *r, const BtrfsFs *fs, const BtrfsBalanceStatus *b, const BtrfsShow *show,
			    const BtrfsFsFigures *f, double now)
{
	Landings ls;
	landings_of(b, show, f, &ls);
	Disk *disks[BTRFS_SHOW_DEVS_MAX];
	unsigned n = fs_disks(r, fs, disks, BTRFS_SHOW_DEVS_MAX);
	for (unsigned i = 0; i < n; i++) {
		Disk *d = disks[i];
		bool followed = following_kind(d, fs->mount, REBUILD_KIND_BTRFS_BALANCE);
		if (!followed && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING)
			continue;	/* another rebuild onto it (a replace) is followed */
		double total;
		bool filled;
		int joined = -1;
		for (unsigned j = 0; !followed && j < fs->n_devs && joined < 0; j++)
			if (disk_of(r, fs->devs[j].dev) == d)
				joined = member_at(r->joined, r->n_joined, fs->uuid, fs->devs[j].dev);
		RebuildSample o;
		/* at its end (none), show is read while one is followed: whether it filled the disk */
		if ((!balance_figures(r, b, &ls, d, followed, joined >= 0, &total, &filled) &&
		     b->state != BTRFS_BALANCE_NONE) ||
		    rebuild_sample_from_balance(b, fs->mount, total, followed ? 0 : head_start(r, d, total), filled,
						disk_rebuild(d), &o) < 0)
			continue;
		drop_joined(r, joined);	/* this balance is the one its joining called for */
		apply_btrfs(r, d, &o, fs->mount, now);
	}
}

static int remove_note(const Rebuilds *r, const char *uuid)
{
	for (unsigned i = 0; i < r->n_removes; i++)
		if (streq(r->removes[i].uuid, uuid))
			return (int)i;
	return -1;
}

/* A remove under way: the device count at its start, noted once; gone
 * when it ran and the count fell since. */
static bool remove_gone(Rebuilds *r, const BtrfsFs *fs, bool running)
{
	int i = remove_note(r, fs->uuid);
	if (running && i < 0) {
		RemoveNote *n = realloc(r->removes, (r->n_removes + 1) * sizeof *n);
		if (n) {
			r->removes = n;
			RemoveNote *note = &r->removes[r->n_removes++];
			memcpy(note->uuid, fs->uuid, sizeof note->uuid);
			note->n_devs = fs->n_devs;
		}
		return false;
	}
	if (i < 0)
		return false;
	bool gone = fs->n_devs < r->removes[i].n_devs;
	if (!running)
		r->removes[i] = r->removes[--r->n_removes];
	return gone;
}

/* btrfs device remove: the removed device (size 0 in show) gives its
 * chunks to the others; those that fill are written onto. */
static void remove_reading(Rebuilds *r, const BtrfsFs *fs, const BtrfsShow *show, const BtrfsFsFigures *f, double now)
{
	bool running = fs->exclop == BTRFS_EXCLOP_DEV_REMOVE;
	if (!running && remove_note(r, fs->uuid) < 0 && !followed_onto(r, fs->mount, REBUILD_KIND_BTRFS_REMOVE))
		return;
	bool gone = remove_gone(r, fs, running);
	/* every chunk with a stripe on the removed device moves */
	BtrfsBalanceStatus all = {.state = BTRFS_BALANCE_RUNNING, .uncounted = true};
	Landings ls;
	landings_of(&all, running ? show : NULL, f, &ls);
	Disk *disks[BTRFS_SHOW_DEVS_MAX];
	unsigned n = fs_disks(r, fs, disks, BTRFS_SHOW_DEVS_MAX);
	for (unsigned i = 0; i < n; i++) {
		Disk *d = disks[i];
		bool followed = following_kind(d, fs->mount, REBUILD_KIND_BTRFS_REMOVE);
		double total = followed ? disk_rebuild(d)->total_bytes : NAN;
		if (!followed) {
			if (!running || disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING)
				continue;
			const BtrfsLanding *l = landing_of(r, &ls, d);
			if (!l || !l->receives)
				continue;	/* the removed device itself too: it keeps nothing */
			total = l->total;
		}
		RebuildSample o;
		if (rebuild_sample_from_remove(running, fs->mount, total, followed ? 0 : head_start(r, d, total), gone,
					       disk_rebuild(d), &o) == 0)
			apply_btrfs(r, d, &o, fs->mount, now);
	}
}

/* ------------------------------------------------------------ reading */

static QuietNote *quiet_note(Rebuilds *r, const char *uuid)
{
	for (unsigned i = 0; i < r->n_quiet; i++)
		if (streq(r->quiet[i].uuid, uuid))
			return &r->quiet[i];
	return NULL;
}

/* No move under way on fs: its figures, and the devices' (*show, taken
 * over; NULL unknown), noted for the next one. */
static void note_quiet(Rebuilds *r, const BtrfsFs *fs, BtrfsShow **show)
{
	QuietNote *q = quiet_note(r, fs->uuid);
	if (!q) {
		QuietNote *n = realloc(r->quiet, (r->n_quiet + 1) * sizeof *n);
		if (!n)
			return;
		r->quiet = n;
		q = &r->quiet[r->n_quiet++];
		*q = (QuietNote){0};
		memcpy(q->uuid, fs->uuid, sizeof q->uuid);
	}
	free(q->show);
	q->show = *show;
	*show = NULL;
	q->figures = fs->figures;
	q->scan = r->scans;
}

/* The notes of file systems no longer found, dropped. */
static void prune_quiet(Rebuilds *r)
{
	for (unsigned i = 0; i < r->n_quiet;) {
		bool found = false;
		for (unsigned j = 0; j < r->fs.n && !found; j++)
			found = streq(r->fs.fs[j].uuid, r->quiet[i].uuid);
		if (found) {
			i++;
			continue;
		}
		free(r->quiet[i].show);
		r->quiet[i] = r->quiet[--r->n_quiet];
	}
}

static void read_one(Rebuilds *r, const BtrfsFs *fs, double now)
{
	replace_reading(r, fs, now);
	BtrfsBalanceStatus b;
	int e = r->sysfs ? -EPERM : r->ops.balance_status(fs->mount, &b, r->ops.userdata);
	if (e == -EPERM && !r->sysfs)
		unprivileged(r);
	/* told from sysfs: no exclusive_operation (before 5.10), no balance to tell */
	bool have = e == 0 || btrfs_balance_from_sysfs(fs->exclop, &b) == 0;
	bool balancing = have && (b.state != BTRFS_BALANCE_NONE || followed_onto(r, fs->mount, REBUILD_KIND_BTRFS_BALANCE));
	bool removing = fs->exclop == BTRFS_EXCLOP_DEV_REMOVE || remove_note(r, fs->uuid) >= 0 ||
			followed_onto(r, fs->mount, REBUILD_KIND_BTRFS_REMOVE);
	bool quiet = !balancing && !removing &&
		     (fs->exclop == BTRFS_EXCLOP_NONE || fs->exclop == BTRFS_EXCLOP_DEV_ADD || (fs->exclop < 0 && e == 0));
	_cleanup_free_ BtrfsShow *show = NULL;
	if (balancing || removing || quiet) {
		show = calloc(1, sizeof *show);
		int k = show ? r->ops.show(fs->mount, show, r->ops.userdata) : -ENOMEM;
		if (k < 0) {
			log_debug("btrfs devices of %s: %s", fs->mount, strerror(-k));
			free(show);
			show = NULL;
		}
	}
	if (quiet) {
		note_quiet(r, fs, &show);
		return;
	}
	/* A move first seen now began after the scan before, if that one found
	 * none under way: it begins from that scan's layout (one read now has
	 * the chunk moving twice, its new copy's room taken before it is
	 * filled), with the devices' sizes of now (a removed one's 0). */
	const QuietNote *q = quiet_note(r, fs->uuid);
	bool fresh = q && q->show && show && q->scan + 1 == r->scans;
	_cleanup_free_ BtrfsShow *start = fresh ? malloc(sizeof *start) : NULL;
	if (start)
		btrfs_show_before(show, q->show, start);
	const BtrfsShow *from = start ? start : show;
	const BtrfsFsFigures *f = start ? &q->figures : &fs->figures;
	if (balancing)
		balance_reading(r, fs, &b, from, f, now);
	if (removing)
		remove_reading(r, fs, from, f, now);
}

static int lookup_reach(const char *path, const char *uuid, void *userdata)
{
	Rebuilds *r = userdata;
	return r->ops.reach(path, uuid, r->ops.userdata);
}

static int lookup_devnum(const char *source, dev_t *ret, void *userdata)
{
	Rebuilds *r = userdata;
	/* the kernel's own name of a device: smrd's /dev may be asked */
	return devmap_devnum(r->map, source, true, ret);
}

void rebuilds_btrfs_read(Rebuilds *r, double now)
{
	BtrfsFsList fs;
	BtrfsLookup look = {.reach = lookup_reach, .devnum = lookup_devnum, .userdata = r};
	if (btrfsfs_scan(r->sys_root, r->mountinfo, &r->fs, &look, &fs) < 0)
		fs = (BtrfsFsList){0};
	btrfsfs_list_done(&r->fs);
	r->fs = fs;
	r->scans++;
	prune_quiet(r);
	note_joins(r);
	note_written(r);
	for (unsigned i = 0; i < r->fs.n; i++)
		if (r->fs.fs[i].mount && fs_watched(r, &r->fs.fs[i]))
			read_one(r, &r->fs.fs[i], now);
	/* a rebuild followed on a file system no longer reached: over, unseen */
	for (size_t i = 0; i < registry_size(r->disks); i++) {
		Disk *d = registry_at(r->disks, i);
		const RebuildState *s = disk_rebuild(d);
		if (s->phase == REBUILD_PHASE_RUNNING && rebuild_kind_btrfs(s->kind) && !btrfsfs_at(&r->fs, s->pool) &&
		    rebuild_state_gone(d->rebuild, now) == REBUILD_CHANGE_ENDED)
			rebuilds_record_end(r, d, now);
	}
}

int rebuilds_btrfs_share(Rebuilds *r, const char *path, Disk *d, double *ret_bytes, char *ret_from, size_t from_len,
			 const char **ret_mount)
{
	const BtrfsFs *fs = btrfsfs_at(&r->fs, path);
	for (unsigned i = 0; !fs && i < r->fs.n; i++)
		if (r->fs.fs[i].mount && r->ops.reach(path, r->fs.fs[i].uuid, r->ops.userdata) == 0)
			fs = &r->fs.fs[i];
	if (!fs)
		return -ENOENT;
	_cleanup_free_ BtrfsShow *show = calloc(1, sizeof *show);
	int e = show ? r->ops.show(fs->mount, show, r->ops.userdata) : -ENOMEM;
	if (e < 0)
		return e;
	double chunks = 0, most = 0;
	for (unsigned k = 0; k < show->n_devs; k++) {
		chunks += show->devs[k].used;
		most = fmax(most, show->devs[k].used);
	}
	double fill = chunks > 0 && fs->disk_used >= 0 ? fmin(fs->disk_used / chunks, 1) : 1;
	BtrfsBalanceStatus all = {.state = BTRFS_BALANCE_RUNNING, .uncounted = true};
	Landings ls;
	landings_of(&all, show, &fs->figures, &ls);
	const BtrfsLanding *l = landing_of(r, &ls, d);
	char b[FORMAT_MAX];
	if (l && isfinite(l->total)) {
		/* it is a device already (added): what a full balance writes onto it */
		*ret_bytes = l->total;
		snprintf(ret_from, from_len, "what a full balance over the %u devices writes onto it (DEV_INFO)", show->n_devs);
	} else {
		/* a replace copies one device's chunks: the largest's at most */
		*ret_bytes = most * fill;
		snprintf(ret_from, from_len, "what its largest device holds (%s of chunks at the file system's fill, "
			 "DEV_INFO): a replace copies one device", format_size(b, most));
	}
	*ret_mount = fs->mount;
	return 0;
}
