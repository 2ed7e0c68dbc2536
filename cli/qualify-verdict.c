/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-verdict.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "output.h"

unsigned verdict_bands(const Hist *h, Band out[BANDS_MAX])
{
	BandRules rules = {.min_share = 0.02, .min_count = 5, .valley = 0.5};
	return h && h->count ? bands_find(h, &rules, out) : 0;
}

bool verdict_cliff_is_smr(const CliffResult *c)
{
	return c->fell && c->found && c->stalls > 0;
}

bool verdict_sequential_fast(const QualifyFacts *f)
{
	double slow_rate = f->cliff.slow_iops * (double)f->block_size;
	return f->seq_ran && f->seq_rate >= SEQ_FAST_RATIO * slow_rate;
}

bool verdict_reads_banded(const Hist *reads, Band *ret_slowest)
{
	Band b[BANDS_MAX];
	unsigned n = verdict_bands(reads, b);
	if (n < 2 || b[n - 1].centre < 0.1)
		return false;
	if (ret_slowest)
		*ret_slowest = b[n - 1];
	return true;
}

bool verdict_faster_than_platter(const CliffResult *c)
{
	return c->fast_iops > PLATTER_MAX_IOPS;
}

bool verdict_reads_solid_state(const Hist *reads)
{
	return reads && reads->count >= READ_SOLID_MIN && hist_quantile(reads, 0.5) < READ_SOLID_LAT;
}

static void limit(QualifyVerdict *v, const char *text)
{
	if (v->n_limits < VERDICT_MAX_LIMITS)
		v->limits[v->n_limits++] = text;
}

void qualify_verdict(const QualifyFacts *f, QualifyVerdict *ret)
{
	QualifyVerdict v = {0};
	const CliffResult *c = &f->cliff;
	char b1[FORMAT_MAX], b2[32], b3[32], b4[FORMAT_MAX], b5[FORMAT_MAX];
	if (f->wrote && verdict_cliff_is_smr(c)) {
		v.smr_like = true;
		snprintf(v.text, sizeof v.text,
			 "behaves like DM-SMR: fast phase of %.1f s at %.0f IOPS (%s at %s), then %.1f IOPS with %" PRIu64
			 " write(s) waiting up to %s%s%s",
			 c->cliff_t, c->fast_iops, format_size(b1, (double)(c->fast_ios * f->block_size)),
			 output_seconds(c->fast_lat, b2, sizeof b2), c->slow_iops, c->stalls,
			 output_seconds(c->slowest, b3, sizeof b3),
			 verdict_sequential_fast(f) ? "; sequential writes stay fast at " : "",
			 verdict_sequential_fast(f) ? format_rate(b4, f->seq_rate) : "");
		if (f->seq_ran && !verdict_sequential_fast(f))
			limit(&v, "sequential writes were slow after the cliff too (a drive busy cleaning, or a small band cache)");
	} else if (f->wrote && c->fell && f->seq_ran && !verdict_sequential_fast(f)) {
		snprintf(v.text, sizeof v.text,
			 "SSD write cache exhausted: %s at %.0f IOPS, then %.0f IOPS with the disk completing writes "
			 "throughout (no pause of %s with a write waiting over %s), and sequential writes as slow (%s): "
			 "an SSD's SLC cache ran out or a virtual disk's host cache filled, not a shingled disk's media cache",
			 format_size(b1, (double)(c->fast_ios * f->block_size)), c->fast_iops, c->slow_iops,
			 output_seconds(c->pause_floor, b3, sizeof b3), output_seconds(c->stall_floor, b2, sizeof b2),
			 format_rate(b5, f->seq_rate));
	} else if (f->wrote && c->fell) {
		snprintf(v.text, sizeof v.text,
			 "write rate fell after %s (%.0f to %.0f IOPS) but the disk kept completing writes (no pause of %s "
			 "with a write waiting over %s): not the shape of a media cache filling%s",
			 format_size(b1, (double)(c->fast_ios * f->block_size)), c->fast_iops, c->slow_iops,
			 output_seconds(c->pause_floor, b3, sizeof b3), output_seconds(c->stall_floor, b2, sizeof b2),
			 f->seq_ran ? "; sequential writes stayed fast" : "");
		limit(&v, "an SSD's write cache running out looks like this; a sequential phase (--seq-seconds) tells it apart");
	} else if (f->wrote && verdict_reads_solid_state(f->reads)) {
		snprintf(v.text, sizeof v.text,
			 "no cliff after %s written at %.0f IOPS (%s), and random reads in %s (median): faster than any "
			 "platter seeks, so solid-state storage; not a shingled disk's slow phase",
			 format_size(b1, (double)f->written), c->fast_iops, output_seconds(c->fast_lat, b2, sizeof b2),
			 output_seconds(hist_quantile(f->reads, 0.5), b3, sizeof b3));
		limit(&v, "a media cache larger than what was written looks like this too: a larger --write-budget tells");
	} else if (f->wrote && verdict_faster_than_platter(c)) {
		snprintf(v.text, sizeof v.text,
			 "no cliff after %s written at %.0f IOPS (%s): more random writes a second than any platter takes, "
			 "so %s took them; not a shingled disk's slow phase",
			 format_size(b1, (double)f->written), c->fast_iops, output_seconds(c->fast_lat, b2, sizeof b2),
			 f->static_class == DISK_CLASS_SSD || c->fast_lat < SOLID_STATE_LAT ? "solid-state storage"
											  : "solid-state storage or a cache");
		limit(&v, "a media cache larger than what was written looks like this too: a larger --write-budget tells");
	} else if (f->wrote) {
		snprintf(v.text, sizeof v.text, "no cliff after %s written at %.0f IOPS (%s): consistent with CMR%s",
			 format_size(b1, (double)f->written), c->fast_iops, output_seconds(c->fast_lat, b2, sizeof b2),
			 f->static_class == DISK_CLASS_SSD ? " or an SSD, as the static classification says" : "");
		limit(&v, "a larger write budget could still reveal a larger media cache");
	} else if (verdict_reads_solid_state(f->reads)) {
		/* reads this fast never reached a platter: they say nothing of one */
		snprintf(v.text, sizeof v.text,
			 "read-only: random reads in %s (median), faster than any platter seeks: served from a cache or "
			 "from flash, not from rotating media; a write test (--destructive) is what reveals a media cache",
			 output_seconds(hist_quantile(f->reads, 0.5), b3, sizeof b3));
	} else {
		snprintf(v.text, sizeof v.text, "read-only: %s; a write test (--destructive) is what reveals a media cache",
			 verdict_reads_banded(f->reads, NULL)
				 ? "reads split into bands with one beyond 100 ms, as DM-SMR disks show while cleaning"
				 : "reads look like a single seek-and-rotation population");
	}
	if (f->static_class == DISK_CLASS_DM_SMR || f->static_class == DISK_CLASS_HOST_AWARE ||
	    f->static_class == DISK_CLASS_HOST_MANAGED)
		limit(&v, "the disk already declares SMR (static evidence)");
	limit(&v, "one run on one region of one disk: firmware, temperature and fill level change what a drive does");
	if (f->interrupted)
		limit(&v, "interrupted: the test did not finish");
	*ret = v;
}
