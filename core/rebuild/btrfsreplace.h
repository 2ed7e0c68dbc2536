/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs replace as the kernel reports it (pure): the answer to
 * BTRFS_IOC_DEV_REPLACE's status command (struct
 * btrfs_ioctl_dev_replace_status_params in linux/btrfs.h, filled by
 * btrfs_dev_replace_status() in fs/btrfs/dev-replace.c), which is what
 * `btrfs replace status` prints: the state, the per-mille progress, the
 * start and stop in seconds since the epoch, the error counts. The kernel
 * answers only to CAP_SYS_ADMIN; without it btrfssysfs.h says what it can.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/btrfs.h>

typedef enum BtrfsReplaceState {
	BTRFS_REPLACE_NEVER_STARTED,
	BTRFS_REPLACE_STARTED,
	BTRFS_REPLACE_FINISHED,
	BTRFS_REPLACE_CANCELED,
	BTRFS_REPLACE_SUSPENDED,	/* unmounted mid-way: resumes at the next mount */
	_BTRFS_REPLACE_STATE_MAX,
	_BTRFS_REPLACE_STATE_INVALID = -EINVAL,
} BtrfsReplaceState;

typedef struct BtrfsReplaceStatus {
	BtrfsReplaceState state;
	double progress;		/* share done, 0-1 (the kernel counts per mille); NaN not given */
	double started, stopped;	/* CLOCK_REALTIME seconds; NaN not given (stopped: still running) */
	uint64_t write_errors;
	uint64_t uncorrectable_read_errors;
} BtrfsReplaceStatus;

/* "never started", "started", "finished", "canceled", "suspended"; NULL
 * outside the enum. */
const char *btrfs_replace_state_to_string(BtrfsReplaceState s);
/* The kernel's status: 0, or -EINVAL for a state this code does not know. */
int btrfs_replace_from_ioctl(const struct btrfs_ioctl_dev_replace_status_params *p, BtrfsReplaceStatus *ret);
/* Seconds from started to stopped; NaN when either is not given or they run backwards. */
double btrfs_replace_duration(const BtrfsReplaceStatus *s);
