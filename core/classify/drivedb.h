/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smartmontools' drive database (drivedb.h), read as data: the C array of
 * { family, model regex, firmware regex, warning, presets } initialisers,
 * each field one or more adjacent string literals. smartmontools keeps it
 * current (update-smart-drivedb) and names the SMR families "... (SMR)":
 * the freshest model list there is. Parsing is pure.
 */
#pragma once

typedef struct DriveDbEntry {
	const char *family;
	const char *model;	/* POSIX extended, matched against the whole model */
	const char *firmware;	/* "" for any */
	const char *warning;	/* what smartctl warns of the family ("" none): known firmware bugs, and since
				 * smartmontools commit 33da3bf5 (2025-11) data loss on WD's SMR families */
	const char *comment;	/* the comments inside the entry: "tested with MODEL/FW, ..." */
	unsigned line;		/* of its opening brace */
} DriveDbEntry;

/* Called for each entry; a negative return stops the walk with it. */
typedef int (*DriveDbVisit)(const DriveDbEntry *e, void *userdata);

/* Walks the text's entries. -EINVAL on text that is not a drive database
 * (an unterminated string or comment, a field that is not a string, an
 * entry with fewer than 2 fields), *ret_error saying which line and why. */
int drivedb_parse(const char *text, DriveDbVisit visit, void *userdata, char **ret_error);

typedef enum DriveDbMark {
	DRIVEDB_UNMARKED,
	DRIVEDB_SMR,		/* "... (SMR)" */
	DRIVEDB_CMR,		/* "... (CMR)": the CMR half of a family sold both ways */
} DriveDbMark;

/* What a family's name says of its recording: only a name that ends in
 * "(SMR)" or "(CMR)" says anything ("(CMR/SMR)" does not). */
DriveDbMark drivedb_mark(const char *family);
