/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl's one output layer: every command hands its reply here, printed as
 * JSON with --json or as text for a terminal.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

/* Each renders a command's result object as text. */
void output_status(FILE *f, json_object *r);
void output_disks(FILE *f, json_object *r);
void output_show(FILE *f, json_object *r);
/* One screen of smrctl top: a line per disk, like iostat. */
void output_top(FILE *f, json_object *r);
void output_events(FILE *f, json_object *r);
void output_reload(FILE *f, json_object *r);
void output_forget(FILE *f, json_object *r);
void output_probe(FILE *f, json_object *r);
/* Pretty-prints any reply as JSON. */
void output_json(FILE *f, json_object *r);
/* Formats a byte rate or size with SI units into buf. */
const char *output_bytes(double v, char *buf, size_t n);
/* Formats seconds as a latency ("850us", "12.3ms", "1.20s", "-" for null). */
const char *output_latency(json_object *v, char *buf, size_t n);
/* 140us, 7.9ms, 1.62s; "-" for NaN */
const char *output_seconds(double s, char *buf, size_t n);
