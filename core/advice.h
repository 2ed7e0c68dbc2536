/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What to do now about a disk, and why (pure): one place for the advice
 * that notifications, the pages and smrctl rebuild-check give, chosen by
 * the disk's state rather than by the kind of event alone. Above all:
 * while a rebuild writes onto the disk, the advice is about that rebuild
 * (let it finish, how long; or stop it and rebuild onto a CMR disk, and
 * how for its kind; what not to run meanwhile), never "do not start a
 * rebuild". The runbook anchor names the section of docs/alerts.md (served
 * at /docs/alerts) that says more.
 */
#pragma once

#include <stdbool.h>

#include "classify.h"
#include "events.h"
#include "rebuildstate.h"

#define ADVICE_TEXT_MAX 1536

typedef struct AdviceFacts {
	DiskClass disk_class;		/* as classified now */
	bool storm;			/* a destage storm under way on it */
	const RebuildState *rebuild;	/* the rebuild onto it as followed (running, or as it ended); NULL none */
	DetectEventKind kind;		/* what prompts the advice; _EVENT_KIND_INVALID: the disk's state alone */
	const char *device;		/* "sdb", for the commands it names; NULL: "DISK" */
} AdviceFacts;

typedef struct Advice {
	char text[ADVICE_TEXT_MAX];	/* the one thing to do now and why; "" nothing to do */
	const char *anchor;		/* docs/alerts.md's section ("smrrebuildslow"); "" none */
} Advice;

/* Whether a rebuild writes onto the disk now (f->rebuild running). */
bool advice_rebuilding(const AdviceFacts *f);
/* Fills *ret for f. */
void advice_for(const AdviceFacts *f, Advice *ret);
