/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Model list entries are POSIX extended regexes, compiled once at load and
 * anchored at both ends so that "WDC WD60EZAZ" cannot match inside a longer
 * unrelated string.
 */
#include "modellist.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex-bound.h"
#include "util.h"

#define MODELLIST_MAX_ENTRIES 4096
#define MODELLIST_MAX_BYTES (1024 * 1024)

typedef struct Entry {
	ModelEntry pub;
	regex_t re;
} Entry;

struct ModelList {
	Entry *entries;
	unsigned n;
};

static const char *const class_names[_MODEL_CLASS_MAX] = {
	[MODEL_CLASS_DM_SMR] = "dm-smr",
	[MODEL_CLASS_CMR] = "cmr",
};

const char *model_class_to_string(ModelClass c)
{
	return c >= 0 && c < _MODEL_CLASS_MAX ? class_names[c] : NULL;
}

ModelList *modellist_free(ModelList *ml)
{
	if (!ml)
		return NULL;
	for (unsigned i = 0; i < ml->n; i++) {
		regfree(&ml->entries[i].re);
		free((char *)ml->entries[i].pub.pattern);
		free((char *)ml->entries[i].pub.source);
	}
	free(ml->entries);
	free(ml);
	return NULL;
}

static void modellist_freep(ModelList **ml) { modellist_free(*ml); }

static int parse_entry(char *line, unsigned lineno, Entry *e, char **ret_error)
{
	char *f[3];
	unsigned n = 0;
	for (char *s = line, *tab; n < 3; s = tab + 1) {
		f[n++] = s;
		tab = strchr(s, '\t');
		if (!tab)
			break;
		*tab = 0;
	}
	if (n != 3 || !*f[1] || !*strstrip(f[2])) {
		if (asprintf(ret_error, "line %u: expected class<TAB>pattern<TAB>source", lineno) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	int c = -1;
	for (int i = 0; i < _MODEL_CLASS_MAX; i++)
		if (streq(strstrip(f[0]), class_names[i]))
			c = i;
	if (c < 0) {
		if (asprintf(ret_error, "line %u: unknown class '%s'", lineno, f[0]) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	_cleanup_free_ char *anchored = NULL, *shown = str_sanitize(f[1]);
	if (asprintf(&anchored, "^(%s)$", f[1]) < 0 || !shown)
		return -ENOMEM;
	const char *why;
	int r = regex_compile_bounded(&e->re, anchored, REG_EXTENDED | REG_NOSUB, &why);
	if (r < 0) {
		if (asprintf(ret_error, "line %u: bad pattern '%.80s': %s", lineno, shown, why) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	e->pub = (ModelEntry){.class = c, .pattern = strdup(f[1]), .source = strdup(f[2]),
			      .line = lineno};
	if (!e->pub.pattern || !e->pub.source) {
		regfree(&e->re);
		free((char *)e->pub.pattern);
		free((char *)e->pub.source);
		return -ENOMEM;
	}
	return 0;
}

int modellist_parse(const char *text, ModelList **ret, char **ret_error)
{
	_cleanup_(modellist_freep) ModelList *ml = calloc(1, sizeof *ml);
	_cleanup_free_ char *copy = strdup(text);
	if (!ml || !copy)
		return -ENOMEM;
	*ret_error = NULL;

	unsigned lineno = 0;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		if (line[strspn(line, " \t\r")] == 0 || line[strspn(line, " \t")] == '#')
			continue;
		if (ml->n >= MODELLIST_MAX_ENTRIES) {
			if (asprintf(ret_error, "line %u: more than %d entries", lineno,
				     MODELLIST_MAX_ENTRIES) < 0)
				*ret_error = NULL;
			return -E2BIG;
		}
		Entry *n = realloc(ml->entries, (ml->n + 1) * sizeof *n);
		if (!n)
			return -ENOMEM;
		ml->entries = n;
		int r = parse_entry(line, lineno, &ml->entries[ml->n], ret_error);
		if (r < 0)
			return r;
		ml->n++;
	}
	*ret = TAKE_PTR(ml);
	return 0;
}

int modellist_load(const char *path, ModelList **ret, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	*ret_error = NULL;
	int r = read_file_at(AT_FDCWD, path, MODELLIST_MAX_BYTES, &text, NULL);
	if (r < 0)
		return r;
	return modellist_parse(text, ret, ret_error);
}

unsigned modellist_size(const ModelList *ml) { return ml ? ml->n : 0; }

const ModelEntry *modellist_match(const ModelList *ml, const char *model)
{
	if (!ml || !model || !*model)
		return NULL;
	for (unsigned i = 0; i < ml->n; i++)
		if (regexec(&ml->entries[i].re, model, 0, NULL, 0) == 0)
			return &ml->entries[i].pub;
	return NULL;
}
