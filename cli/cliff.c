/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cliff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BIN 0.05	/* seconds: completions are counted in bins this wide */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

double cliff_median_lat(const IoRec *r, size_t from, size_t to)
{
	if (to <= from)
		return NAN;
	size_t n = to - from;
	float *v = malloc(n * sizeof *v);
	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		v[i] = r[from + i].lat;
	qsort(v, n, sizeof *v, cmp_float);
	double m = n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

void cliff_rules_init(CliffRules *rules, unsigned qd, double confirm)
{
	/* The daemon's defaults (detect.collapse-ratio, collapse-stall,
	 * queue-wait): a fall of 3x (aicodix's moving average: 47 MiB/s to
	 * 3-15), a wait of 100 ms, 5 ms per I/O in flight. Half a second of
	 * fast phase before writes wait (a small media cache fills in a second
	 * or two); two before a plateau, where nothing waits (a CMR disk's DRAM
	 * burst is over in a fraction of a second). A wait is on a disk that
	 * stopped for half the wait floor: the shortest rewrite in the
	 * published slow phases is ~0.3 s (RAIDIX: 3 IOPS); a virtual disk
	 * capped at 4-12 MiB/s completes a 64 KiB write every 5-16 ms. */
	*rules = (CliffRules){.confirm = confirm, .ratio = 3, .min_fast = 0.5, .min_plateau = 2, .stall = 0.1,
			      .queue_wait = 0.005, .silent_share = 0.5,
			      .qd = qd ? qd : 1};
}

/* Completions counted per bin, as prefix sums: cum[k] = completions before
 * k * BIN, for k < nb; a completion past the run's length counts in its
 * last bin, so that all n are in by nb. */
typedef struct Rate {
	uint64_t *cum;
	size_t nb;
	uint64_t n;
} Rate;

static uint64_t rate_cum(const Rate *rt, size_t k)
{
	return k >= rt->nb ? rt->n : rt->cum[k];
}

static int rate_build(const IoRec *r, size_t n, double duration, Rate *ret)
{
	size_t nb = (size_t)ceil(duration / BIN) + 1;
	uint64_t *cum = calloc(nb + 1, sizeof *cum);
	if (!cum)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double c = r[i].t + r[i].lat;
		size_t k = c <= 0 ? 0 : (size_t)(c / BIN);
		cum[(k < nb ? k : nb - 1) + 1]++;
	}
	for (size_t k = 1; k <= nb; k++)
		cum[k] += cum[k - 1];
	*ret = (Rate){.cum = cum, .nb = nb, .n = cum[nb]};
	return 0;
}

/* Completions a second over [a, b). */
static double rate_between(const Rate *rt, double a, double b)
{
	size_t ka = (size_t)fmax(a / BIN, 0), kb = (size_t)fmax(b / BIN, 0);
	ka = ka > rt->nb ? rt->nb : ka;
	kb = kb > rt->nb ? rt->nb : kb;
	return b > a && kb > ka ? (double)(rate_cum(rt, kb) - rate_cum(rt, ka)) / ((double)(kb - ka) * BIN) : 0;
}

/* A fall at t: fast for min_fast seconds before it, both on the whole and
 * in the last second (a DRAM burst at the start is not a fast phase), and
 * down by `ratio` from that for the window after and for the rest of the run. */
static bool fell_at(const Rate *rt, const CliffRules *rules, double min_fast, double t, double window,
		    double duration)
{
	if (t < min_fast || t + rules->confirm > duration)
		return false;
	double before = fmin(rate_between(rt, 0, t), rate_between(rt, t - 1, t));
	double end = fmin(t + window, duration);
	double after = rate_between(rt, t, end), rest = rate_between(rt, t, duration);
	return before > 0 && after * rules->ratio <= before && rest * rules->ratio <= before;
}

/* Whether r[i], slow enough to count, waited on a disk that stopped: no
 * completion for `silent` seconds while it was in flight. A device that
 * takes writes at a capped rate (a virtual disk once the host's cache is
 * full, an SSD past its SLC cache) makes each write wait for the queue in
 * front of it, 16 x 10 ms at queue depth 16, but completes one every
 * service time throughout; a band rewrite stops the completions for its
 * whole length, and every write in flight waits for it. Records are in
 * completion order, so the completions in its flight are the ones just
 * before it; past `steps` of them the disk plainly did not stop for long,
 * but the write still waited that long: it counts (as it did before
 * completions were looked at), so that no DM-SMR drive reordering a deep
 * queue goes unseen. */
static bool waited_on_stop(const IoRec *r, size_t i, double silent, size_t steps)
{
	double start = r[i].t, prev = r[i].t + r[i].lat;
	for (size_t j = i; j-- > 0;) {
		double c = r[j].t + r[j].lat;
		if (c <= start)
			break;
		if (prev - c >= silent)
			return true;
		prev = c;
		if (--steps == 0)
			return true;
	}
	return prev - start >= silent;
}

/* The early median's records: the first 5% of the I/Os, at least 50. */
static size_t early_count(size_t n)
{
	return n / 20 < 50 ? (n < 50 ? n : 50) : n / 20;
}

/* The floors a write's wait is judged by, from the early median. */
static void wait_floors(const CliffRules *rules, double base, CliffResult *ret)
{
	ret->stall_floor = fmax(fmax(rules->stall, rules->qd * rules->queue_wait), 10 * base);
	ret->pause_floor = rules->silent_share * ret->stall_floor;
}

static size_t wait_steps(const CliffRules *rules)
{
	return 8 * (size_t)rules->qd + 64;
}

/* The rate fell after r[i], a write that waited (a hiccup in the fast
 * phase is followed by fast writes again; the window after a wait is five
 * times its length, so that a long hiccup does not pass for a fall). */
static double wait_window(const CliffRules *rules, const IoRec *r, size_t i)
{
	return fmax(rules->confirm, 5 * (double)r[i].lat);
}

/* A plateau at bin k: the rate fell with no write waiting. */
static bool plateau_at(const Rate *rt, const CliffRules *rules, size_t k, double duration)
{
	return fell_at(rt, rules, rules->min_plateau, (double)k * BIN, rules->confirm, duration);
}

/* The window after k still held some of the fast phase: the fall is the
 * first quarter second that is itself down. */
static double plateau_start(const Rate *rt, const CliffRules *rules, size_t k)
{
	double before = rate_between(rt, 0, (double)k * BIN);
	size_t j = k;
	while (j < rt->nb && rate_between(rt, (double)j * BIN, (double)j * BIN + 0.25) * rules->ratio > before)
		j++;
	return (double)(j < rt->nb ? j : k) * BIN;
}

void cliff_find(const IoRec *r, size_t n, double duration, const CliffRules *rules, CliffResult *ret)
{
	*ret = (CliffResult){0};
	if (n == 0 || duration <= 0)
		return;
	wait_floors(rules, cliff_median_lat(r, 0, early_count(n)), ret);
	double silent = ret->pause_floor;
	size_t steps = wait_steps(rules);
	Rate rt;
	if (rate_build(r, n, duration, &rt) < 0)
		return;

	/* A media cache filling: the first write that waited, after which the
	 * rate is down. */
	for (size_t i = 0; i < n && !ret->found; i++)
		if (r[i].lat >= ret->stall_floor && waited_on_stop(r, i, silent, steps) &&
		    fell_at(&rt, rules, rules->min_fast, r[i].t, wait_window(rules, r, i), duration)) {
			ret->found = ret->fell = true;
			ret->cliff_t = r[i].t;
		}
	/* Else a plateau: the rate down with no write waiting (an SSD whose
	 * SLC cache ran out). */
	for (size_t k = (size_t)(rules->min_plateau / BIN); !ret->fell && k < rt.nb; k++)
		if (plateau_at(&rt, rules, k, duration)) {
			ret->fell = true;
			ret->cliff_t = plateau_start(&rt, rules, k);
		}
	free(rt.cum);

	double t_fast = ret->fell ? ret->cliff_t : duration;
	size_t cut = 0;
	for (size_t i = 0; i < n; i++)
		cut += r[i].t < t_fast;
	ret->fast_ios = ret->fell ? cut : n;
	ret->fast_iops = t_fast > 0 ? (double)ret->fast_ios / t_fast : 0;
	if (!ret->fell) {
		ret->fast_lat = cliff_median_lat(r, 0, n);
		return;
	}
	/* records are in completion order: split them by submit time */
	IoRec *fast = malloc((cut ? cut : 1) * sizeof *fast), *slow = malloc((n - cut ? n - cut : 1) * sizeof *slow);
	size_t nf = 0, ns = 0;
	for (size_t i = 0; fast && slow && i < n; i++) {
		if (r[i].t < t_fast) {
			fast[nf++] = r[i];
		} else {
			slow[ns++] = r[i];
			ret->stalls += r[i].lat >= ret->stall_floor && waited_on_stop(r, i, silent, steps);
			ret->slowest = fmax(ret->slowest, r[i].lat);
		}
	}
	ret->fast_lat = cliff_median_lat(fast, 0, nf);
	ret->slow_lat = cliff_median_lat(slow, 0, ns);
	ret->slow_ios = n - cut;
	ret->slow_iops = duration > ret->cliff_t ? (double)ret->slow_ios / (duration - ret->cliff_t) : 0;
	free(fast);
	free(slow);
}

/* ---------------------------------------------------------- as it runs */

/* Past this much of the run after the windows a fall compares, no
 * completion can land in them any more (a record's completion is its
 * submit time plus a float latency, off by far less). */
#define SETTLED (2 * BIN)

typedef struct Candidate {
	size_t i;		/* a write slow enough to have waited at the lowest floor */
	double silent;		/* the pause waited was judged by (NaN: not yet) */
	bool waited;
} Candidate;

struct CliffScan {
	CliffRules rules;
	size_t n;			/* records fed */
	uint64_t *cnt, *cum;		/* completions per bin; before each bin, valid to cum_ok */
	size_t n_bins, cap_cnt, cap_cum, cum_ok;
	float *lo, *hi;			/* the early latencies: max-heap of the lower half, min-heap of the upper */
	size_t n_lo, n_hi, cap_heap, early;
	Candidate *cand;		/* in record order, those that may still be the cliff */
	size_t n_cand, cap_cand;
	size_t *live;			/* plateau bins that may still be the fall, in order */
	size_t n_live, cap_live, next_bin;
};

CliffScan *cliff_scan_free(CliffScan *s)
{
	if (!s)
		return NULL;
	free(s->cnt);
	free(s->cum);
	free(s->lo);
	free(s->hi);
	free(s->cand);
	free(s->live);
	free(s);
	return NULL;
}

int cliff_scan_new(const CliffRules *rules, CliffScan **ret)
{
	CliffScan *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->rules = *rules;
	s->next_bin = (size_t)(rules->min_plateau / BIN);
	*ret = s;
	return 0;
}

/* Room for want elements in *a of *n (grown by doubling, zeroed). */
static int grow(void **a, size_t *n, size_t want, size_t size)
{
	if (want <= *n)
		return 0;
	size_t k = *n ? *n : 64;
	while (k < want)
		k *= 2;
	void *p = realloc(*a, k * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *n * size, 0, (k - *n) * size);
	*a = p;
	*n = k;
	return 0;
}

static void heap_push(float *h, size_t *n, float v, bool max)
{
	size_t i = (*n)++;
	for (; i && (max ? h[(i - 1) / 2] < v : h[(i - 1) / 2] > v); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

static float heap_pop(float *h, size_t *n, bool max)
{
	float top = h[0], v = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && (max ? h[c + 1] > h[c] : h[c + 1] < h[c]))
			c++;
		if (max ? h[c] <= v : h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

/* The early records' median, as cliff_median_lat() gives it. */
static double early_median(const CliffScan *s)
{
	size_t k = s->n_lo + s->n_hi;
	if (!k)
		return NAN;
	return k % 2 ? s->lo[0] : ((double)s->lo[0] + s->hi[0]) / 2;
}

static void early_add(CliffScan *s, float v)
{
	if (!s->n_lo || v <= s->lo[0])
		heap_push(s->lo, &s->n_lo, v, true);
	else
		heap_push(s->hi, &s->n_hi, v, false);
	if (s->n_lo > s->n_hi + 1)
		heap_push(s->hi, &s->n_hi, heap_pop(s->lo, &s->n_lo, true), false);
	else if (s->n_hi > s->n_lo)
		heap_push(s->lo, &s->n_lo, heap_pop(s->hi, &s->n_hi, false), true);
}

int cliff_scan_feed(CliffScan *s, const IoRec *r, size_t n)
{
	double floor0 = fmax(s->rules.stall, s->rules.qd * s->rules.queue_wait);
	for (; s->n < n; s->n++) {
		double c = r[s->n].t + r[s->n].lat;
		size_t k = c <= 0 ? 0 : (size_t)(c / BIN);
		if (grow((void **)&s->cnt, &s->cap_cnt, k + 1, sizeof *s->cnt) < 0)
			return -ENOMEM;
		s->n_bins = k + 1 > s->n_bins ? k + 1 : s->n_bins;
		s->cnt[k]++;
		s->cum_ok = k < s->cum_ok ? k : s->cum_ok;
		/* a write under the lowest floor never counts as waiting */
		if (r[s->n].lat >= floor0) {
			if (grow((void **)&s->cand, &s->cap_cand, s->n_cand + 1, sizeof *s->cand) < 0)
				return -ENOMEM;
			s->cand[s->n_cand++] = (Candidate){.i = s->n, .silent = NAN};
		}
	}
	/* the heaps take the early records as n grows (a 20th of it) */
	size_t early = early_count(n);
	size_t had = s->cap_heap;
	if (grow((void **)&s->lo, &s->cap_heap, early / 2 + 2, sizeof *s->lo) < 0)
		return -ENOMEM;
	if (s->cap_heap != had) {
		float *hi = realloc(s->hi, s->cap_heap * sizeof *hi);
		if (!hi)
			return -ENOMEM;
		s->hi = hi;
	}
	for (; s->early < early; s->early++)
		early_add(s, r[s->early].lat);
	return 0;
}

/* fell_at() false for good: before t, or its rates in (nothing completes
 * in its windows any more) and no fall in them, whatever comes after. */
static bool never_fell(const Rate *rt, const CliffRules *rules, double min_fast, double t, double window,
		       double duration)
{
	if (t < min_fast)
		return true;
	if (t + window + SETTLED > duration || t + rules->confirm > duration)
		return false;
	double before = fmin(rate_between(rt, 0, t), rate_between(rt, t - 1, t));
	return !(before > 0 && rate_between(rt, t, t + window) * rules->ratio <= before);
}

/* The prefix sums for a run `duration` long, from where a record last
 * landed in an earlier bin. */
static int scan_rate(CliffScan *s, double duration, Rate *ret)
{
	size_t nb = (size_t)ceil(duration / BIN) + 1;
	if (grow((void **)&s->cum, &s->cap_cum, nb + 1, sizeof *s->cum) < 0)
		return -ENOMEM;
	for (size_t k = s->cum_ok; k < nb; k++)
		s->cum[k + 1] = s->cum[k] + (k < s->n_bins ? s->cnt[k] : 0);
	s->cum_ok = nb > s->cum_ok ? nb : s->cum_ok;
	*ret = (Rate){.cum = s->cum, .nb = nb, .n = s->n};
	return 0;
}

/* The first write that waited after which the rate is down, as
 * cliff_find() goes through them; those that never can be, dropped. */
static bool scan_waits(CliffScan *s, const IoRec *r, const Rate *rt, const CliffResult *c, double duration,
		       size_t *ret_i)
{
	const CliffRules *rules = &s->rules;
	size_t kept = 0, k = 0;
	bool found = false;
	for (; k < s->n_cand && !found; k++) {
		size_t i = s->cand[k].i;
		if (never_fell(rt, rules, rules->min_fast, r[i].t, wait_window(rules, r, i), duration))
			continue;
		Candidate *x = &s->cand[kept++];
		*x = s->cand[k];
		if (r[i].lat < c->stall_floor)
			continue;
		if (x->silent != c->pause_floor) {	/* NaN the first time */
			x->waited = waited_on_stop(r, i, c->pause_floor, wait_steps(rules));
			x->silent = c->pause_floor;
		}
		found = x->waited && fell_at(rt, rules, rules->min_fast, r[i].t, wait_window(rules, r, i), duration);
		*ret_i = i;
	}
	if (k < s->n_cand)
		memmove(s->cand + kept, s->cand + k, (s->n_cand - k) * sizeof *s->cand);
	s->n_cand = kept + (s->n_cand - k);
	return found;
}

/* The first plateau bin, as cliff_find() goes through them; those that
 * never can be, dropped. 1 with *ret, 0 for none, -ENOMEM. */
static int scan_plateau(CliffScan *s, const Rate *rt, double duration, size_t *ret)
{
	for (; s->next_bin < rt->nb; s->next_bin++) {
		if (grow((void **)&s->live, &s->cap_live, s->n_live + 1, sizeof *s->live) < 0)
			return -ENOMEM;
		s->live[s->n_live++] = s->next_bin;
	}
	size_t kept = 0, k = 0;
	bool fell = false;
	for (; k < s->n_live && !fell; k++) {
		size_t b = s->live[k];
		if (never_fell(rt, &s->rules, s->rules.min_plateau, (double)b * BIN, s->rules.confirm, duration))
			continue;
		s->live[kept++] = b;
		if ((fell = plateau_at(rt, &s->rules, b, duration)))
			*ret = b;
	}
	if (k < s->n_live)
		memmove(s->live + kept, s->live + k, (s->n_live - k) * sizeof *s->live);
	s->n_live = kept + (s->n_live - k);
	return fell;
}

int cliff_scan_fall(CliffScan *s, const IoRec *r, size_t n, double duration, CliffResult *ret)
{
	*ret = (CliffResult){0};
	int k = cliff_scan_feed(s, r, n);
	if (k < 0 || n == 0 || duration <= 0)
		return k;
	wait_floors(&s->rules, early_median(s), ret);
	Rate rt;
	size_t i, b;
	if ((k = scan_rate(s, duration, &rt)) < 0)
		return k;
	if (scan_waits(s, r, &rt, ret, duration, &i)) {
		ret->found = ret->fell = true;
		ret->cliff_t = r[i].t;
		return 0;
	}
	if ((k = scan_plateau(s, &rt, duration, &b)) <= 0)
		return k;
	ret->fell = true;
	ret->cliff_t = plateau_start(&rt, &s->rules, b);
	return 0;
}
