/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "incidents.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "format.h"
#include "util.h"

#define MINUTE_USEC (60 * UINT64_C(1000000))

static const char *const kinds[_INCIDENT_KIND_MAX] = {
	[INCIDENT_STALLS] = "stalls", [INCIDENT_STORM] = "storm", [INCIDENT_REBUILD] = "rebuild",
};
static const char *const changes[_INCIDENT_CHANGE_MAX] = {
	[INCIDENT_UNTOUCHED] = "none", [INCIDENT_OPENED] = "opened", [INCIDENT_STEP] = "step",
	[INCIDENT_COUNTED] = "counted", [INCIDENT_CLOSED] = "closed",
};
static const char *const hist_labels[INCIDENT_HIST_BUCKETS] = {
	"< 1 s", "1-2 s", "2-4 s", "4-8 s", "8-16 s", "16-32 s", "32-64 s", "64 s+",
};

const char *incident_kind_to_string(IncidentKind k)
{
	return (unsigned)k < _INCIDENT_KIND_MAX ? kinds[k] : NULL;
}

IncidentKind incident_kind_from_string(const char *s)
{
	for (int k = 0; s && k < _INCIDENT_KIND_MAX; k++)
		if (streq(kinds[k], s))
			return (IncidentKind)k;
	return _INCIDENT_KIND_INVALID;
}

const char *incident_change_to_string(IncidentChange c)
{
	return (unsigned)c < _INCIDENT_CHANGE_MAX ? changes[c] : NULL;
}

bool incident_change_stores(IncidentChange c)
{
	return c != INCIDENT_COUNTED;
}

const char *incident_severity(const Incident *i)
{
	return i->priority <= LOG_CRIT ? "crit" : i->priority <= LOG_WARNING ? "warning"
	       : i->priority <= LOG_NOTICE ? "notice" : "info";
}

unsigned incident_hist_bucket(double latency)
{
	if (!(latency >= 1))
		return 0;
	int b = 1 + (int)floor(log2(latency));
	return b >= INCIDENT_HIST_BUCKETS ? INCIDENT_HIST_BUCKETS - 1 : (unsigned)b;
}

const char *incident_hist_label(unsigned bucket)
{
	return bucket < INCIDENT_HIST_BUCKETS ? hist_labels[bucket] : "";
}

/* What a kind of event is to the incidents. */
typedef enum Role { ROLE_NONE, ROLE_SLOW, ROLE_ZFS_SLOW, ROLE_STORM_START, ROLE_STORM_END, ROLE_REBUILD,
		    ROLE_REBUILD_DONE, ROLE_WORSE } Role;

static Role role(const IncidentInput *in)
{
	switch (in->kind) {
	case EVENT_STALL: case EVENT_TIMEOUT_RISK: case EVENT_STALL_IMMINENT: return ROLE_SLOW;
	case EVENT_ZFS_DELAY: case EVENT_ZFS_DEADMAN: case EVENT_ZFS_SITOUT: return ROLE_ZFS_SLOW;
	case EVENT_STORM_START: return ROLE_STORM_START;
	case EVENT_STORM_END: return ROLE_STORM_END;
	case EVENT_REBUILD_WARNING: case EVENT_REBUILD_START: return ROLE_REBUILD;
	case EVENT_REBUILD_DONE: return ROLE_REBUILD_DONE;
	/* a vdev DEGRADED or FAULTED makes what happens worse; back to HEALTHY is a row */
	case EVENT_ZFS_STATECHANGE: return in->priority <= LOG_WARNING ? ROLE_WORSE : ROLE_NONE;
	default: return ROLE_NONE;
	}
}

static IncidentKind wanted(Role r, bool rebuilding)
{
	if (r == ROLE_REBUILD || r == ROLE_REBUILD_DONE || rebuilding)
		return INCIDENT_REBUILD;
	return r == ROLE_STORM_START ? INCIDENT_STORM : INCIDENT_STALLS;
}

static void set_title(Incident *i)
{
	static const char *const what[_INCIDENT_KIND_MAX] = {
		[INCIDENT_STALLS] = "slow I/Os", [INCIDENT_STORM] = "destage storm", [INCIDENT_REBUILD] = "rebuild",
	};
	snprintf(i->title, sizeof i->title, "%s %s %s", what[i->kind], i->kind == INCIDENT_REBUILD ? "onto" : "on",
		 i->device);
}

static void add_step(Incident *i, const IncidentInput *in)
{
	/* full: the last place goes to the newest (how it ended shows) */
	IncidentStep *s = &i->steps[i->n_steps < INCIDENT_STEPS_MAX ? i->n_steps++ : INCIDENT_STEPS_MAX - 1];
	*s = (IncidentStep){.time_usec = in->time_usec, .kind = in->kind};
	snprintf(s->message, sizeof s->message, "%s", in->message ? in->message : "");
}

static void open_incident(IncidentTrack *t, const IncidentInput *in, IncidentKind kind, const char *device,
			  const char *disk_id)
{
	Incident *i = &t->open;
	*i = (Incident){.kind = kind, .start_usec = in->time_usec, .last_usec = in->time_usec, .priority = LOG_DEBUG,
			.expected = NAN, .duration = NAN};
	snprintf(i->device, sizeof i->device, "%s", device);
	snprintf(i->disk_id, sizeof i->disk_id, "%s", disk_id);
	incident_make_id(i->id, disk_id[0] ? disk_id : device, kinds[kind], in->time_usec);
	set_title(i);
	t->active = true;
}

static void count_slow(Incident *i, const IncidentInput *in, Role r)
{
	if (r == ROLE_ZFS_SLOW) {
		i->zfs_delays++;
		if (isfinite(in->latency) && in->latency > i->zfs_worst)
			i->zfs_worst = in->latency;
		return;
	}
	if (in->kind != EVENT_STALL) {
		/* a timeout risk comes with its I/O's stall: only its worst; stall-imminent is a forecast */
		if (in->kind == EVENT_TIMEOUT_RISK && isfinite(in->latency) && in->latency > i->slow_worst)
			i->slow_worst = in->latency;
		return;
	}
	i->slow_ios++;
	i->last_slow_usec = in->time_usec;
	if (isfinite(in->latency) && in->latency > i->slow_worst)
		i->slow_worst = in->latency;
	i->slow_hist[incident_hist_bucket(in->latency)]++;
	uint64_t minute = in->time_usec / MINUTE_USEC;
	if (minute != i->slow_minute)
		i->slow_minute = minute, i->slow_now = 0;
	if (++i->slow_now > i->slow_peak)
		i->slow_peak = i->slow_now;
}

static void close_incident(IncidentTrack *t, uint64_t end, const char *outcome)
{
	t->open.end_usec = end > t->open.start_usec ? end : t->open.start_usec;
	snprintf(t->open.outcome, sizeof t->open.outcome, "%s", outcome ? outcome : "");
	t->active = false;
}

/* Whether the event is a row (a step) or counted in i: the first of each
 * kind, the rebuild's warnings and state changes, a storm's start and end
 * (a rebuild's first few) are steps. */
static bool is_step(const Incident *i, const IncidentInput *in, Role r, bool first)
{
	if (r == ROLE_REBUILD || r == ROLE_REBUILD_DONE || r == ROLE_WORSE)
		return true;
	if (r == ROLE_STORM_START || r == ROLE_STORM_END)
		return i->kind != INCIDENT_REBUILD || i->storms <= INCIDENT_STORMS_KEPT;
	return first;
}

IncidentChange incident_take(IncidentTrack *t, const IncidentInput *in, const char *device, const char *disk_id)
{
	Role r = role(in);
	if (r == ROLE_NONE)
		return INCIDENT_UNTOUCHED;
	IncidentKind want = wanted(r, in->rebuilding);
	bool opened = false;
	if (!t->active) {
		/* a storm's end with its start before any incident (a restart): a row */
		if (r == ROLE_STORM_END)
			return INCIDENT_UNTOUCHED;
		open_incident(t, in, want, device, disk_id);
		/* a rebuild whose end is all that was seen (no warning: a CMR disk) */
		if (r == ROLE_REBUILD_DONE && isfinite(in->duration) && in->duration > 0 &&
		    in->time_usec > (uint64_t)(in->duration * 1e6))
			t->open.start_usec = in->time_usec - (uint64_t)(in->duration * 1e6);
		opened = true;
	}
	Incident *i = &t->open;
	if (want > i->kind) {
		i->kind = want;		/* taken over: id and start stay, the thread goes on */
		set_title(i);
	}
	bool first = !(i->seen & (UINT32_C(1) << in->kind));
	i->seen |= UINT32_C(1) << in->kind;
	i->events++;
	if (in->time_usec > i->last_usec)
		i->last_usec = in->time_usec;
	if (in->priority < i->priority)
		i->priority = in->priority;
	if (r == ROLE_SLOW || r == ROLE_ZFS_SLOW)
		count_slow(i, in, r);
	if (r == ROLE_STORM_START) {
		i->storms++;
		i->storm_open = true;
	}
	if (r == ROLE_STORM_END)
		i->storm_open = false;
	if (in->kind == EVENT_REBUILD_WARNING && isfinite(in->duration) && !isfinite(i->expected))
		i->expected = in->duration;
	bool step = opened || is_step(i, in, r, first);
	if (step)
		add_step(i, in);
	else
		i->folded++;
	if (r == ROLE_REBUILD_DONE || (r == ROLE_STORM_END && i->kind == INCIDENT_STORM)) {
		if (r == ROLE_REBUILD_DONE)
			i->duration = in->duration;
		close_incident(t, in->time_usec, in->message);
		return INCIDENT_CLOSED;
	}
	return opened ? INCIDENT_OPENED : step ? INCIDENT_STEP : INCIDENT_COUNTED;
}

bool incident_expire(IncidentTrack *t, uint64_t now_usec, bool rebuilding)
{
	if (!t->active || now_usec < t->open.last_usec)
		return false;
	uint64_t quiet = now_usec - t->open.last_usec;
	char said[INCIDENT_STEP_TEXT], d[FORMAT_MAX];
	switch (t->open.kind) {
	case INCIDENT_STALLS:
		if (quiet < INCIDENT_QUIET_USEC)
			return false;
		snprintf(said, sizeof said, "no slow I/O for %s", format_duration(d, (double)INCIDENT_QUIET_USEC / 1e6));
		break;
	case INCIDENT_REBUILD:
		if (rebuilding || quiet < INCIDENT_STALE_USEC)
			return false;
		snprintf(said, sizeof said, "its end was not seen: no rebuild onto %s followed, nothing heard for %s",
			 t->open.device, format_duration(d, (double)quiet / 1e6));
		break;
	default:
		if (quiet < INCIDENT_STALE_USEC)
			return false;
		snprintf(said, sizeof said, "its end was not seen: nothing heard for %s", format_duration(d, (double)quiet / 1e6));
		break;
	}
	close_incident(t, t->open.last_usec, said);
	return true;
}

const char *incident_summary(const Incident *i, char *buf, size_t n)
{
	Buf b = {0};
	char w[FORMAT_MAX], e[FORMAT_MAX];
	buf_printf(&b, "%s", i->title);
	const char *sep = ": ";
	if (i->storms) {
		buf_printf(&b, "%s%" PRIu32 " storm%s", sep, i->storms, i->storms == 1 ? "" : "s");
		sep = ", ";
	}
	if (i->slow_ios) {
		buf_printf(&b, "%s%" PRIu64 " slow I/O%s (worst %s, at most %" PRIu32 " a minute)", sep, i->slow_ios,
			   i->slow_ios == 1 ? "" : "s", format_duration(w, i->slow_worst), i->slow_peak);
		sep = ", ";
	}
	if (i->zfs_delays) {
		buf_printf(&b, "%s%" PRIu64 " ZFS delay%s (worst %s)", sep, i->zfs_delays, i->zfs_delays == 1 ? "" : "s",
			   format_duration(w, i->zfs_worst));
		sep = ", ";
	}
	if (i->kind == INCIDENT_REBUILD && isfinite(i->expected) && !i->end_usec)
		buf_printf(&b, "%sexpected %s", sep, format_duration(e, i->expected)), sep = ", ";
	if (i->end_usec)
		buf_printf(&b, "%sended: %s", sep, i->outcome);
	snprintf(buf, n, "%s", b.oom || !b.data ? i->title : b.data);
	buf_free(&b);
	return buf;
}
