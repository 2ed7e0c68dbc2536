/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What is read of a disk (io/sysfs.c fills it) and where it is read from:
 * the records that core's registry keeps and the daemon passes around,
 * without the reading.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "classify.h"

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
