/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One leaf at a time: read what ZFS has (a get, not in the pool's
 * history), then set what differs, one property a run (`zpool set` takes
 * one). A leaf is followed from the first sample that finds its disk
 * classified in a pool, so a restart reads before it writes: what an
 * earlier smrd wrote is not written again.
 */
#include "zfsannotate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "childrun.h"
#include "log.h"
#include "util.h"

#define SYNC_EVERY_SECONDS 2.0	/* a class changes rarely; the comparison walks every member */

typedef enum Step { STEP_GET, STEP_SET_CLASS, STEP_SET_CONFIDENCE } Step;

typedef struct Entry {
	ZfsAnnotation pub;
	VdevClass want;
	bool pending;			/* to read, and write what differs */
} Entry;

struct ZfsAnnotate {
	sd_event *event;
	const Config *cfg;
	char **env;
	ChildRun *run;
	Entry *v;
	size_t n, cap;
	ssize_t current;		/* the entry under way, -1 none */
	Step step;
	double now, synced;
	bool full_said;
	uint64_t runs;
};

int zfsannotate_new(sd_event *e, Reaper *reaper, const Config *cfg, ZfsAnnotate **ret)
{
	ZfsAnnotate *z = calloc(1, sizeof *z);
	if (!z)
		return -ENOMEM;
	*z = (ZfsAnnotate){.event = sd_event_ref(e), .cfg = cfg, .current = -1};
	static const char *const drop[] = {"LC_ALL=", "ZFS_COLOR=", NULL};
	static const char *const add[] = {"LC_ALL=C", NULL};
	int r = childrun_env_new(drop, add, &z->env);
	if (r >= 0)
		r = childrun_new(e, reaper, &z->run);
	if (r < 0)
		return zfsannotate_free(z), r;
	*ret = z;
	return 0;
}

ZfsAnnotate *zfsannotate_free(ZfsAnnotate *z)
{
	if (!z)
		return NULL;
	z->run = childrun_free(z->run);
	childrun_env_free(z->env);
	free(z->v);
	sd_event_unref(z->event);
	free(z);
	return NULL;
}

uint64_t zfsannotate_runs(const ZfsAnnotate *z) { return z->runs; }

bool zfsannotate_busy(const ZfsAnnotate *z)
{
	for (size_t i = 0; i < z->n; i++)
		if (z->v[i].pending)
			return true;
	return z->current >= 0;
}

static Entry *find(const ZfsAnnotate *z, const char *pool, const char *vdev)
{
	for (size_t i = 0; i < z->n; i++)
		if (streq(z->v[i].pub.vdev, vdev) && streq(z->v[i].pub.pool, pool))
			return &z->v[i];
	return NULL;
}

/* The disk's ZFS membership smrd can name to zpool, or NULL. */
static const Membership *zfs_member(const Disk *d)
{
	for (unsigned i = 0; i < d->n_members; i++)
		if (d->members[i].type == MEMBER_ZFS && d->members[i].vdev_guid[0] && zpool_name_ok(d->members[i].name))
			return &d->members[i];
	return NULL;
}

const ZfsAnnotation *zfsannotate_of(const ZfsAnnotate *z, const Disk *d)
{
	const Membership *m = z ? zfs_member(d) : NULL;
	const Entry *e = m ? find(z, m->name, m->vdev_guid) : NULL;
	return e ? &e->pub : NULL;
}

static const char *cmd(const ZfsAnnotate *z)
{
	return z->cfg->zpool_command && *z->cfg->zpool_command ? z->cfg->zpool_command : "";
}

static void start_next(ZfsAnnotate *z);

static void failed(ZfsAnnotate *z, Entry *e, const char *fmt, ...) _printf_(3, 4);
static void failed(ZfsAnnotate *z, Entry *e, const char *fmt, ...)
{
	char why[sizeof e->pub.error];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (!streq(why, e->pub.error))
		log_warning("zfs-annotate: %s vdev %s: %s (tried again in %.0f min)", e->pub.pool, e->pub.vdev, why,
			    ZFSANNOTATE_RETRY_SECONDS / 60);
	snprintf(e->pub.error, sizeof e->pub.error, "%s", why);
	e->pub.failed = z->now;
}

static void on_done(const ChildRunResult *res, void *userdata);

/* Runs the current entry's step; false when it could not start (failed then). */
static bool run_step(ZfsAnnotate *z)
{
	Entry *e = &z->v[z->current];
	char prop[96];
	char *get[] = {(char *)cmd(z), "get", "-H", "-o", "value", VDEV_CLASS_PROP "," VDEV_CONFIDENCE_PROP, e->pub.pool,
		       e->pub.vdev, NULL};
	char *set[] = {(char *)cmd(z), "set", prop, e->pub.pool, e->pub.vdev, NULL};
	if (z->step == STEP_SET_CLASS)
		snprintf(prop, sizeof prop, "%s=%s", VDEV_CLASS_PROP, e->want.class);
	else
		snprintf(prop, sizeof prop, "%s=%s", VDEV_CONFIDENCE_PROP, e->want.confidence);
	if (z->step != STEP_GET)
		log_info("zfs-annotate: %s set %s %s %s", cmd(z), prop, e->pub.pool, e->pub.vdev);
	z->runs++;
	int r = !*cmd(z) ? -ENOENT : childrun_start(z->run, z->step == STEP_GET ? get : set, z->env, VDEV_GET_MAX,
						     ZFSANNOTATE_TIMEOUT_USEC, on_done, z);
	if (r < 0)
		failed(z, e, "%s could not run: %s", *cmd(z) ? cmd(z) : "(no zpool-command)", strerror(-r));
	return r >= 0;
}

/* The next step the entry needs after the one done; false: none. */
static bool next_step(ZfsAnnotate *z, Entry *e)
{
	if (z->step == STEP_GET && vdev_class_differs(&e->pub.have, &e->want))
		z->step = STEP_SET_CLASS;
	else if (z->step != STEP_SET_CONFIDENCE && vdev_confidence_differs(&e->pub.have, &e->want))
		z->step = STEP_SET_CONFIDENCE;
	else
		return false;
	return true;
}

static void done(ZfsAnnotate *z)
{
	z->v[z->current].pending = false;
	z->current = -1;
	start_next(z);
}

static void on_done(const ChildRunResult *res, void *userdata)
{
	ZfsAnnotate *z = userdata;
	Entry *e = &z->v[z->current];
	const char *what = z->step == STEP_GET ? "get" : "set";
	if (res->timed_out || res->too_big || !res->exited || res->status != 0) {
		/* OpenZFS before 2.2 has no vdev properties: a usage error */
		failed(z, e, "%s %s: %s", cmd(z), what, res->timed_out ? "ran too long: killed" : res->too_big
				? "printed too much: killed" : !res->exited ? "killed by a signal"
				: res->status == 2 ? "exit 2 (an OpenZFS older than 2.2?)" : "failed");
		return done(z);
	}
	if (z->step == STEP_GET) {
		if (vdev_class_parse(res->out, res->out_len, &e->pub.have) < 0) {
			failed(z, e, "%s get: output of another shape", cmd(z));
			return done(z);
		}
		e->pub.read = true;
	} else {
		if (z->step == STEP_SET_CLASS)
			memcpy(e->pub.have.class, e->want.class, sizeof e->pub.have.class);
		else
			memcpy(e->pub.have.confidence, e->want.confidence, sizeof e->pub.have.confidence);
		e->pub.written = z->now;
	}
	e->pub.error[0] = 0;
	e->pub.failed = 0;
	if (!next_step(z, e) || !run_step(z))
		done(z);
}

static void start_next(ZfsAnnotate *z)
{
	for (size_t i = 0; z->current < 0 && i < z->n; i++) {
		if (!z->v[i].pending)
			continue;
		z->current = (ssize_t)i;
		z->step = STEP_GET;
		if (!run_step(z)) {
			z->v[i].pending = false;
			z->current = -1;
		}
	}
}

static Entry *add(ZfsAnnotate *z, const char *pool, const char *vdev)
{
	if (z->n >= ZFSANNOTATE_MAX) {
		if (!z->full_said)
			log_warning("zfs-annotate: more than %d vdevs: the others are left alone", ZFSANNOTATE_MAX);
		z->full_said = true;
		return NULL;
	}
	if (z->n == z->cap) {
		size_t cap = z->cap ? 2 * z->cap : 16;
		Entry *v = realloc(z->v, cap * sizeof *v);
		if (!v)
			return NULL;
		z->v = v;
		z->cap = cap;
	}
	Entry *e = &z->v[z->n++];
	*e = (Entry){0};
	snprintf(e->pub.pool, sizeof e->pub.pool, "%s", pool);
	snprintf(e->pub.vdev, sizeof e->pub.vdev, "%s", vdev);
	return e;
}

void zfsannotate_sync(ZfsAnnotate *z, DiskRegistry *disks, double now)
{
	if (!z || !z->cfg->zfs_annotate || (z->synced > 0 && now - z->synced < SYNC_EVERY_SECONDS && now >= z->synced))
		return;
	z->synced = z->now = now;
	for (size_t i = 0; i < registry_size(disks); i++) {
		const Disk *d = registry_at(disks, i);
		const Membership *m = zfs_member(d);
		DiskClass c = disk_class(d);
		if (!m || c == DISK_CLASS_UNKNOWN)
			continue;
		Entry *e = find(z, m->name, m->vdev_guid);
		if (!e && !(e = add(z, m->name, m->vdev_guid)))
			continue;
		vdev_class_of(c, disk_smr_confidence(d), &e->want);
		bool differs = !e->pub.read || vdev_class_differs(&e->pub.have, &e->want) ||
			       vdev_confidence_differs(&e->pub.have, &e->want);
		bool waiting = e->pub.failed > 0 && now - e->pub.failed < ZFSANNOTATE_RETRY_SECONDS;
		if (differs && !waiting)
			e->pending = true;
	}
	start_next(z);
}
