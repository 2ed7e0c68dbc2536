/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The list of disk models known to be DM-SMR (or known CMR look-alikes), each
 * entry with its source. Parsing is pure; loading is one bounded file read.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ModelList ModelList;

/* What matching costs. A classification matches at most MODELLIST_SUBJECTS
 * model strings (IDENTIFY, udev, sysfs, vendor+model) against the entries,
 * and all those matches share MODELLIST_MATCH_BUDGET PCRE2 match steps:
 * each pattern may take budget / (subjects x entries) of them, at most
 * PATTERN_MATCH_LIMIT. A file may hold MODELLIST_MAX_ENTRIES entries (a
 * larger one is refused, as one that does not parse), the two lists
 * together twice that, so every pattern keeps at least 128 steps (the
 * patterns of smartmontools' drivedb.h take a few tens on a model
 * string), and a list of backtracking patterns costs one classification
 * the budget at worst (some tens of milliseconds), once per disk: when it
 * is found, when its model strings change, and on a reload. A list with
 * a pattern that spends its whole share on a plain model string is
 * refused at load, as one that does not parse. */
#define MODELLIST_SUBJECTS 4
#define MODELLIST_MATCH_BUDGET (UINT64_C(1) << 21)
#define MODELLIST_MAX_ENTRIES 2048

typedef enum ModelClass {
	MODEL_CLASS_DM_SMR,
	MODEL_CLASS_CMR,
	_MODEL_CLASS_MAX,
	_MODEL_CLASS_INVALID = -EINVAL,
} ModelClass;

typedef struct ModelEntry {
	ModelClass class;
	const char *pattern;
	const char *source;
	const char *origin;	/* "model list" or "drivedb.h": what line counts in */
	unsigned line;
	const char *warning;	/* drivedb.h's warning for the family, one line, printable; NULL for none */
} ModelEntry;

/* Parses the TSV text; on error *ret_error says which line and why
 * (-E2BIG past MODELLIST_MAX_ENTRIES, or for a pattern that backtracks
 * past its share of the budget on a plain model string). */
int modellist_parse(const char *text, ModelList **ret, char **ret_error);
/* Reads and parses a file (at most 1 MiB); a NUL byte in it is -EINVAL,
 * *ret_error naming its offset. */
int modellist_load(const char *path, ModelList **ret, char **ret_error);
ModelList *modellist_free(ModelList *ml);
static inline void modellist_freep(ModelList **ml) { modellist_free(*ml); }
/* From smartmontools' drivedb.h: the families it marks "(SMR)" (dm-smr) and
 * "(CMR)" (cmr), those valid for any firmware, in the database's order.
 * *ret_skipped counts marked entries left out (firmware-specific ones). */
int modellist_parse_drivedb(const char *text, ModelList **ret, unsigned *ret_skipped, char **ret_error);
int modellist_load_drivedb(const char *path, ModelList **ret, unsigned *ret_skipped, char **ret_error);
/* The first of paths that reads and parses: 0 with *ret_error NULL, or,
 * when an earlier one was there but broken, 0 with *ret_error saying so
 * (a warning). -ENOENT when none is there; else the first broken one's
 * error, with *ret_path naming it. */
int modellist_load_drivedb_first(const char *const *paths, size_t n, ModelList **ret, char **ret_path,
				 unsigned *ret_skipped, char **ret_error);
/* drivedb = SETTING: "none" (0, *ret NULL), a path, or "auto": where
 * smartctl looks, update-smart-drivedb's copy first, then the package's.
 * As modellist_load_drivedb_first(). */
int modellist_load_drivedb_setting(const char *setting, ModelList **ret, char **ret_path, unsigned *ret_skipped,
				   char **ret_error);
/* Appends src's entries to dst (src may be NULL) and frees src: a model
 * takes the first entry that matches, so the list first given wins. */
int modellist_concat(ModelList *dst, ModelList *src);
unsigned modellist_size(const ModelList *ml);
/* How many pattern matches were run on the list: what classifying costs,
 * so that a test can tell that a view did not classify. */
uint64_t modellist_matches(const ModelList *ml);
/* The PCRE2 match steps one of its patterns may take. */
unsigned modellist_match_limit(const ModelList *ml);

/* The lists smrd and smrctl qualify classify with, as the settings name
 * them: model-list ("builtin" or a path; the list smrd installs falls back
 * to the built-in one when it is not there) and drivedb ("none", "auto" or a
 * path). drivedb goes first (update-smart-drivedb keeps it current) unless
 * the administrator chose a list. */
typedef struct ModelSettings {
	const char *model_list;		/* "builtin", or a path */
	const char *installed;		/* the path smrd installs its list at */
	const char *builtin;		/* the built-in list's text */
	const char *drivedb;		/* "none", "auto" or a path */
} ModelSettings;

typedef struct ModelLists {
	ModelList *list;		/* merged: a model takes the first entry that matches */
	char *origin;			/* "builtin", a path, or "A + B" in matching order */
	/* what a caller may log */
	bool builtin_instead;		/* the installed list is not there: the built-in one */
	char *list_origin;		/* the model list alone: "builtin" or its path */
	unsigned list_entries;
	char *drivedb_path;		/* the drivedb.h read, NULL for none */
	unsigned drivedb_entries, drivedb_skipped;
	char *drivedb_warning;		/* "auto" left a broken one out: "PATH: why[; read OTHER instead]" */
} ModelLists;

/* 0, or -errno with *ret_error ("model list PATH: why", "drivedb PATH: why"). */
int modellist_load_settings(const ModelSettings *s, ModelLists *ret, char **ret_error);
void modellists_done(ModelLists *m);
/* The first entry whose pattern matches the whole model string, or NULL. */
const ModelEntry *modellist_match(const ModelList *ml, const char *model);
const char *model_class_to_string(ModelClass c);
