/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQLite in WAL mode with synchronous=NORMAL: a commit reaches the OS
 * before it returns, so a kill -9 loses nothing; a power cut may lose the
 * last commits but never corrupts the file. Every insert is one short
 * transaction on the event loop: events are rare (a storm is two rows), and
 * even a stall per second costs tens of microseconds.
 */
#include "history.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

struct History {
	sqlite3 *db;			/* NULL: memory only */
	char *path;
	sqlite3_stmt *insert;
	uint64_t errors;
	int64_t next_id;		/* memory-only ids */
	HistoryEvent mem[HISTORY_MEMORY];
	unsigned mem_head, mem_len;
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS events ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" time_usec INTEGER NOT NULL, logged_usec INTEGER NOT NULL,"
	" device TEXT NOT NULL, serial TEXT NOT NULL, kind TEXT NOT NULL, op TEXT NOT NULL,"
	" severity TEXT NOT NULL, duration REAL, latency REAL, value REAL,"
	" count INTEGER, bytes INTEGER, sector INTEGER, message TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS events_time ON events(time_usec);"
	"CREATE INDEX IF NOT EXISTS events_device ON events(device, id);";

#define COLUMNS "id, time_usec, logged_usec, device, serial, kind, op, severity, duration, latency, value, " \
		"count, bytes, sector, message"

static int set_err(char **ret_error, sqlite3 *db, const char *what, const char *path)
{
	if (ret_error && asprintf(ret_error, "%s %s: %s", what, path, db ? sqlite3_errmsg(db) : "out of memory") < 0)
		*ret_error = NULL;
	return -EIO;
}

static int try_open(History *h, char **ret_error)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(h->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		set_err(ret_error, db, "cannot open", h->path);
		sqlite3_close(db);
		return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? -EBADMSG : -EIO;
	}
	sqlite3_busy_timeout(db, 1000);
	/* quick_check reads every page: fine for a database bounded to ~100k rows */
	char **rows = NULL;
	int nrow = 0, ncol = 0;
	rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_get_table(db, "PRAGMA quick_check", &rows, &nrow, &ncol, NULL);
	bool ok = rc == SQLITE_OK && nrow >= 1 && rows && rows[1] && streq(rows[1], "ok");
	sqlite3_free_table(rows);
	if (!ok) {
		set_err(ret_error, db, "corrupt database", h->path);
		sqlite3_close(db);
		return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT || rc == SQLITE_OK ? -EBADMSG : -EIO;
	}
	if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO events (time_usec, logged_usec, device, serial, kind, op, severity, duration,"
			       " latency, value, count, bytes, sector, message)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &h->insert, NULL) != SQLITE_OK) {
		rc = sqlite3_errcode(db);
		set_err(ret_error, db, "cannot set up", h->path);
		sqlite3_close(db);
		return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? -EBADMSG : -EIO;
	}
	h->db = db;
	return 0;
}

int history_open(const char *dir, History **ret, char **ret_error)
{
	History *h = calloc(1, sizeof *h);
	if (!h || asprintf(&h->path, "%s/%s", dir, HISTORY_FILE) < 0) {
		free(h);
		return -ENOMEM;
	}
	h->next_id = 1;
	*ret = h;
	int r = try_open(h, ret_error);
	if (r != -EBADMSG)
		return r;
	/* Keep the broken file for a post-mortem, start afresh. */
	char aside[4096];
	snprintf(aside, sizeof aside, "%s.corrupt-%lld", h->path, (long long)time(NULL));
	const char *suffix[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ELEMENTSOF(suffix); i++) {
		char from[4096], to[4096];
		snprintf(from, sizeof from, "%s%s", h->path, suffix[i]);
		snprintf(to, sizeof to, "%s%s", aside, suffix[i]);
		if (rename(from, to) < 0 && errno != ENOENT)
			return -errno;
	}
	free(ret_error ? *ret_error : NULL);
	char *first = NULL;
	r = try_open(h, &first);
	if (ret_error && asprintf(ret_error, "%s was corrupt, moved to %s%s%s", h->path, aside,
				 r < 0 ? "; and then: " : "", r < 0 && first ? first : "") < 0)
		*ret_error = NULL;
	free(first);
	return r < 0 ? r : -ESTALE;	/* usable, but say what happened */
}

History *history_close(History *h)
{
	if (!h)
		return NULL;
	sqlite3_finalize(h->insert);
	sqlite3_close(h->db);
	free(h->path);
	free(h);
	return NULL;
}

bool history_persistent(const History *h) { return h && h->db; }
const char *history_path(const History *h) { return h ? h->path : ""; }
uint64_t history_errors(const History *h) { return h ? h->errors : 0; }

static void remember(History *h, const HistoryEvent *e)
{
	unsigned at = (h->mem_head + h->mem_len) % HISTORY_MEMORY;
	if (h->mem_len == HISTORY_MEMORY)
		h->mem_head = (h->mem_head + 1) % HISTORY_MEMORY;
	else
		h->mem_len++;
	h->mem[at] = *e;
}

int history_add(History *h, HistoryEvent *e)
{
	if (h->db) {
		sqlite3_stmt *s = h->insert;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)e->time_usec);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)e->logged_usec);
		sqlite3_bind_text(s, 3, e->device, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, e->serial, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, e->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, e->op, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 7, e->severity, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 8, e->duration);
		sqlite3_bind_double(s, 9, e->latency);
		sqlite3_bind_double(s, 10, e->value);
		sqlite3_bind_int64(s, 11, e->count);
		sqlite3_bind_int64(s, 12, e->bytes);
		sqlite3_bind_int64(s, 13, e->sector);
		sqlite3_bind_text(s, 14, e->message, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_DONE) {
			e->id = sqlite3_last_insert_rowid(h->db);
			sqlite3_reset(s);
			return 0;
		}
		sqlite3_reset(s);
		h->errors++;
		/* fall through to memory so that smrctl still shows it */
	}
	e->id = h->db ? -(int64_t)h->errors : h->next_id++;
	remember(h, e);
	return h->db ? -EIO : 0;
}

static void copy_text(char *dst, size_t n, const unsigned char *src)
{
	snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static bool matches(const HistoryEvent *e, const HistoryFilter *f)
{
	if (f->serial && *f->serial ? !streq(e->serial, f->serial) : f->device && !streq(e->device, f->device))
		return false;
	return e->time_usec >= f->since_usec && e->id > f->after_id;
}

int history_query(History *h, const HistoryFilter *f, HistoryCb cb, void *userdata)
{
	unsigned limit = f->limit ? f->limit : 1000;
	if (!h->db) {
		/* newest `limit` matches, oldest first */
		unsigned n = 0, first = h->mem_len;
		while (first > 0 && n < limit) {
			if (matches(&h->mem[(h->mem_head + first - 1) % HISTORY_MEMORY], f))
				n++;
			first--;
		}
		for (unsigned i = first; i < h->mem_len; i++) {
			const HistoryEvent *e = &h->mem[(h->mem_head + i) % HISTORY_MEMORY];
			int r = matches(e, f) ? cb(e, userdata) : 0;
			if (r < 0)
				return r;
		}
		return 0;
	}
	bool by_serial = f->serial && *f->serial;
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT * FROM (SELECT " COLUMNS " FROM events WHERE time_usec >= ?1 AND id > ?2%s"
		 " ORDER BY id DESC LIMIT ?4) ORDER BY id",
		 by_serial ? " AND serial = ?3" : f->device ? " AND device = ?3" : "");
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(h->db, sql, -1, &s, NULL) != SQLITE_OK) {
		h->errors++;
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)f->since_usec);
	sqlite3_bind_int64(s, 2, f->after_id);
	if (by_serial || f->device)
		sqlite3_bind_text(s, 3, by_serial ? f->serial : f->device, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, (int)limit);
	int rc, r = 0;
	while (r >= 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		HistoryEvent e = {
			.id = sqlite3_column_int64(s, 0),
			.time_usec = (uint64_t)sqlite3_column_int64(s, 1),
			.logged_usec = (uint64_t)sqlite3_column_int64(s, 2),
			.duration = sqlite3_column_double(s, 8),
			.latency = sqlite3_column_double(s, 9),
			.value = sqlite3_column_double(s, 10),
			.count = sqlite3_column_int64(s, 11),
			.bytes = sqlite3_column_int64(s, 12),
			.sector = sqlite3_column_int64(s, 13),
		};
		copy_text(e.device, sizeof e.device, sqlite3_column_text(s, 3));
		copy_text(e.serial, sizeof e.serial, sqlite3_column_text(s, 4));
		copy_text(e.kind, sizeof e.kind, sqlite3_column_text(s, 5));
		copy_text(e.op, sizeof e.op, sqlite3_column_text(s, 6));
		copy_text(e.severity, sizeof e.severity, sqlite3_column_text(s, 7));
		copy_text(e.message, sizeof e.message, sqlite3_column_text(s, 14));
		r = cb(&e, userdata);
	}
	if (r >= 0 && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		h->errors++;
		r = -EIO;
	}
	sqlite3_finalize(s);
	return r;
}

int history_forget(History *h, const char *device, const char *serial)
{
	if (!h->db) {
		unsigned kept = 0, n = h->mem_len;
		for (unsigned i = 0; i < n; i++) {
			HistoryEvent *e = &h->mem[(h->mem_head + i) % HISTORY_MEMORY];
			if (!(streq(e->device, device) || (serial && *serial && streq(e->serial, serial))))
				h->mem[(h->mem_head + kept++) % HISTORY_MEMORY] = *e;
		}
		h->mem_len = kept;
		return (int)(n - kept);
	}
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
		return -EIO;
	}
	return sqlite3_changes(h->db);
}

int history_prune(History *h, uint64_t before_usec, uint64_t max_events)
{
	if (!h->db)
		return 0;
	sqlite3_stmt *s;
	const char *sql = "DELETE FROM events WHERE time_usec < ?1 OR id <= (SELECT id FROM events ORDER BY id DESC"
			  " LIMIT 1 OFFSET ?2)";
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
		return -EIO;
	}
	/* keep the WAL from growing without bound between automatic checkpoints */
	sqlite3_wal_checkpoint_v2(h->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return sqlite3_changes(h->db);
}
