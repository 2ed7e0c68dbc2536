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

/* Whether a process of group pgid is left that is not a zombie. */
bool procgroup_alive(pid_t pgid);
/* Sends sig to every process of the group; 0 or -errno. */
int procgroup_kill(pid_t pgid, int sig);
