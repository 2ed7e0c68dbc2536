/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sorted array of pointers: lookups are a binary search per diskstats line,
 * which keeps a 1000-disk sample cheap without a hash table to get wrong.
 */
#include "disk.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

struct DiskRegistry {
	Disk **disks;
	size_t n, cap;
};

DiskRegistry *registry_new(void) { return calloc(1, sizeof(DiskRegistry)); }

DiskRegistry *registry_free(DiskRegistry *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		disk_release(r->disks[i]);
		free(r->disks[i]);
	}
	free(r->disks);
	free(r);
	return NULL;
}

size_t registry_size(const DiskRegistry *r) { return r ? r->n : 0; }
Disk *registry_at(const DiskRegistry *r, size_t i) { return i < r->n ? r->disks[i] : NULL; }

/* Index of name, or of where it would go (with *found false). */
static size_t find(const DiskRegistry *r, const char *name, bool *found)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = devname_cmp(r->disks[mid]->name, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

Disk *registry_get(const DiskRegistry *r, const char *name)
{
	bool found;
	size_t i = find(r, name, &found);
	return found ? r->disks[i] : NULL;
}

int registry_add(DiskRegistry *r, const Disk *d, Disk **ret)
{
	bool found;
	size_t i = find(r, d->name, &found);
	if (found)
		return -EEXIST;
	if (r->n >= REGISTRY_MAX_DISKS)
		return -E2BIG;
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 16;
		Disk **n = realloc(r->disks, ncap * sizeof *n);
		if (!n)
			return -ENOMEM;
		r->disks = n;
		r->cap = ncap;
	}
	Disk *copy = malloc(sizeof *copy);
	if (!copy)
		return -ENOMEM;
	*copy = *d;
	/* nothing shown before the monitor's first sample: not a zero forecast */
	if (!copy->view.sample)
		diskview_init(&copy->view);
	memmove(r->disks + i + 1, r->disks + i, (r->n - i) * sizeof *r->disks);
	r->disks[i] = copy;
	r->n++;
	if (ret)
		*ret = copy;
	return 0;
}

bool registry_remove(DiskRegistry *r, const char *name)
{
	bool found;
	size_t i = find(r, name, &found);
	if (!found)
		return false;
	disk_release(r->disks[i]);
	free(r->disks[i]);
	memmove(r->disks + i, r->disks + i + 1, (r->n - i - 1) * sizeof *r->disks);
	r->n--;
	return true;
}

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
