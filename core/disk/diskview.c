/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a disk's view, once per sample, and the latency summaries that
 * are summed on their first read in a sample.
 */
#include "diskview.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"

const struct ViewWindowInfo view_windows[_VIEW_WINDOW_MAX] = {
	[VIEW_LAST] = {"last", 1}, [VIEW_1M] = {"1m", 60}, [VIEW_10M] = {"10m", 600},
};

static const char *const severity_names[_DISK_SEVERITY_MAX] = {
	[DISK_SEVERITY_OK] = "ok", [DISK_SEVERITY_SUSPECT] = "suspect", [DISK_SEVERITY_IDLE_CLEANING] = "idle-cleaning",
	[DISK_SEVERITY_STALLS] = "stalls", [DISK_SEVERITY_STORM] = "storm", [DISK_SEVERITY_IMMINENT] = "stall-imminent",
};

const char *diskview_severity_to_string(DiskSeverity s)
{
	return s >= 0 && s < _DISK_SEVERITY_MAX ? severity_names[s] : NULL;
}

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

static const LatSummary *latency(Disk *d, int op, ViewWindow w, Hist *ret)
{
	static const LatSummary none = {.mean = NAN, .p50 = NAN, .p90 = NAN, .p99 = NAN, .p999 = NAN, .max = NAN};
	if (op < 0 || op >= TRACE_OPS || w < 0 || w >= _VIEW_WINDOW_MAX) {
		if (ret)
			*ret = (Hist){0};
		return &none;
	}
	const OpLatency *o = d->lat ? d->lat->op[op] : NULL;
	ViewLatency *k = d->view.lat;
	if (o && !k)
		k = d->view.lat = calloc(1, sizeof *k);
	if (!o || !k) {	/* never traced: nothing to sum */
		if (ret)
			*ret = (Hist){0};
		return &none;
	}
	bool stale = k->summed[op][w] != d->view.sample + 1;
	if (!stale && !ret)
		return &k->win[op][w];
	Hist h = {0};
	const Hist *from = &h;
	if (w == VIEW_LAST)
		from = &o->window.last_second;
	else
		lat_window_sum(&o->window, view_windows[w].seconds, &h);
	if (ret)
		*ret = *from;
	if (stale) {
		summarize(from, &k->win[op][w]);
		k->summed[op][w] = d->view.sample + 1;
	}
	return &k->win[op][w];
}

const LatSummary *diskview_latency(Disk *d, int op, ViewWindow w) { return latency(d, op, w, NULL); }

const LatSummary *diskview_latency_hist(Disk *d, int op, ViewWindow w, Hist *ret) { return latency(d, op, w, ret); }

/* The counts only: the percentiles wait for a reader (diskview_latency). */
static void fill_op(OpView *v, const OpLatency *o)
{
	v->traced = o != NULL;
	v->total = o ? o->total.count : 0;
	v->slow = o ? o->slow : 0;
	v->slow_max = o ? o->slow_max : 0;
}

static double realtime_of(double mono, const DiskViewClock *c) { return c->real - (c->mono - mono); }

static const DiskViewCurve no_curve = {.budget = {.worst = -1, .at_hour = -1, .window = -1}};

const DiskViewCurve *diskview_curve(const DiskView *v) { return v->curve ? v->curve : &no_curve; }

DiskViewCurve *diskview_curve_mut(DiskView *v)
{
	if (!v->curve && (v->curve = malloc(sizeof *v->curve)))
		*v->curve = no_curve;
	return v->curve;
}

/* The curve's points and the budget's day, for a disk whose detector has
 * points; no block for one without (a CMR disk, an SSD, an SMR disk that
 * never rested after a storm). Out of memory: shown as none. */
static void fill_curve(DiskView *v, const DiskDetect *t)
{
	const CacheTrack *c = &t->cache;
	DiskViewCurve *k;
	if (!c->n_points || !(k = diskview_curve_mut(v))) {
		free(v->curve);
		v->curve = NULL;
		return;
	}
	k->n_points = c->n_points;
	memcpy(k->points, c->points, c->n_points * sizeof *k->points);
	/* no budget without a curve fitted on a known cache */
	if (t->budget && idle_fit_known(&c->model.curve) && disk_model_known(&c->model))
		idle_budget_day(t->budget, &(BudgetDisk){.curve = &c->model.curve, .cache = c->model.media_cache_bytes},
				&k->budget);
	else
		k->budget = no_curve.budget;
}

static void fill_detection(DiskView *v, const DiskDetect *t, const DetectParams *p, const DiskViewClock *c)
{
	v->storm = t->storm.active;
	v->idle = t->idle.active;
	v->storm_since = v->storm ? realtime_of(t->storm.start, c) : NAN;
	v->idle_since = v->idle ? realtime_of(t->idle.start, c) : NAN;
	v->behaviour = t->ev.behaviour;
	v->score = t->score;
	v->behaviour_confidence = (float)fmax(t->score.score, p->behaviour_score);
	v->storms = t->storm.count;
	v->storms_known = t->storm.known;
	v->fast_iops = (float)t->fast.iops;
	v->fast_latency = (float)t->fast.latency;
	v->storm_iops = (float)t->storm.iops;
	v->storm_latency = (float)t->storm.latency;
	for (int op = 0; op < TRACE_OPS; op++)
		v->stalls[op] = t->stalls.count[op];
	v->stalls_hour = detect_stalls_hour(t, c->mono);
	v->stall_max = (float)t->stalls.max;
	v->slowest_recent = (float)detect_slowest_recent(t, c->mono);
	v->probes = t->idle.probes;
	v->probe_max = (float)t->idle.probe_max;
	v->cache = t->cache.model;
	fill_curve(v, t);
	v->cache_fill = (float)cache_fill_ratio(&t->cache);
	v->cache_sure = t->cache.sure;
	v->fill_rate = (float)detect_fill_rate(t, p, c->mono);
	v->forecast = (float)t->forecast;
	v->imminent = t->imminent;
	for (int op = 0; op < 2; op++) {
		v->n_bands[op] = (uint8_t)t->bands.n[op];
		for (unsigned b = 0; b < t->bands.n[op]; b++)
			v->bands[op][b] = t->bands.found[op][b];
	}
}

void diskview_pool(Disk *d)
{
	/* most disks are in no pool: nothing kept for them */
	char buf[DISKVIEW_POOL_MAX];
	size_t o = 0, n = sizeof buf;
	buf[0] = 0;
	for (unsigned i = 0; i < d->n_members && o + 1 < n; i++) {
		int k = snprintf(buf + o, n - o, "%s%s:%s", i ? " " : "", member_type_to_string(d->members[i].type),
				 d->members[i].name);
		if (k < 0)
			break;
		o += (size_t)k;
	}
	free(d->view.pool);
	d->view.pool = buf[0] ? strdup(buf) : NULL;	/* out of memory: shown as none */
}

const char *diskview_pool_str(const DiskView *v) { return v->pool ? v->pool : ""; }

static DiskSeverity severity_of(const DiskView *v)
{
	return v->imminent ? DISK_SEVERITY_IMMINENT : v->storm ? DISK_SEVERITY_STORM
	     : v->stalls_hour ? DISK_SEVERITY_STALLS : v->idle ? DISK_SEVERITY_IDLE_CLEANING
	     : v->suspect ? DISK_SEVERITY_SUSPECT : DISK_SEVERITY_OK;
}

void diskview_init(DiskView *v)
{
	*v = (DiskView){.storm_since = NAN, .idle_since = NAN, .cache_fill = NAN, .forecast = NAN,
			.rates = {.read_latency = NAN, .write_latency = NAN}};
	disk_model_init(&v->cache);
}

void diskview_update(Disk *d, const DetectParams *p, const DiskViewClock *c)
{
	DiskView *v = &d->view;
	if (d->det_ready)
		fill_detection(v, &d->det, p, c);	/* every detection figure, every sample */
	else {
		/* no detector yet: its figures are unknown; the latency
		 * summaries (stamped with their sample) and the pool stay */
		DiskView keep = *v;
		diskview_init(v);
		memcpy(v->op, keep.op, sizeof v->op);
		v->lat = keep.lat;
		v->pool = keep.pool;
		free(keep.curve);
	}
	v->sample = c->sample;
	disk_rates(d, &v->rates);
	for (int op = 0; op < TRACE_OPS; op++)
		fill_op(&v->op[op], d->lat ? d->lat->op[op] : NULL);
	diskview_derive(d, p);
}

void diskview_derive(Disk *d, const DetectParams *p)
{
	DiskView *v = &d->view;
	v->stall_threshold = disk_stall_threshold(d, p);
	v->suspect = diskview_smr_confidence(v, d->verdict.smr_confidence) >= SMR_CONF_TRIM_HINT;
	v->severity = severity_of(v);
}
