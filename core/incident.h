/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which detector events become a notification: one per incident, not one
 * per event (smartd's -M once, zed's rate limit, Scrutiny's most asked-for
 * "stop re-alerting until it changes"). Pure: events and a clock in,
 * notifications out; what was sent and acknowledged comes back from the
 * history (incident_restore) so that a restart repeats nothing.
 *
 *   storm-start       a new incident; its storm-end is a follow-up of it
 *   behaviour, bands  once per disk, ever
 *   stall, timeout-risk, stall-imminent
 *                     one per disk and kind per notify-interval; what came
 *                     between is counted and sent as one when it is over
 *   others            never (idle cleaning, media-cache: the journal has them)
 *
 * An acknowledgement (smrctl ack DEVICE [KIND]) silences a disk's kind, or
 * all of them, while the disk's class stays what it was when acknowledged.
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
} IncidentParams;

/* A detector event as the notifier sees it. */
typedef struct IncidentEvent {
	DetectEventKind kind;
	const char *device, *identity;	/* identity: wwn, else serial, else device (disk_identity) */
	const char *disk_class;		/* as classified now */
	uint64_t time_usec;		/* CLOCK_REALTIME, when it was logged */
	const char *message;
} IncidentEvent;

/* One notification to send. */
typedef struct IncidentNote {
	char incident[INCIDENT_ID_MAX];	/* stable: a storm's start and end share it */
	DetectEventKind kind;
	bool follow_up;			/* a storm's end, after its start was sent */
	uint64_t count;			/* events it stands for (aggregated stalls) */
	uint64_t first_usec, time_usec;	/* the first of them and this one */
	char device[32], identity[96];
	char message[400];
} IncidentNote;

typedef struct IncidentBook IncidentBook;

int incident_book_new(IncidentBook **ret);
IncidentBook *incident_book_free(IncidentBook *b);

/* Whether e is sent now: true with *note filled; else false with *why
 * ("acknowledged", "below notify-min-severity", "already sent",
 * "aggregated", "not a notification kind", "too many disks"). */
bool incident_judge(IncidentBook *b, const IncidentParams *p, const IncidentEvent *e, IncidentNote *note,
		    const char **why);

/* Aggregated events whose interval is over: calls cb for each summary. */
typedef void (*IncidentNoteFn)(const IncidentNote *n, void *userdata);
unsigned incident_due(IncidentBook *b, const IncidentParams *p, uint64_t now_usec, IncidentNoteFn cb,
		      void *userdata);

/* kind < 0: every kind. -ENOMEM, or -E2BIG past INCIDENT_DISKS_MAX disks. */
int incident_ack(IncidentBook *b, const char *device, const char *identity, int kind, const char *disk_class);
/* Whether the disk's kind (or all kinds) is acknowledged at this class. */
bool incident_acked(IncidentBook *b, const char *identity, DetectEventKind kind, const char *disk_class);

/* A disk forgotten (smrctl forget): what was sent and acknowledged for it,
 * under its device name or its identity, goes; its next verdict is news. */
unsigned incident_forget(IncidentBook *b, const char *device, const char *identity);

/* From the history: a notification that was sent (incident id, kind, when,
 * whether a follow-up), and an acknowledgement. */
void incident_restore_sent(IncidentBook *b, const char *device, const char *identity, DetectEventKind kind,
			   const char *incident, bool follow_up, uint64_t time_usec);
void incident_restore_ack(IncidentBook *b, const char *device, const char *identity, int kind,
			  const char *disk_class);

/* The incident id: <kind>-<16 hex of the identity and start>; never any
 * byte of the identity itself (it is untrusted text). */
void incident_make_id(char out[INCIDENT_ID_MAX], const char *identity, const char *what, uint64_t start_usec);
