/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one event path (recorder.h). Under systemd, stderr is the journal: the
 * native entry, with its MESSAGE_ID and fields, is the one there, not a
 * second line beside it.
 */
#include "recorder.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "format.h"
#include "log.h"
#include "rebuildstate.h"
#include "retention.h"
#include "util.h"

#define EID_HORIZON_USEC (86400 * UINT64_C(1000000))	/* zed's replays of a day are recognised after a restart */
#define MINUTE_USEC (60 * UINT64_C(1000000))

/* One disk's log budget for the repeating kinds, by minute. */
typedef struct LogBudget {
	char device[32];
	uint64_t minute;
	unsigned count, suppressed;
} LogBudget;

typedef struct Eid {
	uint64_t eid, time_usec;
} Eid;

/* An event recorded in a sample, for the notifier once the views are
 * updated; its incident copied when the event changed it (not for each
 * slow I/O it counts). */
typedef struct Held {
	Disk *disk;			/* NULL: an incident of a disk no longer watched ended */
	char device[32];
	DetectEventKind kind;
	bool has_event;
	HistoryEvent h;
	Incident *incident;		/* owned; NULL none or counted in it: */
	char incident_id[INCIDENT_ID_MAX];	/* ... then its id ("" none) and kind, */
	IncidentKind incident_kind;	/* looked up again at the release */
	IncidentChange change;
} Held;

struct Recorder {
	History *history;		/* NULL: a null sink */
	bool owned;			/* recorder_open()'s: closed with it */
	const Config *cfg;
	DiskRegistry *disks;
	RecorderCallbacks cb;
	bool journal;
	IncidentLog *incidents;		/* NULL: a null sink's */
	uint64_t total[_EVENT_KIND_MAX];
	LogBudget *budget;
	size_t n_budget;
	Eid eids[RECORDER_EID_SEEN];	/* a ring: the newest RECORDER_EID_SEEN */
	unsigned n_eids, eid_next;
	bool eids_loaded;
	bool holding;
	Held *held;
	size_t n_held, cap_held;
	HistoryState said;		/* the history's state last logged */
	Retention retention;
	bool age_prune_said;
};

int recorder_new(History *history, const Config *cfg, DiskRegistry *disks, const RecorderCallbacks *cb, Recorder **ret)
{
	Recorder *ev = calloc(1, sizeof *ev);
	if (!ev)
		return -ENOMEM;
	*ev = (Recorder){.history = history, .cfg = cfg, .disks = disks, .cb = cb ? *cb : (RecorderCallbacks){0}};
	if (history && incidentlog_new(history, disks, &ev->incidents) < 0) {
		free(ev);
		return -ENOMEM;
	}
	ev->journal = history && access("/run/systemd/journal/socket", W_OK) == 0;
	ev->said = history_state(history);
	retention_init(&ev->retention, now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME),
		       history ? history_newest_logged(history) : 0);
	*ret = ev;
	return 0;
}

int recorder_open(const char *state_dir, const Config *cfg, DiskRegistry *disks, const RecorderCallbacks *cb,
		  Recorder **ret)
{
	History *h = NULL;
	_cleanup_free_ char *err = NULL;
	int r = history_open(state_dir, &h, &err);
	if (!h)
		return log_error_errno(r, "Failed to set up the history: %m");
	if (r == -ESTALE)
		log_warning("history: %s", err ? err : "database was corrupt, started a new one");
	else if (r < 0)
		log_error("history: %s", err ? err : "cannot open");
	else
		log_info("history: %s", history_path(h));
	r = recorder_new(h, cfg, disks, cb, ret);
	if (r < 0) {
		history_close(h);
		return r;
	}
	(*ret)->owned = true;
	return 0;
}

/* What is held is dropped: at exit the notifier may be gone already. */
Recorder *recorder_free(Recorder *ev)
{
	if (!ev)
		return NULL;
	for (size_t i = 0; i < ev->n_held; i++)
		free(ev->held[i].incident);
	incidentlog_free(ev->incidents);
	if (ev->owned)
		history_close(ev->history);
	free(ev->held);
	free(ev->budget);
	free(ev);
	return NULL;
}

History *recorder_history(const Recorder *ev)
{
	return ev ? ev->history : NULL;
}

uint64_t recorder_total(const Recorder *ev, DetectEventKind k)
{
	return ev && (unsigned)k < _EVENT_KIND_MAX ? ev->total[k] : 0;
}

const IncidentLog *recorder_incidents(const Recorder *ev)
{
	return ev ? ev->incidents : NULL;
}

/* Logs each change of the history's health once, not each failed insert. */
static void history_said(Recorder *ev)
{
	HistoryState s = history_state(ev->history);
	if (s == ev->said)
		return;
	ev->said = s;
	if (s == HISTORY_OK || s == HISTORY_RECOVERED)
		log_notice("history: %s works again, every event is stored", history_path(ev->history));
	else
		log_warning("history: %s; %u event(s) kept in memory (up to %d), written back when it works again",
			    history_last_error(ev->history), history_pending(ev->history), HISTORY_PENDING_MAX);
}

/* ------------------------------------------------------------ dedup */

static void eid_add(Recorder *ev, uint64_t eid, uint64_t time_usec)
{
	ev->eids[ev->eid_next] = (Eid){eid, time_usec};
	ev->eid_next = (ev->eid_next + 1) % RECORDER_EID_SEEN;
	if (ev->n_eids < RECORDER_EID_SEEN)
		ev->n_eids++;
}

static int eid_loaded(const HistoryEvent *h, void *userdata)
{
	if (isfinite(h->value) && h->value >= 0 && h->value < 0x1p64)
		eid_add(userdata, (uint64_t)h->value, h->time_usec);
	return 0;
}

/* zed's events of the last day, from the history: once, at the first one
 * (most hosts never hear any) */
static void eids_load(Recorder *ev, uint64_t now)
{
	static const DetectEventKind zed[] = {EVENT_REBUILD_START, EVENT_REBUILD_END, EVENT_ZFS_DELAY,
					      EVENT_ZFS_DEADMAN, EVENT_ZFS_SITOUT, EVENT_ZFS_STATECHANGE};
	ev->eids_loaded = true;
	for (size_t i = 0; ev->history && i < ELEMENTSOF(zed); i++) {
		HistoryFilter f = {.kind = event_kind_info(zed[i])->name, .limit = RECORDER_EID_SEEN / ELEMENTSOF(zed),
				   .since_usec = now > EID_HORIZON_USEC ? now - EID_HORIZON_USEC : 0};
		(void)history_query(ev->history, &f, eid_loaded, ev);
	}
}

static bool eid_seen(Recorder *ev, const EventRecord *r, uint64_t now)
{
	if (!ev->eids_loaded)
		eids_load(ev, now);
	for (unsigned i = 0; i < ev->n_eids; i++)
		if (ev->eids[i].eid == r->eid && ev->eids[i].time_usec == r->eid_time_usec)
			return true;
	return false;
}

/* The newest recorded (by id: the order of recording, whatever the clock did). */
typedef struct Newest {
	bool found;
	int64_t id;
} Newest;

static int newest(const HistoryEvent *h, void *userdata)
{
	Newest *n = userdata;
	n->found = true;
	n->id = h->id;
	return 0;
}

static Newest newest_of(Recorder *ev, const Disk *d, DetectEventKind kind, uint64_t since)
{
	char key[DISK_KEY_MAX];
	registry_disk_key(ev->disks, d, key);
	HistoryFilter f = {.kind = event_kind_info(kind)->name, .limit = 1, .since_usec = since};
	if (key[0])
		f.serial = key;
	else
		f.device = d->name;
	Newest n = {0};
	(void)history_query(ev->history, &f, newest, &n);
	return n;
}

/* Whether d has a rebuild-warning that no rebuild-done closed since, for
 * the rebuild it is about: the one followed (since its start, less the
 * hour a zed attach may come before it; any, when smrd knows no start of
 * its own but when it first saw it, as after a restart without the tool's
 * times), else one that began within that hour. */
static bool warning_open(Recorder *ev, const Disk *d, uint64_t now)
{
	const RebuildState *s = disk_rebuild(d);
	double since = (double)now / 1e6 - REBUILD_WARN_AHEAD_SECONDS;
	if (s->phase == REBUILD_PHASE_RUNNING)
		since = s->started < s->first_seen - 1 ? s->started - REBUILD_WARN_AHEAD_SECONDS : 0;
	Newest w = newest_of(ev, d, EVENT_REBUILD_WARNING, since > 0 ? (uint64_t)(since * 1e6) : 0);
	if (!w.found)
		return false;
	Newest done = newest_of(ev, d, EVENT_REBUILD_DONE, 0);
	return !done.found || done.id < w.id;
}

/* ------------------------------------------------------------ the log */

/* Kinds that can come by the thousand (a slow disk's every I/O, zed's
 * every delay): a few lines a disk a minute, the rest counted. */
static bool repeating(DetectEventKind k)
{
	return k == EVENT_STALL || k == EVENT_TIMEOUT_RISK || k == EVENT_STALL_IMMINENT || k == EVENT_ZFS_DELAY ||
	       k == EVENT_ZFS_DEADMAN || k == EVENT_ZFS_SITOUT;
}

static void budget_said(LogBudget *b, uint64_t minute)
{
	if (b->suppressed)
		log_notice("%s: %u more event(s) not logged in the last minute (all are in the journal and counted)",
			   b->device[0] ? b->device : "zfs", b->suppressed);
	b->minute = minute;
	b->count = b->suppressed = 0;
}

static LogBudget *budget_of(Recorder *ev, const char *device)
{
	for (size_t i = 0; i < ev->n_budget; i++)
		if (streq(ev->budget[i].device, device))
			return &ev->budget[i];
	LogBudget *x = realloc(ev->budget, (ev->n_budget + 1) * sizeof *x);
	if (!x)
		return NULL;
	ev->budget = x;
	LogBudget *b = &ev->budget[ev->n_budget++];
	*b = (LogBudget){0};
	snprintf(b->device, sizeof b->device, "%s", device);
	return b;
}

/* By the wall clock's minute: a jump makes one minute longer or shorter, no more. */
static bool log_allowed(Recorder *ev, const char *device, DetectEventKind k, uint64_t now)
{
	if (!repeating(k))
		return true;
	LogBudget *b = budget_of(ev, device);
	if (!b)
		return true;
	if (b->minute != now / MINUTE_USEC)
		budget_said(b, now / MINUTE_USEC);
	if (b->count++ < RECORDER_LOGS_PER_MINUTE)
		return true;
	b->suppressed++;
	return false;
}

static int severity_priority(const char *s)
{
	return streq(s, "crit") ? LOG_CRIT : streq(s, "warning") ? LOG_WARNING : streq(s, "notice") ? LOG_NOTICE : LOG_INFO;
}

static void say(Recorder *ev, const HistoryEvent *h, DetectEventKind kind, const EventRecord *r)
{
	const EventKindInfo *k = event_kind_info(kind);
	const char *dev = h->device;
	if (log_allowed(ev, dev, kind, h->logged_usec) && (!ev->journal || !log_stderr_is_journal())) {
		if (dev[0])
			log_full(severity_priority(h->severity), "%s: %s", dev, h->message);
		else
			log_full(severity_priority(h->severity), "%s", h->message);
	}
	if (!ev->journal)
		return;
	char lat[FORMAT_MAX], dur[FORMAT_MAX];
	/* _SEC for programs, the others for the catalog's sentences; the
	 * priority is the kind's (the catalog's), the severity this one's */
	sd_journal_send("MESSAGE=%s%s%s", dev, dev[0] ? ": " : "", h->message, "MESSAGE_ID=%s", k->message_id,
			"PRIORITY=%d", k->priority, "SMRD_EVENT=%s", h->kind, "SMRD_SEVERITY=%s", h->severity,
			"DEVICE=%s%s", dev[0] ? "/dev/" : "", dev, "SMRD_DEVICE=%s", dev, "SMRD_DISK_ID=%s", h->serial,
			"SMRD_OP=%s", h->op, "SMRD_LATENCY_SEC=%g", r->latency, "SMRD_DURATION_SEC=%g", r->duration,
			"SMRD_LATENCY=%s", format_duration(lat, r->latency),
			"SMRD_DURATION=%s", format_duration(dur, r->duration),
			"SMRD_COUNT=%" PRId64, h->count, "SMRD_EVENT_ID=%" PRId64, h->id, NULL);
}

/* ------------------------------------------------------------ notifier */

static void tell(Recorder *ev, Disk *d, const Recorded *r)
{
	if (ev->cb.heard)
		ev->cb.heard(d, r, ev->cb.userdata);
}

/* d NULL: an incident of a disk no longer watched (its end is still news) */
static void hear(Recorder *ev, Disk *d, const Recorded *r)
{
	if ((!d && !r->incident) || !ev->cb.heard)
		return;
	bool keep = r->incident && r->change != INCIDENT_COUNTED;
	Incident *copy = keep && ev->holding ? malloc(sizeof *copy) : NULL;
	if (!ev->holding || (keep && !copy)) {	/* no room to wait: heard now, before its view */
		tell(ev, d, r);
		return;
	}
	if (ev->n_held == ev->cap_held) {
		size_t cap = ev->cap_held ? ev->cap_held * 2 : 16;
		Held *x = realloc(ev->held, cap * sizeof *x);
		if (!x) {
			free(copy);
			tell(ev, d, r);
			return;
		}
		ev->held = x, ev->cap_held = cap;
	}
	Held *w = &ev->held[ev->n_held++];
	*w = (Held){.disk = d, .kind = r->kind, .has_event = r->event != NULL, .incident = copy, .change = r->change};
	if (r->event)
		w->h = *r->event;
	if (copy)
		*copy = *r->incident;
	else if (r->incident) {
		snprintf(w->incident_id, sizeof w->incident_id, "%s", r->incident->id);
		w->incident_kind = r->incident->kind;
	}
	snprintf(w->device, sizeof w->device, "%s", d ? d->name : "");
}

void recorder_hold(Recorder *ev)
{
	if (ev)
		ev->holding = true;
}

void recorder_release(Recorder *ev)
{
	if (!ev)
		return;
	ev->holding = false;
	for (size_t i = 0; i < ev->n_held; i++) {
		Held *w = &ev->held[i];
		/* a disk gone within the sample is no longer there to tell of */
		Disk *d = w->disk ? registry_get(ev->disks, w->device) : NULL;
		Recorded r = {.kind = w->kind, .event = w->has_event ? &w->h : NULL, .incident = w->incident,
			      .change = w->change};
		/* counted in an incident: it as it is now (ended within the sample: its id and kind) */
		Incident stub;
		if (!r.incident && w->incident_id[0] && !(r.incident = incidentlog_find(ev->incidents, w->incident_id))) {
			stub = (Incident){.kind = w->incident_kind, .expected = NAN, .duration = NAN};
			snprintf(stub.id, sizeof stub.id, "%s", w->incident_id);
			snprintf(stub.device, sizeof stub.device, "%s", w->device);
			r.incident = &stub;
		}
		if (d == w->disk)
			tell(ev, d, &r);
		free(w->incident);
	}
	ev->n_held = 0;
}

/* An incident ended for being quiet: its end is news. */
static void on_ended(Disk *d, const Incident *i, void *userdata)
{
	Recorded r = {.kind = _EVENT_KIND_INVALID, .incident = i, .change = INCIDENT_CLOSED};
	hear(userdata, d, &r);
}

/* ------------------------------------------------------------ record */

int recorder_record(Recorder *ev, const EventRecord *r, uint64_t now, HistoryEvent *ret)
{
	assert(ev && r);
	const EventKindInfo *k = event_kind_info(r->kind);
	if (!k)
		return -EINVAL;
	if (ev->history && r->has_eid && eid_seen(ev, r, now))
		return -EALREADY;
	if (ev->history && r->once_per_rebuild && r->disk && warning_open(ev, r->disk, now))
		return -EALREADY;
	HistoryEvent h = {.time_usec = r->time_usec ? r->time_usec : now, .logged_usec = now, .duration = r->duration,
			  .latency = r->latency, .value = r->value, .count = r->count, .bytes = r->bytes,
			  .sector = r->sector};
	if (r->disk) {
		snprintf(h.device, sizeof h.device, "%s", r->disk->name);
		registry_disk_key(ev->disks, r->disk, h.serial);
	}
	snprintf(h.kind, sizeof h.kind, "%s", k->name);
	snprintf(h.op, sizeof h.op, "%s", r->op ? r->op : "");
	snprintf(h.severity, sizeof h.severity, "%s", r->severity ? r->severity : k->severity);
	str_escape_control(r->message, h.message, sizeof h.message);
	ev->total[r->kind]++;
	if (r->has_eid)
		eid_add(ev, r->eid, r->eid_time_usec);
	if (ev->history) {
		/* counted in its incident, or a row of its own or a step of one */
		const Incident *inc = NULL;
		IncidentChange c = INCIDENT_UNTOUCHED;
		if (r->disk && ev->incidents) {
			IncidentInput in = {.kind = r->kind, .time_usec = h.time_usec, .priority = severity_priority(h.severity),
					    .latency = r->latency, .duration = r->duration, .message = h.message};
			c = incidentlog_take(ev->incidents, r->disk, &in, &inc, on_ended, ev);
			if (inc)
				snprintf(h.incident, sizeof h.incident, "%s", inc->id);
		}
		if (incident_change_stores(c) && history_add(ev->history, &h) < 0)
			history_said(ev);
		say(ev, &h, r->kind, r);
		hear(ev, r->disk, &(Recorded){.kind = r->kind, .event = &h, .incident = inc, .change = c});
	}
	if (ret)
		*ret = h;
	return 0;
}

/* ------------------------------------------------------------ upkeep */

static void prune(Recorder *ev, const TickTime *t)
{
	uint64_t before;
	const char *why;
	const Config *c = ev->cfg;
	if (!retention_due(&ev->retention, t->mono_usec, t->real_usec, c->history_days, &before, &why))
		return;
	if (why && !ev->age_prune_said)
		log_notice("history: not pruning by age (%s), only down to %.0f events", why, c->history_max_events);
	ev->age_prune_said = why != NULL;
	int r = history_prune(ev->history, before, (uint64_t)c->history_max_events);
	if (r > 0)
		log_info("history: pruned %d old event(s)", r);
}

void recorder_upkeep(Recorder *ev, const TickTime *t)
{
	if (!ev || !ev->history)
		return;
	int written = history_maintain(ev->history, t->mono_usec, (uint64_t)(ev->cfg->history_retry * 1e6));
	const char *notice = history_take_notice(ev->history);
	if (notice)
		log_warning("history: %s", notice);
	if (written > 0)
		log_notice("history: wrote %d event(s) kept in memory to %s", written, history_path(ev->history));
	history_said(ev);
	incidentlog_upkeep(ev->incidents, t->real_usec, on_ended, ev);
	/* A jump of the wall clock is said; see core/detect/retention.h for what it stops. */
	int64_t jump = retention_watch(&ev->retention, t->mono_usec, t->real_usec);
	if (jump)
		log_warning("the wall clock jumped %s by %.0f s: events are dated by it; none is pruned by age until it "
			    "has held steady for an hour", jump > 0 ? "forward" : "back", fabs((double)jump) / 1e6);
	for (size_t i = 0; i < ev->n_budget; i++)
		if (ev->budget[i].suppressed && ev->budget[i].minute != t->real_usec / MINUTE_USEC)
			budget_said(&ev->budget[i], t->real_usec / MINUTE_USEC);
	prune(ev, t);
}
