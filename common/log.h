/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging for smrd: syslog priorities on stderr, with "<N>" prefixes when
 * stderr is the journal (systemd sets JOURNAL_STREAM) so journald keeps them.
 */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "util.h"

/* Whether stderr is the journal: JOURNAL_STREAM (set by systemd) names
 * stderr's own device and inode. Then a line logged there is a journal
 * entry already, and a native entry of the same event would be a second. */
bool log_stderr_is_journal(void);
/* Sets the highest priority printed (LOG_DEBUG prints everything). */
void log_set_max_level(int level);
int log_get_max_level(void);
/* Logs and returns r (a negative errno) so callers can `return log_..._errno(r, ...)`. */
int log_full_errno(int level, int r, const char *fmt, ...) _printf_(3, 4);

#define log_full(level, ...) ((void)log_full_errno(level, 0, __VA_ARGS__))
#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
#define log_debug_errno(r, ...) log_full_errno(LOG_DEBUG, r, __VA_ARGS__)
#define log_warning_errno(r, ...) log_full_errno(LOG_WARNING, r, __VA_ARGS__)
#define log_error_errno(r, ...) log_full_errno(LOG_ERR, r, __VA_ARGS__)
