/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One child run from the event loop with real children (sh): its output
 * whole; past the byte cap killed, said too big; past its time killed with
 * what it started, said timed out; an exit code and the next run started
 * from the callback; a second start while one runs refused; a free while
 * one runs kills and reaps it, the callback never called. The environment
 * a child gets: the daemon's less what was dropped, plus what was added.
 * With a reaper (the daemon's): what a run leaves in its group is killed
 * when it exits, what left the group with setsid is swept, killed and
 * reaped, and another run's group, still owned, is left to finish.
 */
#include "childrun.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procgroup.h"
#include "test.h"
#include "util.h"

typedef struct Heard {
	unsigned calls;
	ChildRunResult res;
	char out[256];
	/* a run to start from the callback, once */
	ChildRun *chain;
	char **chain_argv;
	int chain_r;
} Heard;

static char *env[] = {"PATH=/usr/bin:/bin", NULL};

static void on_done(const ChildRunResult *res, void *userdata)
{
	Heard *h = userdata;
	h->calls++;
	h->res = *res;
	h->res.out = NULL;	/* valid only here: copied */
	CHECK(res->out != NULL);
	snprintf(h->out, sizeof h->out, "%s", res->out ? res->out : "");
	if (h->chain_argv) {
		char **argv = TAKE_PTR(h->chain_argv);
		h->chain_r = childrun_start(h->chain, argv, env, 1024, 10000000, on_done, h);
	}
}

/* Runs the loop until h heard `calls` ends, or 15 s passed. */
static void run_until(sd_event *e, Heard *h, unsigned calls)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	while (h->calls < calls && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(h->calls, calls);
}

static void run_one(sd_event *e, ChildRun *c, const char *script, size_t max, uint64_t timeout, Heard *h)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	*h = (Heard){0};
	CHECK_INT(childrun_start(c, argv, env, max, timeout, on_done, h), 0);
	CHECK(childrun_running(c));
	run_until(e, h, 1);
	CHECK(!childrun_running(c));
}

static void test_prints(sd_event *e, ChildRun *c)
{
	Heard h;
	run_one(e, c, "printf 'hello\\nworld\\n'", 1024, 10000000, &h);
	CHECK(h.res.exited);
	CHECK_INT(h.res.status, 0);
	CHECK(!h.res.timed_out && !h.res.too_big);
	CHECK_STR(h.out, "hello\nworld\n");
	CHECK_INT(h.res.out_len, 12);
}

static void test_too_big(sd_event *e, ChildRun *c)
{
	Heard h;
	run_one(e, c, "exec yes", 1000, 10000000, &h);
	CHECK(h.res.too_big);
	CHECK(!h.res.timed_out);
	CHECK(!h.res.exited);
	CHECK_INT(h.res.status, SIGKILL);
	CHECK(h.res.out_len > 1000);
}

/* A shell that started a sleep of its own and waits: at the deadline both
 * are killed (the group), its pid (the group's) printed first. */
static void test_timeout(sd_event *e, ChildRun *c)
{
	Heard h;
	run_one(e, c, "sleep 30 & echo $$; wait", 1024, 300000, &h);
	CHECK(h.res.timed_out);
	CHECK(!h.res.too_big);
	CHECK(!h.res.exited);
	CHECK_INT(h.res.status, SIGKILL);
	pid_t pgid = (pid_t)atoi(h.out);
	CHECK(pgid > 1);
	/* the sleep was reparented; it may take a moment to be gone */
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 5000000;
	while (pgid > 1 && procgroup_alive(pgid) && now_usec(CLOCK_MONOTONIC) < until)
		usleep(10000);
	CHECK(!procgroup_alive(pgid));
}

/* Exit 3, and from its callback the next run. */
static void test_exit_chain(sd_event *e, ChildRun *c)
{
	char *next[] = {"sh", "-c", "echo next", NULL};
	char *argv[] = {"sh", "-c", "echo three; exit 3", NULL};
	Heard h = {.chain = c, .chain_argv = next, .chain_r = 1};
	CHECK_INT(childrun_start(c, argv, env, 1024, 10000000, on_done, &h), 0);
	run_until(e, &h, 1);
	CHECK(h.res.exited);
	CHECK_INT(h.res.status, 3);
	CHECK_STR(h.out, "three\n");
	CHECK_INT(h.chain_r, 0);
	CHECK(childrun_running(c));
	run_until(e, &h, 2);
	CHECK(h.res.exited);
	CHECK_INT(h.res.status, 0);
	CHECK_STR(h.out, "next\n");
	CHECK(!childrun_running(c));
}

static void test_env(sd_event *e, ChildRun *c)
{
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	setenv("CHILDRUN_KEEP", "kept", 1);
	setenv("CHILDRUN_DROP", "dropped", 1);
	static const char *const drop[] = {"LC_ALL=", "CHILDRUN_DROP=", NULL}, *const add[] = {"LC_ALL=C", NULL};
	char **cenv = NULL;
	CHECK_INT(childrun_env_new(drop, add, &cenv), 0);
	char *argv[] = {"/bin/sh", "-c", "echo \"$LC_ALL $CHILDRUN_KEEP ${CHILDRUN_DROP-unset}\"", NULL};
	Heard h = {0};
	CHECK_INT(childrun_start(c, argv, cenv, 1024, 10000000, on_done, &h), 0);
	run_until(e, &h, 1);
	CHECK_STR(h.out, "C kept unset\n");
	CHECK(childrun_env_free(cenv) == NULL);
}

static void test_busy_free(sd_event *e)
{
	ChildRun *c = NULL;
	CHECK_INT(childrun_new(e, NULL, &c), 0);
	char *argv[] = {"sleep", "30", NULL};
	char *missing[] = {"/nonexistent/childrun-test", NULL};
	Heard h = {0};
	CHECK_INT(childrun_start(c, missing, env, 1024, 10000000, on_done, &h), -ENOENT);
	CHECK(!childrun_running(c));
	CHECK_INT(childrun_start(c, argv, env, 1024, 10000000, on_done, &h), 0);
	CHECK_INT(childrun_start(c, argv, env, 1024, 10000000, on_done, &h), -EBUSY);
	CHECK(childrun_free(c) == NULL);
	/* reaped: no child of ours is left */
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(h.calls, 0);
	CHECK(childrun_free(NULL) == NULL);
}

/* Whether process pid is gone for good (killed and reaped), running the
 * loop meanwhile for at most 5 s. */
static bool gone(sd_event *e, pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d", (int)pid);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 5000000;
	while (access(p, F_OK) == 0 && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 20000) >= 0);
	return access(p, F_OK) < 0;
}

static void test_reaper(sd_event *e)
{
	Reaper *r = NULL;
	CHECK_INT(reaper_new(e, &r), 0);
	ChildRun *a = NULL, *b = NULL;
	CHECK_INT(childrun_new(e, r, &a), 0);
	CHECK_INT(childrun_new(e, r, &b), 0);
	Heard h;
	/* a sleep left in the run's group: killed as the run exits */
	run_one(e, a, "sleep 300 & echo $!", 1024, 10000000, &h);
	pid_t left = (pid_t)atoi(h.out);
	CHECK(left > 1 && gone(e, left));
	/* one that left the group (setsid), still holding the output pipe */
	run_one(e, a, "setsid sleep 300 & echo $!", 1024, 10000000, &h);
	pid_t escaped = (pid_t)atoi(h.out);
	CHECK(escaped > 1 && gone(e, escaped));
	CHECK(reaper_swept(r) >= 1);
	/* a run still going is owned: another run's end sweeps around it */
	char *slow[] = {"sh", "-c", "sleep 1; echo done", NULL};
	Heard hs = {0};
	CHECK_INT(childrun_start(b, slow, env, 1024, 10000000, on_done, &hs), 0);
	run_one(e, a, "setsid sleep 300 & echo $!", 1024, 10000000, &h);
	escaped = (pid_t)atoi(h.out);
	CHECK(escaped > 1 && gone(e, escaped));
	run_until(e, &hs, 1);
	CHECK(hs.res.exited);
	CHECK_INT(hs.res.status, 0);
	CHECK_STR(hs.out, "done\n");
	/* nothing left, not even a zombie */
	for (int i = 0; i < 10; i++)
		CHECK(sd_event_run(e, 20000) >= 0);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	childrun_free(a);
	childrun_free(b);
	reaper_free(r);
}

int main(void)
{
	/* sd-event reaps children only with SIGCHLD blocked, as the daemon has it */
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	CHECK(sigprocmask(SIG_BLOCK, &ss, NULL) == 0);
	sd_event *e = NULL;
	CHECK(sd_event_new(&e) >= 0);
	ChildRun *c = NULL;
	CHECK_INT(childrun_new(e, NULL, &c), 0);
	test_prints(e, c);
	test_too_big(e, c);
	test_timeout(e, c);
	test_exit_chain(e, c);
	test_env(e, c);
	childrun_free(c);
	test_busy_free(e);
	test_reaper(e);
	sd_event_unref(e);
	return test_done("test-daemon-childrun");
}
