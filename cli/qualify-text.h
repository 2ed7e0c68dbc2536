/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's text, rendered from its report record (qualify-run.h) as
 * cli/output.c renders the other commands' replies: never built with
 * --json, which prints the record itself.
 */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/* What the disk says about itself: name, model, size, serial, and the
 * static classification with its evidence. */
void qualify_text_disk(FILE *f, json_object *rep);
/* What the run learnt: the discard, the reads, the verdict and its
 * limits, the disk model and how to seed smrd with it. */
void qualify_text_result(FILE *f, json_object *rep);
/* A read phase (its size in bytes, the "reads" member of that size):
 * "read 4K      150 IOPS  p50 8.0 ms  p99 ...  bands: ..." */
void qualify_text_read(FILE *f, const char *bytes, json_object *x);
/* The report's disk_model as text lines, for the text and the SVG. */
#define QUALIFY_LINE 160
#define QUALIFY_MODEL_LINES 10	/* four figures, the curve's two lines, four skipped */
unsigned qualify_text_model_lines(json_object *model, char lines[][QUALIFY_LINE], unsigned max);
