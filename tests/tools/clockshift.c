/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD=libclockshift.so CLOCKSHIFT_FILE=F: CLOCK_REALTIME (and
 * time(), gettimeofday()) run ahead by the number of seconds in F, read
 * again when F changes (looked at every 100 ms): a wall clock that is wrong
 * at start, or that jumps while the program runs, for the history's fault
 * tests. The monotonic clocks are left alone, as the kernel leaves them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static long long shift_ns, checked_ns;
static struct timespec seen;

static long long mono_ns(void)
{
	struct timespec t;
	real_clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void refresh(void)
{
	if (!real_clock_gettime)
		real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	long long now = mono_ns();
	if (checked_ns && now - checked_ns < 100000000LL)
		return;
	checked_ns = now;
	const char *path = getenv("CLOCKSHIFT_FILE");
	struct stat st;
	if (!path || stat(path, &st) < 0)
		return;
	if (st.st_mtim.tv_sec == seen.tv_sec && st.st_mtim.tv_nsec == seen.tv_nsec)
		return;
	seen = st.st_mtim;
	FILE *f = fopen(path, "re");
	double s;
	if (f && fscanf(f, "%lf", &s) == 1)
		shift_ns = (long long)(s * 1e9);
	if (f)
		fclose(f);
}

int clock_gettime(clockid_t c, struct timespec *ts)
{
	refresh();
	int r = real_clock_gettime(c, ts);
	if (r == 0 && (c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE)) {
		long long ns = ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_ns;
		ts->tv_sec = ns / 1000000000LL;
		ts->tv_nsec = ns % 1000000000LL;
	}
	return r;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;
	(void)tz;
	int r = clock_gettime(CLOCK_REALTIME, &ts);
	if (r == 0) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return r;
}

time_t time(time_t *t)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
