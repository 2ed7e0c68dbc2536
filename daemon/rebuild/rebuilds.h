/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuilds onto watched disks, from the watcher's readings: each leaf
 * a resilver writes onto is mapped to the disk smrd watches (by the vdev
 * GUID in the disk's ZFS membership, else by its path, through the mapper
 * it was given: devmap.h), the disk's RebuildState moved along
 * with its model's ETA, and an ended rebuild recorded (recorder.h) at its
 * end with the real duration beside the estimate made at its start. A btrfs replace
 * is read per file system (btrfsfs.h); it writes onto the one watched disk
 * among the file system's devices that carries no btrfs signature (a fresh
 * target: udev read it before the replace began). A balance and a device
 * remove write onto the watched devices they fill: those well under their
 * share of the file system's chunks once they are over (a disk just added;
 * a device being removed has no share).
 */
#pragma once

#include <stdbool.h>

#include "btrfsbalance.h"
#include "btrfsfs.h"
#include "btrfsreplace.h"
#include "devmap.h"
#include "recorder.h"
#include "registry.h"
#include "zpoolstatus.h"

typedef struct Rebuilds Rebuilds;

typedef struct RebuildsCallbacks {
	/* A rebuild onto d is followed and no rebuild-warning check was made
	 * for it yet (rebuild_state_wants_warning(): none at a zed vdev_attach,
	 * a btrfs replace, smrd started after the attach): source says what
	 * rebuilds ("ZFS pool tank", "btrfs file system /srv"), path the device
	 * as the tool names it. The daemon runs the guard (zfsevents_warn()),
	 * which marks the check done when it warned; asked again at each
	 * reading until then (a disk may show its first storm mid-way). */
	void (*unwarned)(Disk *d, const char *source, const char *path, void *userdata);
	void *userdata;
} RebuildsCallbacks;

/* recorder: the one event path, where a rebuild's end goes (rebuild-done,
 * at the end, with the real duration; NULL: nothing recorded); map finds
 * the disk a tool's device path is on (devmap.h); both kept. */
int rebuilds_new(DiskRegistry *disks, Recorder *recorder, DevMap *map, const RebuildsCallbacks *cb, Rebuilds **ret);
Rebuilds *rebuilds_free(Rebuilds *r);

/* How the btrfs file systems are read: btrfsfs.h's (the defaults), or a test's own. */
typedef struct RebuildsBtrfsOps {
	int (*reach)(const char *path, const char *uuid, void *userdata);	/* btrfsfs_reaches() */
	int (*show)(const char *mount, BtrfsShow *ret, void *userdata);	/* btrfsfs_show() */
	/* btrfsfs_replace_status(), btrfsfs_balance_status(): -EPERM without CAP_SYS_ADMIN */
	int (*replace_status)(const char *mount, BtrfsReplaceStatus *ret, void *userdata);
	int (*balance_status)(const char *mount, BtrfsBalanceStatus *ret, void *userdata);
	void *userdata;
} RebuildsBtrfsOps;

/* Where btrfs file systems are read from: "/sys" and "/proc/self/mountinfo"
 * until set (a test's own); kept, not copied. */
void rebuilds_set_roots(Rebuilds *r, const char *sys_root, const char *mountinfo);
void rebuilds_set_btrfs_ops(Rebuilds *r, const RebuildsBtrfsOps *ops);
/* Whether a replace and a balance are told from sysfs (btrfssysfs.h)
 * rather than their own status: set at rebuilds_new() by
 * rebuilds_btrfs_privileged(), and once the kernel refuses them; a test's own. */
void rebuilds_set_btrfs_sysfs(Rebuilds *r, bool sysfs);
/* Whether this process has CAP_SYS_ADMIN (true when it cannot tell). */
bool rebuilds_btrfs_privileged(void);
/*
 * One reading of every btrfs file system a watched disk is in, at now:
 * its replace (the kernel's status, else sysfs and the target's writes),
 * its balance and its device remove (onto the devices they fill, their
 * bytes what the disk's own counter took against the share the chunks
 * leave on it), each moved along, warned about at its start, its end
 * recorded; a rebuild followed whose file system is no longer reached
 * ends unfinished. No child is run: ioctls and sysfs.
 */
void rebuilds_btrfs_read(Rebuilds *r, double now);
/* For smrctl rebuild-check: what a btrfs rebuild would write onto d in
 * the file system path reaches (its mount point, or any path FS_INFO names
 * it through), of those the last reading found: a device of it already
 * (added), what a full balance writes onto it; else what a replace
 * copies, the largest device's chunks at the file system's fill. *ret_from says
 * which, *ret_mount the mount point (valid until the next reading).
 * -ENOENT not one smrd reads, -errno its devices' figures. */
int rebuilds_btrfs_share(Rebuilds *r, const char *path, Disk *d, double *ret_bytes, char *ret_from, size_t from_len,
			 const char **ret_mount);

/* Whether a ZFS scan may write onto a watched disk: one is in a pool, or a
 * rebuild onto one is being followed. */
bool rebuilds_zfs_wanted(const Rebuilds *r);
/* A reading of zpool status taken at now (CLOCK_REALTIME seconds);
 * utc_offset: seconds local time is ahead of UTC (the text's dates). */
void rebuilds_zpool(Rebuilds *r, const ZpoolStatus *s, double now, double utc_offset);
/* The disk leaf names: 0 and *ret, -ENXIO on no watched disk. A text
 * name ("sdb", "ata-...-part1") is looked for in /dev and its by-id,
 * by-path, by-vdev, by-uuid and by-partuuid directories. */
int rebuilds_map_leaf(Rebuilds *r, const ZpoolLeaf *leaf, Disk **ret);
