/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The history's files on disk. SQLite opens not only events.db but its
 * -wal (replayed into the database: a planted one rewrites the history),
 * -shm and -journal, and when smrd runs as root it chowns an existing one
 * to the database's owner, keeping its mode. So each is checked before
 * SQLite sees it: a regular file of ours that no one else may write. The
 * database is created 0640; SQLite gives the files it creates beside it the
 * database's mode, so none is ever more open than that.
 */
#include "history-private.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

static const char *const sidecars[] = {"-wal", "-shm", "-journal"};

/* A file of ours and no one else's to write; what others may read of it is taken away. */
static int check_file(const char *path, char *why, size_t n)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO someone planted must not hang us */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno != ELOOP)
		return snprintf(why, n, "cannot be opened (%s)", strerror(errno)), -EPERM;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return snprintf(why, n, "is %s", fd < 0 ? "a symbolic link" : "not a regular file"), -EPERM;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return snprintf(why, n, "belongs to uid %u, not to smrd", (unsigned)st.st_uid), -EPERM;
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return snprintf(why, n, "is writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777)), -EPERM;
	if ((st.st_mode & 07777 & ~0640) && fchmod(fd, st.st_mode & 0640) < 0)
		return snprintf(why, n, "cannot be made private (%s)", strerror(errno)), -EPERM;
	return 0;
}

/* A sidecar that is not ours: moved aside, so that SQLite neither reads it
 * nor takes it over; kept for whoever wants to know who put it there. */
static int check_sidecars(History *h)
{
	for (size_t i = 0; i < ELEMENTSOF(sidecars); i++) {
		char path[4200], aside[4300], why[96];
		snprintf(path, sizeof path, "%s%s", h->path, sidecars[i]);
		if (check_file(path, why, sizeof why) == 0)
			continue;
		long long now = (long long)time(NULL);
		snprintf(aside, sizeof aside, "%s.untrusted-%lld", path, now);
		if (rename(path, aside) < 0) {
			snprintf(h->last_error, sizeof h->last_error, "%.120s %.60s, and cannot be moved aside: %.40s",
				 path, why, strerror(errno));
			return -EPERM;
		}
		snprintf(h->notice, sizeof h->notice, "%.150s %.60s: moved aside unread, as %s.untrusted-%lld", path, why,
			 sidecars[i], now);
		h->has_notice = true;
	}
	return 0;
}

int history_own_files(History *h)
{
	char why[96];
	int fd = open(h->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd >= 0)
		close(fd);
	else if (errno != EEXIST)
		return -errno;
	else if (check_file(h->path, why, sizeof why) < 0) {
		/* never another user's file (a corrupt-file check would move it aside) */
		snprintf(h->last_error, sizeof h->last_error, "%.120s %.60s, not a database file of smrd's: left alone",
			 h->path, why);
		return -EPERM;
	}
	return check_sidecars(h);
}

int history_move_aside(History *h, char *aside, size_t n)
{
	snprintf(aside, n, "%s.corrupt-%lld", h->path, (long long)time(NULL));
	const char *suffix[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ELEMENTSOF(suffix); i++) {
		char from[4200], to[4200];
		snprintf(from, sizeof from, "%s%s", h->path, suffix[i]);
		snprintf(to, sizeof to, "%s%s", aside, suffix[i]);
		if (rename(from, to) < 0 && errno != ENOENT)
			return -errno;
	}
	return 0;
}
