/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fit is a plain search: the room over a grid below the least point,
 * the delay over a grid below the shortest rest, the shape over a grid of
 * values, the cleaning time by golden
 * section on its logarithm; each point weighs by its relative misfit (a
 * short rest's point counts as much as a long one's), a point that is a
 * lower bound only when the curve falls short of it. A few hundred
 * evaluations of a handful of points: nothing to make clever.
 */
#include "idlecurve.h"

#include <math.h>
#include <stdio.h>

#include "format.h"

#define DELAY_STEPS 12
#define ROOM_STEPS 8
#define GOLDEN 0.6180339887498949
#define GOLDEN_STEPS 48
/* a point's misfit is relative to it, but never to less than a 1000th of
 * the cache (a rest shorter than the delay frees nothing) */
#define FLOOR_SHARE 0.001

static const double shapes[] = {1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 6};

bool idle_fit_known(const IdleFit *f) { return f && f->points > 0 && f->cache > 0 && f->clean_seconds > 0; }

static double form(const IdleFit *f, double t)
{
	if (t < f->delay)
		return 0;
	double s = fmin((t - f->delay) / f->clean_seconds, 1);
	return f->room + (f->cache - f->room) * (1 - pow(1 - s, f->shape));
}

double idle_fit_bytes(const IdleFit *f, double rest)
{
	if (!idle_fit_known(f) || !(rest >= 0))
		return NAN;
	return form(f, rest);
}

double idle_fit_rate(const IdleFit *f, double rest)
{
	if (!idle_fit_known(f) || !(rest >= 0))
		return NAN;
	double s = (rest - f->delay) / f->clean_seconds;
	if (s < 0 || s >= 1)
		return 0;
	return (f->cache - f->room) * f->shape / f->clean_seconds * pow(1 - s, f->shape - 1);
}

double idle_fit_rest(const IdleFit *f, double bytes)
{
	if (!idle_fit_known(f))
		return NAN;
	if (!(bytes > 0))
		return 0;
	if (bytes <= f->room)
		return f->delay;
	if (bytes >= f->cache)
		return bytes > f->cache ? INFINITY : f->delay + f->clean_seconds;
	return f->delay + f->clean_seconds * (1 - pow(1 - (bytes - f->room) / (f->cache - f->room), 1 / f->shape));
}

double idle_fit_half_rate(const IdleFit *f)
{
	if (!idle_fit_known(f) || f->shape <= 1)
		return INFINITY;
	return f->delay + f->clean_seconds * (1 - pow(0.5, 1 / (f->shape - 1)));
}

typedef struct Trial {
	const IdlePoint *p;
	unsigned n;
	IdleFit f;			/* all but clean_seconds */
} Trial;

static double misfit(const Trial *t, double clean, double *ret_worst)
{
	double sum = 0, worst = 0, floor = FLOOR_SHARE * t->f.cache;
	IdleFit f = t->f;
	f.clean_seconds = clean;
	for (unsigned i = 0; i < t->n; i++) {
		const IdlePoint *x = &t->p[i];
		double got = form(&f, x->rest);
		double e = (got - x->bytes) / fmax(fmax(x->bytes, x->err), floor);
		if (x->at_least && e > 0)
			e = 0;	/* a lower bound: only falling short of it is wrong */
		sum += e * e * e * e;
		worst = fmax(worst, fabs(e));
	}
	if (ret_worst)
		*ret_worst = worst;
	return sum;
}

/* The cleaning time that fits best for a shape and a delay, by golden
 * section on its logarithm between lo and hi. */
static double best_clean(const Trial *t, double lo, double hi)
{
	double a = log(lo), b = log(hi);
	double c = b - GOLDEN * (b - a), d = a + GOLDEN * (b - a);
	double fc = misfit(t, exp(c), NULL), fd = misfit(t, exp(d), NULL);
	for (int i = 0; i < GOLDEN_STEPS; i++) {
		if (fc < fd) {
			b = d, d = c, fd = fc;
			c = b - GOLDEN * (b - a);
			fc = misfit(t, exp(c), NULL);
		} else {
			a = c, c = d, fc = fd;
			d = a + GOLDEN * (b - a);
			fd = misfit(t, exp(d), NULL);
		}
	}
	return exp((a + b) / 2);
}

/* Every room, shape and delay of the grid with its best cleaning time;
 * with `within` finite, the first (least delay, then least room) whose
 * misfit is within it, else the best. */
static double search(Trial *t, double shortest, double longest, double within, IdleFit *ret)
{
	double best = INFINITY, least = ret->room;
	for (int j = 0; j < DELAY_STEPS; j++)
		for (int c = 0; c < ROOM_STEPS; c++)
			for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
				/* the room no more than the least any rest gave */
				t->f.room = least * c / ROOM_STEPS;
				t->f.shape = shapes[k];
				t->f.delay = shortest * j / DELAY_STEPS;
				double clean = best_clean(t, (shortest - t->f.delay) / 4, 1000 * longest), worst;
				double m = misfit(t, clean, &worst);
				if (m < best && (!isfinite(within) || m <= within)) {
					best = m;
					*ret = t->f;
					ret->clean_seconds = clean;
					ret->worst = worst;
				}
				if (isfinite(within) && m <= within)
					return best;
			}
	return best;
}

/* Rests no shorter than the delay cannot tell a delay from a room: of the
 * fits (nearly) as good as the best, the one with the least delay, then
 * the least room, is taken (a drive starts to clean when it can). */
#define AS_GOOD 1.3

void idle_fit(const IdlePoint *p, unsigned n, double cache, IdleFit *ret)
{
	*ret = (IdleFit){0};
	double shortest = INFINITY, longest = 0, most = 0, least = INFINITY;
	for (unsigned i = 0; i < n; i++) {
		if (!(p[i].rest > 0) || !(p[i].bytes >= 0))
			return;
		shortest = fmin(shortest, p[i].rest);
		longest = fmax(longest, p[i].rest);
		most = fmax(most, p[i].bytes);
		least = fmin(least, p[i].bytes);
	}
	if (n < 2 || !(most > 0) || !(cache > 0) || !(longest > shortest))
		return;
	Trial t = {.p = p, .n = n, .f = {.cache = fmax(cache, most), .longest = longest, .points = n}};
	IdleFit f = {.room = least};
	double best = search(&t, shortest, longest, INFINITY, &f);
	f.room = least;
	search(&t, shortest, longest, AS_GOOD * best + 1e-12, &f);
	*ret = f;
	ret->cache = t.f.cache, ret->longest = longest, ret->points = n;
}

const char *idle_fit_describe(const IdleFit *f, char *buf, size_t n)
{
	char r[FORMAT_MAX], h[FORMAT_MAX], c[FORMAT_MAX], a[FORMAT_MAX];
	if (!idle_fit_known(f)) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	double all = f->delay + f->clean_seconds, half = idle_fit_half_rate(f);
	/* past four times the longest rest measured, when it is all clean is a guess */
	bool guess = all > 4 * f->longest;
	format_rate(r, idle_fit_rate(f, f->delay));
	format_size(c, f->cache);
	format_duration(a, all);
	if (isfinite(half) && half <= 4 * f->longest)
		snprintf(buf, n, "a rest gives back ~%s at first, half that after ~%s, and all of ~%s after ~%s%s", r,
			 format_duration(h, half), c, a, guess ? " (by the fit, past the rests measured)" : "");
	else
		snprintf(buf, n, "a rest gives back ~%s for as long as it lasts, until all of ~%s is clean after ~%s%s", r, c,
			 a, guess ? " (by the fit, past the rests measured)" : "");
	return buf;
}
