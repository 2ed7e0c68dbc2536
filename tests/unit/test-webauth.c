/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Basic auth: right and wrong passwords, unknown users, the cache that
 * spares bcrypt, and the rate limit that keeps password guessing off the
 * event loop. */
#include <crypt.h>
#include <time.h>

#include "test.h"
#include "util.h"
#include "webauth.h"

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

int main(void)
{
	_cleanup_free_ char *h1 = hash_of("s3cret", 4), *h2 = hash_of("other", 4);
	CHECK(h1 && h2 && webconfig_hash_valid(h1));
	WebPair users[] = {{"alice", h1}, {"bob", h2}};
	WebAuth *a = webauth_new(users, 2);
	CHECK(a != NULL);
	uint64_t t = 1000000, checks, busy;

	CHECK_INT(webauth_check(a, "alice", "s3cret", t), WEB_AUTH_OK);
	CHECK_INT(webauth_check(a, "alice", "wrong", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, "bob", "s3cret", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, "mallory", "s3cret", t), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, "alice", NULL, t), WEB_AUTH_DENIED);
	webauth_counts(a, &checks, &busy);
	CHECK_INT(checks, 4);

	/* The burst is spent: a fifth uncached guess is refused without bcrypt,
	 * but the cached right password still works at once. */
	CHECK_INT(webauth_check(a, "alice", "guess-1", t), WEB_AUTH_BUSY);
	double t0 = seconds();
	for (int i = 0; i < 1000; i++)
		CHECK_INT(webauth_check(a, "alice", "s3cret", t), WEB_AUTH_OK);
	double cached = (seconds() - t0) / 1000;
	CHECK_INT(webauth_check(a, "alice", "wrong", t), WEB_AUTH_DENIED);	/* a cached failure */
	webauth_counts(a, &checks, &busy);
	CHECK_INT(checks, 4);
	CHECK_INT(busy, 1);
	printf("  a cached check takes %.1f us\n", cached * 1e6);
	CHECK(cached < 1e-3);

	/* Tokens come back at WEB_AUTH_PER_SECOND. */
	CHECK_INT(webauth_check(a, "alice", "guess-2", t + 600000), WEB_AUTH_DENIED);
	CHECK_INT(webauth_check(a, "alice", "guess-3", t + 600000), WEB_AUTH_BUSY);
	/* A flood of guesses costs at most the rate: 10 s of guessing, 1000 a second. */
	unsigned done = 0;
	for (int i = 0; i < 10000; i++) {
		char g[32];
		snprintf(g, sizeof g, "flood-%d", i);
		done += webauth_check(a, "alice", g, t + 1000000 + (uint64_t)i * 1000) != WEB_AUTH_BUSY;
	}
	printf("  10000 guesses over 10 s: %u reached bcrypt\n", done);
	CHECK(done <= WEB_AUTH_BURST + 10 * WEB_AUTH_PER_SECOND + 1);
	CHECK_INT(webauth_check(a, "alice", "s3cret", t + 20000000), WEB_AUTH_OK);
	webauth_free(a);
	return test_done("test-webauth");
}
