/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who may spend a bcrypt check now: each client address has its own budget,
 * and all of them together one overall budget, which bounds the time
 * password checks can take from the event loop. A guessing client spends its
 * own budget and no one else's: its rate is below the overall one, and the
 * overall budget's last AUTH_BUDGET_RESERVE checks are kept for quiet
 * clients, which asked for none in the last AUTH_BUDGET_QUIET_USEC, such as
 * Prometheus sending its password for the first time (a guessing client
 * keeps asking, granted or not, and is never quiet). The limit of this: past
 * AUTH_BUDGET_CLIENTS addresses guessing at once, a newcomer has no budget of
 * its own and competes with them for the overall one (a password already
 * cached needs no check at all, see webauth.h).
 *
 * Pure: the caller gives the time and the client's key.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define AUTH_BUDGET_CLIENTS 64		/* addresses with a budget of their own */
#define AUTH_BUDGET_CLIENT_BURST 4	/* checks at once, per address */
#define AUTH_BUDGET_CLIENT_PER_SECOND 2.0	/* and on average */
#define AUTH_BUDGET_TOTAL_BURST 8	/* all addresses together */
#define AUTH_BUDGET_TOTAL_PER_SECOND 4.0
#define AUTH_BUDGET_RESERVE 2		/* of the overall burst, for quiet clients */
/* quiet for as long as its own budget takes to fill up again */
#define AUTH_BUDGET_QUIET_USEC (uint64_t)(AUTH_BUDGET_CLIENT_BURST / AUTH_BUDGET_CLIENT_PER_SECOND * 1e6)

/* A client address: IPv4, or an IPv6 /64 (one host often has a whole /64). */
typedef struct AuthClientKey {
	uint8_t b[16];
} AuthClientKey;

typedef struct AuthBucket {
	double tokens;
	uint64_t usec;		/* last refill; 0: never used (full) */
} AuthBucket;

typedef struct AuthBudget {
	struct {
		AuthClientKey key;
		AuthBucket bucket;
		uint64_t asked;	/* its last request, granted or not */
		bool used;
	} clients[AUTH_BUDGET_CLIENTS];
	AuthBucket total;
} AuthBudget;

void auth_budget_init(AuthBudget *b);
/* Takes one check from the client's budget and the overall one; false
 * (nothing taken) if either is spent. now_usec: a monotonic clock. */
bool auth_budget_take(AuthBudget *b, const AuthClientKey *client, uint64_t now_usec);
/* The key of a socket address (NULL or another family: all zero). */
void auth_client_key(const struct sockaddr *sa, AuthClientKey *ret);
