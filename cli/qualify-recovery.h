/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's writes after the checks, on the Engine's disk and clock: the
 * random writes to the cliff, the sequential ones, and the idle-recovery
 * step after a cliff: to the wait threshold, then rests of growing length
 * each followed by writes until one waits; what each took is a point on
 * the idle-recovery curve of the disk model (qualify-model.h has the
 * method, docs/qualify.md its limits). Every refill's writes are kept, so
 * that --discard can discard exactly them.
 */
#pragma once

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>

#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-opts.h"

#define MAX_REFILLS 16
/* Caches' worth of the write budget the refills may need: the warm-up's
 * and one after each rest, each up to one and a half of it. */
#define RECOVERY_KEEP 6.0

/* The bytes all the writes together may write: --write-budget, else 0.2%
 * of the disk within 4-64 GiB; never more than the disk. */
uint64_t qualify_write_budget(const Opts *o, uint64_t size);
/* Random writes of o->bs at o->iodepth anywhere on the disk until the rate
 * has fallen and stayed down for o->hold s, the budget or o->time_limit;
 * the cliff in them in *ret_cliff. */
int qualify_write_run(Engine *e, Phase *p, const Opts *o, uint64_t size, uint64_t budget,
		      const volatile sig_atomic_t *interrupt, bool live, CliffResult *ret_cliff);
/* Sequential 1 MiB writes for o->seq_seconds, at most `left` bytes;
 * -ENOSPC (nothing written) under 1 MiB. */
int qualify_seq_run(Engine *e, Phase *p, const Opts *o, uint64_t size, uint64_t left,
		    const volatile sig_atomic_t *interrupt, bool live);

typedef struct Recovery {
	/* given */
	const Opts *o;
	uint64_t size;				/* the disk's: writes land anywhere on it */
	FILE *out;				/* progress lines; NULL: none (--json) */
	const volatile sig_atomic_t *interrupt;
	bool live;				/* a progress line on stderr */
	QualifyModel *model;			/* its cache known; the recovery goes in */
	const CliffResult *cliff;
	double time_left, bytes_left;		/* of --time-limit and the write budget */
	/* what was done */
	Phase fp[MAX_REFILLS];			/* the warm-up's refills, then one after each rest of the curve */
	Refill refill[MAX_REFILLS];
	unsigned n_fp;
} Recovery;

/* Runs it, or says in the model why it was skipped; the refills go into
 * phases' "refills". */
void recovery_run(Recovery *r, Engine *e, json_object *phases);
void recovery_done(Recovery *r);
