/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl's one output layer: every command hands its reply here, printed as
 * JSON with --json or as text for a terminal.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* Each renders a command's result object as text. */
void output_status(FILE *f, json_object *r);
void output_disks(FILE *f, json_object *r);
void output_show(FILE *f, json_object *r);
/* One screen of smrctl top: a line per disk, like iostat. */
void output_top(FILE *f, json_object *r);
void output_events(FILE *f, json_object *r);
void output_incidents(FILE *f, json_object *r);
/* smrctl rebuilds: a line per disk a rebuild was followed onto. */
void output_rebuilds(FILE *f, json_object *r);
void output_reload(FILE *f, json_object *r);
/* A reload whose reply lists options only a restart applies. */
bool output_reload_incomplete(json_object *r);
void output_forget(FILE *f, json_object *r);
void output_reread(FILE *f, json_object *r);
/* A classification's evidence, * before the decisive ones. */
void output_evidence(FILE *f, json_object *ev);
/* A reply's members: "" for a string that is not there, NaN for a number, NULL. */
const char *output_str(json_object *o, const char *key);
double output_num(json_object *o, const char *key);
/* false for a time no time_t holds (NaN, absent, absurd) */
bool output_tm(double t, bool utc, struct tm *tm);
json_object *output_get(json_object *o, const char *key);
/* The array member key of r (in *ret_list, NULL if absent) and its length, 0
 * unless it is an array; a list that is empty prints the line none, if any. */
size_t output_list(FILE *f, json_object *r, const char *key, const char *none, json_object **ret_list);
/* Pretty-prints any reply as JSON. */
void output_json(FILE *f, json_object *r);
/* Text for a terminal: control characters (C0, DEL, C1, and bytes that are
 * no UTF-8) as \xNN, so that a string from the daemon (a model, a serial,
 * an event read back from a history file someone wrote) cannot move the
 * cursor, retitle the window or hide a line. Returns a malloc'd copy. */
char *output_escape(const char *s);
/* Every string in r escaped so, in place: before any text rendering. */
void output_make_safe(json_object *r);
/* A size as lsblk writes it ("931.5G"; core/output/format.h), into buf. */
const char *output_bytes(double v, char *buf, size_t n);
/* Seconds as a latency ("850 us", "12 ms", "1.2 s", "-" for null), and
 * "<1 ms" for diskstats' 0 (it counts whole milliseconds). */
const char *output_latency(json_object *v, char *buf, size_t n);
/* core/output/format.h's duration: "140 us", "7.9 ms", "1.62 s"; "-" for NaN */
const char *output_seconds(double s, char *buf, size_t n);
