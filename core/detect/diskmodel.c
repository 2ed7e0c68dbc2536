/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The media cache's physics, as the primer has them: a drive-managed SMR
 * disk takes a roughly fixed number of bytes of random writes into its
 * media cache (20-32 GiB on the ST8000AS0002), cleans it band by band while
 * the host leaves it alone, and makes writes wait once it is full. What
 * smrd counts is what the host sent: small writes fill it; writes of
 * seq_size or more on average are a sequential stream, which these disks
 * send straight to the bands.
 */
#include "diskmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* later figures weigh as much as this many earlier ones: a drive's cache
 * changes with its firmware's mood, an estimate must follow it */
#define MODEL_MEMORY 7
/* a refill this share of the cache or more: the idle time cleaned it all */
#define FULL_REFILL 0.85
/* an anchor is sure again after an idle this many times the time needed
 * to clean the whole cache at the learnt rate */
#define CLEAN_MARGIN 1.5
#define MIN_FILL (1024.0 * 1024)	/* less is no fill to learn from */
/* a write that waits with the cache this full (by the estimate) is its cliff */
#define SOFT_CLIFF 0.7

void disk_model_init(DiskModel *m)
{
	*m = (DiskModel){.media_cache_bytes = NAN, .slow_write_bps = NAN, .rewrite_seconds = NAN,
			 .idle_recovery_bps = NAN, .recovery_rest = NAN};
}

bool disk_model_known(const DiskModel *m) { return isfinite(m->media_cache_bytes) && m->media_cache_bytes > 0; }

static double blend(double old, unsigned n, double x)
{
	unsigned w = n < MODEL_MEMORY ? n : MODEL_MEMORY;
	return isfinite(old) && n ? (old * w + x) / (w + 1) : x;
}

void disk_model_add_cache(DiskModel *m, double bytes, bool from_clean)
{
	if (!(bytes > 0))
		return;
	if (!from_clean) {
		/* only ever raises, and only an estimate no clean fill backs */
		if (!disk_model_known(m) || (m->cache_lower_bound && bytes > m->media_cache_bytes)) {
			m->media_cache_bytes = bytes;
			m->cache_lower_bound = true;
		}
		return;
	}
	if (m->cache_lower_bound) {
		m->cache_samples = 0;
		m->cache_lower_bound = false;
		m->cache_spread = 0;
	}
	m->media_cache_bytes = blend(m->media_cache_bytes, m->cache_samples, bytes);
	m->cache_samples++;
	double dev = fabs(bytes - m->media_cache_bytes) / m->media_cache_bytes;
	m->cache_spread = m->cache_samples == 1 ? 0 : fmax(m->cache_spread, dev);
}

void disk_model_add_recovery(DiskModel *m, double bps)
{
	if (!(bps > 0) || !isfinite(bps))
		return;
	m->idle_recovery_bps = blend(m->idle_recovery_bps, m->recovery_samples, bps);
	m->recovery_samples++;
}

double disk_model_write_seconds(const DiskModel *m, double bytes, double fast_bps)
{
	if (!disk_model_known(m) || !(fast_bps > 0))
		return NAN;
	double fast = fmin(bytes, m->media_cache_bytes), rest = bytes - fast;
	double t = fast / fast_bps;
	if (rest <= 0)
		return t;
	return m->slow_write_bps > 0 ? t + rest / m->slow_write_bps : NAN;
}

/* ------------------------------------------------------------- tracking */

void cache_init(CacheTrack *c)
{
	*c = (CacheTrack){.from_start = true, .last_write = -INFINITY, .run_start = -INFINITY, .io_end = NAN,
			  .quiet_from = NAN, .point_rest = NAN};
	disk_model_init(&c->model);
}

void cache_done(CacheTrack *c)
{
	free(c->points);
	c->points = NULL;
	c->n_points = 0;
}

void cache_seed(CacheTrack *c, double bytes)
{
	if (bytes > 0)
		disk_model_add_cache(&c->model, bytes, true);
}

void cache_restore(CacheTrack *c, const DiskModel *m)
{
	IdleFit curve = c->model.curve;
	double rate = c->model.idle_recovery_bps, rest = c->model.recovery_rest;
	unsigned points = c->model.recovery_samples;
	c->model = *m;
	if (c->n_points) {	/* the curve's points, restored before it, stay its own */
		c->model.curve = curve;
		c->model.idle_recovery_bps = rate, c->model.recovery_rest = rest, c->model.recovery_samples = points;
	}
	/* what the disk did while smrd was down is unknown */
	c->sure = false;
	c->from_start = false;
	c->fill = 0;
	c->since_anchor = c->idle_since_anchor = 0;
}

/* The rate idle time cleans at, without a curve: learnt from partial
 * refills, else the slow phase's (the rate the disk made room at while the
 * host waited). */
static double recovery_rate(const CacheTrack *c)
{
	if (c->model.idle_recovery_bps > 0)
		return c->model.idle_recovery_bps;
	return c->model.slow_write_bps > 0 ? c->model.slow_write_bps : NAN;
}

/* The fill after `rest` seconds without I/O from `fill0`. Along the curve
 * when there is one: a cache this full is one that a rest of t0 from its
 * threshold left so, and the rest goes on from there (the dirtiest bands
 * gone first, the rest of the curve is what is left); else at the rate. */
static double fill_after_rest(const CacheTrack *c, double fill0, double rest)
{
	const DiskModel *m = &c->model;
	if (idle_fit_known(&m->curve) && disk_model_known(m)) {
		double cache = m->media_cache_bytes, room0 = fmax(cache - fill0, 0);
		double t0 = idle_fit_rest(&m->curve, room0);
		if (!isfinite(t0))
			return 0;
		return fmin(fmax(cache - idle_fit_bytes(&m->curve, t0 + rest), 0), fill0);
	}
	double r = recovery_rate(c);
	return isfinite(r) ? fmax(fill0 - r * rest, 0) : fill0;
}

/* The rest after which the whole cache is clean, however full. */
static double clean_rest(const CacheTrack *c)
{
	const DiskModel *m = &c->model;
	if (idle_fit_known(&m->curve))
		return m->curve.delay + m->curve.clean_seconds;
	double r = recovery_rate(c);
	return isfinite(r) && disk_model_known(m) ? m->media_cache_bytes / r : INFINITY;
}

/* Refits the curve to the points; its figure is the average over the
 * longest rest. */
void cache_refit(CacheTrack *c)
{
	DiskModel *m = &c->model;
	const IdlePoint *longest = NULL;
	for (unsigned i = 0; i < c->n_points; i++)
		if (!longest || c->points[i].rest >= longest->rest)
			longest = &c->points[i];
	if (!longest)
		return;
	m->idle_recovery_bps = longest->bytes / longest->rest;
	m->recovery_rest = longest->rest;
	m->recovery_samples = c->n_points;
	c->fitted_on = disk_model_known(m) ? m->media_cache_bytes : longest->bytes;
	idle_fit(c->points, c->n_points, c->fitted_on, &m->curve);
}

/* Rests within a quarter of each other are one length of the curve; a
 * point that says what its length's point says (within their
 * uncertainties, or a tenth) adds nothing. */
#define POINT_BIN 1.25
#define SAME_POINT 0.1

static long point_bin(double rest) { return lround(floor(log(rest) / log(POINT_BIN))); }

/* One point a length of rest, the newest; past IDLE_POINTS_MAX lengths the
 * oldest goes (a disk that always rests as long would otherwise push the
 * curve's other lengths out). False when it adds nothing. */
static bool add_point(CacheTrack *c, const IdlePoint *pt)
{
	unsigned i = 0;
	while (i < c->n_points && point_bin(c->points[i].rest) != point_bin(pt->rest))
		i++;
	if (i < c->n_points) {
		const IdlePoint *o = &c->points[i];
		if (o->at_least == pt->at_least && fabs(pt->bytes - o->bytes) <= fmax(SAME_POINT * o->bytes, o->err + pt->err))
			return false;
	} else if (c->n_points < IDLE_POINTS_MAX) {
		/* out of memory: the curve goes without it */
		if (!c->points && !(c->points = malloc(IDLE_POINTS_MAX * sizeof *c->points)))
			return false;
		c->points[c->n_points++] = *pt;
		return true;
	} else {
		i = 0;
	}
	memmove(&c->points[i], &c->points[i + 1], (c->n_points - 1 - i) * sizeof *c->points);
	c->points[c->n_points - 1] = *pt;
	return true;
}

void cache_restore_point(CacheTrack *c, const IdlePoint *pt)
{
	if (pt->rest > 0 && pt->bytes >= 0 && isfinite(pt->bytes) && isfinite(pt->rest))
		add_point(c, pt);
}

const IdlePoint *cache_last_point(const CacheTrack *c) { return c->n_points ? &c->points[c->n_points - 1] : NULL; }

static void ring_push(CacheTrack *c, double end, double dt, double bytes)
{
	unsigned i = (c->ring_head + c->ring_len) % CACHE_RING;
	if (c->ring_len == CACHE_RING)
		c->ring_head = (c->ring_head + 1) % CACHE_RING;
	else
		c->ring_len++;
	c->ring_end[i] = end;
	c->ring_dt[i] = (float)dt;
	c->ring_bytes[i] = (float)bytes;
}

/* The interval after a sequential stream holds its end and the small
 * writes after it: counted whole until the next one says how large the
 * small writes are, then only their share (n writes of B bytes in all,
 * made of large ones of the stream's size and small ones of the next
 * interval's). */
static void share_of_mixed(CacheTrack *c, double small_size)
{
	double n = c->mixed_writes, b = c->mixed_bytes, large = c->mixed_seq;
	c->mixed_writes = 0;
	if (!(n > 0) || !(large > small_size) || c->ring_len == 0)
		return;
	double n_small = fmin(fmax((n * large - b) / (large - small_size), 0), n);
	double drop = b - fmin(n_small * small_size, b);
	unsigned last = (c->ring_head + c->ring_len - 1) % CACHE_RING;
	c->ring_bytes[last] = (float)fmax(c->ring_bytes[last] - drop, 0);
	c->fill = fmax(c->fill - drop, 0);
	c->since_anchor = fmax(c->since_anchor - drop, 0);
}

/* Rests: a run of intervals without any I/O, from the end of the last I/O
 * (an interval busy a share b of its length, its I/O taken to run from its
 * start) to the start of the next (to run to its end). A rest begun in a
 * storm with the storm's end in it starts a point of the curve; another
 * rest before the next cliff spoils it (what came back was not one rest's). */
#define MIN_REST 2.0

static void rests(CacheTrack *c, const CacheSample *s, bool quiet)
{
	double busy = fmin(fmax(s->busy, 0), 1);
	if (quiet) {
		if (isnan(c->quiet_from)) {
			c->quiet_from = isfinite(c->io_end) ? c->io_end : s->now - s->dt;
			c->quiet_fill = c->fill;
			c->quiet_storm = c->io_storm;
			c->quiet_anchor = false;
		}
		return;
	}
	if (!isnan(c->quiet_from)) {
		double rest = s->now - busy * s->dt - c->quiet_from;
		if (rest >= MIN_REST)
			c->point_rest = c->quiet_storm && c->quiet_anchor ? rest : NAN;
		c->quiet_from = NAN;
	}
	c->io_end = s->now - s->dt + busy * s->dt;
	c->io_storm = s->storm;
}

/* A run without I/O: the fill follows the curve (or the rate) from where
 * it began; after a restart, one long enough to clean it all anchors it. */
static void quiet_interval(CacheTrack *c, const CacheSample *s)
{
	double rest = s->now - c->quiet_from;
	c->idle_since_anchor += s->dt;
	c->fill = fill_after_rest(c, c->quiet_fill, rest);
	if (c->fill <= 0)
		c->warned = c->forecast_shown = false;
	if (!c->sure && disk_model_known(&c->model) && rest >= CLEAN_MARGIN * clean_rest(c)) {
		c->sure = true;
		c->fill = 0;
	}
}

void cache_interval(CacheTrack *c, const CacheParams *p, const CacheSample *s)
{
	double dt = s->dt, writes = s->writes, write_bytes = s->write_bytes, now = s->now;
	if (!(dt > 0))
		return;
	/* nothing completed, nothing in flight: a write that waits a whole
	 * interval for a rewrite completes nothing and books no busy time */
	bool quiet = !(s->ios > 0) && !(s->busy > 0.001) && !(writes > 0) && s->in_flight == 0;
	rests(c, s, quiet);
	double size = writes > 0 ? write_bytes / writes : 0;
	if (!s->storm && c->mixed_writes > 0 && size > 0 && size < p->seq_size)
		share_of_mixed(c, size);
	c->mixed_writes = 0;
	if (!s->storm && size > 0 && size < p->seq_size && c->seq_avg > 0) {
		c->mixed_bytes = write_bytes;
		c->mixed_writes = writes;
		c->mixed_seq = c->seq_avg;
	}
	c->seq_avg = !s->storm && size >= p->seq_size ? size : 0;
	if (s->storm) {
		/* what it sustains while written to: the storm's quiet seconds before its end are not the disk's */
		if (writes > 0) {
			c->slow_bytes += write_bytes;
			c->slow_seconds += dt;
		}
		return;
	}
	double filling = writes > 0 && write_bytes / writes < p->seq_size ? write_bytes : 0;
	ring_push(c, now, dt, filling);
	if (filling > 0) {
		if (c->last_write < now - dt - 0.5 * dt)
			c->run_start = now - dt;	/* writes resumed */
		c->fill += filling;
		c->since_anchor += filling;
		c->last_write = now;
		/* Past the cache without a storm, the idle time cleaned more than
		 * the learnt curve says: the forecast says "now" until the next
		 * cliff, whose refill sets it right (cache_storm_start). */
		return;
	}
	if (quiet)
		quiet_interval(c, s);
}

/* What was absorbed since the anchor up to the cliff: the intervals that
 * began after it gave nothing before it; the one it fell in gave what it
 * took less what the slow phase takes in its part after the cliff (fast
 * before it, slow after: a refill of a few MiB at cache speed fills a
 * fraction of a second and then crawls). */
static double absorbed_before(const CacheTrack *c, double start)
{
	double x = c->since_anchor, slow = c->model.slow_write_bps > 0 ? c->model.slow_write_bps : 0;
	for (unsigned k = 0; k < c->ring_len; k++) {
		unsigned i = (c->ring_head + k) % CACHE_RING;
		double end = c->ring_end[i], begin = end - c->ring_dt[i];
		if (end <= start)
			continue;
		x -= begin >= start ? c->ring_bytes[i] : fmin(c->ring_bytes[i], (end - start) * slow);
	}
	return x;
}

/* How far what was absorbed before the cliff may be off: the interval it
 * fell in is split at it by the slow phase's rate (absorbed_before), and
 * that rate is the disk's average, not that second's; at least a
 * hundredth. */
static double cliff_err(const CacheTrack *c, double start, double x)
{
	double slow = c->model.slow_write_bps > 0 ? c->model.slow_write_bps : 0, err = 0.01 * x;
	for (unsigned k = 0; k < c->ring_len; k++) {
		unsigned i = (c->ring_head + k) % CACHE_RING;
		if (c->ring_end[i] > start && c->ring_end[i] - c->ring_dt[i] <= start)
			err = fmax(err, fmin(c->ring_bytes[i], (c->ring_end[i] - start) * slow));
	}
	return err;
}

/* The learnt cache moves a little with every fill: the curve is refitted
 * on it once it has moved this much (a fit costs milliseconds). */
#define REFIT_MOVE 0.01

/* What a fill of x bytes up to the cliff says of the cache. */
static void learn_cache(CacheTrack *c, double x)
{
	DiskModel *m = &c->model;
	if (x < MIN_FILL)
		return;
	if (c->from_start) {
		/* the disk as smrd found it: clean, most likely, but unknown */
		disk_model_add_cache(m, x, false);
		return;
	}
	double cache = disk_model_known(m) ? m->media_cache_bytes : x;
	if (x >= FULL_REFILL * cache) {
		/* the idle time cleaned it all: a fill from clean, and (without a
		 * curve) a recovery at least that fast */
		disk_model_add_cache(m, x, true);
		if (c->idle_since_anchor > 0 && !c->n_points && !(m->idle_recovery_bps >= x / c->idle_since_anchor))
			m->idle_recovery_bps = x / c->idle_since_anchor;
	} else if (c->idle_since_anchor > 0 && !c->n_points) {
		disk_model_add_recovery(m, x / c->idle_since_anchor);
	}
}

/* A fill ended at its cliff: x bytes absorbed since the anchor, known to
 * err. After a rest begun at the threshold, a point of the curve; the
 * curve is refitted on the cache as it is now learnt, as a restart would
 * refit it on the cache the history kept. */
static void learn_fill(CacheTrack *c, double x, double err)
{
	double rest = c->point_rest;
	c->point_rest = NAN;
	c->point_learnt = false;
	bool point = isfinite(rest) && x >= 0 && !c->from_start &&
		     add_point(c, &(IdlePoint){.rest = rest, .bytes = x, .err = err});
	learn_cache(c, x);
	if (point || (c->n_points && disk_model_known(&c->model) &&
		      !(fabs(c->model.media_cache_bytes / c->fitted_on - 1) <= REFIT_MOVE)))
		cache_refit(c);
	c->point_learnt = point;
}

/* Full from here: the fill's count starts again. */
static void anchor_full(CacheTrack *c)
{
	if (!isnan(c->quiet_from))	/* a storm ended in a rest: its refill is the rest's */
		c->quiet_anchor = true;
	c->from_start = false;
	c->sure = disk_model_known(&c->model);
	c->fill = c->sure ? c->model.media_cache_bytes : 0;
	c->since_anchor = c->idle_since_anchor = 0;
	c->ring_len = 0;
}

static bool model_changed(const DiskModel *a, const DiskModel *b)
{
	return a->media_cache_bytes != b->media_cache_bytes || a->idle_recovery_bps != b->idle_recovery_bps ||
	       a->cache_samples != b->cache_samples || a->recovery_samples != b->recovery_samples;
}

bool cache_storm_start(CacheTrack *c, double cliff, double now)
{
	(void)now;
	DiskModel before = c->model;
	c->point_learnt = false;
	if (isfinite(cliff))
		learn_fill(c, absorbed_before(c, cliff), cliff_err(c, cliff, absorbed_before(c, cliff)));
	c->point_rest = NAN;
	anchor_full(c);
	c->slow_bytes = c->slow_seconds = 0;
	return model_changed(&c->model, &before);
}

bool cache_wait(CacheTrack *c, double sent, double now)
{
	(void)now;
	/* a wait early in a fill is a hiccup (the ST8000AS0002 has one every
	 * ~5 s in its fast phase), not the cache running out */
	if (!c->sure || !disk_model_known(&c->model) || c->fill < SOFT_CLIFF * c->model.media_cache_bytes)
		return false;
	DiskModel before = c->model;
	learn_fill(c, absorbed_before(c, sent), cliff_err(c, sent, absorbed_before(c, sent)));
	anchor_full(c);
	return model_changed(&c->model, &before);
}

bool cache_storm_end(CacheTrack *c, double now, double wait)
{
	(void)now;
	DiskModel *m = &c->model;
	if (c->slow_seconds > 0 && c->slow_bytes > 0)
		m->slow_write_bps = blend(m->slow_write_bps, m->cache_samples ? m->cache_samples - 1 : 0,
					  c->slow_bytes / c->slow_seconds);
	if (wait > 0)
		m->rewrite_seconds = blend(m->rewrite_seconds, m->cache_samples ? m->cache_samples - 1 : 0, wait);
	/* full: the disk made room only as fast as the host asked */
	anchor_full(c);
	c->slow_bytes = c->slow_seconds = 0;
	c->warned = c->forecast_shown = false;
	return true;
}

double cache_fill_ratio(const CacheTrack *c)
{
	if (!disk_model_known(&c->model))
		return NAN;
	return fmin(fmax(c->fill / c->model.media_cache_bytes, 0), 1);
}

/* Over the last rate_window seconds, or since the writes resumed if that
 * is later: a steady writer's rate from its first seconds on. */
double cache_rate(const CacheTrack *c, const CacheParams *p, double now)
{
	double from = fmax(now - p->rate_window, c->run_start), bytes = 0;
	if (c->last_write < now - 3 || !(now > from))
		return 0;
	for (unsigned k = 0; k < c->ring_len; k++) {
		unsigned i = (c->ring_head + k) % CACHE_RING;
		double end = c->ring_end[i], begin = end - c->ring_dt[i];
		if (end <= from)
			continue;
		bytes += c->ring_dt[i] > 0 && begin < from ? c->ring_bytes[i] * (end - from) / c->ring_dt[i] : c->ring_bytes[i];
	}
	return bytes / (now - from);
}

double cache_forecast(const CacheTrack *c, const CacheParams *p, double now)
{
	double rate = cache_rate(c, p, now);
	/* full by the estimate: no countdown is left (the storm-start says
	 * when writes wait), and "will stall in 0 s" helps nobody */
	if (!disk_model_known(&c->model) || !c->sure || rate < p->min_rate || c->fill >= c->model.media_cache_bytes)
		return NAN;
	return (c->model.media_cache_bytes - c->fill) / rate;
}
