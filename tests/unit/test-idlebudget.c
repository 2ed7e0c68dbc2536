/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The idle budget (core/detect/idlebudget.c) on hand-made days: the hours'
 * sums from intervals (runs across an hour's end, runs too short, a day's
 * decay), the need and the storms against the greedy ring worked out stretch
 * by stretch, the day's worst hour and best window; and how it is written
 * out (core/output/idle-out.c): JSON, sentences, the day's picture.
 */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "idle-out.h"
#include "idlebudget.h"
#include "test.h"

#define HOUR 3600.0
#define MB 1e6
#define DAY0 1767225600.0	/* a local midnight */

/* A curve of the plain greedy ring: no delay, no room, linear, 100 s to
 * clean all of a 100 MB cache. */
static IdleFit ring_curve(void)
{
	return (IdleFit){.cache = 100 * MB, .room = 0, .clean_seconds = 100, .shape = 1, .delay = 0, .longest = 120,
			 .points = 5};
}

/* Seconds from wall `from` to `to`, 1 s intervals: `busy` s of writes at
 * `rate` then `quiet` s of none, over and over. */
static void load(IdleBudget *b, double from, double to, double busy, double quiet, double rate)
{
	double cycle = busy + quiet;
	for (double t = from; t < to; t += 1) {
		bool q = fmod(t - from, cycle) >= busy;
		idle_budget_interval(b, t + 1, 1, q ? 0 : rate, q ? 0 : rate / 4096, 0, q, q ? 0 : 1, BUDGET_MIN_RUN);
	}
}

static void test_hours(void)
{
	IdleBudget b;
	idle_budget_init(&b);
	IdleFit f = ring_curve();
	BudgetDisk k = {.curve = &f, .cache = 100 * MB};
	/* 13:30 to 15:30 on the first day: 10 s of writes, 5 s without I/O */
	load(&b, DAY0 + 13.5 * HOUR, DAY0 + 15.5 * HOUR, 10, 5, 1 * MB);
	BudgetForecast x;
	idle_budget_hour(&b, 14, &k, &x);
	CHECK_NEAR(x.seen, HOUR, 1e-6);
	CHECK_NEAR(x.write_per_hour, 2400 * MB, 1);
	CHECK_NEAR(x.idle_per_hour, 1200, 1e-6);
	CHECK_NEAR(x.runs_per_hour, 240, 1e-6);
	/* the hour under way counts too */
	idle_budget_hour(&b, 15, &k, &x);
	CHECK_NEAR(x.seen, HOUR / 2, 1e-6);
	CHECK_NEAR(x.idle_per_hour, 1200, 1e-6);
	/* an hour not watched */
	idle_budget_hour(&b, 3, &k, &x);
	CHECK(x.seen == 0 && isnan(x.need_per_hour) && isinf(x.first_storm));
	/* an unknown clock counts nothing */
	idle_budget_interval(&b, NAN, 1, 5 * MB, 1, 0, false, 1, BUDGET_MIN_RUN);
	idle_budget_interval(&b, 0, 1, 5 * MB, 1, 0, false, 1, BUDGET_MIN_RUN);
	idle_budget_hour(&b, 15, &k, &x);
	CHECK_NEAR(x.seen, HOUR / 2, 1e-6);

	/* a run across an hour's end counts in both hours, each part that is
	 * long enough; a part under a second in the next hour does not */
	IdleBudget c;
	idle_budget_init(&c);
	load(&c, DAY0 + 2 * HOUR - 100, DAY0 + 2 * HOUR - 30, 70, 0, 1 * MB);
	load(&c, DAY0 + 2 * HOUR - 30, DAY0 + 2 * HOUR + 20, 0, 50, 1 * MB);
	load(&c, DAY0 + 2 * HOUR + 20, DAY0 + 2 * HOUR + 60, 40, 0, 1 * MB);
	idle_budget_hour(&c, 1, &k, &x);
	CHECK_NEAR(x.idle_per_hour / (HOUR / x.seen), 30, 1e-6);
	CHECK_NEAR(x.runs_per_hour / (HOUR / x.seen), 1, 1e-9);
	idle_budget_hour(&c, 2, &k, &x);
	CHECK_NEAR(x.idle_per_hour / (HOUR / x.seen), 20, 1e-6);
	/* half-second gaps are no rest: busy half of each interval */
	IdleBudget e;
	idle_budget_init(&e);
	for (double t = DAY0 + 5 * HOUR; t < DAY0 + 5 * HOUR + 600; t += 1)
		idle_budget_interval(&e, t + 1, 1, 1 * MB, 100, 0, false, 0.5, BUDGET_MIN_RUN);
	idle_budget_hour(&e, 5, &k, &x);
	CHECK(x.idle_per_hour == 0 && x.runs_per_hour == 0);

	/* the next day's 14:00 weighs in, the first one's decayed */
	load(&b, DAY0 + 15.5 * HOUR, DAY0 + 24 * HOUR + 13.9 * HOUR, 1, 0, 0);
	load(&b, DAY0 + 24 * HOUR + 13.9 * HOUR, DAY0 + 24 * HOUR + 15.1 * HOUR, 1, 0, 0);
	idle_budget_hour(&b, 14, &k, &x);
	CHECK_NEAR(x.seen, HOUR * (1 + BUDGET_DAY_DECAY), 1e-3);
	CHECK_NEAR(x.write_per_hour, 2400 * MB * BUDGET_DAY_DECAY / (1 + BUDGET_DAY_DECAY), 1e3);
}

/* The greedy ring stretch by stretch: B written, then a rest cleaning a
 * share k of the bands, the dirtiest first (each band holds what was
 * written since it was last cleaned: the oldest are the dirtiest); the
 * seconds from clean to the stretch's write that fills the cache. */
static double ring_first_storm(double bytes, double k, double busy, double cycle, double cache)
{
	enum { BANDS = 1000 };
	static double band[BANDS];
	memset(band, 0, sizeof band);
	for (int m = 0; m < 1000; m++) {
		double fill = 0;
		for (int i = 0; i < BANDS; i++)
			fill += band[i];
		if (fill + bytes >= cache)
			return m * cycle + (cache - fill) / bytes * busy;
		for (int i = 0; i < BANDS; i++)
			band[i] += bytes / BANDS;
		/* the bands cleaned longest ago are the dirtiest: a ring */
		int n = (int)lround(k * BANDS), from = (int)((long)m * n % BANDS);
		for (int i = 0; i < n; i++)
			band[(from + i) % BANDS] = 0;
	}
	return INFINITY;
}

static void test_forecast(void)
{
	IdleFit f = ring_curve();
	BudgetDisk k = {.curve = &f, .cache = 100 * MB};
	BudgetForecast x;
	/* 36 rests an hour of 10 s (a tenth of the bands each), 30 MB between */
	idle_budget_forecast(36 * 30 * MB, 36, 360, &k, &x);
	/* about n r = W (T + r) / (2 A); exactly the idle with which no storm
	 * comes, in rests of 10 s */
	CHECK_NEAR(x.need_per_hour, 36 * 30 * MB * 110 / (2 * 100 * MB), 0.01 * x.need_per_hour);
	CHECK(x.need_per_hour > x.idle_per_hour);
	double n = x.need_per_hour / 10;
	BudgetForecast y;
	idle_budget_forecast(36 * 30 * MB, 1.01 * n, 10.1 * n, &k, &y);
	CHECK(isinf(y.first_storm) && y.need_per_hour < y.idle_per_hour);
	idle_budget_forecast(36 * 30 * MB, 0.99 * n, 9.9 * n, &k, &y);
	CHECK(isfinite(y.first_storm) && y.need_per_hour > y.idle_per_hour);
	double want = ring_first_storm(30 * MB, 0.1, 90, 100, 100 * MB);
	CHECK_NEAR(x.first_storm, want, 1e-6 * want);
	printf("first storm %.1f s, the ring's %.1f s\n", x.first_storm, want);
	CHECK_NEAR(x.storm_every, 100, 1e-9);	/* a stretch writes more than a rest cleans */
	/* a heavier load storms sooner */
	idle_budget_forecast(36 * 45 * MB, 36, 360, &k, &x);
	want = ring_first_storm(45 * MB, 0.1, 90, 100, 100 * MB);
	CHECK_NEAR(x.first_storm, want, 1e-6 * want);
	/* a light one never: 5 MB a stretch holds the cache under 27.5 MB */
	idle_budget_forecast(36 * 5 * MB, 36, 360, &k, &x);
	CHECK(isinf(x.first_storm) && isinf(x.storm_every) && isinf(ring_first_storm(5 * MB, 0.1, 90, 100, 100 * MB)));
	CHECK(x.need_per_hour < x.idle_per_hour);
	/* no rest at all: the cache lasts A / W, then stays slow */
	idle_budget_forecast(400 * MB, 0, 0, &k, &x);
	CHECK_NEAR(x.first_storm, 100.0 / 400 * HOUR, 1e-6);
	CHECK(isinf(x.storm_every) && x.need_per_hour > 0);
	/* nothing written: nothing needed */
	idle_budget_forecast(0, 10, 100, &k, &x);
	CHECK(x.need_per_hour == 0 && isinf(x.first_storm));
	/* no curve: nothing said */
	IdleFit none = {0};
	k.curve = &none;
	idle_budget_forecast(36 * 30 * MB, 36, 360, &k, &x);
	CHECK(isnan(x.need_per_hour) && isinf(x.first_storm));
}

/* A day from hours as the history would give them back. */
static void make_day(IdleBudget *b)
{
	idle_budget_init(b);
	for (int h = 0; h < BUDGET_HOURS; h++) {
		/* busy 9-17 with short rests; the night's hours idle; 20-22 unwatched */
		if (h >= 20 && h <= 22)
			continue;
		bool work = h >= 9 && h < 17;
		BudgetHour x = {.seen = HOUR, .cache_bytes = work ? 2000 * MB : 50 * MB,
				.cache_writes = work ? 5e5 : 1e4, .idle = work ? 200.0 : (h < 6 ? 3000.0 : 1500.0),
				.runs = work ? 40.0 : 10.0};
		idle_budget_restore(b, h, &x, 48);
	}
}

static void test_day(void)
{
	IdleBudget b;
	make_day(&b);
	IdleFit f = ring_curve();
	BudgetDisk k = {.curve = &f, .cache = 100 * MB};
	IdleBudgetDay d;
	idle_budget_day(&b, &k, &d);
	CHECK(d.known);
	CHECK_INT(d.watched, 21);
	CHECK(isnan(d.got[21]) && isnan(d.need[21]) && isfinite(d.got[3]));
	CHECK(d.worst >= 9 && d.worst < 17);
	CHECK_INT(d.at_hour, d.worst);
	CHECK(d.at.need_per_hour > d.at.idle_per_hour);
	/* the night: 00-03 (and 23 unwatched... 22 too: 23-02 is not whole) */
	CHECK_INT(d.window, 0);
	CHECK_NEAR(d.window_idle, 9000, 1e-3);
	double need = 0, got = 0;
	for (int h = 0; h < BUDGET_HOURS; h++)
		if (isfinite(d.got[h]))
			need += d.need[h], got += d.got[h];
	CHECK_NEAR(d.need_day, need * 24 / 21, 1e-2 * need);
	CHECK_NEAR(d.got_day, got * 24 / 21, 1e-3 * got);
	CHECK_NEAR(d.days, 49.0 / 24, 1e-6);
	/* a bad hour from the history is refused */
	BudgetHour bad = {.seen = -5};
	idle_budget_restore(&b, 3, &bad, 1);
	idle_budget_restore(&b, 24, &(BudgetHour){.seen = HOUR}, 1);
	idle_budget_day(&b, &k, &d);
	CHECK(isfinite(d.got[3]));
	/* no curve: nothing known */
	IdleFit none = {0};
	k.curve = &none;
	idle_budget_day(&b, &k, &d);
	CHECK(!d.known && d.window == -1 && d.worst == -1);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void test_out(void)
{
	IdleBudget b;
	make_day(&b);
	IdleFit f = ring_curve();
	BudgetDisk k = {.curve = &f, .cache = 100 * MB};
	IdleBudgetDay d;
	idle_budget_day(&b, &k, &d);
	char text[512];
	idle_budget_forecast_text(&d, text, sizeof text);
	printf("forecast: %s\n", text);
	char hour[40];
	snprintf(hour, sizeof hour, "%02d:00-%02d:00: ", d.at_hour, d.at_hour + 1);
	CHECK(strncmp(text, hour, strlen(hour)) == 0);
	CHECK(strstr(text, "/h of random writes need ~") && strstr(text, "of idle an hour, it got "));
	CHECK(strstr(text, "a clean cache lasts ~") && strstr(text, "then expect a storm every ~"));
	idle_budget_advice_text(&d, text, sizeof text);
	printf("advice: %s\n", text);
	/* it gets more idle in the day than it needs: the night can spare some */
	CHECK(d.got_day > d.need_day);
	CHECK(strstr(text, "scrubs, backups and SMART long tests belong in 00:00-03:00, its best idle window") == text);

	json_object *o = idle_budget_json(&d);
	CHECK(o && json_object_array_length(get(o, "hours")) == BUDGET_HOURS);
	CHECK(get(json_object_array_get_idx(get(o, "hours"), 21), "idle_seconds") == NULL);	/* unwatched: null */
	CHECK_INT(json_object_get_int(get(o, "watched_hours")), 21);
	CHECK_INT(json_object_get_int(get(get(o, "at"), "hour")), d.at_hour);
	CHECK_NEAR(json_object_get_double(get(get(o, "at"), "storm_interval_seconds")), d.at.storm_every, 1e-3);
	CHECK_INT(json_object_get_int(get(get(o, "window"), "from_hour")), 0);
	CHECK(strlen(json_object_get_string(get(o, "forecast"))) > 20);
	json_object_put(o);

	Buf svg = {0};
	idle_budget_svg(&svg, &d);
	CHECK(svg.data && strncmp(svg.data, "<svg", 4) == 0 && strstr(svg.data, "</svg>"));
	unsigned bars = 0, warn = 0;
	for (const char *p = svg.data; p && (p = strstr(p, "data-hour=")); p++)
		bars++;
	for (const char *p = svg.data; p && (p = strstr(p, "var(--warn)")); p++)
		warn++;
	CHECK_INT(bars, 21);
	CHECK_INT(warn, 8);	/* 9-17 short */
	CHECK(!strstr(svg.data, "href") && !strstr(svg.data, "url("));	/* no external resource */
	buf_free(&svg);

	/* a CMR disk's: nothing */
	IdleBudgetDay none = {.worst = -1, .at_hour = -1, .window = -1};
	CHECK(idle_budget_json(&none) == NULL);
	CHECK_STR(idle_budget_forecast_text(&none, text, sizeof text), "");
	CHECK_STR(idle_budget_advice_text(&none, text, sizeof text), "");

	/* the curve */
	IdlePoint p[2] = {{.rest = 10, .bytes = 10 * MB, .err = 1e5}, {.rest = 120, .bytes = 100 * MB, .at_least = true}};
	o = idle_curve_json(p, 2, &f);
	CHECK(json_object_array_length(get(o, "points")) == 2);
	CHECK(json_object_get_boolean(get(json_object_array_get_idx(get(o, "points"), 1), "at_least")));
	CHECK_NEAR(json_object_get_double(get(get(o, "fit"), "clean_seconds")), 100, 1e-9);
	json_object_put(o);
	IdleFit unknown = {0};
	o = idle_curve_json(p, 1, &unknown);
	CHECK(get(o, "fit") == NULL && json_object_array_length(get(o, "points")) == 1);
	json_object_put(o);
}

int main(void)
{
	test_hours();
	test_forecast();
	test_day();
	test_out();
	return test_done("idlebudget");
}
