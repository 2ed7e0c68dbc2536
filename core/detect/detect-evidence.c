/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's evidence besides storms: idle cleaning after one, latency
 * bands, probe reads, the GC score that weighs it all, and what the
 * history restores of it after a restart.
 */
#include "detect.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "detect-internal.h"
#include "format.h"
#include "trace-abi.h"
#include "util.h"

/* One slow read on a quiet disk after a storm: from the host's traffic
 * (an interval) or from a probe read. */
static void idle_observe(DiskDetect *d, const DetectParams *p, double now, double dt, double slowest, double reads,
			 DetectEmit emit, void *userdata)
{
	d->ev.idle = now;
	if (d->idle.active) {
		d->idle.last = now;
		d->idle.peak = fmax(d->idle.peak, slowest);
		d->idle.reads += (uint64_t)reads;
		return;
	}
	if (!d->idle.pending || now - d->idle.pending_since > p->idle_end) {
		d->idle.pending = 0;
		d->idle.pending_since = now - dt;
		d->idle.reads = 0;
		d->idle.peak = 0;
	}
	d->idle.pending++;
	d->idle.reads += (uint64_t)reads;
	d->idle.peak = fmax(d->idle.peak, slowest);
	if (d->idle.pending >= p->idle_confirm) {
		char a[FORMAT_MAX];
		d->idle.active = true;
		d->idle.start = d->idle.pending_since;
		d->idle.last = now;
		DetectEvent e = {.kind = EVENT_IDLE_START, .op = TRACE_READ, .time = d->idle.start,
				 .latency = d->idle.peak, .count = d->idle.reads};
		snprintf(e.message, sizeof e.message,
			 "cleaning while idle: after a destage storm, reads wait up to %s with the host nearly quiet",
			 format_duration(a, d->idle.peak));
		detect_emit(emit, userdata, &e);
	}
}

/* Slow reads on a quiet disk after any burst are what a CMR disk with a
 * media cache, or a virtual disk whose host writes back its cache, shows
 * too (here: 100-230 ms reads on the virtio root disk after a backup).
 * After a storm they are the cleaning of what the storm left. */
bool detect_after_storm(const DiskDetect *d, const DetectParams *p, double now)
{
	return now - d->storm.seen <= p->idle_after && !d->storm.active;
}

void detect_idle_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, DetectEmit emit,
		       void *userdata)
{
	if (s->reads + s->writes > 0)
		d->idle.host_io_last = s->now;
	d->idle.host_quiet = (s->reads + s->writes) / dt <= p->idle_max_iops && s->writes / dt < 1;

	double slowest = isfinite(s->read_max) ? s->read_max : s->reads > 0 ? s->read_time / s->reads : 0;
	if (detect_after_storm(d, p, s->now) && d->idle.host_quiet && s->reads > 0 && slowest >= p->idle_read_slow) {
		idle_observe(d, p, s->now, dt, slowest, s->reads, emit, userdata);
		return;
	}
	if (d->idle.active && s->now - d->idle.last >= p->idle_end) {
		char a[FORMAT_MAX], b[FORMAT_MAX];
		double len = d->idle.last - d->idle.start;
		DetectEvent e = {.kind = EVENT_IDLE_END, .op = TRACE_READ, .time = d->idle.last, .duration = len,
				 .latency = d->idle.peak, .count = d->idle.reads};
		snprintf(e.message, sizeof e.message, "idle cleaning seen for %s: %" PRIu64 " reads, slowest %s",
			 format_duration(a, len), d->idle.reads, format_duration(b, d->idle.peak));
		d->idle.active = false;
		d->idle.pending = 0;
		detect_emit(emit, userdata, &e);
	}
}

void detect_bands_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, DetectEmit emit, void *userdata)
{
	if (s->now < d->bands.next)
		return;
	d->bands.next = s->now + 10;	/* bands move slowly; the search is not free */
	BandRules rules = {.min_share = p->band_min_share, .min_count = p->band_min_count, .valley = p->band_valley};
	Band found[2][BANDS_MAX];
	for (int op = 0; op < 2; op++) {
		const Band *f = found[op];
		unsigned k = s->window[op] ? bands_find(s->window[op], &rules, found[op]) : 0;
		for (unsigned i = 0; i < k; i++)
			d->bands.found[op][i] = (DetectBand){(float)f[i].centre, (float)f[i].lo, (float)f[i].hi,
						       (float)f[i].share,
						       f[i].count > UINT32_MAX ? UINT32_MAX : (uint32_t)f[i].count};
		d->bands.n[op] = k;
	}
	/* the reads' as found, at full precision */
	const Band *r = found[TRACE_READ];
	unsigned n = d->bands.n[TRACE_READ];
	bool evidence = n >= 2 && r[n - 1].centre >= p->band_slow && r[n - 1].centre >= p->band_ratio * r[0].centre;
	if (evidence)
		d->ev.band = s->now;
	if (evidence && !d->bands.evidence) {
		DetectEvent e = {.kind = EVENT_BANDS, .op = TRACE_READ, .time = s->now, .latency = r[n - 1].centre,
				 .count = 0, .value = n};
		int off = snprintf(e.message, sizeof e.message, "read latency splits into %u bands:", n);
		for (unsigned i = 0; i < n; i++) {
			char a[FORMAT_MAX];
			e.count += r[i].count;
			if (off > 0 && (size_t)off < sizeof e.message)
				off += snprintf(e.message + off, sizeof e.message - (size_t)off, "%s %s (%.0f%%)",
						i ? "," : "", format_duration(a, r[i].centre), r[i].share * 100);
		}
		detect_emit(emit, userdata, &e);
	}
	d->bands.evidence = evidence;
}

void detect_score(const DiskDetect *d, const DetectParams *p, double now, DetectScore *ret)
{
	double *c[] = {&ret->storm, &ret->idle, &ret->band, &ret->stall};
	const double ev[] = {d->ev.storm, d->ev.idle, d->ev.band, d->ev.stall};
	const double w[] = {p->w_storm, p->w_idle, p->w_band, p->w_stall};
	double keep = 1;
	for (size_t i = 0; i < ELEMENTSOF(ev); i++) {
		double age = now - ev[i];
		*c[i] = isfinite(ev[i]) ? w[i] * exp2(-fmax(age, 0) / p->half_life) : 0;
		keep *= 1 - *c[i];
	}
	ret->score = 1 - keep;
	ret->held = false;
	/* Idle seeking, slow reads and stalls alone: a CMR disk with a media
	 * cache, a virtual disk's host, a failing disk show them too. Only a
	 * storm says the cache filled. */
	if (!isfinite(d->ev.storm) && ret->score > p->score_without_storm) {
		double k = p->score_without_storm / ret->score;
		ret->idle *= k, ret->band *= k, ret->stall *= k;
		ret->score = p->score_without_storm;
		ret->held = true;
	}
}

double detect_slowest_recent(const DiskDetect *d, double now)
{
	int64_t minute = (int64_t)floor(now / 60);
	double m = 0;
	for (unsigned i = 0; i < 10; i++)
		if (d->stalls.minute_max[i] > 0 && d->stalls.minute_of[i] > minute - 10 && d->stalls.minute_of[i] <= minute)
			m = fmax(m, d->stalls.minute_max[i]);
	return m;
}

void detect_stall_minute(DiskDetect *d, double t)
{
	DetectStalls *s = &d->stalls;
	int32_t minute = (int32_t)floor(t / 60);
	if (minute <= s->hour_newest - 60)
		return;
	/* the slots of the minutes skipped held an hour ago's counts */
	for (int32_t m = s->hour_newest + 1; m <= minute && m <= s->hour_newest + 60; m++)
		s->hour[((m % 60) + 60) % 60] = 0;
	if (minute > s->hour_newest)
		s->hour_newest = minute;
	uint16_t *slot = &s->hour[((minute % 60) + 60) % 60];
	if (*slot < UINT16_MAX)
		(*slot)++;
}

uint64_t detect_stalls_hour(const DiskDetect *d, double now)
{
	const DetectStalls *s = &d->stalls;
	int32_t minute = (int32_t)floor(now / 60);
	if (s->hour_newest <= minute - 60)
		return 0;	/* no stall in the last hour: most disks, most of the time */
	uint64_t n = 0;
	for (int32_t age = 0; age < 60; age++) {
		/* slot i holds the minute hour_newest - age */
		int32_t m = s->hour_newest - age;
		if (m > minute - 60 && m <= minute)
			n += s->hour[((m % 60) + 60) % 60];
	}
	return n;
}

bool detect_wants_probe(const DiskDetect *d, const DetectParams *p, double now)
{
	/* Never wake a disk the host has left alone: spin-down timers are
	 * minutes; a probe a minute after the host's last I/O keeps nothing up
	 * that the host did not. */
	return detect_after_storm(d, p, now) && d->idle.host_quiet && now - d->idle.host_io_last <= DETECT_PROBE_MAX_IDLE;
}

void detect_probe(DiskDetect *d, const DetectParams *p, double latency, double now, double spacing,
		  DetectEmit emit, void *userdata)
{
	d->idle.probes++;
	d->idle.probe_max = fmax(d->idle.probe_max, latency);
	if (detect_after_storm(d, p, now) && latency >= p->idle_read_slow)
		idle_observe(d, p, now, spacing, latency, 1, emit, userdata);
}

static void restore_storm(DiskDetect *d, double time)
{
	d->storm.known++;
	d->ev.storm = fmax(d->ev.storm, time);
	d->storm.seen = fmax(d->storm.seen, time);
}

void detect_restore(DiskDetect *d, const DetectParams *p, DetectEventKind kind, double time, double latency)
{
	/* A storm counts only if a write in it waited: events stored by an
	 * older smrd that took a slow flush or a cached burst's end for one
	 * (a start at 206 us, an end "slowest 0 us") are left out. A start
	 * carries its longest wait; an older one its mean write: its end's
	 * slowest decides. */
	bool waited = latency >= p->collapse_stall;
	switch (kind) {
	case EVENT_STORM_START:
		d->ev.restore_pending = !waited;
		d->ev.restore_pending_at = time;
		if (waited)
			restore_storm(d, time);
		break;
	case EVENT_STORM_END:
		if (d->ev.restore_pending && waited)
			restore_storm(d, d->ev.restore_pending_at);
		if (waited && d->storm.known)
			d->ev.storm = d->storm.seen = fmax(d->ev.storm, time);
		d->ev.restore_pending = false;
		break;
	case EVENT_IDLE_START:
	case EVENT_IDLE_END:
		d->ev.idle = fmax(d->ev.idle, time);
		break;
	case EVENT_BANDS:
		d->ev.band = fmax(d->ev.band, time);
		break;
	case EVENT_STALL:
		detect_stall_minute(d, time);
		d->ev.stall = fmax(d->ev.stall, time);
		break;
	case EVENT_TIMEOUT_RISK:
		d->ev.stall = fmax(d->ev.stall, time);
		break;
	case EVENT_BEHAVIOUR:
		d->ev.behaviour_stored = true;
		break;
	default:
		break;
	}
}

void detect_restore_done(DiskDetect *d, const DetectParams *p, double now)
{
	/* dm-smr by behaviour again only with a storm that still counts */
	d->ev.behaviour = d->ev.behaviour_stored && d->storm.known > 0;
	d->ev.restore_pending = false;
	/* the curve from its restored points, on the restored cache */
	cache_refit(&d->cache);
	detect_score(d, p, now, &d->score);
}

/* ------------------------------------------------------- the media cache */

#define FORECAST_MIN_RATE 65536.0	/* bytes/s: less is no fill worth a forecast */

/* No I/O at all: nothing completed, nothing in flight (a write that waits
 * a whole interval for a rewrite completes nothing and books no busy time). */
static bool quiet_interval(const DetectSample *s)
{
	return !(s->reads + s->writes + s->discards + s->flushes > 0) && !(s->busy > 0.001) && !s->in_flight;
}

/* Whether the disk keeps an idle budget from this interval on: one that
 * can be SMR by its static evidence, its storms or a media cache known.
 * Out of memory: not this interval. */
static bool budget_kept(DiskDetect *d, const DetectSample *s)
{
	if (!d->budget && (s->smr_static || d->storm.known || disk_model_known(&d->cache.model)) &&
	    (d->budget = malloc(sizeof *d->budget)))
		idle_budget_init(d->budget);
	return d->budget != NULL;
}

void detect_cache_done(DiskDetect *d)
{
	cache_done(&d->cache);
	free(d->budget);
	d->budget = NULL;
}

/* The media cache's share of an interval, and the idle budget's: what
 * fills the cache, what reads, and whether it had no I/O at all. */
void detect_cache_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt)
{
	CacheParams cp;
	detect_cache_params(p, &cp);
	CacheSample cs = {.now = s->now, .dt = dt, .write_bytes = s->write_bytes, .writes = s->writes,
			  .ios = s->reads + s->writes + s->discards + s->flushes, .busy = s->busy,
			  .in_flight = s->in_flight, .storm = d->storm.active};
	cache_interval(&d->cache, &cp, &cs);
	if (!budget_kept(d, s))
		return;
	bool small = s->writes > 0 && s->write_bytes / s->writes < p->cache_seq_size;
	idle_budget_interval(d->budget, s->wall, dt, small ? s->write_bytes : 0, small ? s->writes : 0, s->read_bytes,
			     quiet_interval(s), s->busy, BUDGET_MIN_RUN);
}

void detect_cache_params(const DetectParams *p, CacheParams *ret)
{
	*ret = (CacheParams){.seq_size = p->cache_seq_size, .rate_window = p->cache_rate_window,
			     .min_rate = FORECAST_MIN_RATE};
}

/* The model in a media-cache event's fields, for the history (and back in
 * detect_restore_cache): bytes the cache, value the idle recovery rate,
 * duration the sustained rate after the cliff, latency one wait, count the
 * fills it rests on, sector the recovery samples (times 2, +1 for a
 * lower bound). */
void detect_cache_changed(DiskDetect *d, double now, DetectEmit emit, void *userdata)
{
	const DiskModel *m = &d->cache.model;
	if (!disk_model_known(m))
		return;
	char a[FORMAT_MAX], b[FORMAT_MAX], c[FORMAT_MAX];
	DetectEvent e = {.kind = EVENT_MEDIA_CACHE, .op = TRACE_WRITE, .time = now,
			 .bytes = (uint64_t)m->media_cache_bytes, .count = m->cache_samples,
			 .value = isfinite(m->idle_recovery_bps) ? m->idle_recovery_bps : 0,
			 .duration = isfinite(m->slow_write_bps) ? m->slow_write_bps : 0,
			 .latency = isfinite(m->rewrite_seconds) ? m->rewrite_seconds : 0,
			 .sector = (uint64_t)m->recovery_samples * 2 + m->cache_lower_bound};
	int n = snprintf(e.message, sizeof e.message, "media cache %s%s", m->cache_lower_bound ? "at least " : "~",
			 format_size(a, m->media_cache_bytes));
	if (m->cache_samples > 1)
		n += snprintf(e.message + n, sizeof e.message - (size_t)n, " from %u fills (spread %.0f%%)",
			      m->cache_samples, m->cache_spread * 100);
	if (isfinite(m->slow_write_bps))
		n += snprintf(e.message + n, sizeof e.message - (size_t)n, "; %s once full", format_rate(b, m->slow_write_bps));
	if (isfinite(m->idle_recovery_bps) && n > 0 && (size_t)n < sizeof e.message)
		snprintf(e.message + n, sizeof e.message - (size_t)n, "; idle time gives back %s",
			 format_rate(c, m->idle_recovery_bps));
	/* what the last one said, in its words and in the figures the history
	 * keeps, is no news (a disk written slower than it cleans met its full
	 * cache every second) */
	const CacheSaid said = {.bytes = e.bytes, .count = e.count, .sector = e.sector, .value = e.value,
				.duration = e.duration, .latency = e.latency};
	const CacheSaid *l = &d->cache_said;
	if (said.bytes == l->bytes && said.count == l->count && said.sector == l->sector && said.value == l->value &&
	    said.duration == l->duration && said.latency == l->latency)
		return;
	d->cache_said = said;
	detect_emit(emit, userdata, &e);
}

void detect_restore_cache(DiskDetect *d, const DetectEvent *e)
{
	DiskModel m;
	disk_model_init(&m);
	if (!(e->bytes > 0))
		return;
	m.media_cache_bytes = (double)e->bytes;
	m.cache_samples = (unsigned)e->count;
	m.cache_lower_bound = e->sector & 1;
	m.recovery_samples = (unsigned)(e->sector / 2);
	if (e->value > 0)
		m.idle_recovery_bps = e->value;
	if (e->duration > 0)
		m.slow_write_bps = e->duration;
	if (e->latency > 0)
		m.rewrite_seconds = e->latency;
	cache_restore(&d->cache, &m);
	/* what the history already holds is not said again */
	d->cache_said = (CacheSaid){.bytes = e->bytes, .count = e->count, .sector = e->sector, .value = e->value,
				    .duration = e->duration, .latency = e->latency};
}

/* A point of the curve, as the history keeps it (and back in
 * detect_restore_point): duration the rest, bytes what it gave back,
 * value their uncertainty, count the points the curve rests on, sector 1
 * for a lower bound. */
void detect_idle_point(DiskDetect *d, double now, DetectEmit emit, void *userdata)
{
	const IdlePoint *pt = cache_last_point(&d->cache);
	if (!d->cache.point_learnt || !pt)
		return;
	d->cache.point_learnt = false;
	char r[FORMAT_MAX], b[FORMAT_MAX], text[200];
	const DiskModel *m = &d->cache.model;
	DetectEvent e = {.kind = EVENT_IDLE_RECOVERY, .op = TRACE_WRITE, .time = now, .duration = pt->rest,
			 .bytes = (uint64_t)pt->bytes, .value = pt->err, .count = m->recovery_samples,
			 .sector = pt->at_least};
	int n = snprintf(e.message, sizeof e.message, "a %s rest begun in a storm gave back %s of fast space (the "
			 "idle-recovery curve now rests on %u point%s)", format_duration(r, pt->rest),
			 format_size(b, pt->bytes), m->recovery_samples, m->recovery_samples == 1 ? "" : "s");
	if (*idle_fit_describe(&m->curve, text, sizeof text) && n > 0 && (size_t)n < sizeof e.message)
		snprintf(e.message + n, sizeof e.message - (size_t)n, ": %s", text);
	detect_emit(emit, userdata, &e);
}

void detect_restore_point(DiskDetect *d, const DetectEvent *e)
{
	IdlePoint pt = {.rest = e->duration, .bytes = (double)e->bytes, .err = e->value, .at_least = e->sector & 1};
	cache_restore_point(&d->cache, &pt);
}

void detect_seed_cache(DiskDetect *d, double bytes) { cache_seed(&d->cache, bytes); }

double detect_fill_rate(const DiskDetect *d, const DetectParams *p, double now)
{
	CacheParams cp;
	detect_cache_params(p, &cp);
	return cache_rate(&d->cache, &cp, now);
}

void detect_forecast(DiskDetect *d, const DetectParams *p, double now, DetectEmit emit, void *userdata)
{
	CacheParams cp;
	detect_cache_params(p, &cp);
	double f = d->storm.active ? NAN : cache_forecast(&d->cache, &cp, now);
	/* A forecast comes before the stall or not at all: a fill first
	 * forecast under forecast-min (a small cache written fast) has none,
	 * and no warning nobody could act on; once given, it counts down. */
	if (isfinite(f) && f < p->forecast_min && !d->cache.forecast_shown)
		f = NAN;
	if (isfinite(f))
		d->cache.forecast_shown = true;
	d->forecast = f;
	d->imminent = f <= p->forecast_warn;
	if (!d->imminent || d->cache.warned)
		return;
	d->cache.warned = true;
	char a[FORMAT_MAX], b[FORMAT_MAX], c[FORMAT_MAX], t[FORMAT_MAX];
	const DiskModel *m = &d->cache.model;
	DetectEvent e = {.kind = EVENT_STALL_IMMINENT, .op = TRACE_WRITE, .time = now, .duration = d->forecast,
			 .value = cache_fill_ratio(&d->cache),
			 .bytes = (uint64_t)fmax(m->media_cache_bytes - d->cache.fill, 0)};
	snprintf(e.message, sizeof e.message,
		 "media cache ~%.0f%% full (%s of ~%s): at %s writes will stall in ~%s", e.value * 100,
		 format_size(a, d->cache.fill), format_size(b, m->media_cache_bytes),
		 format_rate(c, cache_rate(&d->cache, &cp, now)), format_duration(t, d->forecast));
	detect_emit(emit, userdata, &e);
}
