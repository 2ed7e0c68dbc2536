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

void btrfs_show_before(const BtrfsShow *now, const BtrfsShow *before, BtrfsShow *ret)
{
	*ret = *now;
	for (unsigned i = 0; i < ret->n_devs; i++) {
		BtrfsShowDevice *d = &ret->devs[i];
		d->used = 0;
		for (unsigned j = 0; before && j < before->n_devs && j < BTRFS_SHOW_DEVS_MAX; j++)
			if (before->devs[j].devid == d->devid)
				d->used = before->devs[j].used;
	}
}

int btrfs_balance_landing(const BtrfsBalanceStatus *b, const BtrfsShow *show, const BtrfsFsFigures *fs,
			  BtrfsLanding ret[])
{
	if (!b || !show || !fs || !ret || show->n_devs == 0 || show->n_devs > BTRFS_SHOW_DEVS_MAX)
		return -EINVAL;
	double size[BTRFS_SHOW_DEVS_MAX], used[BTRFS_SHOW_DEVS_MAX], written[BTRFS_SHOW_DEVS_MAX], after[BTRFS_SHOW_DEVS_MAX];
	BtrfsMove m = {.n_devs = show->n_devs, .size = size, .used = used, .removed = -1, .type = fs->type};
	for (unsigned i = 0; i < show->n_devs; i++) {
		size[i] = show->devs[i].size, used[i] = show->devs[i].used;
		if (size[i] <= 0 && m.removed < 0)
			m.removed = (int)i;
	}
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++) {
		/* a remove moves every type; told from sysfs, a balance is a full one */
		m.acts_on[t] = m.removed >= 0 || b->uncounted || b->acts_on[t];
		m.convert_to[t] = m.removed < 0 && b->acts_on[t] ? b->convert_to[t] : 0;
	}
	int r = btrfs_move_replay(&m, written, after);
	if (r < 0 && r != -ENOSPC && r != -ERANGE)
		return r;
	/* short of room the move fails part-way: what it wrote until then; past
	 * the chunks replayed, unforeseen */
	bool known = r != -ERANGE && !(m.removed < 0 && btrfs_balance_narrowed(b));
	for (unsigned i = 0; i < show->n_devs; i++) {
		BtrfsLanding l = {.share = after[i], .now = used[i], .total = known ? written[i] : NAN};
		l.receives = l.share - l.now > 0.25 * l.share;
		ret[i] = l;
	}
	return 0;
}
