/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The old schema and rows exactly as version 0's history.c and notify.c
 * wrote them (history-v0.h). */
#include "history-v0.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>

#define V0_SCHEMA \
	"CREATE TABLE IF NOT EXISTS events (" \
	" id INTEGER PRIMARY KEY AUTOINCREMENT," \
	" time_usec INTEGER NOT NULL, logged_usec INTEGER NOT NULL," \
	" device TEXT NOT NULL, serial TEXT NOT NULL, kind TEXT NOT NULL, op TEXT NOT NULL," \
	" severity TEXT NOT NULL, duration REAL, latency REAL, value REAL," \
	" count INTEGER, bytes INTEGER, sector INTEGER, message TEXT NOT NULL);" \
	"CREATE INDEX IF NOT EXISTS events_time ON events(time_usec);" \
	"CREATE INDEX IF NOT EXISTS events_device ON events(device, id);"

/* seconds before now (event, logged), device, serial, kind, severity,
 * value (notify: the follow-up flag), count, message */
static const struct {
	unsigned ago, logged_ago;
	const char *device, *serial, *kind, *severity;
	double value;
	int count;
	const char *message;
} rows[] = {
	{600, 600, "sdb", V0_SDB_ID, "storm-start", "warning", 0.8, 1, "destage storm began"},
	{600, 599, "sdb", V0_SDB_ID, "notify:storm-start", "info", 0, 1, V0_STORM_CLOSED},
	{598, 598, "sdb", V0_SDB_ID, "stall", "warning", 9.5, 1, "write stalled 9.5 s"},
	{598, 597, "sdb", V0_SDB_ID, "notify:behaviour", "info", 0, 1, "behaviour-00000000000000b1"},
	{501, 500, "sdb", V0_SDB_ID, "notify:storm-end", "info", 1, 1, V0_STORM_CLOSED " (follow-up)"},
	{101, 100, "sdb", V0_SDB_ID, "notify:storm-start", "info", 0, 1, V0_STORM_OPEN},
	{51, 50, "sdc", V0_SDC_ID, "notify:stall", "info", 0, 1, "stall-00000000000000c1"},
	{11, 10, "sdc", V0_SDC_ID, "notify:stall", "info", 0, 4, V0_STALL_NEWEST},
	{5, 5, "sdb", V0_SDB_ID, "ack:stall", "info", 0, 0, "dm-smr"},
	{4, 4, "sdd", "", "ack:all", "info", 0, 0, "cmr"},
	{3, 3, "sdd", "", "notify:bands", "info", 0, 1, "bands-00000000000000d1"},
	{2, 2, "sdb", V0_SDB_ID, "storm-end", "info", 0, 1, "destage storm ended"},
};

int history_v0_write(const char *dir, uint64_t now_usec)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/events.db", dir);
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL;" V0_SCHEMA, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"INSERT INTO events (id, time_usec, logged_usec, device, serial, kind, op, severity,"
					" duration, latency, value, count, bytes, sector, message)"
					" VALUES (?1, ?2, ?3, ?4, ?5, ?6, '', ?7, 0, 0, ?8, ?9, 0, 0, ?10)", -1, &s, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof rows / sizeof rows[0]; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)(now_usec - rows[i].ago * UINT64_C(1000000)));
		sqlite3_bind_int64(s, 3, (sqlite3_int64)(now_usec - rows[i].logged_ago * UINT64_C(1000000)));
		sqlite3_bind_text(s, 4, rows[i].device, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, rows[i].serial, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, rows[i].kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 7, rows[i].severity, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 8, rows[i].value);
		sqlite3_bind_int(s, 9, rows[i].count);
		sqlite3_bind_text(s, 10, rows[i].message, -1, SQLITE_STATIC);
		rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -EIO;
}
