/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A balance from the kernel's progress report, and the spread of its
 * chunks (btrfsbalance.h). The convert target is a profile bit, as the
 * tool prints it ("target=16": raid1).
 */
#include "btrfsbalance.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const state_names[_BTRFS_BALANCE_STATE_MAX] = {"none", "running", "paused"};

const char *btrfs_balance_state_to_string(BtrfsBalanceState s)
{
	return s >= 0 && s < _BTRFS_BALANCE_STATE_MAX ? state_names[s] : NULL;
}

int btrfs_balance_from_ioctl(const struct btrfs_ioctl_balance_args *a, BtrfsBalanceStatus *ret)
{
	BtrfsBalanceStatus r = {.state = a->state & BTRFS_BALANCE_STATE_RUNNING ? BTRFS_BALANCE_RUNNING : BTRFS_BALANCE_PAUSED,
				.cancel_requested = a->state & BTRFS_BALANCE_STATE_CANCEL_REQ,
				.completed = a->stat.completed, .expected = a->stat.expected, .considered = a->stat.considered};
	r.pause_requested = !r.cancel_requested && (a->state & BTRFS_BALANCE_STATE_PAUSE_REQ);
	if (r.expected && r.completed > r.expected)
		return -EINVAL;
	/* the types it acts on, in the enum's order, with each one's filters */
	static const uint64_t types[_BTRFS_CHUNK_TYPE_MAX] = {BTRFS_BALANCE_DATA, BTRFS_BALANCE_METADATA,
							      BTRFS_BALANCE_SYSTEM};
	const struct btrfs_balance_args *args[_BTRFS_CHUNK_TYPE_MAX] = {&a->data, &a->meta, &a->sys};
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++) {
		if (!(a->flags & types[t]))
			continue;
		r.acts_on[t] = true;
		r.args_flags[t] = args[t]->flags;
		if (args[t]->flags & BTRFS_BALANCE_ARGS_CONVERT)
			r.convert_to[t] = args[t]->target;
	}
	*ret = r;
	return 0;
}

bool btrfs_balance_narrowed(const BtrfsBalanceStatus *s)
{
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		if (s->acts_on[t] && (s->args_flags[t] & ~(BTRFS_BALANCE_ARGS_CONVERT | BTRFS_BALANCE_ARGS_SOFT)))
			return true;
	return false;
}

unsigned btrfs_profile_copies(uint64_t profile)
{
	switch (profile) {
	case BTRFS_PROFILE_RAID1:
	case BTRFS_PROFILE_RAID10:
		return 2;
	case BTRFS_PROFILE_RAID1C3:
		return 3;
	case BTRFS_PROFILE_RAID1C4:
		return 4;
	case BTRFS_PROFILE_SINGLE:
	case BTRFS_PROFILE_DUP:
	case BTRFS_PROFILE_RAID0:
	case BTRFS_PROFILE_RAID5:
	case BTRFS_PROFILE_RAID6:
		return 1;
	default:
		return 0;
	}
}

double btrfs_profile_factor(uint64_t profile, unsigned n_devs)
{
	switch (profile) {
	case BTRFS_PROFILE_RAID1:
	case BTRFS_PROFILE_RAID10:
	case BTRFS_PROFILE_DUP:
		return 2;
	case BTRFS_PROFILE_RAID1C3:
		return 3;
	case BTRFS_PROFILE_RAID1C4:
		return 4;
	case BTRFS_PROFILE_SINGLE:
	case BTRFS_PROFILE_RAID0:
		return 1;
	case BTRFS_PROFILE_RAID5:
		return n_devs >= 2 ? (double)n_devs / (n_devs - 1) : NAN;
	case BTRFS_PROFILE_RAID6:
		return n_devs >= 3 ? (double)n_devs / (n_devs - 2) : NAN;
	default:
		return NAN;
	}
}

static double spread_at(const double size[], unsigned n, double level, double cap, double ret[])
{
	double sum = 0;
	for (unsigned i = 0; i < n; i++) {
		double a = fmin(fmax(size[i] - level, 0), cap);
		if (ret)
			ret[i] = a;
		sum += a;
	}
	return sum;
}

int btrfs_balance_spread(const double size[], unsigned n, double total, unsigned copies, double ret[])
{
	if (!size || !ret || n == 0 || !(total >= 0) || !isfinite(total) || copies == 0)
		return -EINVAL;
	double hi = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!(size[i] >= 0) || !isfinite(size[i]))
			return -EINVAL;
		hi = fmax(hi, size[i]);
	}
	double cap = copies > 1 ? total / copies : INFINITY;
	if (spread_at(size, n, 0, cap, ret) < total)
		return -ENOSPC;
	/* the free level at which the devices hold exactly total: the sum
	 * falls as the level rises, so halving the interval finds it */
	double lo = 0;
	for (int k = 0; k < 100 && hi - lo > 1; k++) {
		double mid = (lo + hi) / 2;
		if (spread_at(size, n, mid, cap, NULL) >= total)
			lo = mid;
		else
			hi = mid;
	}
	spread_at(size, n, lo, cap, ret);
	return 0;
}

int btrfs_balance_landing(const BtrfsBalanceStatus *b, const BtrfsShow *show, unsigned k, const BtrfsFsFigures *fs,
			  BtrfsLanding *ret)
{
	if (!b || !show || !fs || !ret || k >= show->n_devs || show->n_devs > BTRFS_SHOW_DEVS_MAX)
		return -EINVAL;
	double size[BTRFS_SHOW_DEVS_MAX], share[BTRFS_SHOW_DEVS_MAX], chunks = 0;
	for (unsigned i = 0; i < show->n_devs; i++) {
		size[i] = show->devs[i].size;
		chunks += show->devs[i].used;
	}
	uint64_t to = b->acts_on[BTRFS_CHUNK_DATA] ? b->convert_to[BTRFS_CHUNK_DATA] : 0;
	double after = chunks;
	/* a data convert: its chunks take the new profile's factor of what they hold */
	double was = fs->data_total > 0 ? fs->data_disk_total / fs->data_total : NAN;
	double will = to ? btrfs_profile_factor(to, show->n_devs) : NAN;
	if (isfinite(was) && was > 0 && isfinite(will) && isfinite(fs->data_disk_total))
		after = fmax(chunks + fs->data_disk_total * (will / was - 1), 0);
	unsigned copies = btrfs_profile_copies(to ? to : fs->data_profile);
	int r = btrfs_balance_spread(size, show->n_devs, after, copies ? copies : 1, share);
	if (r < 0 && r != -ENOSPC)
		return r;
	double fill = chunks > 0 && fs->disk_used >= 0 ? fmin(fs->disk_used / chunks, 1) : 1;
	BtrfsLanding l = {.share = share[k], .now = show->devs[k].used};
	l.receives = l.share - l.now > 0.25 * l.share;
	l.total = btrfs_balance_narrowed(b) ? NAN : l.share * fill;
	l.done = isfinite(l.total) ? fmin(l.now * fill, l.total) : l.now * fill;
	*ret = l;
	return 0;
}
