/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs balance (pure): as the kernel reports it to BTRFS_IOC_BALANCE_PROGRESS
 * (struct btrfs_ioctl_balance_args in linux/btrfs.h, what `btrfs balance
 * status -v` prints: running or paused, the chunks balanced of those
 * expected, the filters of each chunk type), the devices' figures of
 * BTRFS_IOC_FS_INFO/DEV_INFO (each device's size and the bytes its chunks
 * take, what `btrfs filesystem show --raw` prints), and what a balance
 * writes onto each device and leaves there: btrfs's chunk allocator
 * replayed (btrfsalloc.h; docs/zfs.md, "How smrd follows a rebuild"). A
 * device being removed has size 0 there: a device remove moves its chunks
 * onto the others the same way.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/btrfs.h>

#include "btrfsalloc.h"

#define BTRFS_SHOW_DEVS_MAX 64
#define BTRFS_SHOW_PATH_MAX 256

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

/* The devices' figures as the move began: each device's size now (0 for
 * one being removed), the bytes its chunks took in before (0 where before
 * did not have it: a device that joined since holds none). */
void btrfs_show_before(const BtrfsShow *now, const BtrfsShow *before, BtrfsShow *ret);

/* What smrd knows of the file system beside the devices' figures: each
 * chunk type's (its sysfs allocation/). */
typedef struct BtrfsFsFigures {
	BtrfsTypeFigures type[_BTRFS_CHUNK_TYPE_MAX];
} BtrfsFsFigures;

/* A balance's bytes on one device. */
typedef struct BtrfsLanding {
	double share;			/* its chunks' bytes once the balance is over */
	double now;			/* its chunks' bytes in show */
	double total;			/* what the balance writes onto it in all; NaN narrowed or unforeseen */
	bool receives;			/* well under its share (a quarter or more to come): the balance fills it */
} BtrfsLanding;

/*
 * What a balance b (or a remove: the device of show with size 0) writes
 * onto each device of show and leaves there, ret[i] for show's device i:
 * btrfs_move_replay() over the types it moves, with its converts. A
 * narrowed balance (btrfs_balance_narrowed()) moves only some chunks: its
 * totals are unknown. Told from sysfs (uncounted), a balance is a full
 * one. -EINVAL on a bad input, -ENOMEM.
 */
int btrfs_balance_landing(const BtrfsBalanceStatus *b, const BtrfsShow *show, const BtrfsFsFigures *fs,
			  BtrfsLanding ret[]);
