/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Notifications without Prometheus: notify-command runs once per incident
 * (core/incident.h decides which events those are), the way smartd's
 * -M exec and zed's zedlets run, with the event in its environment
 * (SMRD_EVENT, SMRD_DEVICE, SMRD_MODEL, ... see docs/notify.md). Run
 * directly (no shell), in its own session, stdin /dev/null, its output
 * logged, at most NOTIFY_RUNNING_MAX at once and NOTIFY_QUEUE_MAX waiting;
 * killed at notify-timeout. What was sent, how it ended and what was
 * acknowledged go to the history's notifier tables (history.h), so that a
 * restart repeats nothing.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "registry.h"
#include "events.h"
#include "history.h"
#include "incident.h"
#include "recorder.h"
#include "reaper.h"

#define NOTIFY_RUNNING_MAX 3
#define NOTIFY_QUEUE_MAX 32
#define NOTIFY_RECENT 16
#define NOTIFY_OUTPUT_MAX 4096		/* bytes of a hook's output logged */
#define NOTIFY_OUTPUT_LINES_MAX 64	/* ... and lines of it */

#define NOTIFY_TEST_OUTPUT_MAX 2048	/* bytes of a test hook's output told to the caller */

typedef struct Notifier Notifier;

/* smrctl notify-test: one notification through the configured hook, at
 * once, not rate-limited, no incident; its end and output for the caller. */
typedef struct NotifyTest {
	unsigned id;			/* 0: none run yet */
	bool running;
	int exit_status;		/* -1 unless it exited */
	char result[48];		/* "exit 0", "exit 3", "killed after 30.0 s", "signal 9" */
	char command[256];
	char output[NOTIFY_TEST_OUTPUT_MAX];	/* its output, lines sanitized */
	bool truncated;			/* more than output holds */
} NotifyTest;

typedef struct NotifyStats {
	uint64_t sent, ok, failed, timed_out, dropped, suppressed;
	unsigned running, queued;
} NotifyStats;

/* One line of the recent notifications and acknowledgements (the page). */
typedef struct NotifyRecent {
	uint64_t time_usec;		/* CLOCK_REALTIME */
	char device[32], what[32];	/* "storm-start", "ack stall" */
	char result[48];		/* "exit 0", "timed out", "queued", "acknowledged" */
	char incident[40];
} NotifyRecent;

/* history is the monitor's; disks to look a disk up by name for a
 * summary. cfg is kept: the command, timeout and addresses are read at each
 * send; the severity and interval when notifier_configure() is called.
 * SIGCHLD must be blocked in every thread (sd-event reaps the hooks). */
int notifier_new(sd_event *e, const Config *cfg, History *history, DiskRegistry *disks, Notifier **ret);
/* Reads cfg's notify-min-severity and notify-interval again (after a reload). */
void notifier_configure(Notifier *n);
/* Kills what still runs (SIGTERM, then SIGKILL) and waits for it. */
Notifier *notifier_free(Notifier *n);
/* Each hook's process group is owned in reaper while it runs (reaper.h):
 * what a hook leaves outside it is swept once it is over. */
void notifier_set_reaper(Notifier *n, Reaper *reaper);
/* An event as the recorder recorded it, with its incident (the notes'
 * thread: core/incident.h), or an incident that ended quiet (d NULL: of a
 * disk no longer watched): within a sample once its views are updated, at
 * once off it (recorder.h). */
void notifier_event(Notifier *n, const Disk *d, const Recorded *r);
/* Where the pages are served ("http://ADDR:PORT", http_url()): the links
 * of each notification, unless notify-url says otherwise. */
void notifier_set_url(Notifier *n, const char *url);
/* Once per interval: aggregated events whose notify-interval is over. */
void notifier_tick(Notifier *n, uint64_t now_real_usec);
/* smrctl ack: kind < 0 for every kind; until_usec (CLOCK_REALTIME) when it
 * expires, 0 never. */
int notifier_ack(Notifier *n, const Disk *d, int kind, uint64_t until_usec);
/* smrctl unack: kind < 0 withdraws all of the disk's; how many were withdrawn. */
int notifier_unack(Notifier *n, const Disk *d, int kind);
/* smrctl acks: each acknowledgement in force; how many. */
unsigned notifier_acks(const Notifier *n, void (*cb)(const IncidentAck *a, void *userdata), void *userdata);
/* The disk was forgotten: its notifications and acks with it. */
void notifier_forget(Notifier *n, const Disk *d);
void notifier_stats(const Notifier *n, NotifyStats *ret);
/* Starts a test notification (*ret_id its id): -ENOENT no notify-command
 * configured, -EBUSY one runs already, else as posix_spawn. */
int notifier_test_start(Notifier *n, unsigned *ret_id);
/* The last test notification (running or ended). */
const NotifyTest *notifier_test(const Notifier *n);
/* The newest first; returns how many (at most NOTIFY_RECENT). */
unsigned notifier_recent(const Notifier *n, NotifyRecent ret[NOTIFY_RECENT]);
