/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle recovery as a curve (pure): the fast space a drive-managed SMR disk
 * has after a rest of t seconds begun where writes wait (its cache at the
 * wait threshold). Rewriting a band costs the same however little of it
 * is cached, so a drive cleans the dirtiest bands first and each second of
 * a longer rest gives back less than the one before: one rate cannot say
 * what a short and a long rest give. smrctl qualify measures points on the
 * curve with rests of growing length; smrd learns them from a disk's own
 * rests between bursts. The fitted form says how the rate falls:
 *
 *   bytes(t) = 0 for t < delay, else
 *   room + (cache - room) * (1 - (1 - s)^shape),  s = (t - delay) / clean_seconds in [0, 1]
 *
 * nothing until delay seconds into the rest (the drive waits that long
 * before it cleans, or is still cleaning down to the low water mark it
 * keeps under pressure, and then has `room` at once), then a rate of
 * (cache - room) * shape / clean_seconds falling to nothing once the whole
 * cache is clean after delay + clean_seconds: never falling for shape 1
 * (every band as dirty as the next), falling linearly for shape 2 (bands
 * dirtied over a spread of ages: a cache cleaned while it was written),
 * faster for more (a few bands hold most of it). docs/detection.md,
 * "Idle time".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define IDLE_POINTS_MAX 16

typedef struct IdlePoint {
	double rest;			/* seconds of rest, begun at the wait threshold */
	double bytes;			/* fast space the disk had after it: written before a write waited */
	double err;			/* +- bytes */
	bool at_least;			/* the writes ran past the cache without a wait: the rest cleaned it all */
} IdlePoint;

typedef struct IdleFit {
	double cache;			/* the most a rest gives back: the cache at its threshold */
	double room;			/* what it has at once after the delay */
	double clean_seconds;		/* cleaning after which all of it is clean */
	double shape;			/* >= 1: how the rate falls */
	double delay;			/* seconds of rest before the cleaning starts */
	double worst;			/* the largest misfit at a point, as a share of it */
	double longest;			/* the longest rest it rests on */
	unsigned points;		/* 0: no fit */
} IdleFit;

/* Fits the form to n points (at least two, one of them freeing
 * something) and a cache: the most any rest gives back (raised to the
 * largest point if that is more). ret->points 0 when it cannot. */
void idle_fit(const IdlePoint *p, unsigned n, double cache, IdleFit *ret);
bool idle_fit_known(const IdleFit *f);
/* Bytes a rest of `rest` seconds gives back; NaN without a fit. */
double idle_fit_bytes(const IdleFit *f, double rest);
/* Bytes a second it gives back `rest` seconds into a rest. */
double idle_fit_rate(const IdleFit *f, double rest);
/* The rest that gives back `bytes`: INFINITY beyond the cache, NaN without a fit. */
double idle_fit_rest(const IdleFit *f, double bytes);
/* Seconds into a rest at which the rate has fallen to half its start;
 * INFINITY when it never falls (shape 1). */
double idle_fit_half_rate(const IdleFit *f);
/* "a rest gives back ~1.3M/s at first, half that after ~35 s, and all of
 * ~30M after ~70 s"; "" without a fit. */
const char *idle_fit_describe(const IdleFit *f, char *buf, size_t n);
