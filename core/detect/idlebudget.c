/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The budget's arithmetic (idlebudget.h has the model): the hours' sums,
 * and from them and the curve the idle needed and the first storm, in
 * closed form so that every disk's day is worked out in a few
 * microseconds, every sample.
 */
#include "idlebudget.h"

#include <math.h>
#include <string.h>

#define HOUR 3600.0

void idle_budget_init(IdleBudget *b) { *b = (IdleBudget){.cur_hour = -1}; }

static void add(BudgetHour *a, const BudgetHour *x, double scale)
{
	a->seen = a->seen * scale + x->seen;
	a->cache_bytes = a->cache_bytes * scale + x->cache_bytes;
	a->cache_writes = a->cache_writes * scale + x->cache_writes;
	a->read_bytes = a->read_bytes * scale + x->read_bytes;
	a->idle = a->idle * scale + x->idle;
	a->runs = a->runs * scale + x->runs;
}

/* The run under way counts in the hour it is in if its part in it is
 * long enough for the drive to clean (a night's idle ending a few tenths
 * of a second into the hour is no rest of that hour). */
static void run_book(IdleBudget *b, double min_run)
{
	if (b->run_in_hour >= min_run) {
		b->cur.idle += b->run_in_hour;
		b->cur.runs += 1;
	}
	b->run_in_hour = 0;
}

/* A new hour: the one that ended into its hour of the day. */
static void next_hour(IdleBudget *b, long hour, double min_run)
{
	if (b->cur_hour >= 0) {
		run_book(b, min_run);
		add(&b->hour[b->cur_hour % BUDGET_HOURS], &b->cur, BUDGET_DAY_DECAY);
		b->hours++;
	}
	b->cur = (BudgetHour){0};
	b->cur_hour = hour;
}

void idle_budget_interval(IdleBudget *b, double wall, double dt, double cache_bytes, double cache_writes,
			  double read_bytes, bool quiet, double busy, double min_run)
{
	if (!(wall > 0) || !isfinite(wall) || !(dt > 0))
		return;	/* unknown: a sample filled by hand, a disk gone */
	/* the hour of its middle: one ending on the hour is the hour's before */
	long hour = (long)floor((wall - dt / 2) / HOUR);
	b->min_run = min_run;
	if (hour != b->cur_hour)
		next_hour(b, hour, min_run);
	b->cur.seen += dt;
	b->cur.cache_bytes += fmax(cache_bytes, 0);
	b->cur.cache_writes += fmax(cache_writes, 0);
	b->cur.read_bytes += fmax(read_bytes, 0);
	busy = fmin(fmax(busy, 0), 1);
	if (quiet) {
		if (b->run == 0)
			b->run = b->run_in_hour = b->tail;	/* the end of the interval before was idle too */
		b->run += dt;
		b->run_in_hour += dt;
		return;
	}
	if (b->run > 0) {	/* the run ends: the start of this interval was idle too */
		b->run += (1 - busy) * dt;
		b->run_in_hour += (1 - busy) * dt;
		run_book(b, min_run);
		b->run = 0;
	}
	b->tail = (1 - busy) * dt;
}

void idle_budget_restore(IdleBudget *b, int hour, const BudgetHour *h, unsigned hours)
{
	if (hour < 0 || hour >= BUDGET_HOURS || !(h->seen >= 0) || !(h->seen <= 400 * HOUR))
		return;
	b->hour[hour] = *h;
	b->hours = hours > b->hours ? hours : b->hours;
}

/* The share of the bands a rest of r seconds cleans. The fit's delay is
 * seldom the drive's: rests all longer than it cannot tell a delay from a
 * slower start, so the rest is taken as a share of the curve's whole time
 * (delay and clean time); a drive starts cleaning within a second or two,
 * short next to the rests that count. */
static double band_share(const IdleFit *f, double r)
{
	return fmin(fmax(r / (f->delay + f->clean_seconds), 0), 1);
}

/* Rests of r seconds when the hour has none: a tenth of the curve. */
static double rest_or(const IdleFit *f, double r)
{
	return r > 0 ? r : 0.1 * (f->delay + f->clean_seconds);
}

/* From clean, stretches of `busy` seconds writing B each between rests
 * cleaning a share k of the bands: the fill before stretch m + 1 is
 * m B - k B m (m + 1) / 2 while m <= 1/k (every band cleaned once by
 * then, the fill settles), and a storm comes in the first stretch that
 * takes it to A. */
static double first_storm(double b, double k, double busy, double cycle, double cache)
{
	if (!(b > 0))
		return INFINITY;
	if (b >= cache)
		return cache / b * busy;
	double m;
	if (k <= 0) {
		m = ceil((cache - b) / b);
	} else {
		/* (k B / 2) m^2 + (k B / 2 - B) m + (A - B) <= 0 */
		double qa = k * b / 2, qb = k * b / 2 - b, qc = cache - b, disc = qb * qb - 4 * qa * qc;
		if (disc < 0)
			return INFINITY;
		m = ceil((-qb - sqrt(disc)) / (2 * qa) - 1e-9);
		if (m > 1 / k + 1)
			return INFINITY;
	}
	m = fmax(m, 0);
	double fill = m * b - k * b * m * (m + 1) / 2;
	return m * cycle + fmax(cache - fill, 0) / b * busy;
}

/* The idle an hour needs, in rests as long as those it gets: the least
 * that keeps a clean cache from filling at W bytes an hour (no first
 * storm, as first_storm() has it), found by halving. About
 * W (T + r) / (2 A), T the curve's whole time: the ring's fill at its
 * fullest, B (1/(2k) + 1/2) for B = W / n written between n rests an
 * hour, stays under A; the first pass over the bands from clean peaks a
 * little higher. */
static double need_idle(double w, double r, const IdleFit *f, double cache)
{
	if (!(w > 0))
		return 0;
	r = rest_or(f, r);
	double k = band_share(f, r), lo = 0, hi = w * (f->delay + f->clean_seconds + r) / (2 * cache * r) + 1;
	while (isfinite(first_storm(w / hi, k, 1, 1, cache)) && hi < 1e9)
		hi *= 2;
	for (int i = 0; i < 50 && hi - lo > 1e-6 * hi; i++) {
		double n = (lo + hi) / 2;
		if (isfinite(first_storm(w / n, k, 1, 1, cache)))
			lo = n;
		else
			hi = n;
	}
	return hi * r;
}

void idle_budget_forecast(double wph, double runs, double idle, const BudgetDisk *dk, BudgetForecast *ret)
{
	const IdleFit *f = dk->curve;
	double cache = dk->cache;
	*ret = (BudgetForecast){.write_per_hour = wph, .runs_per_hour = runs, .idle_per_hour = idle,
				.first_storm = INFINITY, .storm_every = INFINITY, .need_per_hour = NAN};
	if (!idle_fit_known(f) || !(cache > 0) || !(wph >= 0))
		return;
	double r = runs > 0 ? idle / runs : NAN;
	ret->need_per_hour = need_idle(wph, r, f, cache);
	if (!(wph > 0))
		return;
	if (!(runs > 0)) {
		/* no rest: a clean cache lasts A / W, then the writes stay slow */
		ret->first_storm = cache / wph * HOUR;
		return;
	}
	double cycle = HOUR / runs, busy = fmax(cycle - r, 0), b = wph / runs;
	double k = band_share(f, r);
	ret->first_storm = first_storm(b, k, busy, cycle, cache);
	/* once at its threshold, a rest gives back what the curve says from
	 * there: a stretch that writes more meets the cliff again */
	if (isfinite(ret->first_storm) && b > idle_fit_bytes(f, r))
		ret->storm_every = cycle;
}

void idle_budget_hour(const IdleBudget *b, int h, const BudgetDisk *k, BudgetForecast *ret)
{
	BudgetHour x = {0};
	if (h >= 0 && h < BUDGET_HOURS)
		x = b->hour[h];
	if (b->cur_hour >= 0 && b->cur_hour % BUDGET_HOURS == h) {
		add(&x, &b->cur, 1);
		if (b->run_in_hour >= b->min_run && b->run_in_hour > 0)
			x.idle += b->run_in_hour, x.runs += 1;
	}
	if (!(x.seen > 0)) {
		*ret = (BudgetForecast){.first_storm = INFINITY, .storm_every = INFINITY, .need_per_hour = NAN};
		return;
	}
	double per = HOUR / x.seen;
	idle_budget_forecast(x.cache_bytes * per, x.runs * per, x.idle * per, k, ret);
	ret->seen = x.seen;
	ret->read_per_hour = x.read_bytes * per;
}

/* The BUDGET_WINDOW watched hours in a row with the most idle. */
static void best_window(IdleBudgetDay *d)
{
	double best = -1;
	d->window = -1;
	for (int h = 0; h < BUDGET_HOURS; h++) {
		double idle = 0, need = 0;
		bool all = true;
		for (int k = 0; k < BUDGET_WINDOW; k++) {
			int x = (h + k) % BUDGET_HOURS;
			all &= isfinite(d->got[x]);
			idle += d->got[x];
			need += isfinite(d->need[x]) ? d->need[x] : 0;
		}
		if (all && idle > best) {
			best = idle;
			d->window = h, d->window_idle = idle, d->window_need = need;
		}
	}
}

void idle_budget_day(const IdleBudget *b, const BudgetDisk *k, IdleBudgetDay *ret)
{
	IdleBudgetDay d = {.worst = -1, .at_hour = -1, .window = -1};
	double need = 0, got = 0, short_most = 0, busiest = -1;
	for (int h = 0; h < BUDGET_HOURS; h++) {
		BudgetForecast x;
		idle_budget_hour(b, h, k, &x);
		d.need[h] = d.got[h] = d.write[h] = NAN;
		/* a few minutes of an hour say little of it */
		if (!(x.seen >= 300) || !isfinite(x.need_per_hour))
			continue;
		d.watched++;
		d.need[h] = x.need_per_hour, d.got[h] = x.idle_per_hour, d.write[h] = x.write_per_hour;
		need += x.need_per_hour, got += x.idle_per_hour;
		double lack = x.need_per_hour - x.idle_per_hour;
		if (lack > short_most)
			short_most = lack, d.worst = h, d.at = x, d.at_hour = h;
		if (d.worst < 0 && x.write_per_hour > busiest)
			busiest = x.write_per_hour, d.at = x, d.at_hour = h;
	}
	if (d.watched) {
		d.known = true;
		d.need_day = (need * BUDGET_HOURS / d.watched);
		d.got_day = (got * BUDGET_HOURS / d.watched);
		d.days = (b->hours + 1.0) / BUDGET_HOURS;
		best_window(&d);
	}
	*ret = d;
}
