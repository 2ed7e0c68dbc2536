/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job is spawned with posix_spawn (no shell: the command is a path, the
 * event is in the environment, where a model string cannot become a
 * command), in a session of its own so that the deadline kills what it
 * started too (sendmail, curl). sd-event reaps it (a child source: SIGCHLD
 * is blocked in every thread, main.c) and a timer of its own enforces
 * notify-timeout. Each send, its result and each acknowledgement are rows
 * of the history's notifier tables, which rebuild the incident book at start.
 */
#include "notifier.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "classify.h"
#include "incident.h"
#include "log.h"
#include "util.h"

#define KILL_GRACE_USEC 2000000
#define DEADLINE_ACCURACY_USEC 10000
#define ENV_MAX 24
#define RESTORE_ACKS_MAX 100000

typedef struct Job {
	struct Job *next;
	struct Notifier *n;
	char *env[ENV_MAX + 1];		/* owned strings, NULL-terminated */
	char what[32], device[32], incident[INCIDENT_ID_MAX];
	int64_t send_id;		/* its row in the history; 0 if not recorded */
	pid_t pid;			/* 0: queued */
	int out_fd;
	sd_event_source *out_src, *child_src, *deadline_src;
	uint64_t started;		/* CLOCK_MONOTONIC */
	bool termed, killed;
	size_t logged;			/* bytes of output logged */
	char line[256];
	size_t line_len;
} Job;

struct Notifier {
	sd_event *event;
	const Config *cfg;
	IncidentParams params;		/* from cfg: notifier_configure() */
	History *history;
	DiskRegistry *disks;
	IncidentBook *book;
	Job *queue, *running;
	unsigned n_queued, n_running;
	NotifyStats st;
	NotifyRecent recent[NOTIFY_RECENT];
	unsigned recent_n;		/* recent[]: oldest first */
	char host[256];
};

void notifier_configure(Notifier *n)
{
	if (!n)
		return;
	const char *s = n->cfg->notify_min_severity ? n->cfg->notify_min_severity : "warning";
	n->params = (IncidentParams){
		.min_priority = streq(s, "crit") ? LOG_CRIT : streq(s, "notice") ? LOG_NOTICE
			      : streq(s, "info") ? LOG_INFO : LOG_WARNING,
		.interval_usec = (uint64_t)(fmax(n->cfg->notify_interval, 1) * 1e6),
	};
}

static bool enabled(const Notifier *n)
{
	return n && n->cfg->notify_command && n->cfg->notify_command[0];
}

/* The recent list, oldest first: what the history restores comes in no
 * order, so each goes where its time puts it, and the oldest falls off. */
static void remember_at(Notifier *n, uint64_t when, const char *device, const char *what, const char *result,
			const char *incident)
{
	unsigned i = n->recent_n;
	if (i == NOTIFY_RECENT) {
		if (when < n->recent[0].time_usec)
			return;
		memmove(&n->recent[0], &n->recent[1], (NOTIFY_RECENT - 1) * sizeof n->recent[0]);
		i--;
	} else {
		n->recent_n++;
	}
	for (; i > 0 && n->recent[i - 1].time_usec > when; i--)
		n->recent[i] = n->recent[i - 1];
	NotifyRecent *r = &n->recent[i];
	*r = (NotifyRecent){.time_usec = when};
	snprintf(r->device, sizeof r->device, "%s", device);
	snprintf(r->what, sizeof r->what, "%s", what);
	snprintf(r->result, sizeof r->result, "%s", result);
	snprintf(r->incident, sizeof r->incident, "%s", incident ? incident : "");
}

static void remember(Notifier *n, const char *device, const char *what, const char *result, const char *incident)
{
	remember_at(n, now_usec(CLOCK_REALTIME), device, what, result, incident);
}

/* The newest recent line of a job: where its result goes. */
static NotifyRecent *recent_of(Notifier *n, const Job *j)
{
	for (unsigned i = n->recent_n; i-- > 0;) {
		NotifyRecent *r = &n->recent[i];
		if (streq(r->incident, j->incident) && streq(r->what, j->what) && streq(r->device, j->device))
			return r;
	}
	return NULL;
}

/* How a job ended: on the page's line and in its history row. */
static void job_result(Notifier *n, const Job *j, const char *result, int exit_status)
{
	NotifyRecent *rec = recent_of(n, j);
	if (rec)
		snprintf(rec->result, sizeof rec->result, "%s", result);
	int r = j->send_id ? history_send_done(n->history, j->send_id, result, exit_status, now_usec(CLOCK_REALTIME)) : 0;
	if (r < 0)
		log_debug_errno(r, "history: could not record how the notification of %s %s ended: %m", j->what, j->device);
}

static Job *job_free(Job *j)
{
	if (!j)
		return NULL;
	for (unsigned i = 0; j->env[i]; i++)
		free(j->env[i]);
	sd_event_source_disable_unref(j->out_src);
	sd_event_source_disable_unref(j->deadline_src);
	/* sd-event reaps the child after its callback, which frees the job */
	sd_event_source_unref(j->child_src);
	if (j->out_fd >= 0)
		close(j->out_fd);
	free(j);
	return NULL;
}

static int env_add(Job *j, unsigned *k, const char *key, const char *value)
{
	if (*k >= ENV_MAX)
		return -E2BIG;
	/* an environment string ends at a NUL: the value is otherwise as it came */
	if (asprintf(&j->env[*k], "%s=%s", key, value ? value : "") < 0) {
		j->env[*k] = NULL;
		return -ENOMEM;
	}
	(*k)++;
	return 0;
}

static void format_time(char out[40], uint64_t usec)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 40, "%" PRIu64, usec / 1000000);
}

static Job *job_new(Notifier *n, const Disk *d, const IncidentNote *note, const char *cls)
{
	Job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->out_fd = -1;
	const EventKindInfo *k = event_kind_info(note->kind);
	snprintf(j->what, sizeof j->what, "%s", k->name);
	snprintf(j->device, sizeof j->device, "%s", note->device);
	snprintf(j->incident, sizeof j->incident, "%s", note->incident);
	const SysfsDisk *sd = d ? &d->sys : &(SysfsDisk){0};
	char when[40], first[40], count[24], pool[512];
	format_time(when, note->time_usec);
	format_time(first, note->first_usec);
	snprintf(count, sizeof count, "%" PRIu64, note->count);
	snprintf(pool, sizeof pool, "%s", d ? d->view.pool : "");	/* "zfs:tank md:md0", as every view has it */
	unsigned i = 0;
	int r = 0;
	r |= env_add(j, &i, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	r |= env_add(j, &i, "LC_ALL", "C.UTF-8");
	r |= env_add(j, &i, "SMRD_EVENT", k->name);
	r |= env_add(j, &i, "SMRD_SEVERITY", k->severity);
	r |= env_add(j, &i, "SMRD_INCIDENT", note->incident);
	r |= env_add(j, &i, "SMRD_FOLLOW_UP", note->follow_up ? "1" : "0");
	r |= env_add(j, &i, "SMRD_COUNT", count);
	r |= env_add(j, &i, "SMRD_DEVICE", note->device);
	r |= env_add(j, &i, "SMRD_DISK_ID", note->identity);
	r |= env_add(j, &i, "SMRD_MODEL", sd->model);
	r |= env_add(j, &i, "SMRD_SERIAL", sd->serial);
	r |= env_add(j, &i, "SMRD_WWN", sd->wwn);
	r |= env_add(j, &i, "SMRD_POOL", pool);
	r |= env_add(j, &i, "SMRD_CLASS", cls);
	r |= env_add(j, &i, "SMRD_MESSAGE", note->message);
	r |= env_add(j, &i, "SMRD_TIME", when);
	r |= env_add(j, &i, "SMRD_FIRST_TIME", first);
	r |= env_add(j, &i, "SMRD_HOST", n->host);
	r |= env_add(j, &i, "SMRD_MAILTO", n->cfg->notify_mailto);
	r |= env_add(j, &i, "SMRD_WEBHOOK_URL", n->cfg->notify_webhook_url);
	if (r)
		return job_free(j);
	return j;
}

static void flush_line(Job *j)
{
	if (!j->line_len)
		return;
	j->line[j->line_len] = 0;
	/* what a hook prints is not ours to trust either: no control bytes in the log */
	for (size_t i = 0; i < j->line_len; i++)
		if ((unsigned char)j->line[i] < 0x20 || j->line[i] == 0x7f)
			j->line[i] = '?';
	log_info("notify-command (%s %s, pid %d): %s", j->what, j->device, (int)j->pid, j->line);
	j->line_len = 0;
}

/* One read of the hook's output: 1 while there may be more, 0 at its end
 * or when nothing is waiting. */
static int drain_once(Job *j)
{
	char buf[1024];
	ssize_t r = read(j->out_fd, buf, sizeof buf);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0) {
		flush_line(j);
		j->out_src = sd_event_source_disable_unref(j->out_src);
		close(j->out_fd);
		j->out_fd = -1;
		return 0;
	}
	for (ssize_t i = 0; i < r; i++) {
		if (j->logged >= NOTIFY_OUTPUT_MAX) {
			if (j->logged++ == NOTIFY_OUTPUT_MAX)
				log_info("notify-command (%s %s, pid %d): ... (output past %d bytes not logged)", j->what,
					 j->device, (int)j->pid, NOTIFY_OUTPUT_MAX);
			continue;
		}
		j->logged++;
		if (buf[i] == '\n' || j->line_len + 1 >= sizeof j->line)
			flush_line(j);
		if (buf[i] != '\n')
			j->line[j->line_len++] = buf[i];
	}
	return 1;
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s, (void)fd, (void)revents;
	drain_once(userdata);
	return 0;
}

static void start_next(Notifier *n);

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	Job *j = userdata;
	/* its session: what it started goes with it */
	if (!j->termed) {
		kill(-j->pid, SIGTERM);
		j->termed = true;
		sd_event_source_set_time(s, usec + KILL_GRACE_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	} else {
		kill(-j->pid, SIGKILL);
		j->killed = true;
	}
	return 0;
}

static void job_done(Notifier *n, Job *j, const siginfo_t *si)
{
	/* what it printed before it ended (a child it left behind may hold
	 * the pipe open: what is there now, then no more) */
	while (j->out_fd >= 0 && drain_once(j))
		;
	flush_line(j);
	double secs = (double)(now_usec(CLOCK_MONOTONIC) - j->started) / 1e6;
	char result[48];
	int code = si->si_code == CLD_EXITED ? si->si_status : -1;
	if (j->termed || j->killed) {
		n->st.timed_out++;
		snprintf(result, sizeof result, "killed after %.1f s", secs);
		log_warning("notify-command for %s %s (incident %s) ran past notify-timeout: killed after %.1f s", j->what,
			    j->device, j->incident, secs);
	} else if (code == 0) {
		n->st.ok++;
		snprintf(result, sizeof result, "exit 0");
		log_info("notify-command for %s %s (incident %s): done in %.1f s", j->what, j->device, j->incident, secs);
	} else {
		n->st.failed++;
		if (code > 0)
			snprintf(result, sizeof result, "exit %d", code);
		else
			snprintf(result, sizeof result, "signal %d", si->si_status);
		log_warning("notify-command for %s %s (incident %s) failed: %s", j->what, j->device, j->incident, result);
	}
	job_result(n, j, result, code);
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	(void)s;
	Job *j = userdata;
	Notifier *n = j->n;
	job_done(n, j, si);
	for (Job **p = &n->running; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	n->n_running--;
	job_free(j);
	start_next(n);
	return 0;
}

/* Without its sources nobody would reap or time it: it goes now. */
static void job_abandon(Job *j)
{
	kill(-j->pid, SIGKILL);
	(void)waitpid(j->pid, NULL, 0);
	j->pid = 0;
}

static int job_watch(Notifier *n, Job *j)
{
	j->started = now_usec(CLOCK_MONOTONIC);
	uint64_t deadline = j->started + (uint64_t)(fmax(n->cfg->notify_timeout, 0.1) * 1e6);
	int r = sd_event_add_child(n->event, &j->child_src, j->pid, WEXITED, on_child, j);
	if (r >= 0)
		r = sd_event_add_time(n->event, &j->deadline_src, CLOCK_MONOTONIC, deadline, DEADLINE_ACCURACY_USEC,
				      on_deadline, j);
	if (r < 0) {
		j->child_src = sd_event_source_disable_unref(j->child_src);
		job_abandon(j);
		return r;
	}
	if (sd_event_add_io(n->event, &j->out_src, j->out_fd, EPOLLIN, on_output, j) < 0)
		j->out_src = NULL;	/* unlogged, and the pipe closes with the job */
	return 0;
}

static int job_spawn(Notifier *n, Job *j)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	/* the daemon blocks the signals sd-event handles; a hook must not inherit that */
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
	char *argv[] = {n->cfg->notify_command, NULL};
	int r = posix_spawn(&j->pid, n->cfg->notify_command, &fa, &attr, argv, j->env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (r) {
		close(pipefd[0]);
		j->pid = 0;
		return -r;
	}
	j->out_fd = pipefd[0];
	fcntl(j->out_fd, F_SETFL, O_NONBLOCK);
	return job_watch(n, j);
}

static void start_next(Notifier *n)
{
	while (n->queue && n->n_running < NOTIFY_RUNNING_MAX) {
		Job *j = n->queue;
		n->queue = j->next;
		n->n_queued--;
		int r = enabled(n) ? job_spawn(n, j) : -ENOENT;
		if (r < 0) {
			n->st.failed++;
			log_warning("notify-command %s for %s %s could not run: %s", n->cfg->notify_command, j->what, j->device,
				    strerror(-r));
			char result[48];
			snprintf(result, sizeof result, "not run: %s", strerror(-r));
			job_result(n, j, result, -1);
			job_free(j);
			continue;
		}
		j->next = n->running;
		n->running = j;
		n->n_running++;
	}
}

/* What was sent, in the history: a restart repeats nothing. */
static int64_t record_send(Notifier *n, const IncidentNote *note)
{
	HistorySend s = {.time_usec = now_usec(CLOCK_REALTIME), .event_usec = note->time_usec,
			 .follow_up = note->follow_up, .count = (int64_t)note->count, .exit_status = -1};
	snprintf(s.device, sizeof s.device, "%s", note->device);
	snprintf(s.identity, sizeof s.identity, "%s", note->identity);
	snprintf(s.kind, sizeof s.kind, "%s", event_kind_info(note->kind)->name);
	snprintf(s.incident, sizeof s.incident, "%s", note->incident);
	snprintf(s.command, sizeof s.command, "%s", n->cfg->notify_command);
	int r = history_add_send(n->history, &s);
	if (r < 0 && r != -EIO)	/* -EIO: kept until the database takes it */
		log_warning_errno(r, "history: could not record a notification of %s %s, ignoring: %m", s.kind, s.device);
	return s.id;
}

static void send_note(Notifier *n, const Disk *d, const IncidentNote *note, const char *cls)
{
	const char *name = event_kind_info(note->kind)->name;
	int64_t id = record_send(n, note);
	n->st.sent++;
	Job *j = n->n_queued < NOTIFY_QUEUE_MAX ? job_new(n, d, note, cls) : NULL;
	const char *failed = n->n_queued >= NOTIFY_QUEUE_MAX ? "dropped: queue full" : !j ? "not run: out of memory" : NULL;
	if (failed) {
		if (n->n_queued >= NOTIFY_QUEUE_MAX) {
			n->st.dropped++;
			log_warning("notify: %u notifications waiting already; dropped %s for %s (incident %s)", n->n_queued,
				    name, note->device, note->incident);
		} else {
			n->st.failed++;
		}
		remember(n, note->device, name, failed, note->incident);
		if (id)
			(void)history_send_done(n->history, id, failed, -1, now_usec(CLOCK_REALTIME));
		return;
	}
	j->n = n;
	j->send_id = id;
	remember(n, note->device, name, "queued", note->incident);
	Job **tail = &n->queue;
	while (*tail)
		tail = &(*tail)->next;
	*tail = j;
	n->n_queued++;
	start_next(n);
}

void notifier_event(Notifier *n, const Disk *d, DetectEventKind kind, const HistoryEvent *h)
{
	if (!enabled(n))
		return;
	/* the views catch up at the end of the sample: the verdict itself
	 * says what the class now is */
	const char *cls = kind == EVENT_BEHAVIOUR ? disk_class_to_string(DISK_CLASS_DM_SMR)
						  : disk_class_to_string(disk_class(d));
	IncidentEvent e = {.kind = kind, .device = d->name, .identity = h->serial[0] ? h->serial : d->name,
			   .disk_class = cls, .time_usec = h->logged_usec, .message = h->message};
	IncidentNote note;
	const char *why;
	if (!incident_judge(n->book, &n->params, &e, &note, &why)) {
		if (why && !streq(why, "not a notification kind") && !streq(why, "its start was not sent"))
			n->st.suppressed++;
		return;
	}
	send_note(n, d, &note, cls);
}

static void on_due(const IncidentNote *note, void *userdata)
{
	Notifier *n = userdata;
	const Disk *d = registry_get(n->disks, note->device);
	send_note(n, d, note, d ? disk_class_to_string(disk_class(d)) : "");
}

void notifier_tick(Notifier *n, uint64_t now_real_usec)
{
	if (enabled(n))
		incident_due(n->book, &n->params, now_real_usec, on_due, n);
}

void notifier_forget(Notifier *n, const Disk *d)
{
	if (n)
		incident_forget(n->book, d->name, disk_identity(d));
}

int notifier_ack(Notifier *n, const Disk *d, int kind)
{
	const char *id = disk_identity(d);
	const char *cls = disk_class_to_string(disk_class(d));
	int r = incident_ack(n->book, d->name, id[0] ? id : d->name, kind, cls);
	if (r < 0)
		return r;
	const char *what = kind < 0 ? "all" : event_kind_info(kind)->name;
	HistoryAck a = {.time_usec = now_usec(CLOCK_REALTIME)};
	snprintf(a.device, sizeof a.device, "%s", d->name);
	snprintf(a.identity, sizeof a.identity, "%s", id[0] ? id : d->name);
	snprintf(a.kind, sizeof a.kind, "%s", what);
	snprintf(a.disk_class, sizeof a.disk_class, "%s", cls);
	r = history_add_ack(n->history, &a);
	if (r < 0 && r != -EIO)
		log_warning_errno(r, "history: could not record the acknowledgement of %s, ignoring: %m", d->name);
	char line[32];
	snprintf(line, sizeof line, "ack %s", what);
	remember(n, d->name, line, "acknowledged", NULL);
	log_notice("%s: notifications of %s acknowledged while it stays %s", d->name,
		   kind < 0 ? "every kind" : what, cls);
	return 0;
}

/* ------------------------------------------------------------- restore */

static int restore_ack(const HistoryAck *a, void *userdata)
{
	Notifier *n = userdata;
	int kind = streq(a->kind, "all") ? -1 : detect_event_kind_from_string(a->kind);
	if (kind < 0 && !streq(a->kind, "all"))
		return 0;
	char line[sizeof a->kind + 4];
	snprintf(line, sizeof line, "ack %s", a->kind);
	remember_at(n, a->time_usec, a->device, line, "acknowledged", NULL);
	incident_restore_ack(n->book, a->device, a->identity, kind, a->disk_class);
	return 0;
}

static int restore_sent(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	int kind = detect_event_kind_from_string(s->kind);
	/* a storm's start and end: OPEN_STORMS says which is still open */
	if (kind >= 0 && kind != EVENT_STORM_START && kind != EVENT_STORM_END)
		incident_restore_sent(n->book, s->device, s->identity, kind, s->incident, s->follow_up, s->time_usec);
	return 0;
}

static int restore_storm(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	incident_restore_sent(n->book, s->device, s->identity, EVENT_STORM_START, s->incident, false, s->time_usec);
	return 0;
}

static int restore_recent(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	remember_at(n, s->time_usec, s->device, s->kind, s->result[0] ? s->result : "sent (before a restart)",
		    s->incident);
	return 0;
}

/* The book as the last run left it: acks in time order (an ack of all
 * after one of stall is both), each disk's newest send of each kind, the
 * storms whose end was not sent; and the page's recent lines. */
static void restore(Notifier *n)
{
	if (!n->history)
		return;
	int r = history_query_acks(n->history, RESTORE_ACKS_MAX, restore_ack, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_LAST_PER_KIND, 0, restore_sent, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_OPEN_STORMS, 0, restore_storm, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_NEWEST, NOTIFY_RECENT, restore_recent, n);
	if (r < 0 && r != -EROFS)
		log_warning_errno(r, "notify: could not read what was sent before the restart, ignoring: %m");
}

int notifier_new(sd_event *e, const Config *cfg, History *history, DiskRegistry *disks, Notifier **ret)
{
	Notifier *n = calloc(1, sizeof *n);
	if (!n)
		return -ENOMEM;
	*n = (Notifier){.event = e, .cfg = cfg, .history = history, .disks = disks};
	int r = incident_book_new(&n->book);
	if (r < 0) {
		notifier_free(n);
		return r;
	}
	notifier_configure(n);
	if (gethostname(n->host, sizeof n->host - 1) < 0)
		snprintf(n->host, sizeof n->host, "localhost");
	restore(n);
	*ret = n;
	return 0;
}

/* The loop is over: what still runs is told to stop, then killed, and
 * reaped here. */
static void stop_running(Notifier *n)
{
	for (Job *j = n->running; j; j = j->next) {
		j->child_src = sd_event_source_disable_unref(j->child_src);
		kill(-j->pid, SIGTERM);
	}
	uint64_t until = now_usec(CLOCK_MONOTONIC) + KILL_GRACE_USEC;
	while (n->running) {
		Job *j = n->running;
		bool late = now_usec(CLOCK_MONOTONIC) >= until;
		if (late)
			kill(-j->pid, SIGKILL);
		pid_t r = waitpid(j->pid, NULL, late ? 0 : WNOHANG);
		if (r == 0) {
			usleep(20000);
			continue;
		}
		n->running = j->next;
		job_free(j);
	}
}

Notifier *notifier_free(Notifier *n)
{
	if (!n)
		return NULL;
	stop_running(n);
	while (n->queue) {
		Job *j = n->queue;
		n->queue = j->next;
		job_free(j);
	}
	incident_book_free(n->book);
	free(n);
	return NULL;
}

void notifier_stats(const Notifier *n, NotifyStats *ret)
{
	*ret = n ? n->st : (NotifyStats){0};
	if (n)
		ret->running = n->n_running, ret->queued = n->n_queued;
}

unsigned notifier_recent(const Notifier *n, NotifyRecent ret[NOTIFY_RECENT])
{
	unsigned k = 0;
	for (; n && k < n->recent_n; k++)
		ret[k] = n->recent[n->recent_n - 1 - k];
	return k;
}
