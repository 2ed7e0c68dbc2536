/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The database is C source, but only a sliver of C: comments, string
 * literals (adjacent ones concatenated), braces and commas. The array's own
 * opening line is commented out in the installed file, so an entry is
 * known by its contents: the innermost braces that hold strings.
 */
#include "drivedb.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define FIELDS 5
#define FIELD_MAX (64 * 1024)
#define ENTRIES_MAX 20000

typedef struct Field {
	char *s;
	size_t len;
} Field;

typedef struct Parser {
	const char *p;
	unsigned line;
	bool in_entry;
	unsigned entry_line, nfield, entries;
	bool field_started;
	Field f[FIELDS];
	Field comment;
	char **ret_error;
} Parser;

static int fail(Parser *ps, const char *why)
{
	if (asprintf(ps->ret_error, "line %u: %s", ps->line, why) < 0)
		*ps->ret_error = NULL;
	return -EINVAL;
}

static int field_add(Field *f, const char *s, size_t n)
{
	if (f->len + n > FIELD_MAX)
		return -E2BIG;
	char *x = realloc(f->s, f->len + n + 1);
	if (!x)
		return -ENOMEM;
	memcpy(x + f->len, s, n);
	f->len += n;
	x[f->len] = 0;
	f->s = x;
	return 0;
}

static void entry_reset(Parser *ps)
{
	for (unsigned i = 0; i < FIELDS; i++) {
		free(ps->f[i].s);
		ps->f[i] = (Field){0};
	}
	free(ps->comment.s);
	ps->comment = (Field){0};
	ps->nfield = 0;
	ps->field_started = false;
}

/* A comment: skipped, and kept when inside an entry ("tested with ..."). */
static int comment(Parser *ps)
{
	bool block = ps->p[1] == '*';
	const char *start = ps->p + 2, *end;
	if (block) {
		end = strstr(start, "*/");
		if (!end)
			return fail(ps, "a comment that does not end");
	} else {
		end = start + strcspn(start, "\n");
	}
	for (const char *c = ps->p; c < end; c++)
		ps->line += *c == '\n';
	ps->p = block ? end + 2 : end;
	if (!ps->in_entry)
		return 0;
	int r = field_add(&ps->comment, " ", ps->comment.len > 0);
	return r < 0 ? r : field_add(&ps->comment, start, (size_t)(end - start));
}

static int string(Parser *ps)
{
	if (!ps->in_entry)
		return fail(ps, "a string outside an entry's braces");
	if (ps->nfield >= FIELDS)
		return fail(ps, "an entry with more than 5 fields");
	Field *f = &ps->f[ps->nfield];
	ps->field_started = true;
	int r = field_add(f, "", 0);
	for (ps->p++; r >= 0; ps->p++) {
		char c = *ps->p;
		if (c == 0 || c == '\n')
			return fail(ps, "a string that does not end on its line");
		if (c == '"') {
			ps->p++;
			return 0;
		}
		if (c == '\\') {
			c = *++ps->p;
			if (c == 0 || c == '\n')
				return fail(ps, "a string that does not end on its line");
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		r = field_add(f, &c, 1);
	}
	return r == -E2BIG ? fail(ps, "a string over 64 KiB") : r;
}

static int entry_end(Parser *ps, DriveDbVisit visit, void *userdata)
{
	if (ps->field_started)
		ps->nfield++;
	int r = 0;
	if (ps->nfield > 0 && ps->nfield < 2)
		r = fail(ps, "an entry with fewer than 2 fields");
	else if (ps->nfield > 0 && ++ps->entries > ENTRIES_MAX)
		r = fail(ps, "more than 20000 entries");
	else if (ps->nfield > 0) {
		DriveDbEntry e = {.family = ps->f[0].s, .model = ps->f[1].s, .firmware = ps->f[2].s ? ps->f[2].s : "",
				  .warning = ps->f[3].s ? ps->f[3].s : "",
				  .comment = ps->comment.s ? ps->comment.s : "", .line = ps->entry_line};
		r = visit(&e, userdata);
	}
	entry_reset(ps);
	ps->in_entry = false;
	return r;
}

static int step(Parser *ps, DriveDbVisit visit, void *userdata)
{
	char c = *ps->p;
	if (c == '/' && (ps->p[1] == '/' || ps->p[1] == '*'))
		return comment(ps);
	if (c == '"')
		return string(ps);
	ps->p++;
	switch (c) {
	case '\n':
		ps->line++;
		return 0;
	case '{':
		/* an opening brace inside one: the outer was the array's */
		entry_reset(ps);
		ps->in_entry = true;
		ps->entry_line = ps->line;
		return 0;
	case '}':
		return ps->in_entry ? entry_end(ps, visit, userdata) : 0;
	case ',':
		if (ps->in_entry) {
			if (!ps->field_started)
				return fail(ps, "an empty field");
			ps->nfield++;
			ps->field_started = false;
		}
		return 0;
	case ' ': case '\t': case '\r':
		return 0;
	default:
		/* outside an entry: the array's declaration, a semicolon */
		return ps->in_entry ? fail(ps, "a field that is not a string") : 0;
	}
}

int drivedb_parse(const char *text, DriveDbVisit visit, void *userdata, char **ret_error)
{
	Parser ps = {.p = text, .line = 1, .ret_error = ret_error};
	*ret_error = NULL;
	int r = 0;
	while (r >= 0 && *ps.p)
		r = step(&ps, visit, userdata);
	if (r >= 0 && ps.in_entry)
		r = fail(&ps, "an entry that does not end");
	if (r >= 0 && ps.entries == 0)
		r = fail(&ps, "no entries: not a drive database");
	entry_reset(&ps);
	return r;
}

DriveDbMark drivedb_mark(const char *family)
{
	size_t n = strlen(family);
	while (n > 0 && family[n - 1] == ' ')
		n--;
	if (n >= 5 && strncmp(family + n - 5, "(SMR)", 5) == 0)
		return DRIVEDB_SMR;
	if (n >= 5 && strncmp(family + n - 5, "(CMR)", 5) == 0)
		return DRIVEDB_CMR;
	return DRIVEDB_UNMARKED;
}
