/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Local time, like journalctl; relative values count back from `now`. */
#include "since.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int relative(const char *s, time_t now, double *ret)
{
	char *end;
	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	double v = strtod(s, &end);
	double unit;
	switch (*end) {
	case 's': unit = 1; break;
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	case 'd': unit = 86400; break;
	case 'w': unit = 7 * 86400; break;
	default: return -EINVAL;
	}
	end++;
	if (strncmp(end, "in", 2) == 0)	/* 10min */
		end += 2;
	while (*end == ' ')
		end++;
	if (*end && strcmp(end, "ago") != 0)
		return -EINVAL;
	if (v < 0 || v * unit > 1e10)
		return -ERANGE;
	*ret = (double)now - v * unit;
	return 0;
}

int parse_since(const char *s, time_t now, double *ret)
{
	struct tm tm;
	if (!s || !*s)
		return -EINVAL;
	if (*s == '@') {
		char *end;
		double v = strtod(s + 1, &end);
		if (end == s + 1 || *end || v < 0 || v > 1e11)
			return -EINVAL;
		*ret = v;
		return 0;
	}
	if (relative(s, now, ret) == 0)
		return 0;
	localtime_r(&now, &tm);
	tm.tm_isdst = -1;
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		if (s[0] == 'y')
			tm.tm_mday--;
		*ret = (double)mktime(&tm);
		return 0;
	}
	static const char *const formats[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
					      "%Y-%m-%dT%H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M"};
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		struct tm t = tm;
		t.tm_hour = t.tm_min = t.tm_sec = 0;
		const char *end = strptime(s, formats[i], &t);
		if (end && !*end) {
			t.tm_isdst = -1;
			time_t v = mktime(&t);
			if (v == (time_t)-1)
				return -EINVAL;
			*ret = (double)v;
			return 0;
		}
	}
	return -EINVAL;
}
