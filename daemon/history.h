/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event history: an embedded SQLite database under the state directory
 * (WAL, bounded by age and count), so that events survive restarts and a
 * kill -9. When the database cannot be used, events are kept in memory
 * only and the failure is counted, never fatal.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define HISTORY_FILE "events.db"
#define HISTORY_MEMORY 512	/* events kept in memory when the database is unusable */

typedef struct HistoryEvent {
	int64_t id;
	uint64_t time_usec;		/* CLOCK_REALTIME: when it began */
	uint64_t logged_usec;		/* when smrd recorded it */
	char device[32];
	char serial[96];		/* the disk's identity across renames: wwn, else serial */
	char kind[32];
	char op[12];			/* read, write, discard, flush or "" */
	char severity[12];
	double duration, latency, value;
	int64_t count, bytes, sector;
	char message[320];
} HistoryEvent;

typedef struct HistoryFilter {
	const char *device;		/* NULL: all */
	const char *serial;		/* NULL: all; matched instead of device when set */
	uint64_t since_usec;		/* events that began at or after */
	int64_t after_id;		/* events with a larger id (for --follow) */
	unsigned limit;			/* the newest `limit`, returned oldest first; 0 = 1000 */
} HistoryFilter;

typedef struct History History;

/* Opens (creating) dir/events.db. A corrupt file is moved aside to
 * events.db.corrupt-<time> and a new one started. Never NULL on -ENOMEM
 * only: on any other failure it returns a memory-only history and sets
 * *ret_error (caller frees). */
int history_open(const char *dir, History **ret, char **ret_error);
History *history_close(History *h);
bool history_persistent(const History *h);
const char *history_path(const History *h);
/* Stores e and sets e->id. */
int history_add(History *h, HistoryEvent *e);
typedef int (*HistoryCb)(const HistoryEvent *e, void *userdata);
int history_query(History *h, const HistoryFilter *f, HistoryCb cb, void *userdata);
/* Drops events that began before `before_usec`, and the oldest beyond max_events. */
int history_prune(History *h, uint64_t before_usec, uint64_t max_events);
uint64_t history_errors(const History *h);
/* Deletes a disk's events (by name, or by identity when serial is not
 * empty); returns how many. */
int history_forget(History *h, const char *device, const char *serial);
