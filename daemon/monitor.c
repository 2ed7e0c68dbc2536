/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's shell. Its events go through the one event path
 * (recorder.h): history, journal, log, counts and the notifier are there.
 */
#include "monitor.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "format.h"
#include "log.h"
#include "prober.h"

#define RESTORE_MAX 5000

struct Monitor {
	const Config *cfg;
	DiskRegistry *disks;
	History *history;		/* the context's: a disk's past is restored from it */
	Recorder *recorder;
	Prober *prober;			/* NULL: probes are never sent (not the live /sys) */
	uint64_t now_mono_usec, now_real_usec;	/* of the tick or slow I/O being handled */
	double now_local;			/* the tick's local time: seconds since the epoch plus the UTC offset */
	uint64_t samples;			/* ticks so far */
	double host_steal;			/* of this tick's interval; NaN unknown */
	uint64_t host_stalls;			/* intervals detect_host_stalled() */
	uint64_t host_stall_said;		/* CLOCK_MONOTONIC of the last one logged */
};

/* What the monitor keeps of a disk besides the detector's state. */
struct MonitorDisk {
	ProbeSlot probe;
};

/* NULL without memory: no probe. */
static MonitorDisk *mon_of(Disk *d)
{
	if (!d->mon)
		d->mon = calloc(1, sizeof *d->mon);
	return d->mon;
}

static void mon_free(Monitor *m, Disk *d)
{
	if (!d->mon)
		return;
	if (m->prober)
		prober_disk_gone(m->prober, &d->mon->probe);
	free(d->mon);
	d->mon = NULL;
}

static DiskViewClock view_clock(const Monitor *m)
{
	return (DiskViewClock){.mono = (double)m->now_mono_usec / 1e6, .real = (double)m->now_real_usec / 1e6,
			       .sample = m->samples};
}

/* The idle budget's clock: local time, so that its hours are the hours
 * of the admin's day; NaN when the time zone cannot be had. */
static double local_seconds(uint64_t real_usec)
{
	time_t t = (time_t)(real_usec / 1000000);
	struct tm tm;
	if (!localtime_r(&t, &tm))
		return NAN;
	return (double)real_usec / 1e6 + (double)tm.tm_gmtoff;
}

static void clocks(Monitor *m)
{
	m->now_mono_usec = now_usec(CLOCK_MONOTONIC);
	m->now_real_usec = now_usec(CLOCK_REALTIME);
}

typedef struct EmitCtx {
	Monitor *m;
	Disk *disk;
} EmitCtx;

static void on_event(const DetectEvent *e, void *userdata)
{
	EmitCtx *ec = userdata;
	Monitor *m = ec->m;
	double ago = (double)m->now_mono_usec / 1e6 - e->time;
	EventRecord r = {
		.kind = e->kind, .disk = ec->disk,
		.time_usec = m->now_real_usec - (uint64_t)fmin(fmax(ago, 0) * 1e6, (double)m->now_real_usec),
		.op = e->op >= 0 ? trace_op_to_string(e->op) : NULL,
		.duration = e->duration, .latency = e->latency, .value = e->value,
		.count = (int64_t)e->count, .bytes = (int64_t)e->bytes, .sector = (int64_t)e->sector,
		.message = e->message,
	};
	(void)recorder_record(m->recorder, &r, m->now_real_usec, NULL);
}

typedef struct RestoreRun {
	DiskDetect *det;
	const DetectParams *params;
	double now_mono;
	uint64_t now_real;
	unsigned n;
	bool points;			/* this query's idle-recovery events are the curve's points */
} RestoreRun;

/* An incident's slow I/Os are counted, not rows: its last one is what the
 * detector takes back (when the disk last stalled). */
static int on_restore_incident(const Incident *i, void *userdata)
{
	RestoreRun *r = userdata;
	if (i->last_slow_usec)
		detect_restore(r->det, r->params, EVENT_STALL,
			       r->now_mono - ((double)r->now_real / 1e6 - (double)i->last_slow_usec / 1e6), i->slow_worst);
	return 0;
}

static int on_restore(const HistoryEvent *h, void *userdata)
{
	RestoreRun *r = userdata;
	DetectEventKind k = detect_event_kind_from_string(h->kind);
	if (k < 0)
		return 0;
	/* an end event is at the end: when the evidence was last seen */
	double t = (double)h->time_usec / 1e6;
	DetectEvent e = {.kind = k, .duration = h->duration, .latency = h->latency, .value = h->value,
			 .count = (uint64_t)h->count, .bytes = (uint64_t)h->bytes, .sector = (uint64_t)h->sector};
	if (k == EVENT_MEDIA_CACHE) {
		/* in time order: the last one is the model as it was learnt */
		detect_restore_cache(r->det, &e);
	} else if (k == EVENT_IDLE_RECOVERY) {
		/* the curve's points by their own query, however old */
		if (r->points)
			detect_restore_point(r->det, &e);
	} else {
		detect_restore(r->det, r->params, k, r->now_mono - ((double)r->now_real / 1e6 - t), h->latency);
	}
	r->n++;
	return 0;
}

/* A disk's own past: the events under its key (registry_disk_key), so that
 * one renamed (sdb is sdc after a reboot) keeps it; no identity, its name.
 * The key with the name (identity@name) is told apart only by that name:
 * a disk whose identity another watched disk presents too gets back what
 * was recorded under its present name (in either form: the plain identity
 * before the other disk came, or in a database from before keys had a
 * name), never the other's; a disk alone with its identity again gets what
 * it recorded under this name while it had company. */
static void own_past(Monitor *m, const Disk *d, HistoryFilter *f, char key[DISK_KEY_MAX])
{
	const char *id = disk_identity(d);
	f->device = d->name;
	if (!id[0])
		return;
	bool shared = registry_identity_shared(m->disks, d);
	f->serial = shared ? registry_named_key(d, key) : id;
	f->serial_on_device = shared ? id : registry_named_key(d, key);
	if (shared)
		log_notice("%s: another watched disk presents its identity %s too: its history is told apart by name",
			   d->name, id);
}

static void prepare(Monitor *m, Disk *d)
{
	detect_init(&d->det);
	d->det_ready = true;
	/* What this disk did before a restart still counts, decayed. */
	double horizon = fmin(m->cfg->detect.half_life * 10, m->cfg->history_days * 86400);
	char key[DISK_KEY_MAX];
	HistoryFilter f = {.limit = RESTORE_MAX,
			   .since_usec = m->now_real_usec - (uint64_t)fmin(horizon * 1e6, (double)m->now_real_usec)};
	own_past(m, d, &f, key);
	RestoreRun run = {.det = &d->det, .params = &m->cfg->detect, .now_mono = (double)m->now_mono_usec / 1e6,
			  .now_real = m->now_real_usec};
	history_query(m->history, &f, on_restore, &run);
	/* the media cache as last learnt, however old: a disk's cache does not
	 * decay, and stalls may have pushed it out of the newest RESTORE_MAX */
	HistoryFilter fc = f;
	fc.limit = 1, fc.since_usec = 0, fc.kind = event_kind_info(EVENT_MEDIA_CACHE)->name;
	history_query(m->history, &fc, on_restore, &run);
	/* the idle-recovery curve's newest points, however old: what a rest
	 * gives back changes with the disk, not with time */
	fc.limit = IDLE_RESTORE_EVENTS, fc.kind = event_kind_info(EVENT_IDLE_RECOVERY)->name;
	run.points = true;
	history_query(m->history, &fc, on_restore, &run);
	HistoryIncidentFilter fi = {.disk_id = f.serial, .device = d->name, .since_usec = f.since_usec};
	history_query_incidents(m->history, &fi, on_restore_incident, &run);
	detect_restore_done(&d->det, &m->cfg->detect, (double)m->now_mono_usec / 1e6);
	DiskViewClock c = view_clock(m);
	diskview_update(d, &m->cfg->detect, &c);
	if (run.n)
		log_info("%s: restored %u event(s) from the history (%" PRIu64 " storm(s))", d->name, run.n,
			 d->det.storm.known);
}

static void fill_sample(Monitor *m, Disk *d, DetectSample *s, Hist win[2], double now)
{
	const uint64_t *v = d->ds.delta;
	double dt = d->interval > 0 ? d->interval : m->cfg->interval;
	*s = (DetectSample){
		.now = now, .dt = dt,
		.reads = (double)v[DS_READS], .writes = (double)v[DS_WRITES],
		.read_bytes = (double)v[DS_READ_SECTORS] * 512, .write_bytes = (double)v[DS_WRITE_SECTORS] * 512,
		.read_time = (double)v[DS_READ_MS] / 1e3, .write_time = (double)v[DS_WRITE_MS] / 1e3,
		.discards = (double)v[DS_DISCARDS], .discard_time = (double)v[DS_DISCARD_MS] / 1e3,
		.flushes = (double)v[DS_FLUSHES], .flush_time = (double)v[DS_FLUSH_MS] / 1e3,
		.busy = fmin((double)v[DS_IO_MS] / 1e3 / dt, 1),
		.queue = (double)v[DS_WEIGHTED_MS] / 1e3 / dt,
		.in_flight = (unsigned)d->ds.total[DS_IN_FLIGHT],
		.read_max = NAN, .write_max = NAN, .host_steal = m->host_steal, .wall = m->now_local,
		/* an SMR suspect by what it is, as the views call one (a class by
		 * behaviour needs storms, which the detector counts itself) */
		.smr_static = d->verdict.smr_confidence >= SMR_CONF_TRIM_HINT,
	};
	/* Our own probe reads are not the host's traffic. */
	double probe_s = 0;
	unsigned probes = d->mon ? prober_take_completed(&d->mon->probe, &probe_s) : 0;
	if (probes) {
		s->reads = fmax(s->reads - probes, 0);
		s->read_time = fmax(s->read_time - probe_s, 0);
	}
	if (!d->lat)
		return;
	for (int op = 0; op < 2; op++) {
		const OpLatency *o = d->lat->op[op];
		if (!o)
			continue;
		double mx = hist_max(&o->window.last_second);
		if (op == TRACE_READ)
			s->read_max = probes && !s->reads ? NAN : mx;
		else
			s->write_max = mx;
		s->interval[op] = &o->window.last_second;
		if (now >= d->det.bands.next) {
			lat_window_sum(&o->window, m->cfg->detect.band_window, &win[op]);
			s->window[op] = &win[op];
		}
	}
}

/* Said at most once an hour: a busy hypervisor does it all day. */
static void host_stall(Monitor *m, double dt)
{
	DetectSample s = {.dt = dt, .host_steal = m->host_steal};
	if (!detect_host_stalled(&m->cfg->detect, &s))
		return;
	m->host_stalls++;
	if (m->host_stall_said && m->now_mono_usec - m->host_stall_said < 3600 * 1000000ULL)
		return;
	m->host_stall_said = m->now_mono_usec;
	log_notice("the hypervisor held a CPU for %.2f s of the last %.0f s: what the disks waited then is not taken "
		   "as their behaviour (said once an hour; smrd_host_stalled_intervals_total counts them)",
		   m->host_steal, dt);
}

uint64_t monitor_host_stalls(const Monitor *m)
{
	assert(m);
	return m->host_stalls;
}

void monitor_tick(Monitor *m, const TickTime *tick, double host_steal)
{
	uint64_t now_mono_usec = tick->mono_usec;
	m->now_mono_usec = now_mono_usec;
	m->now_real_usec = tick->real_usec;
	m->now_local = local_seconds(tick->real_usec);
	m->host_steal = host_steal;
	host_stall(m, m->cfg->interval);
	m->samples++;
	double now = (double)now_mono_usec / 1e6;
	DiskViewClock c = view_clock(m);
	for (size_t i = 0; i < registry_size(m->disks); i++) {
		Disk *d = registry_at(m->disks, i);
		if (!d->det_ready)
			prepare(m, d);
		/* smrd.conf's figure, until the disk's own storms give one */
		if (isfinite(d->tuning.media_cache) && !disk_model_known(&d->det.cache.model))
			detect_seed_cache(&d->det, d->tuning.media_cache);
		if (d->ds.primed && d->interval > 0) {
			DetectSample s;
			Hist win[2];
			fill_sample(m, d, &s, win, now);
			EmitCtx ec = {m, d};
			detect_interval(&d->det, &m->cfg->detect, &s, disk_may_reclassify(d), on_event, &ec);
			MonitorDisk *md;
			if (m->prober && m->cfg->probe && detect_wants_probe(&d->det, &m->cfg->detect, now) &&
			    (md = mon_of(d)))
				prober_maybe(m->prober, &md->probe, d, now, m->cfg->probe_interval);
		}
		diskview_update(d, &m->cfg->detect, &c);
	}
}

void monitor_slow_io(Monitor *m, Disk *d, const SlowRecord *r, const TickTime *now)
{
	m->now_mono_usec = now->mono_usec;
	m->now_real_usec = now->real_usec;
	if (!d->det_ready)
		prepare(m, d);
	EmitCtx ec = {m, d};
	double timeout = d->sys.io_timeout_ms > 0 ? (double)d->sys.io_timeout_ms / 1000 : 0;
	DetectSlowIo io = {.op = r->op, .latency = r->latency, .still = r->still, .sector = r->sector, .bytes = r->bytes,
			   .done = (double)r->done_mono_usec / 1e6};
	detect_slow_io(&d->det, &m->cfg->detect, d->name, disk_stall_threshold(d, &m->cfg->detect), &io, timeout,
		       on_event, &ec);
}

static void on_probe(Disk *d, double latency, double now, void *userdata)
{
	Monitor *m = userdata;
	if (!d->det_ready)
		return;
	m->now_mono_usec = (uint64_t)(now * 1e6);
	m->now_real_usec = now_usec(CLOCK_REALTIME);
	EmitCtx ec = {m, d};
	detect_probe(&d->det, &m->cfg->detect, latency, now, m->cfg->probe_interval, on_event, &ec);
}

void monitor_disk_gone(Monitor *m, Disk *d)
{
	mon_free(m, d);
	if (!d->det_ready)
		return;
	clocks(m);
	/* An idle interval long enough to end whatever is open. */
	const DetectParams *p = &m->cfg->detect;
	double now = (double)m->now_mono_usec / 1e6, gap = p->storm_end + p->idle_end;
	DetectSample s = {.now = now + gap, .dt = gap, .read_max = NAN, .write_max = NAN};
	EmitCtx ec = {m, d};
	if (d->det.storm.active || d->det.idle.active)
		detect_interval(&d->det, p, &s, disk_may_reclassify(d), on_event, &ec);
	DiskViewClock c = view_clock(m);
	diskview_update(d, p, &c);
}

int monitor_forget(Monitor *m, Disk *d)
{
	/* an identity another watched disk shares is not this disk's: by name only */
	int n = history_forget(m->history, d->name, registry_identity_shared(m->disks, d) ? "" : disk_identity(d));
	if (n < 0)
		return n;
	detect_done(&d->det);
	detect_init(&d->det);	/* det_ready stays: nothing to restore */
	clocks(m);
	DiskViewClock c = view_clock(m);
	diskview_update(d, &m->cfg->detect, &c);
	return n;
}

int monitor_new(sd_event *e, const Config *cfg, DiskRegistry *disks, History *history, Recorder *recorder, bool live,
		Monitor **ret)
{
	Monitor *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	*m = (Monitor){.cfg = cfg, .disks = disks, .history = history, .recorder = recorder, .host_steal = NAN};
	/* Probes read whole disks: only this host's, never a captured tree's. */
	ProberCallbacks pcb = {.result = on_probe, .userdata = m};
	int r;
	if (live && (r = prober_new(e, "/dev", &pcb, &m->prober)) < 0) {
		monitor_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

Monitor *monitor_free(Monitor *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < registry_size(m->disks); i++)
		mon_free(m, registry_at(m->disks, i));
	m->prober = prober_free(m->prober);
	free(m);
	return NULL;
}
