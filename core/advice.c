/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "advice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "util.h"

/* A disk that takes a rebuild slowly: shingled, or seen in destage storms. */
static bool slow_target(const AdviceFacts *f)
{
	return f->disk_class == DISK_CLASS_DM_SMR || f->disk_class == DISK_CLASS_HOST_AWARE ||
	       f->disk_class == DISK_CLASS_HOST_MANAGED || f->storm ||
	       (f->rebuild && f->rebuild->cliff_seen);
}

bool advice_rebuilding(const AdviceFacts *f)
{
	return f->rebuild && f->rebuild->phase == REBUILD_PHASE_RUNNING;
}

/* How to stop this kind of rebuild and make it onto a CMR disk instead,
 * in commands an admin can paste: the pool (a btrfs file system's mount)
 * and the disk by name where smrd knows them; OLD and CMRDISK are the
 * admin's to fill in. */
static void how_to_move(const RebuildState *s, const char *dev, char *buf, size_t n)
{
	const char *pool = s->pool[0] ? s->pool : NULL;
	switch (s->kind) {
	case REBUILD_KIND_RESILVER:
		snprintf(buf, n, "zpool detach %.64s %.31s ends the replace onto it; then zpool replace %.64s OLD CMRDISK, "
			 "or, on a mirror or dRAID, zpool replace -s %.64s OLD %.31s again: a sequential rebuild writes in "
			 "order, which a shingled disk takes far faster", pool ? pool : "POOL", dev, pool ? pool : "POOL",
			 pool ? pool : "POOL", dev);
		break;
	case REBUILD_KIND_BTRFS_REPLACE:
		snprintf(buf, n, "btrfs replace cancel %.64s (wipe %.31s before using it again), then btrfs replace start "
			 "SOURCE CMRDISK %.64s", pool ? pool : "MOUNT", dev, pool ? pool : "MOUNT");
		break;
	case REBUILD_KIND_BTRFS_BALANCE:
		snprintf(buf, n, "btrfs balance cancel %.64s, btrfs device remove /dev/%.31s %.64s, then btrfs device add "
			 "a CMR disk and balance onto it", pool ? pool : "MOUNT", dev, pool ? pool : "MOUNT");
		break;
	case REBUILD_KIND_BTRFS_REMOVE:
		snprintf(buf, n, "btrfs device remove cancel %.64s, add a CMR disk, then remove the old one again",
			 pool ? pool : "MOUNT");
		break;
	default:
		snprintf(buf, n, "stop it and rebuild onto a CMR disk instead");
		break;
	}
}

static void rebuild_running(const AdviceFacts *f, const char *dev, Advice *ret)
{
	const RebuildState *s = f->rebuild;
	char what[192], left[FORMAT_MAX], all[FORMAT_MAX], move[640];
	const char *kind = rebuild_kind_to_string(s->kind);
	snprintf(what, sizeof what, "%s of %.120s onto %.31s", kind ? kind : "rebuild", s->pool[0] ? s->pool : "its pool",
		 dev);
	char progress[160] = "";
	int k = 0;
	if (isfinite(s->done_bytes) && isfinite(s->total_bytes) && s->total_bytes > 0)
		k = snprintf(progress, sizeof progress, ": %.0f%% written", 100 * fmin(s->done_bytes / s->total_bytes, 1));
	if (isfinite(s->eta) && k >= 0 && (size_t)k < sizeof progress)
		k += snprintf(progress + k, sizeof progress - (size_t)k, "%sabout %s left", k ? ", " : ": ",
			      format_duration(left, s->eta));
	if (isfinite(s->expected) && k >= 0 && (size_t)k < sizeof progress)
		snprintf(progress + k, sizeof progress - (size_t)k, " (%s in all, estimated at its start)",
			 format_duration(all, s->expected));
	ret->anchor = "smrrebuildslow";
	if (!slow_target(f)) {
		snprintf(ret->text, sizeof ret->text, "The %s is under way%s: let it finish, and keep scrubs and other "
			 "heavy writes off the pool until it does.", what, progress);
		return;
	}
	how_to_move(s, dev, move, sizeof move);
	snprintf(ret->text, sizeof ret->text,
		 "The %s is under way%s. Let it finish if the pool can go that long without the redundancy it restores; "
		 "if not, move it onto a CMR disk: %s. Meanwhile keep scrubs, backups and other heavy writes off the "
		 "pool: each competes with the rebuild for the disk's band rewrites.", what, progress, move);
}

static void rebuild_ended(const AdviceFacts *f, const char *dev, Advice *ret)
{
	const RebuildState *s = f->rebuild;
	bool done = s && s->phase == REBUILD_PHASE_FINISHED;
	ret->anchor = "smrrebuildslow";
	if (!done)
		snprintf(ret->text, sizeof ret->text, "The rebuild onto %.31s ended unfinished: zpool status or btrfs "
			 "filesystem show says whether the pool still lacks its redundancy; rebuild it onto a CMR disk.", dev);
	else if (slow_target(f))
		snprintf(ret->text, sizeof ret->text, "The pool has its redundancy back. %.31s is a shingled disk: plan to "
			 "replace it with a CMR disk before the next rebuild, which would be as slow.", dev);
	else
		snprintf(ret->text, sizeof ret->text, "Nothing to do: the rebuild onto %.31s is done.", dev), ret->anchor = "";
}

/* No rebuild onto the disk: by what happened. */
static void by_event(const AdviceFacts *f, Advice *ret)
{
	const char *t = "";
	switch (f->kind) {
	case EVENT_STORM_START:
	case EVENT_STORM_END:
		ret->anchor = "smrdestagestorm";
		t = "Pause or throttle the random writes to this disk (a scrub of a pool being written, a backup, a "
		    "torrent) and give it idle time to clean. Do not start a resilver or rebuild onto it now.";
		break;
	case EVENT_BEHAVIOUR:
	case EVENT_BANDS:
		ret->anchor = "smrdiskundeclaredsmr";
		t = "Treat this disk as drive-managed SMR: never resilver or rebuild onto it, keep it out of ZFS pools "
		    "and md arrays that resilver, or plan its replacement with a CMR disk.";
		break;
	case EVENT_STALL:
		ret->anchor = "smrdiskstalls";
		t = "Writes to this disk wait for seconds at a time: reduce the random writes to it and give it idle "
		    "time; do not resilver onto it.";
		break;
	case EVENT_TIMEOUT_RISK:
		ret->anchor = "smrstallneariotimeout";
		t = "Raise this disk's I/O timeout above its longest stall (a udev rule setting queue/io_timeout) and "
		    "avoid heavy random writes to it, or the kernel may fail its I/O.";
		break;
	case EVENT_STALL_IMMINENT:
		ret->anchor = "smrdiskstallimminent";
		t = "Pause or slow what writes to this disk (a backup, a restore) if its latency matters, or let it "
		    "finish and expect a stall.";
		break;
	case EVENT_REBUILD_WARNING:
	case EVENT_REBUILD_START:
		ret->anchor = "smrrebuildslow";
		t = "A rebuild onto this disk will be slow and may fault it: replace onto a CMR disk if you can "
		    "(smrctl rebuild-check CMRDISK says how long that would take).";
		break;
	case EVENT_ZFS_DELAY:
	case EVENT_ZFS_DEADMAN:
	case EVENT_ZFS_SITOUT:
	case EVENT_ZFS_STATECHANGE:
		ret->anchor = f->storm ? "smrdestagestorm" : "";
		t = f->storm ? "ZFS's slow I/O comes from the disk's destage storm: pause the writes to the pool and give "
			       "the disk idle time; zpool status -v says whether ZFS faulted it (zpool clear brings it back)."
			     : "zpool status -v says what ZFS made of the disk; smrctl show says whether it is the disk "
			       "itself that is slow.";
		break;
	default:
		if (f->storm)
			return by_event(&(AdviceFacts){.disk_class = f->disk_class, .storm = true, .kind = EVENT_STORM_START}, ret);
		if (slow_target(f)) {
			ret->anchor = "smrdiskundeclaredsmr";
			t = "Keep this disk out of pools that resilver, or replace it with a CMR disk before a rebuild needs it.";
		}
		break;
	}
	snprintf(ret->text, sizeof ret->text, "%s", t);
}

void advice_for(const AdviceFacts *f, Advice *ret)
{
	*ret = (Advice){.anchor = ""};
	const char *dev = f->device && *f->device ? f->device : "DISK";
	if (advice_rebuilding(f))
		rebuild_running(f, dev, ret);
	else if (f->kind == EVENT_REBUILD_DONE)
		rebuild_ended(f, dev, ret);
	else
		by_event(f, ret);
}
