/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A balance as the kernel reports it to BTRFS_IOC_BALANCE_PROGRESS, and
 * what a balance or a remove writes onto each device, against what
 * recorded ones did. The kernel's answers and the devices' figures are
 * those the recordings in tests/fixtures/btrfs/ printed (record-balance.sh
 * there: `btrfs balance status -v` dumps the ioctl's struct, flags and
 * state in hex; record-move.sh: `btrfs filesystem show --raw` prints
 * DEV_INFO's sizes and bytes used, sysfs allocation/, each device's
 * diskstats), transcribed here with the file each comes from.
 */
#include <math.h>
#include <string.h>

#include "btrfsbalance.h"
#include "test.h"
#include "util.h"


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


/* move/raid1-balance.txt and raid1-remove.txt: a raid1 of two 1 GiB
 * devices holding 192 MiB in files of 32 KiB, a third added */
static const BtrfsFsFigures raid1_fs = {.type = {
	{BTRFS_PROFILE_RAID1, 201326592, 325451776, 650903552, 10737418240},
	{BTRFS_PROFILE_RAID1, 4030464, 107347968, 214695936, 268435456},
	{BTRFS_PROFILE_RAID1, 16384, 8388608, 16777216, 33554432}}};
static const BtrfsShow raid1_before = {.n_devs = 3, .devs = {{1, 1073741824, 441188352, "/dev/loop0"},
							     {2, 1073741824, 441188352, "/dev/loop1"},
							     {3, 1073741824, 0, "/dev/loop2"}}};

/* What the recorded moves wrote onto the device added, foreseen from the
 * layout before them: the devices' figures at the move's first reading
 * are no start (a chunk moving is counted twice, its new copy's room
 * taken before it is filled). */
static void test_landing(void)
{
	BtrfsBalanceStatus full = running(), filtered;
	struct btrfs_ioctl_balance_args a = args(BTRFS_BALANCE_STATE_RUNNING, 0x2, 0, 3, 4, 4);
	a.data.flags = 0x22;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &filtered), 0);
	BtrfsLanding l[BTRFS_SHOW_DEVS_MAX];
	/* the balance: 198.3 MiB written onto devid 3, which then held 576 MiB of chunks */
	CHECK_INT(btrfs_balance_landing(&full, &raid1_before, &raid1_fs, l), 0);
	CHECK(l[2].receives && !l[0].receives && !l[1].receives);
	CHECK(fabs(l[2].total / 207880192.0 - 1) < 0.02);
	CHECK_NEAR(l[2].share, 603979776, 1);
	CHECK_NEAR(l[2].now, 0, 0);
	/* its first reading mid-way, taken for the start: a new chunk of 320
	 * MiB on devid 3 already, devid 2 holding that chunk's old copy too */
	BtrfsShow during = {.n_devs = 3, .devs = {{1, 1073741824, 441188352, "/dev/loop0"},
						  {2, 1073741824, 776732672, "/dev/loop1"},
						  {3, 1073741824, 335544320, "/dev/loop2"}}};
	BtrfsShow start;
	btrfs_show_before(&during, &raid1_before, &start);
	CHECK(memcmp(&start, &raid1_before, sizeof start) == 0);
	/* narrowed by filters: it fills, how much is not known */
	CHECK_INT(btrfs_balance_landing(&filtered, &raid1_before, &raid1_fs, l), 0);
	CHECK(l[2].receives && isnan(l[2].total));
	/* the remove of devid 2 (size 0 from its first reading on): 198.5 MiB
	 * onto devid 3, a copy of every chunk, and as much onto devid 1,
	 * which keeps about what it had */
	BtrfsShow removing = {.n_devs = 3, .devs = {{1, 1073741824, 659292160, "/dev/loop0"},
						    {2, 0, 441188352, "/dev/loop1"},
						    {3, 1073741824, 218103808, "/dev/loop2"}}};
	btrfs_show_before(&removing, &raid1_before, &start);
	CHECK_NEAR(start.devs[1].size, 0, 0);
	CHECK_NEAR(start.devs[2].used, 0, 0);
	BtrfsBalanceStatus all = {.state = BTRFS_BALANCE_RUNNING, .uncounted = true};
	CHECK_INT(btrfs_balance_landing(&all, &start, &raid1_fs, l), 0);
	CHECK(l[2].receives && !l[0].receives && !l[1].receives);
	CHECK(fabs(l[2].total / 208101376.0 - 1) < 0.02);
	CHECK(fabs(l[0].total / 215801856.0 - 1) < 0.06);
	CHECK_NEAR(l[1].share, 0, 0);
	/* a device that joined after the layout was read holds nothing yet */
	BtrfsShow two = raid1_before;
	two.n_devs = 2;
	btrfs_show_before(&raid1_before, &two, &start);
	CHECK_NEAR(start.devs[2].used, 0, 0);
	CHECK_NEAR(start.devs[0].used, 441188352, 0);
	/* move/single-convert.txt: single data and dup metadata on one device,
	 * a second added, both converted to raid1: a whole copy onto it */
	a = args(BTRFS_BALANCE_STATE_RUNNING, BTRFS_BALANCE_ARGS_CONVERT, BTRFS_PROFILE_RAID1, 0, 7, 0);
	BtrfsBalanceStatus convert;
	CHECK_INT(btrfs_balance_from_ioctl(&a, &convert), 0);
	BtrfsShow one = {.n_devs = 2, .devs = {{1, 2147483648, 894173184, "/dev/loop0"}, {2, 2147483648, 0, "/dev/loop1"}}};
	BtrfsFsFigures single = {.type = {{BTRFS_PROFILE_SINGLE, 524288000, 662700032, 662700032, 10737418240},
					  {BTRFS_PROFILE_DUP, 1916928, 107347968, 214695936, 268435456},
					  {BTRFS_PROFILE_DUP, 16384, 8388608, 16777216, 33554432}}};
	CHECK_INT(btrfs_balance_landing(&convert, &one, &single, l), 0);
	CHECK(l[1].receives && fabs(l[1].total / 532881408.0 - 1) < 0.03);
	/* without the convert, single data: the new chunks on the emptiest device */
	CHECK_INT(btrfs_balance_landing(&full, &one, &single, l), 0);
	CHECK(l[1].receives && l[1].total > 0);
	/* the data chunks' figures unknown: nothing foreseen */
	BtrfsFsFigures unknown = raid1_fs;
	unknown.type[BTRFS_CHUNK_DATA].profile = 0;
	CHECK_INT(btrfs_balance_landing(&full, &raid1_before, &unknown, l), -EINVAL);
	BtrfsShow none = {0};
	CHECK_INT(btrfs_balance_landing(&full, &none, &raid1_fs, l), -EINVAL);
}

int main(void)
{
	test_status();
	test_landing();
	return test_done("btrfsbalance");
}
