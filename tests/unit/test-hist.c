/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Histogram bucketing, merging, deltas, window rotation and percentiles,
 * checked against exact values. */
#include "hist.h"
#include "latency.h"
#include "test.h"

static void test_bucketing(void)
{
	/* Exact below 4 us, then every bucket holds exactly its bounds. */
	for (uint64_t us = 0; us < 4; us++)
		CHECK_INT(hist_bucket(us), us);
	unsigned prev = 0;
	for (uint64_t us = 1; us < (1ULL << 29); us = us * 9 / 8 + 1) {
		unsigned b = hist_bucket(us);
		double lo, hi;
		hist_bucket_bounds(b, &lo, &hi);
		CHECK(b >= prev);	/* monotonic */
		CHECK(b < HIST_BUCKETS);
		if (b < HIST_BUCKETS - 1) {
			CHECK(us / 1e6 >= lo - 1e-12 && us / 1e6 < hi);
			CHECK(hi / lo <= 1.25 + 1e-9 || us < 8);	/* at most 25% wide */
		}
		prev = b;
	}
	/* Edges: 4..5 us is bucket 4, 2^28 us and above the last. */
	CHECK_INT(hist_bucket(4), 4);
	CHECK_INT(hist_bucket(5), 5);
	CHECK_INT(hist_bucket(7), 7);
	CHECK_INT(hist_bucket(8), 8);
	CHECK_INT(hist_bucket(10), 9);
	CHECK_INT(hist_bucket(UINT64_C(1) << 40), HIST_BUCKETS - 1);
	CHECK_INT(hist_bucket((UINT64_C(1) << 29) - 1), HIST_BUCKETS - 1);
	CHECK(hist_bucket((UINT64_C(1) << 28) - 1) < HIST_BUCKETS - 1);
	CHECK_INT(trace_log2(1), 0);
	CHECK_INT(trace_log2(UINT64_C(1) << 63), 63);
	CHECK_INT(trace_log2(1000), 9);
}

/* The BPF side's compare chain must put every latency under the bound the
 * Prometheus histogram says: at, just above and just below each. */
static void test_le_index(void)
{
	static const uint64_t le[HIST_LE] = HIST_LE_NS_INIT;
	for (unsigned i = 0; i < HIST_LE; i++) {
		CHECK_INT(hist_le_index(le[i]), i);
		CHECK_INT(hist_le_index(le[i] - 1), i);
		CHECK_INT(hist_le_index(le[i] + 1), i + 1);
	}
	CHECK_INT(hist_le_index(0), 0);
	CHECK_INT(hist_le_index(UINT64_MAX), HIST_LE);
}

static void test_le_and_quantiles(void)
{
	Hist h = {0};
	/* 1000 I/Os at 8 ms and 100 at 300 ms: the primer's WD60EZAZ bands. */
	for (int i = 0; i < 1000; i++)
		hist_add(&h, 8000000);
	for (int i = 0; i < 100; i++)
		hist_add(&h, 300000000);
	CHECK_INT(h.count, 1100);
	CHECK_INT(h.sum_ns, 1000ULL * 8000000 + 100ULL * 300000000);
	/* Exact Prometheus buckets: 8 ms counts under le=0.01, 300 ms under le=0.5. */
	unsigned i10 = 0, i500 = 0;
	for (unsigned i = 0; i < HIST_LE; i++) {
		if (hist_le_ns[i] == 10000000) i10 = i;
		if (hist_le_ns[i] == 500000000) i500 = i;
	}
	CHECK_INT(h.le[i10], 1000);
	CHECK_INT(h.le[i500], 100);
	/* A latency exactly on a bound belongs to it (le is <=). */
	Hist e = {0};
	hist_add(&e, 100000);
	CHECK_INT(e.le[0], 1);
	hist_add(&e, 100001);
	CHECK_INT(e.le[1], 1);
	hist_add(&e, 500ULL * 1000000000);	/* over 120 s: +Inf */
	CHECK_INT(e.le[HIST_LE], 1);

	/* Percentiles fall inside the bucket of the true value (<= 25% wide). */
	double p50 = hist_quantile(&h, 0.5), p99 = hist_quantile(&h, 0.99);
	printf("p50 %.4f s (true 0.008), p99 %.4f s (true 0.300), mean %.4f s\n", p50, p99, hist_mean(&h));
	CHECK(p50 >= 0.008 * 0.8 && p50 <= 0.008 * 1.25);
	CHECK(p99 >= 0.3 * 0.8 && p99 <= 0.3 * 1.25);
	CHECK_NEAR(hist_mean(&h), (1000 * 0.008 + 100 * 0.3) / 1100, 1e-9);
	CHECK(hist_max(&h) >= 0.3 && hist_max(&h) <= 0.3 * 1.25);
	CHECK(isnan(hist_quantile(&(Hist){0}, 0.5)));
	CHECK(isnan(hist_mean(&(Hist){0})));

	/* Uniform 1..1000 us: quantiles within a bucket's width of exact. */
	Hist u = {0};
	for (uint64_t us = 1; us <= 1000; us++)
		hist_add(&u, us * 1000);
	for (double q = 0.1; q < 1; q += 0.1) {
		double exact = q * 1000 / 1e6, got = hist_quantile(&u, q);
		CHECK(fabs(got - exact) <= exact * 0.25 + 1e-6);
	}
}

static void test_merge_delta(void)
{
	Hist a = {0}, b = {0}, m = {0}, d;
	for (int i = 0; i < 50; i++)
		hist_add(&a, (uint64_t)(i + 1) * 100000);
	for (int i = 0; i < 30; i++)
		hist_add(&b, (uint64_t)(i + 1) * 7000000);
	hist_merge(&m, &a);
	hist_merge(&m, &b);
	CHECK_INT(m.count, 80);
	CHECK_INT(m.sum_ns, a.sum_ns + b.sum_ns);
	CHECK(hist_delta(&d, &m, &a));
	CHECK(memcmp(&d, &b, sizeof d) == 0);
	/* A counter that went backwards (a slot reused) is reported, clamped at 0. */
	CHECK(!hist_delta(&d, &a, &m));
	CHECK_INT(d.count, 0);
}

static void test_windows(void)
{
	LatWindow w;
	lat_window_init(&w);
	/* 700 one-second intervals: second s has s I/Os at (s % 7 + 1) ms. */
	uint64_t expect_60 = 0, expect_600 = 0;
	for (int s = 1; s <= 700; s++) {
		Hist h = {0};
		for (int k = 0; k < s; k++)
			hist_add(&h, (uint64_t)(s % 7 + 1) * 1000000);
		CHECK_INT(lat_window_push(&w, &h, 1.0), 0);
		if (s > 700 - 60)
			expect_60 += (uint64_t)s;
		if (s > 700 - 600)
			expect_600 += (uint64_t)s;
	}
	Hist r;
	lat_window_sum(&w, 1, &r);
	CHECK_INT(r.count, 700);
	/* Slots are 10 s and all aligned here (700 is a multiple): exact. */
	lat_window_sum(&w, 60, &r);
	CHECK_INT(r.count, expect_60);
	lat_window_sum(&w, 600, &r);
	CHECK_INT(r.count, expect_600);
	/* More than was kept: everything kept (ten minutes), never more. */
	lat_window_sum(&w, 3600, &r);
	CHECK_INT(r.count, expect_600);
	/* Half a slot in progress: the minute covers it plus five full slots (55-65 s). */
	for (int s = 0; s < 5; s++) {
		Hist h = {0};
		hist_add(&h, 1000000);
		lat_window_push(&w, &h, 1.0);
	}
	lat_window_sum(&w, 60, &r);
	uint64_t five_slots = 0;
	for (int s = 651; s <= 700; s++)
		five_slots += (uint64_t)s;
	CHECK_INT(r.count, 5 + five_slots);
	lat_window_free(&w);

	/* An op's state is allocated on its first I/O, not before. */
	DiskLatency *l = NULL;
	Hist zero = {0}, one = {0};
	CHECK_INT(disk_latency_push(&l, TRACE_WRITE, &zero, 1), 0);
	CHECK(l == NULL || l->op[TRACE_WRITE] == NULL);
	hist_add(&one, 5000);
	CHECK_INT(disk_latency_push(&l, TRACE_WRITE, &one, 1), 0);
	CHECK(l && l->op[TRACE_WRITE] && l->op[TRACE_WRITE]->total.count == 1);
	CHECK(l->op[TRACE_READ] == NULL);
	CHECK_INT(disk_latency_push(&l, 7, &one, 1), -EINVAL);
	CHECK_STR(trace_op_to_string(TRACE_FLUSH), "flush");
	CHECK_INT(trace_op_from_string("discard"), TRACE_DISCARD);
	disk_latency_free(l);
}

int main(void)
{
	test_bucketing();
	test_le_index();
	test_le_and_quantiles();
	test_merge_delta();
	test_windows();
	return test_done("test-hist");
}
