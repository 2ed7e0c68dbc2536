/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Before a destructive qualification: is anything using or holding data on
 * this disk? Every check runs on the file descriptor that will be written
 * through (opened once, O_EXCL), before the confirmation and again after it,
 * so that nothing can change between the check and the first write. Each
 * rule that fires adds one line saying what was found.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysdisk.h"

#define SAFETY_MAX_REASONS 16
#define SAFETY_SAMPLE_BYTES (1u << 20)	/* read at the start, middle and end */

typedef struct SafetyReport {
	unsigned n;
	char reason[SAFETY_MAX_REASONS][320];
	/* of them, the sampled regions that hold data: wipefs leaves those,
	 * so the advice differs (--force-nonzero, or zero exactly them) */
	unsigned n_nonzero;
	uint64_t nonzero_off[3], nonzero_len[3];
} SafetyReport;

/* Where the checks look: the live system's paths, or a test's. */
typedef struct SafetyTarget {
	const char *sysfs_root, *udev_root, *mountinfo, *swaps, *proc_root;
	const char *name;		/* sda */
	unsigned major, minor;		/* as sysfs says */
} SafetyTarget;

/* What must not change between the check and the writes. */
typedef struct DiskIdentity {
	dev_t rdev;
	uint64_t size;
	unsigned logical_block;
	char serial[96], wwn[96], model[96];
	char backing[512];		/* loop devices: the file behind them */
	dev_t backing_dev;
	ino_t backing_ino;
	/* loop devices: the range of the backing file that was confirmed,
	 * from the fd itself (LOOP_GET_STATUS64) */
	bool loop;
	uint64_t loop_offset, loop_sizelimit;
} DiskIdentity;

/* fd's identity: its device number and size from the fd itself, model,
 * serial and WWN from sys (what was read of t->name, which must be that
 * device number), a loop device's backing file from sysfs and its offset
 * and size limit from the fd. */
int safety_identity(int fd, const SafetyTarget *t, const SysfsDisk *sys, DiskIdentity *ret);
/* The same from a fresh read of those fields alone (sysfs_read_identity()):
 * after the confirmation, whether the disk is still the one checked. */
int safety_identity_again(int fd, const SafetyTarget *t, DiskIdentity *ret);
/* False, with *why, when b is not the disk a was. */
bool safety_same_disk(const DiskIdentity *a, const DiskIdentity *b, char *why, size_t n);
/* Every rule; allow_nonzero skips the "sampled regions hold data" rule. */
void safety_check(int fd, const SafetyTarget *t, const DiskIdentity *id, bool allow_nonzero, SafetyReport *ret);
