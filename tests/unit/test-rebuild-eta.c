/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild ETA on rebuilds simulated second by second from the physics
 * the model describes: a CMR disk at one rate, a DM-SMR disk whose rebuild
 * passes its cliff into band rewrites (bursts and stalls), a disk whose
 * model is unknown, and a source slower than the disk. The bar is
 * an estimate within 25% of the real duration: held at every step here,
 * with the model's figures off from the disk's true ones as learnt figures
 * are.
 */
#include <math.h>

#include "eta.h"
#include "test.h"
#include "util.h"

#define MB 1e6
#define GiB (1024.0 * 1024 * 1024)

/* The disk as it really behaves, and the rebuild's stream. */
typedef struct Truth {
	double stream_bps;	/* what the rebuild sends while the disk keeps up */
	double cache;		/* bytes the cache takes before the cliff; INFINITY: CMR */
	double slow_bps;	/* average after it */
	double rewrite;		/* seconds of one band rewrite: a burst, then a stall */
	double total;
} Truth;

/* Bytes written in second [t, t+1) once `done` were written. */
static double step_bytes(const Truth *x, double done, double t)
{
	if (done < x->cache)
		return fmin(x->stream_bps, x->cache - done + 1);
	/* a band rewrite's worth in its first second, then the wait */
	return fmod(t, x->rewrite) < 1 ? fmin(x->slow_bps * x->rewrite, x->stream_bps) : 0;
}

typedef struct Run {
	double real;		/* the real duration */
	double worst;		/* the worst |predicted - real| / real seen */
	double naive_worst;	/* the same for done/elapsed extrapolated, as zpool does */
	double before_cliff, after_cliff;	/* predicted totals around the cliff */
} Run;

/* Simulates the rebuild; every 10 s compares elapsed + ETA with the real
 * duration. model_cache: the cache the
 * caller's tracking believes (cache free = that minus what was written). */
static Run simulate(const Truth *x, const DiskModel *m, double model_cache, double fast_bps)
{
	enum { MAX_STEPS = 4000000 };
	double done = 0, t = 0;
	double *done_at = malloc(sizeof(double) * MAX_STEPS);
	RebuildProgress p = {.total_bytes = x->total};
	for (; done < x->total && t < MAX_STEPS; t++) {
		done_at[(size_t)t] = done;
		done = fmin(x->total, done + step_bytes(x, done, t));
	}
	Run r = {.real = t, .before_cliff = NAN, .after_cliff = NAN};
	for (double s = 10; s < r.real; s += 10) {
		p.done_bytes = done_at[(size_t)s];
		p.elapsed = s;
		if (!p.cliff_seen && p.done_bytes >= x->cache) {
			/* the detector flags the storm when writes first wait */
			p.cliff_seen = true;
			p.cliff_bytes = x->cache;
			p.cliff_elapsed = ceil(x->cache / x->stream_bps);
		}
		double free_now = m && !p.cliff_seen ? fmax(model_cache - p.done_bytes, 0) : 0;
		double eta = rebuild_eta(m, free_now, fast_bps, &p);
		double err = fabs(s + eta - r.real) / r.real;
		if (getenv("ETA_TRACE"))
			fprintf(stderr, "t %6.0f done %6.2f GiB cliff %d eta %8.0f predicted %8.0f real %8.0f\n", s,
				p.done_bytes / GiB, p.cliff_seen, eta, s + eta, r.real);
		r.worst = fmax(r.worst, isnan(err) ? INFINITY : err);
		if (p.done_bytes > 0)
			r.naive_worst = fmax(r.naive_worst, fabs(s * x->total / p.done_bytes - r.real) / r.real);
		if (!p.cliff_seen)
			r.before_cliff = s + eta;
		else if (isnan(r.after_cliff))
			r.after_cliff = s + eta;
	}
	free(done_at);
	return r;
}

static DiskModel smr_model(double cache, double slow_bps, double rewrite)
{
	DiskModel m;
	disk_model_init(&m);
	disk_model_add_cache(&m, cache, true);
	m.slow_write_bps = slow_bps;
	m.rewrite_seconds = rewrite;
	return m;
}

static void test_cmr(void)
{
	/* a 4 TB rebuild streamed at 120 MB/s onto a disk believed to take 150 */
	Truth x = {.stream_bps = 120 * MB, .cache = INFINITY, .slow_bps = 0, .rewrite = 1, .total = 4e12};
	Run r = simulate(&x, NULL, 0, 150 * MB);
	CHECK(r.worst <= 0.25);
	/* the observed rate takes over: half-way it is all but exact */
	RebuildProgress p = {.total_bytes = 4e12, .done_bytes = 2e12, .elapsed = 2e12 / (120 * MB)};
	CHECK_NEAR(rebuild_eta(NULL, NAN, 150 * MB, &p), 2e12 / (120 * MB), 0.001 * 2e12 / (120 * MB));
	/* and at the start the nominal rate alone */
	p = (RebuildProgress){.total_bytes = 4e12};
	CHECK_NEAR(rebuild_eta(NULL, NAN, 150 * MB, &p), 4e12 / (150 * MB), 1e-6);
	CHECK_NEAR(rebuild_expected_seconds(NULL, 4e12, 150 * MB), 4e12 / (150 * MB), 1e-6);
}

static void test_dm_smr_cliff(void)
{
	/* 200 GiB onto a disk whose cache takes 20 GiB at 150 MB/s, then 20 MB/s
	 * in 2 s band rewrites; its model learnt 5% less cache, 15% less slow
	 * rate, and the caller's fast rate is the disk's nominal 180 MB/s */
	Truth x = {.stream_bps = 150 * MB, .cache = 20 * GiB, .slow_bps = 20 * MB, .rewrite = 2, .total = 200 * GiB};
	DiskModel m = smr_model(19 * GiB, 17 * MB, 2);
	Run r = simulate(&x, &m, 19 * GiB, 180 * MB);
	CHECK(r.worst <= 0.25);
	/* the estimate before the cliff holds the slow part: no collapse at it */
	CHECK(isfinite(r.before_cliff) && isfinite(r.after_cliff));
	CHECK(fabs(r.after_cliff - r.before_cliff) / r.real <= 0.1);
	/* what zpool extrapolates is off by far more: the case tests something */
	CHECK(r.naive_worst > 0.5);

	/* from clean, the expected time is the two regimes exactly */
	CHECK_NEAR(rebuild_expected_seconds(&m, 200 * GiB, 180 * MB), 19 * GiB / (180 * MB) + 181 * GiB / (17 * MB),
		   1e-6);
	RebuildProgress p = {.total_bytes = 200 * GiB};
	CHECK_NEAR(rebuild_eta(&m, NAN, 180 * MB, &p), rebuild_expected_seconds(&m, 200 * GiB, 180 * MB), 1e-6);
}

static void test_dm_smr_model_off(void)
{
	/* a model twice too pessimistic on the slow rate: the observed rate
	 * takes over within the bar once the slow regime has been watched */
	Truth x = {.stream_bps = 150 * MB, .cache = 4 * GiB, .slow_bps = 30 * MB, .rewrite = 2, .total = 40 * GiB};
	DiskModel m = smr_model(4 * GiB, 15 * MB, 2);
	Run r = simulate(&x, &m, 4 * GiB, 150 * MB);
	RebuildProgress p = {.total_bytes = 40 * GiB, .cliff_seen = true, .cliff_bytes = 4 * GiB,
			     .cliff_elapsed = 4 * GiB / (150 * MB)};
	p.elapsed = p.cliff_elapsed + 200;	/* 100 rewrites watched */
	p.done_bytes = 4 * GiB + 200 * 30 * MB;
	double left = (40 * GiB - p.done_bytes) / (30 * MB);
	CHECK(fabs(rebuild_eta(&m, 0, 150 * MB, &p) - left) / left <= 0.05);
	/* after 10 rewrites, half-way there already */
	p.elapsed = p.cliff_elapsed + 20;
	p.done_bytes = 4 * GiB + 20 * 30 * MB;
	left = (40 * GiB - p.done_bytes) / (30 * MB);
	double eta = rebuild_eta(&m, 0, 150 * MB, &p);
	CHECK(eta < 1.5 * left && eta > left);
	/* the first estimates are the model's: off by the model's error */
	CHECK(r.worst > 0.25);
}

static void test_unknown(void)
{
	DiskModel m;
	disk_model_init(&m);
	CHECK(isnan(rebuild_expected_seconds(&m, 1e12, 150 * MB)));
	RebuildProgress p = {.total_bytes = 1e12, .done_bytes = 1e11, .elapsed = 1000};
	CHECK(isnan(rebuild_eta(&m, NAN, 150 * MB, &p)));	/* the cliff may come at any byte */
	/* once it came, the slow rate observed is the estimate */
	p.cliff_seen = true;
	p.cliff_bytes = 5e10;
	p.cliff_elapsed = 500;
	CHECK_NEAR(rebuild_eta(&m, NAN, 150 * MB, &p), 9e11 / (5e10 / 500), 1e-6);

	/* nothing known at all */
	p = (RebuildProgress){.total_bytes = 1e12};
	CHECK(isnan(rebuild_eta(NULL, NAN, NAN, &p)));
	CHECK(isnan(rebuild_expected_seconds(NULL, 1e12, NAN)));
	CHECK(isnan(rebuild_expected_seconds(NULL, 1e12, 0)));
	/* a known cache but no slow rate: the part past the cliff has no rate */
	DiskModel half = smr_model(1e9, NAN, NAN);
	CHECK(isnan(rebuild_expected_seconds(&half, 1e12, 150 * MB)));
	CHECK_NEAR(rebuild_expected_seconds(&half, 1e8, 150 * MB), 1e8 / (150 * MB), 1e-9);
	CHECK(isnan(rebuild_eta(&half, NAN, 150 * MB, &p)));
	/* the observed rate alone on a disk with no cliff */
	p = (RebuildProgress){.total_bytes = 1e12, .done_bytes = 1e11, .elapsed = 1000};
	CHECK_NEAR(rebuild_eta(NULL, NAN, NAN, &p), 9e11 / 1e8, 1e-6);
}

static void test_slow_source(void)
{
	/* the rebuild sends 40 MB/s: the disk's 50 MB/s after its cliff is not
	 * reached, the slow part goes no faster than the stream */
	DiskModel m = smr_model(1e9, 50 * MB, 1);
	RebuildProgress p = {.total_bytes = 1e11, .done_bytes = 4e8, .elapsed = 10000};
	p.elapsed = 4e8 / (40 * MB);
	double eta = rebuild_eta(&m, 6e8, NAN, &p);
	CHECK_NEAR(eta, (1e11 - 4e8) / (40 * MB), 1e-6);
}

static void test_inputs(void)
{
	DiskModel m = smr_model(1e9, 50 * MB, 1);
	RebuildProgress ok = {.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = 10};
	CHECK(isfinite(rebuild_eta(&m, 0, 100 * MB, &ok)));
	CHECK(isnan(rebuild_eta(&m, 0, 100 * MB, NULL)));
	RebuildProgress bad[] = {
		{.total_bytes = NAN, .done_bytes = 1, .elapsed = 1},
		{.total_bytes = 0, .done_bytes = 0, .elapsed = 1},
		{.total_bytes = 1e10, .done_bytes = -1, .elapsed = 1},
		{.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = -1},
		{.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = INFINITY},
		{.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = 10, .cliff_seen = true, .cliff_bytes = 2e9, .cliff_elapsed = 5},
		{.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = 10, .cliff_seen = true, .cliff_bytes = 5e8, .cliff_elapsed = 11},
		{.total_bytes = 1e10, .done_bytes = 1e9, .elapsed = 10, .cliff_seen = true, .cliff_bytes = NAN, .cliff_elapsed = 1},
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		CHECK(isnan(rebuild_eta(&m, 0, 100 * MB, &bad[i])));
	/* a resilver may issue past its estimate: done is done */
	RebuildProgress past = {.total_bytes = 1e10, .done_bytes = 1.1e10, .elapsed = 100};
	CHECK_NEAR(rebuild_eta(&m, 0, 100 * MB, &past), 0, 0);
	CHECK(isnan(rebuild_expected_seconds(&m, -1, 100 * MB)));
	CHECK(isnan(rebuild_expected_seconds(&m, NAN, 100 * MB)));
	/* a negative cache free is none */
	CHECK_NEAR(rebuild_eta(&m, -5, NAN, &(RebuildProgress){.total_bytes = 1e9}), 1e9 / (50 * MB), 1e-6);
}

int main(void)
{
	test_cmr();
	test_dm_smr_cliff();
	test_dm_smr_model_off();
	test_unknown();
	test_slow_source();
	test_inputs();
	return test_done("rebuild-eta");
}
