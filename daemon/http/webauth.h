/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Basic authentication against bcrypt hashes, as exporter-toolkit does it:
 * a result is cached (keyed by a SHA-256 of user, hash and password), an
 * unknown user is checked against a fixed hash so that timing does not tell
 * which users exist. One bcrypt check at cost 10 takes tens of milliseconds of the only
 * thread smrd has, so checks that miss the cache are also rate-limited: a
 * client guessing passwords gets "busy" (HTTP 429), not our event loop.
 */
#pragma once

#include <stdint.h>

#include "webconfig.h"

typedef struct WebAuth WebAuth;

typedef enum WebAuthResult {
	WEB_AUTH_OK,
	WEB_AUTH_DENIED,
	WEB_AUTH_BUSY,		/* too many uncached checks right now: try again */
} WebAuthResult;

#define WEB_AUTH_CACHE 128
#define WEB_AUTH_BURST 4		/* uncached bcrypt checks at once */
#define WEB_AUTH_PER_SECOND 2.0		/* and on average */

/* Copies the users; NULL on OOM. */
WebAuth *webauth_new(const WebPair *users, unsigned n);
WebAuth *webauth_free(WebAuth *a);
/* now_usec: a monotonic clock, for the rate limit. */
WebAuthResult webauth_check(WebAuth *a, const char *user, const char *password, uint64_t now_usec);
/* bcrypt checks done, and refused for the rate limit. */
void webauth_counts(const WebAuth *a, uint64_t *ret_checks, uint64_t *ret_busy);
