/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who uses a block device: its whole disk and all of that disk's
 * partitions, each matched by device number (never by a path's spelling:
 * swap switched on through a node outside /dev is still this disk).
 */
#include "safety-users.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysfs.h"
#include "util.h"

void safety_add(SafetyReport *r, const char *fmt, ...)
{
	if (r->n == SAFETY_MAX_REASONS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason[r->n++], sizeof r->reason[0], fmt, ap);
	va_end(ap);
}

int safety_read_dev(const char *path, unsigned *major, unsigned *minor)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int k = fscanf(f, "%u:%u", major, minor);
	fclose(f);
	return k == 2 ? 0 : -EBADMSG;
}

const char *safety_what_it_is(const char *type)
{
	return strstr(type, "zfs") ? " (a ZFS pool member)" : strstr(type, "raid") ? " (an md array member)"
	       : strstr(type, "LVM") ? " (an LVM physical volume)" : "";
}

/* ------------------------------------------------------------- the family */

static bool exists_in(const char *dir, const char *sub, const char *file)
{
	char p[PATH_MAX + 200];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s%s%s", dir, sub, *sub ? "/" : "", file);
	return stat(p, &st) == 0;
}

static void member(Family *f, const char *name, unsigned maj, unsigned min)
{
	if (f->n == SAFETY_FAMILY_MAX)
		return;
	SafetyDev *d = &f->dev[f->n++];
	snprintf(d->name, sizeof d->name, "%s", name);
	d->major = maj, d->minor = min;
}

/* The whole disk's directory, from the device's own: for a partition, the
 * directory it lives in. False when sysfs does not know the device. */
static bool disk_dir(const SafetyTarget *t, const char *name, char *ret, bool *ret_part)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/class/block/%s", t->sysfs_root, name);
	if (!realpath(path, ret)) {
		snprintf(path, sizeof path, "%s/block/%s", t->sysfs_root, name);
		if (!realpath(path, ret))
			return false;
	}
	*ret_part = exists_in(ret, "", "partition");
	char *slash = strrchr(ret, '/');
	if (*ret_part && slash && slash != ret)
		*slash = 0;
	return true;
}

void safety_family(const SafetyTarget *t, const char *name, dev_t dev, Family *ret)
{
	char real[PATH_MAX], p[PATH_MAX + 300];
	bool part = false;
	*ret = (Family){0};
	if (!disk_dir(t, name, real, &part) || strlen(real) >= sizeof ret->dir) {
		member(ret, name, major(dev), minor(dev));
		return;
	}
	memcpy(ret->dir, real, strlen(real) + 1);	/* length checked above */
	unsigned maj = major(dev), min = minor(dev);
	snprintf(p, sizeof p, "%s/dev", real);
	if (part && safety_read_dev(p, &maj, &min) < 0) {
		/* a partition whose disk cannot be told: itself alone, and the
		 * caller hears of it through dir being empty */
		ret->dir[0] = 0;
		member(ret, name, major(dev), minor(dev));
		return;
	}
	const char *slash = strrchr(real, '/');
	member(ret, part ? slash + 1 : name, maj, min);
	DIR *d = opendir(real);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof ret->dev[0].name || !exists_in(real, e->d_name, "partition"))
			continue;
		snprintf(p, sizeof p, "%s/%s/dev", real, e->d_name);
		if (safety_read_dev(p, &maj, &min) < 0)
			continue;
		if (part && makedev(maj, min) == dev)
			ret->self = ret->n;
		member(ret, e->d_name, maj, min);
	}
	if (d)
		closedir(d);
	if (part && ret->self == 0) {	/* gone from the listing since: still itself */
		ret->self = ret->n;
		member(ret, name, major(dev), minor(dev));
	}
}

bool safety_family_has(const Family *f, dev_t dev)
{
	for (unsigned i = 0; i < f->n; i++)
		if (makedev(f->dev[i].major, f->dev[i].minor) == dev)
			return true;
	return false;
}

static const char *member_of(const Family *f, dev_t dev)
{
	for (unsigned i = 0; i < f->n; i++)
		if (makedev(f->dev[i].major, f->dev[i].minor) == dev)
			return f->dev[i].name;
	return NULL;
}

/* ------------------------------------------------------------- the users */

static void holders(const Family *f, SafetyReport *r)
{
	if (!f->dir[0])
		return;
	for (unsigned i = 0; i < f->n; i++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/%s%sholders", f->dir, i ? f->dev[i].name : "", i ? "/" : "");
		DIR *d = opendir(path);
		for (struct dirent *e; d && (e = readdir(d));)
			if (e->d_name[0] != '.')
				safety_add(r, "%s is held by %s (device-mapper, md, LVM or bcache is built on it)", f->dev[i].name,
					   e->d_name);
		if (d)
			closedir(d);
	}
}

static void mounts(const SafetyTarget *t, const Family *f, SafetyReport *r)
{
	FILE *m = fopen(t->mountinfo, "re");
	char line[8192];
	while (m && fgets(line, sizeof line, m)) {
		unsigned maj, min;
		char mnt[4096];
		const char *which;
		/* id parent major:minor root mountpoint ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) == 3 && (which = member_of(f, makedev(maj, min))))
			safety_add(r, "%s is mounted at %s", which, mnt);
	}
	if (m)
		fclose(m);
}

void safety_unescape(char *s)
{
	char *w = s;
	for (const char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else
			*w++ = *p;
	}
	*w = 0;
}

int safety_swaps_each(const char *swaps, SwapFn fn, void *userdata)
{
	FILE *f = fopen(swaps, "re");
	if (!f)
		return -errno;
	char line[4200], path[4100];
	bool first = true;
	while (fgets(line, sizeof line, f)) {
		/* "Filename Type Size Used Priority": the header names no swap */
		if (sscanf(line, "%4095s", path) != 1 || (first && streq(path, "Filename"))) {
			first = false;
			continue;
		}
		first = false;
		safety_unescape(path);
		struct stat st;
		fn(path, stat(path, &st) == 0 ? &st : NULL, userdata);
	}
	fclose(f);
	return 0;
}

typedef struct SwapMatch {
	const Family *f;
	SafetyReport *r;
} SwapMatch;

static void swap_on(const char *path, const struct stat *st, void *userdata)
{
	SwapMatch *m = userdata;
	const char *which;
	if (!st)
		safety_add(m->r, "swap %s no longer resolves to a device or file: not safe to assume it is not on %s", path,
			   m->f->dev[m->f->self].name);
	else if (S_ISBLK(st->st_mode) && (which = member_of(m->f, st->st_rdev)))
		safety_add(m->r, "%s is in use as swap (%s)", which, path);
	else if (S_ISREG(st->st_mode) && (which = member_of(m->f, st->st_dev)))
		safety_add(m->r, "%s holds a swap file in use, %s", which, path);
}

static void swaps(const SafetyTarget *t, const Family *f, SafetyReport *r)
{
	SwapMatch m = {f, r};
	/* no /proc/swaps: a kernel without swap */
	int k = safety_swaps_each(t->swaps, swap_on, &m);
	if (k < 0 && k != -ENOENT)
		safety_add(r, "%s cannot be read: not safe to assume nothing swaps on %s", t->swaps, f->dev[f->self].name);
}

/* Write access from /proc/PID/fdinfo/N's octal "flags:". */
static bool opened_for_writing(const char *proc, const char *pid, const char *fd)
{
	char path[600], line[128];
	snprintf(path, sizeof path, "%s/%s/fdinfo/%s", proc, pid, fd);
	FILE *f = fopen(path, "re");
	bool w = false;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long flags;
		if (sscanf(line, "flags: %lo", &flags) == 1) {
			w = (flags & O_ACCMODE) != O_RDONLY;
			break;
		}
	}
	if (f)
		fclose(f);
	return w;
}

/* What an open file must be to count: a member of f (block devices), or
 * the file (dev, ino) when f is NULL. */
typedef struct Match {
	const Family *f;
	dev_t file_dev;
	ino_t file_ino;
	const char *file_name;
} Match;

static const char *matches(const Match *m, const struct stat *st)
{
	if (!m->f)
		return S_ISREG(st->st_mode) && st->st_dev == m->file_dev && st->st_ino == m->file_ino ? m->file_name : NULL;
	return S_ISBLK(st->st_mode) ? member_of(m->f, st->st_rdev) : NULL;
}

static void comm_of(const char *proc, const char *pid, char *ret, size_t n)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s/comm", proc, pid);
	snprintf(ret, n, "?");
	FILE *c = fopen(path, "re");
	if (c && fgets(ret, (int)n, c))
		ret[strcspn(ret, "\n")] = 0;
	if (c)
		fclose(c);
}

/* Any other process that has a member (or the file) open for writing. */
static void openers(const SafetyTarget *t, const Match *m, SafetyReport *r)
{
	DIR *proc = opendir(t->proc_root);
	char self[32];
	snprintf(self, sizeof self, "%d", (int)getpid());
	for (struct dirent *p; proc && (p = readdir(proc));) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9' || streq(p->d_name, self))
			continue;
		char path[600];
		snprintf(path, sizeof path, "%s/%s/fd", t->proc_root, p->d_name);
		DIR *fds = opendir(path);
		for (struct dirent *f; fds && (f = readdir(fds));) {
			struct stat st;
			char fp[900], comm[64];
			if (f->d_name[0] == '.')
				continue;
			snprintf(fp, sizeof fp, "%s/%s", path, f->d_name);
			const char *which;
			if (stat(fp, &st) < 0 || !(which = matches(m, &st)) ||
			    !opened_for_writing(t->proc_root, p->d_name, f->d_name))
				continue;
			comm_of(t->proc_root, p->d_name, comm, sizeof comm);
			safety_add(r, "process %s (%s) has %s open for writing", p->d_name, comm, which);
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
}

void safety_file_writers(const SafetyTarget *t, dev_t dev, ino_t ino, const char *name, SafetyReport *r)
{
	Match m = {.file_dev = dev, .file_ino = ino, .file_name = name};
	openers(t, &m, r);
}

static void udev_type(const SafetyTarget *t, const SafetyDev *d, SafetyReport *r)
{
	char path[4096], line[1024];
	snprintf(path, sizeof path, "%s/data/b%u:%u", t->udev_root, d->major, d->minor);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof line, f)) {
		if (!startswith(line, "E:ID_FS_TYPE=") || !line[13] || line[13] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		safety_add(r, "udev says %s holds %s%s", d->name, line + 13, safety_what_it_is(line + 13));
	}
	if (f)
		fclose(f);
}

void safety_users(const SafetyTarget *t, const Family *f, SafetyReport *r)
{
	holders(f, r);
	mounts(t, f, r);
	swaps(t, f, r);
	Match m = {.f = f};
	openers(t, &m, r);
	/* the disk itself: its partitions too; a partition: it and its disk */
	for (unsigned i = 0; i < f->n; i++)
		if (f->self == 0 || i == 0 || i == f->self)
			udev_type(t, &f->dev[i], r);
}

/* ------------------------------------------------ loop devices above it */

#define ABOVE_DEPTH 8

/* The block device loop device `name` (device number self) is set up
 * over: 1 with *ret, 0 over a regular file, <0 when it cannot be told. The
 * loop's own word first (LOOP_GET_STATUS64 on /dev/NAME, once that node is
 * seen to be this very device): the path in backing_file may since have
 * been unlinked, or name another device in another mount namespace. Else
 * that path's stat(). */
static int loop_over(const SafetyTarget *t, const char *name, dev_t self, dev_t *ret)
{
	char path[PATH_MAX + 200];
	struct stat st;
	struct loop_info64 li;
	snprintf(path, sizeof path, "/dev/%s", name);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == self &&
	    ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		*ret = (dev_t)li.lo_rdevice;	/* 0 for a regular file */
		return *ret != 0;
	}
	snprintf(path, sizeof path, "%s/block/%s/loop/backing_file", t->sysfs_root, name);
	FILE *f = fopen(path, "re");
	char backing[PATH_MAX] = "";
	if (!f)
		return -errno;
	if (!fgets(backing, sizeof backing, f))
		backing[0] = 0;
	fclose(f);
	backing[strcspn(backing, "\n")] = 0;
	if (!backing[0] || stat(backing, &st) < 0)
		return -ENOENT;
	*ret = st.st_rdev;
	return S_ISBLK(st.st_mode);
}

static void loops_over(const SafetyTarget *t, const Family *f, SafetyReport *r, unsigned depth)
{
	char blk[1024], path[1400];
	snprintf(blk, sizeof blk, "%s/block", t->sysfs_root);
	DIR *d = opendir(blk);
	for (struct dirent *e; d && (e = readdir(d));) {
		unsigned maj, min;
		dev_t over = 0;
		const char *which;
		snprintf(path, sizeof path, "%s/%s/dev", blk, e->d_name);
		/* a loop device whose backing nothing can identify (its file
		 * system gone away) is skipped: every one on the machine would
		 * otherwise refuse every disk */
		if (!startswith(e->d_name, "loop") || !sysfs_valid_name(e->d_name) || !exists_in(blk, e->d_name, "loop") ||
		    safety_read_dev(path, &maj, &min) < 0 || safety_family_has(f, makedev(maj, min)) ||
		    loop_over(t, e->d_name, makedev(maj, min), &over) <= 0 || !(which = member_of(f, over)))
			continue;
		/* "it" for the device qualify was asked about, else by name */
		const char *on = depth == 0 && t->name && streq(which, t->name) ? "it" : which;
		safety_add(r, "%s is set up over %s (a loop device: what it holds would be overwritten; losetup -d it first)",
			   e->d_name, on);
		/* what uses it in turn, loop devices stacked on it included */
		Family of;
		SafetyReport sub = {0};
		safety_family(t, e->d_name, makedev(maj, min), &of);
		safety_users(t, &of, &sub);
		if (depth + 1 < ABOVE_DEPTH)
			loops_over(t, &of, &sub, depth + 1);
		else
			safety_add(&sub, "loop devices stacked deeper than %u: not safe to follow", ABOVE_DEPTH);
		for (unsigned i = 0; i < sub.n; i++)
			safety_add(r, "above it, %s, in use: %s", e->d_name, sub.reason[i]);
	}
	if (d)
		closedir(d);
}

void safety_loops_over(const SafetyTarget *t, const Family *f, SafetyReport *r)
{
	loops_over(t, f, r, 0);
}
