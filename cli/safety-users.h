/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who uses a block device, for safety.c: its whole disk and every
 * partition of that disk, found through sysfs and matched by device number
 * against mounts, swap, holders, writers and udev's signatures. A write to
 * one partition (or to a loop device over it) is a write to the disk the
 * others live on, so a partition is never looked at alone.
 */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "safety.h"

#define SAFETY_FAMILY_MAX 64

void safety_add(SafetyReport *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int safety_read_dev(const char *path, unsigned *major, unsigned *minor);
/* " (a ZFS pool member)" and the like for a signature type, else "". */
const char *safety_what_it_is(const char *type);

typedef struct SafetyDev {
	char name[64];
	unsigned major, minor;
} SafetyDev;

/* A whole disk and its partitions: dev[0] is the disk, dev[self] the
 * device asked about. */
typedef struct Family {
	char dir[1024];			/* the whole disk's sysfs directory ("" when sysfs does not know it) */
	unsigned n, self;
	SafetyDev dev[SAFETY_FAMILY_MAX];
} Family;

/* The family of block device `name` (dev is its device number): found
 * through class/block/NAME, which exists for disks and partitions alike,
 * or block/NAME (a test's sysfs copy). A device sysfs does not know is a
 * family of one. */
void safety_family(const SafetyTarget *t, const char *name, dev_t dev, Family *ret);
bool safety_family_has(const Family *f, dev_t dev);

/* Holders, mounts, swap, writers and udev signatures of every member;
 * udev's signatures of the device itself and its whole disk only (a
 * sibling partition with a filesystem is only in the way when in use). */
void safety_users(const SafetyTarget *t, const Family *f, SafetyReport *r);

/* Loop devices set up over any member: each reads and writes that
 * member's blocks, mounted or not, yet is neither a holder nor a process;
 * what uses each in turn (loop devices stacked on it too) is said with it. */
void safety_loops_over(const SafetyTarget *t, const Family *f, SafetyReport *r);

/* Every line of a /proc/swaps file: its path (octal escapes undone) and
 * stat() of it, NULL when it does not resolve. -errno if unreadable. */
typedef void (*SwapFn)(const char *path, const struct stat *st, void *userdata);
int safety_swaps_each(const char *swaps, SwapFn fn, void *userdata);
/* /proc's escapes (\040 for a space, \011, \012, \134) undone in place. */
void safety_unescape(char *s);

/* Other processes that have the file (dev, ino) open for writing. */
void safety_file_writers(const SafetyTarget *t, dev_t dev, ino_t ino, const char *name, SafetyReport *r);
