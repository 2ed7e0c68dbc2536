/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild's ETA from the disk's own model: a DM-SMR disk takes what is
 * free of its media cache at the fast rate and everything after at its
 * sustained slow rate, so an estimate made before the cliff must already
 * hold the slow part (zpool's own extrapolates the fast rate and collapses
 * at the cliff). Each regime's rate is refined by the one the rebuild shows
 * in that regime. docs/zfs.md, "The ETA", gives the rule and its limits.
 */
#include "eta.h"

#include <math.h>

/* How much a model's rate is doubted, as a relative error: the fast rate
 * the caller gives is the disk's, but a rebuild's stream is often limited
 * by what the source disks read; the slow rate was learnt from storms of
 * random writes, and a rebuild's writes are partly sequential. */
#define FAST_DOUBT 0.5
#define SLOW_DOUBT 0.3
/* A rebuild's writes come in bursts (a ZFS txg every 5 s by default): an
 * observed rate is one sample per this many seconds, or per band rewrite
 * in the slow regime when the model knows how long one takes. */
#define SAMPLE_SECONDS 5.0

static bool rate_ok(double r) { return isfinite(r) && r > 0; }

double rebuild_expected_seconds(const DiskModel *m, double bytes, double fast_bps)
{
	if (!isfinite(bytes) || bytes < 0 || !rate_ok(fast_bps))
		return NAN;
	if (!m)
		return bytes / fast_bps;
	return disk_model_write_seconds(m, bytes, fast_bps);
}

/*
 * The weight of an observed rate against the model's: both are estimates
 * with a relative error, the model's `doubt`, the observation's about
 * 1/sqrt(n) over n samples (bursts, band rewrites). Weighing each by the
 * inverse of its variance gives n / (n + 1/doubt^2): half-way after 4
 * samples for the fast rate, 11 for the slow, and the observation all but
 * alone once the regime has been watched for a long while. A model that
 * the observation contradicts by more than the observation's own noise is
 * doubted by that much at least: a model off by half is not trusted for
 * long.
 */
static double trust(double seconds, double sample, double doubt, double model, double observed)
{
	if (!(seconds > 0))
		return 0;
	double n = seconds / sample;
	if (model > 0 && observed > 0)
		doubt = fmax(doubt, fabs(log(observed / model)) - 1 / sqrt(n));
	return n / (n + 1 / (doubt * doubt));
}

/* Blended in seconds per byte, which is what the ETA adds up: a slow
 * observation weighs on the time as it will on the real one. Either side
 * may be unknown (NaN); both unknown gives NaN. */
static double blend_rate(double model, double observed, double w)
{
	if (!rate_ok(observed))
		return rate_ok(model) ? model : NAN;
	if (!rate_ok(model))
		return observed;
	return 1 / ((1 - w) / model + w / observed);
}

static bool progress_ok(const RebuildProgress *p)
{
	if (!p || !isfinite(p->total_bytes) || !(p->total_bytes > 0) || !isfinite(p->done_bytes) ||
	    p->done_bytes < 0 || !isfinite(p->elapsed) || p->elapsed < 0)
		return false;
	if (!p->cliff_seen)
		return true;
	return isfinite(p->cliff_bytes) && isfinite(p->cliff_elapsed) && p->cliff_bytes >= 0 &&
	       p->cliff_bytes <= p->done_bytes && p->cliff_elapsed >= 0 && p->cliff_elapsed <= p->elapsed;
}

/* Bytes over seconds, NaN when either is nothing. */
static double observed_rate(double bytes, double seconds)
{
	return bytes > 0 && seconds > 0 ? bytes / seconds : NAN;
}

/* A disk with no cliff: one regime, the whole run observed. */
static double eta_one_regime(double fast_bps, const RebuildProgress *p, double left)
{
	double obs = observed_rate(p->done_bytes, p->elapsed);
	double r = blend_rate(fast_bps, obs, trust(p->elapsed, SAMPLE_SECONDS, FAST_DOUBT, fast_bps, obs));
	return rate_ok(r) ? left / r : NAN;
}

double rebuild_eta(const DiskModel *m, double cache_free_bytes, double fast_bps, const RebuildProgress *p)
{
	if (!progress_ok(p))
		return NAN;
	double left = p->total_bytes - p->done_bytes;
	if (left <= 0)
		return 0;	/* a resilver can issue past its estimate: done is done */
	if (!rate_ok(fast_bps))
		fast_bps = NAN;
	if (!m)
		return eta_one_regime(fast_bps, p, left);

	bool known = disk_model_known(m);
	if (!known && !p->cliff_seen)
		return NAN;	/* the cliff may come at any byte: no bound */

	/* the regimes as observed: before the cliff (all of it while none was
	 * seen), and after it */
	double fast_bytes = p->cliff_seen ? p->cliff_bytes : p->done_bytes;
	double fast_secs = p->cliff_seen ? p->cliff_elapsed : p->elapsed;
	double slow_secs = p->cliff_seen ? p->elapsed - p->cliff_elapsed : 0;
	double obs_fast = observed_rate(fast_bytes, fast_secs);
	double r_fast = blend_rate(fast_bps, obs_fast, trust(fast_secs, SAMPLE_SECONDS, FAST_DOUBT, fast_bps, obs_fast));
	/* a disk writes no faster than the rebuild sends: a slow source makes
	 * the slow regime no faster than the fast one */
	double model_slow = known && rate_ok(m->slow_write_bps) ? m->slow_write_bps : NAN;
	if (rate_ok(r_fast) && rate_ok(model_slow))
		model_slow = fmin(model_slow, r_fast);
	double sample = isfinite(m->rewrite_seconds) && m->rewrite_seconds > 0 ? fmax(m->rewrite_seconds, 0.1)
									     : SAMPLE_SECONDS;
	double obs_slow = observed_rate(p->done_bytes - fast_bytes, slow_secs);
	double r_slow = blend_rate(model_slow, obs_slow, trust(slow_secs, sample, SLOW_DOUBT, model_slow, obs_slow));

	double fast_left = 0;
	if (!p->cliff_seen) {
		double free_now = isfinite(cache_free_bytes) ? fmax(cache_free_bytes, 0)
							     : fmax(m->media_cache_bytes - p->done_bytes, 0);
		fast_left = fmin(left, free_now);
	}
	double slow_left = left - fast_left, t = 0;
	if (fast_left > 0) {
		if (!rate_ok(r_fast))
			return NAN;
		t += fast_left / r_fast;
	}
	if (slow_left > 0) {
		if (!rate_ok(r_slow))
			return NAN;
		t += slow_left / r_slow;
	}
	return t;
}
