/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watcher: while a ZFS scan may run, runs the configured
 * `zpool status -jp --json-int` (or `zpool status -p` once the JSON form is
 * refused, an OpenZFS before 2.3) as a child on the event loop, every
 * rebuild-interval, with a bounded time and a bounded output, and hands
 * what it parsed to the callback it was given. It never blocks the loop:
 * the child is reaped by sd-event, its output read as it comes. Whether a
 * scan may run is the caller's to say (a watched disk in a pool), or a
 * zed resilver_start/scrub_start it was told of (scanwatch_kick). Every
 * interval it also tells the caller to read what needs no child (btrfs:
 * sysfs and ioctls).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "reaper.h"
#include "zpoolstatus.h"

#define SCANWATCH_TIMEOUT_USEC (20 * 1000000ULL)	/* a zpool status that takes longer is killed */
/* A kick (zed's resilver_start) reads at once, unless a reading began this
 * long ago or less: a flood of them is one reading, not one each. */
#define SCANWATCH_KICK_GAP_USEC (1 * 1000000ULL)

typedef struct ScanWatch ScanWatch;

typedef enum ScanWatchForm {
	SCANWATCH_FORM_UNKNOWN,		/* not run yet: JSON is tried first */
	SCANWATCH_FORM_JSON,
	SCANWATCH_FORM_TEXT,
} ScanWatchForm;

typedef struct ScanWatchCallbacks {
	/* Whether a scan may run now (a watched disk is in a pool): polled
	 * every interval; NULL never (only kicks start the polling). */
	bool (*wanted)(void *userdata);
	/* A reading, parsed. */
	void (*status)(const ZpoolStatus *s, void *userdata);
	/* zpool could not be run or read: message says why (logged already). */
	void (*failed)(const char *message, void *userdata);
	/* Each interval, before zpool is run: what is read without a child. */
	void (*interval)(void *userdata);
	void *userdata;
} ScanWatchCallbacks;

/* zpool: the command (a name is looked up in PATH, else a path); interval
 * in seconds; both copied. reaper: as childrun_new's. */
int scanwatch_new(sd_event *e, Reaper *reaper, const char *zpool, double interval, const ScanWatchCallbacks *cb, ScanWatch **ret);
/* A reload: the command (its form learnt again when it changed) and the
 * interval, from the next reading on. -ENOMEM keeps the old command. */
int scanwatch_configure(ScanWatch *w, const char *zpool, double interval);
/* Kills a zpool still running (its process group) and reaps it. */
ScanWatch *scanwatch_free(ScanWatch *w);
/* A scan started (zed's resilver_start or scrub_start): polls now (or
 * SCANWATCH_KICK_GAP_USEC after the last reading began), and keeps
 * polling while zpool says a scan runs, wanted or not. */
void scanwatch_kick(ScanWatch *w);
/* The form that worked (for smrctl and the tests). */
ScanWatchForm scanwatch_form(const ScanWatch *w);
/* Readings parsed, runs that failed, since start. */
void scanwatch_counts(const ScanWatch *w, unsigned *ret_ok, unsigned *ret_failed);
/* A reading under way, or one a kick made due: what a test waits for
 * instead of a while. */
bool scanwatch_pending(const ScanWatch *w);
/* The gap between a reading and a kick's (SCANWATCH_KICK_GAP_USEC by
 * default): a test of what is not the gap sets 0 rather than wait it out. */
void scanwatch_set_kick_gap(ScanWatch *w, uint64_t usec);
