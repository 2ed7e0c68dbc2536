/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scratch copies of fixture trees for the shells' tests, which change the
 * tree under the module they drive (a disk vanishes, a size goes to 0).
 */
#pragma once

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A private copy of <fixtures>/<name> in a new temporary directory; NULL on
 * failure. Free with unit_tree_free(), which removes it. */
static inline char *unit_tree_copy(const char *fixtures, const char *name)
{
	char tmpl[] = "/tmp/smrd-unit.XXXXXX";
	if (!mkdtemp(tmpl))
		return NULL;
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "cp -a '%s/%s/.' '%s/'", fixtures, name, tmpl);
	if (system(cmd) != 0) {
		rmdir(tmpl);
		return NULL;
	}
	return strdup(tmpl);
}

/* A new empty temporary directory. */
static inline char *unit_tree_empty(void)
{
	char tmpl[] = "/tmp/smrd-unit.XXXXXX";
	return mkdtemp(tmpl) ? strdup(tmpl) : NULL;
}

static inline void unit_tree_free(char *root)
{
	if (!root || strncmp(root, "/tmp/smrd-unit.", 15) != 0)
		return;
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	(void)!system(cmd);
	free(root);
}

static inline void unit_tree_freep(char **root) { unit_tree_free(*root); }

static inline int unit_tree_open(const char *root, const char *sub)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, sub);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Replaces the file at dirfd/path with text. */
static inline int unit_tree_write(int dirfd, const char *path, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t k = write(fd, text, len);
	int r = k == (ssize_t)len ? 0 : k < 0 ? -errno : -EIO;
	close(fd);
	return r;
}

/* How many lines <dir>/<name> has (a stand-in's log of its calls); 0 if none. */
static inline unsigned unit_lines(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	_cleanup_free_ char *text = NULL;
	if (read_file_at(AT_FDCWD, p, 1 << 20, &text, NULL) < 0)
		return 0;
	unsigned n = 0;
	for (const char *s = text; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

/* Writes text as the executable at path (a command's stand-in); 0 or -errno. */
static inline int unit_script(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	fputs(text, f);
	int r = fclose(f) == 0 && chmod(path, 0755) == 0 ? 0 : -errno;
	return r;
}
