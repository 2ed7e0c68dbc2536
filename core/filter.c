/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "filter.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>

#include "config.h"
#include "regex-bound.h"
#include "util.h"

struct DeviceFilter {
	regex_t include, exclude;
	bool have_include, have_exclude, stacked;
};

DeviceFilter *filter_free(DeviceFilter *f)
{
	if (!f)
		return NULL;
	if (f->have_include)
		regfree(&f->include);
	if (f->have_exclude)
		regfree(&f->exclude);
	free(f);
	return NULL;
}

static int compile(const char *pattern, regex_t *re, bool *have, const char **why)
{
	if (!pattern || !*pattern)
		return 0;
	_cleanup_free_ char *posix = config_regex_to_posix(pattern);
	if (!posix)
		return -ENOMEM;
	int r = regex_compile_bounded(re, posix, REG_EXTENDED | REG_NOSUB, why);
	if (r < 0)
		return -EINVAL;
	*have = true;
	return 0;
}

int filter_new(const char *include, const char *exclude, bool watch_stacked, DeviceFilter **ret, const char **ret_why)
{
	DeviceFilter *f = calloc(1, sizeof *f);
	const char *why = "out of memory";
	if (!f)
		return -ENOMEM;
	f->stacked = watch_stacked;
	int r = compile(include, &f->include, &f->have_include, &why);
	if (r == 0)
		r = compile(exclude, &f->exclude, &f->have_exclude, &why);
	if (r < 0) {
		if (ret_why)
			*ret_why = why;
		filter_free(f);
		return r;
	}
	*ret = f;
	return 0;
}

bool filter_wants_stacked(const DeviceFilter *f) { return !f || f->stacked || f->have_include; }

bool filter_wants(const DeviceFilter *f, const char *name)
{
	if (!f)
		return true;
	if (f->have_include && regexec(&f->include, name, 0, NULL, 0) != 0)
		return false;
	if (f->have_exclude && regexec(&f->exclude, name, 0, NULL, 0) == 0)
		return false;
	return true;
}
