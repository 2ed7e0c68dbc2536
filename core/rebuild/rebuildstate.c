/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rebuild onto one disk, followed from reading to reading (rebuildstate.h).
 * What a resilver writes onto its new disk: zpool gives the bytes written
 * onto the leaf (JSON scan_processed; the text's "resilvered" for the pool)
 * and the share of the scan issued; the bytes still to write are taken in
 * the same proportion, which is exact for a mirror and close for RAIDZ,
 * whose new child takes its share of every block.
 */
#include "rebuildstate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eta.h"
#include "format.h"

static const char *const kinds[_REBUILD_KIND_MAX] = {
	[REBUILD_KIND_RESILVER] = "resilver", [REBUILD_KIND_SCRUB] = "scrub", [REBUILD_KIND_BTRFS_REPLACE] = "btrfs-replace",
	[REBUILD_KIND_BTRFS_BALANCE] = "balance", [REBUILD_KIND_BTRFS_REMOVE] = "device-remove",
};
static const char *const phases[_REBUILD_PHASE_MAX] = {
	[REBUILD_PHASE_NONE] = "none", [REBUILD_PHASE_RUNNING] = "running",
	[REBUILD_PHASE_FINISHED] = "finished", [REBUILD_PHASE_CANCELED] = "canceled",
};

const char *rebuild_kind_to_string(RebuildKind k)
{
	return k >= 0 && k < _REBUILD_KIND_MAX ? kinds[k] : NULL;
}

const char *rebuild_phase_to_string(RebuildPhase p)
{
	return p >= 0 && p < _REBUILD_PHASE_MAX ? phases[p] : NULL;
}

void rebuild_state_init(RebuildState *s)
{
	*s = (RebuildState){.phase = REBUILD_PHASE_NONE, .started = NAN, .first_seen = NAN, .updated = NAN,
			    .elapsed = NAN, .total_bytes = NAN, .done_bytes = NAN, .rate = NAN, .eta = NAN,
			    .expected = NAN, .duration = NAN, .cliff_bytes = NAN, .cliff_elapsed = NAN,
			    .first_done = NAN, .first_eta = NAN, .tool_done = NAN, .step_counter = NAN, .step_done = NAN, .step = NAN,
			    .warned_at = NAN, .warn_pending = NAN};
}

void rebuild_state_warned(RebuildState *s, double now)
{
	if (s->phase == REBUILD_PHASE_RUNNING)
		s->warned_at = now;
	else
		s->warn_pending = now;
}

bool rebuild_state_wants_warning(const RebuildState *s)
{
	return s->phase == REBUILD_PHASE_RUNNING && !isfinite(s->warned_at);
}

static bool same_rebuild(const RebuildState *s, const RebuildSample *o)
{
	if (s->kind != o->kind || strcmp(s->pool, o->pool) != 0)
		return false;
	/* a later start is a new rebuild of the same pool onto the same disk */
	return !(isfinite(o->started) && isfinite(s->started) && o->started > s->started + 1);
}

static void start(RebuildState *s, const RebuildSample *o, const RebuildDiskFacts *f, double now)
{
	/* a disk's record starts zeroed: 0 is no warning */
	double pending = s->warn_pending > 0 ? s->warn_pending : NAN;
	rebuild_state_init(s);
	s->phase = REBUILD_PHASE_RUNNING;
	s->kind = o->kind;
	snprintf(s->pool, sizeof s->pool, "%s", o->pool);
	s->started = isfinite(o->started) && o->started <= now ? o->started : now;
	s->first_seen = now;
	s->first_done = o->done_bytes;
	/* zed's vdev_attach warned just before the resilver it starts */
	if (pending >= s->started - REBUILD_WARN_AHEAD_SECONDS && pending <= now + 60)
		s->warned_at = pending;
	/* the whole rebuild from a clean cache: what the guard said at the attach */
	s->expected = rebuild_expected_seconds(f->model, o->total_bytes, f->fast_bps);
}

/*
 * The bytes written onto the disk: what the disk's own write counter took
 * since the rebuild was first seen, added to the tool's figure then;
 * never below the tool's figure now, nor past the total. A btrfs replace
 * reports a chunk at a time (1 GiB on a large file system: minutes at a
 * DM-SMR disk's slow rate), and between its steps the ETA would climb as
 * if nothing were written; its figure is also the copy's position on the
 * source device, not the bytes copied, so the counter is the better
 * measure and only the total bounds it. zpool reports bytes, coarsely in
 * its 2.1 text (three digits): there the counter, which also counts the
 * pool's own writes landing on the disk, goes at most the largest step
 * the tool has made past its figure.
 */
static double interpolated(RebuildState *s, const RebuildSample *o, const RebuildDiskFacts *f)
{
	double tool = o->done_bytes, c = f->written_bytes;
	if (!isfinite(tool))
		return NAN;
	if (isfinite(s->tool_done) && tool > s->tool_done)
		s->step = fmax(isfinite(s->step) ? s->step : 0, tool - s->tool_done);
	s->tool_done = tool;
	if (!isfinite(s->step_counter) || !(c >= s->step_counter)) {
		/* the first reading, or the counter reset or unknown: re-based */
		s->step_counter = c;
		s->step_done = isfinite(s->done_bytes) ? fmax(s->done_bytes, tool) : tool;
		return s->step_done;
	}
	double hi = isfinite(s->total_bytes) ? s->total_bytes : INFINITY;
	if (!rebuild_kind_btrfs(s->kind))
		hi = isfinite(s->step) ? fmin(hi, tool + s->step) : tool;
	if (!isfinite(hi))
		return tool;
	return fmax(tool, fmin(s->step_done + (c - s->step_counter), hi));
}

static void progress(RebuildState *s, const RebuildSample *o, const RebuildDiskFacts *f, double now)
{
	s->updated = now;
	s->elapsed = fmax(now - s->started, 0);
	s->stopping = o->stopping;
	if (isfinite(o->total_bytes))
		s->total_bytes = o->total_bytes;
	double done = interpolated(s, o, f);
	if (isfinite(done))
		s->done_bytes = done;
	if (rebuild_kind_btrfs(s->kind) && isfinite(s->total_bytes) && s->done_bytes > s->total_bytes * REBUILD_RUNNING_SHARE_MAX)
		s->total_bytes = s->done_bytes / REBUILD_RUNNING_SHARE_MAX;
	if (isfinite(s->first_done) && isfinite(s->done_bytes) && now - s->first_seen > 0)
		s->rate = fmax(s->done_bytes - s->first_done, 0) / (now - s->first_seen);
	else if (!isfinite(s->first_done))
		s->first_done = s->done_bytes, s->first_seen = now;
	if (f->storm && !s->cliff_seen && f->model) {
		s->cliff_seen = true;
		s->cliff_bytes = s->done_bytes;
		s->cliff_elapsed = s->elapsed;
	}
	RebuildProgress p = {.total_bytes = s->total_bytes, .done_bytes = s->done_bytes, .elapsed = s->elapsed,
			     .cliff_seen = s->cliff_seen, .cliff_bytes = s->cliff_bytes, .cliff_elapsed = s->cliff_elapsed};
	/* seen mid-way: what it wrote before smrd looked counts as cache used */
	s->eta = rebuild_eta(f->model, f->cache_free_bytes, f->fast_bps, &p);
	if (!isfinite(s->first_eta) && isfinite(s->eta))
		s->first_eta = s->eta + (now - s->first_seen);
}

static RebuildChange end(RebuildState *s, RebuildPhase phase, double duration, double now)
{
	s->phase = phase;
	s->updated = now;
	s->duration = isfinite(duration) && duration >= 0 ? duration : fmax(now - s->started, 0);
	s->elapsed = s->duration;
	if (phase == REBUILD_PHASE_FINISHED) {
		s->eta = 0;
		if (isfinite(s->total_bytes))
			s->done_bytes = s->total_bytes;
	} else
		s->eta = NAN;
	return REBUILD_CHANGE_ENDED;
}

RebuildChange rebuild_state_observe(RebuildState *s, const RebuildSample *o, const RebuildDiskFacts *f, double now)
{
	bool running = s->phase == REBUILD_PHASE_RUNNING;
	if (running && !same_rebuild(s, o)) {
		/* the one followed was replaced by another before its end was seen */
		rebuild_state_gone(s, now);
		running = false;
	}
	if (!running) {
		/* an ended rebuild stays as it ended until another starts */
		if (o->phase != REBUILD_PHASE_RUNNING)
			return REBUILD_CHANGE_NONE;
		start(s, o, f, now);
		progress(s, o, f, now);
		return REBUILD_CHANGE_STARTED;
	}
	if (o->phase == REBUILD_PHASE_RUNNING) {
		progress(s, o, f, now);
		return REBUILD_CHANGE_PROGRESS;
	}
	if (isfinite(o->done_bytes))
		s->done_bytes = o->done_bytes;
	return end(s, o->phase, o->duration, now);
}

RebuildChange rebuild_state_gone(RebuildState *s, double now)
{
	if (s->phase != REBUILD_PHASE_RUNNING)
		return REBUILD_CHANGE_NONE;
	return end(s, REBUILD_PHASE_CANCELED, NAN, now);
}

int rebuild_sample_from_zpool(const ZpoolScan *scan, const ZpoolLeaf *leaf, double utc_offset, RebuildSample *ret)
{
	if (scan->func != ZPOOL_SCAN_RESILVER || scan->state == ZPOOL_SCAN_STATE_NONE)
		return -ENOENT;
	RebuildSample o = {.kind = REBUILD_KIND_RESILVER, .started = scan->start_time, .duration = scan->duration,
			   .total_bytes = NAN, .done_bytes = NAN};
	snprintf(o.pool, sizeof o.pool, "%s", scan->pool);
	o.phase = scan->state == ZPOOL_SCAN_SCANNING ? REBUILD_PHASE_RUNNING
		: scan->state == ZPOOL_SCAN_FINISHED ? REBUILD_PHASE_FINISHED : REBUILD_PHASE_CANCELED;
	if (scan->times_local && isfinite(o.started))
		o.started -= utc_offset;
	if (isfinite(o.started) && o.started <= 0)
		o.started = NAN;	/* JSON's 0: not given */
	double written = leaf && isfinite(leaf->processed) ? leaf->processed : scan->processed;
	double all = isfinite(scan->issued_total) && scan->issued_total > 0 ? scan->issued_total : scan->to_examine;
	o.done_bytes = written;
	if (isfinite(all) && all > 0 && isfinite(written)) {
		/* bytes written per byte issued so far, for what is still to issue */
		double issued = isfinite(scan->issued) ? scan->issued : NAN;
		double per = isfinite(issued) && issued > 0 ? fmin(written / issued, 1.0) : 1.0;
		o.total_bytes = written + fmax(all - (isfinite(issued) ? issued : 0), 0) * per;
	}
	*ret = o;
	return 0;
}

int rebuild_sample_from_btrfs(const BtrfsReplaceStatus *b, const char *mount, double total_bytes, double now,
			      RebuildSample *ret)
{
	if (b->state == BTRFS_REPLACE_NEVER_STARTED || b->state < 0 || b->state >= _BTRFS_REPLACE_STATE_MAX)
		return -ENOENT;
	/* a start in the future is a clock that went back: the first reading stands for it */
	RebuildSample o = {.kind = REBUILD_KIND_BTRFS_REPLACE, .total_bytes = total_bytes, .done_bytes = NAN,
			   .started = b->started <= now + 60 ? b->started : NAN, .duration = btrfs_replace_duration(b)};
	snprintf(o.pool, sizeof o.pool, "%s", mount);
	o.phase = b->state == BTRFS_REPLACE_STARTED ? REBUILD_PHASE_RUNNING
		: b->state == BTRFS_REPLACE_FINISHED ? REBUILD_PHASE_FINISHED : REBUILD_PHASE_CANCELED;
	double share = b->state == BTRFS_REPLACE_FINISHED ? 1.0 : b->progress;
	if (isfinite(share) && isfinite(total_bytes))
		o.done_bytes = share * total_bytes;
	*ret = o;
	return 0;
}

bool rebuild_kind_btrfs(RebuildKind k)
{
	return k == REBUILD_KIND_BTRFS_REPLACE || k == REBUILD_KIND_BTRFS_BALANCE || k == REBUILD_KIND_BTRFS_REMOVE;
}

int rebuild_sample_from_remove(bool running, const char *mount, double total_bytes, double done_bytes, bool gone,
			       const RebuildState *followed, RebuildSample *ret)
{
	bool following = followed && followed->phase == REBUILD_PHASE_RUNNING && followed->kind == REBUILD_KIND_BTRFS_REMOVE;
	if (!running && !following)
		return -ENOENT;
	/* btrfs gives no start time: smrd's first reading stands for it */
	RebuildSample o = {.kind = REBUILD_KIND_BTRFS_REMOVE, .started = NAN, .duration = NAN, .total_bytes = total_bytes,
			   .done_bytes = done_bytes};
	snprintf(o.pool, sizeof o.pool, "%s", mount);
	o.phase = running ? REBUILD_PHASE_RUNNING : gone ? REBUILD_PHASE_FINISHED : REBUILD_PHASE_CANCELED;
	*ret = o;
	return 0;
}

int rebuild_sample_from_balance(const BtrfsBalanceStatus *b, const char *mount, double total_bytes, double done_bytes,
				bool filled, const RebuildState *followed, RebuildSample *ret)
{
	bool following = followed && followed->phase == REBUILD_PHASE_RUNNING && followed->kind == REBUILD_KIND_BTRFS_BALANCE;
	if (b->state < 0 || b->state >= _BTRFS_BALANCE_STATE_MAX || (b->state == BTRFS_BALANCE_NONE && !following))
		return -ENOENT;
	/* btrfs gives no start time: smrd's first reading stands for it */
	RebuildSample o = {.kind = REBUILD_KIND_BTRFS_BALANCE, .started = NAN, .duration = NAN,
			   .total_bytes = total_bytes, .done_bytes = done_bytes};
	snprintf(o.pool, sizeof o.pool, "%s", mount);
	if (b->state == BTRFS_BALANCE_NONE)
		/* gone: paused then resumed to its end, or canceled, between two
		 * readings; a cancel not announced at a reading is not seen */
		o.phase = followed->stopping && !filled ? REBUILD_PHASE_CANCELED : REBUILD_PHASE_FINISHED;
	else {
		o.phase = REBUILD_PHASE_RUNNING;
		o.stopping = b->state == BTRFS_BALANCE_PAUSED || b->cancel_requested || b->pause_requested;
	}
	*ret = o;
	return 0;
}

double rebuild_done_text(const RebuildState *s, const char *device, char buf[static REBUILD_DONE_TEXT_MAX])
{
	char took[FORMAT_MAX], est[FORMAT_MAX], size[FORMAT_MAX];
	const char *kind = rebuild_kind_to_string(s->kind) ?: "rebuild";
	int k = snprintf(buf, REBUILD_DONE_TEXT_MAX, "%s of %s onto %s %s", kind, s->pool, device,
			 s->phase == REBUILD_PHASE_FINISHED ? "finished" : "ended unfinished");
	if (k < 0 || k >= REBUILD_DONE_TEXT_MAX)
		return NAN;
	k += snprintf(buf + k, REBUILD_DONE_TEXT_MAX - k, " in %s", format_duration(took, s->duration));
	if (isfinite(s->total_bytes) && k < REBUILD_DONE_TEXT_MAX)
		k += snprintf(buf + k, REBUILD_DONE_TEXT_MAX - k, " (%s)", format_size(size, s->total_bytes));
	double error = NAN;
	if (s->phase == REBUILD_PHASE_FINISHED && isfinite(s->expected) && s->expected > 0) {
		error = s->duration / s->expected - 1;
		if (k < REBUILD_DONE_TEXT_MAX)
			k += snprintf(buf + k, REBUILD_DONE_TEXT_MAX - k, "; estimated %s at the start (%+.0f%%)",
				      format_duration(est, s->expected), error * 100);
	} else if (s->phase == REBUILD_PHASE_FINISHED && k < REBUILD_DONE_TEXT_MAX)
		k += snprintf(buf + k, REBUILD_DONE_TEXT_MAX - k, "; no estimate at the start");
	/* the ETA given when smrd first saw it, against when it really ended */
	double real = s->started + s->duration - s->first_seen;
	/* real <= 0: it ended before smrd first saw it running (a replayed or stale reading) */
	if (s->phase == REBUILD_PHASE_FINISHED && isfinite(s->first_eta) && s->first_eta > 0 && real > 0 &&
	    k < REBUILD_DONE_TEXT_MAX) {
		snprintf(buf + k, REBUILD_DONE_TEXT_MAX - k, "; first ETA %s, error %+.0f%%",
			 format_duration(est, s->first_eta), (real / s->first_eta - 1) * 100);
	}
	return error;
}
