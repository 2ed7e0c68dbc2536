/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status -P and zpool get as children of the event loop (slowio.h).
 * One pool read at a time, its two runs one after the other; each run in a
 * session of its own (a kill reaches what it started), stdin /dev/null,
 * stderr discarded, its output read as it comes and bounded, its time
 * bounded. What was read is kept per pool; what was judged per disk, the
 * disk remembered by device number, not by pointer: it may be gone when
 * zpool answers. Both lists grow with what exists, up to their bounds.
 */
#include "slowio.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "childrun.h"
#include "log.h"
#include "util.h"

/* A disk waiting for its pool's reading, to be judged. */
typedef struct Waiting {
	char pool[ZPOOL_NAME_MAX + 1];
	unsigned major, minor;
	char device[32];
} Waiting;

typedef struct Known {
	unsigned major, minor;
	SlowIoResult r;
} Known;

struct SlowIo {
	sd_event *event;
	char *const *zpool;
	char **env;
	SlowIoCallbacks cb;
	SlowIoPool *pools;		/* per pool, the last reading (or the one under way) */
	size_t n_pools;
	Waiting *waiting;
	size_t n_waiting;
	/* the reading under way: pools[reading] */
	int reading;			/* -1 none */
	bool getting;			/* its second run (zpool get) */
	VdevTree *tree;			/* from the first run */
	ChildRun *run;
	Known *known;
	size_t n_known;
};

static const char *const state_names[_SLOWIO_STATE_MAX] = {
	[SLOWIO_NOT_CHECKED] = "not-checked", [SLOWIO_CHECKING] = "checking", [SLOWIO_NOT_KNOWN] = "not-known",
	[SLOWIO_UNSET] = "unset", [SLOWIO_SAFE] = "safe", [SLOWIO_CAN_TRIP] = "can-trip",
};

const char *slowio_state_to_string(SlowIoState s)
{
	return (unsigned)s < _SLOWIO_STATE_MAX ? state_names[s] : NULL;
}

int slowio_new(sd_event *e, Reaper *reaper, char *const *zpool, const SlowIoCallbacks *cb, SlowIo **ret)
{
	if (!zpool)
		return -EINVAL;
	SlowIo *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	*w = (SlowIo){.event = sd_event_ref(e), .zpool = zpool, .reading = -1};
	if (cb)
		w->cb = *cb;
	/* the daemon's environment but the variables that change zpool's names
	 * or numbers; leaves named by their full paths, numbers in the C locale */
	static const char *const drop[] = {"ZFS_COLOR=", "LC_ALL=", "ZPOOL_VDEV_NAME_PATH=", "ZPOOL_VDEV_NAME_GUID=",
					   "ZPOOL_VDEV_NAME_FOLLOW_LINKS=", NULL};
	static const char *const add[] = {"LC_ALL=C", "ZPOOL_VDEV_NAME_PATH=1", NULL};
	int r = childrun_env_new(drop, add, &w->env);
	if (r >= 0)
		r = childrun_new(e, reaper, &w->run);
	if (r < 0)
		return slowio_free(w), r;
	*ret = w;
	return 0;
}

/* For messages: the command being run. */
static const char *cmd(const SlowIo *w)
{
	return *w->zpool && **w->zpool ? *w->zpool : "(no zpool-command)";
}

static void pool_clear(SlowIoPool *p)
{
	p->tree = vdev_tree_free(p->tree);
	p->props = vdev_props_free(p->props);
}

SlowIo *slowio_free(SlowIo *w)
{
	if (!w)
		return NULL;
	w->run = childrun_free(w->run);	/* a run under way is killed and reaped */
	w->tree = vdev_tree_free(w->tree);
	for (size_t i = 0; i < w->n_pools; i++)
		pool_clear(&w->pools[i]);
	free(w->pools);
	free(w->waiting);
	free(w->known);
	childrun_env_free(w->env);
	sd_event_unref(w->event);
	free(w);
	return NULL;
}

static int known_index(const SlowIo *w, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < w->n_known; i++)
		if (w->known[i].major == major && w->known[i].minor == minor)
			return (int)i;
	return -1;
}

/* The disk's record, made if new (when full, in place of the oldest); NULL out of memory. */
static Known *known_add(SlowIo *w, unsigned major, unsigned minor)
{
	int i = known_index(w, major, minor);
	if (i >= 0)
		return &w->known[i];
	size_t at = 0;
	if (w->n_known < SLOWIO_KNOWN_MAX) {
		Known *g = realloc(w->known, (w->n_known + 1) * sizeof *g);
		if (!g)
			return NULL;
		w->known = g;
		at = w->n_known++;
	} else
		for (size_t k = 1; k < w->n_known; k++)
			if (w->known[k].r.when < w->known[at].r.when)
				at = k;
	w->known[at] = (Known){.major = major, .minor = minor};
	return &w->known[at];
}

const SlowIoResult *slowio_result(const SlowIo *w, const Disk *d)
{
	int i = w ? known_index(w, d->sys.major, d->sys.minor) : -1;
	return i >= 0 ? &w->known[i].r : NULL;
}

static int pool_index(const SlowIo *w, const char *pool)
{
	for (size_t i = 0; i < w->n_pools; i++)
		if (streq(w->pools[i].pool, pool))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ runs */

static void on_done(const ChildRunResult *res, void *userdata);

static int spawn(SlowIo *w, char *const argv[])
{
	if (!argv[0] || !*argv[0])
		return -ENOENT;
	return childrun_start(w->run, argv, w->env, VDEV_PROPS_INPUT_MAX, SLOWIO_TIMEOUT_USEC, on_done, w);
}

static int spawn_status(SlowIo *w)
{
	char *argv[] = {*w->zpool, "status", "-P", w->pools[w->reading].pool, NULL};
	w->getting = false;
	return spawn(w, argv);
}

static int spawn_get(SlowIo *w)
{
	char *argv[] = {*w->zpool, "get", "-H", "-p", "-o", "name,property,value,source", SLOWIO_PROPERTIES,
			w->pools[w->reading].pool, "all-vdevs", NULL};
	w->getting = true;
	return spawn(w, argv);
}

/* The tree's leaf on disk major:minor (by device number), the one being
 * resilvered first; -1 none. *ret_disk the disk. */
static int leaf_of(SlowIo *w, const VdevTree *t, unsigned major, unsigned minor, Disk **ret_disk)
{
	int found = -1;
	for (size_t i = 0; w->cb.map && i < t->n; i++) {
		const VdevNode *v = &t->nodes[i];
		Disk *d = NULL;
		if (!v->leaf || v->name[0] != '/' || w->cb.map(v->name, &d, w->cb.userdata) < 0 || d->sys.major != major ||
		    d->sys.minor != minor)
			continue;
		if (found < 0 || (v->resilvering && !t->nodes[found].resilvering)) {
			found = (int)i;
			*ret_disk = d;
		}
	}
	return found;
}

void slowio_judge(SlowIo *w, const SlowIoPool *p, unsigned major, unsigned minor, const char *device,
		  SlowIoResult *ret, Disk **ret_disk)
{
	SlowIoResult r = {.state = SLOWIO_NOT_KNOWN, .when = p->when};
	snprintf(r.pool, sizeof r.pool, "%s", p->pool);
	Disk *d = NULL;
	int leaf = p->state == SLOWIO_NOT_KNOWN || !p->tree || !p->props ? -1 : leaf_of(w, p->tree, major, minor, &d);
	_cleanup_free_ char *error = NULL;
	if (p->state == SLOWIO_NOT_KNOWN)
		snprintf(r.text, sizeof r.text, "%s", p->why);
	else if (!p->tree || !p->props)
		r.state = SLOWIO_CHECKING;
	else if (leaf < 0)
		snprintf(r.text, sizeof r.text, "zpool status -P %.100s lists no leaf on %.31s", p->pool, device);
	else if (slow_io_resolve(p->tree, (size_t)leaf, p->props, &r.setting, &error) < 0)
		snprintf(r.text, sizeof r.text, "%s", error ?: "zpool get does not list its vdevs");
	else {
		r.state = r.setting.can_trip ? SLOWIO_CAN_TRIP : r.setting.armed ? SLOWIO_SAFE : SLOWIO_UNSET;
		if (r.state == SLOWIO_CAN_TRIP)
			slow_io_text(&r.setting, r.pool, d->name, r.text);
	}
	*ret = r;
	if (ret_disk)
		*ret_disk = d;
}

/* One waiting disk against its pool's reading: the judgement kept, and said when zed may trip. */
static void judge(SlowIo *w, const Waiting *q, const SlowIoPool *p)
{
	SlowIoResult r;
	Disk *d = NULL;
	slowio_judge(w, p, q->major, q->minor, q->device, &r, &d);
	Known *k = known_add(w, q->major, q->minor);
	if (!k)
		return;
	k->r = r;
	if (r.state == SLOWIO_NOT_KNOWN)
		log_info("%s: slow_io_n/slow_io_t in pool %s not known: %s", q->device, q->pool, r.text);
	else
		log_debug("%s: slow_io_n/slow_io_t in pool %s: %s", q->device, q->pool, slowio_state_to_string(r.state));
	if (r.state == SLOWIO_CAN_TRIP && d && w->cb.found)
		w->cb.found(d, &k->r, w->cb.userdata);
}

static void start_next(SlowIo *w);

/* The reading under way ended (its pool's state set): the disks waiting
 * for it judged, the next reading started. */
static void finish(SlowIo *w)
{
	SlowIoPool *p = &w->pools[w->reading];
	w->tree = vdev_tree_free(w->tree);
	w->reading = -1;
	p->when = (double)now_usec(CLOCK_REALTIME) / 1e6;
	if (w->cb.pool_read)
		w->cb.pool_read(p, w->cb.userdata);
	for (size_t i = 0; i < w->n_waiting;) {
		if (!streq(w->waiting[i].pool, p->pool)) {
			i++;
			continue;
		}
		Waiting q = w->waiting[i];
		memmove(&w->waiting[i], &w->waiting[i + 1], (w->n_waiting - i - 1) * sizeof q);
		w->n_waiting--;
		judge(w, &q, p);
	}
	start_next(w);
}

static void not_known(SlowIo *w, const char *fmt, ...) _printf_(2, 3);
static void not_known(SlowIo *w, const char *fmt, ...)
{
	SlowIoPool *p = &w->pools[w->reading];
	pool_clear(p);
	p->state = SLOWIO_NOT_KNOWN;
	p->no_pool = !w->getting;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof p->why, fmt, ap);
	va_end(ap);
	finish(w);
}

static void on_done(const ChildRunResult *res, void *userdata)
{
	SlowIo *w = userdata;
	bool getting = w->getting, exited0 = res->exited && res->status == 0;
	const char *how = getting ? "get ... " SLOWIO_PROPERTIES : "status -P";
	char why[200] = "";
	if (res->timed_out)
		snprintf(why, sizeof why, "ran past %llu s: killed", SLOWIO_TIMEOUT_USEC / 1000000ULL);
	else if (res->too_big)
		snprintf(why, sizeof why, "printed more than %u bytes: killed", VDEV_PROPS_INPUT_MAX);
	else if (!res->exited)
		snprintf(why, sizeof why, "killed by signal %d", res->status);
	else if (!exited0)
		/* an OpenZFS before 2.2.4 has no such properties: a usage error */
		snprintf(why, sizeof why, "exit %d%s", res->status, getting ? " (an OpenZFS older than 2.2.4?)" : "");
	_cleanup_free_ char *error = NULL;
	if (why[0])
		return not_known(w, "%s %s: %s", cmd(w), how, why);
	SlowIoPool *p = &w->pools[w->reading];
	if (!getting) {
		int r = vdev_tree_parse(res->out, res->out_len, p->pool, &w->tree, &error);
		if (r < 0)
			return not_known(w, "%s", error ?: strerror(-r));
		if ((r = spawn_get(w)) < 0)
			not_known(w, "%s get could not run: %s", cmd(w), strerror(-r));
		return;
	}
	VdevProps *props = NULL;
	int r = vdev_props_parse(res->out, res->out_len, &props, &error);
	if (r < 0)
		return not_known(w, "%s", error ?: strerror(-r));
	pool_clear(p);
	p->tree = TAKE_PTR(w->tree);
	p->props = props;
	p->state = SLOWIO_UNSET;	/* read: what it says is judged per disk */
	p->why[0] = 0;
	p->no_pool = false;
	finish(w);
}

static void start_next(SlowIo *w)
{
	for (size_t i = 0; w->reading < 0 && i < w->n_pools; i++) {
		if (w->pools[i].state != SLOWIO_CHECKING)
			continue;
		w->reading = (int)i;
		int r = spawn_status(w);
		if (r < 0)
			not_known(w, "%s could not run: %s", cmd(w), strerror(-r));
	}
}

/* pool's reading, started when there is none within its bounds (or
 * younger than max_age: a disk not known in it a while ago may be in it
 * now); NULL out of room. */
static SlowIoPool *pool_want(SlowIo *w, const char *pool, double now, double max_age)
{
	int i = pool_index(w, pool);
	if (i >= 0) {
		SlowIoPool *p = &w->pools[i];
		double age = now - p->when;
		if (p->state != SLOWIO_CHECKING &&
		    !(age >= 0 && age < fmin(max_age, p->state == SLOWIO_NOT_KNOWN ? SLOWIO_RETRY_SECONDS
										: SLOWIO_RECHECK_SECONDS)))
			p->state = SLOWIO_CHECKING;	/* kept as it was until the new one is read */
		start_next(w);
		return p;
	}
	if (w->n_pools == SLOWIO_POOLS_MAX) {
		log_warning("pool %s: vdevs not read: %d pools are read already", pool, SLOWIO_POOLS_MAX);
		return NULL;
	}
	SlowIoPool *g = realloc(w->pools, (w->n_pools + 1) * sizeof *g);
	if (!g)
		return NULL;
	w->pools = g;
	SlowIoPool *p = &w->pools[w->n_pools++];
	*p = (SlowIoPool){.state = SLOWIO_CHECKING, .when = now};
	snprintf(p->pool, sizeof p->pool, "%s", pool);
	start_next(w);
	return &w->pools[pool_index(w, pool)];
}

int slowio_check(SlowIo *w, const Disk *d, const char *pool, double now)
{
	if (!w)
		return 0;
	if (!pool || !zpool_name_ok(pool))
		return -EINVAL;
	for (size_t q = 0; q < w->n_waiting; q++)
		if (w->waiting[q].major == d->sys.major && w->waiting[q].minor == d->sys.minor &&
		    streq(w->waiting[q].pool, pool))
			return 0;
	int i = known_index(w, d->sys.major, d->sys.minor);
	const SlowIoResult *k = i >= 0 ? &w->known[i].r : NULL;
	if (k && streq(k->pool, pool) &&
	    now - k->when < (k->state == SLOWIO_NOT_KNOWN ? SLOWIO_RETRY_SECONDS : SLOWIO_RECHECK_SECONDS))
		return 0;
	bool retry = k && streq(k->pool, pool) && k->state == SLOWIO_NOT_KNOWN;
	if (w->n_waiting == SLOWIO_QUEUE_MAX) {
		log_warning("%s: slow_io_n/slow_io_t of pool %s not read: %d checks wait already", d->name, pool,
			    SLOWIO_QUEUE_MAX);
		return -EBUSY;
	}
	Waiting *g = realloc(w->waiting, (w->n_waiting + 1) * sizeof *g);
	Known *mark = g ? known_add(w, d->sys.major, d->sys.minor) : NULL;
	if (g)
		w->waiting = g;
	if (!mark)
		return -ENOMEM;
	Waiting *q = &w->waiting[w->n_waiting++];
	*q = (Waiting){.major = d->sys.major, .minor = d->sys.minor};
	snprintf(q->pool, sizeof q->pool, "%s", pool);
	snprintf(q->device, sizeof q->device, "%s", d->name);
	*mark = (Known){.major = d->sys.major, .minor = d->sys.minor, .r = {.state = SLOWIO_CHECKING, .when = now}};
	snprintf(mark->r.pool, sizeof mark->r.pool, "%s", pool);
	const SlowIoPool *p = pool_want(w, pool, now, retry ? SLOWIO_RETRY_SECONDS : INFINITY);
	if (p && p->state == SLOWIO_CHECKING)
		return 0;	/* judged when it is read */
	/* read lately (or a run that could not start, judged already): judged
	 * now; no room to read it: not known, said at once */
	for (size_t wi = w->n_waiting; wi-- > 0;)
		if (w->waiting[wi].major == d->sys.major && w->waiting[wi].minor == d->sys.minor &&
		    streq(w->waiting[wi].pool, pool)) {
			Waiting now_q = w->waiting[wi];
			memmove(&w->waiting[wi], &w->waiting[wi + 1], (w->n_waiting - wi - 1) * sizeof now_q);
			w->n_waiting--;
			SlowIoPool none = {.state = SLOWIO_NOT_KNOWN, .when = now};
			snprintf(none.why, sizeof none.why, "too many pools to read");
			judge(w, &now_q, p ? p : &none);
			break;
		}
	return 0;
}

const SlowIoPool *slowio_pool(SlowIo *w, const char *pool, double now, double max_age)
{
	if (!w || !pool || !zpool_name_ok(pool))
		return NULL;
	return pool_want(w, pool, now, max_age);
}
