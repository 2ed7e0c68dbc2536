/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Basic auth: right and wrong passwords, unknown users (checked at a user's
 * cost), the caches that spare bcrypt (a flood of failures never pushes a
 * success out), and the budgets, per client address and overall, that keep
 * password guessing off the event loop and out of other clients' way. All on
 * a fake clock. */
#include <arpa/inet.h>
#include <crypt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "test.h"
#include "util.h"
#include "webauth.h"

static const AuthClientKey ME = {{1}}, FLOODER = {{2}};

static char *hash_of(const char *password, int cost)
{
	char salt[64];
	struct crypt_data d = {0};
	if (!crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, sizeof salt))
		return NULL;
	const char *h = crypt_r(password, salt, &d);
	return h ? strdup(h) : NULL;
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cost_of(const char *hash)
{
	return hash && strlen(hash) > 7 ? atoi(hash + 4) : -1;
}

/* An unknown user is checked by bcrypt at the cost of a configured user's
 * hash, the same one each time for one name: neither its cost nor its
 * spread tells the name from a user's. */
static void test_unknown_user_cost(void)
{
	_cleanup_free_ char *h5 = hash_of("s3cret", 5), *h4 = hash_of("other", 4);
	CHECK(h5 && h4);
	WebPair one[] = {{"prom", h5}};
	WebAuth *a = webauth_new(one, 1);
	CHECK(a != NULL);
	bool known = false;
	CHECK_STR(webauth_hash_for(a, "prom", &known), h5);
	CHECK(known);
	for (int i = 0; a && i < 20; i++) {
		char name[32];
		snprintf(name, sizeof name, "nosuchuser%d", i);
		const char *h = webauth_hash_for(a, name, &known);
		CHECK(!known);
		CHECK_INT(cost_of(h), 5);
		CHECK(strncmp(h, h5, 4) == 0 && !streq(h, h5));	/* the same variant, not the user's hash */
		CHECK_INT(strlen(h), strlen(h5));
		CHECK_STR(webauth_hash_for(a, name, &known), h);
		/* bcrypt takes it as it takes the user's: the same setting back, not an error */
		struct crypt_data d = {0};
		const char *out = crypt_rn("guess", h, &d, (int)sizeof d);
		CHECK(out && strlen(out) == strlen(h) && strncmp(out, h, 29) == 0);
	}
	/* and both cost one bcrypt check, neither more */
	uint64_t checks, busy;
	CHECK_INT(webauth_check(a, &ME, "prom", "guess", 1), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, &FLOODER, "nosuchuser", "guess", 1), WEB_AUTH_DENIED);
	webauth_counts(a, &checks, &busy);
	CHECK_INT(checks, 2);
	webauth_free(a);

	WebPair two[] = {{"prom", h5}, {"graf", h4}};
	a = webauth_new(two, 2);
	CHECK(a != NULL);
	unsigned at[32] = {0};
	for (int i = 0; a && i < 64; i++) {
		char name[32];
		snprintf(name, sizeof name, "mallory%d", i);
		int c = cost_of(webauth_hash_for(a, name, &known));
		CHECK(!known && (c == 4 || c == 5));
		at[c & 31]++;
	}
	printf("  64 unknown names: %u checked at cost 4, %u at cost 5\n", at[4], at[5]);
	CHECK(at[4] > 0 && at[5] > 0);
	webauth_free(a);
}

/* A flood of wrong guesses, each winning a bcrypt check as soon as the budget
 * allows, for longer than the failures take to fill the cache: the right
 * password, cached once, still passes every time without a check. */
static void test_flood_keeps_success(void)
{
	_cleanup_free_ char *h = hash_of("s3cret", 4);
	WebPair users[] = {{"prom", h}};
	WebAuth *a = webauth_new(users, 1);
	CHECK(a != NULL);
	if (!a)
		return;
	uint64_t t = 5000000, checks, busy, fails = 0;
	CHECK_INT(webauth_check(a, &ME, "prom", "s3cret", t), WEB_AUTH_OK);
	unsigned ok = 0, scrapes = 0;
	for (int s = 0; s < 100; s++) {
		for (int i = 0; i < 50; i++) {
			char g[32];
			snprintf(g, sizeof g, "guess-%d-%d", s, i);
			fails += webauth_check(a, &ME, "prom", g, t + (uint64_t)s * 1000000 + (uint64_t)i * 20000) == WEB_AUTH_DENIED;
		}
		scrapes++;
		ok += webauth_check(a, &ME, "prom", "s3cret", t + (uint64_t)s * 1000000 + 999000) == WEB_AUTH_OK;
	}
	webauth_counts(a, &checks, &busy);
	printf("  100 s of guessing: %" PRIu64 " wrong guesses checked, the right password passed %u of %u times\n",
	       fails, ok, scrapes);
	CHECK(fails > WEB_AUTH_CACHE);
	CHECK_INT(ok, scrapes);
	CHECK_INT(checks, fails + 1);
	webauth_free(a);
}

/* One address guessing as fast as it can never gets more than its own
 * budget, and never takes another client's: a quiet client's check, once a
 * second, always passes. */
static void test_budget_one_flooder(void)
{
	AuthBudget b;
	auth_budget_init(&b);
	unsigned flood = 0, quiet = 0;
	for (uint64_t ms = 0; ms < 60000; ms++) {
		flood += auth_budget_take(&b, &FLOODER, 1000000 + ms * 1000);
		if (ms % 1000 == 500)
			quiet += auth_budget_take(&b, &ME, 1000000 + ms * 1000);
	}
	printf("  one address guessing 1000/s for 60 s: %u checks; the quiet client %u of 60\n", flood, quiet);
	CHECK(flood <= AUTH_BUDGET_CLIENT_BURST + 60 * AUTH_BUDGET_CLIENT_PER_SECOND + 1);
	CHECK(flood >= 60 * AUTH_BUDGET_CLIENT_PER_SECOND);
	CHECK_INT(quiet, 60);
}

/* Forty addresses guessing together spend the overall budget, but not its
 * reserve: a quiet client still passes every time. Addresses that change at
 * every guess (more than the table holds) get no more than the overall rate. */
static void test_budget_many(void)
{
	AuthBudget b;
	auth_budget_init(&b);
	unsigned flood = 0, quiet = 0, asked = 0;
	for (uint64_t ms = 0; ms < 30000; ms++) {
		AuthClientKey k = {{3, (uint8_t)(ms % 40)}};
		flood += auth_budget_take(&b, &k, 1000000 + ms * 1000);
		if (ms % 2000 == 1000) {
			asked++;
			quiet += auth_budget_take(&b, &ME, 1000000 + ms * 1000);
		}
	}
	printf("  40 addresses guessing for 30 s: %u checks; the quiet client %u of %u\n", flood, quiet, asked);
	CHECK(flood <= AUTH_BUDGET_TOTAL_BURST + 30 * AUTH_BUDGET_TOTAL_PER_SECOND + 1);
	CHECK_INT(quiet, asked);

	auth_budget_init(&b);
	flood = 0;
	for (uint32_t i = 0; i < 10000; i++) {
		AuthClientKey k = {{4, (uint8_t)i, (uint8_t)(i >> 8)}};
		flood += auth_budget_take(&b, &k, 1000000 + (uint64_t)i * 1000);
	}
	printf("  10000 addresses, one guess each over 10 s: %u checks\n", flood);
	CHECK(flood <= AUTH_BUDGET_TOTAL_BURST + 10 * AUTH_BUDGET_TOTAL_PER_SECOND + 1);

	/* the key of an address: IPv4 as a dual-stack socket sees it, IPv6 by /64 */
	struct sockaddr_in v4 = {.sin_family = AF_INET};
	struct sockaddr_in6 m = {.sin6_family = AF_INET6}, x = m, y = m, z = m;
	inet_pton(AF_INET, "192.0.2.7", &v4.sin_addr);
	inet_pton(AF_INET6, "::ffff:192.0.2.7", &m.sin6_addr);
	inet_pton(AF_INET6, "2001:db8:1:2::1", &x.sin6_addr);
	inet_pton(AF_INET6, "2001:db8:1:2:ffff::9", &y.sin6_addr);
	inet_pton(AF_INET6, "2001:db8:1:3::1", &z.sin6_addr);
	AuthClientKey k4, km, kx, ky, kz;
	auth_client_key((struct sockaddr *)&v4, &k4);
	auth_client_key((struct sockaddr *)&m, &km);
	auth_client_key((struct sockaddr *)&x, &kx);
	auth_client_key((struct sockaddr *)&y, &ky);
	auth_client_key((struct sockaddr *)&z, &kz);
	CHECK(!memcmp(&k4, &km, sizeof k4));
	CHECK(!memcmp(&kx, &ky, sizeof kx));
	CHECK(memcmp(&kx, &kz, sizeof kx) != 0);
}

/* A web setup's own view: a flooding address and a client sending the right
 * password for the first time, during the flood. */
static void test_cold_during_flood(void)
{
	_cleanup_free_ char *h = hash_of("s3cret", 4);
	WebPair users[] = {{"prom", h}};
	WebAuth *a = webauth_new(users, 1);
	CHECK(a != NULL);
	if (!a)
		return;
	unsigned busy = 0;
	for (int i = 0; i < 200; i++) {
		char g[32];
		snprintf(g, sizeof g, "guess-%d", i);
		busy += webauth_check(a, &FLOODER, "prom", g, 1000000 + (uint64_t)i * 5000) == WEB_AUTH_BUSY;
	}
	CHECK(busy > 150);
	CHECK_INT(webauth_check(a, &ME, "prom", "s3cret", 2000000), WEB_AUTH_OK);
	webauth_free(a);
}

int main(void)
{
	test_budget_one_flooder();
	test_budget_many();
	test_cold_during_flood();
	test_unknown_user_cost();
	test_flood_keeps_success();

	_cleanup_free_ char *h1 = hash_of("s3cret", 4), *h2 = hash_of("other", 4);
	CHECK(h1 && h2 && webconfig_hash_valid(h1));
	WebPair users[] = {{"alice", h1}, {"bob", h2}};
	WebAuth *a = webauth_new(users, 2);
	CHECK(a != NULL);
	uint64_t t = 1000000, checks, busy;

	CHECK_INT(webauth_check(a, &ME, "alice", "s3cret", t), WEB_AUTH_OK);
	CHECK_INT(webauth_check(a, &ME, "alice", "wrong", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, &ME, "bob", "s3cret", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, &ME, "mallory", "s3cret", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, &ME, "alice", NULL, t), WEB_AUTH_DENIED);
	webauth_counts(a, &checks, &busy);
	CHECK_INT(checks, 4);

	/* The burst is spent: a fifth uncached guess is refused without bcrypt,
	 * but the cached right password still works at once. */
	CHECK_INT(webauth_check(a, &ME, "alice", "guess-1", t), WEB_AUTH_BUSY);
	double t0 = seconds();
	for (int i = 0; i < 1000; i++)
		CHECK_INT(webauth_check(a, &ME, "alice", "s3cret", t), WEB_AUTH_OK);
	double cached = (seconds() - t0) / 1000;
	CHECK_INT(webauth_check(a, &ME, "alice", "wrong", t), WEB_AUTH_DENIED);	/* a cached failure */
	webauth_counts(a, &checks, &busy);
	CHECK_INT(checks, 4);
	CHECK_INT(busy, 1);
	printf("  a cached check takes %.1f us\n", cached * 1e6);
	CHECK(cached < 1e-3);

	/* Tokens come back at WEB_AUTH_PER_SECOND. */
	CHECK_INT(webauth_check(a, &ME, "alice", "guess-2", t + 600000), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, &ME, "alice", "guess-3", t + 600000), WEB_AUTH_BUSY);
	/* A flood of guesses costs at most the rate: 10 s of guessing, 1000 a second. */
	unsigned done = 0;
	for (int i = 0; i < 10000; i++) {
		char g[32];
		snprintf(g, sizeof g, "flood-%d", i);
		done += webauth_check(a, &ME, "alice", g, t + 1000000 + (uint64_t)i * 1000) != WEB_AUTH_BUSY;
	}
	printf("  10000 guesses over 10 s: %u reached bcrypt\n", done);
	CHECK(done <= AUTH_BUDGET_CLIENT_BURST + 10 * AUTH_BUDGET_CLIENT_PER_SECOND + 1);
	CHECK_INT(webauth_check(a, &ME, "alice", "s3cret", t + 20000000), WEB_AUTH_OK);
	webauth_free(a);
	return test_done("test-webauth");
}
