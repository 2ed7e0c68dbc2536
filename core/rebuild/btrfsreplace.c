/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one line `btrfs replace status -1` prints (cmds/replace.c,
 * print_replace_status()): "Never started"; "12.3% done, 0 write errs, 0
 * uncorr. read errs"; "Started on  5.Dec 06:07:01, finished on  5.Dec
 * 06:07:08, 0 write errs, 0 uncorr. read errs"; "... canceled on T at
 * 0.0%, ..." and "... suspended on T at 40.2%, ...". Without -1 the tool
 * rewrites the line in place with backspaces: the last version is read.
 */
#include "btrfsreplace.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const state_names[_BTRFS_REPLACE_STATE_MAX] = {"never started", "started", "finished",
								  "canceled", "suspended"};

const char *btrfs_replace_state_to_string(BtrfsReplaceState s)
{
	return s >= 0 && s < _BTRFS_REPLACE_STATE_MAX ? state_names[s] : NULL;
}

/* Reads a decimal of at most max_digits at *p, advancing it. */
static bool eat_uint(const char **p, unsigned max_digits, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned n = 0;
	for (; isdigit((unsigned char)*s) && n < max_digits; s++, n++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (n == 0 || isdigit((unsigned char)*s))
		return false;
	*p = s;
	*ret = v;
	return true;
}

static bool eat(const char **p, const char *word)
{
	size_t l = strlen(word);
	if (strncmp(*p, word, l) != 0)
		return false;
	*p += l;
	return true;
}

/* "%e.%b %T": " 5.Dec 06:07:01" (%e pads the day with a space), in the C
 * locale's month names, which btrfs-progs never changes from */
static bool eat_time(const char **p, BtrfsReplaceTime *ret)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	uint64_t day, h, m, s;
	if (**p == ' ')
		(*p)++;
	if (!eat_uint(p, 2, &day) || !eat(p, "."))
		return false;
	const char *mn = strlen(*p) >= 3 ? memmem(months, sizeof(months) - 1, *p, 3) : NULL;
	if (!mn || (mn - months) % 3)
		return false;
	*p += 3;
	if (!eat(p, " ") || !eat_uint(p, 2, &h) || !eat(p, ":") || !eat_uint(p, 2, &m) || !eat(p, ":") ||
	    !eat_uint(p, 2, &s) || day < 1 || day > 31 || h > 23 || m > 59 || s > 60)
		return false;
	*ret = (BtrfsReplaceTime){(unsigned)((mn - months) / 3 + 1), (unsigned)day, (unsigned)(h * 3600 + m * 60 + s)};
	return true;
}

/* "%d.%01d%%": per mille, 0.0% to 100.0% */
static bool eat_progress(const char **p, double *ret)
{
	uint64_t whole, tenth;
	if (!eat_uint(p, 3, &whole) || !eat(p, ".") || !eat_uint(p, 1, &tenth) || !eat(p, "%") || whole > 100 ||
	    (whole == 100 && tenth))
		return false;
	*ret = (double)(whole * 10 + tenth) / 1000;
	return true;
}

static bool eat_errors(const char **p, BtrfsReplaceStatus *r)
{
	return eat(p, ", ") && eat_uint(p, 20, &r->write_errors) && eat(p, " write errs, ") &&
	       eat_uint(p, 20, &r->uncorrectable_read_errors) && eat(p, " uncorr. read errs");
}

/* "Started on T, finished on T" / ", canceled on T at P" / ", suspended on T at P" */
static bool eat_stopped(const char **p, BtrfsReplaceStatus *r)
{
	if (!eat(p, "Started on ") || !eat_time(p, &r->started) || !eat(p, ", "))
		return false;
	if (eat(p, "finished on ")) {
		r->state = BTRFS_REPLACE_FINISHED;
		r->progress = 1;
		return eat_time(p, &r->stopped);
	}
	if (eat(p, "canceled on "))
		r->state = BTRFS_REPLACE_CANCELED;
	else if (eat(p, "suspended on "))
		r->state = BTRFS_REPLACE_SUSPENDED;
	else
		return false;
	return eat_time(p, &r->stopped) && eat(p, " at ") && eat_progress(p, &r->progress);
}

static bool parse_line(const char *p, BtrfsReplaceStatus *r)
{
	if (eat(&p, "Never started")) {
		r->state = BTRFS_REPLACE_NEVER_STARTED;
		return *p == 0;
	}
	if (p[0] == 'S') {
		if (!eat_stopped(&p, r))
			return false;
	} else {
		r->state = BTRFS_REPLACE_STARTED;
		if (!eat_progress(&p, &r->progress) || !eat(&p, " done"))
			return false;
	}
	return eat_errors(&p, r) && *p == 0;
}

int btrfs_replace_parse(const char *text, size_t len, BtrfsReplaceStatus *ret, char **ret_error)
{
	if (!text)
		return set_errorf(ret_error, -EINVAL, "no output");
	if (len > BTRFS_REPLACE_INPUT_MAX)
		return set_errorf(ret_error, -EINVAL, "output of %zu bytes, more than one status line", len);
	char line[BTRFS_REPLACE_INPUT_MAX + 1];
	memcpy(line, text, len);
	line[len] = 0;
	if (strlen(line) != len)
		return set_errorf(ret_error, -EINVAL, "the output holds a NUL byte");
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	/* the loop form: each new version follows backspaces over the last */
	char *start = strrchr(line, '\b');
	start = start ? start + 1 : line;
	for (char *c = start; *c; c++)
		if (iscntrl((unsigned char)*c))
			return set_errorf(ret_error, -EINVAL, "not one status line: a control byte at %zu",
					  (size_t)(c - line));
	BtrfsReplaceStatus r = {.progress = NAN};
	if (!parse_line(start, &r))
		return set_errorf(ret_error, -EINVAL, "unreadable replace status \"%.80s\"", start);
	*ret = r;
	return 0;
}

double btrfs_replace_duration(const BtrfsReplaceStatus *s)
{
	static const unsigned before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
	if (!s || !s->started.month || !s->stopped.month || s->started.month > 12 || s->stopped.month > 12)
		return NAN;
	/* days into a common year: a replace that spans 29 February is off by a day */
	double a = (before[s->started.month - 1] + s->started.day - 1) * 86400.0 + s->started.second_of_day;
	double b = (before[s->stopped.month - 1] + s->stopped.day - 1) * 86400.0 + s->stopped.second_of_day;
	return b >= a ? b - a : b + 365 * 86400.0 - a;
}
