/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "disk.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void disk_rates(const Disk *d, DiskRates *ret)
{
	const uint64_t *dl = d->ds.delta;
	double t = d->interval;
	DiskRates x = {.read_latency = NAN, .write_latency = NAN};
	if (t > 0) {
		x.reads = (double)dl[DS_READS] / t;
		x.writes = (double)dl[DS_WRITES] / t;
		x.read_bytes = (double)dl[DS_READ_SECTORS] * 512.0 / t;
		x.write_bytes = (double)dl[DS_WRITE_SECTORS] * 512.0 / t;
		x.utilisation = fmin(1.0, (double)dl[DS_IO_MS] / 1000.0 / t);
		x.queue_depth = (double)dl[DS_WEIGHTED_MS] / 1000.0 / t;
	}
	if (dl[DS_READS])
		x.read_latency = (double)dl[DS_READ_MS] / 1000.0 / (double)dl[DS_READS];
	if (dl[DS_WRITES])
		x.write_latency = (double)dl[DS_WRITE_MS] / 1000.0 / (double)dl[DS_WRITES];
	*ret = x;
}

void disk_release(Disk *d)
{
	detect_done(&d->det);
	disk_latency_free(d->lat);
	d->lat = NULL;
	free(d->members);
	d->members = NULL;
	d->n_members = 0;
	diskview_pool(d);
	free(d->view.curve);
	d->view.curve = NULL;
	free(d->view.lat);
	d->view.lat = NULL;
	free(d->rebuild);
	d->rebuild = NULL;
	free(d->farm);
	d->farm = NULL;
	classify_match_release(&d->model);
}

const RebuildState *disk_rebuild(const Disk *d)
{
	static const RebuildState none;	/* a disk's record starts zeroed: the same as none seen */
	return d->rebuild ? d->rebuild : &none;
}

RebuildState *disk_rebuild_mut(Disk *d)
{
	if (!d->rebuild)
		d->rebuild = calloc(1, sizeof *d->rebuild);
	return d->rebuild;
}

int disk_set_members(Disk *d, const Memberships *ms)
{
	Membership *m = NULL;
	/* exactly as many as there are: most disks are members of one thing or none */
	if (ms->n) {
		m = malloc(ms->n * sizeof *m);
		if (!m)
			return -ENOMEM;
		memcpy(m, ms->m, ms->n * sizeof *m);
	}
	free(d->members);
	d->members = m;
	d->n_members = ms->n;
	diskview_pool(d);
	return 0;
}

const char *disk_identity(const Disk *d)
{
	return d->sys.wwn[0] ? d->sys.wwn : d->sys.serial;
}

double disk_stall_threshold(const Disk *d, const DetectParams *p)
{
	return isfinite(d->tuning.stall_threshold) ? d->tuning.stall_threshold : detect_stall_threshold(p, d->name);
}

static bool static_smr(const Disk *d)
{
	DiskClass c = d->verdict.class;
	return c == DISK_CLASS_DM_SMR || c == DISK_CLASS_HOST_AWARE || c == DISK_CLASS_HOST_MANAGED;
}

bool disk_may_reclassify(const Disk *d)
{
	return !static_smr(d) && d->sys.facts.admin_class < 0 && !d->sys.facts.stacked[0];
}

bool disk_by_behaviour(const Disk *d) { return d->view.behaviour && disk_may_reclassify(d); }

DiskClass disk_class(const Disk *d) { return disk_by_behaviour(d) ? DISK_CLASS_DM_SMR : d->verdict.class; }

double disk_smr_confidence(const Disk *d) { return diskview_smr_confidence(&d->view, d->verdict.smr_confidence); }

/* What behaviour adds to the static class: the combined confidence, and a
 * disk with storms and no static SMR evidence becomes dm-smr. Returns
 * whether it did. */
static bool apply_behaviour(const Disk *d, DiskClass *class, double *confidence, double *smr_confidence, char *basis,
			    size_t n)
{
	*smr_confidence = disk_smr_confidence(d);
	if (!disk_by_behaviour(d))
		return false;
	*class = DISK_CLASS_DM_SMR;
	*confidence = d->view.behaviour_confidence;
	snprintf(basis, n, "behaviour: destage storms with no static SMR evidence (GC score %.2f)", d->view.score.score);
	return true;
}

void disk_summary(const Disk *d, VerdictSummary *ret)
{
	*ret = d->verdict;
	apply_behaviour(d, &ret->class, &ret->confidence, &ret->smr_confidence, ret->basis, sizeof ret->basis);
}

static void detector_evidence(const Disk *d, Evidence *e, bool decisive, const char *implies)
{
	*e = (Evidence){.rank = EVIDENCE_BEHAVIOUR, .class = DISK_CLASS_DM_SMR, .decisive = decisive};
	snprintf(e->source, sizeof e->source, "smrd detector");
	snprintf(e->value, sizeof e->value, "%" PRIu64 " destage storm(s) on record, GC score %.2f",
		 d->view.storms_known, d->view.score.score);
	snprintf(e->implies, sizeof e->implies, "%s", implies);
}

void disk_verdict(const Disk *d, Verdict *ret)
{
	classify_verdict(&d->sys.facts, &d->model, d->farm, ret);
	if (!apply_behaviour(d, &ret->class, &ret->confidence, &ret->smr_confidence, ret->basis, sizeof ret->basis)) {
		/* a declared or stacked disk keeps its class; what it did is still evidence to read */
		if (d->view.storms_known && !static_smr(d) && ret->n_evidence < VERDICT_MAX_EVIDENCE)
			detector_evidence(d, &ret->evidence[ret->n_evidence++], false,
					  d->sys.facts.stacked[0]
						  ? "behaves like DM-SMR; a stacked device: judge its member disks"
						  : "behaves like DM-SMR; the class declared in smrd.conf is kept");
		return;
	}
	for (unsigned i = 0; i < ret->n_evidence; i++)
		ret->evidence[i].decisive = false;
	unsigned i = ret->n_evidence < VERDICT_MAX_EVIDENCE ? ret->n_evidence++ : VERDICT_MAX_EVIDENCE - 1;
	detector_evidence(d, &ret->evidence[i], true,
			  "drive-managed SMR by behaviour (the media cache fills, then writes stall)");
}

unsigned disk_sources(const Disk *d, EvidenceSource *ret, unsigned max)
{
	unsigned n = d->verdict.n_sources < max ? d->verdict.n_sources : max;
	memcpy(ret, d->verdict.sources, n * sizeof *ret);
	bool by_behaviour = disk_by_behaviour(d);
	if (!by_behaviour && !(d->view.storms_known && !static_smr(d)))
		return n;
	for (unsigned i = 0; by_behaviour && i < n; i++)
		ret[i].decisive = false;
	Evidence e = {.rank = EVIDENCE_BEHAVIOUR, .class = DISK_CLASS_DM_SMR, .decisive = by_behaviour};
	evidence_sources_add(ret, &n, max, &e);
	return n;
}
