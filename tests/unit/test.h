/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal test helpers: every check prints what failed and where, and the
 * test's exit code is 0 or 1, nothing else: meson reads 77 as a skip and
 * others as special too, so a count of failures could pass for one.
 */
#pragma once

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond) do { test_checks++; if (!(cond)) { test_failures++; \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); test_checks++; \
	if (_a != _b) { test_failures++; fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", \
	__FILE__, __LINE__, #a, _a, #b, _b); } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); test_checks++; \
	if (!_a || !_b || strcmp(_a, _b) != 0) { test_failures++; fprintf(stderr, \
	"%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a ? _a : "(null)", \
	_b ? _b : "(null)"); } } while (0)
#define CHECK_NEAR(a, b, eps) do { double _a = (a), _b = (b); test_checks++; \
	if (!(fabs(_a - _b) <= (eps))) { test_failures++; fprintf(stderr, \
	"%s:%d: %s == %g, expected %g\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)

/* The machine lacks what the test needs: a skip (77) that names the
 * feature, which tests/run accepts only when SMRD_TESTS_ALLOW_MISSING
 * names it too (README). */
static inline int test_unavailable(const char *feature, const char *why)
{
	printf("SKIPPED [%s]: %s\n", feature, why);
	return 77;
}

static inline int test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	/* a test that checked nothing proves nothing */
	if (test_checks == 0)
		fprintf(stderr, "%s: no check ran\n", name);
	return test_failures == 0 && test_checks > 0 ? 0 : 1;
}
