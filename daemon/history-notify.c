/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The notifier's records: what was sent and how it ended (notify_sends),
 * the incidents they belong to (notify_incidents: a storm's stays open until
 * its end is sent) and the acknowledgements (notify_acks). The notifier
 * rebuilds its incident book from them at start with a few grouped queries.
 * Schema version 0 kept them as events ("notify:KIND", the incident id in
 * the message; "ack:KIND", the class in the message): they move here when a
 * file of that version is first opened for writing, in one transaction with
 * the version's bump, so that a failure leaves the file as it was.
 */
#include "history-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Version 0's rows as its notifier wrote them: notify:KIND dated by the
 * event, sent at logged_usec, the follow-up flag in value, the message
 * "<incident>[ (follow-up)]"; ack:KIND|all at logged_usec with the class as
 * the message; the identity in serial, else the device. */
#define MIGRATE_V1 \
	"INSERT INTO notify_sends (time_usec, event_usec, device, identity, kind, incident, follow_up, count," \
	" command, result) SELECT logged_usec, time_usec, device, CASE serial WHEN '' THEN device ELSE serial END," \
	" substr(kind, 8), substr(message, 1, instr(message || ' ', ' ') - 1), coalesce(value, 0) > 0," \
	" coalesce(count, 1), '', '' FROM events WHERE substr(kind, 1, 7) = 'notify:' ORDER BY logged_usec, id;" \
	"INSERT OR IGNORE INTO notify_incidents (incident, device, identity, kind, opened_usec)" \
	" SELECT incident, device, identity, kind, time_usec FROM notify_sends ORDER BY time_usec, id;" \
	"UPDATE notify_incidents SET closed_usec = (SELECT max(s.time_usec) FROM notify_sends s" \
	" WHERE s.incident = notify_incidents.incident AND s.kind = 'storm-end') WHERE kind = 'storm-start';" \
	"INSERT INTO notify_acks (time_usec, device, identity, kind, disk_class)" \
	" SELECT logged_usec, device, CASE serial WHEN '' THEN device ELSE serial END, substr(kind, 5), message" \
	" FROM events WHERE substr(kind, 1, 4) = 'ack:' ORDER BY logged_usec, id;" \
	"DELETE FROM events WHERE substr(kind, 1, 7) = 'notify:' OR substr(kind, 1, 4) = 'ack:';"

/* A send that got through: its hook exited 0; version 0 (no command, no
 * result) recorded only what it had sent. Anything else is due again. */
#define DELIVERED(p) "(" p "result = 'exit 0' OR (" p "result = '' AND " p "command = ''))"

bool history_send_delivered(const HistorySend *s)
{
	return streq(s->result, "exit 0") || (!s->result[0] && !s->command[0]);
}

#define SEND_COLUMNS(p) \
	p "id, " p "time_usec, " p "event_usec, " p "device, " p "identity, " p "kind, " p "incident, " \
	p "follow_up, " p "count, " p "command, " p "result, " p "exit_status"

static int schema_version(sqlite3 *db, int *ret)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*ret = sqlite3_column_int(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

int history_notify_setup(sqlite3 *db)
{
	int v = 0, rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return history_classify_rc(rc);
	rc = schema_version(db, &v);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, HISTORY_NOTIFY_SCHEMA(""), NULL, NULL, NULL);
	/* a newer smrd's file keeps its number: these tables are all we use of it */
	if (rc == SQLITE_OK && v < 1)
		rc = sqlite3_exec(db, MIGRATE_V1 "PRAGMA user_version = 2;", NULL, NULL, NULL);
	/* version 1's acks had no expiry: they keep none (0), as they were given */
	if (rc == SQLITE_OK && v == 1)
		rc = sqlite3_exec(db, "ALTER TABLE notify_acks ADD COLUMN until_usec INTEGER NOT NULL DEFAULT 0;"
				  "PRAGMA user_version = 2;", NULL, NULL, NULL);
	return history_end_transaction(db, rc);
}

static int prepare(History *h, sqlite3 *db, const char *sql, sqlite3_stmt **ret)
{
	if (!db)
		return -EROFS;
	int rc = sqlite3_prepare_v2(db, sql, -1, ret, NULL);
	if (rc == SQLITE_OK)
		return 0;
	h->errors++;
	history_note_error(h, "cannot use", db);
	return history_classify_rc(rc);
}

/* Steps a write to its end and finalizes it. */
static int finish(History *h, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return 0;
	h->errors++;
	history_note_error(h, "cannot write to", h->db);
	return history_classify_rc(rc);
}

/* Runs one write, its parameters ?1, ?2, ... bound by fmt: 's' a string,
 * 'i' an int64_t, 'n' an int64_t that is NULL when negative, 'z' one that
 * is NULL when 0. */
static int write_row(History *h, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	int r = prepare(h, h->db, sql, &st);
	if (r < 0)
		return r;
	va_list ap;
	va_start(ap, fmt);
	for (int i = 1; fmt[i - 1]; i++) {
		if (fmt[i - 1] == 's') {
			const char *v = va_arg(ap, const char *);
			sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
			continue;
		}
		int64_t v = va_arg(ap, int64_t);
		if (fmt[i - 1] == 'i' || (fmt[i - 1] == 'n' && v >= 0) || (fmt[i - 1] == 'z' && v != 0))
			sqlite3_bind_int64(st, i, v);
	}
	va_end(ap);
	return finish(h, st);
}

/* The send's incident: opened by its first send, a storm's closed by its follow-up. */
static int note_incident(History *h, const HistorySend *s)
{
	int r = write_row(h, "INSERT OR IGNORE INTO notify_incidents (incident, device, identity, kind, opened_usec)"
			  " VALUES (?1, ?2, ?3, ?4, ?5)", "ssssi", s->incident, s->device, s->identity, s->kind,
			  (int64_t)s->time_usec);
	if (r < 0 || !s->follow_up || !streq(s->kind, "storm-end"))
		return r;
	return write_row(h, "UPDATE notify_incidents SET closed_usec = ?2 WHERE incident = ?1", "si", s->incident,
			 (int64_t)s->time_usec);
}

static int insert_send(History *h, const HistorySend *s)
{
	int r = write_row(h, "INSERT OR REPLACE INTO notify_sends (id, time_usec, event_usec, device, identity, kind,"
			  " incident, follow_up, count, command, result, exit_status, done_usec)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", "iiissssiissnz", s->id,
			  (int64_t)s->time_usec, (int64_t)s->event_usec, s->device, s->identity, s->kind, s->incident,
			  (int64_t)s->follow_up, s->count, s->command, s->result, (int64_t)s->exit_status,
			  (int64_t)s->done_usec);
	return r < 0 ? r : note_incident(h, s);
}

static int insert_ack(History *h, const HistoryAck *a)
{
	return write_row(h, "INSERT OR REPLACE INTO notify_acks (id, time_usec, device, identity, kind, disk_class,"
			 " until_usec) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", "iissssi", a->id, (int64_t)a->time_usec,
			 a->device, a->identity, a->kind, a->disk_class, a->until_usec);
}

static int begin(History *h)
{
	int rc = sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	h->errors++;
	history_note_error(h, "cannot write to", h->db);
	return history_classify_rc(rc);
}

/* COMMIT after r == 0, else (or when it fails) ROLLBACK. */
static int end(History *h, int r)
{
	int rc = r == 0 ? sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) : SQLITE_OK;
	if (rc != SQLITE_OK) {
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
		r = history_classify_rc(rc);
	}
	if (r < 0)
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static int64_t take_id(int64_t *next)
{
	if (*next < 1)
		*next = 1;
	return (*next)++;
}

/* Keeps a row for later: -EIO, or -ENOBUFS when the oldest had to go. */
static int pend(void **arr, unsigned *n, size_t size, const void *row)
{
	if (!*arr && !(*arr = calloc(HISTORY_NOTES_PENDING_MAX, size)))
		return -ENOBUFS;
	int r = -EIO;
	if (*n == HISTORY_NOTES_PENDING_MAX) {
		memmove(*arr, (char *)*arr + size, (HISTORY_NOTES_PENDING_MAX - 1) * size);
		(*n)--;
		r = -ENOBUFS;
	}
	memcpy((char *)*arr + (*n)++ * size, row, size);
	return r;
}

int history_add_send(History *h, HistorySend *s)
{
	s->id = take_id(&h->next_send_id);
	/* behind what waits already: the rows reach the file in order */
	if (h->db && !h->n_pend_sends && !h->n_pend_acks && begin(h) == 0 && end(h, insert_send(h, s)) == 0)
		return 0;
	return pend((void **)&h->pend_sends, &h->n_pend_sends, sizeof *s, s);
}

int history_add_ack(History *h, HistoryAck *a)
{
	a->id = take_id(&h->next_ack_id);
	if (h->db && !h->n_pend_sends && !h->n_pend_acks && insert_ack(h, a) == 0)
		return 0;
	return pend((void **)&h->pend_acks, &h->n_pend_acks, sizeof *a, a);
}

int history_send_done(History *h, int64_t id, const char *result, int exit_status, uint64_t when_usec)
{
	if (id <= 0)
		return -ENOENT;
	for (unsigned i = 0; i < h->n_pend_sends; i++) {
		HistorySend *s = &h->pend_sends[i];
		if (s->id == id) {
			snprintf(s->result, sizeof s->result, "%s", result ? result : "");
			s->exit_status = exit_status;
			s->done_usec = when_usec;
			return 0;
		}
	}
	return write_row(h, "UPDATE notify_sends SET result = ?2, exit_status = ?3, done_usec = ?4 WHERE id = ?1", "isni",
			 id, result, (int64_t)exit_status, (int64_t)when_usec);
}

bool history_notify_pending(const History *h)
{
	return h->n_pend_sends || h->n_pend_acks;
}

int history_notify_flush(History *h)
{
	if (!h->db || h->orphaned || !history_notify_pending(h))
		return 0;
	int r = begin(h);
	if (r < 0)
		return r;
	for (unsigned i = 0; r >= 0 && i < h->n_pend_sends; i++)
		r = insert_send(h, &h->pend_sends[i]);
	for (unsigned i = 0; r >= 0 && i < h->n_pend_acks; i++)
		r = insert_ack(h, &h->pend_acks[i]);
	r = end(h, r);
	if (r < 0)
		return r;
	int n = (int)(h->n_pend_sends + h->n_pend_acks);
	h->n_pend_sends = h->n_pend_acks = 0;
	return n;
}

void history_notify_free(History *h)
{
	free(h->pend_sends);
	free(h->pend_acks);
	h->pend_sends = NULL;
	h->pend_acks = NULL;
	h->n_pend_sends = h->n_pend_acks = 0;
}

static int64_t max_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t id = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;	/* a version 0 file opened read-only: no such table */
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

void history_notify_ids(History *h, sqlite3 *db)
{
	int64_t top = max_of(db, "SELECT max(id) FROM notify_sends");
	if (top < INT64_MAX && top >= h->next_send_id)
		h->next_send_id = top + 1;
	top = max_of(db, "SELECT max(id) FROM notify_acks");
	if (top < INT64_MAX && top >= h->next_ack_id)
		h->next_ack_id = top + 1;
}

static void copy_text(char *dst, size_t n, const unsigned char *src)
{
	snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static const char *const send_sets[_HISTORY_SEND_SET_MAX] = {
	[HISTORY_SENDS_NEWEST] = "SELECT * FROM (SELECT " SEND_COLUMNS("") " FROM notify_sends"
				 " ORDER BY time_usec DESC, id DESC LIMIT ?1) ORDER BY time_usec, id",
	/* SQLite takes a bare column's value from the row of the max() */
	[HISTORY_SENDS_LAST_PER_KIND] = "SELECT " SEND_COLUMNS("") ", max(time_usec) FROM notify_sends"
					" GROUP BY identity, kind ORDER BY time_usec, id LIMIT ?1",
	[HISTORY_SENDS_OPEN_STORMS] = "SELECT " SEND_COLUMNS("s.") " FROM notify_sends s JOIN notify_incidents i"
				      " ON i.incident = s.incident WHERE s.kind = 'storm-start' AND i.kind = 'storm-start'"
				      " AND " DELIVERED("s.")
				      " AND i.closed_usec IS NULL AND i.opened_usec = (SELECT max(j.opened_usec)"
				      " FROM notify_incidents j WHERE j.identity = i.identity AND j.kind = 'storm-start')"
				      " GROUP BY s.incident ORDER BY s.time_usec, s.id LIMIT ?1",
};

static void read_send(sqlite3_stmt *st, HistorySend *s)
{
	*s = (HistorySend){
		.id = sqlite3_column_int64(st, 0),
		.time_usec = (uint64_t)sqlite3_column_int64(st, 1),
		.event_usec = (uint64_t)sqlite3_column_int64(st, 2),
		.follow_up = sqlite3_column_int(st, 7) != 0,
		.count = sqlite3_column_int64(st, 8),
		.exit_status = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 11),
	};
	copy_text(s->device, sizeof s->device, sqlite3_column_text(st, 3));
	copy_text(s->identity, sizeof s->identity, sqlite3_column_text(st, 4));
	copy_text(s->kind, sizeof s->kind, sqlite3_column_text(st, 5));
	copy_text(s->incident, sizeof s->incident, sqlite3_column_text(st, 6));
	copy_text(s->command, sizeof s->command, sqlite3_column_text(st, 9));
	copy_text(s->result, sizeof s->result, sqlite3_column_text(st, 10));
}

/* Runs a query whose rows go to row(); 0, or the first negative of row(). */
static int each_row(History *h, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *data), void *data)
{
	int rc, r = 0;
	while (r >= 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		r = row(st, data);
	if (r >= 0 && rc != SQLITE_DONE) {
		h->errors++;
		r = history_classify_rc(rc);
	}
	sqlite3_finalize(st);
	return r;
}

typedef struct Call {
	HistorySendCb send;
	HistoryAckCb ack;
	void *userdata;
} Call;

static int send_row(sqlite3_stmt *st, void *data)
{
	const Call *c = data;
	HistorySend s;
	read_send(st, &s);
	return c->send(&s, c->userdata);
}

int history_query_sends(History *h, HistorySendSet set, unsigned limit, HistorySendCb cb, void *userdata)
{
	if (set < 0 || set >= _HISTORY_SEND_SET_MAX)
		return -EINVAL;
	sqlite3_stmt *st;
	int r = prepare(h, h->db ? h->db : h->ro, send_sets[set], &st);
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	return each_row(h, st, send_row, &(Call){.send = cb, .userdata = userdata});
}

static int ack_row(sqlite3_stmt *st, void *data)
{
	const Call *c = data;
	HistoryAck a = {.id = sqlite3_column_int64(st, 0), .time_usec = (uint64_t)sqlite3_column_int64(st, 1)};
	copy_text(a.device, sizeof a.device, sqlite3_column_text(st, 2));
	copy_text(a.identity, sizeof a.identity, sqlite3_column_text(st, 3));
	copy_text(a.kind, sizeof a.kind, sqlite3_column_text(st, 4));
	copy_text(a.disk_class, sizeof a.disk_class, sqlite3_column_text(st, 5));
	a.until_usec = sqlite3_column_int64(st, 6);
	return c->ack(&a, c->userdata);
}

int history_query_acks(History *h, unsigned limit, HistoryAckCb cb, void *userdata)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = h->db ? h->db : h->ro;
#define ACKS_QUERY(until) "SELECT * FROM (SELECT id, time_usec, device, identity, kind, disk_class, " until \
	" FROM notify_acks ORDER BY time_usec DESC, id DESC LIMIT ?1) ORDER BY time_usec, id"
	/* a version 1 file opened read-only was not brought up to date: its acks have no expiry */
	int r = db && sqlite3_prepare_v2(db, ACKS_QUERY("until_usec"), -1, &st, NULL) == SQLITE_OK ? 0
		: prepare(h, db, ACKS_QUERY("0"), &st);
#undef ACKS_QUERY
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	return each_row(h, st, ack_row, &(Call){.ack = cb, .userdata = userdata});
}

static bool of_disk(const char *dev, const char *id, const char *device, const char *identity)
{
	return streq(dev, device) || (identity && *identity && streq(id, identity));
}

int history_notify_forget(History *h, const char *device, const char *identity)
{
	unsigned kept = 0;
	for (unsigned i = 0; i < h->n_pend_sends; i++)
		if (!of_disk(h->pend_sends[i].device, h->pend_sends[i].identity, device, identity))
			h->pend_sends[kept++] = h->pend_sends[i];
	h->n_pend_sends = kept;
	kept = 0;
	for (unsigned i = 0; i < h->n_pend_acks; i++)
		if (!of_disk(h->pend_acks[i].device, h->pend_acks[i].identity, device, identity))
			h->pend_acks[kept++] = h->pend_acks[i];
	h->n_pend_acks = kept;
	if (!h->db)
		return 0;
	static const char *const sql[] = {
		"DELETE FROM notify_sends WHERE device = ?1 OR (?2 != '' AND identity = ?2)",
		"DELETE FROM notify_acks WHERE device = ?1 OR (?2 != '' AND identity = ?2)",
		"DELETE FROM notify_incidents WHERE device = ?1 OR (?2 != '' AND identity = ?2)",
	};
	int r = 0;
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(sql); i++)
		r = write_row(h, sql[i], "ss", device, identity);
	return r;
}

int history_notify_prune(History *h, uint64_t before_usec, uint64_t max_rows)
{
	static const char *const sql[] = {
		"DELETE FROM notify_sends WHERE time_usec < ?1 OR id <= (SELECT id FROM notify_sends ORDER BY id DESC"
		" LIMIT 1 OFFSET ?2)",
		"DELETE FROM notify_acks WHERE time_usec < ?1 OR id <= (SELECT id FROM notify_acks ORDER BY id DESC"
		" LIMIT 1 OFFSET ?2)",
		"DELETE FROM notify_incidents WHERE NOT EXISTS (SELECT 1 FROM notify_sends s"
		" WHERE s.incident = notify_incidents.incident)",
	};
	int r = 0;
	if (!h->db)
		return 0;
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(sql); i++)
		r = write_row(h, sql[i], i < 2 ? "ii" : "", (int64_t)before_usec, (int64_t)max_rows);
	return r;
}
