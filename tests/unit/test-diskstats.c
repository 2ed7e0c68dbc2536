/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diskstats parser on every kernel layout and on bad lines; wrap handling. */
#include "diskstats.h"
#include "test.h"

static unsigned seen;
static DiskstatLine last;

static void collect(const DiskstatLine *l, void *userdata)
{
	(void)userdata;
	seen++;
	last = *l;
}

static void test_layouts(void)
{
	DiskstatLine l;
	CHECK_INT(diskstats_parse_line("   8       0 sda 1 2 3 4 5 6 7 8 9 10 11", &l), 0);
	CHECK_INT(l.n_fields, 11);
	CHECK_STR(l.name, "sda");
	CHECK_INT(l.v[DS_WEIGHTED_MS], 11);
	CHECK_INT(diskstats_parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", &l), 0);
	CHECK_INT(l.n_fields, 15);
	CHECK_INT(l.v[DS_DISCARD_MS], 15);
	CHECK_INT(diskstats_parse_line(" 254 0 vda 28646 5591 1938354 3707 11404 9069 1484264 2659 0 2884 6675 6346 21 196704 261 1631 46\n", &l), 0);
	CHECK_INT(l.n_fields, 17);
	CHECK_INT(l.major, 254);
	CHECK_INT(l.v[DS_READS], 28646);
	CHECK_INT(l.v[DS_FLUSH_MS], 46);
	/* A future kernel with more fields: the known ones are still read. */
	CHECK_INT(diskstats_parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", &l), 0);
	CHECK_INT(l.n_fields, 17);
}

static void test_bad_lines(void)
{
	DiskstatLine l;
	const char *bad[] = {
		"", "8 0", "8 0 sda", "8 0 sda 1 2 3 4 5 6 7 8 9 10",	/* short */
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12",			/* 12: no kernel printed that */
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",	/* 16 */
		"8 0 sda 1 2 3 x 5 6 7 8 9 10 11", "x 0 sda 1 2 3 4 5 6 7 8 9 10 11",
		"8 0 sda 1 2 3 -4 5 6 7 8 9 10 11", "8 0 sda 1 2 3 4.5 5 6 7 8 9 10 11",
		"8 0 sda 99999999999999999999999 2 3 4 5 6 7 8 9 10 11",	/* overflow */
		"8 0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 2 3 4 5 6 7 8 9 10 11",	/* overlong name */
		"99999999999 0 sda 1 2 3 4 5 6 7 8 9 10 11",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int r = diskstats_parse_line(bad[i], &l);
		if (r != -EINVAL)
			fprintf(stderr, "accepted bad line %zu: '%s'\n", i, bad[i]);
		CHECK_INT(r, -EINVAL);
	}
}

static void test_whole_file(void)
{
	char big[3000];
	memset(big, '7', sizeof big - 1);
	big[sizeof big - 1] = 0;
	char *text = NULL;
	if (asprintf(&text, "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\ngarbage\n%s\n\n8 16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", big) < 0)
		return;
	seen = 0;
	CHECK_INT(diskstats_parse(text, collect, NULL), 2);
	CHECK_INT(seen, 2);
	CHECK_STR(last.name, "sdb");
	free(text);
}

static void test_accumulate(void)
{
	DiskstatAccum a = {0};
	DiskstatLine l = {.n_fields = 11};
	l.v[DS_READ_MS] = UINT32_MAX - 5;
	l.v[DS_READS] = 100;
	l.v[DS_IN_FLIGHT] = 3;
	diskstats_accumulate(&a, &l);
	CHECK_INT(a.total[DS_READ_MS], UINT32_MAX - 5);
	CHECK_INT(a.delta[DS_READS], 0);
	/* The 32-bit milliseconds wrap: +10 ms, not a reset. */
	l.v[DS_READ_MS] = 4;
	l.v[DS_READS] = 150;
	l.v[DS_IN_FLIGHT] = 1;
	diskstats_accumulate(&a, &l);
	CHECK_INT(a.delta[DS_READ_MS], 10);
	CHECK_INT(a.total[DS_READ_MS], (uint64_t)UINT32_MAX + 5);
	CHECK_INT(a.delta[DS_READS], 50);
	CHECK_INT(a.total[DS_IN_FLIGHT], 1);	/* a gauge, never accumulated */
	CHECK_INT(a.wraps, 1);
	/* A 64-bit counter going backwards is a reset: start over from the new value. */
	l.v[DS_READ_SECTORS] = UINT64_C(1) << 40;
	diskstats_accumulate(&a, &l);
	l.v[DS_READ_SECTORS] = 7;
	diskstats_accumulate(&a, &l);
	CHECK_INT(a.total[DS_READ_SECTORS], 7);
	CHECK_INT(a.resets, 1);
	uint64_t d;
	CHECK(diskstats_counter_delta(10, 15, &d) && d == 5);
	CHECK(!diskstats_counter_delta(UINT64_C(1) << 33, 1, &d));
}

int main(void)
{
	test_layouts();
	test_bad_lines();
	test_whole_file();
	test_accumulate();
	return test_done("test-diskstats");
}
