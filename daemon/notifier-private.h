/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What notifier.c and notifier-restore.c share: the notifier, its jobs
 * (one hook run each, queued or running) and its recent lines.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "hookenv.h"
#include "incident.h"
#include "notifier.h"

typedef struct Job {
	struct Job *next;
	struct Notifier *n;
	char *env[HOOKENV_MAX + 1];	/* owned strings, NULL-terminated */
	char what[32], device[32], incident[INCIDENT_ID_MAX];
	IncidentNote note;		/* what it sends: judged again if it fails */
	bool test;			/* smrctl notify-test's: its output kept for the caller */
	int64_t send_id;		/* its row in the history; 0 if not recorded */
	pid_t pid;			/* 0: queued; its process group's id too */
	int out_fd;
	sd_event_source *out_src, *child_src, *deadline_src, *linger_src;
	uint64_t started, killed_at;	/* CLOCK_MONOTONIC */
	bool termed, killed;
	bool reaped;			/* the hook ended; its group may not have */
	size_t logged;			/* bytes of output logged */
	unsigned lines;			/* lines of output logged */
	char line[256];
	size_t line_len;
} Job;

struct Notifier {
	sd_event *event;
	const Config *cfg;
	IncidentParams params;		/* from cfg: notifier_configure() */
	History *history;
	DiskRegistry *disks;
	Reaper *reaper;			/* NULL: what a hook leaves outside its group is not looked for */
	IncidentBook *book;
	Job *queue, *running;
	unsigned n_queued, n_running;
	NotifyStats st;
	NotifyRecent recent[NOTIFY_RECENT];
	unsigned recent_n;		/* recent[]: oldest first */
	char host[256];
	char url[320];			/* where the pages are served (notifier_set_url), "" unknown */
	NotifyTest test;		/* the last smrctl notify-test */
	unsigned test_seq;
};

/* Puts a line on the recent list where its time says (oldest first). */
void notifier_remember_at(Notifier *n, uint64_t when, const char *device, const char *what, const char *result,
			  const char *incident);
/* Runs a job now (no shell, its own session, watched): 0 or -errno. */
int notifier_job_spawn(Notifier *n, Job *j);
Job *notifier_job_free(Job *j);
/* notifier-test.c: a test job's output line, and its end. */
void notifier_test_capture(Notifier *n, const char *line);
void notifier_test_done(Notifier *n, Job *j, const siginfo_t *si, double secs);
/* A line on the recent list, now. */
void notifier_remember(Notifier *n, const char *device, const char *what, const char *result, const char *incident);
/* The key a disk's notifications and acks are kept under (notifier.c). */
const char *notifier_disk_key(Notifier *n, const Disk *d, char buf[96]);
/* Rebuilds the book and the recent list from the history. */
void notifier_restore(Notifier *n);
