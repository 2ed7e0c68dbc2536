/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The btrfs file systems from sysfs, mountinfo and their ioctls (btrfsfs.h). */
#include "btrfsfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btrfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

#define DEVS_MAX BTRFS_SHOW_DEVS_MAX	/* devices kept per file system */

int btrfsfs_unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		if (r[1] < '0' || r[1] > '3' || r[2] < '0' || r[2] > '7' || r[3] < '0' || r[3] > '7')
			return -EINVAL;
		*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
		r += 3;
	}
	*w = 0;
	return 0;
}

static double read_number(const char *path)
{
	_cleanup_free_ char *s = NULL;
	uint64_t v;
	return read_line_at(AT_FDCWD, path, &s) >= 0 && parse_u64(s, &v) == 0 ? (double)v : NAN;
}

static void read_devices(const char *dir, BtrfsFs *fs)
{
	char p[PATH_MAX + 128];
	snprintf(p, sizeof p, "%.4000s/devices", dir);
	DIR *d = opendir(p);
	struct dirent *de;
	while (d && (de = readdir(d)) && fs->n_devs < DEVS_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof fs->devs[0].name)
			continue;
		/* the link leads to the block device's sysfs directory: its dev file */
		char devp[PATH_MAX + 512];
		snprintf(devp, sizeof devp, "%.4000s/devices/%.31s/dev", dir, de->d_name);
		_cleanup_free_ char *s = NULL;
		unsigned ma, mi;
		if (read_line_at(AT_FDCWD, devp, &s) < 0 || sscanf(s, "%u:%u", &ma, &mi) != 2)
			continue;
		BtrfsDev *n = realloc(fs->devs, (fs->n_devs + 1) * sizeof *n);
		if (!n)
			break;
		fs->devs = n;
		BtrfsDev *v = &fs->devs[fs->n_devs++];
		v->dev = makedev(ma, mi);
		memcpy(v->name, de->d_name, strlen(de->d_name) + 1);	/* its length checked above */
	}
	if (d)
		closedir(d);
}

/* One chunk type's figures (allocation/KIND/): its profile, the one whose
 * chunks take the most (two while a convert runs); chunk_size from Linux
 * 6.0 on. */
static void read_type(const char *dir, const char *kind, BtrfsTypeFigures *ret)
{
	static const char *const names[] = {"bytes_used", "total_bytes", "disk_total", "chunk_size"};
	double *fields[] = {&ret->used, &ret->total, &ret->disk_total, &ret->chunk_size};
	char p[PATH_MAX + 128];
	*ret = (BtrfsTypeFigures){0};
	snprintf(p, sizeof p, "%.4000s/allocation/%s", dir, kind);
	DIR *d = opendir(p);
	struct dirent *de;
	double most = 0;
	while (d && (de = readdir(d))) {
		uint64_t bit = btrfs_profile_from_name(de->d_name);
		if (!bit)
			continue;
		snprintf(p, sizeof p, "%.4000s/allocation/%s/%.16s/total_bytes", dir, kind, de->d_name);
		double t = read_number(p);
		if (t > most)
			most = t, ret->profile = bit;
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(p, sizeof p, "%.4000s/allocation/%s/%s", dir, kind, names[i]);
		*fields[i] = read_number(p);
	}
}

static void read_fs(const char *dir, BtrfsFs *fs)
{
	char p[PATH_MAX + 128];
	read_devices(dir, fs);
	snprintf(p, sizeof p, "%.4000s/exclusive_operation", dir);
	_cleanup_free_ char *op = NULL;
	if (read_line_at(AT_FDCWD, p, &op) < 0 || btrfs_exclop_parse(op, &fs->exclop) < 0)
		fs->exclop = _BTRFS_EXCLOP_INVALID;
	snprintf(p, sizeof p, "%.4000s/devinfo/0", dir);
	fs->replace_target = access(p, F_OK) == 0;
	static const char *const kinds[_BTRFS_CHUNK_TYPE_MAX] = {"data", "metadata", "system"};
	fs->disk_used = 0;
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++) {
		read_type(dir, kinds[t], &fs->figures.type[t]);
		snprintf(p, sizeof p, "%.4000s/allocation/%s/disk_used", dir, kinds[t]);
		fs->disk_used += read_number(p);	/* NaN once one is unknown */
	}
}

/* A "0b9a8a4e-1f0c-4a61-9a3e-2f7d7c1e5a10" UUID's 16 bytes. */
static bool uuid_bytes(const char *uuid, uint8_t ret[16])
{
	unsigned n = 0;
	for (const char *c = uuid; *c && n < 32; c++) {
		if (*c == '-')
			continue;
		int v = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			: *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (v < 0)
			return false;
		ret[n / 2] = (uint8_t)(n % 2 ? ret[n / 2] | v : v << 4);
		n++;
	}
	return n == 32;
}

/* A descriptor on a mount point: never a FIFO's or a device's open, no
 * automount set off by following a link. */
static int open_mount(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int btrfsfs_reaches(const char *path, const char *uuid, void *userdata)
{
	(void)userdata;
	uint8_t want[16];
	if (!uuid_bytes(uuid, want))
		return -EINVAL;
	_cleanup_close_ int fd = open_mount(path);
	if (fd < 0)
		return fd;
	struct btrfs_ioctl_fs_info_args fi = {0};
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
		return -errno;
	return memcmp(fi.fsid, want, sizeof want) == 0 ? 0 : -EXDEV;
}

/* One btrfs line of mountinfo. */
typedef struct MountLine {
	char *path;
	char *source;
} MountLine;

static void lines_free(MountLine *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i].path), free(l[i].source);
	free(l);
}

/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
static bool parse_line(char *line, MountLine *ret)
{
	char *save = NULL, *f[5];
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return false;
	char *t;
	while ((t = strtok_r(NULL, " ", &save)) && !streq(t, "-"))
		;
	char *type = strtok_r(NULL, " ", &save), *source = strtok_r(NULL, " ", &save);
	if (!t || !type || !source || !streq(type, "btrfs") || btrfsfs_unescape(source) < 0 ||
	    btrfsfs_unescape(f[4]) < 0 || f[4][0] != '/')
		return false;
	ret->path = strdup(f[4]);
	ret->source = strdup(source);
	if (!ret->path || !ret->source) {
		free(ret->path), free(ret->source);
		return false;
	}
	return true;
}

static int read_lines(const char *mountinfo, MountLine **ret, size_t *ret_n)
{
	*ret = NULL, *ret_n = 0;
	FILE *f = fopen(mountinfo, "re");
	if (!f)
		return 0;	/* no mount point: nothing to ask, not an error */
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, n = 0;
	MountLine *l = NULL, m;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (!strstr(line, " - btrfs ") || !parse_line(line, &m))
			continue;
		MountLine *g = realloc(l, (n + 1) * sizeof *g);
		if (!g) {
			free(m.path), free(m.source);
			break;
		}
		l = g;
		l[n++] = m;
	}
	fclose(f);
	*ret = l, *ret_n = n;
	return 0;
}

/* Whether a mount's source is one of fs's devices: by device number
 * (look->devnum), else by kernel name. */
static bool source_of(const BtrfsFs *fs, const char *source, const BtrfsLookup *look)
{
	dev_t dev;
	bool mapped = look->devnum && startswith(source, "/dev/") && look->devnum(source, &dev, look->userdata) == 0;
	const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	for (unsigned i = 0; i < fs->n_devs; i++)
		if ((mapped && fs->devs[i].dev == dev) || streq(base, fs->devs[i].name))
			return true;
	return false;
}

static void find_mount(BtrfsFs *fs, const MountLine *lines, size_t n, const BtrfsFsList *before,
		       const BtrfsLookup *look)
{
	for (unsigned i = 0; before && i < before->n; i++) {
		const BtrfsFs *b = &before->fs[i];
		if (!streq(b->uuid, fs->uuid) || !b->mount)
			continue;
		/* still listed, and still reaching it */
		for (size_t k = 0; k < n; k++)
			if (streq(lines[k].path, b->mount) && look->reach(b->mount, fs->uuid, look->userdata) == 0) {
				fs->mount = strdup(b->mount);
				return;
			}
	}
	for (size_t k = 0; k < n; k++)
		if (source_of(fs, lines[k].source, look) && look->reach(lines[k].path, fs->uuid, look->userdata) == 0) {
			fs->mount = strdup(lines[k].path);
			return;
		}
}

int btrfsfs_scan(const char *sys_root, const char *mountinfo, const BtrfsFsList *before, const BtrfsLookup *look,
		 BtrfsFsList *ret)
{
	*ret = (BtrfsFsList){0};
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/fs/btrfs", sys_root);
	DIR *d = opendir(p);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		/* a file system's directory is its UUID: 36 characters, four dashes */
		if (strlen(de->d_name) != 36 || de->d_name[8] != '-' || de->d_name[13] != '-')
			continue;
		BtrfsFs *g = realloc(ret->fs, (ret->n + 1) * sizeof *g);
		if (!g) {
			r = -ENOMEM;
			break;
		}
		ret->fs = g;
		BtrfsFs *fs = &ret->fs[ret->n++];
		*fs = (BtrfsFs){0};
		memcpy(fs->uuid, de->d_name, 37);	/* 36 and its NUL */
		char dir[PATH_MAX + 300];
		snprintf(dir, sizeof dir, "%.4000s/%.36s", p, de->d_name);
		read_fs(dir, fs);
	}
	closedir(d);
	MountLine *lines = NULL;
	size_t n = 0;
	if (r == 0 && ret->n)
		r = read_lines(mountinfo, &lines, &n);
	for (unsigned i = 0; r == 0 && i < ret->n; i++)
		find_mount(&ret->fs[i], lines, n, before, look);
	lines_free(lines, n);
	if (r < 0)
		btrfsfs_list_done(ret);
	return r;
}

void btrfsfs_list_done(BtrfsFsList *l)
{
	for (unsigned i = 0; l && i < l->n; i++) {
		free(l->fs[i].mount);
		free(l->fs[i].devs);
	}
	if (l) {
		free(l->fs);
		*l = (BtrfsFsList){0};
	}
}

const BtrfsFs *btrfsfs_at(const BtrfsFsList *l, const char *mount)
{
	for (unsigned i = 0; mount && i < l->n; i++)
		if (l->fs[i].mount && streq(l->fs[i].mount, mount))
			return &l->fs[i];
	return NULL;
}

int btrfsfs_show(const char *mount, BtrfsShow *ret)
{
	*ret = (BtrfsShow){0};
	_cleanup_close_ int fd = open_mount(mount);
	if (fd < 0)
		return fd;
	struct btrfs_ioctl_fs_info_args fi = {0};
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
		return -errno;
	unsigned found = 0;
	_cleanup_free_ struct btrfs_ioctl_dev_info_args *di = malloc(sizeof *di);
	if (!di)
		return -ENOMEM;
	/* devids run from 1 to max_id with holes where devices left; 0 is a
	 * replace's target, which the tool's show does not list either */
	for (uint64_t id = 1; id <= fi.max_id && found < fi.num_devices && ret->n_devs < BTRFS_SHOW_DEVS_MAX; id++) {
		*di = (struct btrfs_ioctl_dev_info_args){.devid = id};
		if (ioctl(fd, BTRFS_IOC_DEV_INFO, di) < 0) {
			if (errno == ENODEV)
				continue;
			return -errno;
		}
		found++;
		BtrfsShowDevice *d = &ret->devs[ret->n_devs++];
		d->devid = id;
		d->size = (double)di->total_bytes;
		d->used = (double)di->bytes_used;
		di->path[sizeof di->path - 1] = 0;
		snprintf(d->path, sizeof d->path, "%.*s", (int)sizeof d->path - 1, (const char *)di->path);
	}
	ret->missing = found < fi.num_devices && ret->n_devs < BTRFS_SHOW_DEVS_MAX;
	return 0;
}

int btrfsfs_replace_status(const char *mount, BtrfsReplaceStatus *ret)
{
	_cleanup_close_ int fd = open_mount(mount);
	if (fd < 0)
		return fd;
	_cleanup_free_ struct btrfs_ioctl_dev_replace_args *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	a->cmd = BTRFS_IOCTL_DEV_REPLACE_CMD_STATUS;
	if (ioctl(fd, BTRFS_IOC_DEV_REPLACE, a) < 0)
		return -errno;
	return btrfs_replace_from_ioctl(&a->status, ret);
}

int btrfsfs_balance_status(const char *mount, BtrfsBalanceStatus *ret)
{
	_cleanup_close_ int fd = open_mount(mount);
	if (fd < 0)
		return fd;
	_cleanup_free_ struct btrfs_ioctl_balance_args *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	if (ioctl(fd, BTRFS_IOC_BALANCE_PROGRESS, a) < 0) {
		if (errno != ENOTCONN)
			return -errno;
		*ret = (BtrfsBalanceStatus){.state = BTRFS_BALANCE_NONE};	/* none running or paused */
		return 0;
	}
	return btrfs_balance_from_ioctl(a, ret);
}
