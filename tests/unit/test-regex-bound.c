/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Patterns that cost glibc's regcomp() gigabytes are refused before it runs;
 * every pattern the project and its users write still compiles. */
#include <regex.h>
#include <sys/resource.h>
#include <time.h>

#include "regex-bound.h"
#include "test.h"
#include "util.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_accepted(void)
{
	const char *good[] = {
		"^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme[0-9]+n[0-9]+p)[0-9]+$",	/* node_exporter's exclude */
		"^(WDC WD[2346]0EFAX-.*)$", "^(ST(2000DM00[58]|3000DM007|[48]000DM004|6000DM003)-.*)$",
		"^(TOSHIBA HDWT(7[24]|8[46])0.*)$", "^sd[a-z]+$", "", "a{3}b{1,5}", "[[:digit:]]+", "[]a-]*",
		"x{100}", "(ab|cd)*e?", "a\\{1",
	};
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		const char *why = NULL;
		regex_t re;
		int r = regex_compile_bounded(&re, good[i], REG_EXTENDED | REG_NOSUB, &why);
		if (r != 0)
			fprintf(stderr, "refused a good pattern '%s': %s\n", good[i], why);
		CHECK_INT(r, 0);
		if (r == 0)
			regfree(&re);
	}
}

static void test_refused(void)
{
	const char *bad[] = {
		"A+++++++++++++++++++++++", "A++++++++++++++", "(a{1,255}){1,255}", "x{32767}", "((a*)*)*)*)+)+)+)+)+)+)+)+",
		"(((((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))))", "(a{100}){100}", "a{5000}",
		"(ab", "[abc",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		const char *why = NULL;
		regex_t re;
		double t0 = now();
		int r = regex_compile_bounded(&re, bad[i], REG_EXTENDED | REG_NOSUB, &why);
		double t = now() - t0;
		if (r == 0) {
			fprintf(stderr, "accepted a costly pattern '%s'\n", bad[i]);
			regfree(&re);
		}
		CHECK(r < 0 && why && *why);
		printf("  refused in %.0f us: %.30s: %s\n", t * 1e6, bad[i], why ? why : "?");
	}
	char big[REGEX_MAX_LENGTH + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	const char *why = NULL;
	CHECK_INT(regex_check_bounds(big, &why), -E2BIG);
}

/* Every pattern the checker lets through compiles cheaply: random patterns
 * from a hostile alphabet, and the peak RSS stays small. */
static void test_random(void)
{
	const char alphabet[] = "ab()|*+?{}1,25[]^$\\.";
	uint64_t seed = 7;
	unsigned accepted = 0;
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
		const char *why;
		regex_t re;
		double t0 = now();
		if (regex_compile_bounded(&re, p, REG_EXTENDED | REG_NOSUB, &why) == 0) {
			regfree(&re);
			accepted++;
		}
		double t = now() - t0;
		if (t > worst)
			worst = t;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  20000 random patterns: %u accepted, slowest check+compile %.1f ms, peak RSS %ld KiB\n", accepted, worst * 1e3,
	       ru.ru_maxrss);
	CHECK(ru.ru_maxrss < 64 * 1024);
	CHECK(accepted > 100);
}

int main(void)
{
	test_accepted();
	test_refused();
	test_random();
	return test_done("test-regex-bound");
}
