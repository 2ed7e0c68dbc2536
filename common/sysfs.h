/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads what smrd needs to know about one block device from a sysfs tree and
 * the udev database, both under configurable roots so that a captured tree
 * stands in for the real machine.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "classify.h"
#include "diskrule.h"
#include "membership.h"

typedef struct SysfsDisk {
	unsigned major, minor;
	uint64_t size_sectors;		/* 512-byte sectors, as sysfs reports */
	int64_t io_timeout_ms;		/* queue/io_timeout, -1 if absent */
	char serial[FACT_STR], wwn[FACT_STR], model[FACT_STR];
	char firmware[24];		/* revision: udev, ATA IDENTIFY, SCSI rev, NVMe firmware_rev */
	DiskFacts facts;
} SysfsDisk;

/* Where a disk's facts are read from: root directories opened once (the
 * live /sys, /proc, /run/udev, or a captured tree's); -1 when absent. */
typedef struct DiskSources {
	int sysfs_fd, procfs_fd, udev_fd;
	bool live;			/* the sysfs root is the kernel's own /sys */
} DiskSources;

/* True for a name that is safe to put in a path: no '/', not "." or "..", short. */
bool sysfs_valid_name(const char *name);
/* Fills ret; -ENOENT if block/<name> is gone, -ENOTBLK if it is a partition. */
int sysfs_probe_disk(int sysfs_fd, int udev_fd, const char *name, SysfsDisk *ret);
/* Reads block/<name>/size only: the cheap check for a disk that went to size 0. */
int sysfs_read_size(int sysfs_fd, const char *name, uint64_t *ret);
/* Looks up KEY in the text of a udev database file ("E:KEY=value" lines). */
bool udevdb_lookup(const char *text, const char *key, char *buf, size_t n);

/* Where udev knows nothing of a device (no udevd, or a disk that came
 * before it ran): fills s's fs_type, label, uuid, uuid_sub from the
 * device itself; 0, or -errno. Called with major:minor so that the
 * opened node can be checked to be that device. */
typedef int (*SignatureProbe)(const char *device, unsigned major, unsigned minor, MemberSignature *s,
			      void *userdata);
/* What block/<name> and its partitions are members of, from udev's
 * database and holders/ (and fallback, which may be NULL). */
int sysfs_read_memberships(int sysfs_fd, int udev_fd, const char *name, SignatureProbe fallback, void *userdata,
			   Memberships *ret);

/* Who the disk is, for per-disk settings: name, WWN and serial as given
 * (ret points to them), and its /dev/disk/by-id link names from udev's
 * database ("S:" lines). */
void sysfs_disk_identity(int udev_fd, const char *name, unsigned major, unsigned minor, const char *wwn,
			 const char *serial, DiskIds *ret);
