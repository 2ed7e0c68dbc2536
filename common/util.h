/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers shared by smrd and smrctl: cleanup attributes, bounded file
 * reads and string utilities. Nothing here logs or keeps state.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _fallthrough_ __attribute__((fallthrough))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Takes ownership away from a cleanup variable. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool startswith(const char *s, const char *prefix) {
	return strncmp(s, prefix, strlen(prefix)) == 0;
}
static inline bool streq_ptr(const char *a, const char *b) {
	return (!a || !b) ? a == b : streq(a, b);
}

/* Reads at most max bytes of a regular file (or /dev/null) into a
 * NUL-terminated buffer; -EBADFD for anything else, which is never opened
 * blocking; -EFBIG past max. */
int read_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_len);
/* The same into a buffer kept between reads (a file read every second):
 * it grows as needed and is not given back. */
typedef struct ReadBuf {
	char *data;
	size_t cap;
} ReadBuf;
int read_file_buf(int dirfd, const char *path, size_t max, ReadBuf *b, size_t *ret_len);
void read_buf_done(ReadBuf *b);
/* What a read_file_at() error means, for a log line or a reply. */
const char *read_error_string(int r);
/* Reads a one-line sysfs attribute, stripped of trailing white space. */
int read_line_at(int dirfd, const char *path, char **ret);
/* Reads a decimal unsigned attribute. */
int read_u64_at(int dirfd, const char *path, uint64_t *ret);

/* Strict decimal parse: no sign, no trailing garbage, no overflow. */
int parse_u64(const char *s, uint64_t *ret);
int parse_double(const char *s, double *ret);
/* Strips leading and trailing white space in place. */
char *strstrip(char *s);
/* Appends printf output to a growing buffer. */
typedef struct Buf {
	char *data;
	size_t len, cap;
	bool oom;
} Buf;
void buf_printf(Buf *b, const char *fmt, ...) _printf_(2, 3);
void buf_put(Buf *b, const char *s, size_t n);
/* A NUL-terminated string. */
void buf_puts(Buf *b, const char *s);
/* Makes room for n more bytes at once (one allocation for a known size). */
void buf_reserve(Buf *b, size_t n);
void buf_free(Buf *b);
/* A number as text, NUL-terminated; returns its length. Integers exactly;
 * others with at most `decimals` decimals and no trailing zeros (0.1, not
 * 0.09999999999999998), or decimals < 0: the shortest form that reads back
 * exactly. NaN, +Inf, -Inf as Prometheus writes them. */
size_t format_number(char out[static 32], double v, int decimals);
/* Returns a malloc'd copy of s with characters outside printable ASCII replaced. */
char *str_sanitize(const char *s);
/* s into out (n bytes, NUL-terminated, cut at a whole escape) with each
 * control byte (below 0x20, and 0x7f) as \xNN: one line of text, whatever
 * came in, that no terminal, log or journal takes for a command or a
 * line of its own. Other bytes (UTF-8) are kept. Returns out. */
char *str_escape_control(const char *s, char *out, size_t n);
/* The clock's time in microseconds, or in seconds. */
uint64_t now_usec(clockid_t clock);
/* What one turn of the event loop calls "now" (sd_event_now), read once
 * and passed down, so that every step of one sample dates alike. */
typedef struct TickTime {
	uint64_t mono_usec, real_usec;	/* CLOCK_MONOTONIC, CLOCK_REALTIME */
} TickTime;
/* Both clocks read now: for a caller outside the loop (--oneshot, tests). */
TickTime tick_time_now(void);
double now_seconds(clockid_t clock);
/* "sda" from "/dev/sda" (or "sda"). */
const char *device_name(const char *dev);
/* Formats an error message into *ret_error (when ret_error is not NULL;
 * NULL on OOM) and returns r, for `return set_errorf(ret_error, -EINVAL, ...)`. */
int set_errorf(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
/* Device names in lsblk's order: sdz before sdaa (a family's letters count
 * in base 26), loop2 before loop10, nvme0n2 before nvme0n10. */
int devname_cmp(const char *a, const char *b);

/* path made absolute against the working directory (not resolved: it need
 * not exist yet); NULL on error. */
char *absolute_path(const char *path);
