/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents, not rows (pure): a disk's events grouped into what happened to
 * it, so that a 2-minute replace is one story of a few steps rather than
 * 1,556 stall rows. An incident has a kind, a disk, a start and an end, a
 * severity that only rises, counts and worst figures, and a short timeline
 * of the events that changed what an admin should know: the first of each
 * kind, every storm's start and end (the first few of a rebuild's), every
 * rebuild warning and state change. The rest of its events are counted,
 * not stored one by one: slow I/Os by number, worst, a histogram of their
 * latencies and their busiest minute; ZFS's delays by number and worst.
 *
 *   stalls   slow I/Os (stall, timeout-risk, stall-imminent, zfs-delay,
 *            zfs-deadman, zfs-sitout) with no storm or rebuild: ends
 *            INCIDENT_QUIET_USEC after the last
 *   storm    a destage storm: storm-start to storm-end
 *   rebuild  a rebuild onto the disk (rebuild-warning, zed's attach, or
 *            any of the above while one is followed) to its rebuild-done:
 *            its storms are steps of it, its slow I/Os counts of it
 *
 * A disk has at most one incident open; one of a higher kind (stalls <
 * storm < rebuild) takes the open one over (its id and start stay): the
 * stall that came a second before a replace's warning is the rebuild's.
 * Events of other kinds (a verdict, the media cache, idle cleaning, a
 * pool's own) are rows of their own, in no incident.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "incident.h"

#define INCIDENT_STEPS_MAX 12
#define INCIDENT_STEP_TEXT 200
#define INCIDENT_HIST_BUCKETS 8		/* slow I/O latencies: < 1 s, 1-2 s, 2-4 s, ... 32-64 s, 64 s and more */
#define INCIDENT_QUIET_USEC (600 * UINT64_C(1000000))	/* a stalls incident ends this long after its last */
#define INCIDENT_STALE_USEC (86400 * UINT64_C(1000000))	/* a storm or rebuild heard of no more ends after this */
#define INCIDENT_STORMS_KEPT 3		/* a rebuild's storms whose start and end are rows; more are counted */

typedef enum IncidentKind {
	INCIDENT_STALLS,
	INCIDENT_STORM,
	INCIDENT_REBUILD,
	_INCIDENT_KIND_MAX,
	_INCIDENT_KIND_INVALID = -EINVAL,
} IncidentKind;

/* One step of the timeline: an event stored as a row. */
typedef struct IncidentStep {
	uint64_t time_usec;		/* CLOCK_REALTIME */
	DetectEventKind kind;
	char message[INCIDENT_STEP_TEXT];
} IncidentStep;

typedef struct Incident {
	char id[INCIDENT_ID_MAX];	/* "<kind>-<16 hex>": the notifications' thread and the rows' link */
	IncidentKind kind;
	char device[32], disk_id[96];
	uint64_t start_usec, end_usec;	/* end 0: open */
	uint64_t last_usec;		/* its last event */
	int priority;			/* LOG_*: its most severe event's */
	uint64_t events, folded;	/* events it took; of them counted only (no row) */
	uint64_t slow_ios;		/* stalls: I/Os that waited past the stall threshold */
	double slow_worst;		/* seconds; 0 none */
	uint32_t slow_hist[INCIDENT_HIST_BUCKETS];
	uint32_t slow_peak;		/* the most in one minute */
	uint64_t slow_minute;		/* the minute (CLOCK_REALTIME / 60 s) slow_now counts */
	uint32_t slow_now;
	uint64_t last_slow_usec;	/* the last slow I/O's time; 0 none */
	uint64_t zfs_delays;		/* zfs-delay, zfs-deadman, zfs-sitout */
	double zfs_worst;
	uint32_t storms;		/* storms begun within it */
	bool storm_open;		/* a storm within it not ended */
	double expected, duration;	/* a rebuild's estimate at its start, its real duration (NaN unknown) */
	char title[160];		/* what it is: "btrfs file system /srv rebuilding onto sdb", "destage storm", "slow I/Os" */
	char outcome[INCIDENT_STEP_TEXT];	/* how it ended: a rebuild-done's text, "quiet for 10 min"; "" open */
	uint32_t seen;			/* 1 << kind of each kind it took */
	IncidentStep steps[INCIDENT_STEPS_MAX];
	unsigned n_steps;
} Incident;

/* One event as the incidents see it. */
typedef struct IncidentInput {
	DetectEventKind kind;
	uint64_t time_usec;		/* CLOCK_REALTIME */
	int priority;			/* this event's (a zfs-statechange to FAULTED is a warning) */
	double latency, duration;	/* a slow I/O's; a rebuild-warning's expected, a rebuild-done's real one */
	const char *message;
	bool rebuilding;		/* a rebuild onto the disk is followed now */
} IncidentInput;

typedef enum IncidentChange {
	INCIDENT_UNTOUCHED,		/* no incident's kind: a row of its own */
	INCIDENT_OPENED,		/* it opened one: a row, its first step */
	INCIDENT_STEP,			/* a row, a step of the open one (which may have become a higher kind) */
	INCIDENT_COUNTED,		/* counted in the open one, no row */
	INCIDENT_CLOSED,		/* it ended the open one: a row, its last step */
	_INCIDENT_CHANGE_MAX,
	_INCIDENT_CHANGE_INVALID = -EINVAL,
} IncidentChange;

/* A disk's incidents: the open one, if any. Zeroed: none. */
typedef struct IncidentTrack {
	Incident open;
	bool active;
} IncidentTrack;

const char *incident_kind_to_string(IncidentKind k);
IncidentKind incident_kind_from_string(const char *s);
const char *incident_change_to_string(IncidentChange c);
/* Whether an event of this change is stored as a row. */
bool incident_change_stores(IncidentChange c);

/* Takes one event of device (disk_id its key) into t: what it did. After
 * INCIDENT_CLOSED t->open still holds the closed incident (t->active false)
 * until the next event. Call incident_expire() first. */
IncidentChange incident_take(IncidentTrack *t, const IncidentInput *in, const char *device, const char *disk_id);
/* Ends the open incident if it has been quiet too long at now (stalls:
 * INCIDENT_QUIET_USEC; a storm, or a rebuild with none followed:
 * INCIDENT_STALE_USEC): true, and t->open is the ended one. */
bool incident_expire(IncidentTrack *t, uint64_t now_usec, bool rebuilding);
/* Its severity in the events' words: crit, warning, notice, info. */
const char *incident_severity(const Incident *i);
/* A slow I/O's latency bucket, and the bucket's words ("2-4 s"). */
unsigned incident_hist_bucket(double latency);
const char *incident_hist_label(unsigned bucket);
/* One line of what it was: "rebuild onto sdb (btrfs file system /srv ...):
 * 1 storm, 1,556 slow I/Os (worst 3.2 s, at most 600 a minute), ended:
 * <outcome>". */
const char *incident_summary(const Incident *i, char *buf, size_t n);
