/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regular expressions as node_exporter and smartmontools' drivedb.h write
 * them (\d, \w, (?i), POSIX classes), through PCRE2. Patterns come from the
 * config file, flags and the model list, so each is bounded: its length at
 * compile time, and at match time PCRE2's match, depth and heap limits, so
 * that a pattern such as "(a+)+$" fails one match instead of spinning.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define PATTERN_MAX_LENGTH 512
#define PATTERN_MATCH_LIMIT 100000	/* PCRE2 match steps one match may take, unless lowered */
#define PATTERN_WHY_MAX 160

typedef struct Pattern Pattern;

typedef enum PatternFlags {
	PATTERN_WHOLE = 1 << 0,	/* match the whole subject, as if ^(?:...)$ */
} PatternFlags;

/* 0; -EINVAL (or -E2BIG for the length) with why[] saying what is wrong
 * and where; -ENOMEM. */
int pattern_new(const char *re, unsigned flags, Pattern **ret, char why[static PATTERN_WHY_MAX]);
Pattern *pattern_free(Pattern *p);
/* Lowers the match steps one match may take (never above
 * PATTERN_MATCH_LIMIT): a list of many patterns shares one budget. */
void pattern_set_match_limit(Pattern *p, unsigned steps);
/* 1 on a match, 0 on none, -E2BIG when a limit stopped it, -ENOMEM. */
int pattern_match(const Pattern *p, const char *subject);
