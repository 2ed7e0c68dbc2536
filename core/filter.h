/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which devices are watched: --include and --exclude, node_exporter-style
 * regular expressions (\d allowed) over device names, bounded before they
 * are compiled. A device is watched when it matches include (or there is
 * none) and not exclude; a stacked one (dm, md, bcache, a zvol) only with
 * watch-stacked, or when an include names it: its member disks are what
 * shingles.
 */
#pragma once

#include <stdbool.h>

typedef struct DeviceFilter DeviceFilter;

/* Empty strings mean "no such rule". -EINVAL with *ret_why (static text)
 * for a pattern that is refused. */
int filter_new(const char *include, const char *exclude, bool watch_stacked, DeviceFilter **ret, const char **ret_why);
DeviceFilter *filter_free(DeviceFilter *f);
bool filter_wants(const DeviceFilter *f, const char *name);
/* For a stacked device that filter_wants(): whether it is watched all the same. */
bool filter_wants_stacked(const DeviceFilter *f);
