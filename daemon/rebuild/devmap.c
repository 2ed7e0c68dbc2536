/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device paths to watched disks through sysfs and udev's link index
 * (devmap.h). Every name is a tool's output or a client's argument: only
 * a plain kernel name goes into a sysfs path, a link name only into one
 * escaped file name under udev's links/, and a device number is believed
 * only while sysfs still lists it.
 */
#include "devmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysfs.h"
#include "util.h"
#include "zevent.h"

struct DevMap {
	DiskRegistry *disks;
	int sysfs_fd, udev_fd;
	char *dev_root;
};

int devmap_new(DiskRegistry *disks, int sysfs_fd, int udev_fd, const char *dev_root, DevMap **ret)
{
	DevMap *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	*m = (DevMap){.disks = disks, .sysfs_fd = -1, .udev_fd = -1, .dev_root = strdup(dev_root)};
	if (!m->dev_root || (sysfs_fd >= 0 && (m->sysfs_fd = fcntl(sysfs_fd, F_DUPFD_CLOEXEC, 3)) < 0) ||
	    (udev_fd >= 0 && (m->udev_fd = fcntl(udev_fd, F_DUPFD_CLOEXEC, 3)) < 0)) {
		int r = m->dev_root ? -errno : -ENOMEM;
		devmap_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

DevMap *devmap_free(DevMap *m)
{
	if (!m)
		return NULL;
	if (m->sysfs_fd >= 0)
		close(m->sysfs_fd);
	if (m->udev_fd >= 0)
		close(m->udev_fd);
	free(m->dev_root);
	free(m);
	return NULL;
}

/* "MAJ:MIN" (a sysfs dev file, a udev device id after its 'b') */
static bool parse_devnum(const char *s, dev_t *ret)
{
	unsigned ma, mi;
	int n = 0;
	if (!(s[0] >= '0' && s[0] <= '9') || strspn(s, "0123456789:") != strlen(s) ||
	    sscanf(s, "%u:%u%n", &ma, &mi, &n) != 2 || s[n] != 0)
		return false;
	*ret = makedev(ma, mi);
	return true;
}

static bool sysfs_has(const DevMap *m, dev_t dev)
{
	char p[64];
	snprintf(p, sizeof p, "dev/block/%u:%u", major(dev), minor(dev));
	return m->sysfs_fd >= 0 && faccessat(m->sysfs_fd, p, F_OK, 0) == 0;
}

/* A kernel name ("sdb1", "loop7", "dm-3"): its sysfs dev file. */
static int by_kernel_name(const DevMap *m, const char *name, dev_t *ret)
{
	if (m->sysfs_fd < 0 || !sysfs_valid_name(name))
		return -ENODEV;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "class/block/%s/dev", name);
	_cleanup_free_ char *s = NULL;
	return read_line_at(m->sysfs_fd, p, &s) >= 0 && parse_devnum(s, ret) ? 0 : -ENODEV;
}

/* udev's priority for a claim on a link: the entry is a symlink to
 * "PRIORITY:DEVNODE" (systemd 251 and later), else the device's record
 * says it ("L:" line); 0 when neither does. */
static int claim_priority(const DevMap *m, int dirfd, const char *entry, dev_t dev)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, entry, buf, sizeof buf - 1);
	int prio = 0;
	if (n > 0) {
		buf[n] = 0;
		return sscanf(buf, "%d:", &prio) == 1 ? prio : 0;
	}
	_cleanup_free_ char *rec = NULL;
	if (sysfs_udev_record(m->udev_fd, major(dev), minor(dev), &rec) < 0)
		return 0;
	for (const char *l = rec; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (startswith(l, "L:"))
			return atoi(l + 2);
	return 0;
}

/* The device a stack directory of udev's links/ names: the claim of the
 * highest priority, as udev points the link; -ENODEV none, or two devices
 * tied (which one the link leads to cannot be told). */
static int read_stack(const DevMap *m, const char *dir, dev_t *ret)
{
	int fd = openat(m->udev_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -ENODEV;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENODEV;
	}
	struct dirent *de;
	int best = 0;
	bool found = false, tied = false;
	dev_t pick = 0;
	while ((de = readdir(d))) {
		dev_t dev;
		if (de->d_name[0] != 'b' || !parse_devnum(de->d_name + 1, &dev) || !sysfs_has(m, dev))
			continue;	/* a stale claim of a device gone */
		int prio = claim_priority(m, dirfd(d), de->d_name, dev);
		if (!found || prio > best) {
			pick = dev, best = prio, found = true, tied = false;
		} else if (prio == best && dev != pick)
			tied = true;
	}
	closedir(d);
	if (!found || tied)
		return -ENODEV;
	*ret = pick;
	return 0;
}

/* A link udev made ("disk/by-id/ata-X-part1", the path under /dev): its
 * stack directory, named as udev-node.c escapes it ('/' as \x2f, '\' as
 * \x5c), without (systemd 250 and later) or with (before) a leading one. */
static int by_udev_link(const DevMap *m, const char *rel, dev_t *ret)
{
	if (m->udev_fd < 0)
		return -ENODEV;
	char enc[NAME_MAX + 1];
	size_t k = 0;
	for (const char *c = rel; *c; c++) {
		const char *put = *c == '/' ? "\\x2f" : *c == '\\' ? "\\x5c" : NULL;
		size_t n = put ? 4 : 1;
		/* udev hashes a name past NAME_MAX: no such link is made by the rules smrd meets */
		if (k + n >= sizeof enc)
			return -ENODEV;
		memcpy(enc + k, put ? put : c, n);
		k += n;
	}
	enc[k] = 0;
	char p[NAME_MAX + 32];
	snprintf(p, sizeof p, "links/%s", enc);
	if (read_stack(m, p, ret) == 0)
		return 0;
	snprintf(p, sizeof p, "links/\\x2f%s", enc);
	return read_stack(m, p, ret);
}

/* The old way, for callers that may: the path resolved in smrd's /dev, kept under it. */
static int in_dev(const DevMap *m, const char *rel, dev_t *ret)
{
	char in[PATH_MAX], real[PATH_MAX];
	snprintf(in, sizeof in, "%s/%s", m->dev_root, rel);
	if (!realpath(in, real))
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	size_t n = strlen(m->dev_root);
	struct stat st;
	if (strncmp(real, m->dev_root, n) != 0 || real[n] != '/')
		return -ENOTBLK;
	if (stat(real, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*ret = st.st_rdev;
	return 0;
}

int devmap_devnum(DevMap *m, const char *path, bool look_in_dev, dev_t *ret)
{
	if (!path || zevent_path_problem(path))
		return -EINVAL;
	const char *rel = path + strlen("/dev/");
	if (!strchr(rel, '/') && by_kernel_name(m, rel, ret) == 0)
		return 0;
	if (by_udev_link(m, rel, ret) == 0)
		return 0;
	return look_in_dev ? in_dev(m, rel, ret) : -ENODEV;
}

Disk *devmap_disk_of(DevMap *m, dev_t dev)
{
	char p[64];
	snprintf(p, sizeof p, "dev/block/%u:%u/partition", major(dev), minor(dev));
	if (m->sysfs_fd >= 0 && faccessat(m->sysfs_fd, p, F_OK, 0) == 0) {
		/* the link leads into the parent disk's directory */
		snprintf(p, sizeof p, "dev/block/%u:%u/../dev", major(dev), minor(dev));
		_cleanup_free_ char *s = NULL;
		if (read_line_at(m->sysfs_fd, p, &s) < 0 || !parse_devnum(s, &dev))
			return NULL;
	}
	return registry_by_devnum(m->disks, major(dev), minor(dev));
}

int devmap_disk(DevMap *m, const char *path, bool look_in_dev, Disk **ret)
{
	dev_t dev;
	int r = devmap_devnum(m, path, look_in_dev, &dev);
	if (r < 0)
		return r;
	Disk *d = devmap_disk_of(m, dev);
	if (!d)
		return -ENXIO;
	*ret = d;
	return 0;
}

const char *devmap_strerror(int r)
{
	switch (r) {
	case -EINVAL: return "is not a plain device path under /dev/";
	case -ENODEV: return "is neither a kernel device name nor a link udev made";
	case -ENOENT: return "does not exist";
	case -ENOTBLK: return "is not a block device under /dev";
	case -ENXIO: return "is not on a disk smrd watches";
	default: return "cannot be resolved";
	}
}
