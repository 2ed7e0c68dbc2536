/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Token buckets: one per client address, one for all. */
#include "authbudget.h"

#include <netinet/in.h>
#include <string.h>

#define NEVER UINT64_MAX	/* a bucket not refilled yet: full */

static void refill(AuthBucket *k, double burst, double per_second, uint64_t now)
{
	if (k->usec != NEVER && now > k->usec)
		k->tokens += (double)(now - k->usec) / 1e6 * per_second;
	if (k->tokens > burst)
		k->tokens = burst;
	k->usec = now;
}

static void fresh(AuthBucket *k, double burst)
{
	*k = (AuthBucket){.tokens = burst, .usec = NEVER};
}

void auth_budget_init(AuthBudget *b)
{
	memset(b, 0, sizeof *b);
	fresh(&b->total, AUTH_BUDGET_TOTAL_BURST);
}

static bool quiet(uint64_t asked, uint64_t now)
{
	return asked == NEVER || (now > asked && now - asked >= AUTH_BUDGET_QUIET_USEC);
}

/* The client's slot: its own, a free one, or that of a quiet client (its
 * budget is full again: forgetting it changes nothing). -1 when every slot
 * holds a client that keeps asking: a newcomer then gets no budget of its
 * own, rather than a fresh one that cycling through addresses would renew
 * at will. */
static int client_slot(AuthBudget *b, const AuthClientKey *key, uint64_t now)
{
	for (int i = 0; i < AUTH_BUDGET_CLIENTS; i++)
		if (b->clients[i].used && !memcmp(&b->clients[i].key, key, sizeof *key))
			return i;
	for (int i = 0; i < AUTH_BUDGET_CLIENTS; i++)
		if (!b->clients[i].used || quiet(b->clients[i].asked, now)) {
			b->clients[i].used = true;
			b->clients[i].key = *key;
			b->clients[i].asked = NEVER;
			fresh(&b->clients[i].bucket, AUTH_BUDGET_CLIENT_BURST);
			return i;
		}
	return -1;
}

bool auth_budget_take(AuthBudget *b, const AuthClientKey *client, uint64_t now_usec)
{
	int i = client_slot(b, client, now_usec);
	AuthBucket *c = i < 0 ? NULL : &b->clients[i].bucket;
	bool is_quiet = i >= 0 && quiet(b->clients[i].asked, now_usec);
	if (i >= 0)
		b->clients[i].asked = now_usec;
	refill(&b->total, AUTH_BUDGET_TOTAL_BURST, AUTH_BUDGET_TOTAL_PER_SECOND, now_usec);
	if (c) {
		refill(c, AUTH_BUDGET_CLIENT_BURST, AUTH_BUDGET_CLIENT_PER_SECOND, now_usec);
		if (c->tokens < 1)
			return false;
	}
	if (b->total.tokens < (is_quiet ? 1 : 1 + AUTH_BUDGET_RESERVE))
		return false;
	b->total.tokens -= 1;
	if (c)
		c->tokens -= 1;
	return true;
}

void auth_client_key(const struct sockaddr *sa, AuthClientKey *ret)
{
	memset(ret, 0, sizeof *ret);
	if (sa && sa->sa_family == AF_INET) {
		/* as the v4-mapped IPv6 address a dual-stack socket reports */
		ret->b[10] = ret->b[11] = 0xff;
		memcpy(ret->b + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		/* an IPv4 client on a dual-stack socket is one address, not a /64 */
		memcpy(ret->b, a, IN6_IS_ADDR_V4MAPPED(a) ? 16 : 8);
	}
}
