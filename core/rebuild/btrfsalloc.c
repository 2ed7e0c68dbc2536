/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrfs's chunk allocator over a move (btrfsalloc.h): the profiles'
 * geometry as the kernel's btrfs_raid_array has it, each new chunk's
 * devices and size as gather_device_info() and decide_stripe_size_regular()
 * pick them (fs/btrfs/volumes.c), the chunks moved freed as the move goes.
 */
#include "btrfsalloc.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

#define MIB 1048576.0
#define GIB 1073741824.0
#define STRIPE_LEN 65536.0		/* BTRFS_STRIPE_LEN */

typedef struct Geometry {
	uint64_t profile;
	const char *name;
	unsigned devs_max;		/* 0: every device with room */
	unsigned devs_min, devs_increment, ncopies, nparity, dev_stripes;
} Geometry;

static const Geometry geometries[] = {
	{BTRFS_PROFILE_RAID10, "raid10", 0, 2, 2, 2, 0, 1},
	{BTRFS_PROFILE_RAID1, "raid1", 2, 2, 2, 2, 0, 1},
	{BTRFS_PROFILE_RAID1C3, "raid1c3", 3, 3, 3, 3, 0, 1},
	{BTRFS_PROFILE_RAID1C4, "raid1c4", 4, 4, 4, 4, 0, 1},
	{BTRFS_PROFILE_DUP, "dup", 1, 1, 1, 2, 0, 2},
	{BTRFS_PROFILE_RAID0, "raid0", 0, 1, 1, 1, 0, 1},
	{BTRFS_PROFILE_SINGLE, "single", 1, 1, 1, 1, 0, 1},
	{BTRFS_PROFILE_RAID5, "raid5", 0, 2, 1, 1, 1, 1},
	{BTRFS_PROFILE_RAID6, "raid6", 0, 3, 1, 1, 2, 1},
};

uint64_t btrfs_profile_from_name(const char *name)
{
	for (size_t i = 0; name && i < ELEMENTSOF(geometries); i++)
		if (streq(geometries[i].name, name))
			return geometries[i].profile;
	return 0;
}

static const Geometry *geometry(uint64_t profile)
{
	for (size_t i = 0; i < ELEMENTSOF(geometries); i++)
		if (geometries[i].profile == profile)
			return &geometries[i];
	return NULL;
}

static bool figures_known(const BtrfsTypeFigures *f)
{
	return geometry(f->profile) && f->used >= 0 && f->total >= f->used && f->disk_total >= 0 && isfinite(f->total) &&
	       isfinite(f->disk_total);
}

/* A new chunk's limits: the type's chunk_size (the kernel's default where
 * sysfs has none: calc_chunk_size()), a tenth of the writable space. */
static void chunk_limits(BtrfsChunkType t, double chunk_size, double rw_bytes, double *ret_chunk, double *ret_stripe)
{
	double cs = chunk_size;
	if (!(cs > 0) || !isfinite(cs))
		cs = t == BTRFS_CHUNK_DATA ? 10 * GIB : t == BTRFS_CHUNK_SYSTEM ? 32 * MIB
		   : rw_bytes > 50 * GIB ? GIB : 256 * MIB;
	*ret_stripe = fmin(cs, GIB);
	*ret_chunk = fmin(cs, rw_bytes / 10);
}

typedef struct Candidate {
	unsigned dev;
	double max_avail, total_avail;
} Candidate;

/* the most room first, then the most free space, then the device order */
static int candidate_cmp(const void *a, const void *b)
{
	const Candidate *x = a, *y = b;
	if (x->max_avail != y->max_avail)
		return x->max_avail > y->max_avail ? -1 : 1;
	if (x->total_avail != y->total_avail)
		return x->total_avail > y->total_avail ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

typedef struct Replay {
	const BtrfsMove *m;
	double *alloc;			/* each device's chunks as the move goes */
	double *written;
	Candidate *cand;
	unsigned chunks;		/* made so far */
} Replay;

/* One new chunk of geometry g holding up to `content` bytes: its logical
 * size; 0 when no devices have room for it. */
static double new_chunk(Replay *p, const Geometry *g, double max_chunk, double max_stripe, double content)
{
	const BtrfsMove *m = p->m;
	double want = max_stripe * g->dev_stripes, least = STRIPE_LEN * g->dev_stripes;
	unsigned n = 0;
	for (unsigned i = 0; i < m->n_devs; i++) {
		double free = m->size[i] - p->alloc[i];
		if (free >= least && (int)i != m->removed)
			p->cand[n++] = (Candidate){.dev = i, .max_avail = fmin(free, want), .total_avail = free};
	}
	qsort(p->cand, n, sizeof *p->cand, candidate_cmp);
	n -= n % g->devs_increment;
	if (g->devs_max && n > g->devs_max)
		n = g->devs_max;
	if (n < g->devs_min || n == 0)
		return 0;
	double stripe = p->cand[n - 1].max_avail / g->dev_stripes;
	unsigned data_stripes = (n * g->dev_stripes - g->nparity) / g->ncopies;
	if (data_stripes == 0)
		return 0;
	if (stripe * data_stripes > max_chunk)
		stripe = fmin(ceil(max_chunk / data_stripes / (16 * MIB)) * 16 * MIB, stripe);
	stripe = floor(fmin(stripe, GIB) / STRIPE_LEN) * STRIPE_LEN;
	double chunk = stripe * data_stripes, held = fmin(chunk, content);
	for (unsigned k = 0; k < n; k++) {
		p->alloc[p->cand[k].dev] += stripe * g->dev_stripes;
		p->written[p->cand[k].dev] += held * g->dev_stripes / data_stripes;
	}
	return chunk;
}

/* What a remove moves of type t: the chunks with a stripe on the removed
 * device, each of them on as many devices as its profile spans (striped
 * ones: every device holding the type); rel[i] what that frees on device
 * i. Their content, at the type's fill, less what the chunks it leaves in
 * place take first into their free room (as full as the type's chunks
 * are on the whole: where the room is, DEV_INFO does not tell), written
 * onto their devices. */
static double removed_part(Replay *p, const BtrfsTypeFigures *f, const Geometry *g, const double old[], double rel[])
{
	const BtrfsMove *m = p->m;
	unsigned r = (unsigned)m->removed, span = g->devs_max;
	double others = 0, staying = 0;
	for (unsigned i = 0; i < m->n_devs; i++) {
		span += !g->devs_max && old[i] > 0;
		others += i == r ? 0 : old[i];
	}
	double moved = fmin(f->disk_total, old[r] * span);
	for (unsigned i = 0; i < m->n_devs; i++) {
		rel[i] = i == r ? old[r] : others > 0 ? fmin(old[i], (moved - old[r]) * old[i] / others) : 0;
		staying += old[i] - rel[i];
	}
	if (!(f->disk_total > 0) || !(f->total > 0))
		return 0;
	double content = f->used * moved / f->disk_total;
	double room = (f->total - f->used) * (1 - moved / f->disk_total);
	double taken = fmin(content, fmax(room, 0));
	for (unsigned i = 0; i < m->n_devs && staying > 0; i++)
		p->written[i] += taken * f->disk_total / f->total * (old[i] - rel[i]) / staying;
	return content - taken;
}

/* Type t moved: its content packed into new chunks, each made once the
 * ones before are full; the chunks it leaves freed as it goes, each once
 * its content has moved (the one moving still allocated). */
static int move_type(Replay *p, BtrfsChunkType t, const double old[], double rel[], double freed[])
{
	const BtrfsMove *m = p->m;
	const BtrfsTypeFigures *f = &m->type[t];
	const Geometry *was = geometry(f->profile), *g = geometry(m->convert_to[t] ? m->convert_to[t] : f->profile);
	if (!was || !g || !figures_known(f))
		return -EINVAL;
	double content = f->used, rw = 0, max_chunk, max_stripe;
	for (unsigned i = 0; i < m->n_devs; i++) {
		rw += (int)i == m->removed ? 0 : m->size[i];	/* the kernel's total_rw_bytes */
		rel[i] = old[i], freed[i] = 0;
	}
	if (m->removed >= 0)
		content = removed_part(p, f, was, old, rel);
	chunk_limits(t, f->chunk_size, rw, &max_chunk, &max_stripe);
	double lag = f->total > 0 ? fmin(max_chunk, f->total) * f->used / f->total : 0;
	for (double held = 0, room = 0; held < content - 1;) {
		double x = content > 0 ? fmin(fmax(room - lag, 0) / content, 1) : 1;
		for (unsigned i = 0; i < m->n_devs; i++) {
			p->alloc[i] -= rel[i] * x - freed[i];
			freed[i] = rel[i] * x;
		}
		if (++p->chunks > BTRFS_ALLOC_CHUNKS_MAX)
			return -ERANGE;
		double chunk = new_chunk(p, g, max_chunk, max_stripe, content - held);
		if (chunk <= 0)
			return -ENOSPC;
		held += fmin(chunk, content - held), room += chunk;
	}
	for (unsigned i = 0; i < m->n_devs; i++)
		p->alloc[i] -= rel[i] - freed[i];
	return 0;
}

static bool move_valid(const BtrfsMove *m)
{
	if (!m || !m->size || !m->used || !m->type || m->n_devs == 0 || m->removed >= (int)m->n_devs || m->removed < -1)
		return false;
	for (unsigned i = 0; i < m->n_devs; i++)
		if (!(m->size[i] >= 0) || !(m->used[i] >= 0) || !isfinite(m->size[i]) || !isfinite(m->used[i]))
			return false;
	return figures_known(&m->type[BTRFS_CHUNK_DATA]);
}

int btrfs_move_replay(const BtrfsMove *m, double ret_written[], double ret_after[])
{
	if (!move_valid(m) || !ret_written || !ret_after)
		return -EINVAL;
	unsigned n = m->n_devs;
	_cleanup_free_ double *work = calloc(3 * (size_t)n, sizeof *work);
	_cleanup_free_ Candidate *cand = calloc(n, sizeof *cand);
	if (!work || !cand)
		return -ENOMEM;
	double *old = work, *rel = work + n, *freed = work + 2 * n;
	Replay p = {.m = m, .alloc = ret_after, .written = ret_written, .cand = cand};
	/* each device's chunks split among the types by what each takes on disk */
	double disk = 0;
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		disk += figures_known(&m->type[t]) ? m->type[t].disk_total : 0;
	for (unsigned i = 0; i < n; i++)
		ret_after[i] = m->used[i], ret_written[i] = 0;
	int r = 0;
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX && r == 0; t++) {
		const BtrfsTypeFigures *f = &m->type[t];
		if (!m->acts_on[t] || !figures_known(f) || !(f->disk_total > 0))
			continue;	/* the data's known (move_valid()); metadata and system unknown left out */
		for (unsigned i = 0; i < n; i++)
			old[i] = m->used[i] * f->disk_total / disk;
		r = move_type(&p, (BtrfsChunkType)t, old, rel, freed);
	}
	return r;
}
