/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `btrfs replace status -1 MOUNT` read into a struct (pure): the state of
 * the replace (never started, under way with its per-mille progress,
 * finished, canceled, suspended), its start and stop and its error counts.
 * The grammar is print_replace_status() in btrfs-progs' cmds/replace.c; the
 * dates are strftime("%e.%b %T") in local time, with no year.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BTRFS_REPLACE_INPUT_MAX 4096	/* one line, and the loop form's backspaces */

typedef enum BtrfsReplaceState {
	BTRFS_REPLACE_NEVER_STARTED,
	BTRFS_REPLACE_STARTED,		/* under way: "12.3% done" */
	BTRFS_REPLACE_FINISHED,
	BTRFS_REPLACE_CANCELED,
	BTRFS_REPLACE_SUSPENDED,	/* unmounted mid-way: resumes at the next mount */
	_BTRFS_REPLACE_STATE_MAX,
	_BTRFS_REPLACE_STATE_INVALID = -EINVAL,
} BtrfsReplaceState;

/* " 5.Dec 06:07:01": a day of a year not given */
typedef struct BtrfsReplaceTime {
	unsigned month;			/* 1-12; 0: not given */
	unsigned day;			/* 1-31 */
	unsigned second_of_day;		/* 0-86399 (86400 for a leap second) */
} BtrfsReplaceTime;

typedef struct BtrfsReplaceStatus {
	BtrfsReplaceState state;
	double progress;		/* share done, 0-1 (the kernel counts per mille); NaN not given */
	BtrfsReplaceTime started, stopped;	/* stopped: finished, canceled or suspended */
	uint64_t write_errors;
	uint64_t uncorrectable_read_errors;
} BtrfsReplaceStatus;

/* "never started", "started", "finished", "canceled", "suspended"; NULL
 * outside the enum. */
const char *btrfs_replace_state_to_string(BtrfsReplaceState s);
/* Reads the output (the last line printed when it holds the loop form's
 * backspaces). 0; -EINVAL with *ret_error (free it) on anything else. */
int btrfs_replace_parse(const char *text, size_t len, BtrfsReplaceStatus *ret, char **ret_error);
/* Seconds from started to stopped, a year's end crossed at most once (a
 * replace lasts less than a year); NaN when either is not given. */
double btrfs_replace_duration(const BtrfsReplaceStatus *s);
