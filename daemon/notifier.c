/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job is spawned with posix_spawn (no shell: the command is a path, the
 * event is in the environment, where a model string cannot become a
 * command), in a session of its own so that the deadline kills what it
 * started too (sendmail, curl). Its exit is polled every 100 ms while
 * anything runs: no SIGCHLD handler to share with the event loop's.
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

#define POLL_USEC 100000
#define KILL_GRACE_USEC 2000000
#define ENV_MAX 24

typedef struct Job {
	struct Job *next;
	char *env[ENV_MAX + 1];		/* owned strings, NULL-terminated */
	char what[32], device[32], incident[INCIDENT_ID_MAX];
	pid_t pid;			/* 0: queued */
	int out_fd;
	sd_event_source *out_src;
	uint64_t started, deadline;	/* CLOCK_MONOTONIC */
	bool termed, killed;
	size_t logged;			/* bytes of output logged */
	char line[256];
	size_t line_len;
} Job;

struct Notifier {
	sd_event *event;
	const Config *cfg;
	History *history;
	DiskRegistry *disks;
	IncidentBook *book;
	Job *queue, *running;
	unsigned n_queued, n_running;
	sd_event_source *poll;
	NotifyStats st;
	NotifyRecent recent[NOTIFY_RECENT];
	unsigned recent_n;		/* recent[]: oldest first */
	char host[256];
	struct StormRecord *storms;	/* while restoring: each disk's newest storm notification */
	size_t n_storms;
};

#define STORM_RESTORE_MAX 1024
typedef struct StormRecord {
	char identity[96], device[32], incident[INCIDENT_ID_MAX];
	uint64_t newest;
	bool open;			/* the newest was a start */
} StormRecord;

static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

static uint64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t real_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int min_priority(const Config *cfg)
{
	const char *s = cfg->notify_min_severity ? cfg->notify_min_severity : "warning";
	return streq(s, "crit") ? LOG_CRIT : streq(s, "notice") ? LOG_NOTICE : streq(s, "info") ? LOG_INFO : LOG_WARNING;
}

static void params(const Notifier *n, IncidentParams *p)
{
	*p = (IncidentParams){.min_priority = min_priority(n->cfg),
			      .interval_usec = (uint64_t)(fmax(n->cfg->notify_interval, 1) * 1e6)};
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
	remember_at(n, real_usec(), device, what, result, incident);
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

static Job *job_free(Job *j)
{
	if (!j)
		return NULL;
	for (unsigned i = 0; j->env[i]; i++)
		free(j->env[i]);
	sd_event_source_disable_unref(j->out_src);
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

/* The pools, arrays and volume groups: "zfs:tank raid:md0". */
static void pools(const Disk *d, char *out, size_t size)
{
	size_t off = 0;
	out[0] = 0;
	for (unsigned i = 0; d && i < d->n_members && off + 1 < size; i++) {
		int w = snprintf(out + off, size - off, "%s%s:%s", off ? " " : "", member_type_to_string(d->members[i].type),
				 d->members[i].name);
		if (w < 0)
			break;
		off += (size_t)w < size - off ? (size_t)w : size - off - 1;
	}
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
	SysfsDisk sd = {0};
	if (d)
		disk_sys_get(&d->sys, &sd);
	char when[40], first[40], count[24], pool[512];
	format_time(when, note->time_usec);
	format_time(first, note->first_usec);
	snprintf(count, sizeof count, "%" PRIu64, note->count);
	pools(d, pool, sizeof pool);
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
	r |= env_add(j, &i, "SMRD_MODEL", sd.model);
	r |= env_add(j, &i, "SMRD_SERIAL", sd.serial);
	r |= env_add(j, &i, "SMRD_WWN", sd.wwn);
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
	if (sd_event_add_io(n->event, &j->out_src, j->out_fd, EPOLLIN, on_output, j) < 0)
		j->out_src = NULL;	/* unlogged, and the pipe closes with the job */
	j->started = mono_usec();
	j->deadline = j->started + (uint64_t)(fmax(n->cfg->notify_timeout, 0.1) * 1e6);
	return 0;
}

static void job_done(Notifier *n, Job *j, int status)
{
	/* what it printed before it ended (a child it left behind may hold
	 * the pipe open: what is there now, then no more) */
	while (j->out_fd >= 0 && drain_once(j))
		;
	flush_line(j);
	double secs = (double)(mono_usec() - j->started) / 1e6;
	char result[48];
	if (j->termed || j->killed) {
		n->st.timed_out++;
		snprintf(result, sizeof result, "killed after %.1f s", secs);
		log_warning("notify-command for %s %s (incident %s) ran past notify-timeout: killed after %.1f s", j->what,
			    j->device, j->incident, secs);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		n->st.ok++;
		snprintf(result, sizeof result, "exit 0");
		log_info("notify-command for %s %s (incident %s): done in %.1f s", j->what, j->device, j->incident, secs);
	} else {
		n->st.failed++;
		if (WIFEXITED(status))
			snprintf(result, sizeof result, "exit %d", WEXITSTATUS(status));
		else
			snprintf(result, sizeof result, "signal %d", WTERMSIG(status));
		log_warning("notify-command for %s %s (incident %s) failed: %s", j->what, j->device, j->incident, result);
	}
	NotifyRecent *rec = recent_of(n, j);
	if (rec)
		snprintf(rec->result, sizeof rec->result, "%s", result);
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	Notifier *n = userdata;
	uint64_t now = mono_usec();
	for (Job **p = &n->running; *p;) {
		Job *j = *p;
		int status;
		pid_t r = waitpid(j->pid, &status, WNOHANG);
		if (r == j->pid || (r < 0 && errno == ECHILD)) {
			job_done(n, j, r == j->pid ? status : 0);
			*p = j->next;
			job_free(j);
			n->n_running--;
			continue;
		}
		/* its session: what it started goes with it */
		if (!j->termed && now >= j->deadline) {
			kill(-j->pid, SIGTERM);
			j->termed = true;
		} else if (j->termed && !j->killed && now >= j->deadline + KILL_GRACE_USEC) {
			kill(-j->pid, SIGKILL);
			j->killed = true;
		}
		p = &j->next;
	}
	start_next(n);
	if (n->n_running)
		sd_event_source_set_time_relative(n->poll, POLL_USEC);
	sd_event_source_set_enabled(n->poll, n->n_running ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
	return 0;
}

static void start_next(Notifier *n)
{
	while (n->queue && n->n_running < NOTIFY_RUNNING_MAX) {
		Job *j = n->queue;
		n->queue = j->next;
		n->n_queued--;
		int r = n->cfg->notify_command && n->cfg->notify_command[0] ? job_spawn(n, j) : -ENOENT;
		if (r < 0) {
			n->st.failed++;
			log_warning("notify-command %s for %s %s could not run: %s", n->cfg->notify_command, j->what, j->device,
				    strerror(-r));
			NotifyRecent *rec = recent_of(n, j);
			if (rec)
				snprintf(rec->result, sizeof rec->result, "not run: %s", strerror(-r));
			job_free(j);
			continue;
		}
		j->next = n->running;
		n->running = j;
		n->n_running++;
	}
	if (n->n_running && sd_event_source_get_enabled(n->poll, NULL) == 0) {
		sd_event_source_set_time_relative(n->poll, POLL_USEC);
		sd_event_source_set_enabled(n->poll, SD_EVENT_ONESHOT);
	}
}

/* What was sent, in the history: a restart repeats nothing. */
static void record(Notifier *n, const IncidentNote *note, const char *prefix, const char *kind_name,
		   const char *message)
{
	HistoryEvent h = {.time_usec = note->time_usec, .logged_usec = real_usec(), .count = (int64_t)note->count,
			  .value = note->follow_up};
	snprintf(h.device, sizeof h.device, "%s", note->device);
	snprintf(h.serial, sizeof h.serial, "%s", note->identity);
	snprintf(h.kind, sizeof h.kind, "%s:%s", prefix, kind_name);
	snprintf(h.severity, sizeof h.severity, "info");
	snprintf(h.message, sizeof h.message, "%s", message);
	if (history_add(n->history, &h) < 0)
		log_warning("history: could not record a notification of %s %s", kind_name, note->device);
}

static void send_note(Notifier *n, const Disk *d, const IncidentNote *note, const char *cls)
{
	const char *name = event_kind_info(note->kind)->name;
	char msg[320];
	snprintf(msg, sizeof msg, "%s%s", note->incident, note->follow_up ? " (follow-up)" : "");
	record(n, note, "notify", name, msg);
	n->st.sent++;
	if (n->n_queued >= NOTIFY_QUEUE_MAX) {
		n->st.dropped++;
		log_warning("notify: %u notifications waiting already; dropped %s for %s (incident %s)", n->n_queued, name,
			    note->device, note->incident);
		remember(n, note->device, name, "dropped: queue full", note->incident);
		return;
	}
	Job *j = job_new(n, d, note, cls);
	if (!j) {
		n->st.failed++;
		remember(n, note->device, name, "not run: out of memory", note->incident);
		return;
	}
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
	if (!n || !n->cfg->notify_command || !n->cfg->notify_command[0])
		return;
	IncidentParams p;
	params(n, &p);
	/* the views catch up at the end of the sample: the verdict itself
	 * says what the class now is */
	const char *cls = kind == EVENT_BEHAVIOUR ? disk_class_to_string(DISK_CLASS_DM_SMR)
						  : disk_class_to_string(disk_class(d));
	IncidentEvent e = {.kind = kind, .device = d->name, .identity = h->serial[0] ? h->serial : d->name,
			   .disk_class = cls, .time_usec = h->logged_usec, .message = h->message};
	IncidentNote note;
	const char *why;
	if (!incident_judge(n->book, &p, &e, &note, &why)) {
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
	if (!n || !n->cfg->notify_command || !n->cfg->notify_command[0])
		return;
	IncidentParams p;
	params(n, &p);
	incident_due(n->book, &p, now_real_usec, on_due, n);
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
	IncidentNote note = {.time_usec = real_usec()};
	snprintf(note.device, sizeof note.device, "%s", d->name);
	snprintf(note.identity, sizeof note.identity, "%s", id[0] ? id : d->name);
	const char *what = kind < 0 ? "all" : event_kind_info(kind)->name;
	record(n, &note, "ack", what, cls);
	char line[32];
	snprintf(line, sizeof line, "ack %s", what);
	remember(n, d->name, line, "acknowledged", NULL);
	log_notice("%s: notifications of %s acknowledged while it stays %s", d->name,
		   kind < 0 ? "every kind" : what, cls);
	return 0;
}

static int on_restore(const HistoryEvent *h, void *userdata)
{
	Notifier *n = userdata;
	const char *colon = strchr(h->kind, ':');
	if (!colon)
		return 0;
	bool ack = startswith(h->kind, "ack:");
	int kind = streq(colon + 1, "all") ? -1 : detect_event_kind_from_string(colon + 1);
	if (kind < 0 && !(ack && streq(colon + 1, "all")))
		return 0;
	const char *id = h->serial[0] ? h->serial : h->device;
	if (ack) {
		char line[32];
		snprintf(line, sizeof line, "ack %s", colon + 1);
		remember_at(n, h->logged_usec, h->device, line, "acknowledged", NULL);
		incident_restore_ack(n->book, h->device, id, kind, h->message);
		return 0;
	}
	char sent_id[INCIDENT_ID_MAX];
	snprintf(sent_id, sizeof sent_id, "%.*s", (int)strcspn(h->message, " "), h->message);
	remember_at(n, h->logged_usec, h->device, colon + 1, "sent (before a restart)", sent_id);
	char incident[INCIDENT_ID_MAX];
	snprintf(incident, sizeof incident, "%.*s", (int)strcspn(h->message, " "), h->message);
	/* a storm's start and end come in separate queries: the book gets
	 * them in the order they were sent */
	if ((kind == EVENT_STORM_START || kind == EVENT_STORM_END) && n->storms) {
		StormRecord *r = n->storms;
		size_t i = 0;
		for (; i < n->n_storms && !streq(r[i].identity, id); i++)
			;
		if (i == n->n_storms) {
			if (n->n_storms == STORM_RESTORE_MAX)
				return 0;
			n->n_storms++;
			r[i] = (StormRecord){0};
			snprintf(r[i].identity, sizeof r[i].identity, "%s", id);
			snprintf(r[i].device, sizeof r[i].device, "%s", h->device);
		}
		if (h->logged_usec >= r[i].newest) {
			r[i].newest = h->logged_usec;
			r[i].open = kind == EVENT_STORM_START;
			snprintf(r[i].incident, sizeof r[i].incident, "%s", incident);
		}
		return 0;
	}
	incident_restore_sent(n->book, h->device, id, kind, incident, h->value > 0, h->logged_usec);
	return 0;
}

/* In time order, each kind on its own: an ack of all after one of stall is both. */
static void restore(Notifier *n)
{
	n->storms = calloc(STORM_RESTORE_MAX, sizeof *n->storms);
	if (!n->storms)
		log_warning("notify: out of memory: storms open at the last stop will end without a follow-up");
	char kind[32];
	for (int prefix = 0; prefix < 2; prefix++)
		for (int k = -1; k < _EVENT_KIND_MAX; k++) {
			if (k < 0 && prefix == 0)
				continue;
			snprintf(kind, sizeof kind, "%s:%s", prefix ? "ack" : "notify",
				 k < 0 ? "all" : event_kind_info(k)->name);
			HistoryFilter f = {.kind = kind, .limit = 10000};
			history_query(n->history, &f, on_restore, n);
		}
	for (size_t i = 0; i < n->n_storms; i++)
		if (n->storms[i].open)
			incident_restore_sent(n->book, n->storms[i].device, n->storms[i].identity, EVENT_STORM_START,
					      n->storms[i].incident, false, n->storms[i].newest);
	n->storms = mfree(n->storms);
	n->n_storms = 0;
}

int notifier_new(sd_event *e, const Config *cfg, History *history, DiskRegistry *disks, Notifier **ret)
{
	Notifier *n = calloc(1, sizeof *n);
	if (!n)
		return -ENOMEM;
	*n = (Notifier){.event = e, .cfg = cfg, .history = history, .disks = disks};
	int r = incident_book_new(&n->book);
	if (r >= 0)
		r = sd_event_add_time_relative(e, &n->poll, CLOCK_MONOTONIC, POLL_USEC, 10000, on_poll, n);
	if (r < 0) {
		notifier_free(n);
		return r;
	}
	sd_event_source_set_enabled(n->poll, SD_EVENT_OFF);
	if (gethostname(n->host, sizeof n->host - 1) < 0)
		snprintf(n->host, sizeof n->host, "localhost");
	restore(n);
	*ret = n;
	return 0;
}

Notifier *notifier_free(Notifier *n)
{
	if (!n)
		return NULL;
	for (Job *j = n->running; j; j = j->next)
		kill(-j->pid, SIGTERM);
	uint64_t until = mono_usec() + KILL_GRACE_USEC;
	while (n->running) {
		Job *j = n->running;
		int status;
		pid_t r = waitpid(j->pid, &status, mono_usec() < until ? WNOHANG : 0);
		if (r == 0) {
			if (mono_usec() >= until)
				kill(-j->pid, SIGKILL);
			usleep(20000);
			continue;
		}
		n->running = j->next;
		job_free(j);
	}
	while (n->queue) {
		Job *j = n->queue;
		n->queue = j->next;
		job_free(j);
	}
	sd_event_source_disable_unref(n->poll);
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
