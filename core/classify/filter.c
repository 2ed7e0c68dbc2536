/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pattern.h"
#include "util.h"

struct DeviceFilter {
	Pattern *include, *exclude;
	bool stacked;
};

DeviceFilter *filter_free(DeviceFilter *f)
{
	if (!f)
		return NULL;
	pattern_free(f->include);
	pattern_free(f->exclude);
	free(f);
	return NULL;
}

static int compile(const char *re, Pattern **ret, char why[static PATTERN_WHY_MAX])
{
	if (!re || !*re)
		return 0;
	int r = pattern_new(re, 0, ret, why);
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

int filter_new(const char *include, const char *exclude, bool watch_stacked, DeviceFilter **ret,
	       char ret_why[static PATTERN_WHY_MAX])
{
	DeviceFilter *f = calloc(1, sizeof *f);
	snprintf(ret_why, PATTERN_WHY_MAX, "out of memory");
	if (!f)
		return -ENOMEM;
	f->stacked = watch_stacked;
	int r = compile(include, &f->include, ret_why);
	if (r == 0)
		r = compile(exclude, &f->exclude, ret_why);
	if (r < 0) {
		filter_free(f);
		return r;
	}
	*ret = f;
	return 0;
}

bool filter_wants_stacked(const DeviceFilter *f) { return !f || f->stacked || f->include; }

bool filter_wants(const DeviceFilter *f, const char *name)
{
	if (!f)
		return true;
	/* a match a limit stopped is not a yes: include wants a match, exclude
	 * a miss, so such a device stays unwatched either way */
	if (f->include && pattern_match(f->include, name) != 1)
		return false;
	if (f->exclude && pattern_match(f->exclude, name) != 0)
		return false;
	return true;
}
