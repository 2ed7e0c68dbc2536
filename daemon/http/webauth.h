/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Basic authentication against bcrypt hashes, as exporter-toolkit does it:
 * a result is cached (keyed by a SHA-256 of user, hash and password), so a
 * scraper pays for bcrypt once. Successes and failures are cached apart: no
 * number of wrong guesses pushes a right password out. An unknown user is
 * checked against a hash that matches no password, at the cost of one of the
 * users' own hashes (the same one for the same name), so neither timing nor
 * its spread tells which users exist. One bcrypt check takes milliseconds to
 * tens of milliseconds of the only thread smrd has, so checks that miss the
 * cache are rate-limited per client address and overall (authbudget.h): a
 * client guessing passwords gets "busy" (HTTP 429), not our event loop, and
 * not the budget of anyone else.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "authbudget.h"
#include "webconfig.h"

typedef struct WebAuth WebAuth;

typedef enum WebAuthResult {
	WEB_AUTH_OK,
	WEB_AUTH_DENIED,
	WEB_AUTH_BUSY,		/* too many uncached checks right now: try again */
} WebAuthResult;

#define WEB_AUTH_CACHE 128		/* failed checks remembered */
#define WEB_AUTH_CACHE_OK 32		/* and successful ones, apart */

/* Copies the users; NULL on OOM. */
WebAuth *webauth_new(const WebPair *users, unsigned n);
WebAuth *webauth_free(WebAuth *a);
/* client: the address asking (its budget); now_usec: a monotonic clock. */
WebAuthResult webauth_check(WebAuth *a, const AuthClientKey *client, const char *user, const char *password,
			    uint64_t now_usec);
/* bcrypt checks done, and refused for the rate limit. */
void webauth_counts(const WebAuth *a, uint64_t *ret_checks, uint64_t *ret_busy);
/* The hash a check of user runs bcrypt against: the user's own, or for an
 * unknown user (*ret_known false) one that matches no password. */
const char *webauth_hash_for(const WebAuth *a, const char *user, bool *ret_known);
