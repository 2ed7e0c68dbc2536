/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/stat's steal per CPU, on real layouts and bad lines, and the tracker. */
#include "procstat.h"
#include "test.h"

/* from this project's 2-core VM (kernel 6.1), and a 2.6.9-era layout */
static const char *REAL = "cpu  13362 0 8207 98764 500 0 482 2148 0 0\n"
			  "cpu0 5940 0 3603 50975 59 0 125 1008 0 0\n"
			  "cpu1 7421 0 4603 47789 440 0 356 1139 0 0\n"
			  "intr 1234 0 0\nctxt 99\nbtime 1796190000\nprocesses 4000\n";

static void test_parse(void)
{
	static ProcStatSteal s;
	unsigned bad = 9;
	CHECK_INT(procstat_steal_parse(REAL, &s, &bad), 0);
	CHECK_INT(s.n, 2);
	CHECK_INT(bad, 0);
	CHECK_INT(s.ticks[0], 1008);
	CHECK_INT(s.ticks[1], 1139);
	/* no steal figure: an old kernel, not an error in the file */
	CHECK_INT(procstat_steal_parse("cpu  1 2 3 4\ncpu0 1 2 3 4 5 6 7\n", &s, &bad), -ENODATA);
	CHECK_INT(bad, 0);
	CHECK_INT(procstat_steal_parse("", &s, &bad), -ENODATA);
	/* bad lines are skipped and counted; the good ones still count */
	const char *mixed = "cpu0 1 2 3 4 5 6 7 -8\n"
			    "cpu1 1 2 3 4 5 6 7 99999999999999999999999\n"
			    "cpux 1 2 3 4 5 6 7 8\n"
			    "cpu99999 1 2 3 4 5 6 7 8\n"
			    "cpu2 1 2 3 4 5 6 7 x8\n"
			    "cpu3 1 2 3 4 5 6 7 42\n"
			    "cpu3 1 2 3 4 5 6 7 43\n";	/* a repeat: the first counts */
	CHECK_INT(procstat_steal_parse(mixed, &s, &bad), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.ticks[3], 42);
	CHECK_INT(bad, 6);
	/* truncated mid-line: what is there is read, no overrun */
	CHECK_INT(procstat_steal_parse("cpu0 1 2 3 4 5 6 7 12", &s, &bad), 0);
	CHECK_INT(s.ticks[0], 12);
}

static void test_tracker(void)
{
	static ProcStatSteal a, b;
	HostSteal h;
	host_steal_init(&h, 100);
	CHECK_INT(procstat_steal_parse("cpu0 0 0 0 0 0 0 0 100\ncpu1 0 0 0 0 0 0 0 200\n", &a, NULL), 0);
	CHECK(host_steal_update(&h, &a) == 0);		/* the first read says nothing */
	/* one vCPU taken for 1.5 s, the other for 0.1 s: the most-robbed counts */
	CHECK_INT(procstat_steal_parse("cpu0 0 0 0 0 0 0 0 250\ncpu1 0 0 0 0 0 0 0 210\n", &b, NULL), 0);
	CHECK_NEAR(host_steal_update(&h, &b), 1.5, 1e-9);
	CHECK_NEAR(h.total, 1.6, 1e-9);
	/* a CPU gone offline, and one whose counter went back: nothing from them */
	CHECK_INT(procstat_steal_parse("cpu1 0 0 0 0 0 0 0 5\n", &a, NULL), 0);
	CHECK(host_steal_update(&h, &a) == 0);
	CHECK_NEAR(h.total, 1.6, 1e-9);
}

int main(void)
{
	test_parse();
	test_tracker();
	return test_done("test-procstat");
}
