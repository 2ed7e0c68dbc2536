/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qualification's cliff finder on synthetic runs: the primer's DM-SMR
 * (2500 IOPS for 70 s, then 3 IOPS), a CMR disk at 490 IOPS with jitter and
 * rare slow writes, and a short run that never reaches the cliff. */
#include <stdlib.h>

#include "cliff.h"
#include "test.h"

static uint64_t rng = 5;
static double urand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* QD1: each I/O is submitted when the previous completes. */
static size_t run(IoRec *r, size_t cap, double duration, double (*lat)(double t))
{
	size_t n = 0;
	for (double t = 0; t < duration && n < cap; n++) {
		r[n].t = t;
		r[n].lat = (float)lat(t);
		t += r[n].lat;
	}
	return n;
}

static double smr(double t) { return t < 70 ? 0.0004 * (0.8 + 0.4 * urand()) : 0.333 * (0.8 + 0.4 * urand()); }
static double cmr(double t) { (void)t; return urand() < 0.002 ? 0.06 : 0.002 + 0.002 * urand(); }
static double short_smr(double t) { return smr(t); }

int main(void)
{
	size_t cap = 400000;
	IoRec *r = calloc(cap, sizeof *r);
	CliffResult c;

	size_t n = run(r, cap, 130, smr);
	cliff_find(r, n, 130, 3, &c);
	CHECK(c.found);
	CHECK_NEAR(c.cliff_t, 70, 0.01);
	CHECK(fabs(c.fast_iops - 2500) < 50);
	CHECK(fabs(c.fast_lat - 0.0004) < 0.00005);
	CHECK(fabs(c.slow_iops - 3) < 0.3);
	CHECK(fabs(c.slow_lat - 0.333) < 0.03);
	CHECK_INT(c.fast_ios + c.slow_ios, n);

	n = run(r, cap, 120, cmr);
	cliff_find(r, n, 120, 3, &c);
	CHECK(!c.found);
	CHECK(fabs(c.fast_iops - 330) < 30);
	CHECK_INT(c.fast_ios, n);

	n = run(r, cap, 30, short_smr);	/* stopped before the cache filled */
	cliff_find(r, n, 30, 3, &c);
	CHECK(!c.found);
	CHECK(c.fast_iops > 2000);

	/* a cliff in the last seconds cannot be confirmed yet */
	n = run(r, cap, 71.5, smr);
	cliff_find(r, n, 71.5, 3, &c);
	CHECK(!c.found);

	cliff_find(r, 0, 10, 3, &c);
	CHECK(!c.found);
	free(r);
	return test_done("cliff");
}
