/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One read of /proc/diskstats per interval, whatever the number of disks,
 * into the registry's counters. It does not know who watches the disks:
 * a disk missing from the file is reported to a callback (context.c asks
 * discovery whether it is gone). It reads /proc/stat's steal with it:
 * what a hypervisor took from the CPUs in the same interval.
 */
#pragma once

#include <stdint.h>

#include "registry.h"

typedef struct Sampler Sampler;

typedef struct SamplerStats {
	uint64_t samples;
	uint64_t bad_lines;		/* malformed, or a second line for one device */
	uint64_t read_errors;		/* the file could not be read */
	uint64_t resets;		/* counters that went back for good */
	uint64_t last_usec;		/* CLOCK_MONOTONIC of the last sample */
	double steal_last;		/* seconds the most-robbed CPU lost to the hypervisor
					 * since the sample before; NaN unknown */
	double steal_total;		/* all CPUs' since smrd started */
} SamplerStats;

typedef void (*SamplerMissingFn)(const char *name, void *userdata);

int sampler_new(int procfs_fd, DiskRegistry *disks, Sampler **ret);
Sampler *sampler_free(Sampler *s);
/* Reads diskstats at now_usec into every watched disk's counters; calls
 * missing for each watched disk the file does not list. On a failed read
 * the counters keep their last values. */
int sampler_sample(Sampler *s, uint64_t now_usec, SamplerMissingFn missing, void *userdata);
const SamplerStats *sampler_stats(const Sampler *s);
