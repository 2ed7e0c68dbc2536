/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way smrd writes a duration, a size or a byte rate for a person:
 * in events and the log, smrctl, the web pages. Durations as the events
 * have always read ("140 us", "7.9 ms", "1.62 s", "3.4 min", "2.5 h"); sizes and
 * rates in lsblk's binary units ("931.5G", "12.3M/s"), since that is what
 * an admin compares them with. Numbers meant to be read back by a program
 * (--check-config, metrics, JSON) use format_number() instead.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define FORMAT_MAX 24

/* "-" when not finite. */
const char *format_duration(char buf[static FORMAT_MAX], double seconds);
/* Time left for what runs for minutes or days (a rebuild): "-" unknown,
 * "< 1 s" at its end, never a microsecond count. */
const char *format_left(char buf[static FORMAT_MAX], double seconds);
/* Bytes as lsblk shows them: "512B", "4K", "465.8G". */
const char *format_size(char buf[static FORMAT_MAX], double bytes);
/* Bytes a second: "0B/s", "980K/s", "12.3M/s". */
const char *format_rate(char buf[static FORMAT_MAX], double bytes_per_second);
/* The shortest decimal that reads back as exactly v ("52428800", "0.1",
 * "2.5e-05"), for output that a parser takes back. */
const char *format_exact(char buf[static 32], double v);
/* A size as fio and lsblk write them: "4096", "4k", "16KiB", "24G", "1.5T"
 * (binary units; a trailing B optional); -EINVAL unless positive. */
int parse_size(const char *s, uint64_t *ret);
