/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "incident.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "util.h"

#define CLASS_MAX 24

typedef enum Policy { POLICY_NONE, POLICY_STORM_START, POLICY_STORM_END, POLICY_ONCE, POLICY_RATE } Policy;

typedef struct KindState {
	uint64_t last_sent;		/* CLOCK_REALTIME of the last note of this kind; 0 never */
	uint64_t pending, pending_first, pending_last;
	char pending_msg[320];
	bool done;			/* a once-kind was sent */
	bool retry;			/* pending is a note that was not delivered */
	bool acked;
	char ack_class[CLASS_MAX];
	uint64_t ack_time, ack_until;	/* CLOCK_REALTIME; ack_until 0: no expiry */
} KindState;

/* The recorder's incident a disk's notes thread under. */
typedef struct Thread {
	char id[INCIDENT_ID_MAX];	/* "" none */
	char kind[12];			/* "stalls", "storm", "rebuild" */
	bool sent;			/* a note of it went out (or is held) */
	uint32_t said;			/* 1 << kind of each kind said in it */
	char ended[INCIDENT_ID_MAX];	/* a rebuild's whose end went out (restored in any order) */
} Thread;

typedef struct IncidentDisk {
	char identity[96], device[32];
	Thread thread;
	char storm[INCIDENT_ID_MAX];	/* the open storm's incident; "" none */
	bool storm_sent;		/* ... and its start was notified */
	KindState k[_EVENT_KIND_MAX];
	bool ack_all;
	char ack_all_class[CLASS_MAX];
	uint64_t ack_all_time, ack_all_until;
	bool holding;			/* held: the storm's start, until held_due */
	uint64_t held_due;
	IncidentNote held;
} IncidentDisk;

struct IncidentBook {
	IncidentDisk *disks;
	size_t n, cap;
};

static const char *const stages[_INCIDENT_STAGE_MAX] = {
	[INCIDENT_STAGE_START] = "start", [INCIDENT_STAGE_UPDATE] = "update", [INCIDENT_STAGE_END] = "end",
};

const char *incident_stage_to_string(IncidentStage s)
{
	return (unsigned)s < _INCIDENT_STAGE_MAX ? stages[s] : NULL;
}

static Policy policy(DetectEventKind k)
{
	switch (k) {
	case EVENT_STORM_START: return POLICY_STORM_START;
	case EVENT_STORM_END: return POLICY_STORM_END;
	case EVENT_BEHAVIOUR: case EVENT_BANDS: return POLICY_ONCE;
	case EVENT_STALL: case EVENT_TIMEOUT_RISK: case EVENT_STALL_IMMINENT: case EVENT_REBUILD_WARNING: return POLICY_RATE;
	default: return POLICY_NONE;
	}
}

int incident_book_new(IncidentBook **ret)
{
	*ret = calloc(1, sizeof **ret);
	return *ret ? 0 : -ENOMEM;
}

IncidentBook *incident_book_free(IncidentBook *b)
{
	if (b)
		free(b->disks);
	free(b);
	return NULL;
}

static IncidentDisk *find(const IncidentBook *b, const char *identity)
{
	for (size_t i = 0; i < b->n; i++)
		if (streq(b->disks[i].identity, identity))
			return &b->disks[i];
	return NULL;
}

bool incident_known(const IncidentBook *b, const char *identity)
{
	return find(b, identity) != NULL;
}

static IncidentDisk *get(IncidentBook *b, const char *device, const char *identity)
{
	IncidentDisk *d = find(b, identity);
	if (!d) {
		if (b->n == INCIDENT_DISKS_MAX)
			return NULL;
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 16;
			IncidentDisk *x = realloc(b->disks, cap * sizeof *x);
			if (!x)
				return NULL;
			b->disks = x, b->cap = cap;
		}
		d = &b->disks[b->n++];
		memset(d, 0, sizeof *d);
		snprintf(d->identity, sizeof d->identity, "%s", identity);
	}
	/* a disk renamed since (sdb is sdc after a reboot) is the same disk */
	snprintf(d->device, sizeof d->device, "%s", device);
	return d;
}

void incident_make_id(char out[INCIDENT_ID_MAX], const char *identity, const char *what, uint64_t start_usec)
{
	uint64_t h = UINT64_C(1469598103934665603);	/* FNV-1a */
	for (const char *p = identity; *p; p++)
		h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
	h = (h ^ 0xff) * UINT64_C(1099511628211);
	for (int i = 0; i < 8; i++)
		h = (h ^ ((start_usec >> (8 * i)) & 0xff)) * UINT64_C(1099511628211);
	snprintf(out, INCIDENT_ID_MAX, "%.20s-%016" PRIx64, what, h);
}

/* An acknowledgement holds while the class does (a disk that changed,
 * cmr to dm-smr by behaviour or back, is news again) and until it expires. */
static bool ack_holds(bool *acked, const char *stamp, const char *disk_class, uint64_t until, uint64_t now)
{
	if (*acked && !streq(stamp, disk_class ? disk_class : ""))
		*acked = false;
	if (*acked && until && now >= until)
		*acked = false;
	return *acked;
}

bool incident_acked(IncidentBook *b, const char *identity, DetectEventKind kind, const char *disk_class,
		    uint64_t now_usec)
{
	IncidentDisk *d = find(b, identity);
	if (!d || kind < 0 || kind >= _EVENT_KIND_MAX)
		return false;
	return ack_holds(&d->ack_all, d->ack_all_class, disk_class, d->ack_all_until, now_usec) ||
	       ack_holds(&d->k[kind].acked, d->k[kind].ack_class, disk_class, d->k[kind].ack_until, now_usec);
}

static void fill(IncidentNote *n, const IncidentDisk *d, const IncidentEvent *e, const char *incident)
{
	*n = (IncidentNote){.kind = e->kind, .count = 1, .first_usec = e->time_usec, .time_usec = e->time_usec};
	snprintf(n->incident, sizeof n->incident, "%s", incident);
	snprintf(n->device, sizeof n->device, "%s", d->device);
	snprintf(n->identity, sizeof n->identity, "%s", d->identity);
	snprintf(n->message, sizeof n->message, "%s", e->message ? e->message : "");
	snprintf(n->thread_kind, sizeof n->thread_kind, "%s", e->thread ? e->thread_kind ? e->thread_kind : "" : "");
	snprintf(n->summary, sizeof n->summary, "%s", e->thread && e->summary ? e->summary : "");
}

/* ------------------------------------------------------------ threads */

static uint32_t bit(DetectEventKind k)
{
	return k >= 0 && k < 32 ? UINT32_C(1) << k : 0;
}

/* The stalls summed up for a later note are the incident's now: its end counts them. */
static void drop_slow_pending(IncidentDisk *d)
{
	d->k[EVENT_STALL].pending = 0;
	d->k[EVENT_STALL].retry = false;
}

/* The disk's thread is e's incident: a new one, or the same one grown into
 * a rebuild, which then says what a held stall or storm note would have. */
static Thread *follow(IncidentDisk *d, const IncidentEvent *e)
{
	Thread *t = &d->thread;
	if (!streq(t->id, e->thread)) {
		char ended[INCIDENT_ID_MAX];
		snprintf(ended, sizeof ended, "%s", t->ended);
		*t = (Thread){0};
		snprintf(t->id, sizeof t->id, "%s", e->thread);
		snprintf(t->ended, sizeof t->ended, "%s", ended);
	}
	snprintf(t->kind, sizeof t->kind, "%s", e->thread_kind ? e->thread_kind : "");
	if (streq(t->kind, "rebuild")) {
		/* a held note (a stall's, a storm's start) is its thread's first: none went out */
		bool held = d->holding && streq(d->held.incident, t->id);
		if (held)
			d->holding = false, t->sent = false;
		if (streq(d->storm, t->id)) {
			t->sent |= d->storm_sent && !held;
			d->storm[0] = 0, d->storm_sent = false;
		}
		drop_slow_pending(d);
	}
	return t;
}

static bool zfs_slow(DetectEventKind k)
{
	return k == EVENT_ZFS_DELAY || k == EVENT_ZFS_DEADMAN || k == EVENT_ZFS_SITOUT;
}

static bool sendable(IncidentBook *b, const IncidentParams *p, IncidentDisk *d, const IncidentEvent *e,
		     const char **why)
{
	if ((e->has_priority ? e->priority : event_kind_info(e->kind)->priority) > p->min_priority)
		*why = "below notify-min-severity";
	else if (incident_acked(b, d->identity, e->kind, e->disk_class, e->time_usec))
		*why = "acknowledged";
	return !*why;
}

static bool thread_note(Thread *t, IncidentDisk *d, const IncidentEvent *e, IncidentNote *note, IncidentStage stage)
{
	fill(note, d, e, t->id);
	note->stage = stage;
	note->follow_up = stage != INCIDENT_STAGE_START;
	t->sent = true;
	t->said |= bit(e->kind);
	return true;
}

/* Its end: sent whenever a note of it went out (acknowledged only with all kinds). */
static bool thread_end(IncidentBook *b, IncidentDisk *d, Thread *t, const IncidentEvent *e, IncidentNote *note,
		       const char **why)
{
	bool sent = t->sent;
	if (!sent)
		*why = "its start was not sent";
	else if (d->ack_all && incident_acked(b, d->identity, _EVENT_KIND_INVALID, e->disk_class, e->time_usec))
		*why = "acknowledged";
	if (!*why) {
		IncidentEvent end = *e;
		if (end.kind < 0)	/* ended quiet: said as its kind's end */
			end.kind = streq(t->kind, "rebuild") ? EVENT_REBUILD_DONE : streq(t->kind, "storm") ? EVENT_STORM_END
												  : EVENT_STALL;
		thread_note(t, d, &end, note, INCIDENT_STAGE_END);
		if (!end.message || !*end.message)
			snprintf(note->message, sizeof note->message, "%s", e->summary ? e->summary : "");
	}
	if (streq(t->kind, "rebuild"))
		snprintf(t->ended, sizeof t->ended, "%s", t->id);
	t->id[0] = 0, t->sent = false, t->said = 0;
	return !*why;
}

/* A rebuild's thread: its start, what changed, its end. */
static bool judge_rebuild(IncidentBook *b, const IncidentParams *p, IncidentDisk *d, Thread *t, const IncidentEvent *e,
			  IncidentNote *note, const char **why)
{
	if (e->thread_end || e->kind == EVENT_REBUILD_DONE)
		return thread_end(b, d, t, e, note, why);
	bool first = !(t->said & bit(e->kind));
	bool news = e->kind == EVENT_ZFS_STATECHANGE ||
		    (first && (e->kind == EVENT_STORM_START || zfs_slow(e->kind) || e->kind == EVENT_TIMEOUT_RISK)) ||
		    e->kind == EVENT_REBUILD_WARNING || (e->kind == EVENT_REBUILD_START && !t->sent);
	if (!news) {
		*why = INCIDENT_IN_THREAD;	/* a stall, a storm's end, a second delay: counted in its end */
		return false;
	}
	if (!sendable(b, p, d, e, why))
		return false;
	return thread_note(t, d, e, note, t->sent ? INCIDENT_STAGE_UPDATE : INCIDENT_STAGE_START);
}

static bool judge_rate(IncidentDisk *d, const IncidentParams *p, const IncidentEvent *e, IncidentNote *note,
		       const char **why)
{
	KindState *k = &d->k[e->kind];
	/* its incident's first note is held: what comes meanwhile waits with it */
	bool waits = d->holding && e->thread && streq(d->held.incident, e->thread);
	if (waits || (k->last_sent && e->time_usec >= k->last_sent && e->time_usec - k->last_sent < p->interval_usec)) {
		if (!k->pending++)
			k->pending_first = e->time_usec;
		k->retry = false;
		k->pending_last = e->time_usec;
		snprintf(k->pending_msg, sizeof k->pending_msg, "%s", e->message ? e->message : "");
		*why = "aggregated";
		return false;
	}
	char id[INCIDENT_ID_MAX];
	Thread *t = e->thread && streq(d->thread.id, e->thread) ? &d->thread : NULL;
	if (t)
		snprintf(id, sizeof id, "%s", t->id);	/* its incident's thread */
	else
		incident_make_id(id, d->identity, detect_event_kind_to_string(e->kind), e->time_usec);
	fill(note, d, e, id);
	k->last_sent = e->time_usec;
	if (t && t->sent)
		note->stage = INCIDENT_STAGE_UPDATE, note->follow_up = true;
	bool first = t && !t->sent;
	if (t)
		t->sent = true, t->said |= bit(e->kind);
	if (first && p->coalesce_usec && !d->holding) {
		/* a storm or a rebuild that takes its incident over in a while says it */
		d->held = *note;
		d->holding = true;
		d->held_due = e->time_usec + p->coalesce_usec;
		*why = INCIDENT_HELD;
		return false;
	}
	return true;
}

/* An event of an incident of the recorder's: its thread decides, or
 * (NULL: not decided) the kind's policy does. */
static const bool *judge_threaded(IncidentBook *b, const IncidentParams *p, const IncidentEvent *e, IncidentNote *note,
				  const char **why)
{
	static const bool yes = true, no = false;
	IncidentDisk *d = get(b, e->device, e->identity);
	if (!d) {
		*why = "too many disks";
		return &no;
	}
	Thread *t = follow(d, e);
	if (streq(t->kind, "rebuild"))
		return judge_rebuild(b, p, d, t, e, note, why) ? &yes : &no;
	if (e->thread_end && !(streq(t->kind, "storm") && e->kind == EVENT_STORM_END))
		return thread_end(b, d, t, e, note, why) ? &yes : &no;
	if (streq(t->kind, "storm") && e->kind == EVENT_STALL) {
		*why = INCIDENT_IN_THREAD;	/* its end says how many */
		return &no;
	}
	if (zfs_slow(e->kind)) {
		/* zed's first slow I/O in it explains it (a storm) or is news */
		if (t->said & bit(e->kind) || (streq(t->kind, "storm") && !d->storm_sent)) {
			*why = INCIDENT_IN_THREAD;
			return &no;
		}
		if (!sendable(b, p, d, e, why))
			return &no;
		return thread_note(t, d, e, note, t->sent ? INCIDENT_STAGE_UPDATE : INCIDENT_STAGE_START) ? &yes : &no;
	}
	return NULL;
}

bool incident_judge(IncidentBook *b, const IncidentParams *p, const IncidentEvent *e, IncidentNote *note,
		    const char **why)
{
	*why = NULL;
	if (e->thread && *e->thread) {
		const bool *said = judge_threaded(b, p, e, note, why);
		if (said)
			return *said;
	}
	Policy pol = e->kind >= 0 && e->kind < _EVENT_KIND_MAX ? policy(e->kind) : POLICY_NONE;
	if (pol == POLICY_NONE) {
		*why = "not a notification kind";
		return false;
	}
	IncidentDisk *d = get(b, e->device, e->identity);
	if (!d) {
		*why = "too many disks";
		return false;
	}
	if (pol == POLICY_STORM_END && d->holding && streq(d->held.incident, d->storm)) {
		/* over before its start went out: one notification says both */
		*note = d->held;
		note->ended = true;
		size_t len = strlen(note->message);
		snprintf(note->message + len, sizeof note->message - len, "%s%s", len ? "; " : "",
			 e->message ? e->message : "");
		note->time_usec = e->time_usec;
		d->holding = false;
		d->storm[0] = 0, d->storm_sent = false;
		return true;
	}
	if (pol == POLICY_STORM_END) {
		bool sent = d->storm[0] && d->storm_sent;
		if (sent)
			fill(note, d, e, d->storm), note->follow_up = true, note->stage = INCIDENT_STAGE_END;
		d->storm[0] = 0, d->storm_sent = false;
		if (e->thread && streq(d->thread.id, e->thread))
			d->thread.id[0] = 0, d->thread.sent = false;
		if (!sent)
			*why = "its start was not sent";
		return sent;
	}
	char id[INCIDENT_ID_MAX];
	if (pol == POLICY_STORM_START) {
		if (e->thread && *e->thread)
			snprintf(id, sizeof id, "%s", e->thread);	/* the incident's: its stalls' held note gives way */
		else
			incident_make_id(id, d->identity, "storm", e->time_usec);
		snprintf(d->storm, sizeof d->storm, "%s", id);
		d->storm_sent = false;
		if (d->holding && streq(d->held.incident, id))
			d->holding = false;
		if (e->thread && *e->thread)
			drop_slow_pending(d);
	}
	const EventKindInfo *info = event_kind_info(e->kind);
	if (info->priority > p->min_priority)
		*why = "below notify-min-severity";
	else if (incident_acked(b, d->identity, e->kind, e->disk_class, e->time_usec))
		*why = "acknowledged";
	else if (pol == POLICY_ONCE && d->k[e->kind].done)
		*why = "already sent";
	if (*why)
		return false;
	switch (pol) {
	case POLICY_STORM_START:
		d->storm_sent = true;
		d->thread.sent |= streq(d->thread.id, id);
		fill(note, d, e, id);
		if (!p->coalesce_usec)
			return true;
		d->held = *note;
		d->holding = true;
		d->held_due = e->time_usec + p->coalesce_usec;
		*why = INCIDENT_HELD;
		return false;
	case POLICY_ONCE:
		if (d->holding && e->kind < 32) {
			/* the verdict of the storm's first while: in its notification */
			IncidentNote *h = &d->held;
			size_t len = strlen(h->message);
			snprintf(h->message + len, sizeof h->message - len, "%s%s", len ? "; " : "",
				 e->message ? e->message : "");
			h->folded |= UINT32_C(1) << e->kind;
			d->k[e->kind].done = true;
			d->k[e->kind].pending = 0;
			*why = INCIDENT_FOLDED;
			return false;
		}
		d->k[e->kind].done = true;
		d->k[e->kind].pending = 0;	/* a retry waiting: this is it */
		incident_make_id(id, d->identity, info->name, 0);
		fill(note, d, e, id);
		return true;
	default:
		return judge_rate(d, p, e, note, why);
	}
}

unsigned incident_due(IncidentBook *b, const IncidentParams *p, uint64_t now_usec, IncidentNoteFn cb,
		      void *userdata)
{
	unsigned n = 0;
	for (size_t i = 0; i < b->n; i++) {
		IncidentDisk *d = &b->disks[i];
		if (d->holding && now_usec >= d->held_due) {
			d->holding = false;
			cb(&d->held, userdata);
			n++;
		}
		for (int kind = 0; kind < _EVENT_KIND_MAX; kind++) {
			KindState *k = &d->k[kind];
			if (!k->pending || now_usec < k->last_sent + p->interval_usec)
				continue;
			IncidentNote note = {.kind = kind, .count = k->pending, .first_usec = k->pending_first,
					     .time_usec = k->pending_last};
			bool once = policy(kind) == POLICY_ONCE;
			incident_make_id(note.incident, d->identity, detect_event_kind_to_string(kind),
					 once ? 0 : k->pending_first);
			snprintf(note.device, sizeof note.device, "%s", d->device);
			snprintf(note.identity, sizeof note.identity, "%s", d->identity);
			if (k->retry)
				snprintf(note.message, sizeof note.message, "%s", k->pending_msg);
			else
				snprintf(note.message, sizeof note.message,
					 "%" PRIu64 " more since the last notification; the last: %s", k->pending, k->pending_msg);
			if (once)
				k->done = true;
			k->pending = 0;
			k->retry = false;
			k->last_sent = now_usec;
			cb(&note, userdata);
			n++;
		}
	}
	return n;
}

int incident_ack(IncidentBook *b, const char *device, const char *identity, int kind, const char *disk_class,
		 uint64_t time_usec, uint64_t until_usec)
{
	if (kind >= _EVENT_KIND_MAX)
		return -EINVAL;
	if (!find(b, identity) && b->n == INCIDENT_DISKS_MAX)
		return -E2BIG;
	IncidentDisk *d = get(b, device, identity);
	if (!d)
		return -ENOMEM;
	bool *acked = kind < 0 ? &d->ack_all : &d->k[kind].acked;
	char *stamp = kind < 0 ? d->ack_all_class : d->k[kind].ack_class;
	*acked = true;
	snprintf(stamp, CLASS_MAX, "%s", disk_class ? disk_class : "");
	*(kind < 0 ? &d->ack_all_time : &d->k[kind].ack_time) = time_usec;
	*(kind < 0 ? &d->ack_all_until : &d->k[kind].ack_until) = until_usec;
	/* what was waiting to be summed up is acknowledged with it */
	for (int k = 0; k < _EVENT_KIND_MAX; k++)
		if (kind < 0 || k == kind)
			d->k[k].pending = 0;
	return 0;
}

unsigned incident_forget(IncidentBook *b, const char *device, const char *identity)
{
	unsigned gone = 0;
	for (size_t i = 0; i < b->n;) {
		IncidentDisk *d = &b->disks[i];
		if (streq(d->device, device) || (identity && *identity && streq(d->identity, identity))) {
			*d = b->disks[--b->n];
			gone++;
		} else {
			i++;
		}
	}
	return gone;
}

void incident_unsent(IncidentBook *b, const IncidentNote *note, uint64_t now_usec)
{
	IncidentDisk *d = note->kind >= 0 && note->kind < _EVENT_KIND_MAX ? get(b, note->device, note->identity) : NULL;
	if (!d)
		return;
	KindState *k = &d->k[note->kind];
	switch (policy(note->kind)) {
	case POLICY_STORM_START:
		/* its end is no follow-up of a start nobody got */
		if (streq(d->storm, note->incident))
			d->storm_sent = false;
		/* what was folded into it is due on its own */
		for (int kind = 0; kind < _EVENT_KIND_MAX && kind < 32; kind++)
			if (note->folded & (UINT32_C(1) << kind)) {
				IncidentNote once = *note;
				once.kind = kind, once.folded = 0, once.ended = false;
				incident_unsent(b, &once, now_usec);
			}
		return;
	case POLICY_ONCE:
		k->done = false;
		break;
	case POLICY_RATE:
		break;
	default:
		return;
	}
	/* due again one notify-interval after this failure: a hook that keeps
	 * failing (the MTA is down) runs once an interval, not once an event */
	bool was_pending = k->pending > 0;
	k->retry = !was_pending;
	if (!was_pending || note->first_usec < k->pending_first)
		k->pending_first = note->first_usec;
	if (!was_pending || note->time_usec > k->pending_last)
		k->pending_last = note->time_usec;
	if (!was_pending)
		snprintf(k->pending_msg, sizeof k->pending_msg, "%.319s", note->message);
	k->pending += note->count ? note->count : 1;
	/* a rate kind keeps the time it was judged or summed up at: events
	 * logged before the failure was known must still be summed, not each
	 * sent (and each dropped again) */
	if (policy(note->kind) == POLICY_ONCE || !now_usec)
		k->last_sent = now_usec;
}

void incident_restore_sent(IncidentBook *b, const char *device, const char *identity, DetectEventKind kind,
			   const char *incident, bool follow_up, uint64_t time_usec)
{
	IncidentDisk *d = kind >= 0 && kind < _EVENT_KIND_MAX ? get(b, device, identity) : NULL;
	if (!d)
		return;
	/* a rebuild's thread: its start went out, its end is still owed unless
	 * that went out too (the sends come back in any order) */
	Thread *t = &d->thread;
	if (kind == EVENT_REBUILD_DONE) {
		snprintf(t->ended, sizeof t->ended, "%s", incident);
		if (streq(t->id, incident))
			t->id[0] = 0, t->sent = false;
		return;
	}
	if ((kind == EVENT_REBUILD_WARNING || kind == EVENT_REBUILD_START) && !follow_up && !streq(t->ended, incident) &&
	    time_usec >= d->k[kind].last_sent) {
		snprintf(t->id, sizeof t->id, "%s", incident);
		snprintf(t->kind, sizeof t->kind, "rebuild");
		t->sent = true;
		t->said |= bit(kind);
	}
	switch (policy(kind)) {
	case POLICY_STORM_START:
		snprintf(d->storm, sizeof d->storm, "%s", incident);
		d->storm_sent = true;
		break;
	case POLICY_STORM_END:
		(void)follow_up;
		d->storm[0] = 0, d->storm_sent = false;
		break;
	case POLICY_ONCE:
		d->k[kind].done = true;
		break;
	case POLICY_RATE:
		if (time_usec > d->k[kind].last_sent)
			d->k[kind].last_sent = time_usec;
		break;
	default:
		break;
	}
}

void incident_restore_ack(IncidentBook *b, const char *device, const char *identity, int kind,
			  const char *disk_class, uint64_t time_usec, uint64_t until_usec)
{
	(void)incident_ack(b, device, identity, kind, disk_class, time_usec, until_usec);
}

int incident_unack(IncidentBook *b, const char *identity, int kind)
{
	IncidentDisk *d = kind < _EVENT_KIND_MAX ? find(b, identity) : NULL;
	if (!d)
		return 0;
	int n = 0;
	if (kind < 0) {
		n += d->ack_all;
		d->ack_all = false;
	}
	for (int k = 0; k < _EVENT_KIND_MAX; k++)
		if (kind < 0 || k == kind) {
			n += d->k[k].acked;
			d->k[k].acked = false;
		}
	return n;
}

static unsigned list_one(const IncidentDisk *d, int kind, bool acked, const char *cls, uint64_t time_usec,
			 uint64_t until, uint64_t now, IncidentAckFn cb, void *userdata)
{
	if (!acked || (until && now >= until))
		return 0;
	IncidentAck a = {.kind = kind, .time_usec = time_usec, .until_usec = until};
	snprintf(a.device, sizeof a.device, "%s", d->device);
	snprintf(a.identity, sizeof a.identity, "%s", d->identity);
	snprintf(a.disk_class, sizeof a.disk_class, "%s", cls);
	if (cb)
		cb(&a, userdata);
	return 1;
}

unsigned incident_acks(IncidentBook *b, uint64_t now_usec, IncidentAckFn cb, void *userdata)
{
	unsigned n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const IncidentDisk *d = &b->disks[i];
		n += list_one(d, -1, d->ack_all, d->ack_all_class, d->ack_all_time, d->ack_all_until, now_usec, cb,
			      userdata);
		for (int k = 0; k < _EVENT_KIND_MAX; k++) {
			const KindState *s = &d->k[k];
			n += list_one(d, k, s->acked, s->ack_class, s->ack_time, s->ack_until, now_usec, cb, userdata);
		}
	}
	return n;
}
