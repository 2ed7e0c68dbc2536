/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "hist.h"

#include <math.h>

const uint64_t hist_le_ns[HIST_LE] = HIST_LE_NS_INIT;

void hist_add(Hist *h, uint64_t lat_ns)
{
	unsigned i = 0;
	h->bucket[hist_bucket(lat_ns / 1000)]++;
	while (i < HIST_LE && lat_ns > hist_le_ns[i])
		i++;
	h->le[i]++;
	h->count++;
	h->sum_ns += lat_ns;
}

void hist_merge(Hist *into, const Hist *h)
{
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		into->bucket[b] += h->bucket[b];
	for (unsigned i = 0; i <= HIST_LE; i++)
		into->le[i] += h->le[i];
	into->count += h->count;
	into->sum_ns += h->sum_ns;
}

bool hist_delta(Hist *into, const Hist *a, const Hist *b)
{
	bool ok = a->count >= b->count && a->sum_ns >= b->sum_ns;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		ok = ok && a->bucket[i] >= b->bucket[i];
		into->bucket[i] = a->bucket[i] >= b->bucket[i] ? a->bucket[i] - b->bucket[i] : 0;
	}
	for (unsigned i = 0; i <= HIST_LE; i++) {
		ok = ok && a->le[i] >= b->le[i];
		into->le[i] = a->le[i] >= b->le[i] ? a->le[i] - b->le[i] : 0;
	}
	into->count = a->count >= b->count ? a->count - b->count : 0;
	into->sum_ns = a->sum_ns >= b->sum_ns ? a->sum_ns - b->sum_ns : 0;
	return ok;
}

void hist_bucket_bounds(unsigned b, double *lo, double *hi)
{
	double l, h;
	if (b < HIST_SUB) {
		l = b;
		h = b + 1;
	} else {
		unsigned e = (b - HIST_SUB) / HIST_SUB + HIST_SUB_BITS, sub = (b - HIST_SUB) % HIST_SUB;
		l = (double)((uint64_t)(HIST_SUB + sub) << (e - HIST_SUB_BITS));
		h = (double)((uint64_t)(HIST_SUB + sub + 1) << (e - HIST_SUB_BITS));
	}
	*lo = l / 1e6;
	*hi = b == HIST_BUCKETS - 1 ? INFINITY : h / 1e6;
}

double hist_quantile(const Hist *h, double q)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += h->bucket[b];
	if (!total)
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	/* The rank of the q-quantile among total observations, 1-based. */
	double rank = q * (double)total, seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		if (seen + (double)h->bucket[b] >= rank) {
			double lo, hi;
			hist_bucket_bounds(b, &lo, &hi);
			if (isinf(hi))
				return lo;
			/* Spread the bucket's observations evenly across it. */
			return lo + (hi - lo) * (rank - seen) / (double)h->bucket[b];
		}
		seen += (double)h->bucket[b];
	}
	return NAN;
}

double hist_max(const Hist *h)
{
	for (unsigned b = HIST_BUCKETS; b-- > 0;)
		if (h->bucket[b]) {
			double lo, hi;
			hist_bucket_bounds(b, &lo, &hi);
			return isinf(hi) ? lo : hi;
		}
	return NAN;
}

double hist_mean(const Hist *h)
{
	return h->count ? (double)h->sum_ns / 1e9 / (double)h->count : NAN;
}

static void sparse_free(SparseHist *s)
{
	free(s->idx);
	free(s->cnt);
	*s = (SparseHist){0};
}

static int sparse_from(SparseHist *s, const Hist *h)
{
	unsigned n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		n += h->bucket[b] > 0;
	SparseHist t = {.n = (uint16_t)n, .count = h->count, .sum_ns = h->sum_ns};
	if (n) {
		t.idx = malloc(n * sizeof *t.idx);
		t.cnt = malloc(n * sizeof *t.cnt);
		if (!t.idx || !t.cnt) {
			sparse_free(&t);
			return -ENOMEM;
		}
		for (unsigned b = 0, k = 0; b < HIST_BUCKETS; b++)
			if (h->bucket[b]) {
				t.idx[k] = (uint16_t)b;
				t.cnt[k++] = h->bucket[b];
			}
	}
	sparse_free(s);
	*s = t;
	return 0;
}

static void sparse_merge(Hist *into, const SparseHist *s)
{
	for (unsigned k = 0; k < s->n; k++)
		into->bucket[s->idx[k]] += s->cnt[k];
	into->count += s->count;
	into->sum_ns += s->sum_ns;
}

void lat_window_init(LatWindow *w) { *w = (LatWindow){0}; }

void lat_window_free(LatWindow *w)
{
	for (unsigned i = 0; i < WINDOW_SLOTS; i++)
		sparse_free(&w->slots[i]);
	lat_window_init(w);
}

int lat_window_push(LatWindow *w, const Hist *delta, double dt)
{
	w->last_second = *delta;
	hist_merge(&w->current, delta);
	w->current_seconds += dt;
	if (w->current_seconds < WINDOW_SLOT_SECONDS)
		return 0;
	unsigned slot = (w->head + WINDOW_SLOTS - 1) % WINDOW_SLOTS;
	int r = sparse_from(&w->slots[slot], &w->current);
	if (r < 0)
		return r;	/* keep filling the current slot; try again next interval */
	w->head = slot;
	if (w->used < WINDOW_SLOTS)
		w->used++;
	w->current = (Hist){0};
	w->current_seconds = 0;
	return 0;
}

void lat_window_sum(const LatWindow *w, double seconds, Hist *ret)
{
	*ret = (Hist){0};
	if (seconds <= 1) {
		*ret = w->last_second;
		return;
	}
	hist_merge(ret, &w->current);
	double covered = w->current_seconds;
	for (unsigned k = 0; k < w->used && covered + WINDOW_SLOT_SECONDS / 2.0 < seconds; k++) {
		sparse_merge(ret, &w->slots[(w->head + k) % WINDOW_SLOTS]);
		covered += WINDOW_SLOT_SECONDS;
	}
}

bool lat_window_slot(const LatWindow *w, unsigned age, Hist *ret, double *ret_seconds)
{
	*ret = (Hist){0};
	if (age == 0) {
		*ret = w->current;
		*ret_seconds = w->current_seconds;
		return true;
	}
	if (age > w->used)
		return false;
	sparse_merge(ret, &w->slots[(w->head + age - 1) % WINDOW_SLOTS]);
	*ret_seconds = WINDOW_SLOT_SECONDS;
	return true;
}

uint64_t hist_count_under(const Hist *h, double seconds)
{
	uint64_t n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		double lo, hi;
		hist_bucket_bounds(b, &lo, &hi);
		if (hi > seconds)
			break;
		n += h->bucket[b];
	}
	return n;
}

uint64_t hist_count_over(const Hist *h, double seconds)
{
	uint64_t n = 0;
	for (unsigned b = HIST_BUCKETS; b-- > 0;) {
		double lo, hi;
		hist_bucket_bounds(b, &lo, &hi);
		if (lo < seconds)
			break;
		n += h->bucket[b];
	}
	return n;
}
