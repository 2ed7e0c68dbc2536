/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smrctl qualify's command line. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_SIZES 8

typedef struct Opts {
	bool destructive, json, report, discard, force_nonzero;
	const char *confirm;		/* --yes-destroy */
	unsigned iodepth;
	uint64_t bs, budget;
	double time_limit, rest, read_seconds, confirm_s, hold, seq_seconds, recovery_rest;
	uint64_t sizes[MAX_SIZES];
	unsigned n_sizes;
	const char *report_prefix, *sysfs_root, *udev_root, *mountinfo, *swaps, *proc_root;
} Opts;

/* 0 with *o filled and *dev the disk's name; 1 after --help; -EINVAL
 * after saying what is wrong (and the usage) on stderr. */
int qualify_parse_opts(int argc, char **argv, bool json, Opts *o, const char **dev);
