/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Patterns are read as node_exporter and drivedb.h write them, and no
 * pattern, however hostile, costs more than a bounded compile and a
 * bounded match: a backtracking one fails its match instead of spinning. */
#include <errno.h>
#include <sys/resource.h>
#include <time.h>

#include "filter.h"
#include "pattern.h"
#include "test.h"
#include "util.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int match(const char *re, unsigned flags, const char *subject)
{
	Pattern *p = NULL;
	char why[PATTERN_WHY_MAX];
	int r = pattern_new(re, flags, &p, why);
	if (r < 0) {
		fprintf(stderr, "refused '%s': %s\n", re, why);
		return r;
	}
	r = pattern_match(p, subject);
	pattern_free(p);
	return r;
}

/* node_exporter's default diskstats exclude, as its flag takes it */
#define NODE_EXCLUDE "^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\\d+n\\d+p)\\d+$"

static void test_syntax(void)
{
	const struct {
		const char *re;
		unsigned flags;
		const char *subject;
		int want;
	} cases[] = {
		{NODE_EXCLUDE, 0, "sda1", 1},
		{NODE_EXCLUDE, 0, "nvme0n1p12", 1},
		{NODE_EXCLUDE, 0, "loop7", 1},
		{NODE_EXCLUDE, 0, "zram0", 1},
		{NODE_EXCLUDE, 0, "sda", 0},
		{NODE_EXCLUDE, 0, "nvme0n1", 0},
		{NODE_EXCLUDE, 0, "sdaa", 0},
		{"^sd[a-z]+$", 0, "sdab", 1},
		{"sd", 0, "xsdx", 1},	/* unanchored unless asked */
		{"sd", PATTERN_WHOLE, "xsdx", 0},
		/* drivedb.h's POSIX extended entries, matched on the whole model */
		{"WDC WD(20|30|40|60)EFAX-.*", PATTERN_WHOLE, "WDC WD40EFAX-68JH4N0", 1},
		{"WDC WD(20|30|40|60)EFAX-.*", PATTERN_WHOLE, "XWDC WD40EFAX-68JH4N0", 0},
		{"ST(2000DM00[58]|3000DM007|[48]000DM004)-.*", PATTERN_WHOLE, "ST8000DM004-2CX188", 1},
		{"TOSHIBA HDWD1(0|1)0.*|TOSHIBA HDWD13.*", PATTERN_WHOLE, "TOSHIBA HDWD130", 1},
		{"[[:digit:]]+", PATTERN_WHOLE, "2024", 1},
		{"a|b", PATTERN_WHOLE, "ab", 0},	/* the whole subject, for each alternative */
		{"(?i)wdc wd40efax-.*", PATTERN_WHOLE, "WDC WD40EFAX-68JH4N0", 1},
		{"\\w+\\s\\w+", PATTERN_WHOLE, "WDC WD40EFAX", 1},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		int r = match(cases[i].re, cases[i].flags, cases[i].subject);
		if (r != cases[i].want)
			fprintf(stderr, "'%s' on '%s': %d, want %d\n", cases[i].re, cases[i].subject, r, cases[i].want);
		CHECK_INT(r, cases[i].want);
	}
}

static void test_refused(void)
{
	const char *bad[] = {
		"A+++++++++++++++++++++++", "(ab", "[abc", "a{2,1}", "\\", "(?<", "(*UTF)a", "a\\C",
		"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
		"(a{1,65535}){1,65535}",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		Pattern *p = NULL;
		char why[PATTERN_WHY_MAX] = "";
		double t0 = now();
		int r = pattern_new(bad[i], 0, &p, why);
		double t = now() - t0;
		if (r == 0)
			fprintf(stderr, "accepted '%s'\n", bad[i]);
		pattern_free(p);
		CHECK(r < 0 && why[0]);
		printf("  refused in %.0f us: %.30s: %s\n", t * 1e6, bad[i], why);
	}
	char big[PATTERN_MAX_LENGTH + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	Pattern *p = NULL;
	char why[PATTERN_WHY_MAX];
	CHECK_INT(pattern_new(big, 0, &p, why), -E2BIG);
	CHECK(strstr(why, "more than") != NULL);
}

/* Catastrophic backtracking on a device-name-sized subject: the limits end
 * it with an error, fast, where an unbounded matcher runs for hours. */
static void test_backtracking(void)
{
	const char *evil[] = {"(a+)+$", "(a|aa)+$", "(a|a?)+$", "^(\\w+\\w?)+\\d", "(.*a){20}"};
	char subject[64];
	memset(subject, 'a', 40);
	strcpy(subject + 40, "!");
	for (size_t i = 0; i < ELEMENTSOF(evil); i++) {
		double t0 = now();
		int r = match(evil[i], 0, subject);
		double t = now() - t0;
		printf("  %-10s on 40 a's: %d after %.1f ms\n", evil[i], r, t * 1e3);
		CHECK_INT(r, -E2BIG);
	}
	/* a pattern cannot raise its own limit past ours */
	int r = match("(*LIMIT_MATCH=1000000000)(a+)+$", 0, subject);
	CHECK_INT(r, -E2BIG);
}

/* A list of patterns shares one budget: a lowered limit stops a match
 * that the default lets through ("(a?){12}a{12}" takes about 4100 steps),
 * and no limit goes above the default. */
static void test_lowered(void)
{
	Pattern *p = NULL;
	char why[PATTERN_WHY_MAX];
	CHECK_INT(pattern_new("(a?){12}a{12}", PATTERN_WHOLE, &p, why), 0);
	if (!p)
		return;
	CHECK_INT(pattern_match(p, "aaaaaaaaaaaa"), 1);
	pattern_set_match_limit(p, 2048);
	CHECK_INT(pattern_match(p, "aaaaaaaaaaaa"), -E2BIG);
	pattern_set_match_limit(p, 1000000000);
	CHECK_INT(pattern_match(p, "aaaaaaaaaaaa"), 1);
	pattern_free(p);
	CHECK_INT(pattern_new("(a?){20}a{20}", PATTERN_WHOLE, &p, why), 0);
	if (!p)
		return;
	pattern_set_match_limit(p, 1000000000);
	CHECK_INT(pattern_match(p, "aaaaaaaaaaaaaaaaaaaa"), -E2BIG);
	pattern_free(p);
}

/* The filters take node_exporter's flags as written; a name whose match a
 * limit stopped is left unwatched, whichever rule it was. */
static void test_filter(void)
{
	DeviceFilter *f = NULL;
	char why[PATTERN_WHY_MAX];
	CHECK_INT(filter_new("^(sd|nvme|vd)", NODE_EXCLUDE, false, &f, why), 0);
	CHECK(filter_wants(f, "sda") && filter_wants(f, "sdaa") && filter_wants(f, "nvme0n1"));
	CHECK(!filter_wants(f, "sda1") && !filter_wants(f, "nvme0n1p1") && !filter_wants(f, "loop0") &&
	      !filter_wants(f, "dm-0"));
	filter_free(f);
	const char *evil = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
	CHECK_INT(filter_new("(a+)+$", "", false, &f, why), 0);
	CHECK(!filter_wants(f, evil));
	filter_free(f);
	CHECK_INT(filter_new("", "(a+)+$", false, &f, why), 0);
	CHECK(!filter_wants(f, evil) && filter_wants(f, "sdb") && !filter_wants(f, "sda"));
	filter_free(f);
	CHECK_INT(filter_new("sd", "(ab", false, &f, why), -EINVAL);
	CHECK(strstr(why, "missing closing parenthesis") != NULL);
}

/* Random patterns from a hostile alphabet: every one is either refused or
 * compiles and matches within bounds, and the peak RSS stays small. */
static void test_random(void)
{
	const char alphabet[] = "ab()|*+?{}1,25[]^$\\.";
	uint64_t seed = 7;
	unsigned accepted = 0, limited = 0;
	double worst = 0;
	for (int i = 0; i < 20000; i++) {
		char p[40];
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned len = (unsigned)(seed >> 59) + 8;
		for (unsigned k = 0; k < len; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			p[k] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
		}
		p[len] = 0;
		Pattern *re = NULL;
		char why[PATTERN_WHY_MAX];
		double t0 = now();
		if (pattern_new(p, 0, &re, why) == 0) {
			int r = pattern_match(re, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab sda nvme0n1");
			CHECK(r >= 0 || r == -E2BIG);
			limited += r == -E2BIG;
			pattern_free(re);
			accepted++;
		}
		double t = now() - t0;
		if (t > worst)
			worst = t;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  20000 random patterns: %u accepted (%u stopped by a limit), slowest compile+match %.1f ms, peak RSS %ld KiB\n",
	       accepted, limited, worst * 1e3, ru.ru_maxrss);
	CHECK(ru.ru_maxrss < 64 * 1024);
	CHECK(accepted > 100);
}

int main(void)
{
	test_syntax();
	test_refused();
	test_backtracking();
	test_lowered();
	test_filter();
	test_random();
	return test_done("test-pattern");
}
