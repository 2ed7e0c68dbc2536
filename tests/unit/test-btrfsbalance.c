/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A balance as the kernel reports it to BTRFS_IOC_BALANCE_PROGRESS, and
 * where a balance leaves the chunks, against what recorded balances did.
 * The kernel's answers and the devices' figures are those the recordings
 * in tests/fixtures/btrfs/ printed (record-balance.sh there: `btrfs
 * balance status -v` dumps the ioctl's struct, flags and state in hex;
 * `btrfs filesystem show --raw` prints DEV_INFO's sizes and bytes used),
 * transcribed here with the file each comes from.
 */
#include <math.h>
#include <string.h>

#include "btrfsbalance.h"
#include "test.h"
#include "util.h"

#define GIB 1073741824.0

/* "flags 0x7, state S": every chunk type, each with its filter flags and target */
static struct btrfs_ioctl_balance_args args(uint64_t state, uint64_t type_flags, uint64_t target, uint64_t completed,
					    uint64_t expected, uint64_t considered)
{
	struct btrfs_ioctl_balance_args a;
	memset(&a, 0, sizeof a);
	a.flags = BTRFS_BALANCE_DATA | BTRFS_BALANCE_METADATA | BTRFS_BALANCE_SYSTEM;
	a.state = state;
	a.data.flags = a.meta.flags = a.sys.flags = type_flags;
	a.data.target = a.meta.target = a.sys.target = target;
	a.stat.completed = completed, a.stat.expected = expected, a.stat.considered = considered;
	return a;
}

/* balance-running.txt: "1 out of about 5 chunks balanced (2 considered)", state 0x1 */
static BtrfsBalanceStatus running(void)
{
	struct btrfs_ioctl_balance_args a = args(BTRFS_BALANCE_STATE_RUNNING, 0, 0, 1, 5, 2);
	BtrfsBalanceStatus s;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	return s;
}

static void test_status(void)
{
	BtrfsBalanceStatus s = running();
	CHECK_INT(s.state, BTRFS_BALANCE_RUNNING);
	CHECK(!s.cancel_requested && !s.pause_requested && !s.uncounted);
	CHECK_INT(s.completed, 1);
	CHECK_INT(s.expected, 5);
	CHECK_INT(s.considered, 2);
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		CHECK(s.acts_on[t] && s.args_flags[t] == 0 && s.convert_to[t] == 0);
	CHECK(!btrfs_balance_narrowed(&s));
	/* balance-paused.txt: state 0x0 */
	struct btrfs_ioctl_balance_args a = args(0, 0, 0, 3, 4, 3);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_PAUSED);
	/* balance-filtered.txt: DATA 0x22 (usage, limit), METADATA and SYSTEM 0x2 (usage) */
	a = args(BTRFS_BALANCE_STATE_RUNNING, 0x2, 0, 3, 4, 4);
	a.data.flags = 0x22;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	CHECK_INT(s.args_flags[BTRFS_CHUNK_DATA], 0x22);
	CHECK(btrfs_balance_narrowed(&s));
	/* balance-convert.txt: each type 0x100, target=16 */
	a = args(BTRFS_BALANCE_STATE_RUNNING, BTRFS_BALANCE_ARGS_CONVERT, BTRFS_PROFILE_RAID1, 2, 6, 3);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		CHECK_INT(s.convert_to[t], BTRFS_PROFILE_RAID1);
	CHECK(!btrfs_balance_narrowed(&s));	/* a convert moves every chunk */
	/* told to stop: the two requests are the state's other bits */
	a = args(BTRFS_BALANCE_STATE_RUNNING | BTRFS_BALANCE_STATE_CANCEL_REQ, 0, 0, 0, 0, 0);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	CHECK(s.cancel_requested && !s.pause_requested);
	a = args(BTRFS_BALANCE_STATE_RUNNING | BTRFS_BALANCE_STATE_PAUSE_REQ, 0, 0, 5, 9, 6);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	CHECK(s.pause_requested && !s.cancel_requested);
	/* metadata alone: data is not acted on */
	a = args(BTRFS_BALANCE_STATE_RUNNING, 0, 0, 0, 1, 0);
	a.flags = BTRFS_BALANCE_METADATA;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), 0);
	CHECK(!s.acts_on[BTRFS_CHUNK_DATA] && s.acts_on[BTRFS_CHUNK_METADATA]);
	/* more done than expected makes no sense */
	a = args(BTRFS_BALANCE_STATE_RUNNING, 0, 0, 7, 5, 7);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &s), -EINVAL);
	CHECK_STR(btrfs_balance_state_to_string(BTRFS_BALANCE_PAUSED), "paused");
	CHECK(!btrfs_balance_state_to_string(_BTRFS_BALANCE_STATE_MAX));
}

static void test_spread(void)
{
	double size[3] = {4 * GIB, 4 * GIB, 4 * GIB}, got[3];
	/* the recorded raid1: 2 x 2.28 GiB of chunks over three equal devices: a third each */
	double total = 2 * 2451111936.0;
	CHECK_INT(btrfs_balance_spread(size, 3, total, 2, got), 0);
	for (int i = 0; i < 3; i++)
		CHECK_NEAR(got[i], total / 3, 2);
	/* a large new device beside two small ones in raid1: no more than half on it */
	double mixed[3] = {1 * GIB, 1 * GIB, 8 * GIB};
	CHECK_INT(btrfs_balance_spread(mixed, 3, 2 * GIB, 2, got), 0);
	CHECK_NEAR(got[2], 1 * GIB, 2);
	CHECK_NEAR(got[0] + got[1], 1 * GIB, 2);
	/* single: the free space evened out, the large one takes the most */
	CHECK_INT(btrfs_balance_spread(mixed, 3, 2 * GIB, 1, got), 0);
	CHECK_NEAR(got[2], 2 * GIB, 2);
	CHECK_NEAR(got[0], 0, 2);
	CHECK_INT(btrfs_balance_spread(size, 3, 20 * GIB, 2, got), -ENOSPC);
	CHECK_INT(btrfs_balance_spread(size, 0, 1, 2, got), -EINVAL);
	CHECK_INT(btrfs_balance_spread(size, 3, NAN, 2, got), -EINVAL);
	double neg[2] = {-1, 1};
	CHECK_INT(btrfs_balance_spread(neg, 2, 1, 1, got), -EINVAL);
	CHECK_INT(btrfs_profile_copies(BTRFS_PROFILE_RAID1C3), 3);
	CHECK_INT(btrfs_profile_copies(0), 0);
	CHECK_NEAR(btrfs_profile_factor(BTRFS_PROFILE_RAID5, 4), 4.0 / 3, 1e-12);
	CHECK(isnan(btrfs_profile_factor(BTRFS_PROFILE_RAID6, 2)));
}

/* Where the recorded balances left the chunks, against the foresight. */
static void test_landing(void)
{
	BtrfsBalanceStatus full = running(), convert, filtered;
	struct btrfs_ioctl_balance_args a = args(BTRFS_BALANCE_STATE_RUNNING, BTRFS_BALANCE_ARGS_CONVERT,
						 BTRFS_PROFILE_RAID1, 2, 6, 3);
	CHECK_INT(btrfs_balance_from_ioctl(&a, &convert), 0);
	a = args(BTRFS_BALANCE_STATE_RUNNING, 0x2, 0, 3, 4, 4);
	a.data.flags = 0x22;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &filtered), 0);
	/* show-added.txt and show-balanced.txt */
	BtrfsShow added = {.n_devs = 3, .devs = {{1, 4 * GIB, 2451111936.0, "/dev/loop2"},
						 {2, 4 * GIB, 2451111936.0, "/dev/loop3"}, {3, 4 * GIB, 0, "/dev/loop4"}}};
	BtrfsShow balanced = {.n_devs = 3, .devs = {{1, 4 * GIB, 1375731712.0, "/dev/loop2"},
						    {2, 4 * GIB, 1375731712.0, "/dev/loop3"},
						    {3, 4 * GIB, 2147483648.0, "/dev/loop4"}}};
	/* 1500 MiB of data in raid1 (and a little metadata): 2 x 1.47 GiB on disk */
	BtrfsFsFigures fs = {.data_profile = BTRFS_PROFILE_RAID1, .data_total = 1.5 * GIB, .data_disk_total = 3 * GIB,
			     .disk_used = 2 * 1574584320.0};
	BtrfsLanding l;
	CHECK_INT(btrfs_balance_landing(&full, &added, 2, &fs, &l), 0);
	CHECK(l.receives);
	CHECK_NEAR(l.now, 0, 0);
	CHECK_NEAR(l.share, 2 * 2451111936.0 / 3, 2);
	/* the balance left 2 GiB on it: its chunks are 1 GiB, the foresight a third of the whole */
	CHECK(fabs(l.share - balanced.devs[2].used) < GIB);
	CHECK(l.total > 0.9 * GIB && l.total <= l.share);
	/* an old member is at its share already: the balance does not fill it */
	CHECK_INT(btrfs_balance_landing(&full, &balanced, 0, &fs, &l), 0);
	CHECK(!l.receives);
	/* the new device once filled */
	CHECK_INT(btrfs_balance_landing(&full, &balanced, 2, &fs, &l), 0);
	CHECK(!l.receives);
	/* narrowed by filters: it fills, how much is not known */
	CHECK_INT(btrfs_balance_landing(&filtered, &added, 2, &fs, &l), 0);
	CHECK(l.receives && isnan(l.total));
	/* single data onto a second device, converted to raid1: the new one
	 * takes a whole copy (show-converted.txt: both devices alike) */
	BtrfsShow one = {.n_devs = 2, .devs = {{1, 4 * GIB, 1.2 * GIB, "/dev/a"}, {2, 4 * GIB, 0, "/dev/b"}}};
	BtrfsFsFigures single = {.data_profile = BTRFS_PROFILE_SINGLE, .data_total = 1 * GIB, .data_disk_total = 1 * GIB,
				 .disk_used = 1.1 * GIB};
	CHECK_INT(btrfs_balance_landing(&convert, &one, 1, &single, &l), 0);
	CHECK_NEAR(l.share, 1.1 * GIB, 2);
	CHECK(l.receives);
	CHECK_INT(btrfs_balance_landing(&full, &one, 1, &single, &l), 0);
	CHECK_NEAR(l.share, 0.6 * GIB, 2);	/* without the convert: half of the chunks */
	CHECK_INT(btrfs_balance_landing(&full, &one, 2, &single, &l), -EINVAL);
	/* a device remove: the removed device (size 0, as DEV_INFO has it
	 * while it is emptied) of a raid1 of two, a third one added: every
	 * chunk lands on the two left, the new one a whole copy */
	BtrfsShow removing = {.n_devs = 3, .devs = {{1, 0, 2451111936.0, "/dev/loop2"},
						    {2, 4 * GIB, 2451111936.0, "/dev/loop3"}, {3, 4 * GIB, 0, "/dev/loop4"}}};
	BtrfsBalanceStatus all = {.state = BTRFS_BALANCE_RUNNING, .uncounted = true};
	CHECK_INT(btrfs_balance_landing(&all, &removing, 2, &fs, &l), 0);
	CHECK(l.receives);
	CHECK_NEAR(l.share, 2451111936.0, 2);
	CHECK_INT(btrfs_balance_landing(&all, &removing, 0, &fs, &l), 0);
	CHECK_NEAR(l.share, 0, 0);
	CHECK(!l.receives);
}

int main(void)
{
	test_status();
	test_spread();
	test_landing();
	return test_done("btrfsbalance");
}
