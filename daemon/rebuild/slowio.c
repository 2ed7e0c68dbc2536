/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status -P and zpool get as children of the event loop (slowio.h).
 * One check at a time, its two runs one after the other; each run in a
 * session of its own (a kill reaches what it started), stdin /dev/null,
 * stderr discarded, its output read as it comes and bounded, its time
 * bounded. The disk is remembered by device number, not by pointer: it
 * may be gone when zpool answers.
 */
#include "slowio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "childrun.h"
#include "log.h"
#include "util.h"

typedef struct Request {
	char pool[ZPOOL_NAME_MAX + 1];
	unsigned major, minor;
	char device[32];
} Request;

typedef struct Known {
	unsigned major, minor;
	SlowIoResult r;
} Known;

struct SlowIo {
	sd_event *event;
	char *const *zpool;
	char **env;
	SlowIoCallbacks cb;
	Request queue[SLOWIO_QUEUE_MAX];
	unsigned n_queue;
	/* the check under way: queue[0] */
	bool running, getting;		/* a run of it is under way; the second one (zpool get) */
	VdevTree *tree;			/* from the first run */
	ChildRun *run;
	Known known[SLOWIO_KNOWN_MAX];
	unsigned n_known;
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
	*w = (SlowIo){.event = sd_event_ref(e), .zpool = zpool};
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

SlowIo *slowio_free(SlowIo *w)
{
	if (!w)
		return NULL;
	w->run = childrun_free(w->run);	/* a run under way is killed and reaped */
	w->tree = vdev_tree_free(w->tree);
	childrun_env_free(w->env);
	sd_event_unref(w->event);
	free(w);
	return NULL;
}

static int known_index(const SlowIo *w, unsigned major, unsigned minor)
{
	for (unsigned i = 0; i < w->n_known; i++)
		if (w->known[i].major == major && w->known[i].minor == minor)
			return (int)i;
	return -1;
}

/* The disk's record, made if new (when full, in place of the oldest). */
static Known *known_add(SlowIo *w, unsigned major, unsigned minor)
{
	int i = known_index(w, major, minor);
	if (i >= 0)
		return &w->known[i];
	unsigned at = 0;
	if (w->n_known < SLOWIO_KNOWN_MAX)
		at = w->n_known++;
	else
		for (unsigned k = 1; k < SLOWIO_KNOWN_MAX; k++)
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

/* --------------------------------------------------------------- runs */

static void on_done(const ChildRunResult *res, void *userdata);

static int spawn(SlowIo *w, char *const argv[])
{
	if (!argv[0] || !*argv[0])
		return -ENOENT;
	return childrun_start(w->run, argv, w->env, VDEV_PROPS_INPUT_MAX, SLOWIO_TIMEOUT_USEC, on_done, w);
}

static int spawn_status(SlowIo *w)
{
	char *argv[] = {*w->zpool, "status", "-P", w->queue[0].pool, NULL};
	w->getting = false;
	return spawn(w, argv);
}

static int spawn_get(SlowIo *w)
{
	char *argv[] = {*w->zpool, "get", "-H", "-p", "-o", "name,property,value,source", "slow_io_n,slow_io_t",
			w->queue[0].pool, "all-vdevs", NULL};
	w->getting = true;
	return spawn(w, argv);
}

static void start_next(SlowIo *w);

/* The check under way ended: its result kept and, when it can trip,
 * heard about d (found by the leaf's path just now), the next one started. */
static void finish(SlowIo *w, const SlowIoResult *res, Disk *d)
{
	Request q = w->queue[0];
	w->tree = vdev_tree_free(w->tree);
	w->running = false;
	memmove(&w->queue[0], &w->queue[1], (w->n_queue - 1) * sizeof w->queue[0]);
	w->n_queue--;
	Known *k = known_add(w, q.major, q.minor);
	k->r = *res;
	k->r.when = (double)now_usec(CLOCK_REALTIME) / 1e6;
	if (res->state == SLOWIO_NOT_KNOWN)
		log_info("%s: slow_io_n/slow_io_t in pool %s not known: %s", q.device, q.pool, res->text);
	else
		log_debug("%s: slow_io_n/slow_io_t in pool %s: %s", q.device, q.pool, slowio_state_to_string(res->state));
	if (res->state == SLOWIO_CAN_TRIP && d && w->cb.found)
		w->cb.found(d, &k->r, w->cb.userdata);
	start_next(w);
}

static void not_known(SlowIo *w, const char *fmt, ...) _printf_(2, 3);
static void not_known(SlowIo *w, const char *fmt, ...)
{
	SlowIoResult r = {.state = SLOWIO_NOT_KNOWN};
	snprintf(r.pool, sizeof r.pool, "%s", w->queue[0].pool);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r.text, sizeof r.text, fmt, ap);
	va_end(ap);
	finish(w, &r, NULL);
}

/* The tree's leaf on the requested disk (by device number), the one being
 * resilvered first; -1 none. *ret_disk the disk. */
static int leaf_of(SlowIo *w, Disk **ret_disk)
{
	int found = -1;
	for (size_t i = 0; w->cb.map && i < w->tree->n; i++) {
		const VdevNode *v = &w->tree->nodes[i];
		Disk *d = NULL;
		if (!v->leaf || v->name[0] != '/' || w->cb.map(v->name, &d, w->cb.userdata) < 0 ||
		    d->sys.major != w->queue[0].major || d->sys.minor != w->queue[0].minor)
			continue;
		if (found < 0 || (v->resilvering && !w->tree->nodes[found].resilvering)) {
			found = (int)i;
			*ret_disk = d;
		}
	}
	return found;
}

/* Both outputs read: the disk's leaf, its setting, the judgement. */
static void judge(SlowIo *w, const VdevProps *p)
{
	Disk *d = NULL;
	int leaf = leaf_of(w, &d);
	if (leaf < 0)
		return not_known(w, "zpool status -P %s lists no leaf on %s", w->queue[0].pool, w->queue[0].device);
	SlowIoResult r = {0};
	_cleanup_free_ char *error = NULL;
	if (slow_io_resolve(w->tree, (size_t)leaf, p, &r.setting, &error) < 0)
		return not_known(w, "%s", error ?: "zpool get does not list its vdevs");
	snprintf(r.pool, sizeof r.pool, "%s", w->queue[0].pool);
	r.state = r.setting.can_trip ? SLOWIO_CAN_TRIP : r.setting.armed ? SLOWIO_SAFE : SLOWIO_UNSET;
	if (r.state == SLOWIO_CAN_TRIP)
		slow_io_text(&r.setting, r.pool, d->name, r.text);
	finish(w, &r, d);
}

static void on_done(const ChildRunResult *res, void *userdata)
{
	SlowIo *w = userdata;
	bool getting = w->getting, exited0 = res->exited && res->status == 0;
	const char *how = getting ? "get ... slow_io_n,slow_io_t" : "status -P";
	char why[160] = "";
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
	if (!getting) {
		int r = vdev_tree_parse(res->out, res->out_len, w->queue[0].pool, &w->tree, &error);
		if (r < 0)
			return not_known(w, "%s", error ?: strerror(-r));
		if ((r = spawn_get(w)) < 0)
			not_known(w, "%s get could not run: %s", cmd(w), strerror(-r));
		return;
	}
	VdevProps *p = NULL;
	int r = vdev_props_parse(res->out, res->out_len, &p, &error);
	if (r < 0)
		return not_known(w, "%s", error ?: strerror(-r));
	judge(w, p);
	vdev_props_free(p);
}

static void start_next(SlowIo *w)
{
	while (!w->running && w->n_queue > 0) {
		w->running = true;
		int r = spawn_status(w);
		if (r < 0)
			not_known(w, "%s could not run: %s", cmd(w), strerror(-r));
	}
}

int slowio_check(SlowIo *w, const Disk *d, const char *pool, double now)
{
	if (!w)
		return 0;
	if (!pool || !zpool_name_ok(pool))
		return -EINVAL;
	for (unsigned q = 0; q < w->n_queue; q++)
		if (w->queue[q].major == d->sys.major && w->queue[q].minor == d->sys.minor && streq(w->queue[q].pool, pool))
			return 0;
	int i = known_index(w, d->sys.major, d->sys.minor);
	const SlowIoResult *k = i >= 0 ? &w->known[i].r : NULL;
	if (k && streq(k->pool, pool) &&
	    now - k->when < (k->state == SLOWIO_NOT_KNOWN ? SLOWIO_RETRY_SECONDS : SLOWIO_RECHECK_SECONDS))
		return 0;
	if (w->n_queue == SLOWIO_QUEUE_MAX) {
		log_warning("%s: slow_io_n/slow_io_t of pool %s not read: %d checks wait already", d->name, pool,
			    SLOWIO_QUEUE_MAX);
		return -EBUSY;
	}
	Request *q = &w->queue[w->n_queue++];
	*q = (Request){.major = d->sys.major, .minor = d->sys.minor};
	snprintf(q->pool, sizeof q->pool, "%s", pool);
	snprintf(q->device, sizeof q->device, "%s", d->name);
	Known *mark = known_add(w, d->sys.major, d->sys.minor);
	*mark = (Known){.major = d->sys.major, .minor = d->sys.minor, .r = {.state = SLOWIO_CHECKING, .when = now}};
	snprintf(mark->r.pool, sizeof mark->r.pool, "%s", pool);
	start_next(w);
	return 0;
}
