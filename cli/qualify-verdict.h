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
/* The factor: sustained random writes faster than a platter takes them
 * (seek and rotation, ~8 ms; with a DRAM cache destaging shortest access
 * first, some 500 a second): solid-state, or a cache in front. Under
 * SOLID_STATE_LAT a write is no disk's at all. */
#define PLATTER_MAX_IOPS 1500
#define SOLID_STATE_LAT 100e-6
bool verdict_faster_than_platter(const CliffResult *c);
/* Random 4 KiB reads with a median under READ_SOLID_LAT: no platter
 * (a 15k rpm disk waits 2 ms for half a rotation alone), and no write
 * cache either, which random reads over the disk miss. Steadier than the
 * write rate, which a loaded host halves. */
#define READ_SOLID_LAT 1e-3
#define READ_SOLID_MIN 20
bool verdict_reads_solid_state(const Hist *reads);
/* The factor for read-only runs: read bands with one beyond 100 ms. */
bool verdict_reads_banded(const Hist *reads, Band *ret_slowest);
void qualify_verdict(const QualifyFacts *f, QualifyVerdict *ret);
/* Bands of a phase's latencies, with the rules smrd's detector uses. */
unsigned verdict_bands(const Hist *h, Band out[BANDS_MAX]);
