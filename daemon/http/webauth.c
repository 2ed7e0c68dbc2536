/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libxcrypt's crypt_rn() verifies $2a$/$2b$/$2y$ hashes; GnuTLS's SHA-256
 * keys the cache so that no password is kept in memory.
 */
#include "webauth.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* bcrypt of "fakepassword": what an unknown user is checked against when
 * there are no users (never, as http.c asks only when there are). */
#define FAKE_HASH "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"
#define BCRYPT_SETTING 7	/* "$2y$10$": variant and cost */
#define BCRYPT_SALT_END 29	/* and 22 characters of salt */

typedef struct CacheEntry {
	uint8_t key[32];
	bool used;
} CacheEntry;

typedef struct Cache {
	CacheEntry *slots;
	unsigned n, next;
} Cache;

struct WebAuth {
	WebPair *users;
	char **decoys;		/* per user: a hash of its variant and cost that matches nothing */
	unsigned n_users;
	uint8_t secret[32];	/* picks an unknown name's decoy, unpredictably */
	CacheEntry ok_slots[WEB_AUTH_CACHE_OK], failed_slots[WEB_AUTH_CACHE];
	Cache ok, failed;
	AuthBudget budget;
	uint64_t checks, busy;
};

WebAuth *webauth_free(WebAuth *a)
{
	if (!a)
		return NULL;
	for (unsigned i = 0; i < a->n_users; i++) {
		free(a->users[i].key);
		free(a->users[i].value);
		free(a->decoys[i]);
	}
	free(a->users);
	free(a->decoys);
	explicit_bzero(a, sizeof *a);
	free(a);
	return NULL;
}

/* The hash's variant and cost, then salt and digest drawn at random. The
 * salt's last character carries 4 bits that bcrypt ignores: drawn among those
 * with them clear, as a real salt's is, lest a stricter libxcrypt refuse it
 * at once (and be quick about it). */
static char *decoy_of(const char *hash)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(hash);
	if (n <= BCRYPT_SALT_END)
		return strdup(FAKE_HASH);
	char *d = strdup(hash);
	uint8_t r[128];
	if (!d || n > sizeof r || gnutls_rnd(GNUTLS_RND_NONCE, r, n) < 0) {
		free(d);
		return NULL;
	}
	for (size_t i = BCRYPT_SETTING; i < n; i++)
		d[i] = i == BCRYPT_SALT_END - 1 ? ".Oeu"[r[i] & 3] : b64[r[i] & 63];
	return d;
}

WebAuth *webauth_new(const WebPair *users, unsigned n)
{
	WebAuth *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->ok = (Cache){a->ok_slots, WEB_AUTH_CACHE_OK, 0};
	a->failed = (Cache){a->failed_slots, WEB_AUTH_CACHE, 0};
	auth_budget_init(&a->budget);
	a->users = calloc(n ? n : 1, sizeof *a->users);
	a->decoys = calloc(n ? n : 1, sizeof *a->decoys);
	if (!a->users || !a->decoys || gnutls_rnd(GNUTLS_RND_NONCE, a->secret, sizeof a->secret) < 0)
		return webauth_free(a);
	for (unsigned i = 0; i < n; i++) {
		a->users[i] = (WebPair){strdup(users[i].key), strdup(users[i].value)};
		a->decoys[i] = decoy_of(users[i].value);
		a->n_users++;
		if (!a->users[i].key || !a->users[i].value || !a->decoys[i])
			return webauth_free(a);
	}
	return a;
}

const char *webauth_hash_for(const WebAuth *a, const char *user, bool *ret_known)
{
	*ret_known = false;
	for (unsigned i = 0; i < a->n_users; i++)
		if (streq(a->users[i].key, user)) {
			*ret_known = true;
			return a->users[i].value;
		}
	if (!a->n_users)
		return FAKE_HASH;
	/* one decoy per name, so that asking again costs the same again */
	Buf b = {0};
	uint8_t h[32];
	buf_put(&b, (const char *)a->secret, sizeof a->secret);
	buf_puts(&b, user);
	int r = b.oom ? -ENOMEM : gnutls_hash_fast(GNUTLS_DIG_SHA256, b.data, b.len, h);
	buf_free(&b);
	uint32_t pick = r < 0 ? 0 : (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	return a->decoys[pick % a->n_users];
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

static bool cache_has(const Cache *c, const uint8_t key[32])
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->slots[i].used && !memcmp(c->slots[i].key, key, 32))
			return true;
	return false;
}

static void cache_add(Cache *c, const uint8_t key[32])
{
	CacheEntry *e = &c->slots[c->next];
	c->next = (c->next + 1) % c->n;
	e->used = true;
	memcpy(e->key, key, 32);
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

WebAuthResult webauth_check(WebAuth *a, const AuthClientKey *client, const char *user, const char *password,
			    uint64_t now_usec)
{
	if (!user || !password)
		return WEB_AUTH_DENIED;
	bool known;
	const char *hash = webauth_hash_for(a, user, &known);
	uint8_t key[32];
	if (cache_key(user, hash, password, key) < 0)
		return WEB_AUTH_DENIED;
	if (known && cache_has(&a->ok, key))
		return WEB_AUTH_OK;
	if (cache_has(&a->failed, key))
		return WEB_AUTH_DENIED;
	if (!auth_budget_take(&a->budget, client, now_usec)) {
		a->busy++;
		return WEB_AUTH_BUSY;
	}
	a->checks++;
	bool ok = bcrypt_ok(hash, password) && known;
	cache_add(ok ? &a->ok : &a->failed, key);
	return ok ? WEB_AUTH_OK : WEB_AUTH_DENIED;
}

void webauth_counts(const WebAuth *a, uint64_t *ret_checks, uint64_t *ret_busy)
{
	*ret_checks = a ? a->checks : 0;
	*ret_busy = a ? a->busy : 0;
}
