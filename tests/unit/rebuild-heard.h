/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the rebuild tests hear of the rebuilds onto their disk (always
 * "sdb"): the warnings and ends the recorder hands on, as the notifier
 * would hear them, and each rebuild seen, by its disk and start.
 */
#pragma once

#include <stdio.h>

#include "recorder.h"
#include "test.h"

typedef struct RebuildHeard {
	DiskRegistry *r;		/* whose disks' rebuilds rebuild_starts() reads */
	unsigned warnings, ended;
	char message[320];		/* the last rebuild-done's */
	struct { char dev[32]; double started; } seen[16];
	unsigned n_seen;
} RebuildHeard;

/* The recorder's callback: userdata a RebuildHeard. */
static inline void rebuild_heard(Disk *d, const Recorded *r, void *userdata)
{
	RebuildHeard *x = userdata;
	DetectEventKind kind = r->kind;
	const HistoryEvent *h = r->event;
	x->warnings += kind == EVENT_REBUILD_WARNING;
	if (kind == EVENT_REBUILD_DONE) {
		CHECK_STR(d->name, "sdb");
		x->ended++;
		snprintf(x->message, sizeof x->message, "%s", h->message);
	}
}

/* The rebuilds seen so far, each by its disk and start (a disk's record
 * keeps the last one, running or ended, until another starts). */
static inline unsigned rebuild_starts(RebuildHeard *x)
{
	for (size_t i = 0; i < registry_size(x->r); i++) {
		const Disk *d = registry_at(x->r, i);
		const RebuildState *s = disk_rebuild(d);
		bool known = s->phase == REBUILD_PHASE_NONE;
		for (unsigned k = 0; k < x->n_seen && !known; k++)
			known = streq(x->seen[k].dev, d->name) && x->seen[k].started == s->started;
		if (!known && x->n_seen < ELEMENTSOF(x->seen)) {
			snprintf(x->seen[x->n_seen].dev, sizeof x->seen[0].dev, "%s", d->name);
			x->seen[x->n_seen++].started = s->started;
		}
	}
	return x->n_seen;
}
