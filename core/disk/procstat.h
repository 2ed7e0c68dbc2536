/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU time a hypervisor took from this machine ("steal", /proc/stat's
 * eighth figure on each cpuN line). While a virtual CPU is not running,
 * nothing on it runs: not the completion of a disk's I/O, not a FUSE or
 * iSCSI server's reply. Every disk the guest has then waits at once, and
 * the waits look like a disk's own. Pure parser and tracker: no I/O.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PROCSTAT_CPUS_MAX 1024

typedef struct ProcStatSteal {
	unsigned n;				/* cpuN lines read */
	uint64_t ticks[PROCSTAT_CPUS_MAX];	/* steal per CPU, USER_HZ ticks, indexed by N */
	uint64_t present[PROCSTAT_CPUS_MAX / 64];	/* bit N: cpuN was listed */
} ProcStatSteal;

/* Reads the per-CPU steal of a whole /proc/stat. -ENODATA when no cpuN
 * line has a steal figure (kernels before 2.6.11, a truncated file);
 * malformed cpuN lines are skipped and counted in *bad. */
int procstat_steal_parse(const char *text, ProcStatSteal *ret, unsigned *bad);

/* The steal between two reads: what the most-robbed CPU lost, in seconds
 * (a CPU going offline or a counter that went back counts nothing). */
typedef struct HostSteal {
	bool primed;
	double hz;			/* USER_HZ */
	double last_max;		/* the most-robbed CPU's, last interval */
	double total;			/* all CPUs', since the first read */
	ProcStatSteal prev;
} HostSteal;

void host_steal_init(HostSteal *h, double hz);
/* Returns the most-robbed CPU's seconds since the last update (0 on the first). */
double host_steal_update(HostSteal *h, const ProcStatSteal *now);
