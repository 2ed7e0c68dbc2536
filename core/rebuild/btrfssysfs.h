/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs replace or balance as an unprivileged process sees it (pure).
 * The kernel answers the replace-status and balance-progress ioctls only
 * to CAP_SYS_ADMIN (btrfs_ioctl_dev_replace(), btrfs_ioctl_balance_progress()
 * in fs/btrfs/ioctl.c), but anyone may read /sys/fs/btrfs/UUID/: its
 * exclusive_operation (5.10 and later: the one exclusive operation under
 * way, sysfs.c btrfs_exclusive_operation_show()) and devinfo/0/, which a
 * replace's target has while it copies. docs/zfs.md, "How smrd follows a
 * rebuild".
 */
#pragma once

#include <errno.h>
#include <stdbool.h>

#include "btrfsbalance.h"
#include "btrfsreplace.h"

typedef enum BtrfsExclOp {
	BTRFS_EXCLOP_NONE,
	BTRFS_EXCLOP_BALANCE,
	BTRFS_EXCLOP_BALANCE_PAUSED,
	BTRFS_EXCLOP_DEV_ADD,
	BTRFS_EXCLOP_DEV_REMOVE,
	BTRFS_EXCLOP_DEV_REPLACE,
	BTRFS_EXCLOP_RESIZE,
	BTRFS_EXCLOP_SWAP_ACTIVATE,
	_BTRFS_EXCLOP_MAX,
	_BTRFS_EXCLOP_INVALID = -EINVAL,	/* the file missing (a kernel before 5.10) or unreadable */
} BtrfsExclOp;

/* "none", "balance", "balance paused", "device add", "device remove",
 * "device replace", "resize", "swap activate"; NULL outside the enum. */
const char *btrfs_exclop_to_string(BtrfsExclOp op);
/* exclusive_operation's text (one line, its newline optional): 0 and
 * *ret; -EINVAL on anything else (*ret _BTRFS_EXCLOP_INVALID). */
int btrfs_exclop_parse(const char *text, BtrfsExclOp *ret);

/*
 * The replace on a file system from sysfs: under way while its target has
 * devinfo/0 or exclusive_operation says so (each alone at its edges),
 * progress 0 (the bytes come from the target's own write counter). Once
 * neither says so, a replace followed (followed) ended: finished when its
 * target is still one of the file system's devices (it took the source's
 * devid), canceled when it left. Never started otherwise. No times: the
 * first reading stands for the start, the last for the end.
 */
void btrfs_replace_from_sysfs(BtrfsExclOp op, bool target_listed, bool followed, bool target_member,
			      BtrfsReplaceStatus *ret);
/* The balance from exclusive_operation: running, paused, or none; no
 * chunk counts, no filters (taken as a full balance). -EINVAL when op is
 * unknown: nothing can be said. */
int btrfs_balance_from_sysfs(BtrfsExclOp op, BtrfsBalanceStatus *ret);
