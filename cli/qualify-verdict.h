/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qualification's verdict (pure): from what the phases measured, is the
 * disk SMR-like, in one sentence with its figures, and what the test could
 * not tell. Each rule is a named factor, unit-tested on its own.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "bands.h"
#include "classify.h"
#include "cliff.h"
#include "hist.h"

#define VERDICT_MAX_LIMITS 8

typedef struct QualifyFacts {
	bool destructive, interrupted;
	DiskClass static_class;
	bool wrote;			/* the write phase ran */
	CliffResult cliff;		/* of the random writes */
	uint64_t block_size, written;
	bool seq_ran;			/* sequential writes after the random ones */
	double seq_rate;		/* their bytes a second */
	const Hist *reads;		/* the first read phase (4 KiB), or NULL */
} QualifyFacts;

typedef struct QualifyVerdict {
	bool smr_like;
	char text[512];
	const char *limits[VERDICT_MAX_LIMITS];
	unsigned n_limits;
} QualifyVerdict;

/* The factor: the completion rate fell and stayed down, with writes waiting
 * longer than their queue explains (a band rewrite), as a media cache
 * filling makes. */
bool verdict_cliff_is_smr(const CliffResult *c);
/* The factor: sequential writes after the fall still run at least
 * SEQ_FAST_RATIO times the random writes' byte rate after it (a DM-SMR
 * disk writes streams past its media cache; an SSD past its SLC cache is
 * as slow for them). */
#define SEQ_FAST_RATIO 4
bool verdict_sequential_fast(const QualifyFacts *f);
/* The factor for read-only runs: read bands with one beyond 100 ms. */
bool verdict_reads_banded(const Hist *reads, Band *ret_slowest);
void qualify_verdict(const QualifyFacts *f, QualifyVerdict *ret);
/* Bands of a phase's latencies, with the rules smrd's detector uses. */
unsigned verdict_bands(const Hist *h, Band out[BANDS_MAX]);
