/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQLite in WAL mode with synchronous=NORMAL: a commit reaches the OS
 * before it returns, so a kill -9 loses nothing; a power cut may lose the
 * last commits but never corrupts the file. Every insert is one short
 * transaction on the event loop: events are rare (a storm is two rows), and
 * even a stall per second costs tens of microseconds.
 *
 * Ids are ours, not SQLite's: an event gets the next id when it happens,
 * whether it reaches the database now or later from the pending queue, so
 * `smrctl events --follow` sees every event once and in order. Pending
 * events are always newer than every stored one (once one is pending, the
 * following ones queue behind it), which keeps queries a simple join of the
 * two.
 */
#include "history-private.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"


static const char *const state_names[_HISTORY_STATE_MAX] = {
	[HISTORY_OK] = "ok", [HISTORY_PENDING] = "pending", [HISTORY_READ_ONLY] = "read-only",
	[HISTORY_MEMORY] = "memory-only", [HISTORY_RECOVERED] = "recovered",
};

const char *history_state_to_string(HistoryState s)
{
	return s >= 0 && s < _HISTORY_STATE_MAX ? state_names[s] : NULL;
}

#define SCHEMA(db) \
	"CREATE TABLE IF NOT EXISTS " db "events (" \
	" id INTEGER PRIMARY KEY AUTOINCREMENT," \
	" time_usec INTEGER NOT NULL, logged_usec INTEGER NOT NULL," \
	" device TEXT NOT NULL, serial TEXT NOT NULL, kind TEXT NOT NULL, op TEXT NOT NULL," \
	" severity TEXT NOT NULL, duration REAL, latency REAL, value REAL," \
	" count INTEGER, bytes INTEGER, sector INTEGER, message TEXT NOT NULL," \
	" incident TEXT NOT NULL DEFAULT '');" \
	"CREATE INDEX IF NOT EXISTS " db "events_time ON events(time_usec);" \
	"CREATE INDEX IF NOT EXISTS " db "events_device ON events(device, id);"

int history_end_transaction(sqlite3 *db, int rc)
{
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return history_classify_rc(rc);
}

void history_note_error(History *h, const char *what, sqlite3 *db)
{
	snprintf(h->last_error, sizeof h->last_error, "%s %s: %s", what, h->path, db ? sqlite3_errmsg(db) : "out of memory");
}

/* What an SQLite failure means for us: a corrupt file, or one we may not write. */
int history_classify_rc(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EROFS;
	case SQLITE_FULL:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

static int64_t max_id(sqlite3 *db)
{
	sqlite3_stmt *s;
	int64_t id = 0;
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM events", -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

/* quick_check reads every page: fine for a database bounded to ~100k rows.
 * What it found wrong goes to `found` (its first line: the rest is more of
 * the same), for a warning that says more than SQLite's "not an error". */
static int check_integrity(sqlite3 *db, char *found, size_t n)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return history_classify_rc(rc);
	rc = sqlite3_step(s);
	const char *text = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	bool ok = rc == SQLITE_ROW && streq_ptr(text, "ok");
	int r = ok ? 0 : rc == SQLITE_ROW ? -EBADMSG : history_classify_rc(rc);
	if (text && !ok) {
		if (startswith(text, "*** in database main ***\n"))
			text += strlen("*** in database main ***\n");
		snprintf(found, n, "%.*s", (int)strcspn(text, "\n"), text);
	}
	sqlite3_finalize(s);
	return r;
}

static void watch_file(History *h)
{
	struct stat st;
	if (h->watch_fd >= 0)
		close(h->watch_fd);
	h->watch_fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (h->watch_fd >= 0 && fstat(h->watch_fd, &st) == 0) {
		h->watch_dev = st.st_dev;
		h->watch_ino = st.st_ino;
	}
}

static int open_rw(History *h)
{
	sqlite3 *db = NULL;
	char found[200] = "";
	int owned = history_own_files(h);
	if (owned < 0) {
		if (owned != -EPERM)
			snprintf(h->last_error, sizeof h->last_error, "cannot create %s: %s", h->path, strerror(-owned));
		return -EACCES;
	}
	int rc = sqlite3_open_v2(h->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL);
	int r = rc == SQLITE_OK ? 0 : history_classify_rc(rc);
	const char *what = "cannot open";
	if (r == 0) {
		sqlite3_busy_timeout(db, 1000);
		/* a page cache of 256 KiB, not sqlite's 2 MiB: the writes are a few
		 * events a minute and the reads one disk's recent past */
		rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-256;", NULL,
				  NULL, NULL);
		r = rc == SQLITE_OK ? check_integrity(db, found, sizeof found) : history_classify_rc(rc);
		what = r == -EBADMSG ? "corrupt database" : "cannot write";
	}
	if (r == 0 && (rc = sqlite3_exec(db, SCHEMA(""), NULL, NULL, NULL)) != SQLITE_OK) {
		r = history_classify_rc(rc);
		what = "cannot set up";
	}
	if (r == 0 && ((r = history_notify_setup(db)) < 0 || (r = history_incidents_setup(db)) < 0))
		what = "cannot bring up to date";
	if (r == 0 &&
	    (rc = sqlite3_prepare_v2(db,
				     "INSERT INTO events (id, time_usec, logged_usec, device, serial, kind, op, severity,"
				     " duration, latency, value, count, bytes, sector, message, incident)"
				     " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &h->insert, NULL)) != SQLITE_OK) {
		r = history_classify_rc(rc);
		what = "cannot set up";
	}
	if (r < 0) {
		if (*found)
			snprintf(h->last_error, sizeof h->last_error, "%s %s: %s", what, h->path, found);
		else
			history_note_error(h, what, db);
		sqlite3_close(db);
		return r;
	}
	/* ids come from us, one up each time: a row at the top of the range is
	 * no file of ours (and top + 1 would overflow) */
	int64_t top = r == 0 ? max_id(db) : 0;
	if (top == INT64_MAX) {
		r = -EBADMSG;
		snprintf(h->last_error, sizeof h->last_error, "corrupt database: an event id at the end of the range");
		/* a prepared statement keeps the connection open (sqlite3_close says
		 * SQLITE_BUSY and frees nothing) */
		sqlite3_finalize(h->insert);
		h->insert = NULL;
		sqlite3_close(db);
		return r;
	}
	h->db = db;
	if (top >= h->next_id)
		h->next_id = top + 1;
	history_notify_ids(h, db);
	watch_file(h);
	return 0;
}

/* A read-only directory still lets us read what was stored: plainly when
 * SQLite can, else as an immutable file (no WAL, no locks). */
static int open_ro(History *h)
{
	sqlite3 *db = NULL;
	_cleanup_free_ char *uri = NULL;
	Buf b = {0};	/* the path in a URI: % ? # escaped */
	for (const char *p = h->path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			buf_printf(&b, "%%%02X", (unsigned char)*p);
		else
			buf_put(&b, p, 1);
	}
	if (b.oom || asprintf(&uri, "file:%s?immutable=1", b.data ? b.data : "") < 0)
		uri = NULL;
	buf_free(&b);
	for (int pass = 0; pass < 2; pass++) {
		const char *name = pass ? uri : h->path;
		if (!name)
			break;
		int rc = sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
					 (pass ? SQLITE_OPEN_URI : 0), NULL);
		if (rc == SQLITE_OK && sqlite3_exec(db, "SELECT count(*) FROM events", NULL, NULL, NULL) == SQLITE_OK) {
			h->ro = db;
			history_notify_ids(h, db);
			int64_t top = max_id(db);
			if (top >= h->next_id)
				h->next_id = top < INT64_MAX ? top + 1 : INT64_MAX;
			return 0;
		}
		sqlite3_close(db);
		db = NULL;
	}
	return -EIO;
}

static void close_db(History *h)
{
	sqlite3_finalize(h->insert);
	h->insert = NULL;
	sqlite3_close(h->db);
	h->db = NULL;
	sqlite3_close(h->ro);
	h->ro = NULL;
	if (h->watch_fd >= 0)
		close(h->watch_fd);
	h->watch_fd = -1;
}

int history_open(const char *dir, History **ret, char **ret_error)
{
	History *h = calloc(1, sizeof *h);
	if (!h || asprintf(&h->path, "%s/%s", dir, HISTORY_FILE) < 0) {
		free(h);
		return -ENOMEM;
	}
	h->next_id = 1;
	h->watch_fd = -1;
	*ret = h;
	int r = open_rw(h);
	if (r == 0)
		return 0;
	if (r == -EBADMSG) {
		char aside[4200], first[256];
		snprintf(first, sizeof first, "%s", h->last_error);
		int m = history_move_aside(h, aside, sizeof aside);
		if (m == 0 && (r = open_rw(h)) == 0) {
			history_recover(h, aside, first);
			int64_t top = max_id(h->db);	/* past what was recovered */
			if (top < INT64_MAX && top >= h->next_id)
				h->next_id = top + 1;
			history_notify_ids(h, h->db);
			if (ret_error)
				*ret_error = strdup(h->recovered);
			return -ESTALE;	/* usable, but say what happened */
		}
		if (m < 0)
			snprintf(h->last_error, sizeof h->last_error, "%.180s, and it cannot be moved aside: %s", first,
				 strerror(-m));
	}
	/* Not writable: what is stored stays readable, new events wait in memory. */
	bool ro = open_ro(h) == 0;
	if (ret_error && asprintf(ret_error, "%s; %s", h->last_error,
				  ro ? "its events are read-only, new ones are kept in memory until it can be written"
				     : "events are kept in memory only until it can be written") < 0)
		*ret_error = NULL;
	return r;
}

History *history_close(History *h)
{
	if (!h)
		return NULL;
	history_maintain(h, UINT64_MAX, 0);	/* a last chance for what is pending */
	close_db(h);
	history_notify_free(h);
	history_incidents_free(h);
	free(h->pending);
	free(h->path);
	free(h);
	return NULL;
}

HistoryState history_state(const History *h)
{
	if (!h)
		return HISTORY_MEMORY;
	if (h->db)
		return h->pend_len || h->orphaned || history_notify_pending(h) || h->n_pend_incidents ? HISTORY_PENDING
		       : *h->recovered ? HISTORY_RECOVERED : HISTORY_OK;
	return h->ro ? HISTORY_READ_ONLY : HISTORY_MEMORY;
}

bool history_persistent(const History *h)
{
	HistoryState s = history_state(h);
	return s == HISTORY_OK || s == HISTORY_RECOVERED;
}
const char *history_path(const History *h) { return h ? h->path : ""; }
const char *history_last_error(const History *h)
{
	if (!h)
		return "";
	HistoryState s = history_state(h);
	return s == HISTORY_OK ? "" : s == HISTORY_RECOVERED ? h->recovered : h->last_error;
}
uint64_t history_errors(const History *h) { return h ? h->errors : 0; }
unsigned history_pending(const History *h) { return h ? h->pend_len + h->n_pend_incidents : 0; }
uint64_t history_dropped(const History *h) { return h ? h->dropped : 0; }

static int remember(History *h, const HistoryEvent *e)
{
	if (!h->pending) {
		h->pending = calloc(HISTORY_PENDING_MAX, sizeof *h->pending);
		if (!h->pending) {
			h->dropped++;
			return -ENOBUFS;
		}
	}
	int r = 0;
	if (h->pend_len == HISTORY_PENDING_MAX) {
		h->pend_head = (h->pend_head + 1) % HISTORY_PENDING_MAX;	/* the oldest goes */
		h->pend_len--;
		h->dropped++;
		r = -ENOBUFS;
	}
	h->pending[(h->pend_head + h->pend_len++) % HISTORY_PENDING_MAX] = *e;
	return r;
}

static int step_insert(History *h, const HistoryEvent *e)
{
	sqlite3_stmt *s = h->insert;
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, e->id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)e->time_usec);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->logged_usec);
	sqlite3_bind_text(s, 4, e->device, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, e->serial, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, e->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, e->op, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, e->severity, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 9, e->duration);
	sqlite3_bind_double(s, 10, e->latency);
	sqlite3_bind_double(s, 11, e->value);
	sqlite3_bind_int64(s, 12, e->count);
	sqlite3_bind_int64(s, 13, e->bytes);
	sqlite3_bind_int64(s, 14, e->sector);
	sqlite3_bind_text(s, 15, e->message, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 16, e->incident, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc;
}

/* Whether the stored row with e's id is e: written before a commit that then failed. */
static bool stored_already(History *h, const HistoryEvent *e)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(h->db, "SELECT 1 FROM events WHERE id = ?1 AND time_usec = ?2 AND logged_usec = ?3"
			       " AND device = ?4 AND kind = ?5 AND message = ?6", -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(s, 1, e->id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)e->time_usec);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->logged_usec);
	sqlite3_bind_text(s, 4, e->device, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, e->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, e->message, -1, SQLITE_STATIC);
	bool same = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return same;
}

/* Stores e. Its id taken by a row we did not write (some other program
 * writes the file) is no reason to lose it: it gets the next free id. */
static int insert(History *h, HistoryEvent *e)
{
	int rc = step_insert(h, e);
	if ((rc & 0xff) == SQLITE_CONSTRAINT && !stored_already(h, e)) {
		int64_t top = max_id(h->db);
		snprintf(h->notice, sizeof h->notice, "%.150s: event id %lld is a row smrd did not write (another program"
			 " writes this file?): the event is stored as %lld", h->path, (long long)e->id,
			 (long long)(top < INT64_MAX ? top + 1 : 0));
		h->has_notice = true;
		h->errors++;
		if (top < INT64_MAX) {
			e->id = top + 1;
			if (h->next_id <= e->id)
				h->next_id = e->id + 1;
			rc = step_insert(h, e);
		}
	} else if ((rc & 0xff) == SQLITE_CONSTRAINT)
		rc = SQLITE_DONE;
	if (rc == SQLITE_DONE)
		return 0;
	h->errors++;
	history_note_error(h, "cannot write to", h->db);
	return history_classify_rc(rc);
}

int history_add(History *h, HistoryEvent *e)
{
	e->id = h->next_id++;
	if (h->db && !h->orphaned && !h->pend_len && insert(h, e) == 0)
		return 0;
	int r = remember(h, e);
	return r < 0 ? r : -EIO;
}

/* Writes the pending events in one transaction; all or none. */
static int flush_pending(History *h)
{
	if (!h->db || h->orphaned || !h->pend_len)
		return 0;
	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
		return -EIO;
	}
	for (unsigned i = 0; i < h->pend_len; i++)
		if (insert(h, &h->pending[(h->pend_head + i) % HISTORY_PENDING_MAX]) < 0) {
			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
			return -EIO;
		}
	if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	int n = (int)h->pend_len;
	h->pend_len = h->pend_head = 0;
	return n;
}

/* Our file was deleted or replaced: copy what the open handle still holds
 * into a new file at the path, then use that. */
static int rescue(History *h)
{
	sqlite3_stmt *s;
	/* the new file made as open_rw makes it: the connection creates none */
	int owned = history_own_files(h);
	if (owned < 0) {
		h->errors++;
		if (owned != -EPERM)
			snprintf(h->last_error, sizeof h->last_error, "cannot recreate %s: %s", h->path, strerror(-owned));
		return -EACCES;
	}
	int rc = sqlite3_prepare_v2(h->db, "ATTACH DATABASE ?1 AS fresh", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, h->path, -1, SQLITE_STATIC);
		rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(h->db);
		sqlite3_finalize(s);
	}
	if (rc != SQLITE_OK) {
		h->errors++;
		history_note_error(h, "cannot recreate", h->db);
		return history_classify_rc(rc);
	}
	rc = sqlite3_exec(h->db, "BEGIN;" SCHEMA("fresh.") HISTORY_NOTIFY_SCHEMA("fresh.") HISTORY_INCIDENTS_SCHEMA("fresh.")
			  "INSERT OR IGNORE INTO fresh.events SELECT * FROM main.events;" HISTORY_NOTIFY_COPY
			  "INSERT OR IGNORE INTO fresh.incidents SELECT * FROM main.incidents;"
			  "PRAGMA fresh.user_version = " HISTORY_STR(HISTORY_SCHEMA_VERSION) "; COMMIT;", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		h->errors++;
		history_note_error(h, "cannot recreate", h->db);
	}
	sqlite3_exec(h->db, "DETACH DATABASE fresh", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return history_classify_rc(rc);
	close_db(h);
	h->orphaned = false;
	int r = open_rw(h);
	if (r < 0)
		open_ro(h);
	else {
		snprintf(h->notice, sizeof h->notice, "%.200s was deleted or replaced while in use: recreated with every event",
			 h->path);
		h->has_notice = true;
	}
	return r;
}

const char *history_take_notice(History *h)
{
	if (!h || !h->has_notice)
		return NULL;
	h->has_notice = false;
	return h->notice;
}

static bool file_gone(const History *h)
{
	struct stat ours, now;
	if (h->watch_fd < 0 || fstat(h->watch_fd, &ours) < 0)
		return false;
	if (ours.st_nlink == 0)
		return true;
	return stat(h->path, &now) < 0 || now.st_dev != h->watch_dev || now.st_ino != h->watch_ino;
}

int history_maintain(History *h, uint64_t now_mono_usec, uint64_t retry_usec)
{
	if (!h)
		return 0;
	bool due = now_mono_usec == UINT64_MAX || now_mono_usec - h->last_retry_usec >= retry_usec;
	if (h->db && !h->orphaned && file_gone(h)) {
		/* Keep the handle: it is the only copy of what was stored. */
		h->orphaned = true;
		h->errors++;
		snprintf(h->last_error, sizeof h->last_error, "%s was deleted or replaced while in use", h->path);
		due = true;
	}
	if (!due || (h->db && !h->orphaned && !h->pend_len && !history_notify_pending(h) && !h->n_pend_incidents))
		return 0;
	h->last_retry_usec = now_mono_usec;
	if (h->orphaned) {
		if (rescue(h) < 0)
			return 0;
	} else if (!h->db) {
		sqlite3_close(h->ro);
		h->ro = NULL;
		if (open_rw(h) < 0) {
			open_ro(h);
			return 0;
		}
	}
	int n = flush_pending(h);
	(void)history_notify_flush(h);	/* counted in errors when it fails; retried as the events are */
	(void)history_incidents_flush(h);
	return n;
}

int history_forget(History *h, const char *device, const char *serial)
{
	unsigned kept = 0, n = h->pend_len;
	for (unsigned i = 0; i < n; i++) {
		HistoryEvent *e = &h->pending[(h->pend_head + i) % HISTORY_PENDING_MAX];
		if (!(streq(e->device, device) || (serial && *serial && streq(e->serial, serial))))
			h->pending[(h->pend_head + kept++) % HISTORY_PENDING_MAX] = *e;
	}
	h->pend_len = kept;
	int forgotten = (int)(n - kept);
	int r = history_notify_forget(h, device, serial);	/* the notifier's rows, stored and waiting */
	(void)history_incidents_forget(h, device, serial);
	if (!h->db)
		return h->ro ? -EROFS : forgotten;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(h->db, "DELETE FROM events WHERE device = ?1 OR (?2 != '' AND serial = ?2)", -1, &s,
			       NULL) != SQLITE_OK) {
		h->errors++;
		return -EIO;
	}
	sqlite3_bind_text(s, 1, device, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, serial ? serial : "", -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
		return history_classify_rc(rc);
	}
	forgotten += sqlite3_changes(h->db);
	return r < 0 ? r : forgotten;
}

uint64_t history_newest_logged(History *h)
{
	sqlite3 *db = h->db ? h->db : h->ro;
	sqlite3_stmt *s;
	uint64_t t = 0;
	if (!db || sqlite3_prepare_v2(db, "SELECT MAX(logged_usec) FROM events", -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int64(s, 0) > 0)
		t = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return t;
}

int history_prune(History *h, uint64_t before_usec, uint64_t max_events)
{
	if (!h->db)
		return 0;
	sqlite3_stmt *s;
	/* past the count, the oldest of the kinds that come by the thousand
	 * go first: a rebuild's warning outlives the stalls of the storm after it */
	const char *sql = "DELETE FROM events WHERE time_usec < ?1 OR id IN (SELECT id FROM events ORDER BY"
			  " kind IN ('rebuild-warning', 'rebuild-start', 'rebuild-end', 'rebuild-done', 'storm-start',"
			  " 'storm-end', 'behaviour', 'bands', 'media-cache', 'zfs-statechange'), id"
			  " LIMIT max((SELECT count(*) FROM events) - ?2, 0))";
	if (sqlite3_prepare_v2(h->db, sql, -1, &s, NULL) != SQLITE_OK) {
		h->errors++;
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)before_usec);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)max_events);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		h->errors++;
		return history_classify_rc(rc);
	}
	int pruned = sqlite3_changes(h->db);
	(void)history_notify_prune(h, before_usec, max_events);
	(void)history_incidents_prune(h, before_usec, max_events);
	/* keep the WAL from growing without bound between automatic checkpoints */
	sqlite3_wal_checkpoint_v2(h->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return pruned;
}
