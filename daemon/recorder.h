/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one event path, the daemon's one recorder: every producer (the
 * detector's shell, zed's events, the rebuild guard and watcher) hands an
 * event here as one record, and this does all that an event must: it gives
 * it the disk's key and the kind's severity, makes its text printable (the
 * one place untrusted bytes, a mount point's or a pool's, are escaped),
 * stores it in the history, sends the journal entry with the kind's
 * MESSAGE_ID (core/detect/events.h, contrib/systemd/smrd.catalog), logs it
 * within a per-disk budget, counts it by kind, and hands it to the
 * notifier: at once off the tick, after the sample's views are updated
 * within it (recorder_hold, recorder_release). Duplicates stop at this
 * door: a zed event whose EID and time were recorded before (zed replays
 * its queue), and a rebuild-warning for a rebuild that has one (found in
 * the history, so a restart does not warn again). It also keeps the
 * history in shape once a sample (recorder_upkeep): written back, pruned,
 * its health said. Without a history (--oneshot) it is a null sink that
 * only counts.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "events.h"
#include "history.h"
#include "incidentlog.h"
#include "registry.h"

#define RECORDER_LOGS_PER_MINUTE 10	/* a disk's lines of the repeating kinds a minute */
#define RECORDER_EID_SEEN 4096		/* zed events remembered for their EID */

typedef struct Recorder Recorder;

/* One event as its producer tells it. */
typedef struct EventRecord {
	DetectEventKind kind;
	Disk *disk;			/* NULL: no watched disk (a pool's own event) */
	uint64_t time_usec;		/* CLOCK_REALTIME: when it began; 0 now */
	const char *severity;		/* NULL: the kind's */
	const char *op;			/* "read", "write", ...; NULL none */
	double duration, latency, value;
	int64_t count, bytes, sector;
	const char *message;		/* any bytes: made printable here */
	bool once_per_rebuild;		/* a rebuild-warning: dropped when the disk's rebuild has one */
	bool has_eid;			/* a zed event: dropped when this EID at this time was recorded */
	uint64_t eid, eid_time_usec;
} EventRecord;

/* What the notifier hears. */
typedef struct Recorded {
	DetectEventKind kind;		/* _EVENT_KIND_INVALID: no event, an incident ended quiet */
	const HistoryEvent *event;	/* the event as recorded (counted only: as it would have been stored, id 0) */
	const Incident *incident;	/* the incident it is in, as it now is (after INCIDENT_CLOSED: as it
					 * ended); NULL none */
	IncidentChange change;		/* what it did to it */
} Recorded;

typedef struct RecorderCallbacks {
	/* An event recorded about a watched disk, or an incident that ended
	 * quiet (d NULL: of a disk no longer watched), for the notifier. */
	void (*heard)(Disk *d, const Recorded *r, void *userdata);
	void *userdata;
} RecorderCallbacks;

/* history: the caller's, kept open while the recorder lives (NULL: a
 * null sink that counts and records nothing); cfg is read at each upkeep (history-days, history-max-events);
 * cb may be NULL. */
int recorder_new(History *history, const Config *cfg, DiskRegistry *disks, const RecorderCallbacks *cb, Recorder **ret);
/* A recorder with the history of state_dir (history_open(), what it said
 * logged), closed with it; -errno only when not even a memory-only history
 * could be made. */
int recorder_open(const char *state_dir, const Config *cfg, DiskRegistry *disks, const RecorderCallbacks *cb,
		  Recorder **ret);
/* What is held is dropped (the notifier may be gone already). */
Recorder *recorder_free(Recorder *ev);
/* Records r at now_real_usec; *ret (may be NULL) is the row as stored.
 * 0 recorded (in the database, or in memory until it works again),
 * -EALREADY a duplicate (nothing recorded), -EINVAL a kind outside the enum. */
int recorder_record(Recorder *ev, const EventRecord *r, uint64_t now_real_usec, HistoryEvent *ret);
/* A sample begins: what is recorded from now waits for recorder_release(). */
void recorder_hold(Recorder *ev);
/* The sample's views are updated: the notifier hears what waited, in order. */
void recorder_release(Recorder *ev);
/* Once a sample: pending events written back, a deleted database file
 * recreated, pruning by age and count when due, the history's health said
 * once per change. */
void recorder_upkeep(Recorder *ev, const TickTime *now);
/* Recorded since start, by kind (every producer's; counted ones too). */
uint64_t recorder_total(const Recorder *ev, DetectEventKind k);
/* The disks' incidents (NULL for a null sink). */
const IncidentLog *recorder_incidents(const Recorder *ev);
History *recorder_history(const Recorder *ev);
