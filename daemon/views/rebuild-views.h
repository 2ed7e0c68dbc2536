/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every view shows of the rebuilds smrd follows onto its disks
 * (daemon/rebuild/rebuilds.c fills each disk's RebuildState): the metrics,
 * the control command `rebuilds` (smrctl rebuilds), and the line the
 * pages print. Formatting only.
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "context.h"
#include "metrics.h"
#include "protocol.h"

/* smrd_rebuild_*: one series per disk a rebuild is being written onto,
 * added in the exporter's one pass over the disks. */
typedef struct RebuildFamilies {
	MetricFamily *info, *total, *done, *rate, *elapsed, *started, *eta, *expected;
} RebuildFamilies;
void rebuild_families(MetricSet *set, RebuildFamilies *ret);
/* d's series, if a rebuild runs onto it; dev its {device="..."}. */
void rebuild_samples(const RebuildFamilies *f, const Disk *d, MetricLabels dev);
/* A disk's rebuild as JSON (the keys of docs/protocol.md's rebuilds). */
json_object *rebuild_json(const Disk *d);
/* {"rebuilds":[...]}: every disk with a rebuild seen since start, running ones first. */
int commands_rebuilds(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
/* "resilver of tank: 41% of 3.6T at 25 MB/s, 2.1 h left (expected 4.2 days)", "" for none. */
const char *rebuild_line(const Disk *d, char *buf, size_t n);
/* The same in a few words for a table cell, as a phone keeps it: "resilver
 * of tank: 41%, 2.1 h left"; "" unless one runs. */
const char *rebuild_short(const Disk *d, char *buf, size_t n);
