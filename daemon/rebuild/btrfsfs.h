/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The btrfs file systems a rebuild may write through: each one's member
 * devices (/sys/fs/btrfs/UUID/devices/, where a replace's target appears
 * too while it runs), the bytes its contents take on disk
 * (allocation/{data,metadata,system}/disk_used), each chunk type's profile
 * (allocation/TYPE/PROFILE/) and figures, what anyone may read of an exclusive
 * operation under way (btrfssysfs.h), and a path that reaches it: a mount
 * point from mountinfo whose BTRFS_IOC_FS_INFO names the file system's
 * UUID, so that a mount point covered by another mount, or an unrelated
 * file system mounted there since, is never taken for it; another mount
 * of it (a bind mount, a subvolume) is tried then. Read-only: no device
 * opened, no path from a tool followed, nothing asked of smrd's /dev.
 * Through the mount point: the devices' figures (FS_INFO, DEV_INFO: no
 * capability needed) and, for CAP_SYS_ADMIN only, the replace's and the
 * balance's own status (DEV_REPLACE, BALANCE_PROGRESS).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "btrfsbalance.h"
#include "btrfsreplace.h"
#include "btrfssysfs.h"

typedef struct BtrfsDev {
	dev_t dev;			/* as the kernel lists it: a partition as itself */
	char name[32];
} BtrfsDev;

typedef struct BtrfsFs {
	char uuid[40];
	char *mount;			/* a path that reaches it; NULL none does (nothing to ask through it) */
	unsigned n_devs;
	BtrfsDev *devs;
	double disk_used;		/* bytes its contents take on all devices; NaN unknown */
	BtrfsFsFigures figures;		/* each chunk type's */
	/* exclusive_operation (_BTRFS_EXCLOP_INVALID: missing or garbage),
	 * and whether a replace's target has devinfo/0/ */
	BtrfsExclOp exclop;
	bool replace_target;
} BtrfsFs;

typedef struct BtrfsFsList {
	BtrfsFs *fs;
	unsigned n;
} BtrfsFsList;

/* How a mount point is matched to a file system. */
typedef struct BtrfsLookup {
	/* Whether path reaches the file system of this UUID: 0 yes, -errno
	 * no (btrfsfs_reaches(), a test's own). */
	int (*reach)(const char *path, const char *uuid, void *userdata);
	/* The device a mountinfo source names ("/dev/sdb", "/dev/mapper/x"):
	 * 0 and *ret, -errno unknown (devmap.h); NULL: kernel names only. */
	int (*devnum)(const char *source, dev_t *ret, void *userdata);
	void *userdata;
} BtrfsLookup;
/* FS_INFO's fsid against the UUID. */
int btrfsfs_reaches(const char *path, const char *uuid, void *userdata);

/* The file systems in sys_root ("/sys"), each with a mount point from
 * mountinfo ("/proc/self/mountinfo"): of the btrfs mounts whose source is
 * one of its devices, the first that look->reach accepts, before's mount
 * point for it tried first (the last scan's, NULL none). 0 (none is no
 * error), -errno when /sys/fs/btrfs cannot be listed and exists, -ENOMEM. */
int btrfsfs_scan(const char *sys_root, const char *mountinfo, const BtrfsFsList *before, const BtrfsLookup *look,
		 BtrfsFsList *ret);
void btrfsfs_list_done(BtrfsFsList *l);
/* The file system whose mount point is mount; NULL none. */
const BtrfsFs *btrfsfs_at(const BtrfsFsList *l, const char *mount);

/* Each device's devid, size, bytes its chunks take and path, from
 * BTRFS_IOC_FS_INFO and DEV_INFO on the mount point: what `btrfs
 * filesystem show --raw` prints. 0, or -errno (the mount not a btrfs). */
int btrfsfs_show(const char *mount, BtrfsShow *ret);
/* The replace's status (BTRFS_IOC_DEV_REPLACE): 0, -EPERM without
 * CAP_SYS_ADMIN, -errno. */
int btrfsfs_replace_status(const char *mount, BtrfsReplaceStatus *ret);
/* The balance's status (BTRFS_IOC_BALANCE_PROGRESS): 0 (state NONE when
 * there is none), -EPERM without CAP_SYS_ADMIN, -errno. */
int btrfsfs_balance_status(const char *mount, BtrfsBalanceStatus *ret);
/* mountinfo's octal escapes (\040 for a space) undone in place; -EINVAL on a bad one. */
int btrfsfs_unescape(char *s);
