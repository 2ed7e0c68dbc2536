/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-verdict.h"

#include <math.h>
#include <stdio.h>

#include "output.h"
#include "qualify-engine.h"

unsigned verdict_bands(const Hist *h, Band out[BANDS_MAX])
{
	BandRules rules = {.min_share = 0.02, .min_count = 5, .valley = 0.5};
	return h && h->count ? bands_find(h, &rules, out) : 0;
}

bool verdict_cliff_is_smr(const CliffResult *c)
{
	return c->found && c->slow_lat >= 10 * c->fast_lat && c->fast_iops >= 10 * c->slow_iops;
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

static void limit(QualifyVerdict *v, const char *text)
{
	if (v->n_limits < VERDICT_MAX_LIMITS)
		v->limits[v->n_limits++] = text;
}

void qualify_verdict(const QualifyFacts *f, QualifyVerdict *ret)
{
	QualifyVerdict v = {0};
	const CliffResult *c = &f->cliff;
	char b1[32], b2[32], b3[32];
	if (f->wrote && verdict_cliff_is_smr(c)) {
		v.smr_like = true;
		snprintf(v.text, sizeof v.text,
			 "behaves like DM-SMR: fast phase of %.1f s at %.0f IOPS (%s at %s), then %.1f IOPS at %s",
			 c->cliff_t, c->fast_iops, fmt_bytes(b1, sizeof b1, (double)(c->fast_ios * f->block_size)),
			 output_seconds(c->fast_lat, b2, sizeof b2), c->slow_iops, output_seconds(c->slow_lat, b3, sizeof b3));
	} else if (f->wrote) {
		snprintf(v.text, sizeof v.text, "no cliff after %s written at %.0f IOPS (%s): consistent with CMR%s",
			 fmt_bytes(b1, sizeof b1, (double)f->written), c->fast_iops, output_seconds(c->fast_lat, b2, sizeof b2),
			 f->static_class == DISK_CLASS_SSD ? " or an SSD, as the static classification says" : "");
		limit(&v, "a larger write budget could still reveal a larger media cache");
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
