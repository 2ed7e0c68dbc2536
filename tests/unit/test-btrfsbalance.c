/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `btrfs balance status -v` and `btrfs filesystem show --raw` read from
 * real outputs (tests/fixtures/btrfs/balance-*.txt and show-*.txt, recorded
 * from balances between loop devices by record-balance.sh there; each
 * .source says how), the forms a short run cannot show (cancel requested,
 * no chunk counted yet), garbage refused; and where a balance leaves the
 * chunks, against what the recorded balances did. argv[1]: tests/fixtures/btrfs.
 */
#include <fcntl.h>
#include <math.h>

#include "btrfsbalance.h"
#include "test.h"
#include "util.h"

#define MNT "/dev/shm/btrfs-balance-record/mnt"
#define GIB 1073741824.0

static const char *dir;

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	char *text = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK_INT(read_file_at(AT_FDCWD, path, 1 << 20, &text, len), 0);
	return text;
}

static int parse_status(const char *name, BtrfsBalanceStatus *ret)
{
	size_t len = 0;
	_cleanup_free_ char *text = slurp(name, &len), *err = NULL;
	int r = text ? btrfs_balance_parse(text, len, MNT, ret, &err) : -EIO;
	if (r < 0)
		fprintf(stderr, "%s: %s\n", name, err ? err : "?");
	return r;
}

static int parse_show(const char *name, BtrfsShow *ret)
{
	size_t len = 0;
	_cleanup_free_ char *text = slurp(name, &len), *err = NULL;
	int r = text ? btrfs_show_parse(text, len, ret, &err) : -EIO;
	if (r < 0)
		fprintf(stderr, "%s: %s\n", name, err ? err : "?");
	return r;
}

static void test_status_fixtures(void)
{
	BtrfsBalanceStatus s;
	CHECK_INT(parse_status("balance-none.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_NONE);

	CHECK_INT(parse_status("balance-running.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_RUNNING);
	CHECK(!s.cancel_requested && !s.pause_requested);
	CHECK_INT(s.completed, 1);
	CHECK_INT(s.expected, 5);
	CHECK_INT(s.considered, 2);
	CHECK(s.dumped);
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		CHECK(s.acts_on[t] && s.args_flags[t] == 0 && s.convert_to[t] == 0);
	CHECK(!btrfs_balance_narrowed(&s));

	CHECK_INT(parse_status("balance-paused.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_PAUSED);
	CHECK_INT(s.completed, 3);
	CHECK_INT(s.expected, 4);

	CHECK_INT(parse_status("balance-filtered.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_RUNNING);
	CHECK_INT(s.args_flags[BTRFS_CHUNK_DATA], 0x22);
	CHECK_INT(s.args_flags[BTRFS_CHUNK_METADATA], 0x2);
	CHECK(btrfs_balance_narrowed(&s));

	CHECK_INT(parse_status("balance-convert.txt", &s), 0);
	CHECK_INT(s.completed, 2);
	CHECK_INT(s.expected, 6);
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		CHECK_INT(s.convert_to[t], BTRFS_PROFILE_RAID1);
	CHECK(!btrfs_balance_narrowed(&s));	/* a convert moves every chunk */
	CHECK_STR(btrfs_balance_state_to_string(BTRFS_BALANCE_PAUSED), "paused");
	CHECK(!btrfs_balance_state_to_string(_BTRFS_BALANCE_STATE_MAX));
}

static void test_status_forms(void)
{
	BtrfsBalanceStatus s;
	char *err = NULL;
	/* cmd_balance_status()'s other forms: told to stop; before a chunk is counted, 0/0 prints nan */
	const char *cancel = "Balance on '/m n' is running, cancel requested\n0 out of about 0 chunks balanced (0 considered), -nan% left\n";
	CHECK_INT(btrfs_balance_parse(cancel, strlen(cancel), "/m n", &s, &err), 0);
	CHECK(s.cancel_requested && !s.pause_requested);
	const char *pause = "Balance on '/m n' is running, pause requested\n5 out of about 9 chunks balanced (6 considered),  44% left\n";
	CHECK_INT(btrfs_balance_parse(pause, strlen(pause), "/m n", &s, &err), 0);
	CHECK(s.pause_requested && !s.cancel_requested);
	CHECK(!s.dumped);
	/* a mount point with a quote and a newline: the one given is matched whole */
	const char *odd = "Balance on '/m'\nx' is paused\n1 out of about 2 chunks balanced (1 considered),  50% left\n";
	CHECK_INT(btrfs_balance_parse(odd, strlen(odd), "/m'\nx", &s, &err), 0);
	CHECK_INT(s.state, BTRFS_BALANCE_PAUSED);
	CHECK(!err);
}

static void test_status_refused(void)
{
	const char *bad[] = {
		"",
		"\n",
		"No balance found on '/other'\n",
		"No balance found on '" MNT "'\nand more\n",
		"Balance on '" MNT "' is running\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced\n",
		"Balance on '" MNT "' is sleeping\n1 out of about 5 chunks balanced (2 considered),  80% left\n",
		"Balance on '" MNT "' is running\n6 out of about 5 chunks balanced (2 considered),  80% left\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left, more\n",
		"Balance on '" MNT "' is running\n-1 out of about 5 chunks balanced (2 considered),  80% left\n",
		"Balance on '" MNT "' is running\n1 out of about 99999999999999999999999 chunks balanced (2 considered),  80% left\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left\nDumping filters: flags 0x7\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left\n"
		"Dumping filters: flags 0x7, state 0x1, force is off\n  DATA (flags 0x0): converting, target=16, soft is off\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left\n"
		"Dumping filters: flags 0x7, state 0x1, force is off\n  DATA (flags 0x0): balancing\n  DATA (flags 0x0): balancing\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left\n"
		"Dumping filters: flags 0x7, state 0x1, force is off\n  BLOBS (flags 0x0): balancing\n",
		"Balance on '" MNT "' is running\n1 out of about 5 chunks balanced (2 considered),  80% left\n"
		"Dumping filters: flags 0x7, state 0x1, force is off\n  DATA (flags 0x0): balancing\033[2K\n",
		"ERROR: balance status on '" MNT "' failed: Operation not permitted\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		BtrfsBalanceStatus s = {.state = BTRFS_BALANCE_PAUSED};
		char *err = NULL;
		int r = btrfs_balance_parse(bad[i], strlen(bad[i]), MNT, &s, &err);
		if (r != -EINVAL)
			fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
		CHECK_INT(r, -EINVAL);
		CHECK(err);
		CHECK_INT(s.state, BTRFS_BALANCE_PAUSED);	/* untouched on failure */
		free(err);
	}
	BtrfsBalanceStatus s;
	char *err = NULL;
	char nul[] = "No balance found on '" MNT "'\0\n";
	CHECK_INT(btrfs_balance_parse(nul, sizeof(nul) - 1, MNT, &s, &err), -EINVAL);
	free(err);
	err = NULL;
	CHECK_INT(btrfs_balance_parse(NULL, 0, MNT, &s, &err), -EINVAL);
	free(err);
	err = NULL;
	_cleanup_free_ char *big = calloc(1, BTRFS_BALANCE_INPUT_MAX + 2);
	memset(big, 'a', BTRFS_BALANCE_INPUT_MAX + 1);
	CHECK_INT(btrfs_balance_parse(big, BTRFS_BALANCE_INPUT_MAX + 1, MNT, &s, &err), -EINVAL);
	free(err);
	/* every cut of a real output: refused, but where a whole line ends it */
	size_t len = 0;
	_cleanup_free_ char *full = slurp("balance-running.txt", &len);
	unsigned ok = 0;
	for (size_t cut = 0; full && cut < len; cut++) {
		err = NULL;
		ok += btrfs_balance_parse(full, cut, MNT, &s, &err) == 0;
		free(err);
	}
	CHECK_INT(ok, 9);	/* each whole line from the counts on, with and without its newline */
}

static void test_show(void)
{
	BtrfsShow s;
	CHECK_INT(parse_show("show-added.txt", &s), 0);
	CHECK_INT(s.n_devs, 3);
	CHECK(!s.missing);
	CHECK_INT(s.devs[2].devid, 3);
	CHECK_NEAR(s.devs[2].size, 4 * GIB, 0);
	CHECK_NEAR(s.devs[2].used, 0, 0);
	CHECK_NEAR(s.devs[0].used, 2451111936.0, 0);
	CHECK_STR(s.devs[2].path, "/dev/loop4");
	CHECK_INT(parse_show("show-balanced.txt", &s), 0);
	CHECK_NEAR(s.devs[2].used, 2 * GIB, 0);
	CHECK_INT(parse_show("show-converted.txt", &s), 0);
	CHECK_INT(s.n_devs, 2);

	const char *missing = "Label: 'a b'  uuid: 5a1b9460-42c7-4f57-851d-54b563ff909a\n\tTotal devices 2 FS bytes used 1\n"
			      "\tdevid    1 size 10 used 5 path /dev/sdb1\n\t*** Some devices missing\n\n";
	char *err = NULL;
	CHECK_INT(btrfs_show_parse(missing, strlen(missing), &s, &err), 0);
	CHECK(s.missing);
	CHECK_INT(s.n_devs, 1);
	const char *bad[] = {
		"",
		"Label: none  uuid: x\n\tTotal devices 1 FS bytes used 1\n",
		"\tdevid    1 size 10 used 5 path /dev/sdb\n",
		"Label: none  uuid: x\n\tdevid    1 size 10.00GiB used 5.00GiB path /dev/sdb\n",
		"Label: none  uuid: x\n\tdevid    1 size 10 used 5 path \n",
		"Label: none  uuid: x\n\tdevid    1 size 10 used 5 path /dev/sdb\nLabel: none  uuid: y\n\tdevid    1 size 10 used 5 path /dev/sdc\n",
		"Label: none  uuid: x\n\tdevid    1 size 10 used 5 path /dev/sdb\nrm -rf /\n",
		"Label: none  uuid: x\n\tdevid    1 size 10 used 5 path /dev/sd\033b\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		err = NULL;
		int r = btrfs_show_parse(bad[i], strlen(bad[i]), &s, &err);
		if (r != -EINVAL)
			fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
		CHECK_INT(r, -EINVAL);
		CHECK(err);
		free(err);
	}
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
	BtrfsBalanceStatus full, convert, filtered;
	BtrfsShow added, balanced;
	CHECK_INT(parse_status("balance-running.txt", &full), 0);
	CHECK_INT(parse_status("balance-convert.txt", &convert), 0);
	CHECK_INT(parse_status("balance-filtered.txt", &filtered), 0);
	CHECK_INT(parse_show("show-added.txt", &added), 0);
	CHECK_INT(parse_show("show-balanced.txt", &balanced), 0);
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
	CHECK_NEAR(l.done, 0, 0);
	/* an old member is at its share already: the balance does not fill it */
	CHECK_INT(btrfs_balance_landing(&full, &balanced, 0, &fs, &l), 0);
	CHECK(!l.receives);
	/* the new device once filled */
	CHECK_INT(btrfs_balance_landing(&full, &balanced, 2, &fs, &l), 0);
	CHECK(!l.receives);
	CHECK_NEAR(l.done, l.total, 1e-6);
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
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "tests/fixtures/btrfs";
	test_status_fixtures();
	test_status_forms();
	test_status_refused();
	test_show();
	test_spread();
	test_landing();
	return test_done("btrfsbalance");
}
