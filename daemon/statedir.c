/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whoever can change a directory on the way to the state directory can
 * point smrd's writes anywhere (root writing events.db into a directory of
 * their choosing) or hand it a history of their own. So the path is walked
 * from / with openat(O_NOFOLLOW), as systemd's chase() does with
 * CHASE_SAFE: every directory must belong to root or to smrd's user, and
 * none may be writable by anyone else, except one that is root's and
 * sticky (/tmp), where no one else can rename what is ours. A symbolic
 * link is followed only when root or smrd's user made it (it lies in a
 * directory that passed these checks, so no one else could have); its
 * target is walked by the same rules. The state directory itself is never
 * a link and is writable by smrd's user alone, sticky or not, as systemd's
 * StateDirectory= makes it: what another user could plant there (a -wal
 * file, a lock) would be read as ours. Checked once, at start: after that
 * only root or smrd's user can change any of it.
 *
 * The lock is flock() on the directory itself, which needs no file (a
 * read-only state directory is still locked) and dies with the process.
 */
#include "statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

#define STATEDIR_LINKS_MAX 32

struct StateDir {
	int fd;
};

typedef struct Walk {
	int fd;				/* the directory reached so far */
	char done[PATH_MAX];		/* its path, for messages */
	char todo[PATH_MAX];		/* what is left to walk */
	unsigned links;
	char *error;
} Walk;

static int fail(Walk *w, int r, const char *name, const char *why);

/* A system call's failure on a component: what failed, and why. */
static int fail_errno(Walk *w, const char *name, const char *what)
{
	int r = -errno;
	char why[128];
	snprintf(why, sizeof why, "%s: %s", what, strerror(-r));
	return fail(w, r, name, why);
}

static int fail(Walk *w, int r, const char *name, const char *why)
{
	free(w->error);
	if (asprintf(&w->error, "%s%s%s %s", w->done, streq(w->done, "/") || !*name ? "" : "/", name, why) < 0)
		w->error = NULL;
	return r;
}

static bool trusted_uid(uid_t uid) { return uid == 0 || uid == geteuid(); }

static int check_dir(Walk *w, const char *name, const struct stat *st, bool last)
{
	char why[96];
	if (!S_ISDIR(st->st_mode))
		return fail(w, -ENOTDIR, name, "is not a directory");
	if (!trusted_uid(st->st_uid)) {
		snprintf(why, sizeof why, "belongs to uid %u, neither root nor smrd's user", (unsigned)st->st_uid);
		return fail(w, -EPERM, name, why);
	}
	bool others = (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != 0);
	if (last && (st->st_mode & (S_IWGRP | S_IWOTH)))
		return fail(w, -EPERM, name, "is writable by others (group or world: the state directory must be smrd's alone)");
	if (others && !(st->st_uid == 0 && (st->st_mode & S_ISVTX)))
		return fail(w, -EPERM, name, "is writable by others and not a sticky directory of root's");
	return 0;
}

/* A link: its target is walked next, from / or from where it lies. */
static int follow(Walk *w, const char *name, const struct stat *st, const char *rest, bool last)
{
	char target[PATH_MAX];
	if (last)
		return fail(w, -ELOOP, name, "is a symbolic link");
	if (!trusted_uid(st->st_uid)) {
		char why[96];
		snprintf(why, sizeof why, "is a symbolic link made by uid %u, neither root nor smrd's user",
			 (unsigned)st->st_uid);
		return fail(w, -ELOOP, name, why);
	}
	if (++w->links > STATEDIR_LINKS_MAX)
		return fail(w, -ELOOP, name, "is one symbolic link too many (a loop?)");
	ssize_t n = readlinkat(w->fd, name, target, sizeof target - 1);
	if (n <= 0)
		return fail(w, n < 0 ? -errno : -ENOENT, name, "is a symbolic link that cannot be read");
	target[n] = 0;
	char next[PATH_MAX];
	if ((size_t)snprintf(next, sizeof next, "%s/%s", target, rest) >= sizeof next)
		return fail(w, -ENAMETOOLONG, name, "leads to too long a path");
	snprintf(w->todo, sizeof w->todo, "%s", next);
	if (target[0] == '/') {
		close(w->fd);
		w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		snprintf(w->done, sizeof w->done, "/");
		if (w->fd < 0)
			return -errno;
	}
	return 0;
}

/* One component: created if missing, checked, entered (or a link followed). */
static int step(Walk *w, const char *name, const char *rest, bool last)
{
	struct stat st;
	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return fail_errno(w, name, "cannot be looked at");
		if (mkdirat(w->fd, name, last ? 0750 : 0755) < 0 && errno != EEXIST)
			return fail_errno(w, name, "cannot be created");
		if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return fail_errno(w, name, "cannot be looked at");
	}
	if (S_ISLNK(st.st_mode))
		return follow(w, name, &st, rest, last);
	int r = check_dir(w, name, &st, last);
	if (r < 0)
		return r;
	/* O_PATH cannot be locked: the state directory itself is opened to read */
	int fd = openat(w->fd, name, (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat now;
	if (fd < 0)
		return fail_errno(w, name, "cannot be opened");
	if (fstat(fd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		close(fd);
		return fail(w, -EAGAIN, name, "changed while it was checked");
	}
	close(w->fd);
	w->fd = fd;
	size_t len = strlen(w->done);
	snprintf(w->done + len, sizeof w->done - len, "%s%s", len > 1 ? "/" : "", name);
	return 0;
}

static int walk(Walk *w)
{
	for (;;) {
		char *p = w->todo;
		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		char name[NAME_MAX + 1], rest[PATH_MAX];
		size_t n = strcspn(p, "/");
		if (n > NAME_MAX)
			return fail(w, -ENAMETOOLONG, "", "has too long a name in it");
		memcpy(name, p, n);
		name[n] = 0;
		snprintf(rest, sizeof rest, "%s", p + n);
		bool last = !rest[strspn(rest, "/")];
		snprintf(w->todo, sizeof w->todo, "%s", rest);
		if (streq(name, "."))
			continue;
		int r = step(w, name, rest, last);
		if (r < 0)
			return r;
	}
}

/* The pid holding a flock on the file (dev, ino), from /proc/locks; 0 if not found. */
static pid_t lock_holder(const struct stat *st)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/locks", "re");
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		int pid;
		unsigned maj, min;
		unsigned long ino;
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min, &ino) == 4 &&
		    maj == major(st->st_dev) && min == minor(st->st_dev) && ino == st->st_ino)
			return pid;
	}
	return 0;
}

static int lock(Walk *w, pid_t *ret_holder)
{
	if (flock(w->fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return fail_errno(w, "", "cannot be locked");
	struct stat st;
	pid_t pid = fstat(w->fd, &st) == 0 ? lock_holder(&st) : 0;
	if (ret_holder)
		*ret_holder = pid;
	free(w->error);
	if ((pid ? asprintf(&w->error, "%s is in use by another smrd (pid %d)", w->done, (int)pid)
		 : asprintf(&w->error, "%s is in use by another smrd", w->done)) < 0)
		w->error = NULL;
	return -EBUSY;
}

int statedir_open(const char *path, StateDir **ret, pid_t *ret_holder, char **ret_error)
{
	Walk w = {.fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), .done = "/"};
	int r = w.fd < 0 ? -errno : 0;
	char cwd[PATH_MAX];
	if (r == 0 && path[0] != '/' && !getcwd(cwd, sizeof cwd))
		r = -errno;
	if (r == 0 && (size_t)snprintf(w.todo, sizeof w.todo, "%s/%s", path[0] == '/' ? "" : cwd, path) >= sizeof w.todo)
		r = -ENAMETOOLONG;
	if (r == 0)
		r = walk(&w);
	if (r == 0)
		r = lock(&w, ret_holder);
	StateDir *d = r == 0 ? malloc(sizeof *d) : NULL;
	if (r == 0 && !d)
		r = -ENOMEM;
	if (r < 0) {
		if (w.fd >= 0)
			close(w.fd);
		if (ret_error)
			*ret_error = w.error;
		else
			free(w.error);
		return r;
	}
	free(w.error);
	d->fd = w.fd;
	*ret = d;
	return 0;
}

StateDir *statedir_free(StateDir *d)
{
	if (d) {
		close(d->fd);
		free(d);
	}
	return NULL;
}
