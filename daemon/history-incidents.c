/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The history's incidents (history.h, core/incidents.h): one row each,
 * written again as it grows, its timeline as JSON; and the step to schema
 * version 3, which groups a version 2 file's events into incidents the way
 * smrd now does and deletes the rows of the events each counts (a
 * rebuild's thousand stall rows become its counts, histogram and worst).
 */
#include "history-private.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "util.h"

#define INCIDENT_COLUMNS \
	"id, kind, device, disk_id, start_usec, end_usec, last_usec, priority, events, folded, slow_ios, slow_worst," \
	" slow_hist, slow_peak, slow_minute, slow_now, last_slow_usec, zfs_delays, zfs_worst, storms, storm_open," \
	" expected, duration, title, outcome, seen, steps"

static char *steps_json(const Incident *i)
{
	json_object *a = json_object_new_array();
	for (unsigned k = 0; a && k < i->n_steps; k++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "time_usec", json_object_new_int64((int64_t)i->steps[k].time_usec));
		json_object_object_add(o, "kind", json_object_new_string(detect_event_kind_to_string(i->steps[k].kind)));
		json_object_object_add(o, "message", json_object_new_string(i->steps[k].message));
		json_object_array_add(a, o);
	}
	char *s = a ? strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN)) : NULL;
	json_object_put(a);
	return s;
}

static void steps_parse(Incident *i, const char *text)
{
	json_object *a = text ? json_tokener_parse(text) : NULL;
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	for (size_t k = 0; k < n && i->n_steps < INCIDENT_STEPS_MAX; k++) {
		json_object *o = json_object_array_get_idx(a, k), *t, *kind, *msg;
		if (!json_object_object_get_ex(o, "time_usec", &t) || !json_object_object_get_ex(o, "kind", &kind) ||
		    !json_object_object_get_ex(o, "message", &msg))
			continue;
		DetectEventKind ek = detect_event_kind_from_string(json_object_get_string(kind));
		if (ek < 0)
			continue;
		IncidentStep *s = &i->steps[i->n_steps++];
		*s = (IncidentStep){.time_usec = (uint64_t)json_object_get_int64(t), .kind = ek};
		snprintf(s->message, sizeof s->message, "%s", json_object_get_string(msg));
	}
	json_object_put(a);
}

static void hist_text(const Incident *i, char out[160])
{
	size_t k = 0;
	for (unsigned b = 0; b < INCIDENT_HIST_BUCKETS; b++)
		k += (size_t)snprintf(out + k, 160 - k, "%s%u", b ? "," : "", i->slow_hist[b]);
}

static void hist_parse(Incident *i, const char *text)
{
	for (unsigned b = 0; text && *text && b < INCIDENT_HIST_BUCKETS; b++) {
		char *end;
		unsigned long v = strtoul(text, &end, 10);
		i->slow_hist[b] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		text = *end == ',' ? end + 1 : end;
	}
}

/* SQLite keeps NaN as NULL */
static double column_double(sqlite3_stmt *s, int c)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c);
}

static void copy_text(char *dst, size_t n, const unsigned char *src)
{
	snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static int put(sqlite3 *db, const Incident *i)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO incidents (" INCIDENT_COLUMNS ") VALUES"
				    " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	char hist[160];
	hist_text(i, hist);
	_cleanup_free_ char *steps = steps_json(i);
	int c = 1;
	sqlite3_bind_text(s, c++, i->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, incident_kind_to_string(i->kind) ?: "stalls", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, i->device, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, i->disk_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->start_usec);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->end_usec);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->last_usec);
	sqlite3_bind_int(s, c++, i->priority);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->events);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->folded);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->slow_ios);
	sqlite3_bind_double(s, c++, i->slow_worst);
	sqlite3_bind_text(s, c++, hist, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, c++, i->slow_peak);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->slow_minute);
	sqlite3_bind_int64(s, c++, i->slow_now);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->last_slow_usec);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)i->zfs_delays);
	sqlite3_bind_double(s, c++, i->zfs_worst);
	sqlite3_bind_int64(s, c++, i->storms);
	sqlite3_bind_int(s, c++, i->storm_open);
	sqlite3_bind_double(s, c++, i->expected);
	sqlite3_bind_double(s, c++, i->duration);
	sqlite3_bind_text(s, c++, i->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, i->outcome, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, c++, i->seen);
	sqlite3_bind_text(s, c++, steps ? steps : "[]", -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Kept in memory, its newest state only, until the database takes it. */
static int remember(History *h, const Incident *i)
{
	for (unsigned k = 0; k < h->n_pend_incidents; k++)
		if (streq(h->pend_incidents[k].id, i->id)) {
			h->pend_incidents[k] = *i;
			return -EIO;
		}
	if (!h->pend_incidents && !(h->pend_incidents = calloc(HISTORY_INCIDENTS_PENDING_MAX, sizeof *i))) {
		h->dropped++;
		return -ENOBUFS;
	}
	int r = -EIO;
	if (h->n_pend_incidents == HISTORY_INCIDENTS_PENDING_MAX) {
		memmove(&h->pend_incidents[0], &h->pend_incidents[1], (HISTORY_INCIDENTS_PENDING_MAX - 1) * sizeof *i);
		h->n_pend_incidents--;
		h->dropped++;
		r = -ENOBUFS;
	}
	h->pend_incidents[h->n_pend_incidents++] = *i;
	return r;
}

int history_put_incident(History *h, const Incident *i)
{
	if (!h)
		return -EIO;
	if (h->db && !h->orphaned && !h->n_pend_incidents) {
		int rc = put(h->db, i);
		if (rc == SQLITE_OK)
			return 0;
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
	}
	return remember(h, i);
}

int history_incidents_flush(History *h)
{
	if (!h->db || h->orphaned || !h->n_pend_incidents)
		return 0;
	int rc = sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	for (unsigned k = 0; rc == SQLITE_OK && k < h->n_pend_incidents; k++)
		rc = put(h->db, &h->pend_incidents[k]);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		h->errors++;
		history_note_error(h, "cannot write to", h->db);
		return history_classify_rc(rc);
	}
	int n = (int)h->n_pend_incidents;
	h->n_pend_incidents = 0;
	return n;
}

void history_incidents_free(History *h)
{
	free(h->pend_incidents);
	h->pend_incidents = NULL;
	h->n_pend_incidents = 0;
}

static void read_row(sqlite3_stmt *s, Incident *i)
{
	*i = (Incident){.start_usec = (uint64_t)sqlite3_column_int64(s, 4), .end_usec = (uint64_t)sqlite3_column_int64(s, 5),
			.last_usec = (uint64_t)sqlite3_column_int64(s, 6), .priority = sqlite3_column_int(s, 7),
			.events = (uint64_t)sqlite3_column_int64(s, 8), .folded = (uint64_t)sqlite3_column_int64(s, 9),
			.slow_ios = (uint64_t)sqlite3_column_int64(s, 10), .slow_worst = sqlite3_column_double(s, 11),
			.slow_peak = (uint32_t)sqlite3_column_int64(s, 13), .slow_minute = (uint64_t)sqlite3_column_int64(s, 14),
			.slow_now = (uint32_t)sqlite3_column_int64(s, 15),
			.last_slow_usec = (uint64_t)sqlite3_column_int64(s, 16),
			.zfs_delays = (uint64_t)sqlite3_column_int64(s, 17), .zfs_worst = sqlite3_column_double(s, 18),
			.storms = (uint32_t)sqlite3_column_int64(s, 19), .storm_open = sqlite3_column_int(s, 20),
			.expected = column_double(s, 21), .duration = column_double(s, 22),
			.seen = (uint32_t)sqlite3_column_int64(s, 25)};
	copy_text(i->id, sizeof i->id, sqlite3_column_text(s, 0));
	IncidentKind k = incident_kind_from_string((const char *)sqlite3_column_text(s, 1));
	i->kind = k < 0 ? INCIDENT_STALLS : k;
	copy_text(i->device, sizeof i->device, sqlite3_column_text(s, 2));
	copy_text(i->disk_id, sizeof i->disk_id, sqlite3_column_text(s, 3));
	hist_parse(i, (const char *)sqlite3_column_text(s, 12));
	copy_text(i->title, sizeof i->title, sqlite3_column_text(s, 23));
	copy_text(i->outcome, sizeof i->outcome, sqlite3_column_text(s, 24));
	steps_parse(i, (const char *)sqlite3_column_text(s, 26));
}

static bool matches(const Incident *i, const HistoryIncidentFilter *f)
{
	if (f->disk_id && *f->disk_id ? !streq(i->disk_id, f->disk_id) : f->device && !streq(i->device, f->device))
		return false;
	return i->last_usec >= f->since_usec && (!f->open_only || !i->end_usec) &&
	       (!f->kind || streq_ptr(incident_kind_to_string(i->kind), f->kind));
}

/* What waits in memory is the newest state of its incident: it stands in
 * for the row, or comes after the rows when it has none yet. */
static const Incident *pending_of(const History *h, const char *id, bool *shown)
{
	for (unsigned k = 0; k < h->n_pend_incidents; k++)
		if (streq(h->pend_incidents[k].id, id)) {
			shown[k] = true;
			return &h->pend_incidents[k];
		}
	return NULL;
}

static int query_db(History *h, sqlite3 *db, const HistoryIncidentFilter *f, HistoryIncidentCb cb, void *userdata,
		    bool *shown)
{
	bool by_id = f->disk_id && *f->disk_id;
	char sql[768];
	snprintf(sql, sizeof sql, "SELECT * FROM (SELECT " INCIDENT_COLUMNS " FROM incidents WHERE"
		 " last_usec >= ?1%s%s%s ORDER BY start_usec DESC, rowid DESC LIMIT ?4)"
		 " ORDER BY start_usec, rowid", f->open_only ? " AND end_usec = 0" : "",
		 by_id ? " AND disk_id = ?2" : f->device ? " AND device = ?2" : "", f->kind ? " AND kind = ?3" : "");
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		h->errors++;
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)f->since_usec);
	if (by_id || f->device)
		sqlite3_bind_text(s, 2, by_id ? f->disk_id : f->device, -1, SQLITE_STATIC);
	if (f->kind)
		sqlite3_bind_text(s, 3, f->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, (int)(f->limit ? f->limit : 1000));
	int r = 0;
	_cleanup_free_ Incident *i = malloc(sizeof *i);
	while (i && r >= 0 && sqlite3_step(s) == SQLITE_ROW) {
		read_row(s, i);
		const Incident *p = pending_of(h, i->id, shown);
		r = !p || matches(p, f) ? cb(p ? p : i, userdata) : 0;
	}
	sqlite3_finalize(s);
	return i ? r : -ENOMEM;
}

int history_query_incidents(History *h, const HistoryIncidentFilter *f, HistoryIncidentCb cb, void *userdata)
{
	if (!h)
		return 0;
	sqlite3 *db = h->db ? h->db : h->ro;
	bool shown[HISTORY_INCIDENTS_PENDING_MAX] = {0};
	int r = db ? query_db(h, db, f, cb, userdata, shown) : 0;
	for (unsigned k = 0; r >= 0 && k < h->n_pend_incidents; k++)
		if (!shown[k] && matches(&h->pend_incidents[k], f))
			r = cb(&h->pend_incidents[k], userdata);
	return r;
}

static int exec_bound(sqlite3 *db, const char *sql, const char *a, const char *b, int64_t x, int64_t y)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (a)
		sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, x);
	if (b)
		sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 2, y);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int history_incidents_forget(History *h, const char *device, const char *identity)
{
	if (!h->db)
		return 0;
	int rc = exec_bound(h->db, "DELETE FROM incidents WHERE device = ?1 OR (?2 != '' AND disk_id = ?2)", device,
			    identity ? identity : "", 0, 0);
	return rc == SQLITE_OK ? sqlite3_changes(h->db) : history_classify_rc(rc);
}

int history_incidents_prune(History *h, uint64_t before_usec, uint64_t max_rows)
{
	if (!h->db)
		return 0;
	int rc = exec_bound(h->db, "DELETE FROM incidents WHERE (end_usec != 0 AND end_usec < ?1) OR rowid IN"
			    " (SELECT rowid FROM incidents ORDER BY start_usec DESC LIMIT -1 OFFSET ?2)", NULL, NULL,
			    (int64_t)before_usec, (int64_t)max_rows);
	return rc == SQLITE_OK ? sqlite3_changes(h->db) : history_classify_rc(rc);
}

/* ------------------------------------------------------------ version 3 */

static int priority_of(const char *severity)
{
	return streq_ptr(severity, "crit") ? LOG_CRIT : streq_ptr(severity, "warning") ? LOG_WARNING
	       : streq_ptr(severity, "notice") ? LOG_NOTICE : LOG_INFO;
}

/* One disk's events at a time, in the order they happened: the incidents
 * as smrd would have made them, each row linked to its incident or deleted. */
typedef struct Migration {
	sqlite3 *db;
	sqlite3_stmt *link, *drop;
	char key[96];
	IncidentTrack t;
	int rc;
} Migration;

static void store_ended(Migration *m)
{
	if (m->rc == SQLITE_OK)
		m->rc = put(m->db, &m->t.open);
}

static void migrate_row(Migration *m, sqlite3_stmt *s)
{
	const char *key = (const char *)sqlite3_column_text(s, 1), *device = (const char *)sqlite3_column_text(s, 2);
	const char *serial = (const char *)sqlite3_column_text(s, 3);
	DetectEventKind kind = detect_event_kind_from_string((const char *)sqlite3_column_text(s, 4));
	if (!streq_ptr(key, m->key)) {
		if (m->t.active)
			store_ended(m);	/* open still: the daemon takes it on */
		m->t = (IncidentTrack){0};
		snprintf(m->key, sizeof m->key, "%s", key ? key : "");
	}
	if (kind < 0 || !device || !*device)
		return;
	/* a rebuild-done was dated at the rebuild's start before version 3: its end is when it was logged */
	uint64_t t = (uint64_t)sqlite3_column_int64(s, kind == EVENT_REBUILD_DONE ? 6 : 5);
	IncidentInput in = {.kind = kind, .time_usec = t, .priority = priority_of((const char *)sqlite3_column_text(s, 7)),
			    .latency = column_double(s, 8), .duration = column_double(s, 9),
			    .message = (const char *)sqlite3_column_text(s, 10)};
	if (incident_expire(&m->t, t, false))
		store_ended(m);
	IncidentChange c = incident_take(&m->t, &in, device, serial ? serial : "");
	sqlite3_stmt *w = c == INCIDENT_COUNTED ? m->drop : c == INCIDENT_UNTOUCHED ? NULL : m->link;
	if (!w || m->rc != SQLITE_OK)
		return;
	sqlite3_reset(w);
	sqlite3_bind_int64(w, 1, sqlite3_column_int64(s, 0));
	if (w == m->link)
		sqlite3_bind_text(w, 2, m->t.open.id, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(w);
	m->rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	if (c == INCIDENT_CLOSED)
		store_ended(m);
}

static int migrate_events(sqlite3 *db)
{
	Migration m = {.db = db, .rc = SQLITE_OK};
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT id, CASE WHEN serial != '' THEN serial ELSE device END AS k, device, serial,"
				    " kind, time_usec, logged_usec, severity, latency, duration, message FROM events"
				    " ORDER BY k, CASE WHEN kind = 'rebuild-done' THEN logged_usec ELSE time_usec END, id",
				    -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "UPDATE events SET incident = ?2 WHERE id = ?1", -1, &m.link, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "DELETE FROM events WHERE id = ?1", -1, &m.drop, NULL);
	/* the SELECT reads on while the rows it read are changed: SQLite
	 * finishes sorting before it returns the first row (ORDER BY on no index) */
	while (rc == SQLITE_OK && m.rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		migrate_row(&m, s);
		rc = SQLITE_OK;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	if (rc == SQLITE_OK && m.t.active)
		store_ended(&m);
	sqlite3_finalize(s);
	sqlite3_finalize(m.link);
	sqlite3_finalize(m.drop);
	return rc != SQLITE_OK ? rc : m.rc;
}

static bool has_column(sqlite3 *db, const char *table, const char *column)
{
	char sql[96];
	snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
	sqlite3_stmt *s;
	bool found = false;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return false;
	while (!found && sqlite3_step(s) == SQLITE_ROW)
		found = streq_ptr((const char *)sqlite3_column_text(s, 1), column);
	sqlite3_finalize(s);
	return found;
}

static int version(sqlite3 *db)
{
	sqlite3_stmt *s;
	int v = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

int history_incidents_setup(sqlite3 *db)
{
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return history_classify_rc(rc);
	int v = version(db);
	rc = v < 0 ? SQLITE_ERROR : sqlite3_exec(db, HISTORY_INCIDENTS_SCHEMA(""), NULL, NULL, NULL);
	if (rc == SQLITE_OK && !has_column(db, "events", "incident"))
		rc = sqlite3_exec(db, "ALTER TABLE events ADD COLUMN incident TEXT NOT NULL DEFAULT ''", NULL, NULL, NULL);
	/* a newer smrd's file keeps its number and its rows */
	if (rc == SQLITE_OK && v < 3)
		rc = migrate_events(db);
	if (rc == SQLITE_OK && v < 3)
		rc = sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL, NULL);
	return history_end_transaction(db, rc);
}
