/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sorted array of pointers: lookups are a binary search per diskstats line,
 * which keeps a 1000-disk sample cheap without a hash table to get wrong.
 */
#include "disk.h"

#include <math.h>

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
		disk_latency_free(r->disks[i]->lat);
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
		int c = strcmp(r->disks[mid]->name, name);
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
	disk_latency_free(r->disks[i]->lat);
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

const char *disk_identity(const Disk *d)
{
	return d->sys.wwn[0] ? d->sys.wwn : d->sys.serial;
}

double disk_stall_threshold(const Disk *d, const DetectParams *p)
{
	return isfinite(d->stall_threshold) ? d->stall_threshold : detect_stall_threshold(p, d->name);
}
