/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qualification's cliff finder on synthetic runs of the corpus's
 * shapes: the primer's serialised DM-SMR slow phase (2500 IOPS for 70 s,
 * then 3 IOPS), aicodix's mixed one (most writes still fast, a few wait a
 * second), hiccups in the fast phase, the same at queue depth 16, an SSD
 * whose SLC cache runs out (the rate falls, nothing waits), a virtual disk
 * whose host caps the rate (every write queued past the wait floor, the
 * disk never stopping), CMR disks
 * (no fall; a DRAM burst is not a fast phase), and runs too short to tell. */
#include <stdlib.h>

#include "cliff.h"
#include "test.h"

static uint64_t rng = 5;
static double urand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A disk serving one I/O at a time (FIFO), kept busy by a closed loop of
 * qd I/Os: service(t, i) is how long the i-th I/O takes once it reaches the
 * head of the queue at t. Records come out in completion order. */
static size_t simulate(IoRec *r, size_t cap, unsigned qd, double duration, double (*service)(double t, size_t i))
{
	double free_at = 0, submit[64];
	for (unsigned k = 0; k < qd; k++)
		submit[k] = 0;
	size_t n = 0;
	for (unsigned k = 0; n < cap; k = (k + 1) % qd) {
		double start = submit[k] > free_at ? submit[k] : free_at;
		if (start >= duration)
			break;
		double done = start + service(start, n);
		r[n++] = (IoRec){.t = submit[k], .lat = (float)(done - submit[k])};
		free_at = done;
		submit[k] = done;	/* the loop submits the next one at once */
	}
	return n;
}

static double jitter(double v) { return v * (0.8 + 0.4 * urand()); }
/* RAIDIX: 2500 IOPS for 70 s, then every write waits for a rewrite (3 IOPS). */
static double serial(double t, size_t i) { (void)i; return t < 70 ? jitter(0.0004) : jitter(0.333); }
/* aicodix: after 20 s, 3% of writes wait ~0.4-1.2 s, the rest stay fast. */
static double mixed(double t, size_t i) { (void)i; return t >= 20 && urand() < 0.03 ? 0.4 + 0.8 * urand() : jitter(0.00037); }
/* and about one write in a few thousand takes ~1 s before the cliff */
static double hiccups(double t, size_t i) { return t < 20 && i % 12000 == 11999 ? jitter(1.0) : mixed(t, i); }
/* a small cache (8 MiB of 4 KiB writes, 90% full): 1800 writes, then serial */
static double small_cache(double t, size_t i) { (void)t; return i < 1800 ? jitter(0.0006) : jitter(0.4); }
/* Crucial P1 (scaled): 33 us a write until 16 s, then 0.9 ms; never a wait. */
static double slc(double t, size_t i) { (void)i; return t < 16 ? jitter(0.000033) : jitter(0.0009); }
/* A virtual disk: the host's cache takes 6000 writes of 64 KiB at 0.5 ms,
 * then its write-back caps the rate at 6 MiB/s (10.4 ms a write): at queue
 * depth 16 each write waits ~170 ms in the queue while one completes every
 * 10 ms (55-corpus, seed 962177674: 92 IOPS with every write "waiting"
 * up to 172 ms was called DM-SMR). */
static double capped(double t, size_t i) { (void)t; return i < 6000 ? jitter(0.0005) : jitter(0.0104); }
/* CMR, write cache on: 490 IOPS at 2 ms, rarely 60 ms. */
static double cmr(double t, size_t i) { (void)t, (void)i; return urand() < 0.002 ? 0.06 : jitter(0.002); }
/* CMR, write-through, after a 256-write DRAM burst at 0.3 ms: 8 ms, spikes of 90 ms. */
static double cmr_burst(double t, size_t i) { (void)t; return i < 256 ? 0.0003 : urand() < 0.003 ? 0.09 : jitter(0.008); }

static void check_cliff(const char *name, const CliffResult *c, double at, double fast_iops)
{
	printf("%s: fell %d, waits %d (%llu over %.0f ms, slowest %.2f s) at %.2f s after %llu I/Os; %.0f IOPS, then %.1f\n",
	       name, c->fell, c->found, (unsigned long long)c->stalls, c->stall_floor * 1000, c->slowest, c->cliff_t,
	       (unsigned long long)c->fast_ios, c->fast_iops, c->slow_iops);
	CHECK(c->fell);
	CHECK(c->found);
	CHECK(fabs(c->cliff_t - at) < 0.02 * at + 0.05);
	CHECK(fabs(c->fast_iops - fast_iops) < 0.1 * fast_iops);
	CHECK(c->slow_iops * 3 < c->fast_iops);
	CHECK(c->stalls > 0);
}

/* The scan that qualify's write phase keeps as it runs decides as
 * cliff_find() over every record so far does, at every second and at
 * uneven steps between (records in completion order, as they arrive). */
static unsigned scans, scan_fails;
static void as_it_runs(const char *name, const IoRec *r, size_t n, double duration, const CliffRules *rules)
{
	CliffScan *s = NULL;
	CHECK_INT(cliff_scan_new(rules, &s), 0);
	size_t m = 0;
	unsigned step = 0;
	for (double d = 0.37; s && d <= duration + 1; d += d < 5 ? 0.37 : 1, step++) {
		double now = fmin(d, duration);
		while (m < n && r[m].t + r[m].lat <= now)
			m++;
		CliffResult want, got;
		CHECK_INT(cliff_scan_fall(s, r, m, now, &got), 0);
		/* the scan is fed at every step; the batch pass over everything so
		 * far (what makes this quadratic) is its judge at every third
		 * step past the first seconds, and at the end */
		if (d >= 5 && step % 3 && d + 1 <= duration)
			continue;
		cliff_find(r, m, now, rules, &want);
		bool same = got.fell == want.fell && got.found == want.found && got.cliff_t == want.cliff_t &&
			    got.stall_floor == want.stall_floor;
		scans++;
		if (!same && scan_fails++ < 5)
			printf("%s at %.2f s (%zu records): the scan says fell %d found %d at %.3f, cliff_find %d %d at %.3f\n",
			       name, now, m, got.fell, got.found, got.cliff_t, want.fell, want.found, want.cliff_t);
		CHECK(same);
	}
	cliff_scan_free(s);
}

int main(void)
{
	size_t cap = 2000000;
	IoRec *r = calloc(cap, sizeof *r);
	CliffResult c;
	CliffRules rules, qd16;
	cliff_rules_init(&rules, 1, 3);
	cliff_rules_init(&qd16, 16, 3);

	size_t n = simulate(r, cap, 1, 130, serial);
	cliff_find(r, n, 130, &rules, &c);
	as_it_runs("case 1", r, n, 130, &rules);
	check_cliff("serial", &c, 70, 2500);
	CHECK(fabs(c.fast_lat - 0.0004) < 0.00005);
	CHECK(fabs(c.slow_iops - 3) < 0.3);
	CHECK(fabs(c.slow_lat - 0.333) < 0.03);
	CHECK_INT(c.fast_ios + c.slow_ios, n);

	/* most writes still fast after the cliff: the median says nothing, the rate does */
	n = simulate(r, cap, 1, 50, mixed);
	cliff_find(r, n, 50, &rules, &c);
	as_it_runs("case 2", r, n, 50, &rules);
	check_cliff("mixed", &c, 20, 2700);
	CHECK(c.slow_lat < 0.001);

	n = simulate(r, cap, 1, 50, hiccups);
	cliff_find(r, n, 50, &rules, &c);
	as_it_runs("case 3", r, n, 50, &rules);
	check_cliff("hiccups then mixed", &c, 20, 2270);	/* four 1 s hiccups in 20 s */

	/* a fast phase of ~1.1 s: too short to need two seconds of it */
	n = simulate(r, cap, 1, 20, small_cache);
	cliff_find(r, n, 20, &rules, &c);
	as_it_runs("case 4", r, n, 20, &rules);
	check_cliff("small cache", &c, 1.08, 1667);

	/* at queue depth 16 every fast write waits 16 services in the queue */
	n = simulate(r, cap, 16, 50, mixed);
	cliff_find(r, n, 50, &qd16, &c);
	as_it_runs("case 5", r, n, 50, &qd16);
	check_cliff("mixed at QD16", &c, 20, 2700);

	/* every write waits 16 band rewrites in the queue: each one the disk stopped for */
	n = simulate(r, cap, 16, 130, serial);
	cliff_find(r, n, 130, &qd16, &c);
	as_it_runs("case 6", r, n, 130, &qd16);
	check_cliff("serial at QD16", &c, 70, 2500);
	CHECK(c.stalls * 10 > c.slow_ios * 9);

	/* the rate capped, writes queued past the wait floor, the disk never
	 * stopped: a fall with nothing waiting, as for an SSD */
	n = simulate(r, cap, 16, 30, capped);
	cliff_find(r, n, 30, &qd16, &c);
	as_it_runs("case 7", r, n, 30, &qd16);
	printf("capped at QD16: fell %d at %.2f s, waits %d (%llu over %.0f ms on %.0f ms pauses), slowest %.0f ms, "
	       "%.0f IOPS then %.0f\n", c.fell, c.cliff_t, c.found, (unsigned long long)c.stalls, c.stall_floor * 1000,
	       c.pause_floor * 1000, c.slowest * 1000, c.fast_iops, c.slow_iops);
	CHECK(c.fell);
	CHECK(!c.found);
	CHECK_INT(c.stalls, 0);
	CHECK(c.slowest > c.stall_floor);	/* the case the floor alone got wrong */
	CHECK(fabs(c.cliff_t - 3.0) < 0.3);

	/* the rate falls, nothing waits: a plateau, not a media cache */
	n = simulate(r, cap, 4, 40, slc);
	cliff_find(r, n, 40, &rules, &c);
	as_it_runs("case 8", r, n, 40, &rules);
	printf("slc: fell %d at %.2f s, waits %d (%llu), %.0f IOPS then %.0f\n", c.fell, c.cliff_t, c.found,
	       (unsigned long long)c.stalls, c.fast_iops, c.slow_iops);
	CHECK(c.fell);
	CHECK(!c.found);
	CHECK_INT(c.stalls, 0);
	CHECK(fabs(c.cliff_t - 16) < 0.5);

	n = simulate(r, cap, 1, 120, cmr);
	cliff_find(r, n, 120, &rules, &c);
	as_it_runs("case 9", r, n, 120, &rules);
	CHECK(!c.fell && !c.found);
	CHECK(fabs(c.fast_iops - 490) < 40);
	CHECK_INT(c.fast_ios, n);

	n = simulate(r, cap, 1, 60, cmr_burst);
	cliff_find(r, n, 60, &rules, &c);
	as_it_runs("case 10", r, n, 60, &rules);
	printf("cmr after a DRAM burst: fell %d, found %d, %.0f IOPS\n", c.fell, c.found, c.fast_iops);
	CHECK(!c.fell && !c.found);

	n = simulate(r, cap, 1, 30, serial);	/* stopped before the cache filled */
	cliff_find(r, n, 30, &rules, &c);
	as_it_runs("case 11", r, n, 30, &rules);
	CHECK(!c.found && !c.fell);
	CHECK(c.fast_iops > 2000);

	/* a cliff in the last seconds cannot be confirmed yet */
	n = simulate(r, cap, 1, 71.5, serial);
	cliff_find(r, n, 71.5, &rules, &c);
	as_it_runs("case 12", r, n, 71.5, &rules);
	CHECK(!c.found);

	cliff_find(r, 0, 10, &rules, &c);
	CHECK(!c.found);
	printf("the scan as it runs: %u comparisons, %u differed\n", scans, scan_fails);
	free(r);
	return test_done("cliff");
}
