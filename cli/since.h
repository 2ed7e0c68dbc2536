/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
#include <time.h>

/* Parses a --since value as journalctl users type it: "1h", "-30m", "2d ago",
 * "today", "yesterday", "2026-11-30", "2026-11-30 07:15[:00]" (or with a T),
 * "07:15" (today), "@1764486000". Returns 0 and seconds since the epoch. */
int parse_since(const char *s, time_t now, double *ret);
