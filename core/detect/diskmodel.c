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
	*c = (CacheTrack){.from_start = true, .last_write = -INFINITY, .run_start = -INFINITY};
	disk_model_init(&c->model);
}

void cache_seed(CacheTrack *c, double bytes)
{
	if (bytes > 0)
		disk_model_add_cache(&c->model, bytes, true);
}

void cache_restore(CacheTrack *c, const DiskModel *m)
{
	c->model = *m;
	/* what the disk did while smrd was down is unknown */
	c->sure = false;
	c->from_start = false;
	c->fill = 0;
	c->since_anchor = c->idle_since_anchor = 0;
}

/* The rate idle time cleans at: learnt from partial refills, else the
 * slow phase's (the rate the disk made room at while the host waited). */
static double recovery_rate(const CacheTrack *c)
{
	if (c->model.idle_recovery_bps > 0)
		return c->model.idle_recovery_bps;
	return c->model.slow_write_bps > 0 ? c->model.slow_write_bps : NAN;
}

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

void cache_interval(CacheTrack *c, const CacheParams *p, double now, double dt, double write_bytes, double writes,
		    bool storm)
{
	if (!(dt > 0))
		return;
	double size = writes > 0 ? write_bytes / writes : 0;
	if (!storm && c->mixed_writes > 0 && size > 0 && size < p->seq_size)
		share_of_mixed(c, size);
	c->mixed_writes = 0;
	if (!storm && size > 0 && size < p->seq_size && c->seq_avg > 0) {
		c->mixed_bytes = write_bytes;
		c->mixed_writes = writes;
		c->mixed_seq = c->seq_avg;
	}
	c->seq_avg = !storm && size >= p->seq_size ? size : 0;
	if (storm) {
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
		 * the learnt rate says: the forecast says "now" until the next
		 * cliff, whose refill sets the rate right (cache_storm_start). */
		return;
	}
	if (writes > 0)
		return;		/* sequential writes: the bands, not the cache, and no idle either */
	c->idle_since_anchor += dt;
	double r = recovery_rate(c);
	if (!isfinite(r))
		return;
	c->fill = fmax(c->fill - r * dt, 0);
	if (c->fill <= 0)
		c->warned = c->forecast_shown = false;
	/* after a restart: an idle long enough to clean the whole cache */
	if (!c->sure && disk_model_known(&c->model) && c->idle_since_anchor * r >= CLEAN_MARGIN * c->model.media_cache_bytes) {
		c->sure = true;
		c->fill = 0;
	}
}

/* What was absorbed since the anchor up to the cliff: the intervals that
 * ended after it gave only their share before it. */
static double absorbed_before(const CacheTrack *c, double start)
{
	double x = c->since_anchor;
	for (unsigned k = 0; k < c->ring_len; k++) {
		unsigned i = (c->ring_head + k) % CACHE_RING;
		if (c->ring_end[i] <= start)
			continue;
		double after = c->ring_dt[i] > 0 ? fmin((c->ring_end[i] - start) / c->ring_dt[i], 1) : 1;
		x -= after * c->ring_bytes[i];
	}
	return x;
}

/* A fill ended at its cliff: x bytes absorbed since the anchor. */
static void learn_fill(CacheTrack *c, double x)
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
		/* the idle time cleaned it all: a fill from clean, and a recovery
		 * at least that fast */
		disk_model_add_cache(m, x, true);
		if (c->idle_since_anchor > 0 && !(m->idle_recovery_bps >= x / c->idle_since_anchor))
			m->idle_recovery_bps = x / c->idle_since_anchor;
	} else if (c->idle_since_anchor > 0) {
		disk_model_add_recovery(m, x / c->idle_since_anchor);
	}
}

/* Full from here: the fill's count starts again. */
static void anchor_full(CacheTrack *c)
{
	c->from_start = false;
	c->sure = disk_model_known(&c->model);
	c->fill = c->sure ? c->model.media_cache_bytes : 0;
	c->since_anchor = c->idle_since_anchor = 0;
	c->ring_len = 0;
}

static bool model_changed(const DiskModel *a, const DiskModel *b)
{
	return a->media_cache_bytes != b->media_cache_bytes || a->idle_recovery_bps != b->idle_recovery_bps ||
	       a->cache_samples != b->cache_samples;
}

bool cache_storm_start(CacheTrack *c, double cliff, double now)
{
	(void)now;
	DiskModel before = c->model;
	if (isfinite(cliff))
		learn_fill(c, absorbed_before(c, cliff));
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
	learn_fill(c, absorbed_before(c, sent));
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
