/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard and rebuild-check (rebuildguard.h). A ZFS pool's
 * figures come from slowio.h's reading of it (zpool status -P and zpool
 * get), a btrfs file system's from the rebuilds module (its devices'
 * figures): what a disk would take of a top-level vdev is its share of the
 * vdev's allocated bytes (vdevprops.h), of a btrfs file system the bytes
 * its largest device holds (a replace copies one device).
 */
#include "rebuildguard.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "log.h"
#include "util.h"
#include "zpoolstatus.h"

/* zed's attach of a disk, its warning waiting for a reading of the pool
 * that has the disk in it: what it writes is named, not the disk's size */
typedef struct PendingWarning {
	unsigned major, minor;
	char pool[ZPOOL_NAME_MAX + 1];
	char source[120];
	char path[256];			/* as zed gave it; cut past that in the warning too */
	uint64_t when_usec;
} PendingWarning;

#define GUARD_PENDING_MAX 16	/* more attaches at once are warned of at once, the disk's size at most */

struct RebuildGuard {
	DiskRegistry *disks;
	Recorder *recorder;
	DevMap *map;
	SlowIo *slowio;
	RebuildBtrfsShare btrfs_share;
	void *btrfs_userdata;
	PendingWarning *pending;
	size_t n_pending;
};

static void pool_read(const SlowIoPool *p, void *userdata);

/* slowio's findings: a second rebuild-warning, right after the guard's */
static void slow_io_found(Disk *d, const SlowIoResult *r, void *userdata)
{
	RebuildGuard *g = userdata;
	uint64_t now = now_usec(CLOCK_REALTIME);
	EventRecord rec = {.kind = EVENT_REBUILD_WARNING, .disk = d, .time_usec = now, .severity = "warning", .count = 1,
			   .duration = NAN, .latency = NAN, .value = NAN, .message = r->text};
	if (g->recorder)
		(void)recorder_record(g->recorder, &rec, now, NULL);
}

static int slow_io_map(const char *path, Disk **ret, void *userdata)
{
	RebuildGuard *g = userdata;
	/* zpool's own output: smrd's /dev may be asked (devmap.h) */
	return devmap_disk(g->map, path, true, ret);
}

int rebuildguard_new(sd_event *e, DiskRegistry *disks, Recorder *recorder, DevMap *map, Reaper *reaper,
		     char *const *zpool, RebuildGuard **ret)
{
	RebuildGuard *g = calloc(1, sizeof *g);
	if (!g)
		return -ENOMEM;
	*g = (RebuildGuard){.disks = disks, .recorder = recorder, .map = map};
	SlowIoCallbacks cb = {.map = slow_io_map, .found = slow_io_found, .pool_read = pool_read, .userdata = g};
	int r = slowio_new(e, reaper, zpool, &cb, &g->slowio);
	if (r < 0)
		return rebuildguard_free(g), r;
	*ret = g;
	return 0;
}

RebuildGuard *rebuildguard_free(RebuildGuard *g)
{
	if (g) {
		slowio_free(g->slowio);
		free(g->pending);
		free(g);
	}
	return NULL;
}

void rebuildguard_set_btrfs_share(RebuildGuard *g, RebuildBtrfsShare share, void *userdata)
{
	g->btrfs_share = share;
	g->btrfs_userdata = userdata;
}

void rebuildguard_facts(const Disk *d, uint64_t now_real_usec, RebuildFacts *ret)
{
	VerdictSummary v;
	disk_summary(d, &v);
	const DiskView *w = &d->view;
	double now = (double)now_real_usec / 1e6;
	*ret = (RebuildFacts){
		.disk_class = v.class, .by_behaviour = disk_by_behaviour(d),
		.storms = w->storms_known, .storm_now = w->storm,
		.storm_seconds = w->storm && isfinite(w->storm_since) ? fmax(now - w->storm_since, 0) : NAN,
		/* qualified: smrctl qualify's figure in smrd.conf (disk.ID.media-cache);
		 * what smrd learnt from storms is the model's, not a qualification */
		.qualified = isfinite(d->tuning.media_cache) && d->tuning.media_cache > 0,
		.model = &w->cache, .size_bytes = (double)d->sys.size_sectors * 512, .fast_bps = NAN,
	};
}

static void forecast_facts(const Disk *d, const RebuildFacts *rf, ForecastFacts *ret)
{
	*ret = (ForecastFacts){
		.disk = *rf, .device = d->name, .tuned_cache = d->tuning.media_cache, .tuned_rate = d->tuning.rebuild_rate,
		.join = REBUILD_JOIN_NONE, .layout = _VDEV_LAYOUT_INVALID, .bytes = NAN,
		.slow_io = FORECAST_SLOW_IO_NOT_KNOWN,
		.io_timeout = d->sys.io_timeout_ms > 0 ? (double)d->sys.io_timeout_ms / 1000 : NAN,
		.worst_stall = d->view.stall_max,
	};
}

/* The tree's leaf on d; -1 none. */
static int leaf_on(RebuildGuard *g, const VdevTree *t, const Disk *d)
{
	for (size_t i = 0; i < t->n; i++) {
		Disk *m = NULL;
		if (t->nodes[i].leaf && t->nodes[i].name[0] == '/' && devmap_disk(g->map, t->nodes[i].name, true, &m) == 0 &&
		    m == d)
			return (int)i;
	}
	return -1;
}

/* What a new leaf of the pool's vdev `vdev` (NULL: the one d is in, else
 * the largest share) takes, from its last reading; -1 none known. */
static int pick_top(RebuildGuard *g, const SlowIoPool *p, const Disk *d, const char *vdev, char *from, size_t n)
{
	const VdevTree *t = p->tree;
	for (size_t i = 0; vdev && i < t->n; i++)
		if (streq(t->nodes[i].name, vdev)) {
			int top = vdev_tree_top_of(t, i);
			if (top >= 0)
				snprintf(from, n, "%s", t->nodes[top].name);
			return top;
		}
	if (vdev)
		return -1;
	int leaf = leaf_on(g, t, d);
	if (leaf >= 0) {
		int top = vdev_tree_top_of(t, (size_t)leaf);
		if (top >= 0)
			snprintf(from, n, "%s", t->nodes[top].name);
		return top;
	}
	size_t tops[64];
	size_t k = vdev_tree_tops(t, tops, ELEMENTSOF(tops));
	int best = -1;
	double most = -1;
	for (size_t i = 0; i < k; i++) {
		VdevLayout l;
		double s = vdev_leaf_share(t, tops[i], p->props, &l);
		if (isfinite(s) && s > most)
			most = s, best = (int)tops[i];
	}
	if (best >= 0)
		snprintf(from, n, "%s", k > 1 ? "the largest share" : t->nodes[best].name);
	return best;
}

static int zfs_facts(RebuildGuard *g, const Disk *d, const char *target, double now, ForecastFacts *f,
		     RebuildCheckAnswer *a, char **ret_error)
{
	char pool[ZPOOL_NAME_MAX + 1];
	const char *slash = strchr(target, '/'), *vdev = slash ? slash + 1 : NULL;
	size_t pl = slash ? (size_t)(slash - target) : strlen(target);
	if (pl == 0 || pl > ZPOOL_NAME_MAX)
		return set_errorf(ret_error, -EINVAL, "'%.80s' is neither a pool name nor a path", target);
	memcpy(pool, target, pl);
	pool[pl] = 0;
	const SlowIoPool *p = slowio_pool(g->slowio, pool, now, INFINITY);
	if (!p)
		return set_errorf(ret_error, -EINVAL, "'%.80s' is not a ZFS pool name", pool);
	snprintf(a->where, sizeof a->where, "ZFS pool %.140s", pool);
	f->join = REBUILD_JOIN_ZFS;
	f->where = a->where;
	if (p->state == SLOWIO_NOT_KNOWN && p->no_pool)
		return set_errorf(ret_error, -ENOENT, "no ZFS pool %s as zpool sees it (%.200s)", pool, p->why);
	if (!p->tree || !p->props) {
		a->waiting = p->state == SLOWIO_CHECKING;
		f->slow_io_why = p->state == SLOWIO_NOT_KNOWN ? p->why : "being read";
		return 0;
	}
	char which[160] = "";
	int top = pick_top(g, p, d, vdev, which, sizeof which);
	if (top < 0)
		return vdev ? set_errorf(ret_error, -EINVAL, "pool %s has no vdev %.80s (zpool status -P)", pool, vdev) : 0;
	snprintf(a->vdev, sizeof a->vdev, "%s", p->tree->nodes[top].name);
	f->vdev = a->vdev;
	f->bytes = vdev_leaf_share(p->tree, (size_t)top, p->props, &f->layout);
	const VdevProp *v = vdev_props_find(p->props, p->tree->nodes[top].name);
	f->children = v && v->children != SLOW_IO_UNSET ? (unsigned)v->children : 0;
	char sz[FORMAT_MAX];
	snprintf(a->bytes_from, sizeof a->bytes_from, "%s's share of %.80s (%s allocated: zpool get)", which, a->vdev,
		 v && v->allocated != SLOW_IO_UNSET ? format_size(sz, (double)v->allocated) : "?");
	f->bytes_from = a->bytes_from;
	_cleanup_free_ char *error = NULL;
	if (slow_io_resolve(p->tree, (size_t)top, p->props, &f->slow_io_setting, &error) < 0) {
		f->slow_io = FORECAST_SLOW_IO_NOT_KNOWN;
		f->slow_io_why = "zpool get does not list the vdev's slow_io_n and slow_io_t";
	} else
		f->slow_io = f->slow_io_setting.can_trip ? FORECAST_SLOW_IO_CAN_TRIP
			     : f->slow_io_setting.armed ? FORECAST_SLOW_IO_SAFE : FORECAST_SLOW_IO_UNSET;
	return 0;
}

static int btrfs_facts(RebuildGuard *g, Disk *d, const char *target, ForecastFacts *f, RebuildCheckAnswer *a,
		       char **ret_error)
{
	const char *mount = NULL;
	double bytes = NAN;
	int r = g->btrfs_share ? g->btrfs_share(target, d, &bytes, a->bytes_from, sizeof a->bytes_from, &mount,
						g->btrfs_userdata) : -ENODEV;
	if (r < 0)
		return set_errorf(ret_error, -EINVAL, "%.120s reaches no btrfs file system smrd reads", target);
	snprintf(a->where, sizeof a->where, "btrfs file system %.130s", mount);
	f->join = REBUILD_JOIN_BTRFS;
	f->where = a->where;
	f->vdev = mount;	/* valid until the next reading: used before this call returns */
	f->bytes = bytes;
	f->bytes_from = a->bytes_from;
	return 0;
}

/* The pool d is in, as far as smrd knows (the resilver followed onto it, else its ZFS label); NULL none. */
static const char *pool_of(const Disk *d)
{
	const RebuildState *rs = disk_rebuild(d);
	if (rs->phase == REBUILD_PHASE_RUNNING && rs->kind == REBUILD_KIND_RESILVER)
		return rs->pool;
	for (unsigned i = 0; i < d->n_members; i++)
		if (d->members[i].type == MEMBER_ZFS)
			return d->members[i].name;
	return NULL;
}

int rebuildguard_check(RebuildGuard *g, Disk *d, const char *target, uint64_t now_real_usec, RebuildCheckAnswer *ret,
		       char **ret_error)
{
	RebuildCheckAnswer a = {0};
	double now = (double)now_real_usec / 1e6;
	VerdictSummary v;
	rebuildguard_facts(d, now_real_usec, &a.facts);
	disk_summary(d, &v);
	a.facts.basis = v.basis;
	ForecastFacts f;
	forecast_facts(d, &a.facts, &f);
	int r = 0;
	if (target && *target)
		r = target[0] == '/' ? btrfs_facts(g, d, target, &f, &a, ret_error)
				     : zfs_facts(g, d, target, now, &f, &a, ret_error);
	if (r < 0)
		return r;
	/* the disk's own pool: whether zed may degrade it there (a label that
	 * is the pool's GUID, no name, names nothing zpool takes); asked,
	 * not warned of: no rebuild is under way */
	const char *own = pool_of(d);
	const SlowIoPool *p = own ? slowio_pool(g->slowio, own, now, INFINITY) : NULL;
	if (p) {
		slowio_judge(g->slowio, p, d->sys.major, d->sys.minor, d->name, &a.slow_io, NULL);
		a.slow_io_pool = own;
		a.waiting |= a.slow_io.state == SLOWIO_CHECKING;
	}
	rebuild_forecast(&f, &a.forecast);
	*ret = a;
	return 0;
}

/* What a resilver into p writes onto d, its reading says: NaN when it does not. */
static double zfs_bytes(RebuildGuard *g, const Disk *d, const SlowIoPool *p)
{
	if (!p || !p->tree || !p->props)
		return NAN;
	int leaf = leaf_on(g, p->tree, d), top = leaf >= 0 ? vdev_tree_top_of(p->tree, (size_t)leaf) : -1;
	VdevLayout l;
	return top >= 0 ? vdev_leaf_share(p->tree, (size_t)top, p->props, &l) : NAN;
}

/* "256M to write, expected 20 s (14 s to 26 s, learnt figures)" */
static void forecast_words(const RebuildForecast *fc, char *buf, size_t n)
{
	char b[FORMAT_MAX], e[FORMAT_MAX], lo[FORMAT_MAX], hi[FORMAT_MAX];
	const char *fig = rebuild_figures_to_string(fc->figures) ?: "no";
	/* what it writes not known: the disk's size, said to be a bound */
	const char *most = startswith(fc->bytes_from, "the whole disk") ? "at most " : "";
	if (isfinite(fc->expected))
		snprintf(buf, n, "%s%s to write, expected %s (%s to %s, %s figures)", most, format_size(b, fc->bytes),
			 format_duration(e, fc->expected), format_duration(lo, fc->low), format_duration(hi, fc->high), fig);
	else if (isfinite(fc->low))
		snprintf(buf, n, "%s%s to write, expected %s to %s (%s figures)", most, format_size(b, fc->bytes),
			 format_duration(lo, fc->low), format_duration(hi, fc->high), fig);
	else
		snprintf(buf, n, "%s%s to write, expected time unknown", most, format_size(b, fc->bytes));
}

/* The guard's verdict on d writing bytes (NaN: not known), and its forecast. */
static void forecast_of(Disk *d, double bytes, uint64_t now_real_usec, RebuildForecast *ret)
{
	RebuildFacts rf;
	VerdictSummary v;
	rebuildguard_facts(d, now_real_usec, &rf);
	disk_summary(d, &v);
	rf.basis = v.basis;
	ForecastFacts f;
	forecast_facts(d, &rf, &f);
	f.bytes = bytes;
	if (!isfinite(bytes))
		f.join = REBUILD_JOIN_ZFS;	/* the bytes are then "not known", not "name the pool" */
	rebuild_forecast(&f, ret);
}

static void warning_text(const Disk *d, const char *source, const char *path, const char *words,
			 const RebuildCheck *check, char warning[static REBUILD_TEXT_MAX])
{
	/* the figures first: a long path or evidence is what gets cut */
	int k = snprintf(warning, REBUILD_TEXT_MAX, "%.80s is rebuilding onto %s (serial %.40s, %.80s): %s: %s", source,
			 d->name, d->sys.serial[0] ? d->sys.serial : "unknown", path, words, check->evidence);
	if (k >= REBUILD_TEXT_MAX)
		log_debug("%s: the rebuild warning was cut to %d bytes", d->name, REBUILD_TEXT_MAX - 1);
}

static void record_warning(RebuildGuard *g, Disk *d, const RebuildForecast *fc, const char *warning,
			   uint64_t when_usec, uint64_t now_real_usec)
{
	EventRecord r = {.kind = EVENT_REBUILD_WARNING, .disk = d, .time_usec = when_usec, .severity = "warning",
			 .once_per_rebuild = true, .count = 1, .duration = isfinite(fc->expected) ? fc->expected : fc->high,
			 .latency = NAN, .value = (double)fc->check.risk, .bytes = (int64_t)fc->bytes, .message = warning};
	/* -EALREADY: this rebuild's warning is in the history (a restart, zed's replay) */
	if (g->recorder)
		(void)recorder_record(g->recorder, &r, now_real_usec, NULL);
}

/* A reading of a pool ended: the attaches into it that waited for it are warned of. */
static void pool_read(const SlowIoPool *p, void *userdata)
{
	RebuildGuard *g = userdata;
	uint64_t now = now_usec(CLOCK_REALTIME);
	for (size_t i = 0; i < g->n_pending;) {
		PendingWarning *w = &g->pending[i];
		if (!streq(w->pool, p->pool)) {
			i++;
			continue;
		}
		Disk *d = registry_by_devnum(g->disks, w->major, w->minor);
		if (d) {
			RebuildForecast fc;
			char words[320], warning[REBUILD_TEXT_MAX];
			forecast_of(d, zfs_bytes(g, d, p), now, &fc);
			forecast_words(&fc, words, sizeof words);
			warning_text(d, w->source, w->path, words, &fc.check, warning);
			record_warning(g, d, &fc, warning, w->when_usec, now);
		}
		memmove(w, w + 1, (g->n_pending - i - 1) * sizeof *w);
		g->n_pending--;
	}
}

/* d's warning, held until the pool's reading under way ends; false no room. */
static bool hold(RebuildGuard *g, const Disk *d, const char *source, const char *path, const char *pool,
		 uint64_t when_usec)
{
	if (g->n_pending == GUARD_PENDING_MAX)
		return false;
	PendingWarning *p = realloc(g->pending, (g->n_pending + 1) * sizeof *p);
	if (!p)
		return false;
	g->pending = p;
	p = &g->pending[g->n_pending++];
	*p = (PendingWarning){.major = d->sys.major, .minor = d->sys.minor, .when_usec = when_usec};
	snprintf(p->pool, sizeof p->pool, "%s", pool);
	snprintf(p->source, sizeof p->source, "%s", source);
	snprintf(p->path, sizeof p->path, "%s", path);
	return true;
}

bool rebuildguard_warn(RebuildGuard *g, Disk *d, const char *source, const char *path, const char *pool, double bytes,
		       uint64_t when_usec, uint64_t now_real_usec, RebuildCheck *check,
		       char warning[static REBUILD_TEXT_MAX])
{
	double now = (double)now_real_usec / 1e6;
	RebuildForecast fc;
	forecast_of(d, bytes, now_real_usec, &fc);
	*check = fc.check;
	if (!check->warn)
		return false;
	/* one per rebuild: the watcher may have seen the rebuild before zed's attach came */
	const RebuildState *rs = disk_rebuild(d);
	bool warned = rs->phase == REBUILD_PHASE_RUNNING && !rebuild_state_wants_warning(rs);
	bool held = false;
	if (!isfinite(bytes) && pool && !warned) {
		/* what it writes: its vdev's share, in a reading of the pool
		 * that has it (one that ended after the attach) */
		double since = fmax(now - (double)when_usec / 1e6, 0);
		const SlowIoPool *p = slowio_pool(g->slowio, pool, now, since);
		if (p && p->state == SLOWIO_CHECKING)
			held = hold(g, d, source, path, pool, when_usec);
		else
			forecast_of(d, zfs_bytes(g, d, p), now_real_usec, &fc);
	}
	char words[320];
	if (held)
		snprintf(words, sizeof words, "what it writes is being read from zpool (smrctl rebuild-check %s %.80s "
			 "says it; the warning is recorded with it)", d->name, pool);
	else
		forecast_words(&fc, words, sizeof words);
	warning_text(d, source, path, words, check, warning);
	/* a resilver: is zed set to degrade d for slow I/O? (read in the background) */
	if (pool)
		(void)slowio_check(g->slowio, d, pool, now);
	if (warned)
		return true;
	if (!held)
		record_warning(g, d, &fc, warning, when_usec, now_real_usec);
	RebuildState *s = disk_rebuild_mut(d);
	if (s)
		rebuild_state_warned(s, now);
	return true;
}
