/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state directory: reached from / one component at a time, each one
 * checked (no link, no directory, that another user could swap), created
 * where missing, and locked, so that one smrd at a time writes its history.
 */
#pragma once

#include <sys/types.h>

typedef struct StateDir StateDir;

/* Opens (creating) path and takes its lock. -ELOOP: a symbolic link that
 * is not to be followed; -EPERM: a component another user could change;
 * -ENOTDIR; -EBUSY: another process holds the lock (*ret_holder its pid,
 * 0 if unknown). *ret_error says which component and why (caller frees). */
int statedir_open(const char *path, StateDir **ret, pid_t *ret_holder, char **ret_error);
/* Releases the lock. */
StateDir *statedir_free(StateDir *d);
