/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One watched disk: what smrd knows of it (identity, verdict, counters,
 * the detector's state and the view every output shows).
 */
#pragma once

#include <stdint.h>

#include "classify.h"
#include "diskstats.h"
#include "detect.h"
#include "diskview.h"
#include "latency.h"
#include "membership.h"
#include "modellist.h"
#include "rebuildstate.h"
#include "sysdisk.h"

/* What smrd.conf says of one disk (disk.<ID>.*): NaN where it says nothing. */
typedef struct DiskTuning {
	double stall_threshold;	/* seconds; NaN: the default */
	double media_cache;	/* bytes: seeds the media cache's estimate */
	double rebuild_rate;	/* bytes/s of a rebuild's large ordered writes past the cache (smrctl qualify) */
} DiskTuning;

typedef struct Disk {
	char name[32];
	SysfsDisk sys;		/* what was read of it, by value: identity strings, the classifier's facts */
	Membership *members;	/* pools, arrays, volume groups it is part of: n_members, owned */
	unsigned n_members;
	DiskTuning tuning;	/* smrd.conf's disk.<ID>.* settings */
	VerdictSummary verdict;	/* the full one: monitor_verdict() */
	FarmReading *farm;	/* what smartctl read of the vendor's log (FARM), asked as often as the model
				 * list is matched and on reread; NULL until it answers, as for every disk
				 * it does not read (not a Seagate's): nothing read */
	DiskstatAccum ds;
	double interval;	/* seconds covered by ds.delta */
	uint64_t added_usec;	/* CLOCK_REALTIME */
	bool seen;		/* mark-and-sweep during scans and samples */
	DiskLatency *lat;	/* traced latency; NULL until the first traced I/O */
	DiskView view;		/* what the views show: diskview_update() */
	/* a rebuild onto it followed from zpool/btrfs status (daemon/rebuild/rebuilds.c);
	 * NULL until one is seen, as for most disks: read it through disk_rebuild() */
	RebuildState *rebuild;
	struct MonitorDisk *mon;	/* the monitor's own (probe, log limits); it frees it */
	/* Last, what no view reads: every view (a scrape reads each disk's
	 * identity, counters and view in turn) then touches fewer pages. */
	ModelMatch model;	/* the model list's answer: classify_match() when found, when a re-read changes
				 * its model strings, and on reload; never for a view */
	DiskDetect det;		/* the detector's state: only the monitor reads it */
	bool det_ready;		/* det initialised and restored from the history */
} Disk;

void disk_rates(const Disk *d, DiskRates *ret);
/* Frees what a Disk owns, not the Disk itself. */
void disk_release(Disk *d);
/* Replaces the disk's memberships with a copy of ms; -ENOMEM keeps the old ones. */
int disk_set_members(Disk *d, const Memberships *ms);
/* The stall threshold for this disk: its own setting by identity, else
 * detect.stall-threshold.<name>, else detect.stall-threshold. */
double disk_stall_threshold(const Disk *d, const DetectParams *p);
/* Who the disk is across renames (sdb today, sdc after a reboot): its WWN,
 * else its serial, else "". */
const char *disk_identity(const Disk *d);
/* The disk's rebuild state: none (zeroed) when no rebuild was ever seen. */
const RebuildState *disk_rebuild(const Disk *d);
/* The same, to change: made on first use; NULL when out of memory. */
RebuildState *disk_rebuild_mut(Disk *d);

/* ------------------------------------------------------------ the views */

typedef struct DiskViewClock {
	double mono, real;	/* seconds: CLOCK_MONOTONIC (the detector's) and CLOCK_REALTIME */
	uint64_t sample;
} DiskViewClock;

/* Fills d->view from the detector (once it is ready), the counters and
 * the latency windows: once per sample. */
void diskview_update(Disk *d, const DetectParams *p, const DiskViewClock *c);
/* Whether behaviour may make the disk dm-smr: not when its static evidence
 * already does, not when smrd.conf declares its class (the way to silence a
 * false positive), not for a stacked device (its members shingle, if any). */
bool disk_may_reclassify(const Disk *d);
bool disk_by_behaviour(const Disk *d);
/* The class as shown: the static one, or dm-smr by behaviour. */
DiskClass disk_class(const Disk *d);
double disk_smr_confidence(const Disk *d);
/* The verdict as shown: the static one plus behaviour; with the evidence. */
void disk_summary(const Disk *d, VerdictSummary *ret);
/* From what the disk keeps (its facts and model): it matches nothing, so
 * a view costs the same whatever the model list holds. */
void disk_verdict(const Disk *d, Verdict *ret);
/* What each source says of the disk's class (the static ones the disk
 * keeps, and behaviour) as disk_verdict()'s evidence would: at most max. */
unsigned disk_sources(const Disk *d, EvidenceSource *ret, unsigned max);
