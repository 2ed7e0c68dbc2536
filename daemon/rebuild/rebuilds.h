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
 * target: udev read it before the replace began). A balance writes onto
 * the watched devices it fills: those well under their share of the file
 * system's chunks once it is over (a disk just added).
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
/* Where btrfs file systems are read from: "/sys" and "/proc/self/mountinfo"
 * until set (a test's own); kept, not copied. */
void rebuilds_set_roots(Rebuilds *r, const char *sys_root, const char *mountinfo);
/* The mount points of the btrfs file systems a watched disk is in (read
 * now), at most max of mount_len bytes; a followed replace whose file
 * system is gone ends as canceled. Without CAP_SYS_ADMIN (or after
 * rebuilds_set_btrfs_sysfs()), each is read at once from sysfs
 * (rebuilds_btrfs_sysfs()) and none is returned: no tool to run. */
unsigned rebuilds_btrfs_mounts(Rebuilds *r, char *ret, size_t mount_len, unsigned max, double now);
/* A reading of btrfs replace status -1 of mount (one of the last
 * rebuilds_btrfs_mounts()'s), at now; utc_offset as for rebuilds_zpool. */
void rebuilds_btrfs(Rebuilds *r, const char *mount, const BtrfsReplaceStatus *b, double now, double utc_offset);
/* A reading of btrfs balance status -v of mount, with its filesystem show
 * (NULL when none was read), at now. A balance followed and found no more
 * ends as canceled or finished by whether show says it filled the disk. */
void rebuilds_btrfs_balance(Rebuilds *r, const char *mount, const BtrfsBalanceStatus *b, const BtrfsShow *show,
			    double now);
/* Without CAP_SYS_ADMIN (rebuilds_btrfs_privileged() false) the tools'
 * replace and balance status are refused: a reading of mount (one of the
 * last rebuilds_btrfs_mounts()'s) from what anyone may read, its sysfs
 * (btrfssysfs.h) and its devices' figures (btrfsfs_show()), at now. */
void rebuilds_btrfs_sysfs(Rebuilds *r, const char *mount, double now);
/* Whether btrfs is read from sysfs rather than its tools: set at
 * rebuilds_new() by rebuilds_btrfs_privileged(); a test's own. */
void rebuilds_set_btrfs_sysfs(Rebuilds *r, bool sysfs);
/* Whether this process has CAP_SYS_ADMIN (true when it cannot tell). */
bool rebuilds_btrfs_privileged(void);
Rebuilds *rebuilds_free(Rebuilds *r);
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
