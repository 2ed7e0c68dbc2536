/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's rules. Every threshold is a named parameter with its
 * reason in docs/detection.md; the defaults rest on the primer's figures:
 * a DM-SMR disk acknowledges writes in well under a millisecond (140 us,
 * 2500 IOPS) until its media cache fills, then completes ~3 writes a second
 * with its queue busy; a healthy CMR disk never needs more than ~25 ms per
 * I/O of busy time (seek + rotation), whatever the queue depth.
 */
#include "detect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "detect-internal.h"
#include "format.h"
#include "trace-abi.h"
#include "util.h"

void detect_init(DiskDetect *d)
{
	*d = (DiskDetect){.ring.cap = DETECT_HISTORY_INLINE, .forecast = NAN};
	cache_init(&d->cache);
	d->fast.last = d->fast.last_storm = d->storm.seen = d->stalls.risk_last = d->idle.host_io_last = -INFINITY;
	d->ev.storm = d->ev.idle = d->ev.band = d->ev.stall = -INFINITY;
}

unsigned detect_bands(const DiskDetect *d, int op, Band ret[BANDS_MAX])
{
	unsigned n = op == 0 || op == 1 ? d->bands.n[op] : 0;
	for (unsigned i = 0; i < n; i++) {
		const DetectBand *b = &d->bands.found[op][i];
		ret[i] = (Band){.centre = b->centre, .lo = b->lo, .hi = b->hi, .count = b->count, .share = b->share};
	}
	return n;
}

void detect_done(DiskDetect *d)
{
	detect_cache_done(d);
	detect_waits_done(d);
	free(d->ring.heap);
	d->ring.heap = NULL;
	d->ring.cap = DETECT_HISTORY_INLINE;
	d->ring.head = d->ring.len = 0;
}

/* A full ring whose oldest interval is still inside the window doubles,
 * oldest first in the new one; without memory the oldest is overwritten
 * (the window then covers less, as before the growth). */
static void ring_fit(DiskDetect *d, double now, double window)
{
	if (d->ring.len < d->ring.cap || d->ring.cap >= DETECT_HISTORY_MAX)
		return;
	const DetectInterval *old = detect_ring(d);
	if (now - old[d->ring.head].t >= window)
		return;
	unsigned cap = d->ring.cap * 2;
	DetectInterval *n = malloc(cap * sizeof *n);
	if (!n)
		return;
	for (unsigned i = 0; i < d->ring.len; i++)
		n[i] = old[(d->ring.head + i) % d->ring.cap];
	free(d->ring.heap);
	d->ring.heap = n;
	d->ring.cap = cap;
	d->ring.head = d->ring.len;
}

/* What one interval says about the writes in it. */
typedef struct WriteFacts {
	double wiops, service, wlat, queue, busy_share;
	double fast_service;		/* busy time per write faster than a platter at this write size */
	double stalls, long_stalls;	/* waits a queue cannot explain: collapse-stall, slow-stall */
	double wait;			/* seconds of the interval the queue spent in them */
	double wait_span;		/* ... uncapped: a wait that ends here began intervals ago */
	double peak;			/* the longest of them */
	double fast;			/* acks faster than platters (traced) */
	double first_wait;		/* when the first of them was sent (traced); INFINITY none */
	double waits_from, waits_to;	/* when the first and the last of them ended; INFINITY, -INFINITY none */
	bool traced, stuck, crawl, shadow, waiting, busy;
} WriteFacts;

/* Traced: the writes that waited, as their records told them, that no
 * flush or discard in flight with them explains. A flush waits for a
 * volatile cache to drain (a CMR disk's DRAM, a hypervisor's host cache:
 * 1-3 s after a large buffered write here) and the writes behind it wait
 * as long; a band rewrite makes writes wait with no flush anywhere. */
static void take_waits(DiskDetect *d, const DetectParams *p, double floor, WriteFacts *f)
{
	for (unsigned i = 0; i < d->waits.n; i++) {
		const DetectWait *w = &d->waits.list[i];
		double start = d->waits.base + w->start, end = d->waits.base + w->end;
		if (detect_shadowed(d, start, end))
			continue;
		/* the part of it the host's stolen CPU time does not explain: of
		 * the longest wait merged in, not of the span they cover together
		 * (writes queued 137 ms each, merged, made a "wait" of 857 ms) */
		double lat = w->lat - fmin(detect_stolen_during(d, start, end), w->lat);
		/* a stall that neither a flush nor the host explains is evidence
		 * (a failing disk's too: weight-stall) */
		if (w->stall && lat >= d->waits.stall_threshold)
			d->ev.stall = fmax(d->ev.stall, end);
		if (lat < fmax(p->collapse_stall, floor))
			continue;
		f->stalls += w->n;
		f->wait += w->n * lat;
		f->peak = fmax(f->peak, lat);
		f->first_wait = fmin(f->first_wait, start);
		f->waits_from = fmin(f->waits_from, end);
		f->waits_to = fmax(f->waits_to, end);
		if (lat >= fmax(p->slow_stall, floor))
			f->long_stalls += w->n;
	}
	d->waits.n = 0;
}

static void write_facts(const DetectParams *p, DiskDetect *d, const DetectSample *s, double dt, WriteFacts *f)
{
	/* A virtual CPU the hypervisor did not run completes nothing: every
	 * disk of the guest waits through it at once, look-alikes included.
	 * A wait across it is the disk's only for what it lasted beyond the
	 * stolen time: a loaded guest loses a share of a second, a band
	 * rewrite waits longer than that. */
	if (s->host_steal > 0.01 * dt)
		detect_steal_add(d, s->now - dt, s->now, s->host_steal);
	/* Flushes and discards are completions too: a second that completed
	 * one did not stand still, and its busy time was theirs as well. */
	double done = s->reads + s->writes + s->discards + s->flushes;
	/* The kernel credits busy time (io_ticks) and queue time only when an
	 * I/O starts or ends: an interval in which nothing happened reads as
	 * idle however long the queue waited. Nothing completed and I/O in
	 * flight at both samples is a queue that waited the whole interval. */
	bool waited_all = done == 0 && s->in_flight > 0 && d->ring.prev_in_flight > 0;
	double busy = waited_all ? 1 : s->busy;
	*f = (WriteFacts){.wiops = s->writes / dt, .service = done > 0 ? busy * dt / done : INFINITY,
			  .wlat = s->writes > 0 ? s->write_time / s->writes : NAN, .busy = busy >= p->busy,
			  .busy_share = busy, .first_wait = INFINITY, .waits_from = INFINITY, .waits_to = -INFINITY};
	/* The queue in front of a write explains a wait of queue-wait per I/O
	 * on any disk; a band rewrite makes writes wait longer than that. The
	 * time-weighted queue is credited late too: no deeper than was seen. */
	double depth = (double)(s->in_flight > d->ring.prev_in_flight ? s->in_flight : d->ring.prev_in_flight);
	f->queue = fmax(isfinite(s->queue) ? fmin(s->queue, fmax(depth, 1)) : depth, 1);
	/* A cache takes a write in a fraction of a millisecond plus its
	 * transfer (64 KiB at 200 MB/s: 0.3 ms); a platter needs a seek and
	 * half a rotation first (4-8 ms) for any size. */
	f->fast_service = p->fast_latency + (s->writes > 0 ? s->write_bytes / s->writes / p->fast_transfer : 0);
	const Hist *w = s->interval[TRACE_WRITE];
	f->traced = w != NULL;
	/* a busy interval in which nothing completed: slow, though only what
	 * ends it can say whether a write or a flush stood still */
	f->stuck = f->busy && s->in_flight > 0 && done == 0 && dt >= p->collapse_stall;
	if (f->traced) {
		/* A wait is a write slower than its queue explains and far slower
		 * than the interval's typical one: a band rewrite among fast acks. */
		double med = w->count ? hist_quantile(w, 0.5) : 0;
		/* ... unless every write waits alike (a serialised slow phase):
		 * then the busy time per write shows it, a seek's 8 ms at any
		 * queue depth on a platter that only queues */
		bool serial = f->service >= p->collapse_service;
		double spread = serial ? 0 : p->stall_spread * (isfinite(med) ? med : 0);
		take_waits(d, p, fmax(f->queue * p->queue_wait, spread), f);
		if (w->count)
			f->fast = (double)hist_count_under(w, f->fast_service * f->queue);
		f->wait_span = f->wait / f->queue;
		f->wait = fmin(f->wait_span, dt);
		f->waiting = f->stalls > 0;
		/* Stuck, on a disk that has stormed: most likely a rewrite (a
		 * collapse after a short wait), waiting so that the storm is
		 * confirmed while it lasts; a storm still needs a write seen
		 * waiting. Elsewhere only what ends the run says (shadow_add). */
		if (f->stuck && d->storm.known)
			f->wait = dt;
		return;
	}
	d->waits.n = 0;
	/* Untraced, diskstats has only sums: a flush or discard that took
	 * collapse-stall or longer on average explains whatever waited in its
	 * interval (a DM-SMR disk's waits under fsync are then the flush's too:
	 * the tracer tells them apart). */
	double fl = s->flushes > 0 ? s->flush_time / s->flushes : 0;
	double dc = s->discards > 0 ? s->discard_time / s->discards : 0;
	if (fmax(fl, dc) >= p->collapse_stall) {
		f->shadow = true;
		detect_shadow_add(d, s->now - dt - fmax(fl, dc), s->now);
	}
	/* Every write waiting alike (a serialised slow phase): long per write,
	 * and next to no bytes for the busy time. An SSD past its SLC cache is
	 * slow per write too, but still moves megabytes a second. */
	double busy_s = busy * dt;
	f->crawl = !f->shadow && s->writes > 0 && f->service >= p->collapse_service && busy_s > 0 &&
		   s->write_bytes / busy_s <= p->crawl_rate;
	f->waiting = f->crawl;
	if (f->crawl) {	/* every write waits */
		f->wait = dt;
		f->peak = f->wlat;
		f->stalls = s->writes;
		f->long_stalls = f->wlat >= p->slow_stall ? s->writes : 0;
	}
}

/* Untraced: the interval that ends a run of stuck ones says what stood
 * still. Writes completing after a wait longer than their queue explains
 * waited all along (the run is waiting time); a slow flush or discard did
 * (shadow_add cleared the run); anything else: nothing is known to have
 * waited. */
static void stuck_resolve(DiskDetect *d, const DetectParams *p, const DetectSample *s, WriteFacts *f)
{
	DetectInterval *h = detect_ring(d);
	if (f->traced || f->stuck || f->shadow || !d->ring.len || !h[(d->ring.head + d->ring.cap - 1) % d->ring.cap].stuck)
		return;
	/* ... for longer than the host held the CPUs */
	double span0 = s->now - fmin(f->wlat, s->now);
	bool waited = s->writes > 0 &&
		      f->wlat - detect_stolen_during(d, span0, s->now) >= fmax(p->collapse_stall, f->queue * p->queue_wait);
	for (unsigned i = 0; waited && i < d->ring.len; i++) {
		DetectInterval *x = &h[(d->ring.head + d->ring.cap - 1 - i) % d->ring.cap];
		if (!x->stuck || !x->slow)
			break;
		x->waiting = true;
		x->wait = x->dt;
	}
	if (waited) {
		f->waiting = true;
		f->stalls += s->writes;
		f->long_stalls += f->wlat >= p->slow_stall ? s->writes : 0;
		f->wait = fmax(f->wait, fmin(f->wlat, s->dt > 0 ? s->dt : 1));
		f->peak = fmax(f->peak, f->wlat);
	}
}

#define FAST_BUSY_FLOOR 0.25

static void fast_phase(DiskDetect *d, const DetectParams *p, const DetectSample *s, const WriteFacts *f)
{
	/* Busy time per write, not latency: at queue depth 16 a cache that
	 * takes each write in 0.3 ms makes each wait 5 ms in the queue. */
	if (s->writes <= 0 || f->wiops < p->fast_iops || f->service > f->fast_service)
		return;
	if (s->now - d->fast.last > p->fast_memory)
		d->fast.iops = 0, d->fast.latency = f->service;
	/* Per second of busy time: a cache that fills in under a second (47 MiB
	 * at 50 MB/s) shares its one fast interval with the idle time before
	 * the writer started, and per wall second its rate would read as a
	 * fraction of what the cache took, too low for the fall to show. A
	 * busier share than FAST_BUSY_FLOOR is assumed: a few writes in a quiet
	 * interval are no measure of a cache. */
	d->fast.iops = fmax(d->fast.iops, f->wiops / fmax(f->busy_share, FAST_BUSY_FLOOR));
	/* typical, not best: one lucky second must not set the bar */
	d->fast.latency = 0.7 * d->fast.latency + 0.3 * f->service;
	d->fast.last = s->now;
}

static double storm_window(const DetectParams *p) { return fmax(p->storm_window, p->storm_confirm); }

static void remember(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, const WriteFacts *f,
		     bool slow, double part)
{
	ring_fit(d, s->now, storm_window(p));
	detect_ring(d)[d->ring.head] = (DetectInterval){.t = s->now, .dt = (float)dt, .writes = (float)s->writes,
						  .write_time = (float)s->write_time, .write_bytes = (float)s->write_bytes,
						  .fast = (float)f->fast,
						  .part = (float)(slow ? dt : part), .slow = slow,
						  .wait = (float)f->wait, .peak = (float)f->peak,
						  .waiting = f->waiting, .busy = f->busy,
						  .stuck = f->stuck, .first_wait = f->first_wait,
						  .stalls = (float)f->stalls, .waits_from = f->waits_from, .waits_to = f->waits_to};
	d->ring.head = (d->ring.head + 1) % d->ring.cap;
	if (d->ring.len < d->ring.cap)
		d->ring.len++;
}

/* A run of busy writing while no fast phase is known, for recognising a
 * disk that was already in its slow phase when smrd started. */
static void run_update(DiskDetect *d, const DetectSample *s, double dt, const WriteFacts *f, bool fast_known)
{
	if (fast_known || d->storm.active || !f->busy || (s->writes <= 0 && !f->stuck)) {
		d->run = (DetectRun){0};
		return;
	}
	/* a flush's or a discard's busy time says nothing of the writes */
	if (f->shadow)
		return;
	d->run.t += dt;
	d->run.writes += s->writes;
	d->run.bytes += s->write_bytes;
	d->run.write_time += s->write_time;
	d->run.fast += f->fast;
	d->run.stalls += f->long_stalls;
	/* A write that waited 7 s (a collapse) ends in one interval, but
	 * filled the stuck ones before it, which the run holds: count all of
	 * it that lies within the run, not one interval's worth (corpus seed
	 * 814571784: waits of 0.5 s and one of 7.4 s in five, credited as 0.5
	 * and 1, came to 25-32% of the run, and a late smrd never knew it). */
	d->run.wait += fmax(f->wait, fmin(f->wait_span, d->run.t - d->run.wait));
	d->run.busy += f->busy_share * dt;
	d->run.done += s->reads + s->writes + s->discards + s->flushes;
	d->run.peak = fmax(d->run.peak, f->peak);
}

/* The figures a storm begins with are its slow seconds' alone (writes,
 * their summed latency, the seconds): 2.5 writes/s at 400 ms, not the
 * average with the fast acks of the second the cliff fell in. */
typedef struct SlowFigures {
	double writes, wtime, seconds, bytes;
	/* traced: the writes among them that waited, when the first and the
	 * last of those ended, and the longest wait */
	double waits, waits_from, waits_to, peak;
} SlowFigures;

/* Writes a second in the slow seconds. When every write in them waited
 * (a serialised slow phase), by the spacing of their completions: the
 * whole seconds around the first few waits read a rate a write too low or
 * high (3 writes in 2 s for 2.4/s), while each wait's end is known. */
static bool slow_serial(const SlowFigures *x)
{
	return x->waits >= 2 && x->waits >= x->writes && x->waits_to > x->waits_from;
}

static double slow_rate(const SlowFigures *x)
{
	if (slow_serial(x))
		return (x->waits - 1) / (x->waits_to - x->waits_from);
	return x->seconds > 0 ? x->writes / x->seconds : 0;
}

/* Their mean latency; of a serialised phase's first seconds without the
 * longest wait, which is the cliff's: the first write to find the cache
 * full also waits for the rewrite already under way (800 ms among 400s). */
static double slow_latency(const SlowFigures *x, double peak)
{
	if (slow_serial(x) && x->writes >= 3 && x->peak > 0 && x->wtime > x->peak)
		return (x->wtime - x->peak) / (x->writes - 1);
	return x->writes > 0 ? x->wtime / x->writes : peak;
}

static void storm_begin(DiskDetect *d, DetectStormKind kind, double start, double now, const SlowFigures *slow,
			double peak, double cliff, DetectEmit emit, void *userdata)
{
	char a[FORMAT_MAX], b[FORMAT_MAX];
	d->storm.active = true;
	d->storm.kind = kind;
	d->storm.count++;
	d->storm.known++;
	d->storm.start = start;
	d->storm.last = now;
	d->storm.peak = peak;
	d->storm.slow_seconds = slow->seconds;
	d->storm.slow_writes = slow->writes;
	d->storm.slow_wtime = slow->wtime;
	d->storm.slow_bytes = slow->bytes;
	d->storm.iops = slow_rate(slow);
	/* no write completed in its slow seconds: the wait under way says how slow */
	d->storm.latency = slow_latency(slow, peak);
	d->ev.storm = now;
	/* the longest wait: what made it a storm (detect_restore checks it) */
	DetectEvent e = {.kind = EVENT_STORM_START, .op = TRACE_WRITE, .time = start, .latency = peak,
			 .count = (uint64_t)slow->writes, .value = kind == STORM_CLIFF ? d->fast.iops : 0};
	if (kind == STORM_CLIFF)
		snprintf(e.message, sizeof e.message,
			 "destage storm: writes fell from %.0f/s at %s to %.1f/s at %s with the queue busy",
			 d->fast.iops, format_duration(a, d->fast.latency), d->storm.iops, format_duration(b, d->storm.latency));
	else if (kind == STORM_MIXTURE)
		snprintf(e.message, sizeof e.message,
			 "destage storm under way: writes acknowledged faster than platters mixed with waits of up to "
			 "%s, %.1f/s with the queue busy", format_duration(a, d->storm.peak), d->storm.iops);
	else
		snprintf(e.message, sizeof e.message,
			 "destage storm under way: every write waits, %.1f/s at %s with the queue busy", d->storm.iops,
			 format_duration(a, d->storm.latency));
	detect_emit(emit, userdata, &e);
	/* what the cache took before this cliff: up to the first write that
	 * waited when the tracer says, else the storm's start; a disk found
	 * already slow says nothing of its cache */
	if (cache_storm_start(&d->cache, kind == STORM_CLIFF ? (isfinite(cliff) ? cliff : start) : NAN, now))
		detect_cache_changed(d, now, emit, userdata);
}

/* Whether this interval was slow: the queue busy and write completions
 * fallen from the fast phase's rate, whatever the mixture of latencies
 * behind it (a serialised slow phase, or fast acks among long waits). One
 * that fell only part of the way may hold the cliff: *ret_part is the part
 * of it that was slow, by what its rate lost. */
static bool interval_slow(const DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt,
			  const WriteFacts *f, bool fast_known, double *ret_part)
{
	*ret_part = 0;
	if (f->busy && fast_known) {
		/* per busy second, as the fast rate is */
		double rate = f->wiops / fmax(f->busy_share, FAST_BUSY_FLOOR);
		*ret_part = d->fast.iops > 0 ? dt * fmax(1 - rate / d->fast.iops, 0) : 0;
		/* the rate per wall second: with the queue busy 80% of it or more,
		 * it is at most 1.25x below the fast phase's per busy second */
		return s->writes > 0 ? f->wiops * p->collapse_ratio <= d->fast.iops : s->in_flight > 0 && !f->shadow;
	}
	/* a storm recognised without a fast phase stays slow while writes wait */
	return f->busy && d->storm.active && f->waiting;
}

bool detect_storm_slow(const DiskDetect *d, double *ret_iops, double *ret_latency)
{
	if (!(d->storm.slow_seconds > 0) || !(d->storm.slow_writes > 0))
		return false;	/* keeps what the storm began with */
	*ret_iops = d->storm.slow_writes / d->storm.slow_seconds;
	*ret_latency = d->storm.slow_wtime / d->storm.slow_writes;
	return true;
}

/* The storm under way: its figures, and its end after storm-end seconds
 * without a slow interval. */
static void storm_follow(DiskDetect *d, const DetectParams *p, const DetectSample *s, bool slow, const WriteFacts *f,
			 DetectEmit emit, void *userdata)
{
	d->storm.seen = s->now;
	if (d->storm.kind == STORM_CLIFF)
		d->fast.last_storm = s->now;
	if (slow) {
		d->storm.last = s->now;
		d->storm.peak = fmax(d->storm.peak, f->peak);
		d->ev.storm = s->now;
	}
	/* its figures as the storm-start's: slow seconds in which writes
	 * waited (untraced, a mixed phase's waits are not seen: every slow one) */
	if (slow && (f->waiting || f->stuck || !f->traced)) {
		d->storm.slow_seconds += s->dt > 0 ? s->dt : 1;
		d->storm.slow_writes += s->writes;
		d->storm.slow_wtime += s->write_time;
		d->storm.slow_bytes += s->write_bytes;
		detect_storm_slow(d, &d->storm.iops, &d->storm.latency);
	}
	if (slow || s->now - d->storm.last < p->storm_end)
		return;
	/* its figures are the slow seconds', as the storm-start's were: the
	 * quiet or fast seconds before its end are not the storm */
	char a[FORMAT_MAX], b[FORMAT_MAX], c[FORMAT_MAX], t[FORMAT_MAX];
	double len = d->storm.last - d->storm.start;
	DetectEvent e = {.kind = EVENT_STORM_END, .op = TRACE_WRITE, .time = d->storm.last, .duration = len,
			 .latency = d->storm.peak, .count = (uint64_t)d->storm.slow_writes,
			 .bytes = (uint64_t)d->storm.slow_bytes, .value = d->storm.iops};
	snprintf(e.message, sizeof e.message,
		 "destage storm ended after %s: %.1f writes/s at %s in its slow seconds (%" PRIu64 " in %s), slowest %s",
		 format_duration(a, len), d->storm.iops, format_duration(c, d->storm.latency), e.count,
		 format_duration(t, d->storm.slow_seconds), format_duration(b, d->storm.peak));
	d->storm.active = false;
	d->run = (DetectRun){0};
	detect_emit(emit, userdata, &e);
	if (cache_storm_end(&d->cache, s->now, d->storm.latency))
		detect_cache_changed(d, s->now, emit, userdata);
}

/* A disk already slow when we first see it: a long enough run of busy
 * writing that mixes fast acknowledgements with long waits (mixture), or
 * in which every write waits (serial). Either way the waits must account
 * for the time: a disk slow for its own reasons (a deep queue, large
 * writes) waits little. */
static bool recognise_slow_run(DiskDetect *d, const DetectParams *p, const DetectSample *s, double peak,
			       DetectEmit emit, void *userdata)
{
	const DetectRun *r = &d->run;
	if (r->t < p->slow_confirm || r->writes <= 0)
		return false;
	bool waits = r->stalls >= 3 && r->wait >= p->wait_share * r->t;
	bool mixture = waits && r->fast >= p->slow_fast_share * r->writes;
	bool serial = waits && r->done > 0 && r->busy / r->done >= p->slow_service && r->bytes / r->busy <= p->crawl_rate;
	if (!mixture && !serial)
		return false;
	SlowFigures slow = {.writes = r->writes, .wtime = r->write_time, .seconds = r->t, .bytes = r->bytes};
	storm_begin(d, mixture ? STORM_MIXTURE : STORM_SERIAL, s->now - r->t, s->now, &slow, fmax(r->peak, peak), NAN,
		    emit, userdata);
	d->run = (DetectRun){0};
	return true;
}

/* The confirmation window's sums: the slow intervals (and the slow part of
 * one just before a slow one: the cliff), and the window as a whole. */
typedef struct WindowSums {
	double sum, writes, wtime, bytes, wait, start;
	double all_dt, all_writes, all_wtime, all_bytes, all_wait, all_start;
	double peak;
	double first_wait;		/* the first write that waited (traced); INFINITY none */
	bool waited, all_busy;
	SlowFigures slow, all_slow;	/* the slow intervals' own, of the slow run and of the window */
} WindowSums;

static void slow_add(SlowFigures *a, const SlowFigures *b)
{
	if (!(a->writes > 0 || a->seconds > 0))
		a->waits_from = INFINITY, a->waits_to = -INFINITY;
	a->writes += b->writes, a->wtime += b->wtime, a->seconds += b->seconds, a->bytes += b->bytes;
	a->waits += b->waits;
	a->peak = fmax(a->peak, b->peak);
	a->waits_from = fmin(a->waits_from, b->waits_from);
	a->waits_to = fmax(a->waits_to, b->waits_to);
}

/* The slow seconds' figures, newest first, up to the fall: an older
 * interval whose rate stands collapse-ratio above the newer ones' holds
 * fast acks from before the cliff (a cliff's second counted in gave
 * "109 writes/s at 9 ms" for 2.5 at 400 ms), and so does all before it. */
static void slow_take(const DetectParams *p, SlowFigures *acc, bool *fell, const SlowFigures *x, double fast)
{
	if (*fell)
		return;
	/* with no write in the newer ones yet (stuck seconds), an interval
	 * mostly of fast acks is the fall's */
	bool fallen = acc->writes > 0 ? x->seconds > 0 && x->writes / x->seconds > p->collapse_ratio * acc->writes / acc->seconds
				      : x->writes > 0 && fast * p->collapse_ratio >= (p->collapse_ratio - 1) * x->writes;
	if (fallen) {
		*fell = true;
		return;
	}
	slow_add(acc, x);
}

static void window_sums(const DiskDetect *d, const DetectParams *p, double now, WindowSums *w)
{
	*w = (WindowSums){.start = now, .all_start = now, .all_busy = true, .first_wait = INFINITY};
	const DetectInterval *hist = detect_ring(d);
	bool next_slow = false, fell = false, all_fell = false, stuck_since = true;
	double oldest = now;		/* where the window's oldest interval began */
	for (unsigned i = 0; i < d->ring.len; i++) {
		const DetectInterval *h = &hist[(d->ring.head + d->ring.cap - 1 - i) % d->ring.cap];
		if (now - h->t >= storm_window(p)) {
			/* A window stuck all along, right after a write seen
			 * waiting, on a disk that has stormed: the wait goes on
			 * (a collapse after a short wait). That interval's writes
			 * are the window's. */
			if (stuck_since && i > 0 && h->waiting && d->storm.known && h->t >= oldest - 0.5 * h->dt) {
				w->waited = true;
				w->first_wait = fmin(w->first_wait, h->first_wait);
				w->writes += h->writes;
			}
			break;
		}
		stuck_since &= h->stuck;
		oldest = h->t - h->dt;
		w->all_dt += h->dt;
		w->all_writes += h->writes;
		w->all_wtime += h->write_time;
		w->all_bytes += h->write_bytes;
		w->all_wait += h->wait;
		w->all_busy &= h->busy;
		w->waited |= h->waiting;
		w->first_wait = fmin(w->first_wait, h->first_wait);
		w->peak = fmax(w->peak, h->peak);
		if (h->part > 0)
			w->all_start = h->t - h->part;
		SlowFigures x = {.writes = h->writes, .wtime = h->write_time, .seconds = h->dt, .bytes = h->write_bytes,
				 .waits = h->stalls, .waits_from = h->waits_from, .waits_to = h->waits_to,
				 .peak = h->peak};
		/* the figures: slow intervals in which writes waited (fallen
		 * intervals of fast acks alone are no slow phase's) */
		bool figures = h->slow && (h->waiting || h->stuck);
		if (figures)
			slow_take(p, &w->all_slow, &all_fell, &x, h->fast);
		bool counts = h->slow || (next_slow && h->part > 0);
		next_slow = h->slow;
		if (!counts)
			continue;
		if (figures)
			slow_take(p, &w->slow, &fell, &x, h->fast);
		w->sum += h->part;
		w->writes += h->writes;
		w->wtime += h->write_time;
		w->bytes += h->write_bytes;
		w->wait += h->wait;
		w->start = h->t - h->part;
	}
}

/* The cliff. Confirm: enough slow time in the window, writes among it, and
 * at least one write that waited longer than its queue explains (an SSD
 * whose SLC cache ran out also slows down, but never makes one wait). Or
 * the window as a whole: a disk that frees its cache in bursts (a
 * sequential writer through it, RAIDZ's 32 KiB chunks) completes hundreds
 * of writes in one second and two in the next; over the window the rate
 * has fallen all the same. Either way the waits must account for the fall
 * (wait-share of the slow time): a cache that filled makes the rate fall
 * by making writes wait; a fast disk getting back to its own speed after a
 * burst its cache took (page-cache writeback, a hypervisor's cache: 42000
 * writes/s, then 11000/s at 0.2 ms) falls with next to no wait. */
static void recognise_cliff(DiskDetect *d, const DetectParams *p, const DetectSample *s, double peak,
			    DetectEmit emit, void *userdata)
{
	WindowSums w;
	window_sums(d, p, s->now, &w);
	/* A media cache filling makes writes wait as the rate falls; a disk
	 * that fell without a wait and stays down (an SSD past its SLC cache)
	 * and only later shows a long write (a large one, a new workload) is
	 * not a cache that just filled. */
	/* ... by when the first write that waited was sent (traced), not
	 * when its wait ended: a burst whose first write waits 10 s for the
	 * rewrite under way is seen waiting only then */
	double waited_from = isfinite(w.first_wait) ? w.first_wait : s->now;
	if (!w.waited || (d->fast.fell_at > 0 && waited_from - d->fast.fell_at > p->storm_onset))
		return;
	if (w.sum + 1e-6 < p->storm_confirm || w.writes <= 0 || w.wait < p->wait_share * w.sum) {
		if (w.all_dt + 1e-6 < storm_window(p) || !w.all_busy || w.all_writes <= 0 ||
		    w.all_writes * p->collapse_ratio > d->fast.iops * w.all_dt || w.all_wait < p->wait_share * w.all_dt)
			return;
		w.start = w.all_start;
		/* the window's slow seconds with waits if it has any, else all of it */
		w.slow = w.all_slow;
		if (!(w.slow.seconds > 0))
			w.slow = (SlowFigures){.writes = w.all_writes, .wtime = w.all_wtime, .seconds = w.all_dt,
					       .bytes = w.all_bytes};
	}
	/* the cliff's interval holds fast acks as well: only when it is all there is */
	if (!(w.slow.seconds > 0))
		w.slow = (SlowFigures){.writes = w.writes, .wtime = w.wtime, .seconds = w.sum, .bytes = w.bytes};
	/* the longest wait in the window, for the event */
	storm_begin(d, STORM_CLIFF, w.start, s->now, &w.slow, fmax(peak, w.peak), w.first_wait, emit, userdata);
}

/* Whether the fast phase is the rate a fall is measured from: seen within
 * fast-memory, or a storm that fell from it was (the cache gives the
 * same speed back once it is cleaned, however long the storms went on). */
static bool fast_remembered(const DiskDetect *d, const DetectParams *p, double now)
{
	double last = fmax(d->fast.last, d->fast.last_storm);
	return now - last <= p->fast_memory;
}

/* Returns when the first write that waited in this interval was sent (INFINITY none). */
static double storm_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, DetectEmit emit,
			  void *userdata)
{
	WriteFacts f;
	write_facts(p, d, s, dt, &f);
	stuck_resolve(d, p, s, &f);
	d->ring.prev_in_flight = s->in_flight;
	fast_phase(d, p, s, &f);
	bool fast_known = d->storm.active ? d->storm.kind == STORM_CLIFF : fast_remembered(d, p, s->now);
	/* A rest (no write completed, the queue not stuck) ends a burst: the
	 * next one's first slow second is its own onset, though it meets a
	 * cache still full and falls from no fast phase ("Every storm" in
	 * docs/detection.md). Also in a storm: one rest just over storm-end
	 * ends it only as the next burst begins. */
	if (s->writes <= 0 && !f.stuck)
		d->fast.fell_at = 0;
	double part;
	bool slow = interval_slow(d, p, s, dt, &f, fast_known, &part);
	/* the fall's onset: reset by a fast interval that did not fall (an SSD
	 * past its SLC cache still writes thousands of 4 KiB a second: fast,
	 * and fallen from its peak) */
	if (d->fast.last == s->now && !slow)
		d->fast.fell_at = 0;
	else if (slow && d->fast.fell_at == 0 && fast_known)
		d->fast.fell_at = s->now - dt;
	remember(d, p, s, dt, &f, slow, part);
	run_update(d, s, dt, &f, fast_known);

	if (d->storm.active)
		storm_follow(d, p, s, slow, &f, emit, userdata);
	else if (!recognise_slow_run(d, p, s, f.peak, emit, userdata) && (slow || (fast_known && f.busy)))
		/* the window's rate may have fallen though this interval's did not */
		recognise_cliff(d, p, s, f.peak, emit, userdata);
	return f.first_wait;
}

void detect_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, bool reclassify,
		     DetectEmit emit, void *userdata)
{
	double dt = s->dt > 0 ? s->dt : 1;
	/* the cache first: a storm found in this interval takes its bytes */
	detect_cache_interval(d, p, s, dt);
	bool storming = d->storm.active;
	double waited = storm_check(d, p, s, dt, emit, userdata);
	/* A write that waited with the cache nearly full, and no storm: a disk
	 * written slower than it cleans keeps up, but its cache is full all
	 * the same (the forecast's cliff). */
	if (!storming && !d->storm.active && isfinite(waited) && cache_wait(&d->cache, waited, s->now))
		detect_cache_changed(d, s->now, emit, userdata);
	detect_idle_point(d, s->now, emit, userdata);
	detect_forecast(d, p, s->now, emit, userdata);
	detect_idle_check(d, p, s, dt, emit, userdata);
	detect_bands_check(d, p, s, emit, userdata);
	/* once per interval: every view of the disk shows this one */
	detect_score(d, p, s->now, &d->score);

	if (!reclassify || d->ev.behaviour || !d->storm.known || d->score.score < p->behaviour_score)
		return;
	d->ev.behaviour = true;
	DetectEvent e = {.kind = EVENT_BEHAVIOUR, .op = -1, .time = s->now, .value = d->score.score};
	snprintf(e.message, sizeof e.message,
		 "no static SMR evidence, but destage storms: classifying as dm-smr by behaviour (GC score %.2f)",
		 d->score.score);
	detect_emit(emit, userdata, &e);
}
