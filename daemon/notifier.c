/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job is spawned with posix_spawn (no shell: the command is a path, the
 * event is in the environment, where a model string cannot become a
 * command), in a session of its own, no fd of smrd's past stderr. sd-event
 * reaps it (a child source: SIGCHLD is blocked in every thread, main.c) and
 * a timer of its own enforces notify-timeout on its whole process group: what
 * it started (sendmail, curl, `cmd &`) counts as the hook, running and
 * killed with it, until the group is gone (procgroup.h). A process that
 * leaves the group (setsid, setpgid) is out of reach: a cgroup would hold it,
 * but smrd must also run where it cannot make one. Each send, its result and
 * each acknowledgement are rows of the history's notifier tables; only a
 * hook that exited 0 counts as sent, the rest is due again (incident.h).
 */
#include "notifier.h"
#include "notifier-private.h"

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
#include "hookenv.h"
#include "incident.h"
#include "log.h"
#include "procgroup.h"
#include "util.h"

#define KILL_GRACE_USEC 2000000
#define LINGER_POLL_USEC 100000		/* how often a reaped hook's group is looked for */
#define DEADLINE_ACCURACY_USEC 10000

void notifier_configure(Notifier *n)
{
	if (!n)
		return;
	const char *s = n->cfg->notify_min_severity ? n->cfg->notify_min_severity : "warning";
	n->params = (IncidentParams){
		.min_priority = streq(s, "crit") ? LOG_CRIT : streq(s, "notice") ? LOG_NOTICE
			      : streq(s, "info") ? LOG_INFO : LOG_WARNING,
		.interval_usec = (uint64_t)(fmax(n->cfg->notify_interval, 1) * 1e6),
		.coalesce_usec = (uint64_t)(fmax(n->cfg->notify_coalesce, 0) * 1e6),
	};
}

static bool enabled(const Notifier *n)
{
	return n && n->cfg->notify_command && n->cfg->notify_command[0];
}

/* The recent list, oldest first: what the history restores comes in no
 * order, so each goes where its time puts it, and the oldest falls off. */
void notifier_remember_at(Notifier *n, uint64_t when, const char *device, const char *what, const char *result,
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

void notifier_remember(Notifier *n, const char *device, const char *what, const char *result, const char *incident)
{
	notifier_remember_at(n, now_usec(CLOCK_REALTIME), device, what, result, incident);
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

Job *notifier_job_free(Job *j)
{
	if (!j)
		return NULL;
	hookenv_free(j->env);
	sd_event_source_disable_unref(j->out_src);
	sd_event_source_disable_unref(j->deadline_src);
	sd_event_source_disable_unref(j->linger_src);
	/* sd-event reaps the child after its callback, which frees the job */
	sd_event_source_unref(j->child_src);
	if (j->out_fd >= 0)
		close(j->out_fd);
	free(j);
	return NULL;
}

static Job *job_new(Notifier *n, const Disk *d, const IncidentNote *note, const char *cls)
{
	Job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->out_fd = -1;
	snprintf(j->what, sizeof j->what, "%s", event_kind_info(note->kind)->name);
	snprintf(j->device, sizeof j->device, "%s", note->device);
	snprintf(j->incident, sizeof j->incident, "%s", note->incident);
	j->note = *note;
	if (hookenv_build(j->env, d, note, cls, n->host, n->url, n->cfg) < 0)
		return notifier_job_free(j);
	return j;
}

static void flush_line(Job *j)
{
	if (!j->line_len)
		return;
	j->line[j->line_len] = 0;
	/* short lines ("y") would make NOTIFY_OUTPUT_MAX bytes thousands of lines */
	if (j->lines >= NOTIFY_OUTPUT_LINES_MAX) {
		if (j->lines++ == NOTIFY_OUTPUT_LINES_MAX)
			log_info("notify-command (%s %s, pid %d): ... (lines past %d not logged)", j->what, j->device,
				 (int)j->pid, NOTIFY_OUTPUT_LINES_MAX);
		j->line_len = 0;
		return;
	}
	j->lines++;
	/* what a hook prints is not ours to trust either: no control bytes in the log */
	for (size_t i = 0; i < j->line_len; i++)
		if ((unsigned char)j->line[i] < 0x20 || j->line[i] == 0x7f)
			j->line[i] = '?';
	log_info("notify-command (%s %s, pid %d): %s", j->what, j->device, (int)j->pid, j->line);
	if (j->test)
		notifier_test_capture(j->n, j->line);
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

/* Whether anything of the hook's process group is left: its leader may be
 * gone, what it started (sendmail, curl, or `sleep &`) is still its. */
static bool group_alive(const Job *j)
{
	return j->pid > 0 && procgroup_alive(j->pid);
}

static void group_kill(Job *j, int sig)
{
	if (j->pid > 0)
		(void)procgroup_kill(j->pid, sig);
}

/* A note that did not reach anyone is judged not sent: it is due again. */
static void job_undelivered(Notifier *n, const Job *j)
{
	incident_unsent(n->book, &j->note, now_usec(CLOCK_REALTIME));
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	Job *j = userdata;
	if (j->reaped && !group_alive(j))
		return 0;	/* all gone: on_linger lets it go */
	/* its process group: what it started goes with it, also once it ended */
	if (!j->termed) {
		group_kill(j, SIGTERM);
		j->termed = true;
		sd_event_source_set_time(s, usec + KILL_GRACE_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	} else {
		group_kill(j, SIGKILL);
		j->killed = true;
		j->killed_at = usec;
	}
	if (j->reaped)
		log_warning("notify-command for %s %s (incident %s) left processes running past notify-timeout: %s",
			    j->what, j->device, j->incident, j->killed ? "killed" : "terminated");
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
	if (j->test) {	/* smrctl notify-test: no incident, nothing due again */
		notifier_test_done(n, j, si, secs);
		return;
	}
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
	if (!streq(result, "exit 0"))
		job_undelivered(n, j);
	job_result(n, j, result, code);
}

/* The job is over, its process group with it: it leaves the running. */
static void job_finish(Notifier *n, Job *j)
{
	reaper_release(n->reaper, j->pid);
	for (Job **p = &n->running; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	n->n_running--;
	notifier_job_free(j);
	start_next(n);
}

/* Until its process group is gone (or notify-timeout killed it and a
 * grace passed, for one stuck in the kernel) a hook still counts as
 * running: what it left behind is held to its deadline and the limit. */
static int on_linger(sd_event_source *s, uint64_t usec, void *userdata)
{
	Job *j = userdata;
	bool given_up = j->killed && usec >= j->killed_at + KILL_GRACE_USEC;
	if (group_alive(j) && !given_up) {
		sd_event_source_set_time(s, usec + LINGER_POLL_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	if (given_up && group_alive(j))
		log_warning("notify-command for %s %s: process group %d outlived SIGKILL, no longer counted", j->what,
			    j->device, (int)j->pid);
	job_finish(j->n, j);
	return 0;
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	(void)s;
	Job *j = userdata;
	Notifier *n = j->n;
	job_done(n, j, si);
	j->reaped = true;
	/* sd-event reaps the leader after this callback */
	j->child_src = sd_event_source_unref(j->child_src);
	/* what it left behind loses its output pipe: a chatty child dies of SIGPIPE */
	j->out_src = sd_event_source_disable_unref(j->out_src);
	if (j->out_fd >= 0)
		close(j->out_fd);
	j->out_fd = -1;
	/* the leader, a zombie until then, is in its group: look after a while */
	if (sd_event_add_time_relative(n->event, &j->linger_src, CLOCK_MONOTONIC, LINGER_POLL_USEC / 5,
				       DEADLINE_ACCURACY_USEC, on_linger, j) < 0) {
		group_kill(j, SIGKILL);
		job_finish(n, j);
	}
	return 0;
}

/* Without its sources nobody would reap or time it: it goes now. */
static void job_abandon(Job *j)
{
	group_kill(j, SIGKILL);
	(void)waitpid(j->pid, NULL, 0);
	reaper_release(j->n->reaper, j->pid);
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

int notifier_job_spawn(Notifier *n, Job *j)
{
	char *argv[] = {n->cfg->notify_command, NULL};
	int r = procgroup_spawn(argv, j->env, false, true, &j->pid, &j->out_fd);
	if (r < 0)
		return r;
	/* its group is held to its deadline (on_linger), not swept before */
	if ((r = reaper_own(n->reaper, j->pid)) < 0) {
		job_abandon(j);
		return r;
	}
	return job_watch(n, j);
}

static void start_next(Notifier *n)
{
	while (n->queue && n->n_running < NOTIFY_RUNNING_MAX) {
		Job *j = n->queue;
		n->queue = j->next;
		n->n_queued--;
		int r = enabled(n) ? notifier_job_spawn(n, j) : -ENOENT;
		if (r < 0) {
			n->st.failed++;
			log_warning("notify-command %s for %s %s could not run: %s", n->cfg->notify_command, j->what, j->device,
				    strerror(-r));
			char result[48];
			snprintf(result, sizeof result, "not run: %s", strerror(-r));
			job_undelivered(n, j);
			job_result(n, j, result, -1);
			notifier_job_free(j);
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
		notifier_remember(n, note->device, name, failed, note->incident);
		incident_unsent(n->book, note, now_usec(CLOCK_REALTIME));
		if (id)
			(void)history_send_done(n->history, id, failed, -1, now_usec(CLOCK_REALTIME));
		return;
	}
	j->n = n;
	j->send_id = id;
	notifier_remember(n, note->device, name, "queued", note->incident);
	Job **tail = &n->queue;
	while (*tail)
		tail = &(*tail)->next;
	*tail = j;
	n->n_queued++;
	start_next(n);
}

/* The key a disk's notifications and acks are kept under: its identity,
 * which outlives a rename (sdb is sdc after a reboot), unless another
 * watched disk presents the same one (a USB-SATA bridge's one serial for
 * every disk): then the identity and the device name, so that one's ack or
 * forget is not the other's. Told once per disk, when the book first has it. */
const char *notifier_disk_key(Notifier *n, const Disk *d, char buf[96])
{
	const char *id = disk_identity(d);
	if (!id[0])
		return d->name;
	if (!n->disks || !registry_identity_shared(n->disks, d))
		return id;
	registry_named_key(d, buf);	/* as the history's disk_id */
	if (!incident_known(n->book, buf))
		log_warning("%s: another disk has its identity %s too: its notifications are kept apart by name", d->name,
			    id);
	return buf;
}

void notifier_set_url(Notifier *n, const char *url)
{
	if (n)
		snprintf(n->url, sizeof n->url, "%s", url ? url : "");
}

/* A note in a rebuild's thread names the rebuild: "rebuild onto sdb: ..." */
static void name_thread(IncidentNote *note, const Incident *i)
{
	if (!i || i->kind != INCIDENT_REBUILD || startswith(note->message, i->title))
		return;
	char m[sizeof note->message];
	snprintf(m, sizeof m, "%s", note->message);
	int k = snprintf(note->message, sizeof note->message, "%.60s: ", i->title);
	if (k > 0 && (size_t)k < sizeof note->message)
		snprintf(note->message + k, sizeof note->message - (size_t)k, "%.*s", (int)(sizeof note->message - (size_t)k - 1), m);
}

void notifier_event(Notifier *n, const Disk *d, const Recorded *r)
{
	const Incident *i = r->incident;
	if (!enabled(n) || (!d && !i))
		return;
	/* heard once the sample's views are updated (recorder.h): the class
	 * is the one the event made */
	const char *cls = d ? disk_class_to_string(disk_class(d)) : "";
	char key[96], line[400];
	IncidentEvent e = {.kind = r->kind, .device = d ? d->name : i->device,
			   .identity = d ? notifier_disk_key(n, d, key) : i->disk_id, .disk_class = cls,
			   .time_usec = r->event ? r->event->logged_usec : i->end_usec ? i->end_usec : i->last_usec,
			   .message = r->event ? r->event->message : i->outcome};
	if (r->event) {
		e.has_priority = true;
		e.priority = streq(r->event->severity, "crit") ? LOG_CRIT : streq(r->event->severity, "warning") ? LOG_WARNING
			   : streq(r->event->severity, "notice") ? LOG_NOTICE : LOG_INFO;
	}
	if (i) {
		e.thread = i->id;
		e.thread_kind = incident_kind_to_string(i->kind);
		e.summary = incident_summary(i, line, sizeof line);
		e.thread_end = r->change == INCIDENT_CLOSED;
	}
	IncidentNote note;
	const char *why;
	if (!incident_judge(n->book, &n->params, &e, &note, &why)) {
		if (why && !streq(why, "not a notification kind") && !streq(why, "its start was not sent") &&
		    !streq(why, INCIDENT_HELD) && !streq(why, INCIDENT_FOLDED) && !streq(why, INCIDENT_IN_THREAD))
			n->st.suppressed++;
		return;
	}
	name_thread(&note, i);
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
	char key[96];
	if (n)
		incident_forget(n->book, d->name, notifier_disk_key(n, d, key));
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
	notifier_restore(n);
	*ret = n;
	return 0;
}

/* The loop is over: each running hook's process group is told to stop,
 * killed after a grace, and waited for a bounded while (one stuck in the
 * kernel must not keep smrd from exiting). None of them got through:
 * their rows say so, and the next start sends them again. */
static void stop_running(Notifier *n)
{
	for (Job *j = n->running; j; j = j->next) {
		j->child_src = sd_event_source_disable_unref(j->child_src);
		group_kill(j, SIGTERM);
		if (!j->reaped)
			job_result(n, j, "stopped: smrd exited", -1);
	}
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	bool killed = false;
	while (n->running) {
		uint64_t now = now_usec(CLOCK_MONOTONIC);
		if (!killed && now >= start + KILL_GRACE_USEC) {
			for (Job *j = n->running; j; j = j->next)
				group_kill(j, SIGKILL);
			killed = true;
		}
		for (Job **p = &n->running; *p;) {
			Job *j = *p;
			if (!j->reaped && waitpid(j->pid, NULL, WNOHANG) != 0)
				j->reaped = true;	/* ended, or not ours to wait for */
			bool gone = j->reaped && !group_alive(j);
			if (!gone && now < start + 2 * KILL_GRACE_USEC) {
				p = &j->next;
				continue;
			}
			if (!gone)
				log_warning("notify-command for %s %s: process group %d outlived SIGKILL, leaving it",
					    j->what, j->device, (int)j->pid);
			*p = j->next;
			n->n_running--;
			notifier_job_free(j);
		}
		if (n->running)
			usleep(20000);
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
		job_result(n, j, "not run: smrd exited", -1);
		notifier_job_free(j);
	}
	incident_book_free(n->book);
	free(n);
	return NULL;
}

void notifier_set_reaper(Notifier *n, Reaper *reaper)
{
	n->reaper = reaper;
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
