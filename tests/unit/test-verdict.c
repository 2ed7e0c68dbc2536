/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's verdict, one factor at a time and then whole: the facts a run
 * measured in, the sentence (and its limits) out. The figures are the
 * published ones behind each shape (tests/emu/README.md).
 */
#include <string.h>

#include "qualify-verdict.h"
#include "test.h"

/* A DM-SMR fall: 2634 IOPS for 5 s, then 15 IOPS with 12 writes waiting (issue 15's disk). */
static CliffResult smr_cliff(void)
{
	return (CliffResult){.fell = true, .found = true, .cliff_t = 5, .fast_iops = 2634, .fast_lat = 0.00038,
			     .slow_iops = 15, .slow_lat = 0.0007, .fast_ios = 13170, .slow_ios = 200, .stalls = 12,
			     .stall_floor = 0.1, .slowest = 0.29};
}

/* An SSD's SLC cache: 1.6 GB/s, then 150 MB/s, nothing waiting (Crucial P1). */
static CliffResult slc_cliff(void)
{
	return (CliffResult){.fell = true, .found = false, .cliff_t = 4, .fast_iops = 24000, .fast_lat = 0.00004,
			     .slow_iops = 2300, .slow_lat = 0.0004, .fast_ios = 96000, .slow_ios = 9000, .stalls = 0,
			     .stall_floor = 0.1, .slowest = 0.002};
}

static bool has_limit(const QualifyVerdict *v, const char *part)
{
	for (unsigned i = 0; i < v->n_limits; i++)
		if (strstr(v->limits[i], part))
			return true;
	return false;
}

static void test_factors(void)
{
	CliffResult c = smr_cliff();
	CHECK(verdict_cliff_is_smr(&c));
	c.stalls = 0;		/* fell, but nothing waited */
	CHECK(!verdict_cliff_is_smr(&c));
	c = smr_cliff();
	c.fell = false;		/* a dip that came back */
	CHECK(!verdict_cliff_is_smr(&c));
	c = slc_cliff();
	CHECK(!verdict_cliff_is_smr(&c));

	/* 16 KiB writes at 15 IOPS after the fall: 240 KiB/s */
	QualifyFacts f = {.cliff = smr_cliff(), .block_size = 16384, .seq_ran = true};
	f.seq_rate = 4 * 15 * 16384.0;		/* exactly the ratio: fast */
	CHECK(verdict_sequential_fast(&f));
	f.seq_rate = 4 * 15 * 16384.0 - 1;
	CHECK(!verdict_sequential_fast(&f));
	f.seq_rate = 180e6;
	f.seq_ran = false;			/* no sequential phase: no claim */
	CHECK(!verdict_sequential_fast(&f));
}

static void test_reads_banded(void)
{
	Hist h = {0};
	Band slowest;
	for (int i = 0; i < 400; i++)
		hist_add(&h, (uint64_t)((7.5 + (i % 10) * 0.1) * 1e6));
	CHECK(!verdict_reads_banded(&h, &slowest));	/* one seek population */
	for (int i = 0; i < 40; i++)
		hist_add(&h, (uint64_t)((400 + (i % 5) * 5) * 1e6));
	CHECK(verdict_reads_banded(&h, &slowest));	/* 8 ms and 400 ms (the seeds' WD60EZAZ) */
	CHECK(slowest.centre > 0.3 && slowest.centre < 0.5);
	CHECK(!verdict_reads_banded(NULL, NULL));
}

static void test_verdicts(void)
{
	QualifyVerdict v;
	QualifyFacts f = {.destructive = true, .wrote = true, .static_class = DISK_CLASS_CMR, .cliff = smr_cliff(),
			  .block_size = 4096, .written = 60 << 20, .seq_ran = true, .seq_rate = 180e6};
	qualify_verdict(&f, &v);
	CHECK(v.smr_like);
	CHECK(strstr(v.text, "behaves like DM-SMR: fast phase of 5.0 s at 2634 IOPS") == v.text);
	CHECK(strstr(v.text, "12 write(s) waiting up to 290") != NULL);
	CHECK(strstr(v.text, "sequential writes stay fast at") != NULL);
	CHECK(!has_limit(&v, "sequential writes were slow"));

	f.seq_rate = 100000;			/* streams slow too: still SMR, with the caveat */
	qualify_verdict(&f, &v);
	CHECK(v.smr_like);
	CHECK(has_limit(&v, "sequential writes were slow"));

	f.cliff = slc_cliff();
	f.block_size = 65536;
	f.seq_rate = 150e6;			/* ~ the random rate after the fall (2300 x 64 KiB) */
	qualify_verdict(&f, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "SSD write cache exhausted") == v.text);

	f.seq_rate = 1.6e9;			/* fell, no waits, streams fast: named, not called */
	qualify_verdict(&f, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "write rate fell") == v.text);
	CHECK(has_limit(&v, "SSD's write cache"));

	f.cliff = (CliffResult){.fast_iops = 180, .fast_lat = 0.0055};	/* CMR: 96-264 IOPS, no fall */
	f.static_class = DISK_CLASS_CMR;
	qualify_verdict(&f, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "no cliff after 60M written at 180 IOPS") == v.text);
	CHECK(strstr(v.text, "or an SSD") == NULL);
	CHECK(has_limit(&v, "larger write budget"));
	f.static_class = DISK_CLASS_SSD;
	qualify_verdict(&f, &v);
	CHECK(strstr(v.text, "or an SSD, as the static classification says") != NULL);
	/* issue 29: a file-backed loop at 21k random writes a second at 23 us
	 * is no platter: solid-state, not "consistent with CMR" */
	f.cliff = (CliffResult){.fast_iops = 21000, .fast_lat = 23e-6};
	f.static_class = DISK_CLASS_CMR;
	qualify_verdict(&f, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "consistent with CMR") == NULL);
	CHECK(strstr(v.text, "so solid-state storage took them") != NULL);
	CHECK(has_limit(&v, "media cache larger than what was written"));
	/* a media cache's speed (2500 at 400 us) with no cliff: a cache, maybe solid-state */
	f.cliff = (CliffResult){.fast_iops = 2500, .fast_lat = 400e-6};
	qualify_verdict(&f, &v);
	CHECK(strstr(v.text, "solid-state storage or a cache took them") != NULL);

	/* CI's ASan run: the emulated SSD's writes at 1041 IOPS (502 us), under
	 * the write bar; its random reads at 0.3 ms are no platter's */
	Hist reads = {0}, seeks = {0};
	for (int i = 0; i < 200; i++) {
		hist_add(&reads, (uint64_t)(300e3 + 1000 * i));
		hist_add(&seeks, (uint64_t)(4e6 + 40000 * i));	/* 4-12 ms: seek and rotation */
	}
	f.cliff = (CliffResult){.fast_iops = 1041, .fast_lat = 502e-6};
	f.static_class = DISK_CLASS_SSD;
	f.reads = &reads;
	qualify_verdict(&f, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "so solid-state storage; not") != NULL);
	CHECK(strstr(v.text, "consistent with CMR") == NULL);
	f.reads = &seeks;	/* a platter's reads: the write rate decides, as before */
	f.static_class = DISK_CLASS_CMR;
	qualify_verdict(&f, &v);
	CHECK(strstr(v.text, "consistent with CMR") != NULL);
	f.reads = NULL;

	f.static_class = DISK_CLASS_DM_SMR;	/* declared: said among the limits */
	f.cliff = smr_cliff();
	f.interrupted = true;
	qualify_verdict(&f, &v);
	CHECK(v.smr_like);
	CHECK(has_limit(&v, "already declares SMR"));
	CHECK(has_limit(&v, "interrupted"));

	QualifyFacts ro = {.static_class = DISK_CLASS_UNKNOWN};
	qualify_verdict(&ro, &v);
	CHECK(!v.smr_like);
	CHECK(strstr(v.text, "read-only: reads look like a single") == v.text);
	ro.reads = &reads;	/* reads of 300 us: a cache's or flash's, no seek and rotation */
	qualify_verdict(&ro, &v);
	CHECK(strstr(v.text, "read-only: random reads in ") == v.text && strstr(v.text, "from a cache or from flash"));
	CHECK(!strstr(v.text, "seek-and-rotation"));
}

int main(void)
{
	test_factors();
	test_reads_banded();
	test_verdicts();
	return test_done("verdict");
}
