/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The band finder (pure): the distinct modes of a latency histogram on a log
 * scale. A DM-SMR disk's reads split into bands (a seek-and-rotation band
 * near 8 ms, one or more hundreds of milliseconds out, behind a band
 * rewrite); a CMR disk shows one smooth mode, or a cache-hit mode and a seek
 * mode. Noise must not split a smooth mode.
 */
#pragma once

#include <stdint.h>

#include "hist.h"

#define BANDS_MAX 4

typedef struct Band {
	double centre;		/* seconds: the median of the band's I/Os */
	double lo, hi;		/* seconds: the valleys that bound it */
	uint64_t count;
	double share;		/* of all I/Os in the histogram */
} Band;

typedef struct BandRules {
	double min_share;	/* a band holds at least this share of the I/Os */
	double min_count;	/* and at least this many */
	double valley;		/* two peaks are apart only if the density between them
				 * drops below this fraction of the smaller peak */
} BandRules;

/* Fills up to BANDS_MAX bands, fastest first; returns how many. */
unsigned bands_find(const Hist *h, const BandRules *rules, Band out[BANDS_MAX]);
