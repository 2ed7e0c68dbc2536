/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Modes by density, smoothing and valley depth. The buckets are log-linear
 * (four per power of two), so their widths on a log scale differ by up to
 * 1.7x: counts are divided by that width first, or a flat distribution
 * would show a sawtooth of false peaks. A [1 4 6 4 1] kernel then spans
 * about an octave, which merges sampling noise but keeps modes that are
 * several octaves apart (8 ms and 300 ms are five).
 */
#include "bands.h"

#include <math.h>
#include <string.h>

static double log_width(unsigned b)
{
	double lo, hi;
	hist_bucket_bounds(b, &lo, &hi);
	if (lo <= 0 || isinf(hi))
		return M_LN2;	/* the first and the overflow bucket: call it an octave */
	return log(hi / lo);
}

/* The q-quantile of the counts in buckets [from, to], interpolated. */
static double region_quantile(const Hist *h, unsigned from, unsigned to, uint64_t total, double q)
{
	double rank = q * (double)total, seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = from; b <= to; b++) {
		if (!h->bucket[b])
			continue;
		double lo, hi;
		hist_bucket_bounds(b, &lo, &hi);
		if (seen + (double)h->bucket[b] >= rank) {
			if (isinf(hi))
				return lo;
			if (lo <= 0)
				lo = hi / 2;
			/* geometric interpolation: the axis the bands live on */
			double f = (rank - seen) / (double)h->bucket[b];
			return lo * pow(hi / lo, f);
		}
		seen += (double)h->bucket[b];
	}
	return NAN;
}

unsigned bands_find(const Hist *h, const BandRules *rules, Band out[BANDS_MAX])
{
	enum { N = HIST_BUCKETS };
	double dens[N], sm[N];
	uint64_t total = 0;

	for (unsigned b = 0; b < N; b++) {
		total += h->bucket[b];
		dens[b] = (double)h->bucket[b] / log_width(b);
	}
	if (!total)
		return 0;
	static const double k[5] = {1, 4, 6, 4, 1};
	for (int b = 0; b < N; b++) {
		double s = 0, w = 0;
		for (int j = -2; j <= 2; j++)
			if (b + j >= 0 && b + j < N) {
				s += k[j + 2] * dens[b + j];
				w += k[j + 2];
			}
		sm[b] = s / w;
	}

	/* Local maxima; a plateau counts once, at its left end. */
	unsigned peaks[N], np = 0;
	for (unsigned b = 0; b < N; b++) {
		double l = b ? sm[b - 1] : 0, r = b + 1 < N ? sm[b + 1] : 0;
		if (sm[b] > 0 && sm[b] > l && sm[b] >= r)
			peaks[np++] = b;
	}

	/* Merge neighbours whose valley is shallow, keeping the taller peak,
	 * until every remaining pair is separated by a deep valley. */
	for (bool merged = true; merged && np > 1;) {
		merged = false;
		double best = -1;
		unsigned at = 0;
		for (unsigned i = 0; i + 1 < np; i++) {
			double v = sm[peaks[i]];
			for (unsigned b = peaks[i]; b <= peaks[i + 1]; b++)
				v = fmin(v, sm[b]);
			double depth = v / fmin(sm[peaks[i]], sm[peaks[i + 1]]);
			if (depth > rules->valley && depth > best) {
				best = depth;
				at = i;
			}
		}
		if (best >= 0) {
			unsigned drop = sm[peaks[at]] >= sm[peaks[at + 1]] ? at + 1 : at;
			memmove(&peaks[drop], &peaks[drop + 1], (np - drop - 1) * sizeof *peaks);
			np--;
			merged = true;
		}
	}

	/* Each peak owns the buckets up to the valley floor on either side. */
	unsigned n = 0, from = 0;
	for (unsigned i = 0; i < np; i++) {
		unsigned to = N - 1;
		if (i + 1 < np) {
			to = peaks[i];
			for (unsigned b = peaks[i]; b <= peaks[i + 1]; b++)
				if (sm[b] < sm[to])
					to = b;
		}
		uint64_t count = 0;
		for (unsigned b = from; b <= to; b++)
			count += h->bucket[b];
		double share = (double)count / (double)total;
		if (count > 0 && (double)count >= rules->min_count && share >= rules->min_share && n < BANDS_MAX) {
			Band *o = &out[n++];
			double lo, hi, lo2, hi2;
			hist_bucket_bounds(from, &lo, &hi);
			hist_bucket_bounds(to, &lo2, &hi2);
			*o = (Band){.centre = region_quantile(h, from, to, count, 0.5), .lo = lo, .hi = hi2,
				    .count = count, .share = share};
		}
		from = to + 1;
	}
	return n;
}
