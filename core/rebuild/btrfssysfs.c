/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A btrfs replace or balance from sysfs (btrfssysfs.h). */
#include "btrfssysfs.h"

#include <math.h>
#include <string.h>

#include "util.h"

static const char *const exclop_names[_BTRFS_EXCLOP_MAX] = {
	[BTRFS_EXCLOP_NONE] = "none",
	[BTRFS_EXCLOP_BALANCE] = "balance",
	[BTRFS_EXCLOP_BALANCE_PAUSED] = "balance paused",
	[BTRFS_EXCLOP_DEV_ADD] = "device add",
	[BTRFS_EXCLOP_DEV_REMOVE] = "device remove",
	[BTRFS_EXCLOP_DEV_REPLACE] = "device replace",
	[BTRFS_EXCLOP_RESIZE] = "resize",
	[BTRFS_EXCLOP_SWAP_ACTIVATE] = "swap activate",
};

const char *btrfs_exclop_to_string(BtrfsExclOp op)
{
	return op >= 0 && op < _BTRFS_EXCLOP_MAX ? exclop_names[op] : NULL;
}

int btrfs_exclop_parse(const char *text, BtrfsExclOp *ret)
{
	*ret = _BTRFS_EXCLOP_INVALID;
	if (!text)
		return -EINVAL;
	size_t n = strlen(text);
	if (n && text[n - 1] == '\n')
		n--;
	for (int i = 0; i < _BTRFS_EXCLOP_MAX; i++)
		if (strlen(exclop_names[i]) == n && strncmp(text, exclop_names[i], n) == 0) {
			*ret = (BtrfsExclOp)i;
			return 0;
		}
	return -EINVAL;
}

void btrfs_replace_from_sysfs(BtrfsExclOp op, bool target_listed, bool followed, bool target_member,
			      BtrfsReplaceStatus *ret)
{
	*ret = (BtrfsReplaceStatus){.state = BTRFS_REPLACE_NEVER_STARTED, .progress = NAN, .started = NAN, .stopped = NAN};
	if (op == BTRFS_EXCLOP_DEV_REPLACE || target_listed) {
		ret->state = BTRFS_REPLACE_STARTED;
		ret->progress = 0;
	} else if (followed) {
		ret->state = target_member ? BTRFS_REPLACE_FINISHED : BTRFS_REPLACE_CANCELED;
		ret->progress = target_member ? 1.0 : NAN;
	}
}

int btrfs_balance_from_sysfs(BtrfsExclOp op, BtrfsBalanceStatus *ret)
{
	*ret = (BtrfsBalanceStatus){.state = BTRFS_BALANCE_NONE, .uncounted = true};
	if (op < 0 || op >= _BTRFS_EXCLOP_MAX)
		return -EINVAL;
	ret->state = op == BTRFS_EXCLOP_BALANCE ? BTRFS_BALANCE_RUNNING
		   : op == BTRFS_EXCLOP_BALANCE_PAUSED ? BTRFS_BALANCE_PAUSED : BTRFS_BALANCE_NONE;
	return 0;
}
