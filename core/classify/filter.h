/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which devices are watched: --include and --exclude, regular expressions
 * over device names as node_exporter takes them (PCRE2, unanchored: write
 * ^...$ for a whole name). A device is watched when it matches include (or there is
 * none) and not exclude; a stacked one (dm, md, bcache, a zvol) only with
 * watch-stacked, or when an include names it: its member disks are what
 * shingles.
 */
#pragma once

#include <stdbool.h>

#include "pattern.h"

typedef struct DeviceFilter DeviceFilter;

/* Empty strings mean "no such rule". -EINVAL with ret_why[] for a pattern
 * that is refused. */
int filter_new(const char *include, const char *exclude, bool watch_stacked, DeviceFilter **ret,
	       char ret_why[static PATTERN_WHY_MAX]);
DeviceFilter *filter_free(DeviceFilter *f);
/* A name whose match hit PCRE2's limits is not watched. */
bool filter_wants(const DeviceFilter *f, const char *name);
/* For a stacked device that filter_wants(): whether it is watched all the same. */
bool filter_wants_stacked(const DeviceFilter *f);
