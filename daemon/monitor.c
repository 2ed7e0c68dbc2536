/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events are stored first (SQLite), then logged; the journal gets them with
 * a stable MESSAGE_ID per kind so that `journalctl MESSAGE_ID=...` finds
 * every storm on every host. Stall messages in the log are rate-limited per
 * disk (the database and the counters keep every one).
 */
#include "monitor.h"

#include <inttypes.h>
#include <math.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "log.h"
#include "probe.h"

#define PRUNE_EVERY_USEC (3600 * UINT64_C(1000000))
#define STALL_LOGS_PER_MINUTE 10
#define RESTORE_MAX 5000

struct Monitor {
	History *history;
	HistoryState history_said;	/* the state last logged */
	bool journal;
	uint64_t last_prune_usec;
	uint64_t events[_EVENT_KIND_MAX];
	uint64_t now_mono_usec, now_real_usec;	/* of the tick or slow I/O being handled */
};

/* Stable: documented in docs/detection.md, relied on by journalctl users. */
static const char *const message_ids[_EVENT_KIND_MAX] = {
	[EVENT_STORM_START] = "2ea57fbbe60848c785306fd6ecb5500a",
	[EVENT_STORM_END] = "9430eb7cdc44466cbde14a697ef778f6",
	[EVENT_STALL] = "22e527359e6345ef839807ec0027da0d",
	[EVENT_TIMEOUT_RISK] = "27af27720d1b493db43ba79223fb9ae4",
	[EVENT_BANDS] = "762ddd2ce6214de990935a85d5599c8b",
	[EVENT_IDLE_START] = "3603099fbf0946deb4efbbf276177bd8",
	[EVENT_IDLE_END] = "2c7defb554fe471ebff5b8e48d2b2d72",
	[EVENT_BEHAVIOUR] = "b3590890556a453d86ce45f12f9584a8",
};

static uint64_t clock_usec(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static const char *identity(const Disk *d)
{
	return d->sys.wwn[0] ? d->sys.wwn : d->sys.serial;
}

static bool static_smr(const Disk *d)
{
	DiskClass c = d->verdict.class;
	return c == DISK_CLASS_DM_SMR || c == DISK_CLASS_HOST_AWARE || c == DISK_CLASS_HOST_MANAGED;
}

/* Logs each change of the history's health once, not each failed insert. */
static void history_said(Monitor *m)
{
	HistoryState s = history_state(m->history);
	if (s == m->history_said)
		return;
	m->history_said = s;
	if (s == HISTORY_OK)
		log_notice("history: %s works again, every event is stored", history_path(m->history));
	else
		log_warning("history: %s; %u event(s) kept in memory (up to %d), written back when it works again",
			    history_last_error(m->history), history_pending(m->history), HISTORY_PENDING_MAX);
}

typedef struct EmitCtx {
	Context *ctx;
	Disk *disk;
} EmitCtx;

static int level_of(const char *severity)
{
	return streq(severity, "crit") ? LOG_CRIT : streq(severity, "warning") ? LOG_WARNING :
	       streq(severity, "notice") ? LOG_NOTICE : LOG_INFO;
}

static void on_event(const DetectEvent *e, void *userdata)
{
	EmitCtx *ec = userdata;
	Monitor *m = ec->ctx->monitor;
	Disk *d = ec->disk;
	double ago = (double)m->now_mono_usec / 1e6 - e->time;
	HistoryEvent h = {
		.time_usec = m->now_real_usec - (uint64_t)(fmax(ago, 0) * 1e6),
		.logged_usec = m->now_real_usec,
		.duration = e->duration, .latency = e->latency, .value = e->value,
		.count = (int64_t)e->count, .bytes = (int64_t)e->bytes, .sector = (int64_t)e->sector,
	};
	snprintf(h.device, sizeof h.device, "%s", d->name);
	snprintf(h.serial, sizeof h.serial, "%s", identity(d));
	snprintf(h.kind, sizeof h.kind, "%s", detect_event_kind_to_string(e->kind));
	snprintf(h.op, sizeof h.op, "%s", e->op >= 0 ? trace_op_to_string(e->op) : "");
	snprintf(h.severity, sizeof h.severity, "%s", detect_event_severity(e->kind));
	snprintf(h.message, sizeof h.message, "%s", e->message);
	m->events[e->kind]++;
	if (history_add(m->history, &h) < 0)
		history_said(m);

	if (e->kind == EVENT_STALL) {
		if (d->stall_log_minute != m->now_mono_usec / 60000000) {
			if (d->stall_log_suppressed)
				log_notice("%s: %u more stall(s) not logged in the last minute (all are in the history)",
					   d->name, d->stall_log_suppressed);
			d->stall_log_minute = m->now_mono_usec / 60000000;
			d->stall_log_count = d->stall_log_suppressed = 0;
		}
		if (d->stall_log_count++ >= STALL_LOGS_PER_MINUTE) {
			d->stall_log_suppressed++;
			return;
		}
	}
	int level = level_of(h.severity);
	log_full(level, "%s: %s", d->name, e->message);
	if (m->journal)
		sd_journal_send("MESSAGE=%s: %s", d->name, e->message, "MESSAGE_ID=%s", message_ids[e->kind],
				"PRIORITY=%d", level, "SMRD_EVENT=%s", h.kind, "DEVICE=/dev/%s", d->name,
				"SMRD_DEVICE=%s", d->name, "SMRD_DISK_ID=%s", h.serial, "SMRD_OP=%s", h.op,
				"SMRD_LATENCY_SEC=%g", e->latency, "SMRD_DURATION_SEC=%g", e->duration,
				"SMRD_COUNT=%" PRId64, h.count, "SMRD_EVENT_ID=%" PRId64, h.id, NULL);
}

typedef struct RestoreRun {
	DiskDetect *det;
	double now_mono;
	uint64_t now_real;
	unsigned n;
} RestoreRun;

static int on_restore(const HistoryEvent *h, void *userdata)
{
	RestoreRun *r = userdata;
	int k = detect_event_kind_from_string(h->kind);
	if (k < 0)
		return 0;
	/* the end of a storm or episode is when its evidence was last seen */
	double end = (double)h->time_usec / 1e6 + (k == EVENT_STORM_END || k == EVENT_IDLE_END ? h->duration : 0);
	detect_restore(r->det, (DetectEventKind)k, r->now_mono - ((double)r->now_real / 1e6 - end));
	r->n++;
	return 0;
}

static void prepare(Context *ctx, Disk *d)
{
	Monitor *m = ctx->monitor;
	detect_init(&d->det);
	d->det_ready = true;
	/* What this disk did before a restart still counts, decayed. */
	const DetectParams *p = &ctx->config.detect;
	double horizon = fmin(p->half_life * 10, ctx->config.history_days * 86400);
	HistoryFilter f = {.device = d->name, .serial = identity(d), .limit = RESTORE_MAX,
			   .since_usec = m->now_real_usec - (uint64_t)fmin(horizon * 1e6, (double)m->now_real_usec)};
	RestoreRun run = {.det = &d->det, .now_mono = (double)m->now_mono_usec / 1e6, .now_real = m->now_real_usec};
	history_query(m->history, &f, on_restore, &run);
	if (run.n)
		log_info("%s: restored %u event(s) from the history (%" PRIu64 " storm(s))", d->name, run.n,
			 d->det.storms_known);
}

static void fill_sample(Context *ctx, Disk *d, DetectSample *s, Hist win[2], double now)
{
	const uint64_t *v = d->ds.delta;
	double dt = d->interval > 0 ? d->interval : ctx->config.interval;
	*s = (DetectSample){
		.now = now, .dt = dt,
		.reads = (double)v[DS_READS], .writes = (double)v[DS_WRITES],
		.read_bytes = (double)v[DS_READ_SECTORS] * 512, .write_bytes = (double)v[DS_WRITE_SECTORS] * 512,
		.read_time = (double)v[DS_READ_MS] / 1e3, .write_time = (double)v[DS_WRITE_MS] / 1e3,
		.busy = fmin((double)v[DS_IO_MS] / 1e3 / dt, 1),
		.in_flight = (unsigned)d->ds.total[DS_IN_FLIGHT],
		.read_max = NAN, .write_max = NAN,
	};
	/* Our own probe reads are not the host's traffic. */
	double probe_s;
	unsigned probes = probe_take_completed(d, &probe_s);
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
		if (now >= d->det.bands_next) {
			lat_window_sum(&o->window, ctx->config.detect.band_window, &win[op]);
			s->window[op] = &win[op];
		}
	}
}

void monitor_tick(Context *ctx, uint64_t now_mono_usec)
{
	Monitor *m = ctx->monitor;
	if (!m)
		return;
	m->now_mono_usec = now_mono_usec;
	m->now_real_usec = clock_usec(CLOCK_REALTIME);
	int written = history_maintain(m->history, now_mono_usec);
	const char *notice = history_take_notice(m->history);
	if (notice)
		log_warning("history: %s", notice);
	if (written > 0)
		log_notice("history: wrote %d event(s) kept in memory to %s", written, history_path(m->history));
	history_said(m);
	double now = (double)now_mono_usec / 1e6;
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		Disk *d = registry_at(ctx->disks, i);
		if (!d->det_ready)
			prepare(ctx, d);
		if (!d->ds.primed || d->interval <= 0)
			continue;
		DetectSample s;
		Hist win[2];
		fill_sample(ctx, d, &s, win, now);
		EmitCtx ec = {ctx, d};
		detect_interval(&d->det, &ctx->config.detect, &s, static_smr(d), on_event, &ec);
		probe_maybe(ctx, d, now);
	}
	if (now_mono_usec - m->last_prune_usec >= PRUNE_EVERY_USEC || !m->last_prune_usec) {
		m->last_prune_usec = now_mono_usec;
		uint64_t keep = (uint64_t)(ctx->config.history_days * 86400e6);
		int r = history_prune(m->history, m->now_real_usec > keep ? m->now_real_usec - keep : 0,
				      (uint64_t)ctx->config.history_max_events);
		if (r > 0)
			log_info("history: pruned %d old event(s)", r);
	}
}

void monitor_slow_io(Context *ctx, Disk *d, const SlowRecord *r)
{
	Monitor *m = ctx->monitor;
	if (!m)
		return;
	m->now_mono_usec = clock_usec(CLOCK_MONOTONIC);
	m->now_real_usec = clock_usec(CLOCK_REALTIME);
	if (!d->det_ready)
		prepare(ctx, d);
	EmitCtx ec = {ctx, d};
	double timeout = d->sys.io_timeout_ms > 0 ? (double)d->sys.io_timeout_ms / 1000 : 0;
	detect_slow_io(&d->det, &ctx->config.detect, d->name, r->op, r->latency, r->sector, r->bytes,
		       (double)r->done_mono_usec / 1e6, timeout, on_event, &ec);
}

void monitor_probe_result(Context *ctx, Disk *d, double latency, double now)
{
	Monitor *m = ctx->monitor;
	if (!m || !d->det_ready)
		return;
	m->now_mono_usec = (uint64_t)(now * 1e6);
	m->now_real_usec = clock_usec(CLOCK_REALTIME);
	EmitCtx ec = {ctx, d};
	detect_probe(&d->det, &ctx->config.detect, latency, now, ctx->config.probe_interval, on_event, &ec);
}

void monitor_disk_gone(Context *ctx, Disk *d)
{
	Monitor *m = ctx->monitor;
	probe_disk_gone(ctx, d);
	if (!m || !d->det_ready)
		return;
	m->now_mono_usec = clock_usec(CLOCK_MONOTONIC);
	m->now_real_usec = clock_usec(CLOCK_REALTIME);
	/* An idle interval long enough to end whatever is open. */
	double now = (double)m->now_mono_usec / 1e6, gap = ctx->config.detect.storm_end + ctx->config.detect.idle_end;
	DetectSample s = {.now = now + gap, .dt = gap, .read_max = NAN, .write_max = NAN};
	EmitCtx ec = {ctx, d};
	if (d->det.storm || d->det.idle)
		detect_interval(&d->det, &ctx->config.detect, &s, static_smr(d), on_event, &ec);
}

void monitor_score(const Context *ctx, const Disk *d, DetectScore *ret)
{
	*ret = (DetectScore){0};
	if (d->det_ready && ctx->monitor)
		detect_score(&d->det, &ctx->config.detect, (double)clock_usec(CLOCK_MONOTONIC) / 1e6, ret);
}

static double combined(const Disk *d, double score)
{
	/* Behaviour adds to what the static evidence says, never subtracts. */
	return 1 - (1 - d->verdict.smr_confidence) * (1 - score);
}

double monitor_smr_confidence(const Context *ctx, const Disk *d)
{
	DetectScore sc;
	monitor_score(ctx, d, &sc);
	return combined(d, sc.score);
}

bool monitor_smr_by_behaviour(const Disk *d)
{
	return d->det_ready && d->det.behaviour && !static_smr(d);
}

void monitor_verdict(const Context *ctx, const Disk *d, Verdict *ret)
{
	*ret = d->verdict;
	DetectScore sc;
	monitor_score(ctx, d, &sc);
	ret->smr_confidence = combined(d, sc.score);
	if (!monitor_smr_by_behaviour(d))
		return;
	ret->class = DISK_CLASS_DM_SMR;
	ret->confidence = fmax(sc.score, ctx->config.detect.behaviour_score);
	snprintf(ret->basis, sizeof ret->basis, "behaviour: destage storms with no static SMR evidence (GC score %.2f)",
		 sc.score);
	for (unsigned i = 0; i < ret->n_evidence; i++)
		ret->evidence[i].decisive = false;
	unsigned i = ret->n_evidence < VERDICT_MAX_EVIDENCE ? ret->n_evidence++ : VERDICT_MAX_EVIDENCE - 1;
	Evidence *e = &ret->evidence[i];
	*e = (Evidence){.decisive = true};
	snprintf(e->source, sizeof e->source, "smrd detector");
	snprintf(e->value, sizeof e->value, "%" PRIu64 " destage storm(s) on record, GC score %.2f",
		 d->det.storms_known, sc.score);
	snprintf(e->implies, sizeof e->implies, "drive-managed SMR by behaviour (the media cache fills, then writes stall)");
}

int monitor_start(Context *ctx)
{
	Monitor *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	ctx->monitor = m;
	_cleanup_free_ char *err = NULL;
	int r = history_open(ctx->config.state_dir, &m->history, &err);
	if (!m->history)
		return r;
	if (r == -ESTALE)
		log_warning("history: %s", err ? err : "database was corrupt, started a new one");
	else if (r < 0)
		log_error("history: %s", err ? err : "cannot open");
	else
		log_info("history: %s", history_path(m->history));
	m->history_said = history_state(m->history);
	m->journal = access("/run/systemd/journal/socket", W_OK) == 0;
	return 0;
}

void monitor_stop(Context *ctx)
{
	Monitor *m = ctx->monitor;
	if (!m)
		return;
	/* Open storms stay open: a restart restores them from the history. */
	probe_stop_all(ctx);
	history_close(m->history);
	free(m);
	ctx->monitor = NULL;
}

History *monitor_history(const Context *ctx) { return ctx->monitor ? ctx->monitor->history : NULL; }
uint64_t monitor_events_total(const Context *ctx, DetectEventKind k)
{
	return ctx->monitor && (unsigned)k < _EVENT_KIND_MAX ? ctx->monitor->events[k] : 0;
}
