/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's measurement after the checks, on whatever disk the Engine
 * drives (the real one, or a model in a test's virtual time): the phases,
 * the verdict and the disk model, all into one report record (a
 * json_object, as every other smrctl command's reply is). The text is
 * rendered from that record (qualify-text.c), and only without --json:
 * with it no text is built, not even the progress lines, and the record
 * is printed as it is.
 */
#pragma once

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>

#include "classify.h"
#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-opts.h"
#include "qualify-recovery.h"
#include "util.h"

typedef struct QualifyRun {
	/* given */
	Opts o;
	uint64_t size;				/* bytes: the writes and reads land anywhere below */
	DiskClass static_class;
	const volatile sig_atomic_t *interrupt;
	FILE *out;				/* the text (o.json: nothing is written to it) */
	json_object *rep;			/* the report, begun by the caller */
	/* what was done */
	Phase wp, sp, rp[MAX_SIZES];
	Recovery rec;				/* the refills */
	QualifyModel model;
	uint64_t budget;			/* bytes all the writes together may write */
	CliffResult cliff;
	bool learned;
} QualifyRun;

/* The most the whole run takes, every phase and rest (a read-only run:
 * about this), in seconds. */
double qualify_run_seconds(const Opts *o);
/* A progress line for the terminal: said only in text mode. */
void qualify_say(const QualifyRun *r, const char *fmt, ...) _printf_(2, 3);
/* The phases (destructive: writes, sequential writes, idle recovery, a
 * rest; then reads) into the report's "phases". */
void qualify_measure(QualifyRun *r, Engine *e);
/* The I/O error that ended a phase, if one did: the run stops there. */
const char *qualify_run_error(const QualifyRun *r);
/* The verdict, "interrupted", and (destructive) the disk model into the report. */
void qualify_conclude(QualifyRun *r);
/* What the run learnt, to out: the report as JSON (--json), else as text. */
void qualify_emit(const QualifyRun *r);
void qualify_run_done(QualifyRun *r);
struct ReportPlot;
/* The phases that ran, in order, with the rests between them and the
 * cliff, and the verdict's text (or why there is none), for the plot; the
 * caller sets who and when. */
void qualify_plot(const QualifyRun *r, struct ReportPlot *ret);
