/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event history: an embedded SQLite database under the state directory
 * (WAL, bounded by age and count), so that events survive restarts and a
 * kill -9. Nothing recorded is lost to a failing database: an event that
 * cannot be stored (disk full, read-only or vanished state directory) is
 * kept in memory, shown by every query, and written back as soon as the
 * database works again; a database file deleted under us is recreated from
 * the copy we still hold open; a read-only directory is opened read-only so
 * that the stored events stay visible. The notifier keeps what it sent and
 * what was acknowledged in tables of its own in the same file (not as
 * events: `smrctl events` lists what the disks did).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "incidents.h"

#define HISTORY_FILE "events.db"
#define HISTORY_PENDING_MAX 4096	/* events held in memory while the database cannot take them */

typedef struct HistoryEvent {
	int64_t id;
	uint64_t time_usec;		/* CLOCK_REALTIME: when it began */
	uint64_t logged_usec;		/* when smrd recorded it */
	char device[32];
	char serial[96];		/* the disk's key (registry_disk_key): its identity across renames,
					 * wwn else serial, or identity@name while another disk shares it */
	char kind[32];
	char op[12];			/* read, write, discard, flush or "" */
	char severity[12];
	double duration, latency, value;
	int64_t count, bytes, sector;
	char message[320];
	char incident[INCIDENT_ID_MAX];	/* the incident it is a step of (incidents.h); "" none */
} HistoryEvent;

typedef struct HistoryFilter {
	const char *device;		/* NULL: all */
	const char *serial;		/* NULL: all; matched instead of device when set */
	const char *serial_on_device;	/* with serial and device: also the events of this serial
					 * under that device */
	const char *kind;		/* NULL: all */
	uint64_t since_usec;		/* events that began at or after */
	int64_t after_id;		/* events with a larger id (for --follow) */
	unsigned limit;			/* the newest `limit`, returned oldest first; 0 = 1000 */
	bool in_recorded_order;		/* by id, as recorded (a --follow stream); else by time */
} HistoryFilter;

typedef enum HistoryState {
	HISTORY_OK,			/* every event is in the database */
	HISTORY_PENDING,		/* the database is open, but events wait in memory */
	HISTORY_READ_ONLY,		/* stored events readable, new ones in memory */
	HISTORY_MEMORY,			/* no database at all: memory only */
	HISTORY_RECOVERED,		/* as ok, but rebuilt at start from a damaged file: some may be lost */
	_HISTORY_STATE_MAX,
	_HISTORY_STATE_INVALID = -EINVAL,
} HistoryState;

typedef struct History History;

/* Opens (creating) dir/events.db. A corrupt file is moved aside to
 * events.db.corrupt-<time> and what can be read of it copied into a new one
 * (-ESTALE, usable; the state is HISTORY_RECOVERED until closed). On any
 * other failure it still returns a history (read-only or memory-only) with
 * a negative code and *ret_error (caller frees); NULL only on -ENOMEM. */
int history_open(const char *dir, History **ret, char **ret_error);
/* Writes back what it can, then closes. */
History *history_close(History *h);
/* True when every event so far is in the database. */
bool history_persistent(const History *h);
HistoryState history_state(const History *h);
const char *history_state_to_string(HistoryState s);
const char *history_path(const History *h);
/* Why the database is not (fully) usable; "" when it is. */
const char *history_last_error(const History *h);
/* Something that happened to the database and was dealt with (a deleted
 * file recreated), once; NULL if nothing new. */
const char *history_take_notice(History *h);
/* Stores e and sets e->id: 0 when stored, -EIO when kept in memory for now,
 * -ENOBUFS when even memory was full (the oldest pending event was dropped). */
int history_add(History *h, HistoryEvent *e);
typedef int (*HistoryCb)(const HistoryEvent *e, void *userdata);
/* Stored and pending events alike. */
int history_query(History *h, const HistoryFilter *f, HistoryCb cb, void *userdata);
/* Drops events (and ended incidents) that began before `before_usec`, and
 * beyond max_events the oldest of the kinds that come by the thousand
 * first: a rebuild's warning, a storm or a verdict goes only once no
 * stall, slow I/O or ZFS delay is left to go. */
int history_prune(History *h, uint64_t before_usec, uint64_t max_events);
/* When the newest stored event was logged (CLOCK_REALTIME, µs); 0 if none. */
uint64_t history_newest_logged(History *h);
uint64_t history_errors(const History *h);
/* Records kept in memory: events, and incidents (each its newest state, standing for what it counts). */
unsigned history_pending(const History *h);
uint64_t history_dropped(const History *h);
/* Deletes a disk's events (by name, or by identity when serial is not
 * empty); returns how many. */
int history_forget(History *h, const char *device, const char *serial);
/* Called regularly (each sampling interval): notices a database file that
 * was deleted or replaced and recreates it from what it holds, and every
 * retry_usec (history-retry) retries a database that could not be written
 * or opened, writing back the pending events. Returns how many it wrote back. */
int history_maintain(History *h, uint64_t now_mono_usec, uint64_t retry_usec);

/* ------------------------------------------------------------ incidents */

typedef struct HistoryIncidentFilter {
	const char *device;		/* NULL: all */
	const char *disk_id;		/* NULL: all; matched instead of device when set */
	const char *kind;		/* NULL: all; an incident kind ("rebuild") */
	uint64_t since_usec;		/* those whose last event came at or after it */
	bool open_only;
	unsigned limit;			/* the newest `limit` by start, returned oldest first; 0 = 1000 */
} HistoryIncidentFilter;

/* Stores i (a new one, or its newer state): 0, -EIO when kept in memory
 * for now (its newest state, written back as events are: history_maintain),
 * -ENOBUFS when the oldest kept was dropped to keep it. */
int history_put_incident(History *h, const Incident *i);
typedef int (*HistoryIncidentCb)(const Incident *i, void *userdata);
int history_query_incidents(History *h, const HistoryIncidentFilter *f, HistoryIncidentCb cb, void *userdata);

/* ------------------------------------------------ the notifier's records */

/* One notification handed to notify-command (or dropped before it ran). */
typedef struct HistorySend {
	int64_t id;
	uint64_t time_usec;		/* CLOCK_REALTIME: when it was sent */
	uint64_t event_usec;		/* the event's time (a summary's last) */
	char device[32], identity[96];	/* identity: wwn, else serial, else the device name */
	char kind[32];			/* the event kind: storm-start, stall, ... */
	char incident[40];		/* a storm's start and end share it */
	bool follow_up;
	int64_t count;			/* events it stands for */
	char command[256];		/* notify-command as it was then */
	char result[48];		/* "exit 0", "killed after 3.0 s", ...; "" until known */
	int exit_status;		/* its exit code; -1 unless it exited */
	uint64_t done_usec;		/* when it ended; 0 until then */
} HistorySend;

/* smrctl ack: a disk's kind (or every kind) silenced while its class stays,
 * until it expires; smrctl unack: a row that withdraws it. */
typedef struct HistoryAck {
	int64_t id;
	uint64_t time_usec;
	char device[32], identity[96];
	char kind[32];			/* an event kind, or "all" */
	char disk_class[24];		/* the class it was acknowledged at */
	int64_t until_usec;		/* its expiry; 0 none (schema 1's acks), HISTORY_ACK_WITHDRAWN: an unack */
} HistoryAck;
#define HISTORY_ACK_WITHDRAWN (-1)

typedef enum HistorySendSet {
	HISTORY_SENDS_NEWEST,		/* the newest `limit` */
	HISTORY_SENDS_LAST_PER_KIND,	/* each disk's newest of each kind */
	HISTORY_SENDS_OPEN_STORMS,	/* the start of each disk's newest storm whose end was not sent */
	_HISTORY_SEND_SET_MAX,
	_HISTORY_SEND_SET_INVALID = -EINVAL,
} HistorySendSet;

/* Records a notification (sets s->id) and its incident; a storm's
 * follow-up closes it. As history_add: 0 stored, -EIO kept in memory until
 * the database takes it (history_maintain), -ENOBUFS the oldest kept dropped. */
int history_add_send(History *h, HistorySend *s);
/* Whether a send got through (its hook exited 0): only those count as sent. */
bool history_send_delivered(const HistorySend *s);
/* How a send ended: its result line and exit code (-1: it did not exit). */
int history_send_done(History *h, int64_t id, const char *result, int exit_status, uint64_t when_usec);
/* Records an acknowledgement (sets a->id); returns as history_add_send. */
int history_add_ack(History *h, HistoryAck *a);
typedef int (*HistorySendCb)(const HistorySend *s, void *userdata);
typedef int (*HistoryAckCb)(const HistoryAck *a, void *userdata);
/* The stored sends of a set, oldest first; limit 0 = all. (What waits in
 * memory is not listed: the notifier reads these once, at start.) */
int history_query_sends(History *h, HistorySendSet set, unsigned limit, HistorySendCb cb, void *userdata);
/* The newest `limit` stored acknowledgements (0 = all), oldest first. */
int history_query_acks(History *h, unsigned limit, HistoryAckCb cb, void *userdata);
