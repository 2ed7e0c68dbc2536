/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one formatter: durations, sizes and rates for a person, and numbers
 * that --check-config prints and smrd.conf reads back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "format.h"
#include "test.h"

static void test_duration(void)
{
	char b[FORMAT_MAX];
	const struct { double s; const char *want; } cases[] = {
		{17e-6, "17 us"}, {333e-6, "333 us"}, {461e-6, "461 us"}, {0.0079, "7.9 ms"}, {0.401, "401 ms"},
		{1.62, "1.62 s"}, {60, "60 s"}, {119, "119 s"}, {204, "3.4 min"}, {240, "4 min"}, {1800, "30 min"}, {7200, "120 min"}, {36000, "10 h"},
		{2 * 86400, "48 h"}, {9.5 * 86400, "9.5 days"}, {1e8, "3.17 years"},
		{0, "0 us"}, {NAN, "-"}, {INFINITY, "-"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK_STR(format_duration(b, cases[i].s), cases[i].want);
	/* a rebuild's time left: never "0 us" */
	CHECK_STR(format_left(b, 0), "< 1 s");
	CHECK_STR(format_left(b, 0.4), "< 1 s");
	CHECK_STR(format_left(b, 7200), "120 min");
	CHECK_STR(format_left(b, NAN), "-");
}

/* lsblk's: binary units, one decimal unless it is 0 */
static void test_size(void)
{
	char b[FORMAT_MAX];
	const struct { double v; const char *want; } cases[] = {
		{0, "0B"}, {512, "512B"}, {1023, "1023B"}, {1024, "1K"}, {4096, "4K"}, {1536, "1.5K"},
		{1048575, "1M"}, {500107862016.0, "465.8G"}, {8001563222016.0, "7.3T"}, {2e12, "1.8T"},
		{-1, "-"}, {NAN, "-"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK_STR(format_size(b, cases[i].v), cases[i].want);
	CHECK_STR(format_rate(b, 12.3 * 1048576), "12.3M/s");
	CHECK_STR(format_rate(b, 0), "0B/s");
}

static void test_exact(void)
{
	char b[32];
	CHECK_STR(format_exact(b, 52428800), "52428800");
	CHECK_STR(format_exact(b, 2097152), "2097152");
	CHECK_STR(format_exact(b, 0.1), "0.1");
	CHECK_STR(format_exact(b, 1e12), "1000000000000");
	CHECK_STR(format_exact(b, 2.5e-05), "2.5e-05");
	const double hard[] = {0.1 + 0.2, 1.0 / 3, 86400.000001, 1e-300, 123456789.123456789, -0.004};
	for (size_t i = 0; i < sizeof hard / sizeof *hard; i++)
		CHECK(strtod(format_exact(b, hard[i]), NULL) == hard[i]);
}

/* What --check-config prints is what smrd.conf reads back: every number
 * to the last bit (%g lost 52428801 -> 5.24288e+07). */
static void test_config_reads_back(void)
{
	Config c, back;
	char *err = NULL;
	CHECK_INT(config_init(&c), 0);
	CHECK_INT(config_parse_text(&c, "interval = 0.30000000000000004\nslow-io = 0.012345678901\n"
				    "detect.fast-transfer = 52428801\ndetect.half-life = 86400.5\n"
				    "detect.stall-threshold.sdb = 0.7000000001\ndisk.sdc.media-cache = 24.5G\n", &err), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	config_print(&c, f);
	fclose(f);
	CHECK_INT(config_init(&back), 0);
	CHECK_INT(config_parse_text(&back, text, &err), 0);
	CHECK(back.interval == c.interval && back.slow_io == c.slow_io);
	CHECK(back.detect.fast_transfer == 52428801 && back.detect.half_life == 86400.5);
	CHECK_INT(back.detect.n_overrides, 1);
	CHECK(back.detect.overrides[0].stall_threshold == 0.7000000001);
	CHECK_INT(back.disks.n, 1);
	CHECK(back.disks.r[0].media_cache == 24.5 * 1073741824);
	CHECK(strstr(text, "detect.fast-transfer = 52428801\n") != NULL);
	free(text);
	config_done(&c);
	config_done(&back);
}

int main(void)
{
	test_duration();
	test_size();
	test_exact();
	test_config_reads_back();
	return test_done("format");
}
