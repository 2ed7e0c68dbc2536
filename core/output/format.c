/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>

const char *format_duration(char buf[static FORMAT_MAX], double s)
{
	double a = fabs(s);
	if (!isfinite(s))
		snprintf(buf, FORMAT_MAX, "-");
	else if (a < 1e-3)
		snprintf(buf, FORMAT_MAX, "%.0f us", s * 1e6);
	else if (a < 0.01)
		snprintf(buf, FORMAT_MAX, "%.2g ms", s * 1e3);
	else if (a < 1)
		snprintf(buf, FORMAT_MAX, "%.0f ms", s * 1e3);
	else if (a < 120)
		snprintf(buf, FORMAT_MAX, "%.3g s", s);
	else if (a < 3 * 3600)
		snprintf(buf, FORMAT_MAX, "%.3g min", s / 60);
	else if (a < 3 * 86400)
		snprintf(buf, FORMAT_MAX, "%.3g h", s / 3600);
	else if (a < 3 * 365.25 * 86400)
		snprintf(buf, FORMAT_MAX, "%.3g days", s / 86400);
	else
		snprintf(buf, FORMAT_MAX, "%.3g years", s / (365.25 * 86400));
	return buf;
}

const char *format_left(char buf[static FORMAT_MAX], double s)
{
	if (isfinite(s) && s < 1) {
		snprintf(buf, FORMAT_MAX, "< 1 s");
		return buf;
	}
	return format_duration(buf, s);
}

/* lsblk's size_to_human_string: binary steps, one decimal unless it is 0. */
static const char *human(char buf[static FORMAT_MAX], double bytes, const char *tail)
{
	static const char units[] = "BKMGTPE";
	if (!isfinite(bytes) || bytes < 0) {
		snprintf(buf, FORMAT_MAX, "-");
		return buf;
	}
	unsigned u = 0;
	while (bytes >= 1024 && u + 1 < sizeof units - 1) {
		bytes /= 1024;
		u++;
	}
	double tenths = round(bytes * 10);
	if (tenths >= 10240 && u + 1 < sizeof units - 1)	/* 1023.96K rounds to 1024.0K: 1M */
		tenths = 10, u++;
	if (u == 0 || fmod(tenths, 10) == 0)
		snprintf(buf, FORMAT_MAX, "%.0f%c%s", tenths / 10, units[u], tail);
	else
		snprintf(buf, FORMAT_MAX, "%.1f%c%s", tenths / 10, units[u], tail);
	return buf;
}

const char *format_size(char buf[static FORMAT_MAX], double bytes) { return human(buf, bytes, ""); }

const char *format_rate(char buf[static FORMAT_MAX], double bytes_per_second)
{
	return human(buf, bytes_per_second, "/s");
}

const char *format_exact(char buf[static 32], double v)
{
	if (isnan(v)) {
		snprintf(buf, 32, "nan");
		return buf;
	}
	int prec = 1;
	do
		snprintf(buf, 32, "%.*g", prec, v);
	while (strtod(buf, NULL) != v && ++prec <= 17);
	/* 52428800 rather than 5.24288e+07: as it was most likely written */
	if (fabs(v) < 1e15 && v == trunc(v))
		snprintf(buf, 32, "%.0f", v);
	return buf;
}

int parse_size(const char *s, uint64_t *ret)
{
	char *end;
	double v = strtod(s, &end);
	double m = 1;
	switch (*end) {
	case 'k': case 'K': m = 1024; end++; break;
	case 'm': case 'M': m = 1024.0 * 1024; end++; break;
	case 'g': case 'G': m = (1024.0 * 1024 * 1024); end++; break;
	case 't': case 'T': m = (1024.0 * 1024 * 1024) * 1024; end++; break;
	case 0: break;
	default: return -EINVAL;
	}
	if ((*end == 'i' || *end == 'I') && end[1] && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	else if (*end == 'B' || *end == 'b')
		end++;
	if (*end || !(v > 0) || v * m > 1e18)
		return -EINVAL;
	*ret = (uint64_t)(v * m);
	return 0;
}
