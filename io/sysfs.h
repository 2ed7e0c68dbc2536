/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads what smrd needs to know about one block device from a sysfs tree and
 * the udev database, both under configurable roots so that a captured tree
 * stands in for the real machine.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "diskrule.h"
#include "membership.h"
#include "sysdisk.h"

/* True for a name that is safe to put in a path: no '/', not "." or "..", short. */
bool sysfs_valid_name(const char *name);
/* udev's record of a device (data/bMAJOR:MINOR): its text, or -errno
 * (-ENOENT with no udev database, -EBADMSG with a NUL in it). */
int sysfs_udev_record(int udev_fd, unsigned major, unsigned minor, char **ret);
/* Fills ret; -ENOENT if block/<name> is gone, -ENOTBLK if it is a
 * partition. ret_udev (may be NULL) gets the disk's udev record that was
 * read, or NULL: for sysfs_disk_identity() and sysfs_read_memberships(), so
 * that one probe reads it once. */
int sysfs_read_disk(int sysfs_fd, int udev_fd, const char *name, SysfsDisk *ret, char **ret_udev);
/* Reads the identity alone, afresh: major:minor, size, and the model,
 * serial and WWN as sysfs_read_disk() gives them (the rest of ret is
 * left as disk_facts_init() sets it): the re-check that a disk is still
 * the one that was read. */
int sysfs_read_identity(int sysfs_fd, int udev_fd, const char *name, SysfsDisk *ret);
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
 * database and holders/ (and fallback, which may be NULL); udev is the
 * disk's own record if already read (its partitions' are read here), NULL
 * to read it. */
int sysfs_read_memberships(int sysfs_fd, int udev_fd, const char *name, const char *udev, SignatureProbe fallback,
			   void *userdata, Memberships *ret);

/* Who the disk is, for per-disk settings: name, WWN and serial as given
 * (ret points to them), and its /dev/disk/by-id link names from its udev
 * record ("S:" lines; NULL: none). */
void sysfs_disk_identity(const char *udev, const char *name, const char *wwn, const char *serial, DiskIds *ret);
