/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A child command as three event sources (childrun.h): its exit, its
 * stdout and its deadline. The scan watcher's zpool/btrfs runs and the
 * slow-I/O check's zpool runs had a copy each of this.
 */
#include "childrun.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procgroup.h"
#include "util.h"

extern char **environ;

#define READ_CHUNK 65536

struct ChildRun {
	sd_event *event;
	Reaper *reaper;
	/* the run under way */
	pid_t pid;
	sd_event_source *child_src, *out_src, *deadline_src;
	int out_fd;
	char *out;
	size_t out_len, max_bytes;
	bool too_big, timed_out;
	ChildRunDone done;
	void *userdata;
};

int childrun_new(sd_event *e, Reaper *reaper, ChildRun **ret)
{
	ChildRun *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	*c = (ChildRun){.event = sd_event_ref(e), .reaper = reaper, .out_fd = -1};
	*ret = c;
	return 0;
}

static void run_release(ChildRun *c)
{
	if (c->pid > 0)
		reaper_release(c->reaper, c->pid);
	c->child_src = sd_event_source_disable_unref(c->child_src);
	c->out_src = sd_event_source_disable_unref(c->out_src);
	c->deadline_src = sd_event_source_disable_unref(c->deadline_src);
	if (c->out_fd >= 0)
		close(c->out_fd);
	c->out_fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
	c->too_big = c->timed_out = false;
	c->pid = 0;
	c->done = NULL;
	c->userdata = NULL;
}

/* Kills the run under way and reaps it here: sd-event will not any more. */
static void run_kill(ChildRun *c)
{
	(void)procgroup_kill(c->pid, SIGKILL);
	c->child_src = sd_event_source_disable_unref(c->child_src);
	(void)waitpid(c->pid, NULL, 0);
	run_release(c);
}

ChildRun *childrun_free(ChildRun *c)
{
	if (!c)
		return NULL;
	if (c->pid > 0)
		run_kill(c);
	run_release(c);
	sd_event_unref(c->event);
	free(c);
	return NULL;
}

bool childrun_running(const ChildRun *c)
{
	return c->pid > 0;
}

/* What the pipe holds now; false at its end, or once nothing more is taken. */
static bool drain_once(ChildRun *c)
{
	if (c->too_big)
		return false;
	char *p = realloc(c->out, c->out_len + READ_CHUNK + 1);
	if (!p) {
		c->too_big = true;
		return false;
	}
	c->out = p;
	ssize_t n = read(c->out_fd, c->out + c->out_len, READ_CHUNK);
	if (n <= 0)
		return n < 0 && errno == EINTR;
	c->out_len += (size_t)n;
	c->out[c->out_len] = 0;
	if (c->out_len > c->max_bytes) {
		c->too_big = true;
		(void)procgroup_kill(c->pid, SIGKILL);
		return false;
	}
	return true;
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s, (void)fd, (void)revents;
	ChildRun *c = userdata;
	if (!drain_once(c))
		c->out_src = sd_event_source_disable_unref(c->out_src);
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	ChildRun *c = userdata;
	c->timed_out = true;
	(void)procgroup_kill(c->pid, SIGKILL);
	return 0;
}

/* The run ended: what is left in the pipe read, the handle idle before the
 * callback (which may start the next run, or free the handle: c is not
 * touched after it). */
static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	(void)s;
	ChildRun *c = userdata;
	while (c->out_fd >= 0 && drain_once(c))
		;
	/* the run is its leader: what it left in its group goes with it (the
	 * leader, a zombie until sd-event reaps it, keeps the group's id) */
	(void)procgroup_kill(c->pid, SIGKILL);
	_cleanup_free_ char *out = TAKE_PTR(c->out);
	ChildRunResult res = {.exited = si->si_code == CLD_EXITED, .status = si->si_status, .timed_out = c->timed_out,
			      .too_big = c->too_big, .out = out ?: "", .out_len = c->out_len};
	ChildRunDone done = c->done;
	void *data = c->userdata;
	run_release(c);
	done(&res, data);
	return 0;
}

char **childrun_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void env_freep(char ***env)
{
	*env = childrun_env_free(*env);
}

int childrun_env_new(const char *const drop[], const char *const add[], char ***ret)
{
	size_t n = 0, k = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	for (size_t i = 0; add && add[i]; i++)
		n++;
	_cleanup_(env_freep) char **env = calloc(n + 1, sizeof *env);
	if (!env)
		return -ENOMEM;
	for (char **e = environ; e && *e; e++) {
		bool keep = true;
		for (size_t i = 0; drop && drop[i]; i++)
			keep &= !startswith(*e, drop[i]);
		if (keep && !(env[k++] = strdup(*e)))
			return -ENOMEM;
	}
	for (size_t i = 0; add && add[i]; i++)
		if (!(env[k++] = strdup(add[i])))
			return -ENOMEM;
	*ret = TAKE_PTR(env);
	return 0;
}

int childrun_start(ChildRun *c, char *const argv[], char *const env[], size_t max_bytes, uint64_t timeout_usec,
		   ChildRunDone done, void *userdata)
{
	if (!done)
		return -EINVAL;
	if (c->pid > 0)
		return -EBUSY;
	int r = procgroup_spawn(argv, env, true, false, &c->pid, &c->out_fd);
	if (r < 0)
		return r;
	r = reaper_own(c->reaper, c->pid);
	if (r < 0) {
		run_kill(c);
		return r;
	}
	c->max_bytes = max_bytes;
	c->done = done;
	c->userdata = userdata;
	r = sd_event_add_child(c->event, &c->child_src, c->pid, WEXITED, on_child, c);
	if (r >= 0)
		r = sd_event_add_time_relative(c->event, &c->deadline_src, CLOCK_MONOTONIC, timeout_usec, 0, on_deadline,
					       c);
	if (r >= 0)
		r = sd_event_add_io(c->event, &c->out_src, c->out_fd, EPOLLIN, on_output, c);
	if (r < 0)
		run_kill(c);
	return r;
}
