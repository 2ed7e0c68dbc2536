/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What can still be read of a damaged events.db, copied into a new one. One
 * bad page must not cost the whole history (every acknowledgement with
 * it): each table is read in rowid order with plain SELECTs, and where a
 * read fails the scan seeks past the damage (a seek by rowid goes through
 * the table's b-tree only, so it lands beyond a bad leaf) and goes on. The
 * rows of a bad page are lost; every other row is kept. SQLite's .recover
 * would do more, but it is the shell's, not the library's.
 */
#include "history-private.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const tables[] = {"events", "notify_incidents", "notify_sends", "notify_acks", "incidents"};

/* The first readable rowid at or after `from`: 1 found (*ret), 0 none, -EIO unreadable. */
static int seek_row(sqlite3_stmt *probe, int64_t from, int64_t *ret)
{
	sqlite3_reset(probe);
	sqlite3_bind_int64(probe, 1, from);
	int rc = sqlite3_step(probe);
	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(probe, 0);
	sqlite3_reset(probe);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

/* The damage starts after `last`: the next rowid that can be read past it,
 * found by doubling the step, then halving back to the damage's end. */
static int skip_damage(sqlite3_stmt *probe, int64_t last, int64_t *ret)
{
	int64_t bad = last, step = 1, found = 0;
	int r;
	for (;;) {
		if (step > INT64_MAX - bad || step > INT64_MAX / 4)
			return 0;	/* nothing readable up to the end of the range */
		r = seek_row(probe, bad + step, &found);
		if (r >= 0)
			break;
		step *= 2;
	}
	if (r == 0)
		return 0;
	int64_t lo = bad + step / 2, hi = bad + step;	/* lo fails (or is last), hi reads */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2, at;
		int m = seek_row(probe, mid, &at);
		if (m < 0)
			lo = mid;
		else {
			hi = mid;
			if (m == 1)
				found = at;
		}
	}
	*ret = found;
	return 1;
}

static int copy_row(sqlite3_stmt *from, sqlite3_stmt *to)
{
	int n = sqlite3_column_count(from) - 1;
	sqlite3_reset(to);
	for (int i = 0; i < n; i++)
		sqlite3_bind_value(to, i + 1, sqlite3_column_value(from, i + 1));
	int rc = sqlite3_step(to);
	sqlite3_reset(to);
	return rc == SQLITE_DONE ? 0 : history_classify_rc(rc);
}

/* Reads the table in rowid order into ins, past every damaged stretch. */
static int scan_table(sqlite3 *old, sqlite3_stmt *scan, sqlite3_stmt *probe, sqlite3_stmt *ins, HistorySalvage *sv)
{
	int64_t last = 0, next;
	for (;;) {
		int rc, r = 0;
		int64_t from = last;
		sqlite3_reset(scan);
		sqlite3_bind_int64(scan, 1, last);
		while (r == 0 && (rc = sqlite3_step(scan)) == SQLITE_ROW) {
			last = sqlite3_column_int64(scan, 0);
			/* an id at the end of the range is what made the file corrupt (ours go one up) */
			if (last < INT64_MAX && (r = copy_row(scan, ins)) == 0)
				sv->rows++;
		}
		if (r < 0 || rc == SQLITE_DONE)
			return r;
		sv->damaged++;
		snprintf(sv->error, sizeof sv->error, "%s", sqlite3_errmsg(old));
		/* no row read: the damage begins at the first one (where a seek still lands) */
		if (skip_damage(probe, last == from ? last + 1 : last, &next) <= 0)
			return 0;
		last = next - 1;
	}
}

/* One table. One the damaged file does not have (an older schema) is no
 * loss; one whose schema cannot be read is counted unreadable. */
static int salvage_table(sqlite3 *old, sqlite3 *to, const char *table, HistorySalvage *sv)
{
	char q1[160], q2[160];
	sqlite3_stmt *scan = NULL, *probe = NULL, *ins = NULL;
	snprintf(q1, sizeof q1, "SELECT rowid, * FROM %s WHERE rowid > ?1 ORDER BY rowid", table);
	snprintf(q2, sizeof q2, "SELECT rowid FROM %s WHERE rowid >= ?1 ORDER BY rowid LIMIT 1", table);
	int rc = sqlite3_prepare_v2(old, q1, -1, &scan, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(old, q2, -1, &probe, NULL);
	/* by the old file's column names: an older schema's rows go into the
	 * new one's table, whose later columns take their defaults */
	Buf b = {0};
	buf_printf(&b, "INSERT OR IGNORE INTO %s (", table);
	for (int i = 1; scan && i < sqlite3_column_count(scan); i++) {
		const char *name = sqlite3_column_name(scan, i);
		if (!name || strchr(name, '"'))
			rc = SQLITE_CORRUPT;	/* no name of ours: not read */
		buf_printf(&b, "%s\"%s\"", i > 1 ? "," : "", name ? name : "");
	}
	buf_printf(&b, ") VALUES (?");
	for (int i = 2; scan && i < sqlite3_column_count(scan); i++)
		buf_printf(&b, ",?");
	buf_printf(&b, ")");
	int r = 0;
	if (rc != SQLITE_OK && rc != SQLITE_ERROR) {
		sv->unreadable++;
		snprintf(sv->error, sizeof sv->error, "%s", sqlite3_errmsg(old));
	} else if (rc == SQLITE_OK)
		r = b.oom ? -ENOMEM
		    : sqlite3_prepare_v2(to, b.data, -1, &ins, NULL) != SQLITE_OK ? -EIO
		    : scan_table(old, scan, probe, ins, sv);
	buf_free(&b);
	sqlite3_finalize(scan);
	sqlite3_finalize(probe);
	sqlite3_finalize(ins);
	return r;
}

int history_salvage(sqlite3 *to, const char *from, HistorySalvage *ret)
{
	*ret = (HistorySalvage){0};
	sqlite3 *old = NULL;
	int rc = sqlite3_open_v2(from, &old, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		snprintf(ret->error, sizeof ret->error, "%s", old ? sqlite3_errmsg(old) : "out of memory");
		sqlite3_close(old);
		return history_classify_rc(rc);
	}
	/* a file shorter than its header says (cut short) is refused unless
	 * the schema may be "written": the connection is read-only all the same */
	sqlite3_exec(old, "PRAGMA writable_schema = ON", NULL, NULL, NULL);
	int r = sqlite3_exec(to, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(tables); i++) {
		r = salvage_table(old, to, tables[i], ret);
		if (i == 0)
			ret->events = ret->rows;
	}
	if (r == 0 && sqlite3_exec(to, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = -EIO;
	if (r < 0) {
		sqlite3_exec(to, "ROLLBACK", NULL, NULL, NULL);
		ret->rows = ret->events = 0;
	}
	sqlite3_close(old);
	return r;
}

/* The damaged file was moved aside and a new one opened: what can be read
 * of the old one is copied in, and the state says so until a restart. */
void history_recover(History *h, const char *aside, const char *damage)
{
	HistorySalvage sv;
	int r = history_salvage(h->db, aside, &sv);
	bool lost = r < 0 || sv.damaged || sv.unreadable;
	snprintf(h->recovered, sizeof h->recovered,
		 "%.150s was corrupt, moved to %.160s (%.150s); %llu event(s) and %llu other record(s) recovered from it%s%.100s%s",
		 h->path, aside, damage, (unsigned long long)sv.events, (unsigned long long)(sv.rows - sv.events),
		 r < 0 ? " before the copy failed (" : lost ? ", what stood on its bad pages is lost (" : "",
		 r < 0 ? strerror(-r) : lost ? sv.error : "", lost ? ")" : "");
}
