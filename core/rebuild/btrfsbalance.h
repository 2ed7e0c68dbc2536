/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs balance (pure): as the kernel reports it to BTRFS_IOC_BALANCE_PROGRESS
 * (struct btrfs_ioctl_balance_args in linux/btrfs.h, what `btrfs balance
 * status -v` prints: running or paused, the chunks balanced of those
 * expected, the filters of each chunk type), the devices' figures of
 * BTRFS_IOC_FS_INFO/DEV_INFO (each device's size and the bytes its chunks
 * take, what `btrfs filesystem show --raw` prints), and what a balance
 * leaves on each device: the chunks spread over the devices by free
 * space, as btrfs's chunk allocator does (docs/zfs.md, "How smrd follows
 * a rebuild"). A device being removed has size 0 there: a device remove
 * is the same spread over the others.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/btrfs.h>

#define BTRFS_SHOW_DEVS_MAX 64
#define BTRFS_SHOW_PATH_MAX 256

/* The profile bits of the kernel's block groups (BTRFS_BLOCK_GROUP_*, and
 * BTRFS_AVAIL_ALLOC_BIT_SINGLE for single), as -v prints a convert target */
#define BTRFS_PROFILE_RAID0 (1ULL << 3)
#define BTRFS_PROFILE_RAID1 (1ULL << 4)
#define BTRFS_PROFILE_DUP (1ULL << 5)
#define BTRFS_PROFILE_RAID10 (1ULL << 6)
#define BTRFS_PROFILE_RAID5 (1ULL << 7)
#define BTRFS_PROFILE_RAID6 (1ULL << 8)
#define BTRFS_PROFILE_RAID1C3 (1ULL << 9)
#define BTRFS_PROFILE_RAID1C4 (1ULL << 10)
#define BTRFS_PROFILE_SINGLE (1ULL << 48)

/* A filter's flags (BTRFS_BALANCE_ARGS_*): convert and soft change where
 * the chunks go; every other one narrows which chunks move */
#define BTRFS_BALANCE_ARGS_CONVERT (1ULL << 8)
#define BTRFS_BALANCE_ARGS_SOFT (1ULL << 9)

typedef enum BtrfsBalanceState {
	BTRFS_BALANCE_NONE,		/* none (the ioctl's ENOTCONN), or it ended */
	BTRFS_BALANCE_RUNNING,
	BTRFS_BALANCE_PAUSED,		/* paused, or unmounted mid-way: resumes at the next mount */
	_BTRFS_BALANCE_STATE_MAX,
	_BTRFS_BALANCE_STATE_INVALID = -EINVAL,
} BtrfsBalanceState;

typedef enum BtrfsChunkType {
	BTRFS_CHUNK_DATA,
	BTRFS_CHUNK_METADATA,
	BTRFS_CHUNK_SYSTEM,
	_BTRFS_CHUNK_TYPE_MAX,
} BtrfsChunkType;

typedef struct BtrfsBalanceStatus {
	BtrfsBalanceState state;
	bool cancel_requested, pause_requested;	/* running, told to stop */
	uint64_t completed, expected, considered;	/* chunks */
	bool uncounted;			/* read from sysfs (btrfssysfs.h): no chunk counts, no filters */
	bool acts_on[_BTRFS_CHUNK_TYPE_MAX];
	uint64_t args_flags[_BTRFS_CHUNK_TYPE_MAX];
	uint64_t convert_to[_BTRFS_CHUNK_TYPE_MAX];	/* a profile bit; 0: not converting */
} BtrfsBalanceStatus;

/* One device of a file system, as BTRFS_IOC_DEV_INFO gives it. */
typedef struct BtrfsShowDevice {
	uint64_t devid;
	double size;			/* bytes btrfs may use of it */
	double used;			/* bytes its chunks take on it */
	char path[BTRFS_SHOW_PATH_MAX];
} BtrfsShowDevice;

typedef struct BtrfsShow {
	unsigned n_devs;
	BtrfsShowDevice devs[BTRFS_SHOW_DEVS_MAX];
	bool missing;			/* fewer found than FS_INFO counts */
} BtrfsShow;

/* "none", "running", "paused"; NULL outside the enum. */
const char *btrfs_balance_state_to_string(BtrfsBalanceState s);
/* The kernel's answer to BTRFS_IOC_BALANCE_PROGRESS (a balance there:
 * running, or paused); 0, or -EINVAL when it makes no sense (more chunks
 * done than expected). */
int btrfs_balance_from_ioctl(const struct btrfs_ioctl_balance_args *a, BtrfsBalanceStatus *ret);
/* Whether a filter other than convert narrows the chunks it moves (usage,
 * devid, limit, ...): where the chunks end up cannot be foreseen then. */
bool btrfs_balance_narrowed(const BtrfsBalanceStatus *s);

/* Copies of each chunk a profile keeps on distinct devices (raid1 2,
 * raid1c3 3, raid1c4 4, raid10 2); 1 for single, dup, raid0, raid5/6,
 * whose chunks a device may hold wholly or in equal stripes; 0 unknown. */
unsigned btrfs_profile_copies(uint64_t profile);
/* Bytes on disk per byte stored: 2 for raid1, raid10 and dup, 3 and 4 for
 * raid1c3/c4, 1 single and raid0, n/(n-1) raid5 and n/(n-2) raid6 over
 * n_devs; NaN unknown. */
double btrfs_profile_factor(uint64_t profile, unsigned n_devs);
/*
 * Where a balance that moves every chunk leaves `total` bytes of chunks
 * over n devices of these sizes: btrfs allocates each new chunk on the
 * devices with the most unallocated space, so the free space is evened
 * out (a level L with each device holding min(size - L, cap), never
 * below 0), no device holding more than total/copies (a raid1 chunk's
 * two copies on two devices). ret[i]: device i's bytes. -EINVAL on a bad
 * input; -ENOSPC when they cannot hold it (ret as full as they go).
 */
int btrfs_balance_spread(const double size[], unsigned n, double total, unsigned copies, double ret[]);

/* What smrd knows of the file system beside the tools' output (its sysfs
 * allocation/): for a convert, what its data chunks take now. */
typedef struct BtrfsFsFigures {
	uint64_t data_profile;		/* BTRFS_PROFILE_*; 0 unknown */
	double data_total;		/* bytes the data chunks hold room for; NaN unknown */
	double data_disk_total;		/* bytes they take on the devices; NaN unknown */
	double disk_used;		/* bytes the file system's contents take on the devices; NaN unknown */
} BtrfsFsFigures;

/* A balance's bytes on one device. */
typedef struct BtrfsLanding {
	double share;			/* its chunks' bytes once the balance is over */
	double now;			/* its chunks' bytes now */
	double total;			/* what the balance leaves on it in all, in written bytes; NaN narrowed */
	double done;			/* of which there now */
	bool receives;			/* well under its share (a quarter or more to come): the balance fills it */
} BtrfsLanding;

/*
 * What a balance leaves on device k of show: the devices' chunks (grown or
 * shrunk by a data convert, by the profiles' factors) spread over them by
 * btrfs_balance_spread(), the new profile's copies or the present one's
 * bounding each device's share; in written bytes, at the file system's
 * fill (its contents over its chunks: a relocation copies what a chunk
 * holds). A narrowed balance (btrfs_balance_narrowed()) moves only some
 * chunks: its total is unknown. -EINVAL on a bad input.
 */
int btrfs_balance_landing(const BtrfsBalanceStatus *b, const BtrfsShow *show, unsigned k, const BtrfsFsFigures *fs,
			  BtrfsLanding *ret);
