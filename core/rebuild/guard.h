/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard (pure): whether a disk about to take a rebuild (a ZFS
 * resilver after zpool attach/replace) takes it slowly, on what evidence,
 * how long it would take, and what to do; and the sentence smrd records
 * for a ZFS event on a disk it watches ("ZFS delay on tank/sdb, a DM-SMR
 * disk in a destage storm for 48 s"). The daemon fills RebuildFacts from
 * its disk record; smrctl rebuild-check and the vdev_attach warning say
 * the same thing because they come from here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "diskmodel.h"
#include "zevent.h"

/* A 3.5" disk's sequential write rate, which a resilver's stream reaches
 * on a disk with no cliff (bytes/s): the guard's fast rate when nothing
 * better is known. */
#define REBUILD_FAST_BPS_DEFAULT 150e6
#define REBUILD_TEXT_MAX 320

typedef enum RebuildRisk {
	REBUILD_RISK_NONE,		/* CMR, SSD: a rebuild runs at the disk's rate */
	REBUILD_RISK_UNTESTED,		/* unknown class and never qualified */
	REBUILD_RISK_STORMS,		/* not known as SMR, but seen in destage storms */
	REBUILD_RISK_SMR,		/* dm-smr (or host-aware/managed used as a plain disk) */
	_REBUILD_RISK_MAX,
	_REBUILD_RISK_INVALID = -EINVAL,
} RebuildRisk;

/* What the daemon knows of the disk. */
typedef struct RebuildFacts {
	DiskClass disk_class;
	const char *basis;		/* the verdict's evidence in a few words; NULL none */
	bool by_behaviour;		/* dm-smr because of its storms */
	uint64_t storms;		/* destage storms seen, the history's included */
	bool storm_now;
	double storm_seconds;		/* how long the storm under way has lasted; NaN none */
	bool qualified;			/* smrctl qualify's figure in smrd.conf, or a model learnt from storms */
	const DiskModel *model;		/* NULL or unknown: no cliff figures */
	double size_bytes;
	double fast_bps;		/* NaN or <= 0: REBUILD_FAST_BPS_DEFAULT */
} RebuildFacts;

typedef struct RebuildCheck {
	RebuildRisk risk;
	bool warn;			/* risk != NONE */
	char evidence[REBUILD_TEXT_MAX];
	double expected_seconds;	/* to write the whole disk; NaN unknown */
	char advice[REBUILD_TEXT_MAX];
} RebuildCheck;

/* "none", "untested", "storms", "smr"; NULL outside the enum. */
const char *rebuild_risk_to_string(RebuildRisk r);
void rebuild_check(const RebuildFacts *f, RebuildCheck *ret);

/* The history's message for a ZFS event on disk `device` (NULL: not a disk
 * smrd watches) of class disk_class, in a storm for storm_seconds (NaN: not
 * in one). */
void zfs_event_text(const ZfsEvent *e, const char *device, const char *disk_class, double storm_seconds,
		    char buf[static REBUILD_TEXT_MAX]);
