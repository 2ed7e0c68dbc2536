/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hook's process group (its session, as it runs in one of its own): what
 * the hook started is held to the hook's deadline and killed with it, also
 * once the hook itself ended. Zombies do not count: a container's init may
 * never reap what was reparented to it.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Of /proc/PID/stat (pid a decimal string): the state letter, the parent
 * and the process group; false if it is gone or unreadable. */
bool procgroup_stat(const char *pid, char *ret_state, pid_t *ret_ppid, pid_t *ret_pgrp);
/* Whether a process of group pgid is left that is not a zombie. */
bool procgroup_alive(pid_t pgid);
/* Sends sig to every process of the group; 0 or -errno. */
int procgroup_kill(pid_t pgid, int sig);
/* Starts argv[0] (looked up in PATH when search) in a session of its own,
 * with environment env, stdin /dev/null, stdout (and stderr when
 * with_stderr, else /dev/null) into a non-blocking pipe whose read end is
 * *ret_out, no fd above 2, default signals unblocked. 0 or -errno. */
int procgroup_spawn(char *const argv[], char *const env[], bool search, bool with_stderr, pid_t *ret_pid,
		    int *ret_out);
