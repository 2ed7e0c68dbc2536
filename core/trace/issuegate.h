/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether smrd's block_rq_issue program must run. Where a queue keeps I/O
 * statistics (writeback throttling, on by default for every blk-mq disk)
 * the kernel stamps each request's start itself and block_rq_complete
 * reads it there: the issue program only returns, and detached it costs
 * every I/O on the host nothing, not even the run of an empty program.
 * It must run while a watched disk's completions come without the stamp,
 * and for a grace after a disk is watched, until its first completion
 * says which it is. Pure: the backend reads the flags, this decides.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IssueGateSlot {
	bool used;
	bool stamped;		/* its completions carry the kernel's stamp */
	bool unstamped;		/* one came without it since it last did */
	uint64_t watched_usec;	/* CLOCK_MONOTONIC: when it was watched */
} IssueGateSlot;

/* A disk with no completion this long after it was watched (a spare, a
 * disk nobody reads) no longer holds the issue program on; if its first
 * completions come unstamped, they go untimed (counted as unmatched)
 * until the next interval attaches it again. */
#define ISSUE_GATE_GRACE_USEC (10ULL * 1000000)

/* The first slot that needs the issue program, or -1 when none does. */
int issue_gate_needed(const IssueGateSlot *s, size_t n, uint64_t now_usec);
