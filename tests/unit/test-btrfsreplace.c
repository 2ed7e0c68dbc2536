/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A replace's status from the kernel's (BTRFS_IOC_DEV_REPLACE, CMD_STATUS).
 * The figures are those the recordings in tests/fixtures/btrfs/ printed
 * (record.sh there: `btrfs replace status -1` prints the ioctl's answer:
 * its progress_1000 as a percentage, its times in local time), transcribed
 * with the file each comes from, the times as the epoch seconds the kernel
 * gave (5 Dec 2026 06:07:01 UTC is 1796450821).
 */
#include <math.h>
#include <string.h>

#include "btrfsreplace.h"
#include "test.h"

static BtrfsReplaceStatus from(uint64_t state, uint64_t per_mille, uint64_t started, uint64_t stopped)
{
	struct btrfs_ioctl_dev_replace_status_params p = {.replace_state = state, .progress_1000 = per_mille,
							  .time_started = started, .time_stopped = stopped};
	BtrfsReplaceStatus s;
	CHECK_INT(btrfs_replace_from_ioctl(&p, &s), 0);
	return s;
}

int main(void)
{
	/* never-started.txt */
	BtrfsReplaceStatus s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_NEVER_STARTED, 0, 0, 0);
	CHECK_INT(s.state, BTRFS_REPLACE_NEVER_STARTED);
	CHECK(isnan(s.progress) && isnan(s.started) && isnan(s.stopped));
	/* started.txt: "43.8% done"; the kernel keeps the start, not yet a stop */
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED, 438, 1796450821, 1796450700);
	CHECK_INT(s.state, BTRFS_REPLACE_STARTED);
	CHECK_NEAR(s.progress, 0.438, 1e-12);
	CHECK_NEAR(s.started, 1796450821, 0);
	CHECK(isnan(s.stopped) && isnan(btrfs_replace_duration(&s)));
	/* finished.txt: 06:07:01 to 06:07:08 */
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED, 1000, 1796450821, 1796450828);
	CHECK_INT(s.state, BTRFS_REPLACE_FINISHED);
	CHECK_NEAR(s.progress, 1, 0);
	CHECK_NEAR(btrfs_replace_duration(&s), 7, 0);
	/* canceled.txt: at 0.0%, within its second */
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_CANCELED, 0, 1796450828, 1796450828);
	CHECK_INT(s.state, BTRFS_REPLACE_CANCELED);
	CHECK_NEAR(btrfs_replace_duration(&s), 0, 0);
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_SUSPENDED, 402, 1796450821, 1796450900);
	CHECK_INT(s.state, BTRFS_REPLACE_SUSPENDED);
	CHECK_NEAR(s.progress, 0.402, 1e-12);
	/* what the kernel never sends: past 1000 per mille is done, a stop before the start no duration */
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED, 5000, 0, 0);
	CHECK_NEAR(s.progress, 1, 0);
	s = from(BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED, 1000, 1796450828, 1796450821);
	CHECK(isnan(btrfs_replace_duration(&s)));
	struct btrfs_ioctl_dev_replace_status_params bad = {.replace_state = 5};
	CHECK_INT(btrfs_replace_from_ioctl(&bad, &s), -EINVAL);
	CHECK_INT(s.state, _BTRFS_REPLACE_STATE_INVALID);
	CHECK_STR(btrfs_replace_state_to_string(BTRFS_REPLACE_SUSPENDED), "suspended");
	CHECK(!btrfs_replace_state_to_string(_BTRFS_REPLACE_STATE_MAX));
	return test_done("btrfsreplace");
}
