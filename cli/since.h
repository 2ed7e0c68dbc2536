/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
#include <time.h>

/* Parses a --since value as journalctl does (systemd.time(7)): "now",
 * "today", "yesterday", "tomorrow", "-30m", "2 hours ago", "1h30m ago",
 * "+1h", "5min left", "2026-11-30", "[Mon ]2026-11-30 07:15[:00]" (or with
 * a T), "07:15" (today), "@1764486000"; and a bare span ("1h") counts back,
 * as smrctl always took it. Spans: us, ms, s/sec/second(s), m/min/minute(s),
 * h/hr/hour(s), d/day(s), w/week(s), M/month(s), y/year(s), combined
 * ("1h 30min") or a bare number (seconds). Returns 0 and seconds since the
 * epoch. */
int parse_since(const char *s, time_t now, double *ret);
