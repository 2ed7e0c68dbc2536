/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A drive-managed SMR disk's idle budget (pure): by hour of the day, what
 * it writes into its media cache and the idle it gets (runs without any
 * I/O long enough for the drive to start cleaning, from its own counters),
 * and from its idle-recovery curve the idle it needs to start each busy
 * stretch with room for what the stretch writes, and when a cache left
 * clean runs out at that load. Nothing here sends an I/O: a disk left idle
 * stays idle. docs/detection.md, "Idle time".
 *
 * The model behind the need and the forecast is the greedy drive's: writes
 * land on its bands evenly, a rewrite costs the same however little of a
 * band is cached, so a rest of r cleans a share k of the bands, the
 * dirtiest (the longest since their last cleaning) first, k the rest's
 * share of the curve's whole time (its delay and clean time). A stretch
 * that writes B between rests keeps its cache under B (1/(2k) + 1/2) at
 * its fullest; from clean, its fill after n stretches is
 * n B - k B n (n + 1) / 2 until every band has been cleaned once. A curve
 * learnt from a full cache says k only roughly (the cache's spread over
 * the bands then is not a fresh fill's): a storm many stretches away is
 * forecast less surely than one in the next (docs/detection.md, "Idle
 * time", has the figures).
 */
#pragma once

#include <stdbool.h>

#include "idlecurve.h"

#define BUDGET_HOURS 24
/* a run without I/O this long or longer counts as idle: the curve's delay
 * says whether, and how much, the drive cleans in it */
#define BUDGET_MIN_RUN 1.0
/* an hour of the day weighs this much less each day: the last week counts */
#define BUDGET_DAY_DECAY (6.0 / 7.0)

typedef struct BudgetHour {
	double seen;			/* seconds of this hour of the day watched (decayed from day to day) */
	double cache_bytes;		/* small writes in them: what fills the media cache */
	double cache_writes;		/* ... how many */
	double read_bytes;		/* reads: a scrub or a backup reading keeps the disk from its rest */
	double idle;			/* seconds without I/O in runs of min_run or more */
	double runs;			/* those runs (a run over an hour's end counts in both) */
} BudgetHour;

typedef struct IdleBudget {
	BudgetHour hour[BUDGET_HOURS];	/* by local hour of the day, the hour under way not yet in */
	BudgetHour cur;			/* the hour under way */
	long cur_hour;			/* its number, local hours since the epoch; -1 none yet */
	double run, run_in_hour;	/* seconds of the run without I/O under way, and its part in this hour */
	double tail;			/* idle at the end of the last interval with I/O (its share not busy) */
	double min_run;			/* the last interval's: what the run under way must reach to count */
	unsigned hours;			/* hours folded in */
} IdleBudget;

void idle_budget_init(IdleBudget *b);
/* One interval of dt seconds ending at local time `wall` (seconds since
 * the epoch plus the UTC offset; NaN or 0: unknown, nothing is counted): its
 * cache-filling and read bytes, whether it had no I/O at all (quiet),
 * else the share of it busy; min_run the shortest run that counts as
 * idle (the drive's delay before it cleans). */
void idle_budget_interval(IdleBudget *b, double wall, double dt, double cache_bytes, double cache_writes,
			  double read_bytes, bool quiet, double busy, double min_run);
/* An hour of the day as the history kept it (and the hours folded in). */
void idle_budget_restore(IdleBudget *b, int hour, const BudgetHour *h, unsigned hours);

/* What one hour of the day means for the disk, from its figures and the
 * curve (f) on a cache of `cache` bytes. */
typedef struct BudgetForecast {
	double seen;			/* seconds of it watched; 0: nothing known */
	double write_per_hour;		/* bytes into the cache */
	double read_per_hour;
	double idle_per_hour;		/* seconds of idle it gets */
	double runs_per_hour;
	double need_per_hour;		/* seconds of idle it needs, in runs as long as those it gets */
	double first_storm;		/* seconds from a clean cache to a storm at this load; INFINITY none */
	double storm_every;		/* then between storms (one in each stretch between rests); INFINITY none */
} BudgetForecast;

/* What the budget works with besides the hours: the curve and the cache
 * it is on. */
typedef struct BudgetDisk {
	const IdleFit *curve;
	double cache;
} BudgetDisk;

/* Hour h of the day (0-23), the hour under way added if it is that one
 * (with its run under way). */
void idle_budget_hour(const IdleBudget *b, int h, const BudgetDisk *k, BudgetForecast *ret);
/* The same for a given load and idle: bytes an hour into the cache, runs
 * an hour, seconds of idle an hour (the hours' figures, and the tests'). */
void idle_budget_forecast(double write_per_hour, double runs_per_hour, double idle_per_hour, const BudgetDisk *k,
			  BudgetForecast *ret);

/* The day as the views show it: every hour of it, the day's sums, the
 * hour most short of its need and the best idle window. */
#define BUDGET_WINDOW 3			/* hours: a scrub's or a backup's night */

typedef struct IdleBudgetDay {
	bool known;			/* a curve, and an hour of the day watched */
	double need[BUDGET_HOURS], got[BUDGET_HOURS];	/* seconds of idle in each hour; NaN unwatched */
	double write[BUDGET_HOURS];	/* bytes into the cache in each hour */
	double need_day, got_day;	/* over the hours watched, made a day's (seconds) */
	unsigned watched;		/* hours of the day with figures */
	int worst;			/* the hour most short of its need; -1 none short */
	BudgetForecast at;		/* that hour's figures; the busiest hour's when none is short */
	int at_hour;			/* which */
	int window;			/* the first hour of the BUDGET_WINDOW hours with the most idle; -1 none */
	double window_idle, window_need;	/* seconds in them */
	double days;			/* days of watching the figures rest on */
} IdleBudgetDay;

void idle_budget_day(const IdleBudget *b, const BudgetDisk *k, IdleBudgetDay *ret);
