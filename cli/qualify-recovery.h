/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's idle-recovery step (after a cliff): to the wait threshold, a
 * shorter rest and writes until one waits, a longer rest and the same;
 * the slope of what they took against the rests goes into the disk model
 * (qualify-model.h has the method, docs/qualify.md its limits). Every
 * refill's writes are kept, so that --discard can discard exactly them.
 */
#pragma once

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>

#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-opts.h"

#define MAX_REFILLS 16

typedef struct Recovery {
	/* given */
	const Opts *o;
	uint64_t size;				/* the disk's: writes land anywhere on it */
	FILE *out;
	const volatile sig_atomic_t *interrupt;
	bool live;				/* a progress line on stderr */
	QualifyModel *model;			/* its cache known; the recovery goes in */
	const CliffResult *cliff;
	double time_left, bytes_left;		/* of --time-limit and the write budget */
	/* what was done */
	Phase fp[MAX_REFILLS];			/* after no rest, the rests tried, the longer one */
	Refill refill[MAX_REFILLS];
	unsigned n_fp;
} Recovery;

/* Runs it, or says in the model why it was skipped; the refills go into
 * phases' "refills". */
void recovery_run(Recovery *r, Engine *e, json_object *phases);
void recovery_done(Recovery *r);
