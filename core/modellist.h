/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The list of disk models known to be DM-SMR (or known CMR look-alikes), each
 * entry with its source. Parsing is pure; loading is one bounded file read.
 */
#pragma once

#include <stdbool.h>

typedef struct ModelList ModelList;

typedef enum ModelClass {
	MODEL_CLASS_DM_SMR,
	MODEL_CLASS_CMR,
	_MODEL_CLASS_MAX,
	_MODEL_CLASS_INVALID = -22,
} ModelClass;

typedef struct ModelEntry {
	ModelClass class;
	const char *pattern;
	const char *source;
	unsigned line;
} ModelEntry;

/* Parses the TSV text; on error *ret_error says which line and why. */
int modellist_parse(const char *text, ModelList **ret, char **ret_error);
/* Reads and parses a file (at most 1 MiB). */
int modellist_load(const char *path, ModelList **ret, char **ret_error);
ModelList *modellist_free(ModelList *ml);
unsigned modellist_size(const ModelList *ml);
/* The first entry whose pattern matches the whole model string, or NULL. */
const ModelEntry *modellist_match(const ModelList *ml, const char *model);
const char *model_class_to_string(ModelClass c);
