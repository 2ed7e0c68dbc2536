/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libxcrypt's crypt_rn() verifies $2a$/$2b$/$2y$ hashes; GnuTLS's SHA-256
 * keys the cache so that no password is kept in memory.
 */
#include "webauth.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* bcrypt of "fakepassword": what an unknown user is checked against. */
#define FAKE_HASH "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"

typedef struct CacheEntry {
	uint8_t key[32];
	bool used, ok;
} CacheEntry;

struct WebAuth {
	WebPair *users;
	unsigned n_users;
	CacheEntry cache[WEB_AUTH_CACHE];
	unsigned next_slot;
	double tokens;
	uint64_t refilled_usec;
	uint64_t checks, busy;
};

WebAuth *webauth_free(WebAuth *a)
{
	if (!a)
		return NULL;
	for (unsigned i = 0; i < a->n_users; i++) {
		free(a->users[i].key);
		free(a->users[i].value);
	}
	free(a->users);
	explicit_bzero(a->cache, sizeof a->cache);
	free(a);
	return NULL;
}

WebAuth *webauth_new(const WebPair *users, unsigned n)
{
	WebAuth *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->tokens = WEB_AUTH_BURST;
	a->users = calloc(n ? n : 1, sizeof *a->users);
	if (!a->users)
		return webauth_free(a);
	for (unsigned i = 0; i < n; i++) {
		a->users[i] = (WebPair){strdup(users[i].key), strdup(users[i].value)};
		a->n_users++;
		if (!a->users[i].key || !a->users[i].value)
			return webauth_free(a);
	}
	return a;
}

static const char *hash_of(const WebAuth *a, const char *user)
{
	for (unsigned i = 0; i < a->n_users; i++)
		if (streq(a->users[i].key, user))
			return a->users[i].value;
	return NULL;
}

static int cache_key(const char *user, const char *hash, const char *password, uint8_t key[32])
{
	Buf b = {0};
	/* lengths first: no two (user, password) pairs give the same bytes */
	buf_printf(&b, "%zu:%s:%zu:%s:%zu:", strlen(user), user, strlen(hash), hash, strlen(password));
	buf_put(&b, password, strlen(password));
	int r = b.oom ? -ENOMEM : gnutls_hash_fast(GNUTLS_DIG_SHA256, b.data, b.len, key);
	if (b.data)
		explicit_bzero(b.data, b.len);
	buf_free(&b);
	return r < 0 ? -EIO : 0;
}

static bool take_token(WebAuth *a, uint64_t now)
{
	if (a->refilled_usec && now > a->refilled_usec)
		a->tokens += (double)(now - a->refilled_usec) / 1e6 * WEB_AUTH_PER_SECOND;
	if (a->tokens > WEB_AUTH_BURST)
		a->tokens = WEB_AUTH_BURST;
	a->refilled_usec = now;
	if (a->tokens < 1)
		return false;
	a->tokens -= 1;
	return true;
}

static bool bcrypt_ok(const char *hash, const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof *cd);
	if (!cd)
		return false;
	/* crypt_rn: libxcrypt's own, which sanitizers do not intercept (their
	 * crypt_r interceptor finds no crypt_r in glibc and jumps to NULL) */
	const char *h = crypt_rn(password, hash, cd, (int)sizeof *cd);
	bool ok = h && h[0] != '*' && strlen(h) == strlen(hash) && !memcmp(h, hash, strlen(hash));
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return ok;
}

WebAuthResult webauth_check(WebAuth *a, const char *user, const char *password, uint64_t now_usec)
{
	if (!user || !password)
		return WEB_AUTH_DENIED;
	const char *hash = hash_of(a, user);
	bool known = hash != NULL;
	if (!known)
		hash = FAKE_HASH;
	uint8_t key[32];
	if (cache_key(user, hash, password, key) < 0)
		return WEB_AUTH_DENIED;
	for (unsigned i = 0; i < WEB_AUTH_CACHE; i++)
		if (a->cache[i].used && !memcmp(a->cache[i].key, key, sizeof key))
			return a->cache[i].ok && known ? WEB_AUTH_OK : WEB_AUTH_DENIED;
	if (!take_token(a, now_usec)) {
		a->busy++;
		return WEB_AUTH_BUSY;
	}
	a->checks++;
	bool ok = bcrypt_ok(hash, password) && known;
	CacheEntry *e = &a->cache[a->next_slot];
	a->next_slot = (a->next_slot + 1) % WEB_AUTH_CACHE;
	*e = (CacheEntry){.used = true, .ok = ok};
	memcpy(e->key, key, sizeof key);
	return ok ? WEB_AUTH_OK : WEB_AUTH_DENIED;
}

void webauth_counts(const WebAuth *a, uint64_t *ret_checks, uint64_t *ret_busy)
{
	*ret_checks = a ? a->checks : 0;
	*ret_busy = a ? a->busy : 0;
}
