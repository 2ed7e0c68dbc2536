/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Subjects are device names and ATA model strings, tens of bytes: these
 * leave every sane pattern room and stop a backtracking one in well under
 * a millisecond. */
#define DEPTH_LIMIT 2000
#define HEAP_LIMIT_KIB 1024
#define PARENS_NEST_LIMIT 64

struct Pattern {
	pcre2_code *code;
	pcre2_match_context *mctx;
};

Pattern *pattern_free(Pattern *p)
{
	if (!p)
		return NULL;
	pcre2_match_context_free(p->mctx);
	pcre2_code_free(p->code);
	free(p);
	return NULL;
}

static int compile(Pattern *p, const char *re, unsigned flags, char why[static PATTERN_WHY_MAX])
{
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
	if (!cctx)
		return -ENOMEM;
	pcre2_set_max_pattern_length(cctx, PATTERN_MAX_LENGTH);
	pcre2_set_parens_nest_limit(cctx, PARENS_NEST_LIMIT);
	/* subjects are bytes: (*UTF) in a pattern would make a stray byte an error */
	uint32_t opts = PCRE2_NEVER_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_NO_AUTO_CAPTURE;
	if (flags & PATTERN_WHOLE)
		opts |= PCRE2_ANCHORED | PCRE2_ENDANCHORED;
	int err;
	PCRE2_SIZE off;
	p->code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, opts, &err, &off, cctx);
	pcre2_compile_context_free(cctx);
	if (p->code)
		return 0;
	if (err == PCRE2_ERROR_NOMEMORY)
		return -ENOMEM;
	PCRE2_UCHAR msg[120];
	if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
		snprintf((char *)msg, sizeof msg, "error %d", err);
	snprintf(why, PATTERN_WHY_MAX, "%s at offset %zu", (char *)msg, (size_t)off);
	return -EINVAL;
}

int pattern_new(const char *re, unsigned flags, Pattern **ret, char why[static PATTERN_WHY_MAX])
{
	size_t len = strlen(re);
	if (len > PATTERN_MAX_LENGTH) {
		snprintf(why, PATTERN_WHY_MAX, "%zu bytes long, more than %d", len, PATTERN_MAX_LENGTH);
		return -E2BIG;
	}
	Pattern *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	int r = compile(p, re, flags, why);
	if (r == 0) {
		p->mctx = pcre2_match_context_create(NULL);
		if (!p->mctx)
			r = -ENOMEM;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(why, PATTERN_WHY_MAX, "out of memory");
		pattern_free(p);
		return r;
	}
	/* a pattern's own (*LIMIT_MATCH=) can only lower these */
	pcre2_set_match_limit(p->mctx, PATTERN_MATCH_LIMIT);
	pcre2_set_depth_limit(p->mctx, DEPTH_LIMIT);
	pcre2_set_heap_limit(p->mctx, HEAP_LIMIT_KIB);
	*ret = p;
	return 0;
}

void pattern_set_match_limit(Pattern *p, unsigned steps)
{
	pcre2_set_match_limit(p->mctx, steps < PATTERN_MATCH_LIMIT ? steps : PATTERN_MATCH_LIMIT);
}

int pattern_match(const Pattern *p, const char *subject)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return -ENOMEM;
	int r = pcre2_match(p->code, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, p->mctx);
	pcre2_match_data_free(md);
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	if (r == PCRE2_ERROR_NOMEMORY)
		return -ENOMEM;
	return -E2BIG;
}
