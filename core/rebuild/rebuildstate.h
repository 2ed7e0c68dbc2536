/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One rebuild being written onto one watched disk, as smrd follows it
 * (pure): each reading of the pool's scan (zpool status) or of a btrfs
 * replace is turned into a RebuildSample for the disk it writes onto, and
 * rebuild_state_observe() moves the disk's RebuildState along: the first
 * reading starts it (and fixes the estimate made at the start), later ones
 * refine the observed rate and the ETA (core/rebuild/eta.h), the finish
 * ends it with the real duration beside that estimate. docs/zfs.md, "How
 * smrd follows a rebuild".
 */
#pragma once

#include <errno.h>
#include <stdbool.h>

#include "btrfsbalance.h"
#include "btrfsreplace.h"
#include "diskmodel.h"
#include "zpoolstatus.h"

#define REBUILD_POOL_MAX ZPOOL_NAME_MAX
#define REBUILD_DONE_TEXT_MAX 320

typedef enum RebuildKind {
	REBUILD_KIND_RESILVER,
	REBUILD_KIND_SCRUB,
	REBUILD_KIND_BTRFS_REPLACE,
	REBUILD_KIND_BTRFS_BALANCE,	/* a balance onto a disk added to the file system */
	REBUILD_KIND_BTRFS_REMOVE,	/* btrfs device remove: the removed device's chunks onto the others */
	_REBUILD_KIND_MAX,
	_REBUILD_KIND_INVALID = -EINVAL,
} RebuildKind;

typedef enum RebuildPhase {
	REBUILD_PHASE_NONE,		/* no rebuild seen onto the disk */
	REBUILD_PHASE_RUNNING,
	REBUILD_PHASE_FINISHED,
	REBUILD_PHASE_CANCELED,		/* canceled, or gone without a finish being seen */
	_REBUILD_PHASE_MAX,
	_REBUILD_PHASE_INVALID = -EINVAL,
} RebuildPhase;

/* One reading of a rebuild onto one disk. Times are CLOCK_REALTIME
 * seconds; NaN where the tool does not say. */
typedef struct RebuildSample {
	RebuildKind kind;
	RebuildPhase phase;		/* RUNNING, FINISHED or CANCELED */
	char pool[REBUILD_POOL_MAX + 1];	/* the pool, the btrfs file system's mount */
	double started;
	double duration;		/* finished: as the tool says */
	double total_bytes;		/* to write onto the disk in all */
	double done_bytes;		/* written onto it so far */
	bool stopping;			/* told to stop (a balance paused or cancelling): its end is no finish */
} RebuildSample;

/* What smrd knows of the disk, for the ETA: read at each reading. */
typedef struct RebuildDiskFacts {
	const DiskModel *model;		/* NULL: a disk with no cliff (CMR, SSD) */
	double cache_free_bytes;	/* free of its media cache now; NaN unknown */
	double fast_bps;		/* its fast rate; NaN unknown: no estimate until a rate is observed */
	bool storm;			/* a destage storm under way: the cliff was reached */
	double written_bytes;		/* the disk's own write counter (diskstats), in bytes; NaN unknown */
} RebuildDiskFacts;

/* btrfs says no bytes: a total the disk's writes reach while it still runs
 * was short, and is raised so that what is written is this share of it
 * (never "done" before the end). */
#define REBUILD_RUNNING_SHARE_MAX 0.95

/* A rebuild-warning recorded while no rebuild was followed onto the disk
 * (zed's vdev_attach comes before the resilver is read) counts for the
 * next one seen if that one started no earlier than this before it. */
#define REBUILD_WARN_AHEAD_SECONDS 3600.0

typedef struct RebuildState {
	RebuildPhase phase;
	RebuildKind kind;
	char pool[REBUILD_POOL_MAX + 1];
	double started;			/* the tool's start, else when smrd first saw it */
	double first_seen;		/* when smrd first saw it */
	double updated;			/* the last reading */
	double elapsed;			/* seconds since started, at the last reading */
	double total_bytes, done_bytes;
	double rate;			/* bytes/s observed since smrd first saw it; NaN until two readings */
	double eta;			/* seconds left; NaN unknown; 0 once finished */
	double expected;		/* seconds for the whole rebuild, estimated at its first reading; NaN */
	double duration;		/* the real one, once finished */
	bool cliff_seen;		/* a destage storm began during the rebuild */
	double cliff_bytes, cliff_elapsed;
	double first_done;		/* done_bytes at first_seen: the rate counts from there */
	double first_eta;		/* the ETA at the first reading that gave one, from first_seen */
	/* Between the tool's steps (a btrfs replace moves a chunk at a time,
	 * zpool's 2.1 text rounds to three digits) the bytes written come from
	 * the disk's own counter: step_counter is the counter when the rebuild
	 * was first seen (or it was reset), step_done the bytes written then,
	 * tool_done the tool's last figure, step its largest move (NaN none
	 * yet), for zpool the bound on what the counter adds to its figure. */
	double tool_done, step_counter, step_done, step;
	double warned_at;		/* this rebuild's rebuild-warning was recorded then; NaN none */
	double warn_pending;		/* one recorded while none was followed: the next start may take it */
	bool stopping;			/* the last reading said it was told to stop */
} RebuildState;

typedef enum RebuildChange {
	REBUILD_CHANGE_NONE,
	REBUILD_CHANGE_STARTED,		/* a rebuild onto the disk was seen for the first time */
	REBUILD_CHANGE_PROGRESS,
	REBUILD_CHANGE_ENDED,		/* finished or canceled: phase says */
} RebuildChange;

/* "resilver", "scrub", "btrfs-replace", "balance", "device-remove"; NULL outside the enum. */
const char *rebuild_kind_to_string(RebuildKind k);
/* "none", "running", "finished", "canceled"; NULL outside the enum. */
const char *rebuild_phase_to_string(RebuildPhase p);

void rebuild_state_init(RebuildState *s);
/* Moves s along with reading o taken at `now`. A reading of another
 * rebuild (another pool or kind, or a start later than the one followed)
 * after an ended one starts afresh. */
RebuildChange rebuild_state_observe(RebuildState *s, const RebuildSample *o, const RebuildDiskFacts *f, double now);
/* The rebuild followed is no longer in the tool's output (its pool gone,
 * its scan replaced by none): it ends as canceled. NONE when none ran. */
RebuildChange rebuild_state_gone(RebuildState *s, double now);

/* A rebuild-warning about the disk was recorded at now: it belongs to the
 * rebuild followed, else to the next one to start (REBUILD_WARN_AHEAD_SECONDS). */
void rebuild_state_warned(RebuildState *s, double now);
/* Whether the rebuild followed still lacks its rebuild-warning check: one
 * per rebuild, whoever saw it first (zed's attach, the watcher). */
bool rebuild_state_wants_warning(const RebuildState *s);

/* The reading of a resilver onto leaf (one of scan's leaves, or NULL for
 * the pool's own figures), utc_offset the seconds local time is ahead of
 * UTC (for the text's ctime() dates). -ENOENT: no rebuild to follow (no
 * scan, a scrub, a resilver writing onto no leaf). */
int rebuild_sample_from_zpool(const ZpoolScan *scan, const ZpoolLeaf *leaf, double utc_offset, RebuildSample *ret);
/* The reading of a btrfs replace of file system `mount`, total_bytes the
 * bytes it copies (the source device's used bytes; NaN unknown), now the
 * wall clock. -ENOENT: never started. */
int rebuild_sample_from_btrfs(const BtrfsReplaceStatus *b, const char *mount, double total_bytes, double now,
			      RebuildSample *ret);

/* Whether a rebuild of this kind is btrfs's (read per file system, not from zpool). */
bool rebuild_kind_btrfs(RebuildKind k);
/* The reading of a btrfs balance of file system `mount` onto one disk:
 * total_bytes what it leaves on the disk in all, done_bytes what is there
 * now (NaN unknown); followed the disk's rebuild state (NULL none). A
 * balance found no more ends finished, unless the reading before said it
 * was told to stop (paused, cancel requested) and the disk is not filled
 * (its share of the chunks not there): canceled. -ENOENT: no balance and
 * none followed. */
int rebuild_sample_from_balance(const BtrfsBalanceStatus *b, const char *mount, double total_bytes, double done_bytes,
				bool filled, const RebuildState *followed, RebuildSample *ret);

/* The reading of a btrfs device remove of file system `mount` onto one
 * disk: running (exclusive_operation says so), total_bytes and done_bytes
 * as for a balance; followed the disk's state. Once it no longer runs it
 * ended finished when the removed device left the file system (gone),
 * canceled otherwise. -ENOENT: none running and none followed. */
int rebuild_sample_from_remove(bool running, const char *mount, double total_bytes, double done_bytes, bool gone,
			       const RebuildState *followed, RebuildSample *ret);

/* The history's message for an ended rebuild onto `device`: the real
 * duration beside the estimate made at the start, and that estimate's
 * error. Returns the error as a share (+0.25: took a quarter longer than
 * estimated), NaN when there was no estimate. */
double rebuild_done_text(const RebuildState *s, const char *device, char buf[static REBUILD_DONE_TEXT_MAX]);
