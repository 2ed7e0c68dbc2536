/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sorted array of pointers: lookups are a binary search per diskstats line,
 * which keeps a 1000-disk sample cheap without a hash table to get wrong.
 */
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct DiskRegistry {
	Disk **disks;
	size_t n, cap;
	uint64_t generation;	/* bumped by every add and remove */
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

uint64_t registry_generation(const DiskRegistry *r) { return r->generation; }

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

int32_t registry_index(const DiskRegistry *r, const Disk *d)
{
	bool found;
	size_t i = find(r, d->name, &found);
	return found && r->disks[i] == d ? (int32_t)i : -1;
}

Disk *registry_get(const DiskRegistry *r, const char *name)
{
	bool found;
	size_t i = find(r, name, &found);
	return found ? r->disks[i] : NULL;
}

Disk *registry_by_devnum(const DiskRegistry *r, unsigned major, unsigned minor)
{
	/* asked per event or tool reading, not per sample: a scan is cheap enough */
	for (size_t i = 0; r && i < r->n; i++)
		if (r->disks[i]->sys.major == major && r->disks[i]->sys.minor == minor)
			return r->disks[i];
	return NULL;
}

bool registry_identity_shared(const DiskRegistry *r, const Disk *d)
{
	const char *id = disk_identity(d);
	for (size_t i = 0; id[0] && i < r->n; i++)
		if (r->disks[i] != d && !streq(r->disks[i]->name, d->name) && streq(disk_identity(r->disks[i]), id))
			return true;
	return false;
}

const char *registry_named_key(const Disk *d, char buf[DISK_KEY_MAX])
{
	snprintf(buf, DISK_KEY_MAX, "%.60s@%.31s", disk_identity(d), d->name);
	return buf;
}

const char *registry_disk_key(const DiskRegistry *r, const Disk *d, char buf[DISK_KEY_MAX])
{
	if (r && registry_identity_shared(r, d))
		return registry_named_key(d, buf);
	snprintf(buf, DISK_KEY_MAX, "%s", disk_identity(d));
	return buf;
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
	if (!copy->view.sample) {
		diskview_init(&copy->view);
		diskview_pool(copy);
	}
	memmove(r->disks + i + 1, r->disks + i, (r->n - i) * sizeof *r->disks);
	r->disks[i] = copy;
	r->n++;
	r->generation++;
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
	r->generation++;
	return true;
}


void registry_count(const DiskRegistry *r, unsigned *ret_suspects, unsigned *ret_storms)
{
	unsigned suspects = 0, storms = 0;
	for (size_t i = 0; r && i < registry_size(r); i++) {
		const Disk *d = registry_at(r, i);
		suspects += d->view.suspect;
		storms += d->view.storm;
	}
	*ret_suspects = suspects;
	*ret_storms = storms;
}
