/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disks' incidents (incidentlog.h): a track per disk key, grown as
 * disks are heard of.
 */
#include "incidentlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

typedef struct Track {
	char key[DISK_KEY_MAX];
	IncidentTrack t;
	bool dirty;			/* counts grown since it was last written */
} Track;

struct IncidentLog {
	History *history;
	DiskRegistry *disks;
	Track *tracks;
	size_t n, cap;
	uint64_t opened[_INCIDENT_KIND_MAX];
};

static const char *key_of(const IncidentLog *l, const Disk *d, char buf[DISK_KEY_MAX])
{
	registry_disk_key(l->disks, d, buf);
	if (!buf[0])
		snprintf(buf, DISK_KEY_MAX, "%s", d->name);
	return buf;
}

static Track *find(const IncidentLog *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->tracks[i].key, key))
			return &l->tracks[i];
	return NULL;
}

static Track *get(IncidentLog *l, const char *key)
{
	Track *t = find(l, key);
	if (t)
		return t;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		Track *x = realloc(l->tracks, cap * sizeof *x);
		if (!x)
			return NULL;
		l->tracks = x, l->cap = cap;
	}
	t = &l->tracks[l->n++];
	*t = (Track){0};
	snprintf(t->key, sizeof t->key, "%s", key);
	return t;
}

static int restored(const Incident *i, void *userdata)
{
	IncidentLog *l = userdata;
	Track *t = get(l, i->disk_id[0] ? i->disk_id : i->device);
	if (t) {
		t->t.open = *i;
		t->t.active = true;
	}
	return 0;
}

int incidentlog_new(History *history, DiskRegistry *disks, IncidentLog **ret)
{
	IncidentLog *l = calloc(1, sizeof *l);
	if (!l)
		return -ENOMEM;
	*l = (IncidentLog){.history = history, .disks = disks};
	HistoryIncidentFilter f = {.open_only = true, .limit = 4096};
	if (history && history_query_incidents(history, &f, restored, l) < 0)
		log_warning("history: the open incidents could not be read: each disk's next event begins a new one");
	*ret = l;
	return 0;
}

IncidentLog *incidentlog_free(IncidentLog *l)
{
	if (!l)
		return NULL;
	free(l->tracks);
	free(l);
	return NULL;
}

/* Written now, or kept by the history until its database takes it. */
static void save(IncidentLog *l, Track *t)
{
	if (l->history)
		(void)history_put_incident(l->history, &t->t.open);
	t->dirty = false;
}

static bool rebuilding(const Disk *d)
{
	return d && disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING;
}

IncidentChange incidentlog_take(IncidentLog *l, Disk *d, const IncidentInput *in, const Incident **ret,
				IncidentEndedFn ended, void *userdata)
{
	char key[DISK_KEY_MAX];
	*ret = NULL;
	Track *t = get(l, key_of(l, d, key));
	if (!t)
		return INCIDENT_UNTOUCHED;	/* no memory: a row of its own */
	IncidentInput x = *in;
	x.rebuilding = rebuilding(d);
	if (incident_expire(&t->t, x.time_usec, x.rebuilding)) {
		save(l, t);
		if (ended)
			ended(d, &t->t.open, userdata);
	}
	bool was_active = t->t.active;
	IncidentChange c = incident_take(&t->t, &x, d->name, key);
	if (c == INCIDENT_UNTOUCHED)
		return c;
	snprintf(t->t.open.device, sizeof t->t.open.device, "%s", d->name);	/* renamed since: the same disk */
	if (c == INCIDENT_OPENED || (c == INCIDENT_CLOSED && !was_active))
		l->opened[t->t.open.kind]++;
	if (c == INCIDENT_COUNTED)
		t->dirty = true;	/* written once a sample, not once a stall */
	else
		save(l, t);
	*ret = &t->t.open;
	return c;
}

void incidentlog_upkeep(IncidentLog *l, uint64_t now, IncidentEndedFn ended, void *userdata)
{
	for (size_t i = 0; i < l->n; i++) {
		Track *t = &l->tracks[i];
		if (!t->t.active)
			continue;
		Disk *d = registry_get(l->disks, t->t.open.device);
		if (incident_expire(&t->t, now, rebuilding(d))) {
			save(l, t);
			if (ended)
				ended(d, &t->t.open, userdata);
		} else if (t->dirty)
			save(l, t);
	}
}

const Incident *incidentlog_open_of(const IncidentLog *l, const Disk *d)
{
	char key[DISK_KEY_MAX];
	const Track *t = find(l, key_of(l, d, key));
	return t && t->t.active ? &t->t.open : NULL;
}

const Incident *incidentlog_find(const IncidentLog *l, const char *id)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (l->tracks[i].t.active && streq(l->tracks[i].t.open.id, id))
			return &l->tracks[i].t.open;
	return NULL;
}

uint64_t incidentlog_opened(const IncidentLog *l, IncidentKind k)
{
	return l && (unsigned)k < _INCIDENT_KIND_MAX ? l->opened[k] : 0;
}

unsigned incidentlog_open(const IncidentLog *l, IncidentKind k)
{
	unsigned n = 0;
	for (size_t i = 0; l && i < l->n; i++)
		n += l->tracks[i].t.active && l->tracks[i].t.open.kind == k;
	return n;
}
