/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watcher: while a ZFS scan may run, runs the configured
 * `zpool status -jp --json-int` (or `zpool status -p` once the JSON form is
 * refused, an OpenZFS before 2.3) as a child on the event loop, every
 * rebuild-interval, with a bounded time and a bounded output, and hands
 * what it parsed to the callback it was given. It never blocks the loop:
 * the child is reaped by sd-event, its output read as it comes. Whether a
 * scan may run is the caller's to say (a watched disk in a pool), or a
 * zed resilver_start/scrub_start it was told of (scanwatch_kick). The same
 * for `btrfs replace status -1 MOUNT` of each btrfs file system the caller
 * names (one of a watched disk's), one child after the other, and of
 * `btrfs balance status -v MOUNT`, followed while a balance runs by
 * `btrfs filesystem show --raw MOUNT` (the devices' sizes and chunks).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "btrfsbalance.h"
#include "reaper.h"
#include "btrfsreplace.h"
#include "zpoolstatus.h"

#define SCANWATCH_TIMEOUT_USEC (20 * 1000000ULL)	/* a zpool status that takes longer is killed */
#define SCANWATCH_MOUNTS_MAX 16
#define SCANWATCH_MOUNT_LEN 4096

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
	/* The btrfs mount points to read now (at most max); NULL none. */
	unsigned (*btrfs_mounts)(char (*ret)[SCANWATCH_MOUNT_LEN], unsigned max, void *userdata);
	/* btrfs replace status -1 of mount, parsed. */
	void (*btrfs_status)(const char *mount, const BtrfsReplaceStatus *b, void *userdata);
	/* btrfs balance status -v of mount, parsed, with show (filesystem show
	 * --raw, parsed): read while a balance runs or is paused, and at the
	 * first reading that finds none after one (did it fill its disk?);
	 * NULL otherwise, or when it could not be read. */
	void (*btrfs_balance)(const char *mount, const BtrfsBalanceStatus *b, const BtrfsShow *show, void *userdata);
	void *userdata;
} ScanWatchCallbacks;

/* zpool: the command (a name is looked up in PATH, else a path); interval
 * in seconds; both copied. reaper: as childrun_new's. */
int scanwatch_new(sd_event *e, Reaper *reaper, const char *zpool, double interval, const ScanWatchCallbacks *cb, ScanWatch **ret);
/* The btrfs command (as zpool's); "btrfs" until set. -ENOMEM keeps the old one. */
int scanwatch_set_btrfs(ScanWatch *w, const char *btrfs);
/* A reload: the command (its form learnt again when it changed) and the
 * interval, from the next reading on. -ENOMEM keeps the old command. */
int scanwatch_configure(ScanWatch *w, const char *zpool, double interval);
/* Kills a zpool still running (its process group) and reaps it. */
ScanWatch *scanwatch_free(ScanWatch *w);
/* A scan started (zed's resilver_start or scrub_start): polls now, and
 * keeps polling while zpool says a scan runs, wanted or not. */
void scanwatch_kick(ScanWatch *w);
/* The form that worked (for smrctl and the tests). */
ScanWatchForm scanwatch_form(const ScanWatch *w);
/* Readings parsed, runs that failed, since start. */
void scanwatch_counts(const ScanWatch *w, unsigned *ret_ok, unsigned *ret_failed);
