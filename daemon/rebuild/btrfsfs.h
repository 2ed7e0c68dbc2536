/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mounted btrfs file systems, for following a `btrfs replace`: each
 * one's member devices (/sys/fs/btrfs/UUID/devices/, where a replace's
 * target appears too while it runs), the bytes its chunks take on disk
 * (allocation/{data,metadata,system}/disk_used), its data chunks' profile
 * (allocation/data/PROFILE/) and one mount point
 * (/proc/self/mountinfo, by the mount's source device). Read-only, no
 * device opened, no path from a tool followed.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "btrfsbalance.h"
#include "btrfssysfs.h"

#define BTRFSFS_MAX 16			/* file systems kept */
#define BTRFSFS_DEVS_MAX 16		/* devices kept per file system */

typedef struct BtrfsFs {
	char uuid[40];
	char mount[PATH_MAX];		/* "" when not mounted (nothing to ask) */
	unsigned n_devs;
	dev_t devs[BTRFSFS_DEVS_MAX];	/* as the kernel lists them: partitions as themselves */
	char dev_names[BTRFSFS_DEVS_MAX][32];
	double disk_used;		/* bytes its chunks take on all devices; NaN unknown */
	/* its data chunks: the profile most of them have (BTRFS_PROFILE_*; 0
	 * unknown), the bytes they hold room for and take on disk */
	uint64_t data_profile;
	double data_total, data_disk_total;
	/* what anyone may read of a replace or balance (btrfssysfs.h):
	 * exclusive_operation (_BTRFS_EXCLOP_INVALID: missing or garbage),
	 * and whether a replace's target has devinfo/0/ */
	BtrfsExclOp exclop;
	bool replace_target;
} BtrfsFs;

/* Fills ret[0..*n) from sys_root ("/sys") and mountinfo ("/proc/self/mountinfo").
 * 0 (none is no error), -errno when /sys/fs/btrfs cannot be listed and exists. */
int btrfsfs_scan(const char *sys_root, const char *mountinfo, BtrfsFs ret[BTRFSFS_MAX], unsigned *n);
/* `btrfs filesystem show --raw` as an unprivileged process may have it:
 * each device's devid, size, bytes its chunks take and path, from the
 * BTRFS_IOC_FS_INFO and BTRFS_IOC_DEV_INFO ioctls on the mount point
 * (neither asks for a capability). 0, or -errno (the mount not a btrfs). */
int btrfsfs_show(const char *mount, BtrfsShow *ret);
/* mountinfo's octal escapes (\040 for a space) undone in place; -EINVAL on a bad one. */
int btrfsfs_unescape(char *s);
