/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a disk's view, once per sample, and the class that the views
 * derive from it and the static verdict.
 */
#include "diskview.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "disk.h"

const struct ViewWindowInfo view_windows[_VIEW_WINDOW_MAX] = {
	[VIEW_LAST] = {"last", 1}, [VIEW_1M] = {"1m", 60}, [VIEW_10M] = {"10m", 600},
};

unsigned diskview_bands(const DiskView *v, int op, Band ret[BANDS_MAX])
{
	unsigned n = op == 0 || op == 1 ? v->n_bands[op] : 0;
	for (unsigned i = 0; i < n; i++) {
		const DetectBand *b = &v->bands[op][i];
		ret[i] = (Band){.centre = b->centre, .lo = b->lo, .hi = b->hi, .count = b->count, .share = b->share};
	}
	return n;
}

double diskview_smr_confidence(const DiskView *v, double static_confidence)
{
	return 1 - (1 - static_confidence) * (1 - v->score.score);
}

static void summarize(const Hist *h, LatSummary *ret)
{
	*ret = (LatSummary){.count = h->count, .mean = (float)hist_mean(h), .p50 = (float)hist_quantile(h, 0.5),
			    .p90 = (float)hist_quantile(h, 0.9), .p99 = (float)hist_quantile(h, 0.99),
			    .p999 = (float)hist_quantile(h, 0.999), .max = (float)hist_max(h)};
}

/* The longer windows change only with new I/O or when a slot is completed:
 * an idle op is summed once per slot, not once per sample. */
static void fill_op(OpView *v, const OpLatency *o)
{
	if (!o) {
		*v = (OpView){0};
		for (int w = 0; w < _VIEW_WINDOW_MAX; w++)
			summarize(&(Hist){0}, &v->win[w]);
		return;
	}
	v->traced = true;
	v->total = o->total.count;
	v->slow = o->slow;
	v->slow_max = (float)o->slow_max;
	summarize(&o->window.last_second, &v->win[VIEW_LAST]);
	uint32_t slot = o->window.head << 16 | o->window.used;
	if (v->seen_total == o->total.count && v->seen_slot == slot && v->win[VIEW_1M].count)
		return;
	v->seen_total = o->total.count;
	v->seen_slot = slot;
	for (int w = VIEW_1M; w < _VIEW_WINDOW_MAX; w++) {
		Hist h;
		lat_window_sum(&o->window, view_windows[w].seconds, &h);
		summarize(&h, &v->win[w]);
	}
}

static double realtime_of(double mono, const DiskViewClock *c) { return c->real - (c->mono - mono); }

static void fill_detection(DiskView *v, const DiskDetect *t, const DetectParams *p, const DiskViewClock *c)
{
	v->detecting = true;
	v->storm = t->storm.active;
	v->idle = t->idle.active;
	v->storm_since = v->storm ? realtime_of(t->storm.start, c) : NAN;
	v->idle_since = v->idle ? realtime_of(t->idle.start, c) : NAN;
	v->behaviour = t->ev.behaviour;
	v->score = t->score;
	v->behaviour_confidence = (float)fmax(t->score.score, p->behaviour_score);
	v->score_held = t->score.held;
	v->storms = t->storm.count;
	v->storms_known = t->storm.known;
	v->fast_iops = (float)t->fast.iops;
	v->fast_latency = (float)t->fast.latency;
	v->storm_iops = (float)t->storm.iops;
	v->storm_latency = (float)t->storm.latency;
	for (int op = 0; op < TRACE_OPS; op++)
		v->stalls[op] = t->stalls.count[op];
	v->stall_max = (float)t->stalls.max;
	v->slowest_recent = (float)detect_slowest_recent(t, c->mono);
	v->probes = t->idle.probes;
	v->probe_max = (float)t->idle.probe_max;
	v->cache = t->cache.model;
	v->cache_fill = (float)cache_fill_ratio(&t->cache);
	v->cache_sure = t->cache.sure;
	v->fill_rate = (float)detect_fill_rate(t, p, c->mono);
	v->forecast = (float)t->forecast;
	for (int op = 0; op < 2; op++) {
		v->n_bands[op] = (uint8_t)t->bands.n[op];
		for (unsigned b = 0; b < t->bands.n[op]; b++)
			v->bands[op][b] = t->bands.found[op][b];
	}
}

void diskview_init(DiskView *v)
{
	*v = (DiskView){.storm_since = NAN, .idle_since = NAN, .cache_fill = NAN, .forecast = NAN,
			.rates = {.read_latency = NAN, .write_latency = NAN}};
	disk_model_init(&v->cache);
	for (int op = 0; op < TRACE_OPS; op++)
		for (int w = 0; w < _VIEW_WINDOW_MAX; w++)
			summarize(&(Hist){0}, &v->op[op].win[w]);
}

void diskview_update(Disk *d, const DetectParams *p, const DiskViewClock *c)
{
	DiskView *v = &d->view;
	OpView ops[TRACE_OPS];
	memcpy(ops, v->op, sizeof ops);
	diskview_init(v);
	v->sample = c->sample;
	memcpy(v->op, ops, sizeof ops);
	if (d->det_ready)
		fill_detection(v, &d->det, p, c);
	disk_rates(d, &v->rates);
	for (int op = 0; op < TRACE_OPS; op++)
		fill_op(&v->op[op], d->lat ? d->lat->op[op] : NULL);
}
