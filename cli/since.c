/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Local time, like journalctl; relative values count back from `now`. */
#include "since.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A time span as systemd.time(7) writes it: "1h30m", "2 hours", "1h 30min",
 * "90" (seconds); *ret in seconds. */
static int span(const char *s, double *ret)
{
	static const struct { const char *name; double seconds; } units[] = {
		{"usec", 1e-6}, {"us", 1e-6}, {"µs", 1e-6}, {"msec", 1e-3}, {"ms", 1e-3},
		{"seconds", 1}, {"second", 1}, {"sec", 1}, {"s", 1},
		{"minutes", 60}, {"minute", 60}, {"min", 60}, {"months", 2629800}, {"month", 2629800}, {"M", 2629800},
		{"m", 60}, {"hours", 3600}, {"hour", 3600}, {"hr", 3600}, {"h", 3600},
		{"days", 86400}, {"day", 86400}, {"d", 86400}, {"weeks", 604800}, {"week", 604800}, {"w", 604800},
		{"years", 31557600}, {"year", 31557600}, {"y", 31557600},
	};
	double total = 0;
	bool any = false;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (!isdigit((unsigned char)*s) && *s != '.')
			return -EINVAL;
		char *end;
		double v = strtod(s, &end);
		if (end == s || v < 0)
			return -EINVAL;
		s = end;
		while (*s == ' ')
			s++;
		double unit = 1;	/* a bare number is seconds */
		size_t len = 0;
		for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
			size_t n = strlen(units[i].name);
			/* the longest name that ends at a digit, a space or the end */
			if (n > len && strncmp(s, units[i].name, n) == 0 &&
			    (!s[n] || s[n] == ' ' || isdigit((unsigned char)s[n]))) {
				unit = units[i].seconds;
				len = n;
			}
		}
		if (!len && *s && !isdigit((unsigned char)*s))
			return -EINVAL;
		s += len;
		total += v * unit;
		any = true;
	}
	if (!any || total > 1e10)
		return any ? -ERANGE : -EINVAL;
	*ret = total;
	return 0;
}

/* "-SPAN", "SPAN ago" (and, as smrctl always took it, a bare "SPAN") count
 * back from now; "+SPAN" and "SPAN left" forward. */
static int relative(const char *s, time_t now, double *ret)
{
	char buf[128];
	int sign = -1;
	if (*s == '-' || *s == '+') {
		sign = *s == '+' ? 1 : -1;
		s++;
	}
	snprintf(buf, sizeof buf, "%s", s);
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	if (n > 4 && strcmp(buf + n - 4, " ago") == 0)
		buf[n - 4] = 0;
	else if (n > 5 && strcmp(buf + n - 5, " left") == 0) {
		buf[n - 5] = 0;
		sign = 1;
	}
	double v;
	int r = span(buf, &v);
	if (r < 0)
		return r;
	*ret = (double)now + sign * v;
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
	if (strcmp(s, "now") == 0) {
		*ret = (double)now;
		return 0;
	}
	if (relative(s, now, ret) == 0)
		return 0;
	localtime_r(&now, &tm);
	tm.tm_isdst = -1;
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0 || strcmp(s, "tomorrow") == 0) {
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_mday += s[0] == 'y' ? -1 : s[0] == 't' && s[2] == 'm' ? 1 : 0;
		*ret = (double)mktime(&tm);
		return 0;
	}
	/* a weekday in front ("Mon 2026-11-30 07:15") is allowed and not checked,
	 * as systemd checks it only against the date */
	static const char *const days[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun ", "Monday ", "Tuesday ",
					   "Wednesday ", "Thursday ", "Friday ", "Saturday ", "Sunday "};
	for (size_t i = 0; i < sizeof days / sizeof *days; i++)
		if (strncmp(s, days[i], strlen(days[i])) == 0) {
			s += strlen(days[i]);
			break;
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
