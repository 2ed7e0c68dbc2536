/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How long a rebuild (a ZFS resilver, a btrfs replace) takes to write onto
 * a disk, from that disk's own model (pure): the part its media cache still
 * takes at the fast rate, the rest at its sustained slow rate, refined by
 * the rate the rebuild actually shows. zpool prints no estimate below
 * 10 MB/s, which is exactly where a DM-SMR disk rebuilds; docs/zfs.md,
 * "The ETA", gives the method and its limits.
 */
#pragma once

#include <stdbool.h>

#include "diskmodel.h"

/* One rebuild's progress as seen so far, in bytes written onto the new disk.
 * Zero-initialised fields past elapsed mean "no cliff seen yet". */
typedef struct RebuildProgress {
	double total_bytes;	/* bytes the rebuild writes onto the new disk in all */
	double done_bytes;	/* written so far */
	double elapsed;		/* seconds since the rebuild began */
	bool cliff_seen;	/* the disk hit its cliff during this rebuild (a storm began) */
	double cliff_bytes;	/* done_bytes when it did */
	double cliff_elapsed;	/* elapsed when it did */
} RebuildProgress;

/* Seconds to rebuild `bytes` onto a disk from clean: the media cache at
 * fast_bps (bytes/s the disk takes before its cliff), the rest at the
 * model's slow rate. m NULL: a disk with no cliff (CMR), all at fast_bps.
 * NaN when m is given but unknown, or a rate needed is unknown. */
double rebuild_expected_seconds(const DiskModel *m, double bytes, double fast_bps);

/* Seconds left: the model's two regimes for the bytes still to write (the
 * first cache_free_bytes, what is free of the cache now, fast; NaN: unknown,
 * the cache taken as clean when the rebuild began, a replacement disk being
 * fresh as a rule), each rate blended with
 * the one observed in that regime, trusted more the longer it was watched.
 * m NULL: no cliff. fast_bps <= 0 or NaN: the observed rate alone. NaN when
 * nothing is known (no usable model or rate, or p inconsistent); 0 when done. */
double rebuild_eta(const DiskModel *m, double cache_free_bytes, double fast_bps, const RebuildProgress *p);
