/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The notifier on a real event loop: hooks reaped through sd-event's child
 * source (no zombie left), a hook past notify-timeout killed by its timer,
 * and each result in the history's notifier tables; then an old (schema 0)
 * database migrated at open, and the incident book restored from it
 * deciding what the old rows say, against a fresh book that sends all.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>

#include "history-v0.h"
#include "log.h"
#include "notifier.h"
#include "registry.h"
#include "test.h"
#include "unit-tree.h"

static Disk *add(DiskRegistry *r, const char *name, const char *wwn, const char *serial, DiskClass class)
{
	Disk n = {0}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(n.sys.wwn, sizeof n.sys.wwn, "%s", wwn);
	snprintf(n.sys.serial, sizeof n.sys.serial, "%s", serial);
	snprintf(n.sys.model, sizeof n.sys.model, "ACME 6000");
	n.verdict.class = class;
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

/* A detector event as the monitor hands it over. */
static void event(Notifier *n, const Disk *d, DetectEventKind kind)
{
	HistoryEvent h = {.time_usec = now_usec(CLOCK_REALTIME), .logged_usec = now_usec(CLOCK_REALTIME)};
	snprintf(h.device, sizeof h.device, "%s", d->name);
	snprintf(h.serial, sizeof h.serial, "%s", disk_identity(d));
	snprintf(h.kind, sizeof h.kind, "%s", detect_event_kind_to_string(kind));
	snprintf(h.message, sizeof h.message, "a test's %s", h.kind);
	notifier_event(n, d, kind, &h);
}

/* Runs the loop until no hook runs or waits. */
static bool settle(sd_event *e, Notifier *n, uint64_t timeout_usec)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + timeout_usec;
	for (;;) {
		NotifyStats st;
		notifier_stats(n, &st);
		if (!st.running && !st.queued)
			return true;
		if (now_usec(CLOCK_MONOTONIC) >= until)
			return false;
		sd_event_run(e, 100000);
	}
}

static int newest(const HistorySend *s, void *userdata)
{
	*(HistorySend *)userdata = *s;
	return 0;
}

static HistorySend last_send(History *h)
{
	HistorySend s = {0};
	CHECK_INT(history_query_sends(h, HISTORY_SENDS_NEWEST, 1, newest, &s), 0);
	return s;
}

/* Counts the events listed; a notifier's record among them fails the query. */
static int counted(const HistoryEvent *e, void *userdata)
{
	(*(unsigned *)userdata)++;
	return startswith(e->kind, "notify:") || startswith(e->kind, "ack:") ? -EBADMSG : 0;
}

static void hooks(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	char hook[400], runs[400];
	snprintf(runs, sizeof runs, "%s/runs", dir);
	snprintf(hook, sizeof hook, "%s/hook.sh", dir);
	FILE *f = fopen(hook, "w");
	fprintf(f, "#!/bin/sh\necho \"$SMRD_EVENT|$SMRD_MODEL|$SMRD_WWN|$SMRD_FOLLOW_UP\" >>%s\n"
		   "case $SMRD_EVENT in storm-end) echo refusing; exit 3 ;; stall) exec sleep 30 ;; esac\n", runs);
	fclose(f);
	chmod(hook, 0755);
	free(cfg->notify_command);
	cfg->notify_command = strdup(hook);
	cfg->notify_timeout = 0.3;
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	Disk *sdb = registry_get(disks, "sdb");

	event(n, sdb, EVENT_STORM_START);
	CHECK(settle(e, n, 5000000));
	HistorySend s = last_send(h);
	CHECK_STR(s.kind, "storm-start");
	CHECK_STR(s.result, "exit 0");
	CHECK_INT(s.exit_status, 0);
	CHECK_STR(s.command, hook);
	char start[40];
	snprintf(start, sizeof start, "%s", s.incident);

	event(n, sdb, EVENT_STORM_END);
	CHECK(settle(e, n, 5000000));
	s = last_send(h);
	CHECK(s.follow_up);
	CHECK_STR(s.incident, start);
	CHECK_STR(s.result, "exit 3");
	CHECK_INT(s.exit_status, 3);

	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	event(n, sdb, EVENT_STALL);
	CHECK(settle(e, n, 5000000));
	CHECK(now_usec(CLOCK_MONOTONIC) - t0 < 2000000);	/* SIGTERM at 0.3 s did it */
	s = last_send(h);
	CHECK(startswith(s.result, "killed after"));
	CHECK_INT(s.exit_status, -1);
	CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);	/* every hook reaped */

	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 3);
	CHECK_INT(st.ok, 1);
	CHECK_INT(st.failed, 1);
	CHECK_INT(st.timed_out, 1);
	NotifyRecent r[NOTIFY_RECENT];
	CHECK_INT(notifier_recent(n, r), 3);
	CHECK(startswith(r[0].result, "killed after"));
	CHECK_STR(r[1].result, "exit 3");
	CHECK_STR(r[2].what, "storm-start");
	f = fopen(runs, "r");
	char line[256] = "";
	CHECK(f && fgets(line, sizeof line, f));
	CHECK_STR(line, "storm-start|ACME 6000|0x5000c500a1b2c3d5|0\n");
	if (f)
		fclose(f);
	unsigned k = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){0}, counted, &k), 0);
	CHECK_INT(k, 0);	/* nothing of the notifier's among the events */
	n = notifier_free(n);
	h = history_close(h);
	free(err);
}

/* The old past's disks, as the rows of history-v0.c name them. */
static void same_events(Notifier *n, DiskRegistry *disks)
{
	Disk *sdb = registry_get(disks, "sdb"), *sdc = registry_get(disks, "sdc"), *sdd = registry_get(disks, "sdd");
	event(n, sdb, EVENT_BEHAVIOUR);		/* sent once ever: it was */
	event(n, sdb, EVENT_STALL);		/* acknowledged at dm-smr, which it still is */
	event(n, sdc, EVENT_STALL);		/* its last was sent 10 s ago: aggregated */
	event(n, sdd, EVENT_BANDS);		/* all acknowledged at cmr */
	event(n, sdb, EVENT_STORM_END);		/* the end of the storm still open */
}

static void restored(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	free(cfg->notify_command);
	cfg->notify_command = strdup("/bin/true");
	free(cfg->notify_min_severity);
	cfg->notify_min_severity = strdup("notice");	/* bands too */
	char old[400], fresh[400];
	snprintf(old, sizeof old, "%s/v0", dir);
	snprintf(fresh, sizeof fresh, "%s/fresh", dir);
	CHECK_INT(mkdir(old, 0755), 0);
	CHECK_INT(mkdir(fresh, 0755), 0);
	CHECK_INT(history_v0_write(old, now_usec(CLOCK_REALTIME)), 0);

	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(old, &h, &err), 0);
	unsigned k = 0;
	CHECK_INT(history_query(h, &(HistoryFilter){0}, counted, &k), 0);	/* smrctl events: no notify:/ack: */
	CHECK_INT(k, V0_EVENTS);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	NotifyRecent r[NOTIFY_RECENT];
	CHECK_INT(notifier_recent(n, r), V0_SENDS + V0_ACKS);
	CHECK_STR(r[0].what, "bands");
	CHECK_STR(r[0].result, "sent (before a restart)");
	CHECK_STR(r[1].what, "ack all");
	CHECK_STR(r[1].device, "sdd");
	CHECK_STR(r[3].incident, V0_STALL_NEWEST);
	same_events(n, disks);
	CHECK(settle(e, n, 5000000));
	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 1);
	CHECK_INT(st.suppressed, 4);
	HistorySend s = last_send(h);
	CHECK_STR(s.kind, "storm-end");
	CHECK_STR(s.incident, V0_STORM_OPEN);
	CHECK(s.follow_up);
	CHECK_STR(s.result, "exit 0");
	n = notifier_free(n);
	h = history_close(h);

	/* the same events on a book with no past: every one is news but the
	 * end of a storm whose start it never sent */
	CHECK_INT(history_open(fresh, &h, &err), 0);
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	CHECK_INT(notifier_recent(n, r), 0);
	same_events(n, disks);
	CHECK(settle(e, n, 5000000));
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 4);
	CHECK_INT(st.suppressed, 0);
	n = notifier_free(n);
	h = history_close(h);
	free(err);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	/* sd-event reaps the hooks: SIGCHLD blocked, as main.c does */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-notifier");
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	cfg.notify_interval = 3600;
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	add(disks, "sdb", V0_SDB_ID, "WD-B", DISK_CLASS_DM_SMR);
	add(disks, "sdc", "", V0_SDC_ID, DISK_CLASS_DM_SMR);
	add(disks, "sdd", "", "", DISK_CLASS_CMR);

	char sub[300];
	snprintf(sub, sizeof sub, "%s/hooks", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	hooks(e, &cfg, disks, sub);
	restored(e, &cfg, disks, dir);

	registry_free(disks);
	sd_event_unref(e);
	config_done(&cfg);
	return test_done("daemon-notifier");
}
