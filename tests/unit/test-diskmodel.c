/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The media cache's model and the daemon's tracking of it, on an explicit
 * clock: learnt from fills to a cliff, refined by refills after full and
 * partial idles, the fill anchored by storms' ends, sequential writes left
 * out, a restart unsure until an idle cleans it all, and the forecast of the
 * next stall while writes arrive.
 */
#include <math.h>

#include "diskmodel.h"
#include "test.h"

#define MiB (1024.0 * 1024)

static const CacheParams P = {.seq_size = 262144, .rate_window = 10, .min_rate = 65536};

/* seconds [from, to) of writes at rate bytes/s in 4 KiB writes (or `size`) */
static void write_for(CacheTrack *c, double from, double to, double rate, double size, bool storm)
{
	for (double t = from + 1; t <= to + 1e-9; t++) {
		CacheSample s = {.now = t, .dt = 1, .write_bytes = rate, .writes = rate / size, .ios = rate / size,
				 .busy = rate > 0, .storm = storm};
		cache_interval(c, &P, &s);
	}
}

/* seconds [from, to) without any I/O */
static void idle_for(CacheTrack *c, double from, double to)
{
	for (double t = from + 1; t <= to + 1e-9; t++)
		cache_interval(c, &P, &(CacheSample){.now = t, .dt = 1});
}

static void test_learn_and_forecast(void)
{
	CacheTrack c;
	cache_init(&c);
	/* a fresh disk: 70.4 s at 10 MiB/s of 4 KiB writes, then the cliff:
	 * the writes crawl from there */
	write_for(&c, 0, 70, 10 * MiB, 4096, false);
	write_for(&c, 70, 71, 4 * MiB, 4096, false);
	write_for(&c, 71, 72, 10240, 4096, false);
	CHECK(isnan(cache_forecast(&c, &P, 72)));	/* no cache known: no forecast */
	CHECK(isnan(cache_fill_ratio(&c)));
	CHECK(cache_storm_start(&c, 70.4, 73));
	CHECK(disk_model_known(&c.model));
	CHECK(c.model.cache_lower_bound);		/* smrd did not see it clean */
	CHECK_NEAR(c.model.media_cache_bytes, 704 * MiB, 1 * MiB);
	/* the slow phase: 30 s at 10 KiB/s, then the end: full */
	write_for(&c, 73, 103, 10240, 4096, true);
	CHECK(cache_storm_end(&c, 108, 0.4));
	CHECK_NEAR(c.model.slow_write_bps, 10240, 1);
	CHECK_NEAR(c.model.rewrite_seconds, 0.4, 1e-9);
	CHECK(c.sure);
	CHECK_NEAR(cache_fill_ratio(&c), 1, 1e-9);

	/* idle 200 s: only the slow rate is known, so it looks nearly full... */
	idle_for(&c, 108, 308);
	CHECK(cache_fill_ratio(&c) > 0.99);
	/* ...but the disk cleaned it all: writes at 5 MiB/s reach the cliff only after 140.8 s */
	write_for(&c, 308, 320, 5 * MiB, 4096, false);
	double fc = cache_forecast(&c, &P, 320);
	CHECK(isnan(fc));			/* the guess says full: no countdown left */
	write_for(&c, 320, 450, 5 * MiB, 4096, false);
	CHECK(cache_storm_start(&c, 448.8, 451));
	CHECK(!c.model.cache_lower_bound);		/* a refill of it all: from clean */
	CHECK_INT(c.model.cache_samples, 1);
	CHECK_NEAR(c.model.media_cache_bytes, 704 * MiB, 2 * MiB);
	CHECK(c.model.idle_recovery_bps >= 704 * MiB / 200 * 0.99);	/* at least that fast */
	write_for(&c, 451, 460, 10240, 4096, true);
	cache_storm_end(&c, 460, 0.4);

	/* a partial idle: 100 s without I/O from the last write cleans 352 MiB
	 * at 3.52 MiB/s; the refill then says so */
	idle_for(&c, 460, 560);
	CHECK_NEAR(cache_fill_ratio(&c), 0.5, 0.02);
	write_for(&c, 560, 570, 5 * MiB, 4096, false);
	/* 10 s in, 50 MiB written: ~302 MiB to go at 5 MiB/s */
	CHECK_NEAR(cache_forecast(&c, &P, 570), (352 - 50) / 5.0, 3);
	write_for(&c, 570, 631, 5 * MiB, 4096, false);
	CHECK(cache_storm_start(&c, 630.4, 632));
	CHECK_NEAR(c.model.media_cache_bytes, 704 * MiB, 2 * MiB);	/* a partial refill: the cache stays */
	CHECK_INT(c.model.recovery_samples, 1);
	CHECK_NEAR(c.model.idle_recovery_bps / MiB, 0.5 * 3.52 + 0.5 * 3.52, 0.2);
	printf("  learnt: cache %.1f MiB (true 704), recovery %.2f MiB/s (true 3.52), after it %.0f B/s\n",
	       c.model.media_cache_bytes / MiB, c.model.idle_recovery_bps / MiB, c.model.slow_write_bps);
}

static void test_sequential_and_pauses(void)
{
	CacheTrack c;
	cache_init(&c);
	cache_seed(&c, 100 * MiB);
	CHECK(disk_model_known(&c.model) && !c.model.cache_lower_bound && c.model.cache_samples == 1);
	cache_storm_end(&c, 1, 0);			/* anchored full */
	idle_for(&c, 1, 2);
	c.fill = 0;					/* as if clean */
	/* a backup: 1 MiB writes are a stream to the bands, not the cache */
	write_for(&c, 2, 30, 80 * MiB, 1048576, false);
	CHECK_NEAR(c.fill, 0, 0);
	CHECK(isnan(cache_forecast(&c, &P, 30)));
	/* small writes fill it; the rate from the first seconds on, not a slow ramp */
	write_for(&c, 30, 33, 2 * MiB, 4096, false);
	CHECK_NEAR(cache_rate(&c, &P, 33), 2 * MiB, 1);
	CHECK_NEAR(cache_forecast(&c, &P, 33), 47, 0.5);
	/* a pause: no forecast while nothing fills */
	idle_for(&c, 33, 40);
	CHECK(isnan(cache_forecast(&c, &P, 40)));
	CHECK_NEAR(cache_rate(&c, &P, 40), 0, 0);
}

static void test_restart(void)
{
	CacheTrack c;
	cache_init(&c);
	DiskModel m;
	disk_model_init(&m);
	m.media_cache_bytes = 64 * MiB;
	m.cache_samples = 3;
	m.idle_recovery_bps = 2 * MiB;
	cache_restore(&c, &m);
	CHECK(!c.sure);
	write_for(&c, 0, 5, 1 * MiB, 4096, false);
	CHECK(isnan(cache_forecast(&c, &P, 5)));	/* the fill is a guess: no forecast */
	/* an idle long enough to clean 1.5 caches at the learnt rate: clean, sure */
	idle_for(&c, 5, 5 + 47);
	CHECK(!c.sure);
	idle_for(&c, 52, 54);
	CHECK(c.sure);
	CHECK_NEAR(cache_fill_ratio(&c), 0, 0);
	write_for(&c, 54, 58, 1 * MiB, 4096, false);
	CHECK_NEAR(cache_forecast(&c, &P, 58), 60, 0.5);
}

/* A disk written slower than it cleans never storms: its first write that
 * waits with the cache nearly full is the cliff all the same; one early in
 * the fill is a hiccup. */
static void test_soft_cliff(void)
{
	CacheTrack c;
	cache_init(&c);
	cache_seed(&c, 64 * MiB);
	cache_storm_end(&c, 0, 0.3);
	c.model.idle_recovery_bps = 4 * MiB;
	idle_for(&c, 0, 30);				/* 120 MiB of cleaning: clean */
	CHECK_NEAR(cache_fill_ratio(&c), 0, 0);
	write_for(&c, 30, 40, 1 * MiB, 4096, false);
	CHECK(!cache_wait(&c, 39.5, 40));		/* 10 MiB in: a hiccup */
	CHECK_NEAR(cache_fill_ratio(&c), 10.0 / 64, 1e-9);
	write_for(&c, 40, 99, 1 * MiB, 4096, false);
	write_for(&c, 99, 100, 0.5 * MiB, 4096, false);
	/* the first wait half a second into the interval ending at 100, after
	 * which nothing went fast: 69.5 MiB absorbed */
	CHECK(cache_wait(&c, 99.5, 100));
	CHECK_NEAR(c.model.media_cache_bytes, (64 + 69.5) / 2 * MiB, 0.01 * MiB);
	CHECK_INT(c.model.cache_samples, 2);
	CHECK_NEAR(cache_fill_ratio(&c), 1, 0);		/* full from there */
	CHECK(!cache_wait(&c, 100.2, 101));		/* no new fill: nothing learnt */
}

static void test_figures(void)
{
	DiskModel m;
	disk_model_init(&m);
	CHECK(isnan(disk_model_write_seconds(&m, 1e12, 1e8)));
	m.media_cache_bytes = 24e9;
	CHECK(isnan(disk_model_write_seconds(&m, 1e12, 1e8)));	/* the slow rate unknown */
	m.slow_write_bps = 1e6;
	/* a resilver of 1 TB: 240 s fast, then 976e6 s... */
	CHECK_NEAR(disk_model_write_seconds(&m, 1e12, 1e8), 240 + 976e3, 1e-6);
	CHECK_NEAR(disk_model_write_seconds(&m, 1e9, 1e8), 10, 1e-9);
	/* lower bounds raise, clean fills average */
	disk_model_init(&m);
	disk_model_add_cache(&m, 10 * MiB, false);
	disk_model_add_cache(&m, 8 * MiB, false);
	CHECK_NEAR(m.media_cache_bytes, 10 * MiB, 0);
	disk_model_add_cache(&m, 12 * MiB, true);
	CHECK(!m.cache_lower_bound && m.cache_samples == 1);
	CHECK_NEAR(m.media_cache_bytes, 12 * MiB, 0);
	disk_model_add_cache(&m, 14 * MiB, true);
	CHECK_NEAR(m.media_cache_bytes, 13 * MiB, 1);
	CHECK_NEAR(m.cache_spread, 1.0 / 13, 1e-3);
	disk_model_add_cache(&m, 100 * MiB, false);	/* a lower bound under clean fills changes nothing */
	CHECK_NEAR(m.media_cache_bytes, 13 * MiB, 1);
}

/* Bursts into a storm and rests: each rest begun in the storm (its end 5 s
 * into the rest) and the refill after it up to the next cliff is a point
 * of the curve; the points, the fit and the fill after a rest follow a
 * greedy drive's curve (100 MiB clean after 80 s, the rate falling
 * linearly). */
/* One point a length of rest: the same length again replaces it, unless it
 * says the same (then nothing is learnt: no event); past IDLE_POINTS_MAX
 * lengths the oldest goes, so a disk that always rests as long keeps the
 * curve's other lengths. */
static void test_point_lengths(void)
{
	CacheTrack c;
	cache_init(&c);
	cache_restore_point(&c, &(IdlePoint){.rest = 60, .bytes = 50 * MiB, .err = MiB});
	for (int i = 0; i < 40; i++)
		cache_restore_point(&c, &(IdlePoint){.rest = 8 + 0.1 * (i % 3), .bytes = (9 + 0.05 * (i % 2)) * MiB, .err = MiB / 10});
	CHECK_INT(c.n_points, 2);
	CHECK_NEAR(c.points[0].rest, 60, 0);
	cache_restore_point(&c, &(IdlePoint){.rest = 8.5, .bytes = 12 * MiB, .err = MiB / 10});
	CHECK_INT(c.n_points, 2);
	CHECK_NEAR(cache_last_point(&c)->bytes, 12 * MiB, 0);
	for (int i = 0; i < 20; i++)
		cache_restore_point(&c, &(IdlePoint){.rest = 10 * pow(1.3, i), .bytes = (20 + i) * MiB});
	CHECK_INT(c.n_points, IDLE_POINTS_MAX);
	CHECK(c.points[0].rest > 10 && cache_last_point(&c)->bytes == 39 * MiB);
	cache_restore_point(&c, &(IdlePoint){.rest = NAN, .bytes = MiB});
	cache_restore_point(&c, &(IdlePoint){.rest = 5, .bytes = -1});
	CHECK_INT(c.n_points, IDLE_POINTS_MAX);
	cache_done(&c);
}

static void test_curve_points(void)
{
	IdleFit truth = {.cache = 100 * MiB, .clean_seconds = 80, .shape = 2, .longest = 80, .points = 1};
	static const double rests[] = {10, 20, 40, 60, 80};
	CacheTrack c;
	cache_init(&c);
	cache_seed(&c, 100 * MiB);
	double t = 0;
	write_for(&c, t, t + 10, 10 * MiB, 4096, false);	/* from clean to its cliff */
	cache_storm_start(&c, 10, 11);
	t = 10;
	for (int i = 0; i < 5; i++) {
		write_for(&c, t, t + 10, 20480, 4096, true);	/* the slow phase, then the burst stops */
		t += 10;
		idle_for(&c, t, t + 5);
		cache_storm_end(&c, t + 5, 0.4);		/* 5 s into the rest */
		idle_for(&c, t + 5, t + rests[i]);
		t += rests[i];
		/* writes at 5 MiB/s take what the rest gave back, then the cliff */
		double got = idle_fit_bytes(&truth, rests[i]), cliff = t + got / (5 * MiB);
		write_for(&c, t, floor(cliff), 5 * MiB, 4096, false);
		if (cliff > floor(cliff))	/* fast up to the cliff, then nothing */
			write_for(&c, floor(cliff), ceil(cliff), (cliff - floor(cliff)) * 5 * MiB, 4096, false);
		c.point_learnt = false;
		cache_storm_start(&c, cliff, ceil(cliff) + 1);
		const IdlePoint *pt = cache_last_point(&c);
		CHECK(c.point_learnt && pt);
		if (pt) {
			printf("  rest %.0f s: learnt %.1f s, %.1f MiB +- %.1f (the curve's %.1f)\n", rests[i], pt->rest,
			       pt->bytes / MiB, pt->err / MiB, got / MiB);
			CHECK_NEAR(pt->rest, rests[i], 0.01);
			CHECK_NEAR(pt->bytes, got, 0.1 * MiB);
		}
		t = ceil(cliff) + 1;
	}
	CHECK_INT(c.n_points, 5);
	CHECK_INT(c.model.recovery_samples, 5);
	CHECK_NEAR(c.model.recovery_rest, 80, 0.01);
	CHECK_NEAR(c.model.idle_recovery_bps, 100 * MiB / 80, 0.1 * MiB);
	CHECK(idle_fit_known(&c.model.curve));
	for (int i = 0; i < 5; i++)
		CHECK_NEAR(idle_fit_bytes(&c.model.curve, rests[i]) / idle_fit_bytes(&truth, rests[i]), 1, 0.05);
	/* the fill after a rest from full follows the curve: 30 s give back 61 MiB, not 30 s at the rate */
	write_for(&c, t, t + 5, 20480, 4096, true);
	t += 5;
	idle_for(&c, t, t + 5);
	cache_storm_end(&c, t + 5, 0.4);
	idle_for(&c, t + 5, t + 30);
	printf("  after 30 s: %.1f%% full (the curve: %.1f%%)\n", cache_fill_ratio(&c) * 100,
	       100 - idle_fit_bytes(&truth, 30) / MiB);
	CHECK_NEAR(cache_fill_ratio(&c), 1 - idle_fit_bytes(&truth, 30) / (100 * MiB), 0.03);
	/* a rest not begun in a storm gives no point */
	write_for(&c, t + 30, t + 32, 5 * MiB, 4096, false);
	idle_for(&c, t + 32, t + 52);
	write_for(&c, t + 52, t + 60, 5 * MiB, 4096, false);
	cache_storm_start(&c, t + 59.5, t + 61);
	CHECK(!c.point_learnt);
	CHECK_INT(c.n_points, 5);
	/* restored: the points back, the curve refitted */
	CacheTrack r;
	cache_init(&r);
	for (unsigned i = 0; i < c.n_points; i++)
		cache_restore_point(&r, &c.points[i]);
	cache_restore(&r, &c.model);
	cache_refit(&r);
	CHECK_INT(r.model.recovery_samples, 5);
	CHECK_NEAR(idle_fit_bytes(&r.model.curve, 30), idle_fit_bytes(&c.model.curve, 30), 1);
	cache_done(&r);
	cache_done(&c);
}

int main(void)
{
	test_learn_and_forecast();
	test_sequential_and_pauses();
	test_restart();
	test_soft_cliff();
	test_figures();
	test_curve_points();
	test_point_lengths();
	return test_done("diskmodel");
}
