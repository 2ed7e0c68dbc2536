/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The history's reads: events by disk, kind, time and id, from the database
 * and from what waits in memory, as one list.
 */
#include "history-private.h"

#include <stdio.h>

#include "util.h"

#define COLUMNS "id, time_usec, logged_usec, device, serial, kind, op, severity, duration, latency, value, " \
		"count, bytes, sector, message, incident"

static const HistoryEvent *pending_at(const History *h, unsigned i)
{
	return &h->pending[(h->pend_head + i) % HISTORY_PENDING_MAX];
}

static void copy_text(char *dst, size_t n, const unsigned char *src)
{
	snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static bool on_device(const HistoryFilter *f)
{
	return f->serial && *f->serial && f->serial_on_device && f->device;
}

/* By serial (and serial_on_device) when one is given, else by device. */
static bool of_disk(const HistoryEvent *e, const HistoryFilter *f)
{
	if (!(f->serial && *f->serial))
		return !f->device || streq(e->device, f->device);
	return streq(e->serial, f->serial) ||
	       (on_device(f) && streq(e->device, f->device) && streq(e->serial, f->serial_on_device));
}

static bool matches(const HistoryEvent *e, const HistoryFilter *f)
{
	if (!of_disk(e, f))
		return false;
	if (f->kind && !streq(e->kind, f->kind))
		return false;
	return e->time_usec >= f->since_usec && e->id > f->after_id;
}

static int query_db(History *h, sqlite3 *db, const HistoryFilter *f, unsigned limit, HistoryCb cb, void *userdata)
{
	bool by_serial = f->serial && *f->serial;
	char sql[512];
	/* a list reads in time order (an end event is recorded after the
	 * events of the storm it ends, dated at its end); a stream in the
	 * order events were recorded, so that `after` never skips one */
	snprintf(sql, sizeof sql,
		 "SELECT * FROM (SELECT " COLUMNS " FROM events WHERE time_usec >= ?1 AND id > ?2%s%s"
		 " ORDER BY id DESC LIMIT ?4) ORDER BY %s",
		 on_device(f) ? " AND (serial = ?3 OR (device = ?6 AND serial = ?7))"
		 : by_serial ? " AND serial = ?3" : f->device ? " AND device = ?3" : "", f->kind ? " AND kind = ?5" : "",
		 f->in_recorded_order ? "id" : "time_usec, id");
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		h->errors++;
		return -EIO;
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)f->since_usec);
	sqlite3_bind_int64(s, 2, f->after_id);
	if (by_serial || f->device)
		sqlite3_bind_text(s, 3, by_serial ? f->serial : f->device, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, (int)limit);
	if (f->kind)
		sqlite3_bind_text(s, 5, f->kind, -1, SQLITE_STATIC);
	if (on_device(f)) {
		sqlite3_bind_text(s, 6, f->device, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 7, f->serial_on_device, -1, SQLITE_STATIC);
	}
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
		copy_text(e.incident, sizeof e.incident, sqlite3_column_text(s, 15));
		r = cb(&e, userdata);
	}
	if (r >= 0 && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		h->errors++;
		r = -EIO;
	}
	sqlite3_finalize(s);
	return r;
}

int history_query(History *h, const HistoryFilter *f, HistoryCb cb, void *userdata)
{
	unsigned limit = f->limit ? f->limit : 1000;
	/* The newest `limit` of stored + pending: pending ones are the newest. */
	unsigned take = 0, first = h->pend_len;
	while (first > 0 && take < limit) {
		if (matches(pending_at(h, first - 1), f))
			take++;
		first--;
	}
	sqlite3 *db = h->db ? h->db : h->ro;
	int r = 0;
	if (db && take < limit)
		r = query_db(h, db, f, limit - take, cb, userdata);
	for (unsigned i = first; r >= 0 && i < h->pend_len; i++)
		if (matches(pending_at(h, i), f))
			r = cb(pending_at(h, i), userdata);
	return r;
}
