/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qualification's report: the JSON document (phases, per-second rows,
 * latency summaries with bands, the verdict), the SVG plot of IOPS and
 * latency over time, and the text lines for the terminal.
 */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "qualify-engine.h"
#include "qualify-verdict.h"

json_object *report_hist(const Hist *h);
json_object *report_seconds(const Phase *p);
/* The write phase with its cliff. */
json_object *report_write_phase(const Phase *p, const CliffResult *c);
/* A read phase with its rate. */
json_object *report_read_phase(const Phase *p);
json_object *report_seq_phase(const Phase *p);
json_object *report_verdict(const QualifyVerdict *v);
/* Two panels over time: IOPS (log) and mean latency (log). */
int report_svg(const char *path, const Phase *p, const char *title);
/* "read 4 KiB   150 IOPS  p50 8.0ms  p99 ...  bands: ..." */
void report_read_line(FILE *f, const Phase *p);
