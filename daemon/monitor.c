/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events are stored first (SQLite), then logged; the journal gets them with
 * the stable MESSAGE_ID of their kind (core/events.c) so that
 * `journalctl MESSAGE_ID=...` finds every storm on every host. Stall
 * messages in the log are rate-limited per disk (the database and the
 * counters keep every one).
 */
#include "monitor.h"

#include <inttypes.h>
#include <math.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "probe.h"

#define PRUNE_EVERY_USEC (3600 * UINT64_C(1000000))
#define STALL_LOGS_PER_MINUTE 10
#define RESTORE_MAX 5000

struct Monitor {
	const Config *cfg;
	DiskRegistry *disks;
	History *history;
	HistoryState history_said;	/* the state last logged */
	Prober *prober;			/* NULL: probes are never sent (not the live /sys) */
	bool journal;
	uint64_t last_prune_usec;
	uint64_t events[_EVENT_KIND_MAX];
	uint64_t now_mono_usec, now_real_usec;	/* of the tick or slow I/O being handled */
};

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

static void clocks(Monitor *m)
{
	m->now_mono_usec = now_usec(CLOCK_MONOTONIC);
	m->now_real_usec = now_usec(CLOCK_REALTIME);
}

typedef struct EmitCtx {
	Monitor *m;
	Disk *disk;
} EmitCtx;

/* Stalls can come by the thousand: at most a few log lines per disk a minute. */
static bool stall_log_allowed(Monitor *m, Disk *d)
{
	if (d->stall_log_minute != m->now_mono_usec / 60000000) {
		if (d->stall_log_suppressed)
			log_notice("%s: %u more stall(s) not logged in the last minute (all are in the history)", d->name,
				   d->stall_log_suppressed);
		d->stall_log_minute = m->now_mono_usec / 60000000;
		d->stall_log_count = d->stall_log_suppressed = 0;
	}
	if (d->stall_log_count++ < STALL_LOGS_PER_MINUTE)
		return true;
	d->stall_log_suppressed++;
	return false;
}

static void on_event(const DetectEvent *e, void *userdata)
{
	EmitCtx *ec = userdata;
	Monitor *m = ec->m;
	Disk *d = ec->disk;
	const EventKindInfo *k = event_kind_info(e->kind);
	double ago = (double)m->now_mono_usec / 1e6 - e->time;
	HistoryEvent h = {
		.time_usec = m->now_real_usec - (uint64_t)(fmax(ago, 0) * 1e6),
		.logged_usec = m->now_real_usec,
		.duration = e->duration, .latency = e->latency, .value = e->value,
		.count = (int64_t)e->count, .bytes = (int64_t)e->bytes, .sector = (int64_t)e->sector,
	};
	snprintf(h.device, sizeof h.device, "%s", d->name);
	snprintf(h.serial, sizeof h.serial, "%s", disk_identity(d));
	snprintf(h.kind, sizeof h.kind, "%s", k->name);
	snprintf(h.op, sizeof h.op, "%s", e->op >= 0 ? trace_op_to_string(e->op) : "");
	snprintf(h.severity, sizeof h.severity, "%s", k->severity);
	snprintf(h.message, sizeof h.message, "%s", e->message);
	m->events[e->kind]++;
	if (history_add(m->history, &h) < 0)
		history_said(m);
	if (e->kind == EVENT_STALL && !stall_log_allowed(m, d))
		return;
	log_full(k->priority, "%s: %s", d->name, e->message);
	if (m->journal)
		sd_journal_send("MESSAGE=%s: %s", d->name, e->message, "MESSAGE_ID=%s", k->message_id,
				"PRIORITY=%d", k->priority, "SMRD_EVENT=%s", h.kind, "DEVICE=/dev/%s", d->name,
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
	DetectEventKind k = detect_event_kind_from_string(h->kind);
	if (k < 0)
		return 0;
	/* an end event is at the end: when the evidence was last seen */
	double t = (double)h->time_usec / 1e6;
	detect_restore(r->det, k, r->now_mono - ((double)r->now_real / 1e6 - t));
	r->n++;
	return 0;
}

static void prepare(Monitor *m, Disk *d)
{
	detect_init(&d->det);
	d->det_ready = true;
	/* What this disk did before a restart still counts, decayed. */
	double horizon = fmin(m->cfg->detect.half_life * 10, m->cfg->history_days * 86400);
	HistoryFilter f = {.device = d->name, .serial = disk_identity(d), .limit = RESTORE_MAX,
			   .since_usec = m->now_real_usec - (uint64_t)fmin(horizon * 1e6, (double)m->now_real_usec)};
	RestoreRun run = {.det = &d->det, .now_mono = (double)m->now_mono_usec / 1e6, .now_real = m->now_real_usec};
	history_query(m->history, &f, on_restore, &run);
	if (run.n)
		log_info("%s: restored %u event(s) from the history (%" PRIu64 " storm(s))", d->name, run.n,
			 d->det.storms_known);
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
		.busy = fmin((double)v[DS_IO_MS] / 1e3 / dt, 1),
		.queue = (double)v[DS_WEIGHTED_MS] / 1e3 / dt,
		.in_flight = (unsigned)d->ds.total[DS_IN_FLIGHT],
		.read_max = NAN, .write_max = NAN,
	};
	/* Our own probe reads are not the host's traffic. */
	double probe_s;
	unsigned probes = prober_take_completed(d, &probe_s);
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
		if (now >= d->det.bands_next) {
			lat_window_sum(&o->window, m->cfg->detect.band_window, &win[op]);
			s->window[op] = &win[op];
		}
	}
}

static void prune(Monitor *m)
{
	if (m->now_mono_usec - m->last_prune_usec < PRUNE_EVERY_USEC && m->last_prune_usec)
		return;
	m->last_prune_usec = m->now_mono_usec;
	uint64_t keep = (uint64_t)(m->cfg->history_days * 86400e6);
	int r = history_prune(m->history, m->now_real_usec > keep ? m->now_real_usec - keep : 0,
			      (uint64_t)m->cfg->history_max_events);
	if (r > 0)
		log_info("history: pruned %d old event(s)", r);
}

void monitor_tick(Monitor *m, uint64_t now_mono_usec)
{
	m->now_mono_usec = now_mono_usec;
	m->now_real_usec = now_usec(CLOCK_REALTIME);
	int written = history_maintain(m->history, now_mono_usec);
	const char *notice = history_take_notice(m->history);
	if (notice)
		log_warning("history: %s", notice);
	if (written > 0)
		log_notice("history: wrote %d event(s) kept in memory to %s", written, history_path(m->history));
	history_said(m);
	double now = (double)now_mono_usec / 1e6;
	for (size_t i = 0; i < registry_size(m->disks); i++) {
		Disk *d = registry_at(m->disks, i);
		if (!d->det_ready)
			prepare(m, d);
		if (!d->ds.primed || d->interval <= 0)
			continue;
		DetectSample s;
		Hist win[2];
		fill_sample(m, d, &s, win, now);
		EmitCtx ec = {m, d};
		detect_interval(&d->det, &m->cfg->detect, &s, static_smr(d), on_event, &ec);
		if (m->prober && m->cfg->probe && detect_wants_probe(&d->det, &m->cfg->detect, now))
			prober_maybe(m->prober, d, now, m->cfg->probe_interval);
	}
	prune(m);
}

void monitor_slow_io(Monitor *m, Disk *d, const SlowRecord *r)
{
	clocks(m);
	if (!d->det_ready)
		prepare(m, d);
	EmitCtx ec = {m, d};
	double timeout = d->sys.io_timeout_ms > 0 ? (double)d->sys.io_timeout_ms / 1000 : 0;
	detect_slow_io(&d->det, &m->cfg->detect, d->name, disk_stall_threshold(d, &m->cfg->detect), r->op, r->latency, r->sector, r->bytes,
		       (double)r->done_mono_usec / 1e6, timeout, on_event, &ec);
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
	if (m->prober)
		prober_disk_gone(m->prober, d);
	if (!d->det_ready)
		return;
	clocks(m);
	/* An idle interval long enough to end whatever is open. */
	const DetectParams *p = &m->cfg->detect;
	double now = (double)m->now_mono_usec / 1e6, gap = p->storm_end + p->idle_end;
	DetectSample s = {.now = now + gap, .dt = gap, .read_max = NAN, .write_max = NAN};
	EmitCtx ec = {m, d};
	if (d->det.storm || d->det.idle)
		detect_interval(&d->det, p, &s, static_smr(d), on_event, &ec);
}

void monitor_score(const Monitor *m, const Disk *d, DetectScore *ret)
{
	*ret = (DetectScore){0};
	if (d->det_ready && m)
		detect_score(&d->det, &m->cfg->detect, now_seconds(CLOCK_MONOTONIC), ret);
}

static double combined(const Disk *d, double score)
{
	/* Behaviour adds to what the static evidence says, never subtracts. */
	return 1 - (1 - d->verdict.smr_confidence) * (1 - score);
}

double monitor_smr_confidence(const Monitor *m, const Disk *d)
{
	DetectScore sc;
	monitor_score(m, d, &sc);
	return combined(d, sc.score);
}

bool monitor_smr_by_behaviour(const Disk *d)
{
	return d->det_ready && d->det.behaviour && !static_smr(d);
}

void monitor_count(const Monitor *m, unsigned *ret_suspects, unsigned *ret_storms)
{
	unsigned suspects = 0, storms = 0;
	for (size_t i = 0; m && i < registry_size(m->disks); i++) {
		const Disk *d = registry_at(m->disks, i);
		suspects += monitor_smr_confidence(m, d) >= SMR_CONF_TRIM_HINT;
		storms += d->det_ready && d->det.storm;
	}
	*ret_suspects = suspects;
	*ret_storms = storms;
}

DiskClass monitor_class(const Monitor *m, const Disk *d)
{
	(void)m;
	return monitor_smr_by_behaviour(d) ? DISK_CLASS_DM_SMR : d->verdict.class;
}

/* What behaviour adds to the static class: the combined confidence, and a
 * disk with storms and no static SMR evidence becomes dm-smr. Returns
 * whether it did; shared by the summary and the full verdict. */
static bool apply_behaviour(const Monitor *m, const Disk *d, DiskClass *class, double *confidence,
			    double *smr_confidence, char *basis, size_t n, DetectScore *sc)
{
	monitor_score(m, d, sc);
	*smr_confidence = combined(d, sc->score);
	if (!monitor_smr_by_behaviour(d))
		return false;
	*class = DISK_CLASS_DM_SMR;
	*confidence = fmax(sc->score, m->cfg->detect.behaviour_score);
	snprintf(basis, n, "behaviour: destage storms with no static SMR evidence (GC score %.2f)", sc->score);
	return true;
}

void monitor_summary(const Monitor *m, const Disk *d, VerdictSummary *ret)
{
	DetectScore sc;
	*ret = d->verdict;
	apply_behaviour(m, d, &ret->class, &ret->confidence, &ret->smr_confidence, ret->basis, sizeof ret->basis, &sc);
}

void monitor_verdict(const Monitor *m, const ModelList *models, const Disk *d, Verdict *ret)
{
	DetectScore sc;
	DiskFacts f;
	disk_sys_facts(&d->sys, &f);
	classify_disk(&f, models, ret);
	if (!apply_behaviour(m, d, &ret->class, &ret->confidence, &ret->smr_confidence, ret->basis, sizeof ret->basis,
			     &sc))
		return;
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

int monitor_forget(Monitor *m, Disk *d)
{
	int n = history_forget(m->history, d->name, disk_identity(d));
	if (n < 0)
		return n;
	detect_done(&d->det);
	detect_init(&d->det);	/* det_ready stays: nothing to restore */
	return n;
}

int monitor_new(sd_event *e, const Config *cfg, DiskRegistry *disks, bool live, Monitor **ret)
{
	Monitor *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	*m = (Monitor){.cfg = cfg, .disks = disks};
	_cleanup_free_ char *err = NULL;
	int r = history_open(cfg->state_dir, &m->history, &err);
	if (!m->history) {
		free(m);
		return r;
	}
	if (r == -ESTALE)
		log_warning("history: %s", err ? err : "database was corrupt, started a new one");
	else if (r < 0)
		log_error("history: %s", err ? err : "cannot open");
	else
		log_info("history: %s", history_path(m->history));
	m->history_said = history_state(m->history);
	m->journal = access("/run/systemd/journal/socket", W_OK) == 0;
	/* Probes read whole disks: only this host's, never a captured tree's. */
	ProberCallbacks pcb = {.result = on_probe, .userdata = m};
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
	for (size_t i = 0; m->prober && i < registry_size(m->disks); i++)
		prober_disk_gone(m->prober, registry_at(m->disks, i));
	m->prober = prober_free(m->prober);
	history_close(m->history);
	free(m);
	return NULL;
}

History *monitor_history(const Monitor *m) { return m ? m->history : NULL; }

uint64_t monitor_events_total(const Monitor *m, DetectEventKind k)
{
	return m && (unsigned)k < _EVENT_KIND_MAX ? m->events[k] : 0;
}
