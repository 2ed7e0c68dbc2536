/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The list of disk models known to be DM-SMR (or known CMR look-alikes), each
 * entry with its source. Parsing is pure; loading is one bounded file read.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct ModelList ModelList;

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
} ModelEntry;

/* Parses the TSV text; on error *ret_error says which line and why. */
int modellist_parse(const char *text, ModelList **ret, char **ret_error);
/* Reads and parses a file (at most 1 MiB). */
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
