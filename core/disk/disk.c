/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "disk.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

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

int disk_sys_set(DiskSys *ds, const SysfsDisk *s)
{
	const char *str[] = {s->serial, s->wwn, s->model, s->firmware, s->facts.zoned};
	const size_t cap[] = {sizeof s->serial, sizeof s->wwn, sizeof s->model, sizeof s->firmware,
			      sizeof s->facts.zoned};
	size_t len[5], total = 0;
	for (int i = 0; i < 5; i++)
		total += len[i] = strnlen(str[i], cap[i] - 1) + 1;
	uint8_t packed[PACK_BOUND(sizeof s->facts)];
	size_t plen;
	int r = pack_bytes(&s->facts, sizeof s->facts, packed, &plen);
	if (r < 0)
		return r;
	uint8_t *blob = malloc(total + plen);
	if (!blob)
		return -ENOMEM;
	DiskSys n = {.major = s->major, .minor = s->minor, .size_sectors = s->size_sectors,
		     .io_timeout_ms = s->io_timeout_ms, .nr_zones = s->facts.nr_zones,
		     .zone_sectors = s->facts.zone_sectors, .admin_class = s->facts.admin_class,
		     .size_status = s->facts.size_status, .transport = s->facts.transport,
		     .stacked = s->facts.stacked[0] != 0, .blob = blob,
		     .facts_at = (uint32_t)total, .facts_len = (uint32_t)plen};
	const char **dst[] = {&n.serial, &n.wwn, &n.model, &n.firmware, &n.zoned};
	size_t o = 0;
	for (int i = 0; i < 5; i++) {
		memcpy(blob + o, str[i], len[i] - 1);
		blob[o + len[i] - 1] = 0;
		*dst[i] = (const char *)blob + o;
		o += len[i];
	}
	memcpy(blob + total, packed, plen);
	free(ds->blob);
	*ds = n;
	return 0;
}

void disk_sys_facts(const DiskSys *ds, DiskFacts *ret)
{
	/* only ever our own packing of this very struct */
	if (!ds->blob || unpack_bytes(ds->blob + ds->facts_at, ds->facts_len, ret, sizeof *ret) < 0)
		disk_facts_init(ret, "");
}

static void copy_str(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s ? s : ""); }

void disk_sys_get(const DiskSys *ds, SysfsDisk *ret)
{
	*ret = (SysfsDisk){.major = ds->major, .minor = ds->minor, .size_sectors = ds->size_sectors,
			   .io_timeout_ms = ds->io_timeout_ms};
	copy_str(ret->serial, sizeof ret->serial, ds->serial);
	copy_str(ret->wwn, sizeof ret->wwn, ds->wwn);
	copy_str(ret->model, sizeof ret->model, ds->model);
	copy_str(ret->firmware, sizeof ret->firmware, ds->firmware);
	disk_sys_facts(ds, &ret->facts);
}

void disk_sys_free(DiskSys *ds)
{
	free(ds->blob);
	*ds = (DiskSys){0};
}

void disk_release(Disk *d)
{
	disk_sys_free(&d->sys);
	detect_done(&d->det);
	disk_latency_free(d->lat);
	d->lat = NULL;
	free(d->members);
	d->members = NULL;
	d->n_members = 0;
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
	return 0;
}

const char *disk_identity(const Disk *d)
{
	return d->sys.wwn && d->sys.wwn[0] ? d->sys.wwn : d->sys.serial ? d->sys.serial : "";
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
	return !static_smr(d) && d->sys.admin_class < 0 && !d->sys.stacked;
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
	*e = (Evidence){.decisive = decisive};
	snprintf(e->source, sizeof e->source, "smrd detector");
	snprintf(e->value, sizeof e->value, "%" PRIu64 " destage storm(s) on record, GC score %.2f",
		 d->view.storms_known, d->view.score.score);
	snprintf(e->implies, sizeof e->implies, "%s", implies);
}

void disk_verdict(const Disk *d, const ModelList *models, Verdict *ret)
{
	DiskFacts f;
	disk_sys_facts(&d->sys, &f);
	classify_disk(&f, models, ret);
	if (!apply_behaviour(d, &ret->class, &ret->confidence, &ret->smr_confidence, ret->basis, sizeof ret->basis)) {
		/* a declared or stacked disk keeps its class; what it did is still evidence to read */
		if (d->view.storms_known && !static_smr(d) && ret->n_evidence < VERDICT_MAX_EVIDENCE)
			detector_evidence(d, &ret->evidence[ret->n_evidence++], false,
					  d->sys.stacked ? "behaves like DM-SMR; a stacked device: judge its member disks"
							 : "behaves like DM-SMR; the class declared in smrd.conf is kept");
		return;
	}
	for (unsigned i = 0; i < ret->n_evidence; i++)
		ret->evidence[i].decisive = false;
	unsigned i = ret->n_evidence < VERDICT_MAX_EVIDENCE ? ret->n_evidence++ : VERDICT_MAX_EVIDENCE - 1;
	detector_evidence(d, &ret->evidence[i], true,
			  "drive-managed SMR by behaviour (the media cache fills, then writes stall)");
}
