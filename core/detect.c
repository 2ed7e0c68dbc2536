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

#include "trace-abi.h"
#include "util.h"

typedef struct Param {
	const char *name;
	size_t offset;
	double def, min, max;
	const char *help;
} Param;

#define P(n, f, d, lo, hi, h) {n, offsetof(DetectParams, f), d, lo, hi, h}
static const Param params[] = {
	P("fast-latency", fast_latency, 0.001, 1e-5, 1,
	  "seconds of busy time per write at or under which writes are faster than platters (a cache)"),
	P("fast-transfer", fast_transfer, 52428800, 1048576, 1e12,
	  "bytes a second: a write of B bytes may take B / fast-transfer more than fast-latency"),
	P("fast-iops", fast_iops, 100, 1, 1e7, "and at least this many a second"),
	P("fast-memory", fast_memory, 1800, 10, 86400, "seconds a fast phase is remembered as a storm's prelude"),
	P("collapse-ratio", collapse_ratio, 3, 1.5, 1e4,
	  "write completions a second fall at least this factor below the fast phase's, with the queue busy"),
	P("collapse-stall", collapse_stall, 0.1, 0.001, 60,
	  "seconds: a write waiting this long, and longer than queue-wait per I/O in flight, waits for a band rewrite"),
	P("queue-wait", queue_wait, 0.005, 0.0001, 10,
	  "seconds per I/O in flight that a write may wait behind the others on a disk that only queues"),
	P("stall-spread", stall_spread, 10, 2, 1e4, "and this many times the interval's median write latency"),
	P("collapse-service", collapse_service, 0.05, 0.001, 60,
	  "seconds of busy time per completed I/O that, with writes crawling, show them waiting"),
	P("crawl-rate", crawl_rate, 2097152, 1024, 1e10,
	  "bytes written a second of busy time at or under which writes are waiting, not transferring"),
	P("busy", busy, 0.8, 0.1, 1, "share of the interval with I/O in flight that counts as a busy queue"),
	P("storm-confirm", storm_confirm, 2.5, 1, 30, "seconds of collapse within storm-window that start a storm"),
	P("storm-window", storm_window, 3, 1, 30,
	  "seconds (shorter than the ~5 s between a DM-SMR disk's hiccups in its fast phase)"),
	P("storm-end", storm_end, 5, 1, 3600, "seconds without collapse that end a storm"),
	P("storm-onset", storm_onset, 10, 2, 3600,
	  "seconds after the fall within which writes must start waiting: an SSD past its SLC cache falls without a wait"),
	P("slow-confirm", slow_confirm, 20, 3, 3600,
	  "seconds of busy writing, with no fast phase seen, that recognise a disk already in its slow phase"),
	P("slow-fast-share", slow_fast_share, 0.25, 0.01, 1,
	  "... from this share of writes acknowledged faster than platters (fast-latency per I/O in flight)"),
	P("slow-stall", slow_stall, 0.25, 0.01, 60,
	  "... mixed with at least three writes waiting this long (and queue-wait per I/O in flight)"),
	P("slow-service", slow_service, 0.2, 0.01, 60,
	  "... or from this many seconds of busy time per completed write (every write waits)"),
	P("stall-threshold", stall_threshold, 1, 0.001, 3600,
	  "seconds: slower I/Os are stall events (stall-threshold.DEVICE for one disk)"),
	P("timeout-share", timeout_share, 0.5, 0.05, 1,
	  "a stall this share of queue/io_timeout raises a timeout-risk warning"),
	P("band-window", band_window, 600, 10, 600, "seconds of per-op histogram searched for latency bands"),
	P("band-min-share", band_min_share, 0.02, 0, 0.5, "a band holds at least this share of the I/Os"),
	P("band-min-count", band_min_count, 5, 1, 1e6, "and at least this many I/Os"),
	P("band-valley", band_valley, 0.5, 0.01, 0.99,
	  "peaks are separate bands only if the density between them drops below this share of the smaller"),
	P("band-slow", band_slow, 0.1, 0.001, 100,
	  "seconds: a read band this slow is not seek and rotation (SMR evidence)"),
	P("band-ratio", band_ratio, 10, 1.5, 1e4, "and at least this many times the fastest read band"),
	P("idle-max-iops", idle_max_iops, 50, 1, 1e6, "the host sends little: at most this many I/Os a second"),
	P("idle-read-slow", idle_read_slow, 0.1, 0.001, 100, "seconds: a read this slow on a quiet disk waits for cleaning"),
	P("idle-after", idle_after, 600, 10, 86400, "seconds after a write burst that idle cleaning is looked for"),
	P("idle-burst", idle_burst, 10, 1, 3600, "seconds of busy writing that make a burst"),
	P("idle-confirm", idle_confirm, 2, 1, 100, "slow quiet seconds within idle-end that start an idle-cleaning episode"),
	P("idle-end", idle_end, 30, 1, 3600, "seconds without one that end it"),
	P("half-life", half_life, 86400, 60, 1e8, "seconds for a piece of behavioural evidence to lose half its weight"),
	P("weight-storm", w_storm, 0.9, 0, 1, "GC score weight of a destage storm"),
	P("weight-idle", w_idle, 0.35, 0, 1, "of idle-time cleaning (CMR disks with a media cache do it too)"),
	P("weight-band", w_band, 0.35, 0, 1, "of a slow read band"),
	P("weight-stall", w_stall, 0.25, 0, 1, "of a stall (failing CMR disks stall too)"),
	P("behaviour-score", behaviour_score, 0.5, 0, 1,
	  "a disk without static SMR evidence that storms and reaches this score becomes dm-smr (behaviour)"),
};

static double *param_slot(DetectParams *p, const Param *it) { return (double *)((char *)p + it->offset); }

void detect_params_init(DetectParams *p)
{
	*p = (DetectParams){0};
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		*param_slot(p, &params[i]) = params[i].def;
}

static const Param *find_param(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		if (streq(params[i].name, name))
			return &params[i];
	return NULL;
}

#define OVERRIDE_PREFIX "stall-threshold."

bool detect_param_known(const char *name)
{
	return find_param(name) || (startswith(name, OVERRIDE_PREFIX) && name[strlen(OVERRIDE_PREFIX)]);
}


int detect_param_set(DetectParams *p, const char *name, const char *value, char **ret_error)
{
	const Param *it = find_param(name);
	double v;

	if (startswith(name, OVERRIDE_PREFIX)) {
		const char *dev = name + strlen(OVERRIDE_PREFIX);
		it = find_param("stall-threshold");
		if (!*dev || strlen(dev) >= sizeof p->overrides[0].device || strchr(dev, '/'))
			return set_errorf(ret_error, -EINVAL, "detect.%s: '%s' is not a device name", name, dev);
		if (parse_double(value, &v) < 0 || v < it->min || v > it->max)
			return set_errorf(ret_error, -EINVAL, "detect.%s: '%s' is not a number from %g to %g", name, value,
				    it->min, it->max);
		unsigned i = 0;
		while (i < p->n_overrides && !streq(p->overrides[i].device, dev))
			i++;
		if (i == DETECT_MAX_OVERRIDES)
			return set_errorf(ret_error, -EINVAL, "detect.%s: at most %d per-disk stall thresholds", name,
				    DETECT_MAX_OVERRIDES);
		if (i == p->n_overrides)
			p->n_overrides++;
		snprintf(p->overrides[i].device, sizeof p->overrides[i].device, "%s", dev);
		p->overrides[i].stall_threshold = v;
		return 0;
	}
	if (!it)
		return set_errorf(ret_error, -EINVAL, "unknown setting 'detect.%s'", name);
	if (parse_double(value, &v) < 0 || v < it->min || v > it->max)
		return set_errorf(ret_error, -EINVAL, "detect.%s: '%s' is not a number from %g to %g", name, value, it->min, it->max);
	*param_slot(p, it) = v;
	return 0;
}

void detect_params_help(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(params); i++) {
		char d[32], lo[32], hi[32];
		format_number(d, params[i].def, 6);
		format_number(lo, params[i].min, 6);
		format_number(hi, params[i].max, 6);
		fprintf(f, "  --detect.%s VALUE\n                           %s (default %s, %s to %s)\n", params[i].name,
			params[i].help, d, lo, hi);
	}
	fprintf(f, "  --detect.stall-threshold.DEVICE SECONDS\n"
		   "                           one disk's stall threshold, by kernel name\n");
}

void detect_params_print(const DetectParams *p, FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		fprintf(f, "# %s\ndetect.%s = %g\n", params[i].help, params[i].name,
			*param_slot((DetectParams *)p, &params[i]));
	for (unsigned i = 0; i < p->n_overrides; i++)
		fprintf(f, "detect." OVERRIDE_PREFIX "%s = %g\n", p->overrides[i].device, p->overrides[i].stall_threshold);
}

double detect_stall_threshold(const DetectParams *p, const char *device)
{
	for (unsigned i = 0; device && i < p->n_overrides; i++)
		if (streq(p->overrides[i].device, device))
			return p->overrides[i].stall_threshold;
	return p->stall_threshold;
}

/* "140 us", "7.9 ms", "401 ms", "1.62 s", "3.4 min" */
static const char *fmt_secs(char buf[24], double s)
{
	if (!isfinite(s))
		snprintf(buf, 24, "?");
	else if (s < 1e-3)
		snprintf(buf, 24, "%.0f us", s * 1e6);
	else if (s < 0.01)
		snprintf(buf, 24, "%.2g ms", s * 1e3);
	else if (s < 1)
		snprintf(buf, 24, "%.0f ms", s * 1e3);
	else if (s < 1000)
		snprintf(buf, 24, "%.3g s", s);
	else
		snprintf(buf, 24, "%.3g min", s / 60);
	return buf;
}

static const char *op_name(int op)
{
	static const char *const n[] = {"read", "write", "discard", "flush"};
	return op >= 0 && op < 4 ? n[op] : "io";
}

void detect_init(DiskDetect *d)
{
	*d = (DiskDetect){.hist_cap = DETECT_HISTORY_INLINE};
	d->fast_last = d->burst_last = d->risk_last = d->host_io_last = -INFINITY;
	d->ev_storm = d->ev_idle = d->ev_band = d->ev_stall = -INFINITY;
}

unsigned detect_bands(const DiskDetect *d, int op, Band ret[BANDS_MAX])
{
	unsigned n = op == 0 || op == 1 ? d->n_bands[op] : 0;
	for (unsigned i = 0; i < n; i++) {
		const DetectBand *b = &d->bands[op][i];
		ret[i] = (Band){.centre = b->centre, .lo = b->lo, .hi = b->hi, .count = b->count, .share = b->share};
	}
	return n;
}

void detect_done(DiskDetect *d)
{
	free(d->hist_heap);
	d->hist_heap = NULL;
	d->hist_cap = DETECT_HISTORY_INLINE;
	d->hist_head = d->hist_len = 0;
}

static DetectInterval *ring(const DiskDetect *d)
{
	return d->hist_heap ? d->hist_heap : (DetectInterval *)d->hist_inline;
}

/* A full ring whose oldest interval is still inside the window doubles,
 * oldest first in the new one; without memory the oldest is overwritten
 * (the window then covers less, as before the growth). */
static void ring_fit(DiskDetect *d, double now, double window)
{
	if (d->hist_len < d->hist_cap || d->hist_cap >= DETECT_HISTORY_MAX)
		return;
	const DetectInterval *old = ring(d);
	if (now - old[d->hist_head].t >= window)
		return;
	unsigned cap = d->hist_cap * 2;
	DetectInterval *n = malloc(cap * sizeof *n);
	if (!n)
		return;
	for (unsigned i = 0; i < d->hist_len; i++)
		n[i] = old[(d->hist_head + i) % d->hist_cap];
	free(d->hist_heap);
	d->hist_heap = n;
	d->hist_cap = cap;
	d->hist_head = d->hist_len;
}

static void emit_event(DetectEmit emit, void *userdata, DetectEvent *e) { if (emit) emit(e, userdata); }

/* What one interval says about the writes in it. */
typedef struct WriteFacts {
	double wiops, service, wlat, queue, busy_share;
	double fast_service;		/* busy time per write faster than a platter at this write size */
	double stalls, long_stalls;	/* waits a queue cannot explain: collapse-stall, slow-stall (traced) */
	double fast;			/* acks faster than platters (traced) */
	bool traced, stuck, crawl, waiting, busy;
} WriteFacts;

static void write_facts(const DetectParams *p, const DiskDetect *d, const DetectSample *s, double dt, WriteFacts *f)
{
	double done = s->reads + s->writes;
	/* The kernel credits busy time (io_ticks) and queue time only when an
	 * I/O starts or ends: an interval in which nothing happened reads as
	 * idle however long the queue waited. Nothing completed and I/O in
	 * flight at both samples is a queue that waited the whole interval. */
	bool waited_all = done == 0 && s->in_flight > 0 && d->prev_in_flight > 0;
	double busy = waited_all ? 1 : s->busy;
	*f = (WriteFacts){.wiops = s->writes / dt, .service = done > 0 ? busy * dt / done : INFINITY,
			  .wlat = s->writes > 0 ? s->write_time / s->writes : NAN, .busy = busy >= p->busy,
			  .busy_share = busy};
	/* The queue in front of a write explains a wait of queue-wait per I/O
	 * on any disk; a band rewrite makes writes wait longer than that. The
	 * time-weighted queue is credited late too: no deeper than was seen. */
	double depth = (double)(s->in_flight > d->prev_in_flight ? s->in_flight : d->prev_in_flight);
	f->queue = fmax(isfinite(s->queue) ? fmin(s->queue, fmax(depth, 1)) : depth, 1);
	/* A cache takes a write in a fraction of a millisecond plus its
	 * transfer (64 KiB at 200 MB/s: 0.3 ms); a platter needs a seek and
	 * half a rotation first (4-8 ms) for any size. */
	f->fast_service = p->fast_latency + (s->writes > 0 ? s->write_bytes / s->writes / p->fast_transfer : 0);
	const Hist *w = s->interval[TRACE_WRITE];
	f->traced = w != NULL;
	if (w && w->count) {
		/* A wait is a write slower than its queue explains and far slower
		 * than the interval's typical one: a band rewrite among fast acks. */
		double med = hist_quantile(w, 0.5), floor = fmax(f->queue * p->queue_wait, p->stall_spread * med);
		f->stalls = (double)hist_count_over(w, fmax(p->collapse_stall, floor));
		f->long_stalls = (double)hist_count_over(w, fmax(p->slow_stall, floor));
		f->fast = (double)hist_count_under(w, f->fast_service * f->queue);
	}
	/* a busy interval in which nothing completed: a write has waited all of it */
	f->stuck = f->busy && s->in_flight > 0 && done == 0 && dt >= p->collapse_stall;
	/* Every write waiting alike (a serialised slow phase): long per write,
	 * and next to no bytes for the busy time. An SSD past its SLC cache is
	 * slow per write too, but still moves megabytes a second. */
	double busy_s = busy * dt;
	f->crawl = s->writes > 0 && f->service >= p->collapse_service && busy_s > 0 &&
		   s->write_bytes / busy_s <= p->crawl_rate;
	f->waiting = f->stalls > 0 || f->stuck || f->crawl;
}

#define FAST_BUSY_FLOOR 0.25

static void fast_phase(DiskDetect *d, const DetectParams *p, const DetectSample *s, const WriteFacts *f)
{
	/* Busy time per write, not latency: at queue depth 16 a cache that
	 * takes each write in 0.3 ms makes each wait 5 ms in the queue. */
	if (s->writes <= 0 || f->wiops < p->fast_iops || f->service > f->fast_service)
		return;
	if (s->now - d->fast_last > p->fast_memory)
		d->fast_iops = 0, d->fast_latency = f->service;
	/* Per second of busy time: a cache that fills in under a second (47 MiB
	 * at 50 MB/s) shares its one fast interval with the idle time before
	 * the writer started, and per wall second its rate would read as a
	 * fraction of what the cache took, too low for the fall to show. A
	 * busier share than FAST_BUSY_FLOOR is assumed: a few writes in a quiet
	 * interval are no measure of a cache. */
	d->fast_iops = fmax(d->fast_iops, f->wiops / fmax(f->busy_share, FAST_BUSY_FLOOR));
	/* typical, not best: one lucky second must not set the bar */
	d->fast_latency = 0.7 * d->fast_latency + 0.3 * f->service;
	d->fast_last = s->now;
}

static double storm_window(const DetectParams *p) { return fmax(p->storm_window, p->storm_confirm); }

static void remember(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, const WriteFacts *f,
		     bool slow, double part)
{
	ring_fit(d, s->now, storm_window(p));
	ring(d)[d->hist_head] = (DetectInterval){.t = s->now, .dt = (float)dt, .writes = (float)s->writes,
						  .write_time = (float)s->write_time,
						  .part = (float)(slow ? dt : part), .slow = slow,
						  .waiting = f->waiting, .busy = f->busy};
	d->hist_head = (d->hist_head + 1) % d->hist_cap;
	if (d->hist_len < d->hist_cap)
		d->hist_len++;
}

/* A run of busy writing while no fast phase is known, for recognising a
 * disk that was already in its slow phase when smrd started. */
static void run_update(DiskDetect *d, const DetectSample *s, double dt, const WriteFacts *f, bool fast_known)
{
	if (fast_known || d->storm || !f->busy || (s->writes <= 0 && !f->stuck)) {
		d->run = (typeof(d->run)){0};
		return;
	}
	d->run.t += dt;
	d->run.writes += s->writes;
	d->run.bytes += s->write_bytes;
	d->run.write_time += s->write_time;
	d->run.fast += f->fast;
	d->run.stalls += f->long_stalls;
	d->run.stuck += f->stuck;
	d->run.busy += f->busy_share * dt;
	d->run.done += s->reads + s->writes;
	d->run.peak = fmax(d->run.peak, isfinite(s->write_max) ? s->write_max : 0);
}

static void storm_begin(DiskDetect *d, DetectStormKind kind, double start, double now, double writes, double wtime,
			double span, double peak, DetectEmit emit, void *userdata)
{
	char a[24], b[24];
	d->storm = true;
	d->storm_kind = kind;
	d->storms++;
	d->storms_known++;
	d->storm_start = start;
	d->storm_last = now;
	d->storm_peak = peak;
	d->storm_writes = (uint64_t)writes;
	d->storm_bytes = 0;
	d->storm_iops = span > 0 ? writes / span : 0;
	d->storm_latency = writes > 0 ? wtime / writes : 0;
	d->ev_storm = now;
	DetectEvent e = {.kind = EVENT_STORM_START, .op = TRACE_WRITE, .time = start, .latency = d->storm_latency,
			 .count = (uint64_t)writes, .value = kind == STORM_CLIFF ? d->fast_iops : 0};
	if (kind == STORM_CLIFF)
		snprintf(e.message, sizeof e.message,
			 "destage storm: writes fell from %.0f/s at %s to %.1f/s at %s with the queue busy",
			 d->fast_iops, fmt_secs(a, d->fast_latency), d->storm_iops, fmt_secs(b, d->storm_latency));
	else if (kind == STORM_MIXTURE)
		snprintf(e.message, sizeof e.message,
			 "destage storm under way: writes acknowledged faster than platters mixed with waits of up to "
			 "%s, %.1f/s with the queue busy", fmt_secs(a, d->storm_peak), d->storm_iops);
	else
		snprintf(e.message, sizeof e.message,
			 "destage storm under way: every write waits, %.1f/s at %s with the queue busy", d->storm_iops,
			 fmt_secs(a, d->storm_latency));
	emit_event(emit, userdata, &e);
}

static void storm_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, DetectEmit emit,
			void *userdata)
{
	WriteFacts f;
	write_facts(p, d, s, dt, &f);
	d->prev_in_flight = s->in_flight;
	fast_phase(d, p, s, &f);
	bool fast_known = d->storm ? d->storm_kind == STORM_CLIFF : s->now - d->fast_last <= p->fast_memory;

	/* A slow interval: the queue busy and write completions fallen from
	 * the fast phase's rate, whatever the mixture of latencies behind it
	 * (a serialised slow phase, or fast acks among long waits). One that
	 * fell only part of the way may hold the cliff: what its rate lost is
	 * the part of it that was slow. */
	bool slow = false;
	double part = 0;
	if (f.busy && fast_known) {
		/* the rate per wall second: with the queue busy 80% of it or more,
		 * it is at most 1.25x below the fast phase's per busy second */
		slow = s->writes > 0 ? f.wiops * p->collapse_ratio <= d->fast_iops : s->in_flight > 0;
		/* per busy second, as the fast rate is */
		double rate = f.wiops / fmax(f.busy_share, FAST_BUSY_FLOOR);
		part = d->fast_iops > 0 ? dt * fmax(1 - rate / d->fast_iops, 0) : 0;
	} else if (f.busy && d->storm) {	/* a storm recognised without a fast phase */
		slow = f.waiting;
	}
	/* the fall's onset: reset by a fast interval that did not fall (an SSD
	 * past its SLC cache still writes thousands of 4 KiB a second: fast,
	 * and fallen from its peak) */
	if (d->fast_last == s->now && !slow)
		d->fell_at = 0;
	else if (slow && d->fell_at == 0 && fast_known)
		d->fell_at = s->now - dt;
	remember(d, p, s, dt, &f, slow, part);
	run_update(d, s, dt, &f, fast_known);

	double peak = fmax(isfinite(s->write_max) ? s->write_max : 0, isfinite(f.wlat) ? f.wlat : 0);
	if (d->storm) {
		d->storm_writes += (uint64_t)s->writes;
		d->storm_bytes += (uint64_t)s->write_bytes;
		if (slow) {
			d->storm_last = s->now;
			d->storm_peak = fmax(d->storm_peak, peak);
			d->ev_storm = s->now;
		}
		if (!slow && s->now - d->storm_last >= p->storm_end) {
			char a[24], b[24];
			double len = d->storm_last - d->storm_start;
			DetectEvent e = {.kind = EVENT_STORM_END, .op = TRACE_WRITE, .time = d->storm_last,
					 .duration = len, .latency = d->storm_peak, .count = d->storm_writes,
					 .bytes = d->storm_bytes, .value = len > 0 ? (double)d->storm_writes / len : 0};
			snprintf(e.message, sizeof e.message,
				 "destage storm ended after %s: %" PRIu64 " writes completed (%.1f/s), slowest %s",
				 fmt_secs(a, len), d->storm_writes, e.value, fmt_secs(b, d->storm_peak));
			d->storm = false;
			d->run = (typeof(d->run)){0};
			emit_event(emit, userdata, &e);
		}
		return;
	}

	/* A disk already slow when we first see it: a long enough run of busy
	 * writing that mixes fast acknowledgements with long waits, or in
	 * which every write waits. */
	if (d->run.t >= p->slow_confirm && d->run.writes > 0) {
		bool mixture = d->run.fast >= p->slow_fast_share * d->run.writes && d->run.stalls + d->run.stuck >= 3;
		bool serial = d->run.done > 0 && d->run.busy / d->run.done >= p->slow_service &&
			      d->run.bytes / d->run.busy <= p->crawl_rate;
		if (mixture || serial) {
			storm_begin(d, mixture ? STORM_MIXTURE : STORM_SERIAL, s->now - d->run.t, s->now, d->run.writes,
				    d->run.write_time, d->run.t, fmax(d->run.peak, peak), emit, userdata);
			d->run = (typeof(d->run)){0};
			return;
		}
	}
	/* the window's rate may have fallen though this interval's did not */
	if (!slow && !(fast_known && f.busy))
		return;

	/* Confirm: enough slow time in the window (the slow intervals, and the
	 * slow part of one just before a slow one: the cliff), writes among it,
	 * and at least one write that waited longer than its queue explains (an
	 * SSD whose SLC cache ran out also slows down, but never makes one wait).
	 * Or the window as a whole: a disk that frees its cache in bursts
	 * (a sequential writer through it, RAIDZ's 32 KiB chunks) completes
	 * hundreds of writes in one second and two in the next; over the window
	 * the rate has fallen all the same. */
	double window = storm_window(p), sum = 0, writes = 0, wtime = 0, start = s->now;
	const DetectInterval *hist = ring(d);
	double all_dt = 0, all_writes = 0, all_wtime = 0, all_start = s->now;
	bool waited = false, next_slow = false, all_busy = true;
	for (unsigned i = 0; i < d->hist_len; i++) {
		const DetectInterval *h = &hist[(d->hist_head + d->hist_cap - 1 - i) % d->hist_cap];
		if (s->now - h->t >= window)
			break;
		all_dt += h->dt;
		all_writes += h->writes;
		all_wtime += h->write_time;
		all_busy &= h->busy;
		waited |= h->waiting;
		if (h->part > 0)
			all_start = h->t - h->part;
		bool counts = h->slow || (next_slow && h->part > 0);
		next_slow = h->slow;
		if (!counts)
			continue;
		sum += h->part;
		writes += h->writes;
		wtime += h->write_time;
		start = h->t - h->part;
	}
	/* A media cache filling makes writes wait as the rate falls; a disk
	 * that fell without a wait and stays down (an SSD past its SLC cache)
	 * and only later shows a long write (a large one, a new workload) is
	 * not a cache that just filled. */
	if (!waited || (d->fell_at > 0 && s->now - d->fell_at > p->storm_onset))
		return;
	if (sum + 1e-6 < p->storm_confirm || writes <= 0) {
		if (all_dt + 1e-6 < window || !all_busy || all_writes <= 0 ||
		    all_writes * p->collapse_ratio > d->fast_iops * all_dt)
			return;
		sum = all_dt, writes = all_writes, wtime = all_wtime, start = all_start;
	}
	storm_begin(d, STORM_CLIFF, start, s->now, writes, wtime, sum, peak, emit, userdata);
}

/* One slow read on a quiet disk after a write burst: from the host's
 * traffic (an interval) or from a probe read. */
static void idle_observe(DiskDetect *d, const DetectParams *p, double now, double dt, double slowest, double reads,
			 DetectEmit emit, void *userdata)
{
	d->ev_idle = now;
	if (d->idle) {
		d->idle_last = now;
		d->idle_peak = fmax(d->idle_peak, slowest);
		d->idle_reads += (uint64_t)reads;
		return;
	}
	if (!d->idle_pending || now - d->idle_pending_since > p->idle_end) {
		d->idle_pending = 0;
		d->idle_pending_since = now - dt;
		d->idle_reads = 0;
		d->idle_peak = 0;
	}
	d->idle_pending++;
	d->idle_reads += (uint64_t)reads;
	d->idle_peak = fmax(d->idle_peak, slowest);
	if (d->idle_pending >= p->idle_confirm) {
		char a[24];
		d->idle = true;
		d->idle_start = d->idle_pending_since;
		d->idle_last = now;
		DetectEvent e = {.kind = EVENT_IDLE_START, .op = TRACE_READ, .time = d->idle_start,
				 .latency = d->idle_peak, .count = d->idle_reads};
		snprintf(e.message, sizeof e.message,
			 "cleaning while idle: after a write burst, reads wait up to %s with the host nearly quiet",
			 fmt_secs(a, d->idle_peak));
		emit_event(emit, userdata, &e);
	}
}

static bool after_burst(const DiskDetect *d, const DetectParams *p, double now)
{
	return now - d->burst_last <= p->idle_after && !d->storm;
}

static void idle_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, DetectEmit emit,
		       void *userdata)
{
	if (s->writes > 0 && s->busy >= 0.5)
		d->write_busy_run += dt;
	else if (s->writes == 0)
		d->write_busy_run = 0;
	if (d->write_busy_run >= p->idle_burst || d->storm)
		d->burst_last = s->now;
	if (s->reads + s->writes > 0)
		d->host_io_last = s->now;
	d->host_quiet = (s->reads + s->writes) / dt <= p->idle_max_iops && s->writes / dt < 1;

	double slowest = isfinite(s->read_max) ? s->read_max : s->reads > 0 ? s->read_time / s->reads : 0;
	if (after_burst(d, p, s->now) && d->host_quiet && s->reads > 0 && slowest >= p->idle_read_slow) {
		idle_observe(d, p, s->now, dt, slowest, s->reads, emit, userdata);
		return;
	}
	if (d->idle && s->now - d->idle_last >= p->idle_end) {
		char a[24], b[24];
		double len = d->idle_last - d->idle_start;
		DetectEvent e = {.kind = EVENT_IDLE_END, .op = TRACE_READ, .time = d->idle_last, .duration = len,
				 .latency = d->idle_peak, .count = d->idle_reads};
		snprintf(e.message, sizeof e.message, "idle cleaning seen for %s: %" PRIu64 " reads, slowest %s",
			 fmt_secs(a, len), d->idle_reads, fmt_secs(b, d->idle_peak));
		d->idle = false;
		d->idle_pending = 0;
		emit_event(emit, userdata, &e);
	}
}

static void bands_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, DetectEmit emit, void *userdata)
{
	if (s->now < d->bands_next)
		return;
	d->bands_next = s->now + 10;	/* bands move slowly; the search is not free */
	BandRules rules = {.min_share = p->band_min_share, .min_count = p->band_min_count, .valley = p->band_valley};
	Band found[2][BANDS_MAX];
	for (int op = 0; op < 2; op++) {
		const Band *f = found[op];
		unsigned k = s->window[op] ? bands_find(s->window[op], &rules, found[op]) : 0;
		for (unsigned i = 0; i < k; i++)
			d->bands[op][i] = (DetectBand){(float)f[i].centre, (float)f[i].lo, (float)f[i].hi,
						       (float)f[i].share,
						       f[i].count > UINT32_MAX ? UINT32_MAX : (uint32_t)f[i].count};
		d->n_bands[op] = k;
	}
	/* the reads' as found, at full precision */
	const Band *r = found[TRACE_READ];
	unsigned n = d->n_bands[TRACE_READ];
	bool evidence = n >= 2 && r[n - 1].centre >= p->band_slow && r[n - 1].centre >= p->band_ratio * r[0].centre;
	if (evidence)
		d->ev_band = s->now;
	if (evidence && !d->band_evidence) {
		DetectEvent e = {.kind = EVENT_BANDS, .op = TRACE_READ, .time = s->now, .latency = r[n - 1].centre,
				 .count = 0, .value = n};
		int off = snprintf(e.message, sizeof e.message, "read latency splits into %u bands:", n);
		for (unsigned i = 0; i < n; i++) {
			char a[24];
			e.count += r[i].count;
			if (off > 0 && (size_t)off < sizeof e.message)
				off += snprintf(e.message + off, sizeof e.message - (size_t)off, "%s %s (%.0f%%)",
						i ? "," : "", fmt_secs(a, r[i].centre), r[i].share * 100);
		}
		emit_event(emit, userdata, &e);
	}
	d->band_evidence = evidence;
}

void detect_score(const DiskDetect *d, const DetectParams *p, double now, DetectScore *ret)
{
	double *c[] = {&ret->storm, &ret->idle, &ret->band, &ret->stall};
	const double ev[] = {d->ev_storm, d->ev_idle, d->ev_band, d->ev_stall};
	const double w[] = {p->w_storm, p->w_idle, p->w_band, p->w_stall};
	double keep = 1;
	for (size_t i = 0; i < ELEMENTSOF(ev); i++) {
		double age = now - ev[i];
		*c[i] = isfinite(ev[i]) ? w[i] * exp2(-fmax(age, 0) / p->half_life) : 0;
		keep *= 1 - *c[i];
	}
	ret->score = 1 - keep;
}

void detect_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, bool static_smr,
		     DetectEmit emit, void *userdata)
{
	double dt = s->dt > 0 ? s->dt : 1;
	storm_check(d, p, s, dt, emit, userdata);
	idle_check(d, p, s, dt, emit, userdata);
	bands_check(d, p, s, emit, userdata);

	if (static_smr || d->behaviour || !d->storms_known)
		return;
	DetectScore sc;
	detect_score(d, p, s->now, &sc);
	if (sc.score < p->behaviour_score)
		return;
	d->behaviour = true;
	DetectEvent e = {.kind = EVENT_BEHAVIOUR, .op = -1, .time = s->now, .value = sc.score};
	snprintf(e.message, sizeof e.message,
		 "no static SMR evidence, but destage storms: classifying as dm-smr by behaviour (GC score %.2f)",
		 sc.score);
	emit_event(emit, userdata, &e);
}

void detect_slow_io(DiskDetect *d, const DetectParams *p, const char *device, double stall_threshold, int op,
		    double latency, uint64_t sector, uint32_t bytes, double done, double io_timeout, DetectEmit emit,
		    void *userdata)
{
	if (op < 0 || op >= TRACE_OPS)
		return;
	int32_t minute = (int32_t)floor(done / 60);	/* a clock in seconds: minutes fit for 4000 years */
	unsigned slot = (unsigned)(((minute % 10) + 10) % 10);
	if (d->minute_of[slot] != minute) {
		d->minute_of[slot] = minute;
		d->minute_max[slot] = 0;
	}
	d->minute_max[slot] = (float)fmax(d->minute_max[slot], latency);
	if (latency < stall_threshold)
		return;
	char a[24];
	d->stalls[op]++;
	d->stall_max = fmax(d->stall_max, latency);
	d->ev_stall = fmax(d->ev_stall, done);
	DetectEvent e = {.kind = EVENT_STALL, .op = op, .time = done - latency, .latency = latency, .count = 1,
			 .bytes = bytes, .sector = sector};
	snprintf(e.message, sizeof e.message, "%s stalled for %s (sector %" PRIu64 ", %u bytes)", op_name(op),
		 fmt_secs(a, latency), sector, bytes);
	emit_event(emit, userdata, &e);

	/* Once per ten minutes: the advice does not change with every stall. */
	if (io_timeout > 0 && latency >= p->timeout_share * io_timeout && done - d->risk_last >= 600) {
		char b[24];
		d->risk_last = done;
		double advise = fmax(240, ceil(latency * 2 / 10) * 10);	/* twice the worst seen */
		DetectEvent r = e;
		r.kind = EVENT_TIMEOUT_RISK;
		r.value = io_timeout;
		snprintf(r.message, sizeof r.message,
			 "%s took %s, %.0f%% of the kernel's I/O timeout (queue/io_timeout = %s): past it the kernel "
			 "resets the disk and ZFS or md may fault it; to avoid that, echo %.0f > "
			 "/sys/block/%s/queue/io_timeout",
			 op_name(op), fmt_secs(a, latency), latency / io_timeout * 100, fmt_secs(b, io_timeout),
			 advise * 1000, device ? device : "DEVICE");
		emit_event(emit, userdata, &r);
	}
}

double detect_slowest_recent(const DiskDetect *d, double now)
{
	int64_t minute = (int64_t)floor(now / 60);
	double m = 0;
	for (unsigned i = 0; i < 10; i++)
		if (d->minute_max[i] > 0 && d->minute_of[i] > minute - 10 && d->minute_of[i] <= minute)
			m = fmax(m, d->minute_max[i]);
	return m;
}

bool detect_wants_probe(const DiskDetect *d, const DetectParams *p, double now)
{
	/* Never wake a disk the host has left alone: spin-down timers are
	 * minutes; a probe a minute after the host's last I/O keeps nothing up
	 * that the host did not. */
	return after_burst(d, p, now) && d->host_quiet && now - d->host_io_last <= DETECT_PROBE_MAX_IDLE;
}

void detect_probe(DiskDetect *d, const DetectParams *p, double latency, double now, double spacing,
		  DetectEmit emit, void *userdata)
{
	d->probes++;
	d->probe_max = fmax(d->probe_max, latency);
	if (after_burst(d, p, now) && latency >= p->idle_read_slow)
		idle_observe(d, p, now, spacing, latency, 1, emit, userdata);
}

void detect_restore(DiskDetect *d, DetectEventKind kind, double time)
{
	switch (kind) {
	case EVENT_STORM_START:
		d->storms_known++;
		_fallthrough_;
	case EVENT_STORM_END:
		d->ev_storm = fmax(d->ev_storm, time);
		d->burst_last = fmax(d->burst_last, time);	/* a storm is a write burst */
		break;
	case EVENT_IDLE_START:
	case EVENT_IDLE_END:
		d->ev_idle = fmax(d->ev_idle, time);
		break;
	case EVENT_BANDS:
		d->ev_band = fmax(d->ev_band, time);
		break;
	case EVENT_STALL:
	case EVENT_TIMEOUT_RISK:
		d->ev_stall = fmax(d->ev_stall, time);
		break;
	case EVENT_BEHAVIOUR:
		d->behaviour = true;
		break;
	default:
		break;
	}
}
