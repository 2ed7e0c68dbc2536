/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When the event history may be pruned by age (pure: the caller gives both
 * clocks). Events are dated by the wall clock, and a wall clock can be
 * wrong: an RTC 100 days ahead at boot, before NTP, emptied events.db on
 * the first tick. So: never in the first minutes, never within an hour of
 * a jump (the wall clock against the monotonic one), and never when that
 * would delete every event stored before this start. The count limit is
 * the caller's, and always holds.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define RETENTION_FIRST_USEC (600 * UINT64_C(1000000))	/* the first prune after start */
#define RETENTION_EVERY_USEC (3600 * UINT64_C(1000000))	/* then at most this often */
#define RETENTION_JUMP_USEC (10 * INT64_C(1000000))	/* a change of the offset past this is a jump */
#define RETENTION_STEADY_USEC (3600 * UINT64_C(1000000))	/* no pruning by age this long after one */

typedef struct Retention {
	uint64_t started, steady_since, last_prune;	/* CLOCK_MONOTONIC, µs */
	int64_t offset;			/* CLOCK_REALTIME - CLOCK_MONOTONIC at the last look */
	uint64_t prior_newest;		/* CLOCK_REALTIME of the newest event stored before the start; 0 none */
} Retention;

void retention_init(Retention *r, uint64_t now_mono, uint64_t now_real, uint64_t prior_newest);
/* Once per tick: the wall clock's jump since the last look in µs (0 when it
 * held steady); a jump starts the hour without pruning by age. */
int64_t retention_watch(Retention *r, uint64_t now_mono, uint64_t now_real);
/* Whether a prune is due now (and then it counts as done). *ret_before is
 * the age cutoff on the wall clock, 0 to prune by count only, with *ret_why
 * saying why not by age (NULL when by age). */
bool retention_due(Retention *r, uint64_t now_mono, uint64_t now_real, double keep_days, uint64_t *ret_before,
		   const char **ret_why);
