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

static char want_saw[128];
static DiskstatWant want_counters(const DiskstatLine *l, void *userdata)
{
	(void)userdata;
	snprintf(want_saw, sizeof want_saw, "%.*s", (int)l->counters_len, l->counters);
	return DISKSTAT_SKIP;
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
	CHECK_INT(diskstats_parse(text, NULL, collect, NULL), 2);
	CHECK_INT(seen, 2);
	CHECK_STR(last.name, "sdb");
	free(text);
}

static DiskstatWant want_sd_disks(const DiskstatLine *l, void *userdata)
{
	(void)userdata;
	return strncmp(l->name, "sd", 2) == 0 && l->minor % 16 == 0 ? DISKSTAT_PARSE : DISKSTAT_CHECK;
}

/* Lines nobody wants are checked, not parsed: a bad one counts all the
 * same, whatever makes it bad. */
static void test_unwanted_lines(void)
{
	static const char *const lines[] = {
		"8 1 sda1 1 2 3 4 5 6 7 8 9 10 11",			/* good */
		"8 2 sda2 1 2 3 4 5 6 7 8 9 10",			/* 10 fields */
		"8 3 sda3 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",	/* 16 */
		"8 4 sda4 1 2 3 4 5 6 7 8 9 10 x1",			/* not a number */
		"8 5 sda5 1 2 3 4 5 6 7 8 9 10 11-",
		"8 6 sda6 18446744073709551615 2 3 4 5 6 7 8 9 10 11",	/* UINT64_MAX: good */
		"8 7 sda7 18446744073709551616 2 3 4 5 6 7 8 9 10 11",	/* one more: bad */
		"8 8 sda8 000018446744073709551615 2 3 4 5 6 7 8 9 10 11",	/* leading zeros: good */
		"8 9 sda9 99999999999999999999999 2 3 4 5 6 7 8 9 10 11",
		"8 10 sda10 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18",	/* more than 17: good */
		"7 0 loop0	1	2 3 4 5 6 7 8 9 10 11 ",		/* tabs, a trailing space */
	};
	for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
		DiskstatLine l;
		unsigned want = diskstats_parse_line(lines[i], &l) < 0;
		seen = 0;
		CHECK_INT(diskstats_parse(lines[i], want_sd_disks, collect, NULL), want);
		CHECK_INT(seen, 0);
	}
	seen = 0;
	CHECK_INT(diskstats_parse("8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n8 17 sdb1 1 2\n8 32 sdc 1 2\n", want_sd_disks,
				  collect, NULL), 2);
	CHECK_INT(seen, 1);
	CHECK_STR(last.name, "sdb");
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
	/* A 64-bit counter going backwards is never a wrap. */
	l.v[DS_READ_SECTORS] = UINT64_C(1) << 40;
	diskstats_accumulate(&a, &l);
	uint64_t before = a.total[DS_READ_SECTORS];
	l.v[DS_READ_SECTORS] = 7;
	diskstats_accumulate(&a, &l);
	CHECK_INT(a.total[DS_READ_SECTORS], before);	/* held as suspect: nothing counted, nothing lost */
	CHECK_INT(a.resets, 0);
	/* It continues from the new value: the device restarted its counters. */
	l.v[DS_READ_SECTORS] = 20;
	diskstats_accumulate(&a, &l);
	CHECK_INT(a.total[DS_READ_SECTORS], before + 13);
	CHECK_INT(a.resets, 1);
	CHECK_INT(a.wraps, 1);
	uint64_t d;
	CHECK(diskstats_counter_delta(DS_READS, 10, 15, &d) && d == 5);
	CHECK(!diskstats_counter_delta(DS_READS, UINT64_C(1) << 33, 1, &d));
	/* Only the *_ms fields wrap at 32 bits, and only from the top half. */
	CHECK(!diskstats_counter_delta(DS_READS, UINT32_MAX - 5, 4, &d));
	CHECK(diskstats_counter_delta(DS_IO_MS, UINT32_MAX - 5, 4, &d) && d == 10);
	CHECK(!diskstats_counter_delta(DS_IO_MS, 1000, 4, &d));
	CHECK(!diskstats_counter_delta(DS_IO_MS, UINT64_C(1) << 33, 4, &d));
}

/* What the audit found: a 64-bit counter going backwards (or a duplicated,
 * stale device line) jumped by 2^32; a counter at 2^64-1 went backwards. */
static void test_never_decreasing(void)
{
	DiskstatAccum a = {0};
	DiskstatLine l = {.n_fields = 17};
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		l.v[f] = 1000;
	diskstats_accumulate(&a, &l);
	/* a stale line (smaller values everywhere), then the real one again */
	DiskstatLine stale = l;
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		stale.v[f] = 900;
	diskstats_accumulate(&a, &stale);
	diskstats_accumulate(&a, &stale);	/* a stale line may stay for several samples */
	diskstats_accumulate(&a, &stale);
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		if (f != DS_IN_FLIGHT)
			CHECK_INT(a.total[f], 1000);
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		l.v[f] = 1010;
	diskstats_accumulate(&a, &l);
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		if (f != DS_IN_FLIGHT)
			CHECK_INT(a.total[f], 1010);
	CHECK_INT(a.resets, 0);
	CHECK_INT(a.wraps, 0);

	/* a counter at 2^64-1, then small: never a decrease, never 2^32 */
	DiskstatAccum b = {0};
	DiskstatLine m = {.n_fields = 11};
	m.v[DS_WRITES] = UINT64_MAX;
	diskstats_accumulate(&b, &m);
	m.v[DS_WRITES] = 3;
	diskstats_accumulate(&b, &m);
	CHECK(b.total[DS_WRITES] == UINT64_MAX);
	m.v[DS_WRITES] = 5;
	diskstats_accumulate(&b, &m);
	CHECK(b.total[DS_WRITES] == UINT64_MAX);	/* saturates, never wraps */
	CHECK_INT(b.resets, 1);

	/* random walks: the total never decreases */
	DiskstatAccum c = {0};
	DiskstatLine r = {.n_fields = 17};
	uint64_t seed = 42, prev[_DS_FIELD_MAX] = {0};
	for (int i = 0; i < 100000; i++) {
		for (int f = 0; f < _DS_FIELD_MAX; f++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t x = seed >> 33;
			r.v[f] = x % 7 == 0 ? x : x % 11 == 0 ? UINT64_MAX - x : r.v[f] + x % 1000;
		}
		diskstats_accumulate(&c, &r);
		for (int f = 0; f < _DS_FIELD_MAX; f++)
			if (f != DS_IN_FLIGHT && c.total[f] < prev[f]) {
				CHECK(c.total[f] >= prev[f]);
				f = _DS_FIELD_MAX, i = 100000;
			}
		for (int f = 0; f < _DS_FIELD_MAX; f++)
			prev[f] = c.total[f];
	}
}

/* The text want sees, and the hash that tells a line that did not change:
 * any one counter moved by one changes it, the same text never does. */
static void test_unchanged_lines(void)
{
	DiskstatLine a = {0}, b = {0};
	const char *p = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17";
	CHECK_INT(diskstats_parse_line(p, &a), 0);
	a.counters = strstr(p, " 1 2"), a.counters_len = strlen(a.counters);
	uint64_t h = diskstats_counters_hash(&a);
	char line[128];
	for (int f = 0; f < 17; f++) {
		int k = 0;
		for (int g = 0; g < 17; g++)
			k += snprintf(line + k, sizeof line - (size_t)k, " %d", g + 1 + (g == f));
		b.counters = line, b.counters_len = strlen(line);
		CHECK(diskstats_counters_hash(&b) != h);
		line[strlen(line) - 1] = 0;	/* a digit fewer at the end */
		b.counters_len = strlen(line);
		CHECK(diskstats_counters_hash(&b) != h);
	}
	snprintf(line, sizeof line, "%s", a.counters);
	b.counters = line, b.counters_len = strlen(line);
	CHECK(diskstats_counters_hash(&b) == h);

	/* what diskstats_parse hands to want: the text after the name */
	seen = 0;
	CHECK_INT(diskstats_parse("8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n", want_counters, collect, NULL), 0);
	CHECK_STR(want_saw, " 1 2 3 4 5 6 7 8 9 10 11");
	CHECK_INT(seen, 0);	/* skipped: no callback */

	/* fed unchanged: deltas 0, totals kept; not before priming, nor with a value in doubt */
	DiskstatAccum c = {0};
	CHECK(!diskstats_accumulate_unchanged(&c));
	DiskstatLine l = {.n_fields = 11, .v = {10, 0, 80, 5, 20, 0, 160, 9, 1, 30, 40}};
	diskstats_accumulate(&c, &l);
	l.v[DS_WRITES] = 25;
	diskstats_accumulate(&c, &l);
	CHECK_INT(c.delta[DS_WRITES], 5);
	CHECK(diskstats_accumulate_unchanged(&c));
	CHECK_INT(c.delta[DS_WRITES], 0);
	CHECK_INT(c.total[DS_WRITES], 25);
	CHECK_INT(c.total[DS_IN_FLIGHT], 1);
	l.v[DS_WRITES] = 3;	/* backwards: held as suspect */
	diskstats_accumulate(&c, &l);
	CHECK(c.suspect_mask != 0);
	CHECK(!diskstats_accumulate_unchanged(&c));
}

int main(void)
{
	test_layouts();
	test_bad_lines();
	test_whole_file();
	test_unwanted_lines();
	test_accumulate();
	test_never_decreasing();
	test_unchanged_lines();
	return test_done("test-diskstats");
}
