/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qualification's report: the JSON document (phases, per-second rows,
 * latency summaries with bands, the verdict) and the SVG plot of IOPS and
 * latency over time; the text is qualify-text.c's, from the JSON.
 */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-verdict.h"

json_object *report_hist(const Hist *h);
json_object *report_seconds(const Phase *p);
/* The write phase with its cliff. */
json_object *report_write_phase(const Phase *p, const CliffResult *c);
/* A read phase with its rate. */
json_object *report_read_phase(const Phase *p);
json_object *report_seq_phase(const Phase *p);
json_object *report_verdict(const QualifyVerdict *v);
json_object *report_refill(const Phase *p, const Refill *f);
/* The disk_model object: each figure with its uncertainty and method,
 * absent where not measured, and what was skipped. */
json_object *report_model(const QualifyModel *q);
#define REPORT_PHASES 32

/* What the plot shows: who, when and what was found above; every phase of
 * the run on one time axis, in the order they ran, with the rests between
 * them; the disk model below. */
typedef struct ReportPlot {
	const char *title;			/* the device and its model */
	const char *serial, *date;		/* "" where unknown */
	const char *verdict;			/* the verdict's text, or why there is none */
	const Phase *phase[REPORT_PHASES];
	double rest_before[REPORT_PHASES];	/* seconds of idle before each phase */
	unsigned n;
	double cliff_t;				/* seconds into phase[0] where it fell; NaN: no cliff */
	json_object *model;			/* the report's disk_model, or NULL */
} ReportPlot;

/* Two panels over time: IOPS (log) and mean latency (log), into f
 * (closed here). A last second that ran a fraction of one is left out: its
 * rate is that of the few I/Os that drained the queue. */
int report_svg(FILE *f, const ReportPlot *p);
/* A new report file: never an existing one, never through a symbolic link
 * (qualify runs as root, often in a directory others can write); -EEXIST
 * when the name is taken. */
int report_create(const char *path, FILE **ret);
/* A name for the files from what the disk says (its serial, else its
 * kernel name): letters, digits, '.', '-' and '_' only, never ".." or a
 * leading dot, so that a serial such as "x/../../etc/y" stays a name. */
void report_safe_name(const char *from, char *ret, size_t n);
