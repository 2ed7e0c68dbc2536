/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device path as zed, zpool or btrfs names it ("/dev/sdb1",
 * "/dev/disk/by-id/ata-...-part1", "/dev/mapper/x") to the disk smrd
 * watches, without looking in smrd's own /dev: under the shipped unit
 * (PrivateDevices=yes) that /dev holds no disk. A kernel name is read
 * from sysfs (class/block/NAME/dev), any other name from udev's own index
 * of the links it made (/run/udev/links/, one directory per link naming
 * the devices that claim it, as systemd-udevd's udev-node.c keeps it); a
 * partition is taken to its whole disk (sysfs), the disk then found by
 * device number in the registry, never by name. Only where the caller
 * allows it (root's zed events, a tool's own output) is a name neither
 * knows resolved in smrd's /dev as a last resort, and kept under /dev.
 * What it answers never says whether a path exists where the asker cannot
 * look: for an unprivileged question the /dev step is never taken.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "registry.h"

typedef struct DevMap DevMap;

/* sysfs_fd, udev_fd: the roots discovery reads (/sys, /run/udev, or a
 * test's trees; -1 none), duplicated; dev_root "/dev" (a test's own),
 * copied. */
int devmap_new(DiskRegistry *disks, int sysfs_fd, int udev_fd, const char *dev_root, DevMap **ret);
DevMap *devmap_free(DevMap *m);

/* The device a path names: 0 and *ret (a partition as itself). -EINVAL a
 * path zevent_path_problem() refuses; -ENODEV neither a kernel name nor a
 * udev link; with look_in_dev, also a path in smrd's /dev: -ENOENT there
 * is none, -ENOTBLK it is no block device or leads out of /dev. */
int devmap_devnum(DevMap *m, const char *path, bool look_in_dev, dev_t *ret);
/* The watched disk dev is, or whose partition it is; NULL none. */
Disk *devmap_disk_of(DevMap *m, dev_t dev);
/* devmap_devnum() then devmap_disk_of(): 0 and *ret, its errors, or
 * -ENXIO a device smrd does not watch. */
int devmap_disk(DevMap *m, const char *path, bool look_in_dev, Disk **ret);
/* A sentence for devmap_disk()'s error r ("is not a disk smrd watches"). */
const char *devmap_strerror(int r);
