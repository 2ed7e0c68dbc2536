/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rebuild onto a disk, before it starts (pure): the bytes it would
 * write (the share of the ZFS vdev or the btrfs device it would take),
 * how long that takes as a range from the disk's own figures (smrctl
 * qualify's, else those smrd learnt from its storms, else the published
 * shapes of DM-SMR disks; each says which), the guard's verdict, and what
 * to do, each line with the measurement behind it: zed's slow I/O
 * diagnosis on the vdev, a rebuild in order where the layout allows one,
 * the disk's command timeout against its worst stall. smrctl
 * rebuild-check prints it; the rebuild-warning at a rebuild's start says
 * the same. This is the rebuild's part of "what to do now".
 */
#pragma once

#include <stdbool.h>

#include "guard.h"
#include "vdevprops.h"

#define FORECAST_ADVICE_MAX 4
#define FORECAST_TEXT_MAX 320
/* A 3.5" disk's sequential rate, from its inner to its outer tracks
 * (bytes/s): where the disk's own rate is not known, a rebuild with no
 * cliff runs within it. */
#define FORECAST_CMR_LOW_BPS 100e6
#define FORECAST_CMR_HIGH_BPS 250e6
/* The published DM-SMR shapes (docs/smr-primer.md): a media cache of
 * about 1% of the capacity; past it, from RAIDZ's small chunks (WD40EFAX
 * resilvers of over 9 days) to ordered streams (~90 MB/s). */
#define FORECAST_SMR_CACHE_SHARE 0.01
#define FORECAST_SMR_LOW_BPS 5e6
#define FORECAST_SMR_HIGH_BPS 90e6

typedef enum RebuildFigures {
	REBUILD_FIGURES_QUALIFY,	/* smrd.conf's disk.ID.media-cache and rebuild-rate (smrctl qualify) */
	REBUILD_FIGURES_LEARNT,		/* the cache and the slow rate smrd learnt from the disk's storms */
	REBUILD_FIGURES_PUBLISHED,	/* none of its own: the published shapes */
	_REBUILD_FIGURES_MAX,
	_REBUILD_FIGURES_INVALID = -EINVAL,
} RebuildFigures;

typedef enum RebuildJoin {
	REBUILD_JOIN_NONE,		/* no pool or file system named */
	REBUILD_JOIN_ZFS,
	REBUILD_JOIN_BTRFS,
	_REBUILD_JOIN_MAX,
	_REBUILD_JOIN_INVALID = -EINVAL,
} RebuildJoin;

typedef enum ForecastSlowIo {
	FORECAST_SLOW_IO_NOT_KNOWN,
	FORECAST_SLOW_IO_UNSET,
	FORECAST_SLOW_IO_SAFE,
	FORECAST_SLOW_IO_CAN_TRIP,
	_FORECAST_SLOW_IO_MAX,
	_FORECAST_SLOW_IO_INVALID = -EINVAL,
} ForecastSlowIo;

typedef struct ForecastFacts {
	RebuildFacts disk;		/* the guard's (size_bytes: the disk's size) */
	const char *device;		/* "sdb" */
	double tuned_cache, tuned_rate;	/* smrd.conf's, from smrctl qualify; NaN none */
	RebuildJoin join;
	const char *where;		/* "ZFS pool tank", "btrfs file system /srv" */
	const char *vdev;		/* ZFS: the top-level vdev ("mirror-0"); btrfs: the mount point */
	VdevLayout layout;		/* ZFS: the vdev's; _VDEV_LAYOUT_INVALID unknown */
	unsigned children;		/* ZFS: the vdev's children; 0 unknown */
	double bytes;			/* to write onto the disk; NaN unknown */
	const char *bytes_from;		/* how they were found */
	ForecastSlowIo slow_io;		/* ZFS: zed's slow I/O diagnosis on the vdev */
	SlowIoSetting slow_io_setting;	/* UNSET, SAFE, CAN_TRIP */
	const char *slow_io_why;	/* NOT_KNOWN: why */
	double io_timeout;		/* seconds a command may take before the kernel aborts it; NaN unknown */
	double worst_stall;		/* seconds, the longest stall smrd saw on it; NaN or 0: none */
} ForecastFacts;

typedef struct ForecastAdvice {
	bool warns;			/* to act on before the rebuild */
	char text[FORECAST_TEXT_MAX];	/* what to do */
	char measured[FORECAST_TEXT_MAX];	/* what it rests on */
} ForecastAdvice;

typedef struct RebuildForecast {
	RebuildCheck check;		/* the guard's verdict on the disk */
	double bytes;			/* written onto it; the disk's size when not known (at most) */
	char bytes_from[FORECAST_TEXT_MAX];
	double expected, low, high;	/* seconds; expected NaN when only a range is known */
	RebuildFigures figures;
	char figures_text[FORECAST_TEXT_MAX];	/* which figures, in words */
	ForecastAdvice advice[FORECAST_ADVICE_MAX];
	unsigned n_advice;
	bool warn;			/* a warning: the guard's, or an advice line's */
} RebuildForecast;

/* "qualify", "learnt", "published"; NULL outside the enum. */
const char *rebuild_figures_to_string(RebuildFigures f);
void rebuild_forecast(const ForecastFacts *f, RebuildForecast *ret);
