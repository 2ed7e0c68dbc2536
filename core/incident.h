/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which detector events become a notification: one per incident, not one
 * per event (smartd's -M once, zed's rate limit, Scrutiny's most asked-for
 * "stop re-alerting until it changes"). Pure: events and a clock in,
 * notifications out; what was sent and acknowledged comes back from the
 * history (incident_restore) so that a restart repeats nothing.
 *
 *   storm-start       a new incident; its storm-end is a follow-up of it.
 *                     Held notify-coalesce (incident_due sends it): the
 *                     disk's verdict (behaviour, bands) of that while is
 *                     folded into it, and an end that came first too
 *   behaviour, bands  once per disk, ever
 *   stall, timeout-risk, stall-imminent
 *                     one per disk and kind per notify-interval; what came
 *                     between is counted and sent as one when it is over
 *   others            never (idle cleaning, media-cache: the journal has them)
 *
 * Within an incident of the recorder's (incidents.h), its thread (the
 * notes share the incident's id, each later one a follow-up of the first):
 *
 *   rebuild           a thread of its own: its start (the first warning,
 *                     attach, storm, ZFS trouble or timeout risk in it: a
 *                     stall alone is no news in a rebuild), what changed
 *                     (its first storm, zed's first delay, deadman or
 *                     sit-out, each state change to DEGRADED or FAULTED, a
 *                     first timeout risk, a second warning), and its end,
 *                     always, once its start went out: the rebuild-done, or
 *                     that its end was not seen. What a storm or stalls
 *                     thread held is dropped: the rebuild says it.
 *   storm             as above; its stalls are counted in it (its end
 *                     says how many), zed's first slow I/O in it is a
 *                     follow-up of its start
 *   stalls            its first stall held notify-coalesce (a storm or a
 *                     rebuild that takes the incident over says it), then
 *                     as above; zed's first slow I/O in it is news; its end
 *                     a follow-up once a note of it went out
 *
 * An acknowledgement (smrctl ack DEVICE [KIND] [--for DURATION]) silences a
 * disk's kind, or all of them, while the disk's class stays what it was when
 * acknowledged and until it expires (like an Alertmanager silence); smrctl
 * unack withdraws it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "events.h"

#define INCIDENT_ID_MAX 40
#define INCIDENT_DISKS_MAX 4096

typedef struct IncidentParams {
	int min_priority;		/* LOG_*: kinds of this priority or more urgent */
	uint64_t interval_usec;		/* notify-interval */
	uint64_t coalesce_usec;		/* notify-coalesce: a storm's start waits this for its verdict */
} IncidentParams;

/* A detector event as the notifier sees it. */
typedef struct IncidentEvent {
	DetectEventKind kind;		/* _EVENT_KIND_INVALID with thread_end: an incident ended quiet */
	const char *device, *identity;	/* identity: wwn, else serial, else device (disk_identity) */
	const char *disk_class;		/* as classified now */
	uint64_t time_usec;		/* CLOCK_REALTIME, when it was logged */
	const char *message;
	bool has_priority;		/* priority is this event's (a state change to FAULTED is a warning), */
	int priority;			/* else its kind's */
	const char *thread;		/* the recorder's incident it is in (its id); NULL none */
	const char *thread_kind;	/* "stalls", "storm", "rebuild" */
	const char *summary;		/* the incident's line: what it counts, how it ended */
	bool thread_end;		/* it ended the incident */
} IncidentEvent;

/* Where a note stands in its thread. */
typedef enum IncidentStage {
	INCIDENT_STAGE_START,
	INCIDENT_STAGE_UPDATE,		/* what changed */
	INCIDENT_STAGE_END,
	_INCIDENT_STAGE_MAX,
	_INCIDENT_STAGE_INVALID = -EINVAL,
} IncidentStage;
const char *incident_stage_to_string(IncidentStage s);

/* One notification to send. */
typedef struct IncidentNote {
	char incident[INCIDENT_ID_MAX];	/* stable: a storm's start and end share it */
	DetectEventKind kind;
	bool follow_up;			/* a storm's end, after its start was sent */
	bool test;			/* smrctl notify-test's: no incident, no disk */
	bool ended;			/* a storm's start sent after its end: both in one */
	uint32_t folded;		/* 1 << kind of each once-kind folded into it (its verdict) */
	uint64_t count;			/* events it stands for (aggregated stalls) */
	uint64_t first_usec, time_usec;	/* the first of them and this one */
	char device[32], identity[96];
	char message[400];
	IncidentStage stage;
	char thread_kind[12];		/* the incident's kind, "" none */
	char summary[400];		/* the incident's line, "" none */
} IncidentNote;

typedef struct IncidentBook IncidentBook;

int incident_book_new(IncidentBook **ret);
IncidentBook *incident_book_free(IncidentBook *b);

/* Whether e is sent now: true with *note filled; else false with *why
 * ("acknowledged", "below notify-min-severity", "already sent",
 * "aggregated", "not a notification kind", "too many disks"; and not
 * suppressed but later: INCIDENT_HELD, INCIDENT_FOLDED). */
#define INCIDENT_HELD "held to coalesce"
#define INCIDENT_FOLDED "folded into its storm's notification"
#define INCIDENT_IN_THREAD "counted in its incident's thread"
bool incident_judge(IncidentBook *b, const IncidentParams *p, const IncidentEvent *e, IncidentNote *note,
		    const char **why);

/* Aggregated events whose interval is over: calls cb for each summary. */
typedef void (*IncidentNoteFn)(const IncidentNote *n, void *userdata);
unsigned incident_due(IncidentBook *b, const IncidentParams *p, uint64_t now_usec, IncidentNoteFn cb,
		      void *userdata);

/* Whether the book has an entry under this identity. */
bool incident_known(const IncidentBook *b, const char *identity);

/* kind < 0: every kind. time_usec: when (CLOCK_REALTIME); until_usec: when
 * it expires, 0 never. -ENOMEM, or -E2BIG past INCIDENT_DISKS_MAX disks. */
int incident_ack(IncidentBook *b, const char *device, const char *identity, int kind, const char *disk_class,
		 uint64_t time_usec, uint64_t until_usec);
/* Whether the disk's kind (or all kinds) is acknowledged at this class, at now_usec. */
bool incident_acked(IncidentBook *b, const char *identity, DetectEventKind kind, const char *disk_class,
		    uint64_t now_usec);
/* smrctl unack: kind < 0 withdraws every acknowledgement of the disk (of
 * all kinds and each kind's); else that kind's. How many were withdrawn. */
int incident_unack(IncidentBook *b, const char *identity, int kind);

/* An acknowledgement in force (smrctl acks). */
typedef struct IncidentAck {
	int kind;			/* < 0: every kind */
	char device[32], identity[96], disk_class[24];
	uint64_t time_usec, until_usec;	/* until_usec 0: no expiry */
} IncidentAck;
typedef void (*IncidentAckFn)(const IncidentAck *a, void *userdata);
/* Calls cb for each acknowledgement that holds at now_usec (not expired);
 * returns how many. */
unsigned incident_acks(IncidentBook *b, uint64_t now_usec, IncidentAckFn cb, void *userdata);

/* A disk forgotten (smrctl forget): what was sent and acknowledged for it,
 * under its device name or its identity, goes; its next verdict is news. */
unsigned incident_forget(IncidentBook *b, const char *device, const char *identity);

/* A note that was not delivered (its hook failed, was killed, or it was
 * dropped): what judging it marked as sent is undone, and it is due again
 * from incident_due() one interval after now_usec (a storm's start is not
 * retried: its end is then no follow-up). From the history too, at start:
 * a note whose newest send was not delivered (now_usec 0: due at once). */
void incident_unsent(IncidentBook *b, const IncidentNote *note, uint64_t now_usec);

/* From the history: a notification that was sent (incident id, kind, when,
 * whether a follow-up), and an acknowledgement. */
void incident_restore_sent(IncidentBook *b, const char *device, const char *identity, DetectEventKind kind,
			   const char *incident, bool follow_up, uint64_t time_usec);
void incident_restore_ack(IncidentBook *b, const char *device, const char *identity, int kind,
			  const char *disk_class, uint64_t time_usec, uint64_t until_usec);

/* The incident id: <kind>-<16 hex of the identity and start>; never any
 * byte of the identity itself (it is untrusted text). */
void incident_make_id(char out[INCIDENT_ID_MAX], const char *identity, const char *what, uint64_t start_usec);
