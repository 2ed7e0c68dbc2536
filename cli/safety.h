/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Before a destructive qualification: is anything using or holding data on
 * this disk? Each rule that fires adds one line saying what was found.
 */
#pragma once

#include <stdbool.h>

#define SAFETY_MAX_REASONS 16

typedef struct SafetyReport {
	unsigned n;
	char reason[SAFETY_MAX_REASONS][256];
} SafetyReport;

/* sysfs_root, udev_root, mountinfo and swaps are paths (the live ones, or a
 * test's); devnode is the disk's /dev node, probed with libblkid. */
void safety_check(const char *sysfs_root, const char *udev_root, const char *mountinfo, const char *swaps,
		  const char *name, unsigned major, unsigned minor, const char *devnode, SafetyReport *ret);
