/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The event history on a real SQLite file in a temporary directory: order,
 * filters, restarts, pruning, a corrupt file and an unusable directory; the
 * notifier's tables, and an old file's notify:/ack: events moved into them. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "history.h"
#include "history-private.h"
#include "history-v0.h"
#include "test.h"
#include "util.h"

#define RETRY_USEC (10 * UINT64_C(1000000))	/* history-retry's default */

typedef struct Got {
	unsigned n;
	HistoryEvent e[64];
} Got;

static int collect(const HistoryEvent *e, void *userdata)
{
	Got *g = userdata;
	if (g->n < ELEMENTSOF(g->e))
		g->e[g->n++] = *e;
	return 0;
}

static HistoryEvent ev(const char *dev, const char *kind, uint64_t t)
{
	HistoryEvent e = {.time_usec = t, .logged_usec = t + 5, .latency = 0.4, .count = 3, .sector = 77};
	snprintf(e.device, sizeof e.device, "%s", dev);
	snprintf(e.serial, sizeof e.serial, "SER-%s", dev);
	snprintf(e.kind, sizeof e.kind, "%s", kind);
	snprintf(e.op, sizeof e.op, "write");
	snprintf(e.severity, sizeof e.severity, "warning");
	snprintf(e.message, sizeof e.message, "%s on %s at %llu, it's \"quoted\"", kind, dev, (unsigned long long)t);
	return e;
}

static void fill(History *h)
{
	for (unsigned i = 0; i < 30; i++) {
		HistoryEvent e = ev(i % 3 ? "sdb" : "sdc", i % 2 ? "stall" : "storm-start", 1000 + i);
		CHECK_INT(history_add(h, &e), 0);
		CHECK(e.id > 0);
	}
}

static void queries(History *h, int64_t base)
{
	Got g = {0};
	CHECK_INT(history_query(h, &(HistoryFilter){0}, collect, &g), 0);
	CHECK_INT(g.n, 30);
	CHECK_INT(g.e[0].time_usec, 1000);
	CHECK_STR(g.e[29].message, "stall on sdb at 1029, it's \"quoted\"");
	CHECK_NEAR(g.e[29].latency, 0.4, 1e-12);
	CHECK_INT(g.e[29].sector, 77);
	CHECK_INT(g.e[29].logged_usec, 1034);

	g.n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.device = "sdc"}, collect, &g), 0);
	CHECK_INT(g.n, 10);
	g.n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.serial = "SER-sdc", .device = "ignored"}, collect, &g), 0);
	CHECK_INT(g.n, 10);
	/* a disk's past under another form of its key: only under its name */
	const HistoryFilter also[] = {
		{.serial = "SER-x@sdb", .device = "sdb", .serial_on_device = "SER-sdb"},
		{.serial = "SER-x@sdc", .device = "sdc", .serial_on_device = "SER-sdb"},
		{.serial = "SER-sdc", .device = "sdb", .serial_on_device = "SER-sdb"},
		{.serial = "SER-x@sdb", .device = "sdb", .serial_on_device = "SER-sdb", .kind = "stall"},
	};
	const unsigned n_also[] = {20, 0, 30, 10};
	for (size_t i = 0; i < ELEMENTSOF(also); i++) {
		g.n = 0;
		CHECK_INT(history_query(h, &also[i], collect, &g), 0);
		CHECK_INT(g.n, n_also[i]);
	}
	g.n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.since_usec = 1025}, collect, &g), 0);
	CHECK_INT(g.n, 5);
	g.n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.limit = 4}, collect, &g), 0);
	CHECK_INT(g.n, 4);
	CHECK_INT(g.e[0].time_usec, 1026);	/* the newest four, oldest first */
	g.n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.after_id = base + 27}, collect, &g), 0);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.e[0].id, base + 28);
}

typedef struct Sends {
	unsigned n;
	HistorySend s[16];
} Sends;

static int collect_send(const HistorySend *s, void *userdata)
{
	Sends *g = userdata;
	if (g->n < ELEMENTSOF(g->s))
		g->s[g->n++] = *s;
	return 0;
}

typedef struct Acks {
	unsigned n;
	HistoryAck a[8];
} Acks;

static int collect_ack(const HistoryAck *a, void *userdata)
{
	Acks *g = userdata;
	if (g->n < ELEMENTSOF(g->a))
		g->a[g->n++] = *a;
	return 0;
}

static unsigned count_sends(History *h, HistorySendSet set, Sends *g)
{
	*g = (Sends){0};
	CHECK_INT(history_query_sends(h, set, 0, collect_send, g), 0);
	return g->n;
}

/* What the old file's rows became (history-v0.c has them). */
static void check_migrated(History *h, uint64_t now)
{
	Got g = {0};
	CHECK_INT(history_query(h, &(HistoryFilter){0}, collect, &g), 0);
	CHECK_INT(g.n, V0_EVENTS);
	for (unsigned i = 0; i < g.n; i++)
		CHECK(!startswith(g.e[i].kind, "notify:") && !startswith(g.e[i].kind, "ack:"));
	Sends s;
	CHECK_INT(count_sends(h, HISTORY_SENDS_NEWEST, &s), V0_SENDS);
	CHECK_STR(s.s[0].kind, "storm-start");
	CHECK_STR(s.s[0].incident, V0_STORM_CLOSED);
	CHECK_STR(s.s[0].identity, V0_SDB_ID);
	CHECK_INT(s.s[0].time_usec, now - 599 * UINT64_C(1000000));
	CHECK_INT(s.s[0].event_usec, now - 600 * UINT64_C(1000000));
	CHECK_STR(s.s[2].kind, "storm-end");
	CHECK_STR(s.s[2].incident, V0_STORM_CLOSED);	/* the id without " (follow-up)" */
	CHECK(s.s[2].follow_up && !s.s[0].follow_up);
	CHECK_STR(s.s[5].incident, V0_STALL_NEWEST);
	CHECK_INT(s.s[5].count, 4);
	CHECK_STR(s.s[6].kind, "bands");
	CHECK_STR(s.s[6].identity, "sdd");		/* no serial: the device, as the old restore read it */
	CHECK_STR(s.s[6].result, "");
	CHECK_INT(s.s[6].exit_status, -1);
	CHECK_INT(count_sends(h, HISTORY_SENDS_OPEN_STORMS, &s), 1);
	CHECK_STR(s.s[0].incident, V0_STORM_OPEN);
	/* sdb: storm-start, behaviour, storm-end; sdc: stall; sdd: bands */
	CHECK_INT(count_sends(h, HISTORY_SENDS_LAST_PER_KIND, &s), 5);
	for (unsigned i = 0; i < s.n; i++)
		if (streq(s.s[i].kind, "stall"))
			CHECK_STR(s.s[i].incident, V0_STALL_NEWEST);
		else if (streq(s.s[i].kind, "storm-start"))
			CHECK_STR(s.s[i].incident, V0_STORM_OPEN);
	Acks a = {0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &a), 0);
	CHECK_INT(a.n, V0_ACKS);
	CHECK_STR(a.a[0].kind, "stall");
	CHECK_STR(a.a[0].disk_class, "dm-smr");
	CHECK_STR(a.a[0].identity, V0_SDB_ID);
	CHECK_STR(a.a[1].kind, "all");
	CHECK_STR(a.a[1].identity, "sdd");
	CHECK_INT(a.a[1].time_usec, now - 4 * UINT64_C(1000000));
}

static void notify_tables(const char *base)
{
	char dir[300], cmd[400];
	snprintf(dir, sizeof dir, "%s/v0", base);
	CHECK_INT(mkdir(dir, 0755), 0);
	uint64_t now = now_usec(CLOCK_REALTIME);
	CHECK_INT(history_v0_write(dir, now), 0);
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	check_migrated(h, now);
	h = history_close(h);
	/* once: a second start moves nothing twice */
	CHECK_INT(history_open(dir, &h, &err), 0);
	check_migrated(h, now);

	/* a send, how it ended; a storm's follow-up closes its incident */
	HistorySend s = {.time_usec = now + 1, .event_usec = now, .count = 1, .exit_status = -1};
	snprintf(s.device, sizeof s.device, "sdb");
	snprintf(s.identity, sizeof s.identity, V0_SDB_ID);
	snprintf(s.kind, sizeof s.kind, "storm-end");
	snprintf(s.incident, sizeof s.incident, V0_STORM_OPEN);
	snprintf(s.command, sizeof s.command, "/usr/share/smrd/notify/mail");
	s.follow_up = true;
	CHECK_INT(history_add_send(h, &s), 0);
	CHECK(s.id > 0);
	CHECK_INT(history_send_done(h, s.id, "exit 3", 3, now + 2), 0);
	Sends g;
	CHECK_INT(count_sends(h, HISTORY_SENDS_OPEN_STORMS, &g), 0);
	g = (Sends){0};
	CHECK_INT(history_query_sends(h, HISTORY_SENDS_NEWEST, 1, collect_send, &g), 0);
	CHECK_INT(g.n, 1);
	CHECK_STR(g.s[0].result, "exit 3");
	CHECK_INT(g.s[0].exit_status, 3);
	CHECK_STR(g.s[0].command, "/usr/share/smrd/notify/mail");
	HistoryAck a = {.time_usec = now + 3};
	snprintf(a.device, sizeof a.device, "sdc");
	snprintf(a.identity, sizeof a.identity, V0_SDC_ID);
	snprintf(a.kind, sizeof a.kind, "all");
	snprintf(a.disk_class, sizeof a.disk_class, "dm-smr");
	CHECK_INT(history_add_ack(h, &a), 0);
	Acks got = {0};
	CHECK_INT(history_query_acks(h, 1, collect_ack, &got), 0);
	CHECK_INT(got.n, 1);
	CHECK_STR(got.a[0].identity, V0_SDC_ID);

	/* forget by identity: sdb's sends and acks go, the others stay */
	CHECK(history_forget(h, "sdx", V0_SDB_ID) >= 0);
	CHECK_INT(count_sends(h, HISTORY_SENDS_NEWEST, &g), 3);
	got = (Acks){0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &got), 0);
	CHECK_INT(got.n, 2);
	/* pruned by age with the events */
	CHECK(history_prune(h, now - 20 * UINT64_C(1000000), 1000) >= 0);
	CHECK_INT(count_sends(h, HISTORY_SENDS_NEWEST, &g), 2);	/* sdc's newest stall, sdd's bands */
	h = history_close(h);
	free(err);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

/* A new database in base/name made by the history, opened raw to be made
 * an older one. */
static sqlite3 *fresh_db(const char *base, const char *name, char dir[static 300])
{
	char path[400], *err = NULL;
	snprintf(dir, 300, "%s/%s", base, name);
	CHECK_INT(mkdir(dir, 0755), 0);
	History *h = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	history_close(h);
	free(err);
	snprintf(path, sizeof path, "%s/events.db", dir);
	sqlite3 *db = NULL;
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

/* Schema 1's acks had no expiry: opened, the file gets the column, they
 * keep none (0); an expiry and a withdrawal are read back as written. */
static void ack_expiry_migrated(const char *base)
{
	char dir[300], *err = NULL;
	History *h = NULL;
	sqlite3 *db = fresh_db(base, "v1acks", dir);
	CHECK_INT(sqlite3_exec(db, "DROP TABLE notify_acks; CREATE TABLE notify_acks (id INTEGER PRIMARY KEY,"
			       " time_usec INTEGER NOT NULL, device TEXT NOT NULL, identity TEXT NOT NULL,"
			       " kind TEXT NOT NULL, disk_class TEXT NOT NULL);"
			       "INSERT INTO notify_acks VALUES (1, 5, 'sdb', 'WD-1', 'stall', 'cmr');"
			       "PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	CHECK_INT(history_open(dir, &h, &err), 0);
	Acks got = {0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &got), 0);
	CHECK_INT(got.n, 1);
	CHECK_STR(got.a[0].kind, "stall");
	CHECK_INT(got.a[0].until_usec, 0);
	HistoryAck a = {.time_usec = 6, .until_usec = 86400000006};
	snprintf(a.device, sizeof a.device, "sdb");
	snprintf(a.identity, sizeof a.identity, "WD-1");
	snprintf(a.kind, sizeof a.kind, "all");
	CHECK_INT(history_add_ack(h, &a), 0);
	a.time_usec = 7, a.until_usec = HISTORY_ACK_WITHDRAWN;
	CHECK_INT(history_add_ack(h, &a), 0);
	got = (Acks){0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &got), 0);
	CHECK_INT(got.n, 3);
	CHECK(got.a[1].until_usec == 86400000006);
	CHECK(got.a[2].until_usec == HISTORY_ACK_WITHDRAWN);
	h = history_close(h);
	char path[400];
	snprintf(path, sizeof path, "%s/events.db", dir);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st = NULL;
	CHECK_INT(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(st, 0), 3);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(err);
	err = NULL;

	/* what is salvaged from a damaged version-1 file fits the new tables:
	 * the ack comes over with no expiry */
	char v1[400], dir2[300];
	snprintf(v1, sizeof v1, "%s/v1.db", base);
	CHECK_INT(sqlite3_open(v1, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "CREATE TABLE notify_acks (id INTEGER PRIMARY KEY,"
			       " time_usec INTEGER NOT NULL, device TEXT NOT NULL, identity TEXT NOT NULL,"
			       " kind TEXT NOT NULL, disk_class TEXT NOT NULL);"
			       "INSERT INTO notify_acks VALUES (1, 5, 'sdb', 'WD-1', 'stall', 'cmr');"
			       "PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	snprintf(dir2, sizeof dir2, "%s/v1salvage", base);
	CHECK_INT(mkdir(dir2, 0755), 0);
	CHECK_INT(history_open(dir2, &h, &err), 0);
	h = history_close(h);
	snprintf(path, sizeof path, "%s/events.db", dir2);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	HistorySalvage sv;
	CHECK_INT(history_salvage(db, v1, &sv), 0);
	CHECK_INT(sv.rows, 1);
	CHECK_INT(sqlite3_prepare_v2(db, "SELECT kind, until_usec FROM notify_acks", -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(st, 0), "stall");
	CHECK_INT(sqlite3_column_int64(st, 1), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static int count_cb(const HistoryEvent *e, void *userdata)
{
	unsigned *n = userdata;
	(*n)++;
	return strstr(e->message, "forged") ? -EPERM : 0;	/* a planted row must never be listed */
}

static unsigned count_events(History *h)
{
	unsigned n = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){.limit = 100000}, count_cb, &n), 0);
	return n;
}

/* One bad page costs what stood on it, not the whole history (audit 4, finding 16). */
static void salvage(const char *dir)
{
	char path[256], *err = NULL;
	History *h = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	for (unsigned i = 0; i < 3; i++) {
		HistoryAck a = {.time_usec = 1 + i};
		snprintf(a.device, sizeof a.device, "sd%c", 'a' + i);
		snprintf(a.kind, sizeof a.kind, "all");
		CHECK_INT(history_add_ack(h, &a), 0);
	}
	for (unsigned i = 0; i < 300; i++) {	/* long messages: the events' pages are most of the file */
		HistoryEvent e = ev(i % 2 ? "sda" : "sdb", "stall", 5000 + i);
		memset(e.message, 'x', 250);
		CHECK_INT(history_add(h, &e), 0);
	}
	h = history_close(h);
	snprintf(path, sizeof path, "%s/events.db", dir);
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	FILE *f = fopen(path, "r+");
	CHECK(f && fseek(f, st.st_size / 4 * 3 / 4096 * 4096, SEEK_SET) == 0);	/* a page of events */
	for (unsigned i = 0; i < 4096; i++)
		fputc((int)(i * 2654435761u >> 13) & 0xff, f);
	fclose(f);
	CHECK_INT(history_open(dir, &h, &err), -ESTALE);
	printf("  %s\n", err ? err : "(no message)");
	CHECK(err && strstr(err, "was corrupt, moved to") && strstr(err, "event(s) and 3 other record(s) recovered"));
	CHECK(!strstr(err, "not an error") && strstr(err, "btree"));	/* what SQLite found, not its "not an error" */
	CHECK_INT(history_state(h), HISTORY_RECOVERED);
	CHECK_STR(history_state_to_string(history_state(h)), "recovered");
	CHECK(history_persistent(h));
	CHECK(strstr(history_last_error(h), "recovered"));
	unsigned n = count_events(h);
	CHECK(n >= 250 && n < 300);	/* a page of them lost, no more */
	Acks acks = {0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &acks), 0);
	CHECK_INT(acks.n, 3);
	HistoryEvent e = ev("sdc", "stall", 9000);
	CHECK_INT(history_add(h, &e), 0);
	CHECK(e.id > 300);	/* past every recovered one */
	h = history_close(h);
	free(err);
	err = NULL;
	char cmd[400];
	snprintf(cmd, sizeof cmd, "ls %s | grep -q '^events.db.corrupt-'", dir);
	CHECK_INT(system(cmd), 0);	/* the damaged file is kept */
	CHECK_INT(history_open(dir, &h, &err), 0);	/* a restart: ok, with what was recovered */
	CHECK_INT(history_state(h), HISTORY_OK);
	CHECK_INT(count_events(h), n + 1);
	h = history_close(h);
	/* cut short (a full disk, a bad copy): the pages that are left are read,
	 * though the header promises more */
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(truncate(path, st.st_size / 4 * 3 / 4096 * 4096), 0);
	CHECK_INT(history_open(dir, &h, &err), -ESTALE);
	unsigned cut = count_events(h);
	printf("  cut to 3/4: %u of %u events recovered\n", cut, n + 1);
	CHECK(cut >= 50 && cut < n + 1);
	h = history_close(h);
	free(err);
}

/* A row smrd did not write under one of its ids (another smrd on the same
 * file, before the lock): the event is stored under the next free id, not
 * reported stored and dropped (audit 4, finding 4). */
static void taken_id(const char *dir)
{
	char path[256], *err = NULL;
	History *h = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	HistoryEvent e = ev("sda", "stall", 100);
	CHECK_INT(history_add(h, &e), 0);
	CHECK_INT(e.id, 1);
	snprintf(path, sizeof path, "%s/events.db", dir);
	sqlite3 *other = NULL;
	CHECK_INT(sqlite3_open(path, &other), SQLITE_OK);
	CHECK_INT(sqlite3_exec(other, "INSERT INTO events (id, time_usec, logged_usec, device, serial, kind, op, severity,"
			       " message) VALUES (2, 1, 1, 'sdb', '', 'ack:all', '', 'info', 'the other one')",
			       NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	HistoryEvent mine = ev("sda", "stall", 101);
	CHECK_INT(history_add(h, &mine), 0);
	CHECK_INT(mine.id, 3);
	CHECK_INT(count_events(h), 3);
	const char *notice = history_take_notice(h);
	CHECK(notice && strstr(notice, "event id 2 is a row smrd did not write"));
	h = history_close(h);
	CHECK_INT(history_open(dir, &h, &err), 0);
	CHECK_INT(count_events(h), 3);
	h = history_close(h);
	free(err);
}

/* A -wal someone else put beside events.db is never replayed (audit 4,
 * finding 5): a forged database, VACUUMed so that all of it is in its WAL. */
static void planted_wal(const char *dir)
{
	char forge[256], path[300], to[300], *err = NULL;
	History *h = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	for (unsigned i = 0; i < 3; i++) {
		HistoryEvent e = ev("sdb", "stall", 100 + i);
		CHECK_INT(history_add(h, &e), 0);
	}
	h = history_close(h);
	snprintf(forge, sizeof forge, "%s/forge", dir);
	CHECK_INT(mkdir(forge, 0755), 0);
	snprintf(path, sizeof path, "%s/events.db", forge);
	sqlite3 *db = NULL;
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
			       "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, time_usec INTEGER NOT NULL,"
			       " logged_usec INTEGER NOT NULL, device TEXT NOT NULL, serial TEXT NOT NULL, kind TEXT NOT NULL,"
			       " op TEXT NOT NULL, severity TEXT NOT NULL, duration REAL, latency REAL, value REAL,"
			       " count INTEGER, bytes INTEGER, sector INTEGER, message TEXT NOT NULL);"
			       "INSERT INTO events (time_usec, logged_usec, device, serial, kind, op, severity, message)"
			       " VALUES (1, 1, 'sda', 'x', 'ack:all', '', 'info', 'forged');"
			       "VACUUM;", NULL, NULL, NULL), SQLITE_OK);
	char cmd[800];
	snprintf(path, sizeof path, "%s/events.db-wal", forge);
	snprintf(to, sizeof to, "%s/events.db-wal", dir);
	snprintf(cmd, sizeof cmd, "cp %s %s", path, to);
	CHECK_INT(system(cmd), 0);
	sqlite3_close(db);
	/* another user's file when we can make one; else one anyone may write */
	if (geteuid() == 0)
		CHECK_INT(chown(to, 65534, 65534), 0);
	else
		CHECK_INT(chmod(to, 0666), 0);
	CHECK_INT(history_open(dir, &h, &err), 0);
	CHECK_INT(count_events(h), 3);		/* ours, and no forged row */
	const char *notice = history_take_notice(h);
	CHECK(notice && strstr(notice, "moved aside unread"));
	h = history_close(h);
	snprintf(cmd, sizeof cmd, "ls %s | grep -q '^events.db-wal.untrusted-'", dir);
	CHECK_INT(system(cmd), 0);
	/* and what SQLite makes beside the database is as private as it */
	CHECK_INT(history_open(dir, &h, &err), 0);
	HistoryEvent e = ev("sdb", "stall", 200);
	CHECK_INT(history_add(h, &e), 0);
	struct stat st;
	CHECK_INT(stat(to, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0640);
	CHECK_INT(st.st_uid, geteuid());
	h = history_close(h);
	free(err);
}

static void faults(const char *dir)
{
	const char *sub[] = {"fault-salvage", "fault-taken", "fault-planted"};
	void (*fn[])(const char *) = {salvage, taken_id, planted_wal};
	for (size_t i = 0; i < ELEMENTSOF(sub); i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
		CHECK_INT(mkdir(p, 0750), 0);
		fn[i](p);
	}
}

typedef struct Incidents {
	unsigned n;
	Incident i[8];
} Incidents;

static int collect_incident(const Incident *i, void *userdata)
{
	Incidents *x = userdata;
	if (x->n < 8)
		x->i[x->n] = *i;
	x->n++;
	return 0;
}

/* A version 2 file's events become incidents at the first open: sdb's
 * replace (a stall, the warning, a storm, 300 stalls, the storm's end,
 * the rebuild's end dated at its start as version 2 dated it) one rebuild
 * incident of five rows counting the rest, sdc's stalls 20 minutes apart
 * two incidents; every event counted somewhere, none twice; a pool's own
 * event stays a row of no incident. Then an incident put and read back. */
static void incidents_migrated(const char *base)
{
	char dir[300], *err = NULL;
	History *h = NULL;
	sqlite3 *db = fresh_db(base, "v2", dir);
	CHECK_INT(sqlite3_exec(db, "DROP TABLE incidents; ALTER TABLE events DROP COLUMN incident;"
			       "PRAGMA user_version = 2;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_stmt *ins = NULL;
	CHECK_INT(sqlite3_prepare_v2(db, "INSERT INTO events (time_usec, logged_usec, device, serial, kind, op, severity,"
				     " duration, latency, value, count, bytes, sector, message) VALUES"
				     " (?1, ?2, ?3, ?4, ?5, '', ?6, ?7, ?8, NULL, 1, 0, 0, ?5)", -1, &ins, NULL), SQLITE_OK);
	const uint64_t s = 1000000, t0 = 1796450825 * s;
	unsigned n = 0;
	struct { const char *dev, *kind, *sev; uint64_t t, logged; double dur, lat; } rows[400];
#define ROW(d, k, sv, tt, lg, du, la) rows[n++] = (typeof(rows[0])){d, k, sv, tt, lg, du, la}
	ROW("sdb", "stall", "warning", t0, t0, NAN, 1.5);
	ROW("sdb", "rebuild-warning", "warning", t0 + s, t0 + s, 780, NAN);
	ROW("sdb", "storm-start", "warning", t0 + 2 * s, t0 + 2 * s, NAN, 9);
	for (unsigned k = 0; k < 300; k++)
		ROW("sdb", "stall", "warning", t0 + 3 * s + k * (s / 2), t0 + 3 * s + k * (s / 2), NAN, k == 7 ? 6.5 : 1.5);
	ROW("sdb", "storm-end", "notice", t0 + 160 * s, t0 + 160 * s, 158, 9);
	ROW("sdb", "rebuild-done", "notice", t0, t0 + 161 * s, 161, NAN);	/* dated at its start, logged at its end */
	ROW("sdc", "stall", "warning", t0, t0, NAN, 1.2);
	ROW("sdc", "stall", "warning", t0 + 60 * s, t0 + 60 * s, NAN, 1.3);
	ROW("sdc", "stall", "warning", t0 + 1260 * s, t0 + 1260 * s, NAN, 1.4);
	ROW("", "rebuild-end", "notice", t0 + 200 * s, t0 + 200 * s, NAN, NAN);
#undef ROW
	for (unsigned k = 0; k < n; k++) {
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)rows[k].t);
		sqlite3_bind_int64(ins, 2, (sqlite3_int64)rows[k].logged);
		sqlite3_bind_text(ins, 3, rows[k].dev, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, rows[k].dev[0] ? (rows[k].dev[2] == 'b' ? "WD-B" : "WD-C") : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, rows[k].kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, rows[k].sev, -1, SQLITE_STATIC);
		sqlite3_bind_double(ins, 7, rows[k].dur);
		sqlite3_bind_double(ins, 8, rows[k].lat);
		CHECK_INT(sqlite3_step(ins), SQLITE_DONE);
	}
	sqlite3_finalize(ins);
	sqlite3_close(db);

	CHECK_INT(history_open(dir, &h, &err), 0);
	Got g = {0};
	CHECK_INT(history_query(h, &(HistoryFilter){.limit = 1000}, collect, &g), 0);
	CHECK_INT(g.n, 5 + 2 + 1);	/* sdb's five steps, sdc's two firsts, the pool's row */
	Incidents x = {0};
	CHECK_INT(history_query_incidents(h, &(HistoryIncidentFilter){0}, collect_incident, &x), 0);
	CHECK_INT(x.n, 3);
	uint64_t taken = 0;
	for (unsigned k = 0; k < x.n && k < 8; k++)
		taken += x.i[k].events;
	CHECK_INT(taken + 1, n);	/* every event in one incident, the pool's in none */
	Incidents b = {0}, c = {0};
	CHECK_INT(history_query_incidents(h, &(HistoryIncidentFilter){.disk_id = "WD-B"}, collect_incident, &b), 0);
	CHECK_INT(history_query_incidents(h, &(HistoryIncidentFilter){.device = "sdc"}, collect_incident, &c), 0);
	CHECK(b.n == 1 && c.n == 2);
	const Incident *r = &b.i[0];
	CHECK_STR(r->device, "sdb");
	CHECK_INT(r->kind, INCIDENT_REBUILD);
	CHECK_INT(r->slow_ios, 301);
	CHECK_NEAR(r->slow_worst, 6.5, 0);
	CHECK_INT(r->slow_hist[1], 300);
	CHECK_INT(r->slow_hist[3], 1);
	CHECK_INT(r->storms, 1);
	CHECK_INT(r->folded, 300);
	CHECK_INT(r->start_usec, t0);
	CHECK_INT(r->end_usec, t0 + 161 * s);
	CHECK_NEAR(r->expected, 780, 0);
	CHECK_NEAR(r->duration, 161, 0);
	CHECK_INT(r->n_steps, 5);
	CHECK_INT(r->steps[4].kind, EVENT_REBUILD_DONE);
	CHECK(c.i[0].end_usec == t0 + 60 * s && c.i[0].slow_ios == 2 && c.i[0].folded == 1);
	CHECK(c.i[1].end_usec == 0 && c.i[1].slow_ios == 1);	/* open: the daemon ends it */
	for (unsigned k = 0; k < g.n && k < 64; k++)
		CHECK(g.e[k].device[0] ? g.e[k].incident[0] != 0 : g.e[k].incident[0] == 0);
	/* its next state, put and read back */
	Incident grown = *r;
	grown.slow_ios = 400;
	grown.end_usec = 0;
	grown.outcome[0] = 0;
	CHECK_INT(history_put_incident(h, &grown), 0);
	x = (Incidents){0};
	CHECK_INT(history_query_incidents(h, &(HistoryIncidentFilter){.disk_id = "WD-B", .open_only = true},
					  collect_incident, &x), 0);
	CHECK_INT(x.n, 1);
	CHECK(x.n == 1 && x.i[0].slow_ios == 400 && streq(x.i[0].id, r->id) && x.i[0].n_steps == 5 &&
	      streq(x.i[0].steps[1].message, "rebuild-warning") && isnan(grown.zfs_worst) == isnan(x.i[0].zfs_worst));
	/* forgotten with the disk */
	CHECK(history_forget(h, "sdb", "WD-B") > 0);
	x = (Incidents){0};
	CHECK_INT(history_query_incidents(h, &(HistoryIncidentFilter){0}, collect_incident, &x), 0);
	CHECK_INT(x.n, 2);
	h = history_close(h);
	free(err);
}

int main(void)
{
	char dir[] = "/tmp/test-history-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	faults(dir);
	ack_expiry_migrated(dir);
	incidents_migrated(dir);
	char *err = NULL, path[256], cmd[1024];
	History *h = NULL;

	CHECK_INT(history_open(dir, &h, &err), 0);
	CHECK(history_persistent(h));
	fill(h);
	queries(h, 0);
	h = history_close(h);

	/* A restart sees the same events. */
	CHECK_INT(history_open(dir, &h, &err), 0);
	queries(h, 0);
	/* Pruning: by age, then by count, the stalls first (a storm's start
	 * outlives the stalls after it), then the oldest of the rest. */
	CHECK_INT(history_prune(h, 1010, 1000), 10);
	CHECK_INT(history_prune(h, 0, 5), 15);
	Got g = {0};
	history_query(h, &(HistoryFilter){0}, collect, &g);
	CHECK_INT(g.n, 5);
	CHECK_INT(g.e[0].time_usec, 1020);
	for (unsigned i = 0; i < g.n && i < 5; i++)
		CHECK_STR(g.e[i].kind, "storm-start");
	h = history_close(h);

	/* Garbage in place of the database: moved aside, a new one started. */
	snprintf(path, sizeof path, "%s/events.db", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/events.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/events.db", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 2000; i++)
		fputs("this is not a database ", f);
	fclose(f);
	CHECK_INT(history_open(dir, &h, &err), -ESTALE);
	CHECK(err && strstr(err, "was corrupt, moved to"));
	free(err);
	err = NULL;
	CHECK(history_persistent(h));
	fill(h);
	queries(h, 0);
	h = history_close(h);

	/* Deleted while in use: recreated from the open handle, nothing lost. */
	CHECK_INT(history_open(dir, &h, &err), 0);
	fill(h);
	HistoryAck ack = {.time_usec = 1};
	snprintf(ack.kind, sizeof ack.kind, "all");
	CHECK_INT(history_add_ack(h, &ack), 0);
	const char *suffix[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ELEMENTSOF(suffix); i++) {
		snprintf(path, sizeof path, "%s/events.db%s", dir, suffix[i]);
		unlink(path);
	}
	CHECK_INT(history_maintain(h, 1, RETRY_USEC), 0);
	snprintf(path, sizeof path, "%s/events.db", dir);
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK(history_persistent(h));
	CHECK(history_errors(h) >= 1);
	HistoryEvent late = ev("sde", "stall", 9000);
	CHECK_INT(history_add(h, &late), 0);
	h = history_close(h);
	CHECK_INT(history_open(dir, &h, &err), 0);
	g.n = 0;
	history_query(h, &(HistoryFilter){0}, collect, &g);
	CHECK_INT(g.n, 61);	/* the 60 from before the deletion and the one after */
	CHECK_INT(g.e[60].time_usec, 9000);
	Acks acks = {0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &acks), 0);
	CHECK_INT(acks.n, 1);	/* the notifier's tables too */
	h = history_close(h);

	/* A directory that does not exist yet: memory only, still queryable, and
	 * written back once it can be. */
	char later[300];
	snprintf(later, sizeof later, "%s/later", dir);
	CHECK(history_open(later, &h, &err) < 0);
	CHECK(err && strstr(err, "kept in memory"));
	free(err);
	err = NULL;
	CHECK(h && !history_persistent(h));
	CHECK_INT(history_state(h), HISTORY_MEMORY);
	for (unsigned i = 0; i < 30; i++) {
		HistoryEvent e = ev(i % 3 ? "sdb" : "sdc", i % 2 ? "stall" : "storm-start", 1000 + i);
		CHECK_INT(history_add(h, &e), -EIO);
		CHECK_INT(e.id, i + 1);
	}
	CHECK_INT(history_pending(h), 30);
	queries(h, 0);
	/* the notifier's rows wait too, and take how their sends ended */
	HistorySend kept = {.time_usec = 1, .count = 1, .exit_status = -1}, gone = kept;
	snprintf(kept.device, sizeof kept.device, "sdb");
	snprintf(gone.device, sizeof gone.device, "sdc");
	CHECK_INT(history_add_send(h, &kept), -EIO);
	CHECK_INT(history_add_send(h, &gone), -EIO);
	CHECK(kept.id > 0 && gone.id == kept.id + 1);
	CHECK_INT(history_send_done(h, kept.id, "exit 0", 0, 2), 0);
	HistoryAck wait = {.time_usec = 3};
	snprintf(wait.device, sizeof wait.device, "sdb");
	CHECK_INT(history_add_ack(h, &wait), -EIO);
	CHECK_INT(history_forget(h, "sdc", NULL), 10);
	CHECK_INT(history_pending(h), 20);
	CHECK_INT(mkdir(later, 0755), 0);
	CHECK_INT(history_maintain(h, 5, RETRY_USEC), 0);	/* not due yet: retries are spaced */
	CHECK_INT(history_maintain(h, 5 + RETRY_USEC, RETRY_USEC), 20);
	CHECK(history_persistent(h));
	CHECK_INT(history_pending(h), 0);
	HistoryEvent next = ev("sdb", "stall", 2000);
	CHECK_INT(history_add(h, &next), 0);
	CHECK_INT(next.id, 31);	/* ids go on from the pending ones: --follow misses nothing */
	h = history_close(h);
	CHECK_INT(history_open(later, &h, &err), 0);
	g.n = 0;
	history_query(h, &(HistoryFilter){0}, collect, &g);
	CHECK_INT(g.n, 21);
	CHECK_INT(g.e[20].id, 31);
	Sends sent;
	CHECK_INT(count_sends(h, HISTORY_SENDS_NEWEST, &sent), 1);	/* sdc's went with its forget */
	CHECK_STR(sent.s[0].result, "exit 0");
	CHECK_INT(sent.s[0].id, kept.id);
	Acks waited = {0};
	CHECK_INT(history_query_acks(h, 0, collect_ack, &waited), 0);
	CHECK_INT(waited.n, 1);
	h = history_close(h);

	/* A database that can never be opened (a directory in its place): the
	 * pending ring keeps the newest, counts what it dropped, and stays
	 * queryable, oldest first. */
	snprintf(path, sizeof path, "%s/blocked", dir);
	CHECK_INT(mkdir(path, 0755), 0);
	snprintf(later, sizeof later, "%s/events.db", path);
	CHECK_INT(mkdir(later, 0755), 0);
	CHECK(history_open(path, &h, &err) < 0);
	free(err);
	err = NULL;
	for (unsigned i = 0; i < HISTORY_PENDING_MAX + 10; i++) {
		HistoryEvent e = ev("sdd", "stall", 5000 + i);
		history_add(h, &e);
	}
	CHECK_INT(history_dropped(h), 10);
	g.n = 0;
	history_query(h, &(HistoryFilter){.device = "sdd", .limit = 3}, collect, &g);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.e[2].time_usec, 5000 + HISTORY_PENDING_MAX + 9);
	CHECK(g.e[0].id < g.e[1].id && g.e[1].id < g.e[2].id);
	h = history_close(h);

	/* Made 0640, and never through a link or into another's file (issue 26:
	 * a foreign events.db was renamed to .corrupt-<time>). */
	snprintf(path, sizeof path, "%s/modes", dir);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(history_open(path, &h, &err), 0);
	h = history_close(h);
	snprintf(later, sizeof later, "%s/events.db", path);
	struct stat ms;
	CHECK_INT(stat(later, &ms), 0);
	CHECK_INT(ms.st_mode & 0777, 0640);
	snprintf(path, sizeof path, "%s/planted", dir);
	CHECK_INT(mkdir(path, 0755), 0);
	char victim[300];
	snprintf(victim, sizeof victim, "%s/victim", dir);
	f = fopen(victim, "w");
	fputs("not a database, and not smrd's\n", f);
	fclose(f);
	snprintf(later, sizeof later, "%s/events.db", path);
	CHECK_INT(symlink(victim, later), 0);
	CHECK(history_open(path, &h, &err) < 0);
	CHECK(err && strstr(err, "a symbolic link"));
	free(err);
	err = NULL;
	CHECK(h && !history_persistent(h));
	h = history_close(h);
	CHECK_INT(lstat(later, &ms), 0);
	CHECK(S_ISLNK(ms.st_mode));		/* left where it was */
	CHECK_INT(stat(victim, &ms), 0);
	CHECK_INT(ms.st_size, 31);		/* and what it points to untouched */
	/* an id at the top of the range (crafted, or corrupt): moved aside, no overflow */
	snprintf(path, sizeof path, "%s/topid", dir);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(history_open(path, &h, &err), 0);
	HistoryEvent top = ev("sdf", "stall", 100);
	CHECK_INT(history_add(h, &top), 0);
	h = history_close(h);
	snprintf(cmd, sizeof cmd, "sqlite3 %s/events.db 'UPDATE events SET id = 9223372036854775807' 2>/dev/null || "
		 "python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute(\"update events set id=9223372036854775807\"); d.commit()' %s/events.db",
		 path, path);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(history_open(path, &h, &err), -ESTALE);
	CHECK(err && strstr(err, "event id at the end of the range"));
	free(err);
	err = NULL;
	HistoryEvent after = ev("sdf", "stall", 200);
	CHECK_INT(history_add(h, &after), 0);
	CHECK_INT(after.id, 1);
	h = history_close(h);

	notify_tables(dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return test_done("history");
}
