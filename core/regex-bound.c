/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small recursive-descent walk over POSIX ERE syntax that estimates how
 * many automaton positions regcomp() will build: an atom is one, a sequence
 * sums, an alternation sums its branches, and a repetition multiplies what it
 * repeats (by 2 for * + ?, by the largest count for {m,n}). glibc builds
 * roughly that many nodes; past REGEX_MAX_EXPANSION the pattern is refused
 * long before it could cost memory.
 */
#include "regex-bound.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

typedef struct Walk {
	const char *p;
	const char *why;
	int depth;
} Walk;

#define MAX_DEPTH 32
#define TOO_BIG (REGEX_MAX_EXPANSION + 1.0)

static double seq(Walk *w);

static double cap(double v) { return v > TOO_BIG ? TOO_BIG : v; }

/* "[...]": one position, whatever it holds. */
static bool skip_bracket(Walk *w)
{
	const char *p = w->p + 1;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char end = p[1];
			const char *q = strchr(p + 2, end);
			if (!q || q[1] != ']')
				return false;
			p = q + 2;
			continue;
		}
		p++;
	}
	if (*p != ']')
		return false;
	w->p = p + 1;
	return true;
}

static double atom(Walk *w)
{
	char c = *w->p;
	if (c == '(') {
		if (++w->depth > MAX_DEPTH) {
			w->why = "groups nested too deeply";
			return TOO_BIG;
		}
		w->p++;
		double v = seq(w);
		if (*w->p != ')') {
			w->why = w->why ? w->why : "unbalanced parenthesis";
			return TOO_BIG;
		}
		w->p++;
		w->depth--;
		return v + 1;
	}
	if (c == '[') {
		if (!skip_bracket(w)) {
			w->why = "unterminated bracket expression";
			return TOO_BIG;
		}
		return 1;
	}
	if (c == '\\') {
		w->p += w->p[1] ? 2 : 1;
		return 1;
	}
	if (c == '^' || c == '$') {
		w->p++;
		return 0;
	}
	w->p++;
	return 1;
}

/* Reads a {m}, {m,} or {m,n} count; returns the factor it multiplies by,
 * or 0 (nothing read) when it is not a count: regcomp decides about it. */
static double counted(Walk *w)
{
	const char *p = w->p + 1;
	double lo = 0, hi = -1;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p) && lo < 1e6)
		lo = lo * 10 + (*p++ - '0');
	if (*p == ',') {
		p++;
		if (isdigit((unsigned char)*p)) {
			hi = 0;
			while (isdigit((unsigned char)*p) && hi < 1e6)
				hi = hi * 10 + (*p++ - '0');
		}
	} else {
		hi = lo;
	}
	if (*p != '}')
		return 0;
	w->p = p + 1;
	/* {m,} is m copies and a star */
	double f = hi < 0 ? lo + 1 : hi;
	return f < 1 ? 1 : f;
}

/* An atom and its repetition. Repetition of a repetition ("a**", "a+*",
 * "a{2}{3}") is undefined in POSIX and pathological in glibc (seconds in
 * regexec for "}********"): refused. */
static double piece(Walk *w)
{
	double v = atom(w);
	bool repeated = false;
	for (;;) {
		char c = *w->p;
		double f = 0;
		if (c == '*' || c == '+' || c == '?') {
			w->p++;
			f = 2;
		} else if (c == '{' && isdigit((unsigned char)w->p[1])) {
			f = counted(w);
		}
		if (f == 0)
			return v;
		if (repeated) {
			w->why = "a repetition is repeated (*, +, ? or {n} twice in a row)";
			return TOO_BIG;
		}
		repeated = true;
		v = cap(v * f);
	}
}

static double seq(Walk *w)
{
	double total = 0;
	while (*w->p && *w->p != ')') {
		if (*w->p == '|') {
			w->p++;
			total += 1;
			continue;
		}
		total = cap(total + piece(w));
		if (w->why)
			return TOO_BIG;
	}
	return total;
}

int regex_check_bounds(const char *pattern, const char **ret_why)
{
	if (strlen(pattern) > REGEX_MAX_LENGTH) {
		*ret_why = "longer than 512 characters";
		return -E2BIG;
	}
	Walk w = {.p = pattern};
	double v = seq(&w);
	if (!w.why && *w.p == ')')
		w.why = "unbalanced parenthesis";
	if (w.why) {
		*ret_why = w.why;
		return -EINVAL;
	}
	if (v > REGEX_MAX_EXPANSION) {
		*ret_why = "its repetitions expand too far (nested or stacked *, +, ? or {n})";
		return -E2BIG;
	}
	return 0;
}

int regex_compile_bounded(regex_t *re, const char *pattern, int cflags, const char **ret_why)
{
	int r = regex_check_bounds(pattern, ret_why);
	if (r < 0)
		return r;
	if (regcomp(re, pattern, cflags) != 0) {
		*ret_why = "not a valid POSIX extended regular expression";
		return -EINVAL;
	}
	return 0;
}
