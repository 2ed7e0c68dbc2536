/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure issue/complete pairing for the perf backend, where a request is known
 * only by (device, sector): a bounded open-addressing table of in-flight
 * issues. Events may come out of order across CPUs (a completion read before
 * its issue), a requeued request issues twice, events can be duplicated or
 * lost; each case is counted, none grows memory.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PAIRING_ORPHAN_AGE_NS (5 * UINT64_C(1000000000))

typedef struct PairStats {
	uint64_t paired;
	uint64_t reissued;	/* a second issue of an in-flight (dev, sector, op): requeue */
	uint64_t table_full;	/* issue dropped */
	uint64_t unmatched;	/* completion never paired (no issue, or a duplicate) */
	uint64_t expired;	/* issue never completed within the age limit */
} PairStats;

typedef struct PairEntry {
	uint64_t sector, issue_ns;
	uint32_t dev, bytes;
	uint8_t op, state;	/* 0 free, 1 issue waiting, 2 orphan completion waiting */
} PairEntry;

typedef struct Pairing {
	PairEntry *tab;
	uint32_t cap, used;	/* cap: a power of two */
	uint64_t max_age_ns;	/* older waiting entries are dropped as lost */
	PairStats st;
} Pairing;

typedef void (*PairFn)(uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t lat_ns,
		       uint64_t done_ns, void *userdata);

int pairing_init(Pairing *p, uint32_t cap, uint64_t max_age_ns);
void pairing_free(Pairing *p);
/* Feed events in any order; fn is called for each pair completed. */
void pairing_issue(Pairing *p, uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t ts_ns,
		   PairFn fn, void *userdata);
void pairing_complete(Pairing *p, uint32_t dev, int op, uint64_t sector, uint64_t ts_ns, PairFn fn,
		      void *userdata);
/* Drops entries older than max_age_ns before now (issues: expired; orphan
 * completions: unmatched). */
void pairing_expire(Pairing *p, uint64_t now_ns);
/* Forgets every entry of a device (it went away). */
void pairing_forget_dev(Pairing *p, uint32_t dev);
