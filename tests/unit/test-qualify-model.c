/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qualify's disk model on synthetic runs whose figures are known: a
 * serial slow phase at queue depth 4 (every write waits for a rewrite), a
 * mixed one at queue depth 1 (a few wait), no cliff, and the idle
 * recovery curve from refills after rests of growing length. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliff.h"
#include "qualify-model.h"
#include "test.h"

#define BS 4096

typedef struct Run {
	IoRec r[40000];
	size_t n;
	double duration;
} Run;

/* fast: `fast_n` writes at `fast_iops`, one queue of qd; then writes at
 * queue depth qd that complete one per `rewrite` seconds (serial) or, one
 * in `every`, after a rewrite (mixed). */
static void make(Run *run, unsigned qd, size_t fast_n, double fast_iops, size_t slow_n, double rewrite, unsigned every)
{
	run->n = 0;
	double t = 0, lat = 0.0004;
	for (size_t i = 0; i < fast_n; i++, t += 1 / fast_iops)
		run->r[run->n++] = (IoRec){.t = t, .lat = (float)(lat * qd)};
	double done = t;
	for (size_t i = 0; i < slow_n; i++) {
		bool waits = every <= 1 || i % every == 0;
		double submit = run->n >= qd ? run->r[run->n - qd].t + run->r[run->n - qd].lat : t;
		done = fmax(done, submit) + (waits ? rewrite : lat);
		run->r[run->n++] = (IoRec){.t = submit, .lat = (float)(done - submit)};
	}
	run->duration = done;
}

static void find(const Run *run, unsigned qd, CliffResult *c, QualifyModel *q)
{
	CliffRules rules;
	cliff_rules_init(&rules, qd, 3);
	cliff_find(run->r, run->n, run->duration, &rules, c);
	qualify_model_writes(run->r, run->n, run->duration, c, BS, qd, q);
}

static Run run;

static void test_serial(void)
{
	CliffResult c;
	QualifyModel q;
	make(&run, 4, 10000, 2500, 60, 0.4, 1);
	find(&run, 4, &c, &q);
	CHECK(c.found);
	/* 10000 writes fast: the cache to a queue's worth */
	CHECK(fabs(q.m.media_cache_bytes - 10000.0 * BS) <= q.cache_err + BS);
	CHECK_NEAR(q.cache_err, 4.0 * BS, 1e-9);
	/* one write per 0.4 s: 10 KiB/s, whatever the queue depth */
	CHECK(fabs(q.m.slow_write_bps / (BS / 0.4) - 1) < 0.1);
	CHECK(q.slow_err > 0 && q.slow_err < q.m.slow_write_bps);
	/* the gaps are the rewrite, not the 1.6 s latency of a write at QD 4 */
	CHECK_NEAR(q.m.rewrite_seconds, 0.4, 0.01);
	CHECK(q.rewrites >= 50);
	CHECK(q.n_skipped == 0);
	char text[512];
	qualify_model_meaning(&q, text, sizeof text);
	CHECK(strstr(text, "after ~39.1M of random writes") != NULL);
	/* without the sequential phase, no rebuild rate: said, and the random blocks' bound */
	CHECK(strstr(text, "a rebuild's rate (large writes in order past the cache) was not measured") != NULL);
	CHECK(strstr(text, "(1 TB of random blocks at the rate above: ~3.09 years)") != NULL);
	printf("serial: %s\n", text);
	/* with it: a rebuild's 1 TB at the sequential rate, not the random one */
	q.seq_bps = 100e6;
	qualify_model_meaning(&q, text, sizeof text);
	printf("serial, with the sequential phase: %s\n", text);
	CHECK(strstr(text, "a rebuild writing 1 TB in order in large writes would take ~167 min at the 95.4M/s they ran at "
			   "past the cache (1 TB of random blocks") != NULL);
}

static void test_mixed(void)
{
	CliffResult c;
	QualifyModel q;
	make(&run, 1, 8000, 2500, 3000, 0.6, 30);
	find(&run, 1, &c, &q);
	CHECK(c.found);
	CHECK_NEAR(q.m.rewrite_seconds, 0.6, 0.01);
	/* 30 writes per (0.6 s + 29 fast ones) */
	double want = 30.0 * BS / (0.6 + 30 * 0.0004);
	CHECK(fabs(q.m.slow_write_bps / want - 1) < 0.1);
}

/* A drive with hysteresis: it lets a burst through once it has cleaned
 * down to its low water mark, then waits again. The rate is over whole
 * cycles, up to the last wait, not the burst cut off by the phase's end. */
static void test_hysteresis(void)
{
	CliffResult c;
	QualifyModel q;
	make(&run, 1, 10000, 2500, 20, 0.4, 1);
	double t = run.duration;
	for (int i = 0; i < 500; i++, t += 0.0004)
		run.r[run.n++] = (IoRec){.t = t, .lat = 0.0004f};
	double cycle_end = t + 0.4;
	run.r[run.n++] = (IoRec){.t = t, .lat = 0.4f};
	t = cycle_end;
	for (int i = 0; i < 300; i++, t += 0.0004)	/* the next burst, cut off */
		run.r[run.n++] = (IoRec){.t = t, .lat = 0.0004f};
	run.duration = t;
	find(&run, 1, &c, &q);
	CHECK(c.found);
	double want = (20 + 501) * (double)BS / (cycle_end - c.cliff_t);
	CHECK(fabs(q.m.slow_write_bps / want - 1) < 0.05);
}

static void test_no_cliff(void)
{
	CliffResult c;
	QualifyModel q;
	make(&run, 1, 20000, 2500, 0, 0, 1);
	find(&run, 1, &c, &q);
	CHECK(!c.fell);
	CHECK(isnan(q.m.media_cache_bytes) && isnan(q.m.slow_write_bps) && isnan(q.m.rewrite_seconds));
	CHECK(isnan(q.m.idle_recovery_bps));
	CHECK_INT(q.n_skipped, 1);
	char text[512];
	CHECK_STR(qualify_model_meaning(&q, text, sizeof text), "");
}

static void test_refill(void)
{
	/* 500 fast writes (2500/s), a hiccup of 0.3 s and fast again, 3000
	 * more; then the mixed slow phase: a wait of 0.5 s, 20 quick writes,
	 * a wait ... (most writes still quick, the rate down 20x) */
	static IoRec r[8000];
	size_t n = 0;
	double t = 0;
	for (unsigned i = 0; i < 500; i++, t += 0.0004)
		r[n++] = (IoRec){.t = t, .lat = 0.0004f};
	r[n++] = (IoRec){.t = t, .lat = 0.3f};
	t += 0.3;
	for (unsigned i = 0; i < 3000; i++, t += 0.0004)
		r[n++] = (IoRec){.t = t, .lat = 0.0004f};
	double sent = t;
	for (unsigned k = 0; k < 10; k++) {
		r[n++] = (IoRec){.t = t, .lat = 0.5f};
		t += 0.5;
		for (unsigned i = 0; i < 20; i++, t += 0.0004)
			r[n++] = (IoRec){.t = t, .lat = 0.0004f};
	}
	size_t first_wait = 3501;
	WaitScan w;
	wait_scan_init(&w, 0.2, 2, 2500 * 2 / 5);
	/* fed as they complete: the hiccup is a candidate, then the fast
	 * rate clears it */
	CHECK(!wait_scan_feed(&w, r, 501, 0.5));
	CHECK(w.candidate);
	CHECK(!wait_scan_feed(&w, r, 3000, 1.6));
	CHECK(!w.candidate);
	CHECK(!wait_scan_feed(&w, r, first_wait + 20, sent + 0.6));	/* a wait, not yet confirmed */
	CHECK(w.candidate);
	/* the next wait came after a run of fast writes: the one after that
	 * tells a threshold (a like run) from a lone wait (a shorter one) */
	CHECK(!wait_scan_feed(&w, r, first_wait + 40, sent + 1));
	CHECK(wait_scan_feed(&w, r, first_wait + 61, sent + 1.5));
	CHECK(wait_scan_feed(&w, r, n, t));
	CHECK_NEAR(w.cand_sent, sent, 1e-12);
	CHECK_NEAR(qualify_refill_bytes(r, n, BS, w.cand_sent), 3501.0 * BS, 1e-9);
	CHECK_NEAR(qualify_refill_bytes(r, first_wait, BS, INFINITY), 3501.0 * BS, 1e-9);
	/* the window and the fast writes that clear it, from the model */
	QualifyModel q = {.fast_bps = 2500.0 * BS};
	disk_model_init(&q.m);
	q.m.rewrite_seconds = 0.5;
	CHECK_NEAR(qualify_model_wait_window(&q), 2, 1e-12);
	CHECK_INT(qualify_model_max_fast(&q, 2, BS), 1000);
}

/* QD writes from `t`, each `lat` long, completed in order */
static size_t burst(IoRec *r, size_t n, double *t, unsigned count, double lat, unsigned qd)
{
	for (unsigned i = 0; i < count; i++) {
		r[n++] = (IoRec){.t = *t, .lat = (float)lat};
		if ((i + 1) % qd == 0 || i + 1 == count)
			*t += lat;
	}
	return n;
}

static void test_refill_hysteresis(void)
{
	/* a drive that cleans down to low water: six waits of 0.3 s, then a
	 * burst of 2000 fast writes, more than the count that makes a hiccup */
	static IoRec r[8000];
	size_t n = 0;
	double t = 0;
	n = burst(r, n, &t, 1000, 0.0004, 1);
	double sent = t;
	n = burst(r, n, &t, 6, 0.3, 1);
	n = burst(r, n, &t, 2000, 0.0004, 1);
	WaitScan w;
	wait_scan_init(&w, 0.2, 2, 1000);
	CHECK(!wait_scan_feed(&w, r, 1001, sent + 0.3));
	/* two more waits cover a quarter of the window: confirmed, early */
	CHECK(wait_scan_feed(&w, r, 1003, sent + 0.9));
	CHECK_NEAR(w.cand_sent, sent, 1e-12);

	/* two hiccups a second apart, fast writes around them: neither is
	 * the threshold, and what follows is scanned again */
	n = 0, t = 0;
	n = burst(r, n, &t, 1000, 0.0004, 1);
	n = burst(r, n, &t, 1, 0.3, 1);
	n = burst(r, n, &t, 2000, 0.0004, 1);
	n = burst(r, n, &t, 1, 0.3, 1);
	n = burst(r, n, &t, 3000, 0.0004, 1);
	wait_scan_init(&w, 0.2, 2, 1000);
	CHECK(!wait_scan_feed(&w, r, n, t + 1));
	CHECK(!w.candidate);

	/* at queue depth 4 a hiccup holds up the three behind it: still a
	 * hiccup, and a real wait after it is found */
	n = 0, t = 0;
	n = burst(r, n, &t, 1000, 0.0004, 4);
	n = burst(r, n, &t, 4, 0.3, 4);
	n = burst(r, n, &t, 6000, 0.0004, 4);
	sent = t;
	n = burst(r, n, &t, 40, 0.3, 4);
	wait_scan_init(&w, 0.2, 2, 1000);
	CHECK(wait_scan_feed(&w, r, n, t));
	CHECK_NEAR(w.cand_sent, sent, 1e-12);

	/* after a rest, at queue depth 4: two lone waits 24 writes apart
	 * (the drive ending a band rewrite it began while idle), 538 fast
	 * writes, then the threshold within the first one's window. The
	 * threshold's waits cover the window, but not the lone ones' */
	n = 0, t = 0;
	n = burst(r, n, &t, 220, 0.0004, 4);
	n = burst(r, n, &t, 4, 0.25, 4);
	n = burst(r, n, &t, 24, 0.0004, 4);
	n = burst(r, n, &t, 4, 0.24, 4);
	n = burst(r, n, &t, 538, 0.0004, 4);
	sent = t;
	n = burst(r, n, &t, 40, 0.3, 4);
	wait_scan_init(&w, 0.2, 2, 1000);
	CHECK(wait_scan_feed(&w, r, n, t));
	CHECK_NEAR(w.cand_sent, sent, 1e-12);
	CHECK_NEAR(qualify_refill_bytes(r, n, BS, w.cand_sent), (220.0 + 4 + 24 + 4 + 538) * BS, 1e-9);
	/* a wait every 20 writes (the mixed shape) is no run of fast writes:
	 * the first wait stays the threshold */
	n = 0, t = 0;
	n = burst(r, n, &t, 1000, 0.0004, 4);
	sent = t;
	for (unsigned k = 0; k < 10; k++) {
		n = burst(r, n, &t, 1, 0.3, 4);
		n = burst(r, n, &t, 20, 0.0004, 4);
	}
	wait_scan_init(&w, 0.2, 2, 1000);
	CHECK(wait_scan_feed(&w, r, n, t));
	CHECK_NEAR(w.cand_sent, sent, 1e-12);
}

static void test_recovery(void)
{
	CliffResult c;
	QualifyModel q;
	make(&run, 1, 10000, 2500, 60, 0.4, 1);
	find(&run, 1, &c, &q);
	/* rests of growing length on a greedy drive's curve: 30M clean after
	 * 0.5 s + 60 s, the rate falling linearly (shape 2) */
	IdleFit truth = {.cache = 30 << 20, .clean_seconds = 60, .shape = 2, .delay = 0.5, .longest = 60, .points = 5};
	static const double rests[] = {4, 8, 16, 32, 60};
	Refill r[5];
	for (int i = 0; i < 5; i++)
		r[i] = (Refill){.rest = rests[i], .bytes = idle_fit_bytes(&truth, rests[i]), .waited = true};
	QualifyModel a = q;
	a.m.media_cache_bytes = 30 << 20;
	qualify_model_curve(&a, r, 5, 1, BS);
	/* the figure is the average over the longest rest, and says which */
	CHECK_NEAR(a.m.idle_recovery_bps, r[4].bytes / 60, 1);
	CHECK_NEAR(a.m.recovery_rest, 60, 1e-9);
	CHECK_INT(a.n_curve, 5);
	CHECK(!a.recovery_lower_bound);
	CHECK(a.recovery_err > 0 && a.recovery_err < 0.01 * a.m.idle_recovery_bps);
	/* the fit goes through every point and says how the rate falls */
	CHECK(idle_fit_known(&a.m.curve));
	for (int i = 0; i < 5; i++)
		CHECK_NEAR(idle_fit_bytes(&a.m.curve, rests[i]) / r[i].bytes, 1, 0.03);
	CHECK_NEAR(a.m.curve.shape, 2, 0.3);
	char text[256];
	idle_fit_describe(&a.m.curve, text, sizeof text);
	printf("curve: %s\n", text);
	CHECK(strstr(text, "at first, half that after ~") != NULL);
	/* the marginal rate between the two longest rests is far below the average over the longest */
	CHECK((r[4].bytes - r[3].bytes) / 28 < 0.7 * a.m.idle_recovery_bps);
	/* the longest rest cleaned all of it: at least */
	QualifyModel b = a;
	r[4].waited = false;
	qualify_model_curve(&b, r, 5, 1, BS);
	CHECK(b.recovery_lower_bound);
	CHECK(b.curve[4].at_least);
	/* the longest rest gave nothing: not measured, and said why */
	QualifyModel d = q;
	Refill none[2] = {{.rest = 5, .bytes = 0, .waited = true}, {.rest = 10, .bytes = 0, .waited = true}};
	qualify_model_curve(&d, none, 2, 1, BS);
	CHECK(isnan(d.m.idle_recovery_bps));
	CHECK_INT(d.n_skipped, 1);
	/* one point: the average, no fit */
	QualifyModel one = q;
	qualify_model_curve(&one, r, 1, 1, BS);
	CHECK_NEAR(one.m.idle_recovery_bps, r[0].bytes / 4, 1);
	CHECK(!idle_fit_known(&one.m.curve));
}

int main(void)
{
	test_serial();
	test_mixed();
	test_hysteresis();
	test_no_cliff();
	test_refill();
	test_refill_hysteresis();
	test_recovery();
	return test_done("qualify-model");
}
