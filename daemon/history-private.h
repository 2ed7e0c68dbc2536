/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The history's handle, shared by its parts: history.c (the file, the
 * events, the faults), history-query.c (reading the events back) and
 * history-notify.c (the notifier's tables). One
 * database, one schema version: HISTORY_SCHEMA_VERSION in PRAGMA
 * user_version, brought up to date when the file is opened for writing.
 */
#pragma once

#include <sqlite3.h>
#include <sys/types.h>

#include "history.h"

/* 0: events only, the notifier's records as "notify:"/"ack:" events.
 * 1: the notifier's tables (notify_incidents, notify_sends, notify_acks).
 * 2: notify_acks.until_usec (an ack's expiry; version 1's acks keep 0: none).
 * 3: incidents, events.incident; version 2's events grouped into incidents,
 *    the slow I/Os of each but its first counted in it and their rows gone. */
#define HISTORY_SCHEMA_VERSION 3
#define HISTORY_STR_(x) #x
#define HISTORY_STR(x) HISTORY_STR_(x)

struct History {
	sqlite3 *db;			/* read-write; NULL when it cannot be used */
	sqlite3 *ro;			/* read-only, while db is NULL */
	char *path;
	int watch_fd;			/* the file db writes: its link count says if it was deleted */
	dev_t watch_dev;
	ino_t watch_ino;
	bool orphaned;			/* db's file was deleted: it is read, not written, until recreated */
	sqlite3_stmt *insert;
	uint64_t errors, dropped;
	int64_t next_id;
	uint64_t last_retry_usec;
	HistoryEvent *pending;		/* ring of HISTORY_PENDING_MAX, allocated when first needed */
	unsigned pend_head, pend_len;
	char last_error[256];
	char notice[320];
	bool has_notice;
	/* the notifier's rows while the database cannot take them (history-notify.c) */
	HistorySend *pend_sends;
	HistoryAck *pend_acks;
	unsigned n_pend_sends, n_pend_acks;
	int64_t next_send_id, next_ack_id;	/* ours, as the events' ids: a pending send keeps its id */
	char recovered[1024];		/* not empty: rebuilt at start from a damaged file, and how */
	Incident *pend_incidents;	/* incidents' newest states the database did not take (history-incidents.c) */
	unsigned n_pend_incidents;
};

#define HISTORY_INCIDENTS_PENDING_MAX 256	/* incidents held in memory, each its newest state */

#define HISTORY_NOTES_PENDING_MAX 256	/* sends, and acks, held in memory */

/* The notifier's tables in schema db ("" or "fresh."), for a new file and a rescued one. */
#define HISTORY_NOTIFY_SCHEMA(db) \
	"CREATE TABLE IF NOT EXISTS " db "notify_incidents (" \
	" incident TEXT PRIMARY KEY, device TEXT NOT NULL, identity TEXT NOT NULL, kind TEXT NOT NULL," \
	" opened_usec INTEGER NOT NULL, closed_usec INTEGER);" \
	"CREATE TABLE IF NOT EXISTS " db "notify_sends (" \
	" id INTEGER PRIMARY KEY, time_usec INTEGER NOT NULL, event_usec INTEGER NOT NULL," \
	" device TEXT NOT NULL, identity TEXT NOT NULL, kind TEXT NOT NULL, incident TEXT NOT NULL," \
	" follow_up INTEGER NOT NULL, count INTEGER NOT NULL, command TEXT NOT NULL, result TEXT NOT NULL," \
	" exit_status INTEGER, done_usec INTEGER);" \
	"CREATE INDEX IF NOT EXISTS " db "notify_sends_identity ON notify_sends(identity, kind, time_usec);" \
	"CREATE TABLE IF NOT EXISTS " db "notify_acks (" \
	" id INTEGER PRIMARY KEY, time_usec INTEGER NOT NULL, device TEXT NOT NULL, identity TEXT NOT NULL," \
	" kind TEXT NOT NULL, disk_class TEXT NOT NULL, until_usec INTEGER NOT NULL DEFAULT 0);"

/* The incidents' table in schema db ("" or "fresh."). */
#define HISTORY_INCIDENTS_SCHEMA(db) \
	"CREATE TABLE IF NOT EXISTS " db "incidents (" \
	" id TEXT PRIMARY KEY, kind TEXT NOT NULL, device TEXT NOT NULL, disk_id TEXT NOT NULL," \
	" start_usec INTEGER NOT NULL, end_usec INTEGER NOT NULL, last_usec INTEGER NOT NULL," \
	" priority INTEGER NOT NULL, events INTEGER NOT NULL, folded INTEGER NOT NULL," \
	" slow_ios INTEGER NOT NULL, slow_worst REAL, slow_hist TEXT NOT NULL, slow_peak INTEGER NOT NULL," \
	" slow_minute INTEGER NOT NULL, slow_now INTEGER NOT NULL, last_slow_usec INTEGER NOT NULL," \
	" zfs_delays INTEGER NOT NULL, zfs_worst REAL, storms INTEGER NOT NULL, storm_open INTEGER NOT NULL," \
	" expected REAL, duration REAL, title TEXT NOT NULL, outcome TEXT NOT NULL, seen INTEGER NOT NULL," \
	" steps TEXT NOT NULL);" \
	"CREATE INDEX IF NOT EXISTS " db "incidents_start ON incidents(start_usec);"

/* Copies the notifier's tables of main into fresh (an attached new file). */
#define HISTORY_NOTIFY_COPY \
	"INSERT OR IGNORE INTO fresh.notify_incidents SELECT * FROM main.notify_incidents;" \
	"INSERT OR IGNORE INTO fresh.notify_sends SELECT * FROM main.notify_sends;" \
	"INSERT OR IGNORE INTO fresh.notify_acks SELECT * FROM main.notify_acks;"

/* Ends a transaction begun on db: COMMIT when rc is SQLITE_OK (and that
 * worked), else ROLLBACK; 0 or rc as -errno (history_classify_rc). */
int history_end_transaction(sqlite3 *db, int rc);
/* Says on h what failed (history_last_error). */
void history_note_error(History *h, const char *what, sqlite3 *db);
/* An SQLite code as -errno: -EBADMSG corrupt, -EROFS not writable, -ENOSPC, else -EIO. */
int history_classify_rc(int rc);

/* history-incidents.c */
/* Brings db from version 2 to 3: the incidents table and events.incident,
 * and the events grouped into incidents as smrd groups them now, each
 * incident's counted events' rows deleted (one transaction). */
int history_incidents_setup(sqlite3 *db);
/* Deletes the incidents of a disk (by name, or identity when not empty). */
int history_incidents_forget(History *h, const char *device, const char *identity);
/* Drops ended incidents that ended before before_usec, and the oldest beyond max_rows. */
int history_incidents_prune(History *h, uint64_t before_usec, uint64_t max_rows);
/* Writes the incidents waiting in memory (one transaction); how many, or -errno. */
int history_incidents_flush(History *h);
void history_incidents_free(History *h);

/* history-files.c */
/* Makes h->path a database file of ours (creating it 0640) and checks its
 * -wal, -shm and -journal: one that is not a regular file of ours, or that
 * others may write, is moved aside unread (h->notice says so). -EPERM with
 * h->last_error when the database itself is not ours. */
int history_own_files(History *h);
/* Renames the database and its -wal and -shm to <path>.corrupt-<time>* (aside). */
int history_move_aside(History *h, char *aside, size_t n);

/* history-salvage.c */
typedef struct HistorySalvage {
	uint64_t rows, events;		/* rows copied, of them events */
	unsigned damaged;		/* damaged stretches skipped */
	unsigned unreadable;		/* tables that could not be read at all */
	char error[160];		/* the last SQLite error met */
} HistorySalvage;
/* Copies every row that can be read of the database file `from` into the
 * same tables of `to` (one transaction). */
int history_salvage(sqlite3 *to, const char *from, HistorySalvage *ret);
/* The damaged file moved aside to `aside` and a new one open in h->db: what
 * can be read of it copied in, and h->recovered says how it went. */
void history_recover(History *h, const char *aside, const char *damage);

/* history-notify.c */
/* Brings db to HISTORY_SCHEMA_VERSION: creates the notifier's tables and
 * moves the "notify:"/"ack:" events of version 0 into them, in one
 * transaction (all or nothing). */
int history_notify_setup(sqlite3 *db);
/* The next ids of sends and acks: past what db holds. */
void history_notify_ids(History *h, sqlite3 *db);
/* Whether notifier rows wait in memory. */
bool history_notify_pending(const History *h);
/* Writes the waiting notifier rows (one transaction); how many, or -errno. */
int history_notify_flush(History *h);
void history_notify_free(History *h);
/* Deletes the notifier's records of a disk (by name, or identity when not empty). */
int history_notify_forget(History *h, const char *device, const char *identity);
/* Drops the notifier's records older than before_usec, and sends beyond max_rows. */
int history_notify_prune(History *h, uint64_t before_usec, uint64_t max_rows);
