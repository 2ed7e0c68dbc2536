/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A replace's status from the kernel's (btrfsreplace.h). A time of 0 is
 * one the kernel never set (a replace never started, or still running).
 */
#include "btrfsreplace.h"

#include <math.h>
#include <stddef.h>

static const char *const state_names[_BTRFS_REPLACE_STATE_MAX] = {"never started", "started", "finished",
								  "canceled", "suspended"};

const char *btrfs_replace_state_to_string(BtrfsReplaceState s)
{
	return s >= 0 && s < _BTRFS_REPLACE_STATE_MAX ? state_names[s] : NULL;
}

int btrfs_replace_from_ioctl(const struct btrfs_ioctl_dev_replace_status_params *p, BtrfsReplaceStatus *ret)
{
	*ret = (BtrfsReplaceStatus){.state = _BTRFS_REPLACE_STATE_INVALID, .progress = NAN, .started = NAN,
				    .stopped = NAN};
	/* the kernel's numbering is the enum's */
	if (p->replace_state >= _BTRFS_REPLACE_STATE_MAX)
		return -EINVAL;
	ret->state = (BtrfsReplaceState)p->replace_state;
	if (ret->state != BTRFS_REPLACE_NEVER_STARTED)
		ret->progress = p->progress_1000 > 1000 ? 1.0 : (double)p->progress_1000 / 1000;
	if (p->time_started)
		ret->started = (double)p->time_started;
	if (p->time_stopped && ret->state != BTRFS_REPLACE_STARTED)
		ret->stopped = (double)p->time_stopped;
	ret->write_errors = p->num_write_errors;
	ret->uncorrectable_read_errors = p->num_uncorrectable_read_errors;
	return 0;
}

double btrfs_replace_duration(const BtrfsReplaceStatus *s)
{
	return isfinite(s->started) && isfinite(s->stopped) && s->stopped >= s->started ? s->stopped - s->started : NAN;
}
