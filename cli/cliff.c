/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cliff.h"

#include <math.h>
#include <stdlib.h>

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

/* Completions counted per bin, as prefix sums: cum[k] = completions before k * BIN. */
typedef struct Rate {
	uint64_t *cum;
	size_t nb;
} Rate;

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
	*ret = (Rate){.cum = cum, .nb = nb};
	return 0;
}

/* Completions a second over [a, b). */
static double rate_between(const Rate *rt, double a, double b)
{
	size_t ka = (size_t)fmax(a / BIN, 0), kb = (size_t)fmax(b / BIN, 0);
	ka = ka > rt->nb ? rt->nb : ka;
	kb = kb > rt->nb ? rt->nb : kb;
	return b > a && kb > ka ? (double)(rt->cum[kb] - rt->cum[ka]) / ((double)(kb - ka) * BIN) : 0;
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

void cliff_find(const IoRec *r, size_t n, double duration, const CliffRules *rules, CliffResult *ret)
{
	*ret = (CliffResult){0};
	if (n == 0 || duration <= 0)
		return;
	/* the early median: the first 5% of the I/Os, at least 50 */
	size_t early = n / 20 < 50 ? (n < 50 ? n : 50) : n / 20;
	double base = cliff_median_lat(r, 0, early);
	ret->stall_floor = fmax(fmax(rules->stall, rules->qd * rules->queue_wait), 10 * base);
	double silent = ret->pause_floor = rules->silent_share * ret->stall_floor;
	size_t steps = 8 * (size_t)rules->qd + 64;
	Rate rt;
	if (rate_build(r, n, duration, &rt) < 0)
		return;

	/* A media cache filling: the first write that waited, after which the
	 * rate is down (a hiccup in the fast phase is followed by fast writes
	 * again; the window after a wait is five times its length, so that a
	 * long hiccup does not pass for a fall). */
	for (size_t i = 0; i < n && !ret->found; i++)
		if (r[i].lat >= ret->stall_floor && waited_on_stop(r, i, silent, steps) &&
		    fell_at(&rt, rules, rules->min_fast, r[i].t, fmax(rules->confirm, 5 * (double)r[i].lat), duration)) {
			ret->found = ret->fell = true;
			ret->cliff_t = r[i].t;
		}
	/* Else a plateau: the rate down with no write waiting (an SSD whose
	 * SLC cache ran out). */
	for (size_t k = (size_t)(rules->min_plateau / BIN); !ret->fell && k < rt.nb; k++)
		if (fell_at(&rt, rules, rules->min_plateau, (double)k * BIN, rules->confirm, duration)) {
			/* the window after k still held some of the fast phase: the
			 * fall is the first quarter second that is itself down */
			double before = rate_between(&rt, 0, (double)k * BIN);
			size_t j = k;
			while (j < rt.nb && rate_between(&rt, (double)j * BIN, (double)j * BIN + 0.25) * rules->ratio > before)
				j++;
			ret->fell = true;
			ret->cliff_t = (double)(j < rt.nb ? j : k) * BIN;
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
