/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pairing.h"

#include <errno.h>
#include <stdlib.h>

enum { FREE, ISSUED, ORPHAN };

int pairing_init(Pairing *p, uint32_t cap, uint64_t max_age_ns)
{
	uint32_t c = 16;
	while (c < cap && c < (1u << 24))
		c <<= 1;
	*p = (Pairing){.cap = c, .max_age_ns = max_age_ns};
	p->tab = calloc(c, sizeof *p->tab);
	return p->tab ? 0 : -ENOMEM;
}

void pairing_free(Pairing *p)
{
	free(p->tab);
	p->tab = NULL;
}

static uint32_t slot_of(const Pairing *p, uint32_t dev, uint64_t sector, int op)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 32) ^ (uint64_t)op) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 40) & (p->cap - 1);
}

static bool same(const PairEntry *e, uint32_t dev, uint64_t sector, int op)
{
	return e->dev == dev && e->sector == sector && e->op == (uint8_t)op;
}

/* Finds an entry of the key in the given state; linear probing, bounded by
 * the first free slot. */
static PairEntry *find(Pairing *p, uint32_t dev, uint64_t sector, int op, uint8_t state)
{
	for (uint32_t i = slot_of(p, dev, sector, op), n = 0; n < p->cap; i = (i + 1) & (p->cap - 1), n++) {
		PairEntry *e = &p->tab[i];
		if (e->state == FREE)
			return NULL;
		if (e->state == state && same(e, dev, sector, op))
			return e;
	}
	return NULL;
}

/* Removing from a linear-probing table: shift later members of the cluster
 * back so that lookups still stop at the first free slot. */
static void erase(Pairing *p, PairEntry *e)
{
	uint32_t i = (uint32_t)(e - p->tab);
	p->tab[i].state = FREE;
	p->used--;
	for (uint32_t j = (i + 1) & (p->cap - 1); p->tab[j].state != FREE; j = (j + 1) & (p->cap - 1)) {
		PairEntry moved = p->tab[j];
		uint32_t home = slot_of(p, moved.dev, moved.sector, moved.op);
		/* moved may go to i when i lies cyclically in [home, j). */
		bool fits = i <= j ? (home <= i || home > j) : (home <= i && home > j);
		if (fits) {
			p->tab[i] = moved;
			p->tab[j].state = FREE;
			i = j;
		}
	}
}

static PairEntry *insert(Pairing *p, uint32_t dev, int op, uint64_t sector)
{
	if (p->used >= p->cap - p->cap / 8)	/* keep probe chains short */
		return NULL;
	uint32_t i = slot_of(p, dev, sector, op);
	while (p->tab[i].state != FREE)
		i = (i + 1) & (p->cap - 1);
	p->used++;
	p->tab[i] = (PairEntry){.dev = dev, .sector = sector, .op = (uint8_t)op};
	return &p->tab[i];
}

void pairing_issue(Pairing *p, uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t ts_ns,
		   PairFn fn, void *userdata)
{
	/* Its completion may already be here (read from another CPU's ring first). */
	PairEntry *o = find(p, dev, sector, op, ORPHAN);
	if (o && o->issue_ns >= ts_ns) {
		uint64_t done = o->issue_ns;
		erase(p, o);
		p->st.paired++;
		fn(dev, op, sector, bytes, done - ts_ns, done, userdata);
		return;
	}
	PairEntry *e = find(p, dev, sector, op, ISSUED);
	if (e) {
		/* Requeued: the latency counts from the latest issue. */
		p->st.reissued++;
		if (ts_ns > e->issue_ns)
			e->issue_ns = ts_ns;
		e->bytes = bytes;
		return;
	}
	e = insert(p, dev, op, sector);
	if (!e) {
		p->st.table_full++;
		return;
	}
	e->state = ISSUED;
	e->issue_ns = ts_ns;
	e->bytes = bytes;
}

void pairing_complete(Pairing *p, uint32_t dev, int op, uint64_t sector, uint64_t ts_ns, PairFn fn,
		      void *userdata)
{
	PairEntry *e = find(p, dev, sector, op, ISSUED);
	if (e && e->issue_ns <= ts_ns) {
		uint64_t issue = e->issue_ns;
		uint32_t bytes = e->bytes;
		erase(p, e);
		p->st.paired++;
		fn(dev, op, sector, bytes, ts_ns - issue, ts_ns, userdata);
		return;
	}
	/* Keep it briefly: its issue may still be in another CPU's ring. A
	 * duplicated completion ends up here too, and expires as unmatched. */
	if (find(p, dev, sector, op, ORPHAN)) {
		p->st.unmatched++;
		return;
	}
	PairEntry *o = insert(p, dev, op, sector);
	if (!o) {
		p->st.unmatched++;
		return;
	}
	o->state = ORPHAN;
	o->issue_ns = ts_ns;	/* for an orphan: when it completed */
}

static void drop_if(Pairing *p, bool (*pred)(const PairEntry *, const void *), const void *arg)
{
	/* Erasing shifts entries backwards, so rescan a slot after each erase. */
	for (uint32_t i = 0; i < p->cap;) {
		PairEntry *e = &p->tab[i];
		if (e->state != FREE && pred(e, arg)) {
			if (e->state == ISSUED)
				p->st.expired++;
			else
				p->st.unmatched++;
			erase(p, e);
			continue;
		}
		i++;
	}
}

typedef struct { uint64_t now, max_age, orphan_age; } AgeArg;

static bool too_old(const PairEntry *e, const void *arg)
{
	const AgeArg *a = arg;
	return e->issue_ns + (e->state == ORPHAN ? a->orphan_age : a->max_age) < a->now;
}

void pairing_expire(Pairing *p, uint64_t now_ns)
{
	/* An orphan completion only waits for an issue still in another CPU's
	 * ring: seconds at most, unlike an issue that may wait minutes. */
	AgeArg a = {now_ns, p->max_age_ns, p->max_age_ns < PAIRING_ORPHAN_AGE_NS ? p->max_age_ns : PAIRING_ORPHAN_AGE_NS};
	drop_if(p, too_old, &a);
}

static bool of_dev(const PairEntry *e, const void *arg) { return e->dev == *(const uint32_t *)arg; }

void pairing_forget_dev(Pairing *p, uint32_t dev)
{
	uint64_t exp = p->st.expired, unm = p->st.unmatched;
	drop_if(p, of_dev, &dev);
	p->st.expired = exp;	/* a vanished disk's in-flight I/O is not a tracer loss */
	p->st.unmatched = unm;
}
