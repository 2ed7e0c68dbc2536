/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mounted btrfs file systems from sysfs and mountinfo (btrfsfs.h). */
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

#include "btrfsbalance.h"
#include "util.h"

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

static void read_fs(const char *dir, BtrfsFs *fs)
{
	char p[PATH_MAX + 128];
	snprintf(p, sizeof p, "%.4000s/devices", dir);
	DIR *d = opendir(p);
	struct dirent *de;
	while (d && (de = readdir(d)) && fs->n_devs < BTRFSFS_DEVS_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof fs->dev_names[0])
			continue;
		/* the link leads to the block device's sysfs directory: its dev file */
		char devp[PATH_MAX + 512];
		snprintf(devp, sizeof devp, "%.4000s/devices/%.31s/dev", dir, de->d_name);
		_cleanup_free_ char *s = NULL;
		unsigned ma, mi;
		if (read_line_at(AT_FDCWD, devp, &s) < 0 || sscanf(s, "%u:%u", &ma, &mi) != 2)
			continue;
		fs->devs[fs->n_devs] = makedev(ma, mi);
		memcpy(fs->dev_names[fs->n_devs], de->d_name, strlen(de->d_name) + 1);	/* its length checked above */
		fs->n_devs++;
	}
	if (d)
		closedir(d);
	/* the data profile: the one whose chunks hold the most (two while a convert runs) */
	static const struct {
		const char *name;
		uint64_t bit;
	} profiles[] = {{"single", BTRFS_PROFILE_SINGLE}, {"dup", BTRFS_PROFILE_DUP}, {"raid0", BTRFS_PROFILE_RAID0},
			{"raid1", BTRFS_PROFILE_RAID1}, {"raid10", BTRFS_PROFILE_RAID10}, {"raid1c3", BTRFS_PROFILE_RAID1C3},
			{"raid1c4", BTRFS_PROFILE_RAID1C4}, {"raid5", BTRFS_PROFILE_RAID5}, {"raid6", BTRFS_PROFILE_RAID6}};
	double most = 0;
	for (size_t i = 0; i < ELEMENTSOF(profiles); i++) {
		snprintf(p, sizeof p, "%.4000s/allocation/data/%s/total_bytes", dir, profiles[i].name);
		double t = read_number(p);
		if (t > most)
			most = t, fs->data_profile = profiles[i].bit;
	}
	snprintf(p, sizeof p, "%.4000s/allocation/data/total_bytes", dir);
	fs->data_total = read_number(p);
	snprintf(p, sizeof p, "%.4000s/allocation/data/disk_total", dir);
	fs->data_disk_total = read_number(p);
	snprintf(p, sizeof p, "%.4000s/exclusive_operation", dir);
	_cleanup_free_ char *op = NULL;
	if (read_line_at(AT_FDCWD, p, &op) < 0 || btrfs_exclop_parse(op, &fs->exclop) < 0)
		fs->exclop = _BTRFS_EXCLOP_INVALID;
	snprintf(p, sizeof p, "%.4000s/devinfo/0", dir);
	fs->replace_target = access(p, F_OK) == 0;
	static const char *const kinds[] = {"data", "metadata", "system"};
	fs->disk_used = 0;
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		snprintf(p, sizeof p, "%.4000s/allocation/%s/disk_used", dir, kinds[i]);
		fs->disk_used += read_number(p);	/* NaN once one is unknown */
	}
}

/* A mountinfo line's mount point, when its source is one of fs's devices. */
static bool mount_of(const BtrfsFs *fs, char *line, char *ret, size_t n)
{
	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
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
	struct stat st;
	bool by_dev = startswith(source, "/dev/") && stat(source, &st) == 0 && S_ISBLK(st.st_mode);
	const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	for (unsigned i = 0; i < fs->n_devs; i++)
		if ((by_dev && st.st_rdev == fs->devs[i]) || streq(base, fs->dev_names[i])) {
			snprintf(ret, n, "%s", f[4]);
			return true;
		}
	return false;
}

int btrfsfs_scan(const char *sys_root, const char *mountinfo, BtrfsFs ret[BTRFSFS_MAX], unsigned *n)
{
	*n = 0;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/fs/btrfs", sys_root);
	DIR *d = opendir(p);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *de;
	while ((de = readdir(d)) && *n < BTRFSFS_MAX) {
		/* a file system's directory is its UUID: 36 characters, four dashes */
		if (strlen(de->d_name) != 36 || de->d_name[8] != '-' || de->d_name[13] != '-')
			continue;
		BtrfsFs *fs = &ret[*n];
		*fs = (BtrfsFs){0};
		memcpy(fs->uuid, de->d_name, 37);	/* 36 and its NUL */
		char dir[PATH_MAX + 300];
		snprintf(dir, sizeof dir, "%.4000s/%.36s", p, de->d_name);
		read_fs(dir, fs);
		(*n)++;
	}
	closedir(d);
	FILE *f = fopen(mountinfo, "re");
	if (!f)
		return 0;	/* no mount point: nothing to ask, not an error */
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		for (unsigned i = 0; i < *n; i++) {
			if (ret[i].mount[0])
				continue;
			_cleanup_free_ char *copy = strdup(line);
			if (copy && mount_of(&ret[i], copy, ret[i].mount, sizeof ret[i].mount))
				break;
		}
	}
	fclose(f);
	return 0;
}

int btrfsfs_show(const char *mount, BtrfsShow *ret)
{
	*ret = (BtrfsShow){0};
	_cleanup_close_ int fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct btrfs_ioctl_fs_info_args fi = {0};
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
		return -errno;
	unsigned found = 0;
	/* devids run from 1 to max_id with holes where devices left; 0 is a
	 * replace's target, which the tool's show does not list either */
	for (uint64_t id = 1; id <= fi.max_id && found < fi.num_devices && ret->n_devs < BTRFS_SHOW_DEVS_MAX; id++) {
		_cleanup_free_ struct btrfs_ioctl_dev_info_args *di = calloc(1, sizeof *di);
		if (!di)
			return -ENOMEM;
		di->devid = id;
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
