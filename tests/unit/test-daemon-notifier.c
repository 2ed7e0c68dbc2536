/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The notifier on a real event loop: hooks reaped through sd-event's child
 * source (no zombie left), a hook past notify-timeout killed by its timer,
 * and each result in the history's notifier tables; then an old (schema 0)
 * database migrated at open, and the incident book restored from it
 * deciding what the old rows say, against a fresh book that sends all.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "history-v0.h"
#include "hookenv.h"
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
	notifier_event(n, d, &(Recorded){.kind = kind, .event = &h});
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

static char *write_hook(const char *dir, const char *body)
{
	char *hook = NULL;
	if (asprintf(&hook, "%s/hook.sh", dir) < 0)
		return NULL;
	FILE *f = fopen(hook, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\n%s", body);
		fclose(f);
	}
	chmod(hook, 0755);
	return hook;
}

static pid_t read_pid(const char *dir, const char *name)
{
	char path[400];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	int pid = 0;
	if (f && fscanf(f, "%d", &pid) != 1)
		pid = 0;
	if (f)
		fclose(f);
	return pid;
}

/* Whether pid is alive: a zombie is not (this machine's init may never reap
 * what was reparented to it). Looked at for a while: the kernel takes a
 * moment to end what SIGKILL hit. */
static bool living(pid_t pid)
{
	for (int i = 0; pid > 0 && i < 100; i++) {
		char path[64], buf[256] = "";
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return false;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		if (!p || p[2] == 'Z')
			return false;
		usleep(20000);
	}
	return pid > 0;
}

/* Runs the loop until k hooks ended well. */
static bool ended_ok(sd_event *e, Notifier *n, uint64_t k)
{
	NotifyStats st;
	for (int i = 0; i < 100 && (notifier_stats(n, &st), st.ok < k); i++)
		sd_event_run(e, 100000);
	return st.ok == k;
}

static unsigned count_lines(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned k = 0;
	while (f && fgets(line, sizeof line, f))
		k += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return k;
}

/* The hook's output in the log, by lines too; and no fd of ours past stderr. */
static void output_and_fds(sd_event *e, Notifier *n, Disk *sdb, const char *dir)
{
	char logf[400], fds[400];
	snprintf(logf, sizeof logf, "%s/log", dir);
	snprintf(fds, sizeof fds, "%s/fds", dir);
	int leak = open("/dev/null", O_RDONLY);	/* as a caller's fd would come: no O_CLOEXEC */
	CHECK(leak >= 0 && dup2(leak, 250) == 250);
	fflush(stderr);
	int saved = dup(STDERR_FILENO), lf = open(logf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	dup2(lf, STDERR_FILENO);
	log_set_max_level(LOG_INFO);
	event(n, sdb, EVENT_STORM_START);
	bool ended = ended_ok(e, n, 3);	/* the stuck one still runs: no settling */
	for (int i = 0; i < 5; i++)	/* its last output, if any is late */
		sd_event_run(e, 20000);
	log_set_max_level(LOG_EMERG);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved), close(lf), close(leak), close(250);
	CHECK(ended);
	/* 4096 bytes of "y\n": a bounded number of lines, then one that says so */
	CHECK_INT(count_lines(logf, "notify-command (storm-start"), NOTIFY_OUTPUT_LINES_MAX + 1);
	CHECK_INT(count_lines(fds, "fd250=no"), 1);
}

/* A hook's process group is the hook: what it left behind runs to its
 * deadline, counts against the limit meanwhile, and goes with smrd. */
static void sessions(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	char body[1200];
	snprintf(body, sizeof body,
		 "case $SMRD_EVENT in\n"
		 "stall) sleep 30 </dev/null >/dev/null 2>&1 & echo $! >%s/orphan.pid ;;\n"
		 "timeout-risk) trap '' TERM; sleep 30 </dev/null >/dev/null 2>&1 & echo $! >%s/stuck.pid ;;\n"
		 "storm-start) echo \"fd250=$([ -e /proc/$$/fd/250 ] && echo yes || echo no)\" >>%s/fds;"
		 " yes | head -c 4096 ;;\n"
		 "esac\nexit 0\n", dir, dir, dir);
	free(cfg->notify_command);
	cfg->notify_command = write_hook(dir, body);
	cfg->notify_timeout = 0.5;
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	Disk *sdb = registry_get(disks, "sdb");

	event(n, sdb, EVENT_STALL);
	CHECK(settle(e, n, 8000000));
	pid_t orphan = read_pid(dir, "orphan.pid");
	CHECK(orphan > 0);
	CHECK(!living(orphan));		/* killed with its group at notify-timeout */
	CHECK_STR(last_send(h).result, "exit 0");

	cfg->notify_timeout = 30;
	event(n, sdb, EVENT_TIMEOUT_RISK);
	CHECK(ended_ok(e, n, 2));	/* the hook is done ... */
	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.running, 1);	/* ... what it left is not */
	pid_t stuck = read_pid(dir, "stuck.pid");
	CHECK(stuck > 0);
	output_and_fds(e, n, sdb, dir);
	n = notifier_free(n);		/* SIGTERM is ignored: SIGKILL after a grace */
	CHECK(!living(stuck));
	if (living(orphan) || living(stuck))
		kill(orphan, SIGKILL), kill(stuck, SIGKILL);
	h = history_close(h);
	free(err);
}

/* A notification counts as sent when its hook exited 0: one that failed is
 * sent by the next event of its kind, retried an interval on, and after a
 * restart; one sent is not sent again after a restart. */
static void retries(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	char body[1000], runs[400], up[400];
	snprintf(runs, sizeof runs, "%s/runs", dir);
	snprintf(up, sizeof up, "%s/mta-up", dir);
	snprintf(body, sizeof body, "echo \"$SMRD_EVENT\" >>%s\n[ -e %s ] || exit 75\n", runs, up);
	free(cfg->notify_command);
	cfg->notify_command = write_hook(dir, body);
	cfg->notify_timeout = 5;
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	Disk *sdc = registry_get(disks, "sdc");
	event(n, sdc, EVENT_BEHAVIOUR);
	CHECK(settle(e, n, 5000000));
	CHECK_STR(last_send(h).result, "exit 75");
	event(n, sdc, EVENT_BEHAVIOUR);		/* the verdict again: not "already sent" */
	CHECK(settle(e, n, 5000000));
	CHECK_INT(count_lines(runs, "behaviour"), 2);
	notifier_tick(n, now_usec(CLOCK_REALTIME) + 3601 * UINT64_C(1000000));	/* an interval on */
	CHECK(settle(e, n, 5000000));
	CHECK_INT(count_lines(runs, "behaviour"), 3);
	n = notifier_free(n);

	/* the MTA is back; a restart sends it at the first tick, then never again */
	FILE *f = fopen(up, "w");
	if (f)
		fclose(f);
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	notifier_tick(n, now_usec(CLOCK_REALTIME));
	CHECK(settle(e, n, 5000000));
	CHECK_INT(count_lines(runs, "behaviour"), 4);
	CHECK_STR(last_send(h).result, "exit 0");
	n = notifier_free(n);
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	notifier_tick(n, now_usec(CLOCK_REALTIME));
	event(n, sdc, EVENT_BEHAVIOUR);
	CHECK(settle(e, n, 5000000));
	CHECK_INT(count_lines(runs, "behaviour"), 4);
	n = notifier_free(n);
	h = history_close(h);
	free(err);
}

static int newest_ack(const HistoryAck *a, void *userdata)
{
	*(HistoryAck *)userdata = *a;
	return 0;
}

/* Two disks behind one USB bridge: one WWN. One's ack and forget are not the other's. */
static void collide(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	free(cfg->notify_command);
	cfg->notify_command = strdup("/bin/true");
	Disk *a = add(disks, "sdx", "0x5000000000000001", "0123456789ABCDEF", DISK_CLASS_CMR);
	Disk *b = add(disks, "sdy", "0x5000000000000001", "0123456789ABCDEF", DISK_CLASS_CMR);
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	CHECK_INT(notifier_ack(n, b, -1, 0), 0);
	HistoryAck ack = {0};
	CHECK_INT(history_query_acks(h, 1, newest_ack, &ack), 0);
	CHECK_STR(ack.identity, "0x5000000000000001@sdy");
	event(n, a, EVENT_STALL);
	CHECK(settle(e, n, 5000000));
	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 1);			/* sdy's ack is not sdx's */
	CHECK_INT(st.suppressed, 0);
	event(n, a, EVENT_BEHAVIOUR);
	notifier_forget(n, b);			/* sdy's past only */
	event(n, a, EVENT_BEHAVIOUR);
	CHECK(settle(e, n, 5000000));
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 2);
	CHECK_INT(st.suppressed, 1);		/* already sent, for sdx */
	event(n, b, EVENT_STALL);		/* sdy's ack went with its forget */
	CHECK(settle(e, n, 5000000));
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 3);
	n = notifier_free(n);
	h = history_close(h);
	registry_remove(disks, "sdx");
	registry_remove(disks, "sdy");
	free(err);
}

/* smrctl notify-test: the hook runs at once, whatever was sent, with
 * SMRD_EVENT=test; its exit and output are kept; nothing is recorded as an
 * incident; with no notify-command it is refused. */
static void test_notification(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	char hook[400];
	snprintf(hook, sizeof hook, "%s/test-hook.sh", dir);
	FILE *f = fopen(hook, "w");
	fprintf(f, "#!/bin/sh\necho \"event $SMRD_EVENT severity $SMRD_SEVERITY\"\necho 'sendmail: no MTA' >&2\nexit 3\n");
	fclose(f);
	chmod(hook, 0755);
	free(cfg->notify_command);
	cfg->notify_command = NULL;
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	unsigned id = 0;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	CHECK_INT(notifier_test_start(n, &id), -ENOENT);
	cfg->notify_command = strdup(hook);
	CHECK_INT(notifier_test_start(n, &id), 0);
	CHECK(notifier_test(n)->running);
	CHECK_INT(notifier_test_start(n, &id), -EBUSY);
	CHECK(settle(e, n, 5000000));
	const NotifyTest *t = notifier_test(n);
	CHECK_INT(t->id, id);
	CHECK(!t->running);
	CHECK_STR(t->result, "exit 3");
	CHECK_INT(t->exit_status, 3);
	CHECK_STR(t->output, "event test severity info\nsendmail: no MTA\n");
	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 0);
	CHECK_STR(last_send(h).kind, "");	/* no incident recorded */
	/* not rate-limited: again, at once */
	CHECK_INT(notifier_test_start(n, &id), 0);
	CHECK(settle(e, n, 5000000));
	CHECK_INT(notifier_test(n)->id, 2);
	n = notifier_free(n);
	h = history_close(h);
	free(err);
}

static const char *env_get(char *env[], const char *key)
{
	size_t len = strlen(key);
	for (unsigned i = 0; env[i]; i++)
		if (!strncmp(env[i], key, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

/* What a hook is told to do first, and the links to this smrd's disk page
 * and runbook: from notify-url, else from listen and the host's name. */
static void hook_links(Config *cfg, DiskRegistry *disks)
{
	char *env[HOOKENV_MAX + 1];
	IncidentNote note = {.kind = EVENT_STORM_START, .count = 1};
	snprintf(note.device, sizeof note.device, "sdb");
	free(cfg->listen);
	cfg->listen = strdup("0.0.0.0:9184");
	CHECK_INT(hookenv_build(env, registry_get(disks, "sdb"), &note, "dm-smr", "nas", NULL, cfg), 0);
	CHECK_STR(env_get(env, "SMRD_DISK_URL"), "http://nas:9184/disk/sdb");
	CHECK_STR(env_get(env, "SMRD_RUNBOOK_URL"), "http://nas:9184/docs/alerts#smrdestagestorm");
	CHECK(strstr(env_get(env, "SMRD_ADVICE"), "Do not start a resilver or rebuild onto it"));
	hookenv_free(env);
	free(cfg->notify_url);
	cfg->notify_url = strdup("https://nas.example/smrd/");
	note.kind = EVENT_BEHAVIOUR;
	CHECK_INT(hookenv_build(env, NULL, &note, "dm-smr", "nas", NULL, cfg), 0);
	CHECK_STR(env_get(env, "SMRD_DISK_URL"), "https://nas.example/smrd/disk/sdb");
	CHECK_STR(env_get(env, "SMRD_RUNBOOK_URL"), "https://nas.example/smrd/docs/alerts#smrdiskundeclaredsmr");
	hookenv_free(env);
	free(cfg->notify_url);
	cfg->notify_url = strdup("");

	/* a model and a message (a mount point's) with a newline, an escape
	 * sequence and a <N> prefix: each value one line, no control byte */
	Disk *sdb = registry_get(disks, "sdb");
	char model[sizeof sdb->sys.model];
	snprintf(model, sizeof model, "%s", sdb->sys.model);
	snprintf(sdb->sys.model, sizeof sdb->sys.model, "WD\e]0;x\a\nSMRD_CLASS=cmr");
	snprintf(note.message, sizeof note.message, "btrfs file system /mnt/j\n<2>smrd: forged\e[31m");
	CHECK_INT(hookenv_build(env, sdb, &note, "dm-smr", "nas", NULL, cfg), 0);
	CHECK_STR(env_get(env, "SMRD_MODEL"), "WD\\x1b]0;x\\x07\\x0aSMRD_CLASS=cmr");
	CHECK_STR(env_get(env, "SMRD_MESSAGE"), "btrfs file system /mnt/j\\x0a<2>smrd: forged\\x1b[31m");
	CHECK_STR(env_get(env, "SMRD_CLASS"), "dm-smr");
	for (unsigned i = 0; env[i]; i++)
		for (const char *c = env[i]; *c; c++)
			CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
	hookenv_free(env);
	snprintf(sdb->sys.model, sizeof sdb->sys.model, "%s", model);

	/* in a rebuild onto it: the advice is about that rebuild, never not to
	 * start one; the thread and stage said; links where the pages are served */
	RebuildState *rs = disk_rebuild_mut(sdb);
	CHECK(rs != NULL);
	if (rs) {
		rebuild_state_init(rs);
		rs->phase = REBUILD_PHASE_RUNNING, rs->kind = REBUILD_KIND_BTRFS_REPLACE, rs->eta = 600;
		snprintf(rs->pool, sizeof rs->pool, "/srv");
	}
	note = (IncidentNote){.kind = EVENT_STORM_START, .count = 1, .stage = INCIDENT_STAGE_UPDATE, .follow_up = true};
	snprintf(note.device, sizeof note.device, "sdb");
	snprintf(note.thread_kind, sizeof note.thread_kind, "rebuild");
	snprintf(note.summary, sizeof note.summary, "rebuild onto sdb: 1 storm");
	CHECK_INT(hookenv_build(env, sdb, &note, "dm-smr", "nas", "http://127.0.0.1:9999", cfg), 0);
	CHECK(strstr(env_get(env, "SMRD_ADVICE"), "btrfs-replace of /srv onto sdb is under way: about 10 min left"));
	CHECK(!strstr(env_get(env, "SMRD_ADVICE"), "not start"));
	CHECK_STR(env_get(env, "SMRD_STAGE"), "update");
	CHECK_STR(env_get(env, "SMRD_INCIDENT_KIND"), "rebuild");
	CHECK_STR(env_get(env, "SMRD_SUMMARY"), "rebuild onto sdb: 1 storm");
	CHECK_STR(env_get(env, "SMRD_DISK_URL"), "http://127.0.0.1:9999/disk/sdb");
	CHECK_STR(env_get(env, "SMRD_RUNBOOK_URL"), "http://127.0.0.1:9999/docs/alerts#smrrebuildslow");
	hookenv_free(env);
	if (rs)
		rebuild_state_init(rs);
}

/* An ack expires, an unack withdraws it, and both hold across a restart. */
static void ack_expiry(sd_event *e, Config *cfg, DiskRegistry *disks, const char *dir)
{
	free(cfg->notify_command);
	cfg->notify_command = strdup("/bin/true");
	Disk *a = add(disks, "sdv", "0x5000000000000009", "EXP1", DISK_CLASS_CMR);
	History *h = NULL;
	char *err = NULL;
	CHECK_INT(history_open(dir, &h, &err), 0);
	Notifier *n = NULL;
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);
	uint64_t now = now_usec(CLOCK_REALTIME);
	CHECK_INT(notifier_ack(n, a, EVENT_STORM_START, now + 3600000000ULL), 0);
	CHECK_INT(notifier_ack(n, a, EVENT_STALL, now - 1), 0);	/* expired already */
	CHECK_INT(notifier_acks(n, NULL, NULL), 1);
	n = notifier_free(n);
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);	/* a restart */
	CHECK_INT(notifier_acks(n, NULL, NULL), 1);
	event(n, a, EVENT_STORM_START);
	event(n, a, EVENT_STORM_END);
	event(n, a, EVENT_STALL);
	CHECK(settle(e, n, 5000000));
	NotifyStats st;
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 1);			/* the stall: its ack expired */
	CHECK_INT(notifier_unack(n, a, -1), 1);
	CHECK_INT(notifier_unack(n, a, -1), 0);
	n = notifier_free(n);
	CHECK_INT(notifier_new(e, cfg, h, disks, &n), 0);	/* the withdrawal holds too */
	CHECK_INT(notifier_acks(n, NULL, NULL), 0);
	event(n, a, EVENT_STORM_START);
	CHECK(settle(e, n, 5000000));
	notifier_stats(n, &st);
	CHECK_INT(st.sent, 1);
	n = notifier_free(n);
	h = history_close(h);
	registry_remove(disks, "sdv");
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
	cfg.notify_coalesce = 0;	/* sent at once: the coalescing is test-incident's */
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
	snprintf(sub, sizeof sub, "%s/sessions", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	sessions(e, &cfg, disks, sub);
	snprintf(sub, sizeof sub, "%s/retries", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	retries(e, &cfg, disks, sub);
	snprintf(sub, sizeof sub, "%s/collide", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	collide(e, &cfg, disks, sub);
	snprintf(sub, sizeof sub, "%s/test", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	test_notification(e, &cfg, disks, sub);
	hook_links(&cfg, disks);
	snprintf(sub, sizeof sub, "%s/expiry", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	ack_expiry(e, &cfg, disks, sub);
	restored(e, &cfg, disks, dir);

	registry_free(disks);
	sd_event_unref(e);
	config_done(&cfg);
	return test_done("daemon-notifier");
}
