/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules, in the order a user would check by hand: partitions, holders
 * (device-mapper, md, bcache on top of it), mounts and swap (of the disk or
 * a partition), udev's ID_FS_TYPE (zfs_member, linux_raid_member,
 * LVM2_member, any filesystem), and libblkid's own probe of the device for a
 * partition table or a signature, since udev may not run (containers).
 */
#include "safety.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

static void add(SafetyReport *r, const char *fmt, ...) _printf_(2, 3);
static void add(SafetyReport *r, const char *fmt, ...)
{
	if (r->n == SAFETY_MAX_REASONS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason[r->n++], sizeof r->reason[0], fmt, ap);
	va_end(ap);
}

typedef struct Dev {
	char name[64];
	unsigned major, minor;
} Dev;

static int read_dev(const char *path, unsigned *major, unsigned *minor)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int k = fscanf(f, "%u:%u", major, minor);
	fclose(f);
	return k == 2 ? 0 : -EBADMSG;
}

/* The disk and its partitions, from sysfs. */
static unsigned list_devs(const char *sysfs_root, const char *name, unsigned major, unsigned minor, Dev *out,
			  unsigned cap, SafetyReport *r)
{
	char path[2048];
	unsigned n = 0;
	snprintf(out[n].name, sizeof out[n].name, "%s", name);
	out[n].major = major, out[n].minor = minor;
	n++;
	snprintf(path, sizeof path, "%s/block/%s", sysfs_root, name);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[4200];
		struct stat st;
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof out[0].name)
			continue;
		snprintf(p, sizeof p, "%s/%s/partition", path, e->d_name);
		if (stat(p, &st) < 0)
			continue;
		add(r, "it has a partition, %s: repartitioning is the user's decision, not ours", e->d_name);
		snprintf(p, sizeof p, "%s/%s/dev", path, e->d_name);
		if (n < cap && read_dev(p, &out[n].major, &out[n].minor) == 0) {
			memcpy(out[n].name, e->d_name, strlen(e->d_name) + 1);	/* length checked above */
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static void holders(const char *sysfs_root, const Dev *dev, unsigned n, SafetyReport *r)
{
	for (unsigned i = 0; i < n; i++) {
		char path[4096];
		if (i == 0)
			snprintf(path, sizeof path, "%s/block/%s/holders", sysfs_root, dev[0].name);
		else
			snprintf(path, sizeof path, "%s/block/%s/%s/holders", sysfs_root, dev[0].name, dev[i].name);
		DIR *d = opendir(path);
		for (struct dirent *e; d && (e = readdir(d));)
			if (e->d_name[0] != '.')
				add(r, "%s is held by %s (device-mapper, md, LVM or bcache is built on it)", dev[i].name,
				    e->d_name);
		if (d)
			closedir(d);
	}
}

static void mounts(const char *mountinfo, const char *swaps, const Dev *dev, unsigned n, SafetyReport *r)
{
	FILE *f = fopen(mountinfo, "re");
	char line[8192];
	while (f && fgets(line, sizeof line, f)) {
		unsigned maj, min;
		char mnt[4096];
		/* id parent major:minor root mountpoint ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		for (unsigned i = 0; i < n; i++)
			if (dev[i].major == maj && dev[i].minor == min)
				add(r, "%s is mounted at %s", dev[i].name, mnt);
	}
	if (f)
		fclose(f);
	f = fopen(swaps, "re");
	while (f && fgets(line, sizeof line, f)) {
		char what[4096];
		if (sscanf(line, "%4095s", what) != 1)
			continue;
		for (unsigned i = 0; i < n; i++) {
			if (startswith(what, "/dev/") && streq(what + 5, dev[i].name))
				add(r, "%s is in use as swap", dev[i].name);
		}
	}
	if (f)
		fclose(f);
}

static void udev_types(const char *udev_root, const Dev *dev, unsigned n, SafetyReport *r)
{
	for (unsigned i = 0; i < n; i++) {
		char path[4096], line[1024];
		snprintf(path, sizeof path, "%s/data/b%u:%u", udev_root, dev[i].major, dev[i].minor);
		FILE *f = fopen(path, "re");
		while (f && fgets(line, sizeof line, f)) {
			if (!startswith(line, "E:ID_FS_TYPE=") || !line[13] || line[13] == '\n')
				continue;
			line[strcspn(line, "\n")] = 0;
			add(r, "udev says %s holds %s%s", dev[i].name, line + 13,
			    strstr(line, "zfs") ? " (a ZFS pool member)" : strstr(line, "raid") ? " (an md array member)" :
			    strstr(line, "LVM") ? " (an LVM physical volume)" : "");
		}
		if (f)
			fclose(f);
	}
}

static void signatures(const char *devnode, SafetyReport *r)
{
	blkid_probe pr = blkid_new_probe_from_filename(devnode);
	if (!pr) {
		add(r, "cannot read %s to look for signatures (%s): not safe to assume it is empty", devnode,
		    strerror(errno ? errno : EIO));
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	int rc = blkid_do_safeprobe(pr);
	const char *v = NULL;
	if (rc == 0 && blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0)
		add(r, "%s carries a %s partition table", devnode, v);
	if (rc == 0 && blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
		add(r, "%s carries a filesystem or volume signature: %s%s", devnode, v,
		    strstr(v, "zfs") ? " (a ZFS pool member)" : strstr(v, "raid") ? " (an md array member)" :
		    strstr(v, "LVM") ? " (an LVM physical volume)" : "");
	if (rc == -2)
		add(r, "%s carries several conflicting signatures", devnode);
	blkid_free_probe(pr);
}

void safety_check(const char *sysfs_root, const char *udev_root, const char *mountinfo, const char *swaps,
		  const char *name, unsigned major, unsigned minor, const char *devnode, SafetyReport *ret)
{
	Dev dev[64];
	*ret = (SafetyReport){0};
	unsigned n = list_devs(sysfs_root, name, major, minor, dev, ELEMENTSOF(dev), ret);
	holders(sysfs_root, dev, n, ret);
	mounts(mountinfo, swaps, dev, n, ret);
	udev_types(udev_root, dev, n, ret);
	signatures(devnode, ret);
}
