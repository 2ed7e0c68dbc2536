/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status as a child of the event loop (scanwatch.h). One run at a
 * time; its output is read as it comes, at most ZPOOL_INPUT_MAX bytes (more
 * and it is killed), its time bounded (SCANWATCH_TIMEOUT_USEC: a pool whose
 * disks hang makes zpool hang too). It runs in a session of its own so that
 * a kill reaches what it started, with stdin from /dev/null, its stderr
 * discarded (its message would be the only line read), ZFS_COLOR dropped
 * and LC_ALL=C (the text's numbers and dates in the C locale).
 */
#include "scanwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "procgroup.h"
#include "util.h"

extern char **environ;

#define READ_CHUNK 65536

struct ScanWatch {
	sd_event *event;
	char *zpool;
	uint64_t interval_usec;
	ScanWatchCallbacks cb;
	char **env;
	sd_event_source *timer;
	char *btrfs;
	/* this interval's runs: zpool, then each btrfs mount in turn */
	bool zpool_due;
	char (*mounts)[SCANWATCH_MOUNT_LEN];
	unsigned n_mounts, next_mount;
	/* the run under way */
	pid_t pid;
	ScanWatchForm running_form;
	bool running_btrfs;
	const char *running_mount;	/* in mounts[] */
	sd_event_source *child_src, *out_src, *deadline_src;
	int out_fd;
	char *out;
	size_t out_len;
	bool too_big, timed_out;
	/* what was learnt */
	ScanWatchForm form;
	bool kicked;		/* polling though not wanted: a scan started and still runs */
	unsigned ok, failed;
	char last_failure[512];	/* logged once until another comes, or a reading succeeds */
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

static char **env_new(void)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **env = calloc(n + 2, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (char **e = environ; e && *e; e++)
		if (!startswith(*e, "ZFS_COLOR=") && !startswith(*e, "LC_ALL=") && !(env[k++] = strdup(*e)))
			goto fail;
	if (!(env[k] = strdup("LC_ALL=C")))
		goto fail;
	return env;
fail:
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	return NULL;
}

int scanwatch_new(sd_event *e, const char *zpool, double interval, const ScanWatchCallbacks *cb, ScanWatch **ret)
{
	if (!zpool || !*zpool || !(interval > 0))
		return -EINVAL;
	ScanWatch *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	*w = (ScanWatch){.event = sd_event_ref(e), .zpool = strdup(zpool), .interval_usec = (uint64_t)(interval * 1e6),
			 .env = env_new(), .out_fd = -1, .btrfs = strdup("btrfs"),
			 .mounts = calloc(SCANWATCH_MOUNTS_MAX, SCANWATCH_MOUNT_LEN)};
	if (cb)
		w->cb = *cb;
	int r = !w->zpool || !w->env || !w->btrfs || !w->mounts ? -ENOMEM
		/* the first reading soon after start: a rebuild under way at a restart is picked up at once */
		: sd_event_add_time_relative(e, &w->timer, CLOCK_MONOTONIC, w->interval_usec < 1000000ULL ? w->interval_usec : 1000000ULL, 0, on_timer, w);
	if (r < 0)
		return scanwatch_free(w), r;
	*ret = w;
	return 0;
}

static void run_release(ScanWatch *w)
{
	w->child_src = sd_event_source_disable_unref(w->child_src);
	w->out_src = sd_event_source_disable_unref(w->out_src);
	w->deadline_src = sd_event_source_disable_unref(w->deadline_src);
	if (w->out_fd >= 0)
		close(w->out_fd);
	w->out_fd = -1;
	free(w->out);
	w->out = NULL;
	w->out_len = 0;
	w->too_big = w->timed_out = false;
	w->pid = 0;
}

ScanWatch *scanwatch_free(ScanWatch *w)
{
	if (!w)
		return NULL;
	if (w->pid > 0) {
		/* not reaped by sd-event any more: reaped here, it is killed */
		(void)procgroup_kill(w->pid, SIGKILL);
		w->child_src = sd_event_source_disable_unref(w->child_src);
		(void)waitpid(w->pid, NULL, 0);
	}
	run_release(w);
	w->timer = sd_event_source_disable_unref(w->timer);
	for (size_t i = 0; w->env && w->env[i]; i++)
		free(w->env[i]);
	free(w->env);
	free(w->zpool);
	free(w->btrfs);
	free(w->mounts);
	sd_event_unref(w->event);
	free(w);
	return NULL;
}

/* What the pipe holds now; false at its end, or once nothing more is taken. */
static bool drain_once(ScanWatch *w)
{
	if (w->too_big)
		return false;
	char *p = realloc(w->out, w->out_len + READ_CHUNK + 1);
	if (!p) {
		w->too_big = true;
		return false;
	}
	w->out = p;
	ssize_t n = read(w->out_fd, w->out + w->out_len, READ_CHUNK);
	if (n <= 0)
		return n < 0 && errno == EINTR;
	w->out_len += (size_t)n;
	if (w->out_len > (w->running_btrfs ? BTRFS_REPLACE_INPUT_MAX : ZPOOL_INPUT_MAX)) {
		w->too_big = true;
		(void)procgroup_kill(w->pid, SIGKILL);
		return false;
	}
	return true;
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s, (void)fd, (void)revents;
	ScanWatch *w = userdata;
	if (!drain_once(w))
		w->out_src = sd_event_source_disable_unref(w->out_src);
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	ScanWatch *w = userdata;
	w->timed_out = true;
	(void)procgroup_kill(w->pid, SIGKILL);
	return 0;
}

static void fail(ScanWatch *w, const char *fmt, ...) _printf_(2, 3);
static void fail(ScanWatch *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	w->failed++;
	/* a zpool missing on a host with a ZFS-labelled disk fails every interval: said once */
	if (streq(msg, w->last_failure))
		log_debug("rebuild watch: %s", msg);
	else
		log_warning("rebuild watch: %s (said once until it changes)", msg);
	snprintf(w->last_failure, sizeof w->last_failure, "%s", msg);
	if (w->cb.failed)
		w->cb.failed(msg, w->cb.userdata);
}

static int spawn(ScanWatch *w, ScanWatchForm form);
static int spawn_btrfs(ScanWatch *w, const char *mount);
static void run_next(ScanWatch *w);

/* btrfs replace status -1 ended: read, parse, hand on. */
static void btrfs_done(ScanWatch *w, const siginfo_t *si)
{
	while (w->out_fd >= 0 && drain_once(w))
		;
	const char *mount = w->running_mount;
	bool exited0 = si->si_code == CLD_EXITED && si->si_status == 0, killed = w->too_big || w->timed_out;
	_cleanup_free_ char *error = NULL;
	BtrfsReplaceStatus b;
	int r = exited0 && !killed ? btrfs_replace_parse(w->out ?: "", w->out_len, &b, &error) : -EINVAL;
	char why[160];
	if (killed)
		snprintf(why, sizeof why, "%s: killed", w->timed_out ? "ran too long" : "printed too much");
	else if (!exited0)
		snprintf(why, sizeof why, si->si_code == CLD_EXITED ? "exit %d" : "killed by signal %d", si->si_status);
	else
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	run_release(w);
	if (r < 0) {
		fail(w, "%s replace status -1 %s: %s", w->btrfs, mount, why);
		return;
	}
	w->ok++;
	w->last_failure[0] = 0;
	if (w->cb.btrfs_status)
		w->cb.btrfs_status(mount, &b, w->cb.userdata);
}

/* The run ended: read, parse, hand on; a refused JSON form falls back to the text once. */
static void run_done(ScanWatch *w, const siginfo_t *si)
{
	while (w->out_fd >= 0 && drain_once(w))
		;
	ScanWatchForm form = w->running_form;
	bool killed = w->too_big || w->timed_out;	/* run_release forgets it */
	const char *how = form == SCANWATCH_FORM_JSON ? "status -jp --json-int" : "status -p";
	bool exited0 = si->si_code == CLD_EXITED && si->si_status == 0;
	_cleanup_free_ char *error = NULL;
	ZpoolStatus *st = NULL;
	int r = -EINVAL;
	if (exited0 && !w->too_big && !w->timed_out)
		r = form == SCANWATCH_FORM_JSON ? zpool_status_parse_json(w->out ?: "", w->out_len, &st, &error)
						: zpool_status_parse_text(w->out ?: "", w->out_len, &st, &error);
	char why[160];
	if (w->timed_out)
		snprintf(why, sizeof why, "ran past %llu s: killed", SCANWATCH_TIMEOUT_USEC / 1000000ULL);
	else if (w->too_big)
		snprintf(why, sizeof why, "printed more than %u bytes: killed", ZPOOL_INPUT_MAX);
	else if (si->si_code != CLD_EXITED)
		snprintf(why, sizeof why, "killed by signal %d", si->si_status);
	else if (!exited0)
		snprintf(why, sizeof why, "exit %d", si->si_status);
	else
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	run_release(w);
	if (r >= 0) {
		w->form = form;
		w->ok++;
		w->last_failure[0] = 0;
		bool scanning = false;
		for (unsigned i = 0; i < st->n_pools; i++)
			scanning |= st->pools[i].state == ZPOOL_SCAN_SCANNING;
		w->kicked &= scanning;
		if (w->cb.status)
			w->cb.status(st, w->cb.userdata);
		zpool_status_free(st);
		return;
	}
	/* an OpenZFS before 2.3 refuses -j (usage, exit 2): the text it prints
	 * is read from then on; a JSON form that once worked is not given up */
	if (form == SCANWATCH_FORM_JSON && w->form == SCANWATCH_FORM_UNKNOWN && !killed) {
		log_info("rebuild watch: %s %s: %s; reading its text form (status -p)", w->zpool, how, why);
		r = spawn(w, SCANWATCH_FORM_TEXT);
		if (r < 0)
			fail(w, "%s status -p could not run: %s", w->zpool, strerror(-r));
		return;
	}
	fail(w, "%s %s: %s", w->zpool, how, why);
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	(void)s;
	ScanWatch *w = userdata;
	if (w->running_btrfs)
		btrfs_done(w, si);
	else
		run_done(w, si);
	/* the next of this interval's runs, unless run_done started the text form */
	if (w->pid <= 0)
		run_next(w);
	return 0;
}

static int spawn_argv(ScanWatch *w, char *const argv[])
{
	int r = procgroup_spawn(argv, w->env, true, false, &w->pid, &w->out_fd);
	if (r < 0)
		return r;
	r = sd_event_add_child(w->event, &w->child_src, w->pid, WEXITED, on_child, w);
	if (r >= 0)
		r = sd_event_add_time_relative(w->event, &w->deadline_src, CLOCK_MONOTONIC, SCANWATCH_TIMEOUT_USEC, 0,
					       on_deadline, w);
	if (r >= 0)
		r = sd_event_add_io(w->event, &w->out_src, w->out_fd, EPOLLIN, on_output, w);
	if (r < 0) {
		(void)procgroup_kill(w->pid, SIGKILL);
		w->child_src = sd_event_source_disable_unref(w->child_src);
		(void)waitpid(w->pid, NULL, 0);
		run_release(w);
	}
	return r;
}

static int spawn(ScanWatch *w, ScanWatchForm form)
{
	char *json[] = {w->zpool, "status", "-jp", "--json-int", NULL};
	char *text[] = {w->zpool, "status", "-p", NULL};
	w->running_btrfs = false;
	w->running_form = form;
	return spawn_argv(w, form == SCANWATCH_FORM_JSON ? json : text);
}

static int spawn_btrfs(ScanWatch *w, const char *mount)
{
	/* the mount point is an argument, never a shell word; "--" ends the options */
	char *argv[] = {w->btrfs, "replace", "status", "-1", "--", (char *)mount, NULL};
	w->running_btrfs = true;
	w->running_mount = mount;
	return spawn_argv(w, argv);
}

/* This interval's next run: zpool when due, then each btrfs mount. */
static void run_next(ScanWatch *w)
{
	while (w->pid <= 0) {
		int r;
		if (w->zpool_due) {
			w->zpool_due = false;
			r = spawn(w, w->form == SCANWATCH_FORM_TEXT ? SCANWATCH_FORM_TEXT : SCANWATCH_FORM_JSON);
			if (r < 0)
				fail(w, "%s could not run: %s", w->zpool, strerror(-r));
		} else if (w->next_mount < w->n_mounts) {
			const char *m = w->mounts[w->next_mount++];
			r = spawn_btrfs(w, m);
			if (r < 0)
				fail(w, "%s replace status -1 %s could not run: %s", w->btrfs, m, strerror(-r));
		} else
			return;
	}
}

static void poll_now(ScanWatch *w)
{
	if (w->pid > 0)
		return;		/* one at a time: a slow zpool is not piled up */
	w->zpool_due = true;
	run_next(w);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	ScanWatch *w = userdata;
	/* what is left of the last interval's runs (a slow zpool) is not piled up */
	if (w->pid <= 0) {
		w->zpool_due = w->kicked || (w->cb.wanted && w->cb.wanted(w->cb.userdata));
		w->n_mounts = w->cb.btrfs_mounts ? w->cb.btrfs_mounts(w->mounts, SCANWATCH_MOUNTS_MAX, w->cb.userdata) : 0;
		w->n_mounts = w->n_mounts < SCANWATCH_MOUNTS_MAX ? w->n_mounts : SCANWATCH_MOUNTS_MAX;
		w->next_mount = 0;
		run_next(w);
	}
	sd_event_source_set_time(s, usec + w->interval_usec);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	return 0;
}

int scanwatch_configure(ScanWatch *w, const char *zpool, double interval)
{
	if (interval > 0)
		w->interval_usec = (uint64_t)(interval * 1e6);
	if (!zpool || !*zpool || streq(zpool, w->zpool))
		return 0;
	char *z = strdup(zpool);
	if (!z)
		return -ENOMEM;
	free(w->zpool);
	w->zpool = z;
	w->form = SCANWATCH_FORM_UNKNOWN;
	return 0;
}

int scanwatch_set_btrfs(ScanWatch *w, const char *btrfs)
{
	if (!btrfs || !*btrfs || streq(btrfs, w->btrfs))
		return 0;
	char *b = strdup(btrfs);
	if (!b)
		return -ENOMEM;
	free(w->btrfs);
	w->btrfs = b;
	return 0;
}

void scanwatch_kick(ScanWatch *w)
{
	if (!w)
		return;
	w->kicked = true;
	poll_now(w);
}

ScanWatchForm scanwatch_form(const ScanWatch *w)
{
	return w->form;
}

void scanwatch_counts(const ScanWatch *w, unsigned *ret_ok, unsigned *ret_failed)
{
	*ret_ok = w->ok;
	*ret_failed = w->failed;
}
