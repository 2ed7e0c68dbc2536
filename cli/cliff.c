/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cliff.h"

#include <math.h>
#include <stdlib.h>

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

void cliff_find(const IoRec *r, size_t n, double duration, double confirm, CliffResult *ret)
{
	*ret = (CliffResult){0};
	if (n == 0 || duration <= 0)
		return;
	/* the early median: the first 5% of the I/Os, at least 50 */
	size_t early = n / 20 < 50 ? (n < 50 ? n : 50) : n / 20;
	double base = cliff_median_lat(r, 0, early);
	double slow = fmax(10 * base, 0.05);
	size_t j = 0;	/* first I/O submitted at or after r[i].t + confirm */
	for (size_t i = 0; i < n; i++) {
		if (r[i].lat < slow || r[i].t + confirm > duration)
			continue;
		double fast_iops = r[i].t > 0 ? (double)i / r[i].t : 0;
		if (j < i)
			j = i;
		while (j < n && r[j].t < r[i].t + confirm)
			j++;
		size_t in = j - i, slow_n = 0;
		for (size_t k = i; k < j; k++)
			slow_n += r[k].lat >= slow;
		if ((double)in / confirm * 10 <= fast_iops && slow_n * 2 >= in) {
			ret->found = true;
			ret->cliff_t = r[i].t;
			ret->fast_ios = i;
			ret->slow_ios = n - i;
			break;
		}
	}
	size_t cut = ret->found ? ret->fast_ios : n;
	double t_fast = ret->found ? ret->cliff_t : duration;
	ret->fast_iops = t_fast > 0 ? (double)cut / t_fast : 0;
	ret->fast_lat = cliff_median_lat(r, 0, cut);
	if (ret->found) {
		ret->slow_iops = (double)(n - cut) / (duration - ret->cliff_t);
		ret->slow_lat = cliff_median_lat(r, cut, n);
	} else {
		ret->fast_ios = n;
	}
}
