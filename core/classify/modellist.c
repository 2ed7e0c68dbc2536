/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Model list entries are regular expressions as drivedb.h writes them
 * (PCRE2 reads its POSIX extended syntax and \d alike), compiled once at
 * load and matched against the whole model string, so that "WDC WD60EZAZ"
 * cannot match inside a longer unrelated string.
 */
#include "modellist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivedb.h"
#include "pattern.h"
#include "util.h"

#define MODELLIST_MAX_BYTES (1024 * 1024)
#define DRIVEDB_MAX_BYTES (8 * 1024 * 1024)

typedef struct Entry {
	ModelEntry pub;
	Pattern *re;
} Entry;

struct ModelList {
	Entry *entries;
	unsigned n;
	unsigned limit;		/* match steps each pattern may take: set_limits() */
	uint64_t *matches;	/* run so far; behind a pointer, as matching does not change the list */
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
		pattern_free(ml->entries[i].re);
		free((char *)ml->entries[i].pub.pattern);
		free((char *)ml->entries[i].pub.source);
		free((char *)ml->entries[i].pub.warning);
	}
	free(ml->entries);
	free(ml->matches);
	free(ml);
	return NULL;
}

static ModelList *modellist_new(void)
{
	ModelList *ml = calloc(1, sizeof *ml);
	if (ml && !(ml->matches = calloc(1, sizeof *ml->matches)))
		ml = modellist_free(ml);
	return ml;
}

/* The list's entries share one classification's budget (modellist.h). */
static void set_limits(ModelList *ml)
{
	uint64_t each = MODELLIST_MATCH_BUDGET / ((uint64_t)MODELLIST_SUBJECTS * (ml->n ? ml->n : 1));
	ml->limit = each < PATTERN_MATCH_LIMIT ? (unsigned)each : PATTERN_MATCH_LIMIT;
	for (unsigned i = 0; i < ml->n; i++)
		pattern_set_match_limit(ml->entries[i].re, ml->limit);
}

/* A pattern that spends its whole share of the budget on a plain model
 * string would spend it on every disk, for nothing: drivedb.h's patterns
 * take a few tens of steps. Such a list is refused, as one that does not
 * parse. The probe costs at most ELEMENTSOF(probes) / MODELLIST_SUBJECTS
 * of one classification's budget. */
static int probe(const ModelList *ml, char **ret_error)
{
	static const char *const probes[] = {"WDC WD40EFAX-68JH4N0", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"};
	for (unsigned i = 0; i < ml->n; i++)
		for (size_t k = 0; k < ELEMENTSOF(probes); k++) {
			if (pattern_match(ml->entries[i].re, probes[k]) != -E2BIG)
				continue;
			_cleanup_free_ char *shown = str_sanitize(ml->entries[i].pub.pattern);
			if (asprintf(ret_error, "line %u: pattern '%.80s' backtracks past its %u match steps on \"%s\": "
				     "too costly to match", ml->entries[i].pub.line, shown ? shown : "?", ml->limit,
				     probes[k]) < 0)
				*ret_error = NULL;
			return -E2BIG;
		}
	return 0;
}

/* A text file, refused when it holds a NUL: C string handling would end
 * it there, and leave what follows out without a word. */
static int read_text(const char *path, size_t max, char **ret, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = read_file_at(AT_FDCWD, path, max, &text, &len);
	if (r < 0)
		return r;
	const char *nul = memchr(text, 0, len);
	if (nul) {
		if (asprintf(ret_error, "a NUL byte at offset %zu of %zu: not a text file", (size_t)(nul - text), len) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	*ret = TAKE_PTR(text);
	return 0;
}


/* A warning as one printable line: drivedb.h breaks them with "\n". */
static char *one_line(const char *s)
{
	char *d = strdup(s);
	for (char *p = d; p && *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return d;
}

static int entry_init(Entry *e, ModelClass c, const char *pattern, const char *source, const char *origin,
		      const char *warning, unsigned lineno, char **ret_error)
{
	_cleanup_free_ char *shown = str_sanitize(pattern);
	if (!shown)
		return -ENOMEM;
	char why[PATTERN_WHY_MAX];
	int r = pattern_new(pattern, PATTERN_WHOLE, &e->re, why);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (asprintf(ret_error, "line %u: bad pattern '%.80s': %s", lineno, shown, why) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	e->pub = (ModelEntry){.class = c, .pattern = strdup(pattern), .source = strdup(source), .origin = origin,
			      .line = lineno, .warning = warning && *warning ? one_line(warning) : NULL};
	if (!e->pub.pattern || !e->pub.source || (warning && *warning && !e->pub.warning)) {
		e->re = pattern_free(e->re);
		free((char *)e->pub.pattern);
		free((char *)e->pub.source);
		free((char *)e->pub.warning);
		return -ENOMEM;
	}
	return 0;
}

static int grow(ModelList *ml, unsigned lineno, char **ret_error)
{
	if (ml->n >= MODELLIST_MAX_ENTRIES) {
		if (asprintf(ret_error, "line %u: more than %d entries: matching them all would cost too much", lineno,
			     MODELLIST_MAX_ENTRIES) < 0)
			*ret_error = NULL;
		return -E2BIG;
	}
	Entry *n = realloc(ml->entries, (ml->n + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	ml->entries = n;
	return 0;
}

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
	return entry_init(e, (ModelClass)c, f[1], strstrip(f[2]), "model list", NULL, lineno, ret_error);
}

int modellist_parse(const char *text, ModelList **ret, char **ret_error)
{
	_cleanup_(modellist_freep) ModelList *ml = modellist_new();
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
		int r = grow(ml, lineno, ret_error);
		if (r < 0)
			return r;
		r = parse_entry(line, lineno, &ml->entries[ml->n], ret_error);
		if (r < 0)
			return r;
		ml->n++;
	}
	set_limits(ml);
	int r = probe(ml, ret_error);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ml);
	return 0;
}

int modellist_load(const char *path, ModelList **ret, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	*ret_error = NULL;
	int r = read_text(path, MODELLIST_MAX_BYTES, &text, ret_error);
	if (r < 0)
		return r;
	return modellist_parse(text, ret, ret_error);
}

typedef struct DbRun {
	ModelList *ml;
	unsigned skipped;
	char **ret_error;
} DbRun;

static int on_drivedb(const DriveDbEntry *d, void *userdata)
{
	DbRun *run = userdata;
	DriveDbMark mark = drivedb_mark(d->family);
	if (mark == DRIVEDB_UNMARKED)
		return 0;
	/* one firmware's behaviour is not the model's */
	if (d->firmware[0]) {
		run->skipped++;
		return 0;
	}
	int r = grow(run->ml, d->line, run->ret_error);
	if (r < 0)
		return r;
	_cleanup_free_ char *source = NULL, *family = str_sanitize(d->family);
	if (!family || asprintf(&source, "smartmontools family \"%s\"", family) < 0)
		return -ENOMEM;
	r = entry_init(&run->ml->entries[run->ml->n], mark == DRIVEDB_SMR ? MODEL_CLASS_DM_SMR : MODEL_CLASS_CMR,
		       d->model, source, "drivedb.h", d->warning, d->line, run->ret_error);
	if (r < 0)
		return r;
	run->ml->n++;
	return 0;
}

int modellist_parse_drivedb(const char *text, ModelList **ret, unsigned *ret_skipped, char **ret_error)
{
	_cleanup_(modellist_freep) ModelList *ml = modellist_new();
	if (!ml)
		return -ENOMEM;
	*ret_error = NULL;
	DbRun run = {.ml = ml, .ret_error = ret_error};
	int r = drivedb_parse(text, on_drivedb, &run, ret_error);
	if (r < 0)
		return r;
	if (ret_skipped)
		*ret_skipped = run.skipped;
	set_limits(ml);
	r = probe(ml, ret_error);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ml);
	return 0;
}

int modellist_load_drivedb(const char *path, ModelList **ret, unsigned *ret_skipped, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	*ret_error = NULL;
	int r = read_text(path, DRIVEDB_MAX_BYTES, &text, ret_error);
	if (r < 0)
		return r;
	return modellist_parse_drivedb(text, ret, ret_skipped, ret_error);
}

static const char *const drivedb_paths[] = {"/var/lib/smartmontools/drivedb/drivedb.h",
					    "/usr/share/smartmontools/drivedb.h"};

int modellist_load_drivedb_first(const char *const *paths, size_t n, ModelList **ret, char **ret_path,
				 unsigned *ret_skipped, char **ret_error)
{
	_cleanup_free_ char *broken = NULL, *broken_path = NULL;
	int r = -ENOENT, broken_r = 0;
	*ret = NULL;
	*ret_path = NULL;
	*ret_error = NULL;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *err = NULL;
		r = modellist_load_drivedb(paths[i], ret, ret_skipped, &err);
		if (r == -ENOENT)
			continue;
		if (r == 0) {
			*ret_path = strdup(paths[i]);
			break;
		}
		/* a broken update-smart-drivedb copy leaves the package's to read */
		if (!broken) {
			broken_r = r;
			broken_path = strdup(paths[i]);
			broken = err ? TAKE_PTR(err) : strdup(read_error_string(r));
		}
	}
	if (r == 0 && !*ret_path) {
		*ret = modellist_free(*ret);
		return -ENOMEM;
	}
	if (!broken)
		return r;
	if (r == 0) {
		if (asprintf(ret_error, "%s: %s; read %s instead", broken_path, broken, *ret_path) < 0)
			*ret_error = NULL;
		return 0;
	}
	*ret_path = TAKE_PTR(broken_path);
	*ret_error = TAKE_PTR(broken);
	return broken_r;
}

int modellist_load_drivedb_setting(const char *setting, ModelList **ret, char **ret_path, unsigned *ret_skipped,
				   char **ret_error)
{
	*ret = NULL;
	*ret_path = NULL;
	*ret_error = NULL;
	if (streq(setting, "none"))
		return 0;
	if (streq(setting, "auto"))
		return modellist_load_drivedb_first(drivedb_paths, ELEMENTSOF(drivedb_paths), ret, ret_path, ret_skipped,
						    ret_error);
	const char *one[] = {setting};
	return modellist_load_drivedb_first(one, 1, ret, ret_path, ret_skipped, ret_error);
}

int modellist_concat(ModelList *dst, ModelList *src)
{
	if (!src)
		return 0;
	/* each list was held to MODELLIST_MAX_ENTRIES: a drivedb.h and a model list always fit */
	if (dst->n + src->n > 2 * MODELLIST_MAX_ENTRIES) {
		modellist_free(src);
		return -E2BIG;
	}
	Entry *n = realloc(dst->entries, (dst->n + src->n) * sizeof *n);
	if (!n && dst->n + src->n > 0) {
		modellist_free(src);
		return -ENOMEM;
	}
	dst->entries = n;
	memcpy(dst->entries + dst->n, src->entries, src->n * sizeof *n);
	dst->n += src->n;
	free(src->entries);
	free(src->matches);
	free(src);
	set_limits(dst);
	return 0;
}

unsigned modellist_size(const ModelList *ml) { return ml ? ml->n : 0; }

uint64_t modellist_matches(const ModelList *ml) { return ml ? *ml->matches : 0; }

unsigned modellist_match_limit(const ModelList *ml) { return ml ? ml->limit : 0; }

const ModelEntry *modellist_match(const ModelList *ml, const char *model)
{
	if (!ml || !model || !*model)
		return NULL;
	for (unsigned i = 0; i < ml->n; i++) {
		++*ml->matches;
		/* one entry a limit stopped is not a match; later ones may be */
		if (pattern_match(ml->entries[i].re, model) == 1)
			return &ml->entries[i].pub;
	}
	return NULL;
}

void modellists_done(ModelLists *m)
{
	m->list = modellist_free(m->list);
	free(m->origin);
	free(m->list_origin);
	free(m->drivedb_path);
	free(m->drivedb_warning);
	*m = (ModelLists){0};
}

/* smartmontools' SMR and CMR families, or none (*ret NULL). A database
 * found by "auto" that does not parse is warned about and left out; one
 * named in the settings must load. */
static int load_drivedb_setting(const char *setting, ModelLists *m, ModelList **ret, char **ret_error)
{
	_cleanup_free_ char *err = NULL;
	int r = modellist_load_drivedb_setting(setting, ret, &m->drivedb_path, &m->drivedb_skipped, &err);
	if (r == 0) {
		m->drivedb_warning = TAKE_PTR(err);
		m->drivedb_entries = modellist_size(*ret);
		return 0;
	}
	if (r == -ENOENT && streq(setting, "auto"))
		return 0;
	if (streq(setting, "auto")) {
		if (asprintf(&m->drivedb_warning, "%s: %s", m->drivedb_path, err ? err : read_error_string(r)) < 0)
			m->drivedb_warning = NULL;
		free(m->drivedb_path);
		m->drivedb_path = NULL;
		return 0;
	}
	return set_errorf(ret_error, r, "drivedb %s: %s", setting, err ? err : read_error_string(r));
}

static int load_list_setting(const ModelSettings *s, ModelLists *m, ModelList **ret, char **ret_error)
{
	_cleanup_free_ char *err = NULL;
	const char *origin = s->model_list;
	int r;
	if (streq(s->model_list, "builtin"))
		r = modellist_parse(s->builtin, ret, &err);
	else {
		r = modellist_load(s->model_list, ret, &err);
		if (r == -ENOENT && s->installed && streq(s->model_list, s->installed)) {
			m->builtin_instead = true;
			origin = "builtin";
			free(err);
			err = NULL;
			r = modellist_parse(s->builtin, ret, &err);
		}
	}
	if (r < 0)
		return set_errorf(ret_error, r, "model list %s: %s", s->model_list, err ? err : strerror(-r));
	m->list_entries = modellist_size(*ret);
	m->list_origin = strdup(origin);
	return m->list_origin ? 0 : set_errorf(ret_error, -ENOMEM, "model list %s: %s", s->model_list, strerror(ENOMEM));
}

int modellist_load_settings(const ModelSettings *s, ModelLists *ret, char **ret_error)
{
	ModelLists m = {0};
	_cleanup_(modellist_freep) ModelList *db = NULL;
	_cleanup_(modellist_freep) ModelList *list = NULL;
	int r = load_drivedb_setting(s->drivedb, &m, &db, ret_error);
	if (r >= 0)
		r = load_list_setting(s, &m, &list, ret_error);
	if (r < 0) {
		modellists_done(&m);
		return r;
	}
	bool chosen = !streq(s->model_list, "builtin") && !(s->installed && streq(s->model_list, s->installed));
	/* modellist_concat() frees its second list, on failure too */
	if (db && !chosen) {
		r = modellist_concat(db, TAKE_PTR(list));
		m.list = TAKE_PTR(db);
	} else {
		r = modellist_concat(list, TAKE_PTR(db));
		m.list = TAKE_PTR(list);
	}
	if (r >= 0 && m.drivedb_path && asprintf(&m.origin, "%s + %s", chosen ? m.list_origin : m.drivedb_path,
						 chosen ? m.drivedb_path : m.list_origin) < 0) {
		m.origin = NULL;
		r = -ENOMEM;
	} else if (r >= 0 && !m.drivedb_path && !(m.origin = strdup(m.list_origin)))
		r = -ENOMEM;
	if (r < 0) {
		set_errorf(ret_error, r, "the model lists together: %s", strerror(-r));
		modellists_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}
