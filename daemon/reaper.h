/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What smrd's children leave behind when they end. smrd is made the
 * subreaper of its descendants (PR_SET_CHILD_SUBREAPER): a process whose
 * parent exits is handed to smrd rather than to PID 1, also one that left
 * its session with setsid(), which a kill of the run's process group
 * misses. The modules that start children (childrun.h, the notifier) say
 * which process groups are theirs while they run; once one of them is
 * released, every other child of smrd is killed and reaped, and what each
 * of those leaves in turn comes up to smrd and goes the same way. The
 * common case costs one waitid(): no child is left.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct Reaper Reaper;

/* Makes this process a subreaper; 0 or -errno. */
int reaper_new(sd_event *e, Reaper **ret);
/* What it still watches is left to the service manager. */
Reaper *reaper_free(Reaper *r);
/* The process group pgid (a child started in a session of its own) is
 * its owner's until released: its members are never swept. r NULL: nothing. */
int reaper_own(Reaper *r, pid_t pgid);
/* The owner is done with pgid (killed what it wanted to, reaped its
 * leader): what is left of it, and any other child of smrd no one owns,
 * is killed and reaped from the event loop. r NULL: nothing. */
void reaper_release(Reaper *r, pid_t pgid);
/* Processes killed or reaped since start that no one owned. */
uint64_t reaper_swept(const Reaper *r);
