/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One child command run from the event loop, never blocking it: started in
 * a session of its own (procgroup_spawn: a kill reaches what it started),
 * stdin /dev/null, stderr discarded, its stdout read as it comes up to a
 * byte cap and its time bounded (past either its group is killed). Once
 * it exits, what it left in its group is killed too, and what left the
 * group (setsid) is the reaper's to find (reaper.h). Its user owns the
 * handle and is told how the run ended through the callback it gave; one
 * run at a time per handle.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "reaper.h"

typedef struct ChildRun ChildRun;

/* How a run ended. */
typedef struct ChildRunResult {
	bool exited;		/* it exited (status: its code); else a signal ended it (status: the signal) */
	int status;
	bool timed_out;		/* ran past its time: killed */
	bool too_big;		/* printed more than its cap (or no memory to keep it): killed */
	const char *out;	/* what it printed, NUL-terminated, never NULL; valid during the callback */
	size_t out_len;
} ChildRunResult;

/* A run ended; the handle is idle again (the callback may start the next
 * run on it, or free it). */
typedef void (*ChildRunDone)(const ChildRunResult *res, void *userdata);

/* An idle handle on event loop e, its runs' groups owned in reaper (NULL:
 * none, what a run leaves outside its group is not looked for); 0 or -errno. */
int childrun_new(sd_event *e, Reaper *reaper, ChildRun **ret);
/* Kills a run under way (its group) and reaps it; the callback is not called. */
ChildRun *childrun_free(ChildRun *c);
/* Starts argv[0] (looked up in PATH) with environment env; killed once it
 * printed more than max_bytes or ran past timeout_usec; done is called once
 * when it ended. 0, -EBUSY a run is under way, or -errno (nothing runs). */
int childrun_start(ChildRun *c, char *const argv[], char *const env[], size_t max_bytes, uint64_t timeout_usec,
		   ChildRunDone done, void *userdata);
/* Whether a run is under way. */
bool childrun_running(const ChildRun *c);

/* A child's environment: the daemon's, less the variables that begin with
 * one of drop (NULL-terminated, e.g. "LC_ALL="), then add's (NULL-terminated)
 * in order. 0 or -ENOMEM. */
int childrun_env_new(const char *const drop[], const char *const add[], char ***ret);
/* Frees an environment of childrun_env_new; NULL. */
char **childrun_env_free(char **env);
