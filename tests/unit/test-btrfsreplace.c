/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `btrfs replace status -1` read from real outputs (tests/fixtures/btrfs,
 * recorded from a replace between loop devices by record.sh there), the
 * states btrfs-progs prints but a short run cannot show (suspended, the
 * loop form's backspaces), and refused when cut or garbled.
 * argv[1]: tests/fixtures/btrfs.
 */
#include <fcntl.h>

#include "btrfsreplace.h"
#include "test.h"
#include "util.h"

static const char *dir;

static int parse_file(const char *name, BtrfsReplaceStatus *ret)
{
	char path[512];
	_cleanup_free_ char *text = NULL, *err = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int r = read_file_at(AT_FDCWD, path, 65536, &text, &len);
	CHECK_INT(r, 0);
	if (r < 0)
		return r;
	r = btrfs_replace_parse(text, len, ret, &err);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", name, err ? err : "?");
	return r;
}

static void test_fixtures(void)
{
	BtrfsReplaceStatus s;
	CHECK_INT(parse_file("never-started.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_REPLACE_NEVER_STARTED);
	CHECK(isnan(s.progress));
	CHECK(isnan(btrfs_replace_duration(&s)));

	CHECK_INT(parse_file("started.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_REPLACE_STARTED);
	CHECK_NEAR(s.progress, 0.438, 1e-12);
	CHECK_INT(s.write_errors, 0);
	CHECK_INT(s.uncorrectable_read_errors, 0);
	CHECK(isnan(btrfs_replace_duration(&s)));	/* the running form gives no start */

	CHECK_INT(parse_file("finished.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_REPLACE_FINISHED);
	CHECK_NEAR(s.progress, 1, 0);
	CHECK_INT(s.started.month, 12);
	CHECK_INT(s.started.day, 5);
	CHECK_INT(s.started.second_of_day, 6 * 3600 + 7 * 60 + 1);
	CHECK_INT(s.stopped.second_of_day, 6 * 3600 + 7 * 60 + 8);
	CHECK_NEAR(btrfs_replace_duration(&s), 7, 0);

	CHECK_INT(parse_file("canceled.txt", &s), 0);
	CHECK_INT(s.state, BTRFS_REPLACE_CANCELED);
	CHECK_NEAR(s.progress, 0, 0);
	CHECK_NEAR(btrfs_replace_duration(&s), 0, 0);
}

/* The polls of one replace, line by line: progress never goes back. */
static void test_sequence(void)
{
	char path[512];
	_cleanup_free_ char *text = NULL;
	snprintf(path, sizeof(path), "%s/sequence.txt", dir);
	CHECK_INT(read_file_at(AT_FDCWD, path, 65536, &text, NULL), 0);
	double last = -1;
	unsigned lines = 0, running = 0;
	for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		BtrfsReplaceStatus s;
		char *err = NULL;
		CHECK_INT(btrfs_replace_parse(l, strlen(l), &s, &err), 0);
		free(err);
		lines++;
		if (s.state == BTRFS_REPLACE_STARTED) {
			running++;
			CHECK(s.progress > last);
			last = s.progress;
		}
	}
	CHECK_INT(lines, 6);
	CHECK_INT(running, 4);
	CHECK_NEAR(last, 0.438, 1e-12);
}

static void test_grammar(void)
{
	BtrfsReplaceStatus s;
	char *err = NULL;
	const char *susp = "Started on 31.Dec 23:59:50, suspended on  1.Jan 00:00:10 at 40.2%, 1 write errs, 2 uncorr. read errs\n";
	CHECK_INT(btrfs_replace_parse(susp, strlen(susp), &s, &err), 0);
	CHECK_INT(s.state, BTRFS_REPLACE_SUSPENDED);
	CHECK_NEAR(s.progress, 0.402, 1e-12);
	CHECK_INT(s.write_errors, 1);
	CHECK_INT(s.uncorrectable_read_errors, 2);
	CHECK_NEAR(btrfs_replace_duration(&s), 20, 0);	/* across the year's end */

	/* without -1: each second's line written over the last with backspaces */
	const char *loop = "0.0% done, 0 write errs, 0 uncorr. read errs\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b"
			   "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b12.5% done, 0 write errs, 0 uncorr. read errs";
	CHECK_INT(btrfs_replace_parse(loop, strlen(loop), &s, &err), 0);
	CHECK_NEAR(s.progress, 0.125, 1e-12);
	CHECK_STR(btrfs_replace_state_to_string(BTRFS_REPLACE_SUSPENDED), "suspended");
	CHECK(!btrfs_replace_state_to_string(_BTRFS_REPLACE_STATE_MAX));
	CHECK(!err);
}

static void test_refused(void)
{
	const char *bad[] = {
		"",
		"\n",
		"Never started, 0 write errs, 0 uncorr. read errs",
		"Never started yet",
		"12.3% done",
		"12.3% done, 0 write errs",
		"12.3% done, 0 write errs, 0 uncorr. read errs, and more",
		"101.0% done, 0 write errs, 0 uncorr. read errs",
		"100.1% done, 0 write errs, 0 uncorr. read errs",
		"12.34% done, 0 write errs, 0 uncorr. read errs",
		"-1.0% done, 0 write errs, 0 uncorr. read errs",
		"12.3% done, 99999999999999999999999 write errs, 0 uncorr. read errs",
		"12.3% done, -1 write errs, 0 uncorr. read errs",
		"12.3% done, 18446744073709551616 write errs, 0 uncorr. read errs",
		"Started on  5.Dec 06:07:01, finished on  5.Dec 06:07, 0 write errs, 0 uncorr. read errs",
		"Started on  5.Dez 06:07:01, finished on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs",
		"Started on 32.Dec 06:07:01, finished on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs",
		"Started on  5.Dec 24:07:01, finished on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs",
		"Started on  5.Dec 06:07:01, exploded on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs",
		"Started on  5.Dec 06:07:01, canceled on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs",
		"Started on  5.Dec 06:07:01, finished on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs\nNever started",
		"ERROR: ioctl(DEV_REPLACE_STATUS) failed on \"/mnt\": Inappropriate ioctl for device",
		"12.3% done, 0 write errs, 0 uncorr. read errs\033[2K",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		BtrfsReplaceStatus s = {.state = BTRFS_REPLACE_FINISHED};
		char *err = NULL;
		int r = btrfs_replace_parse(bad[i], strlen(bad[i]), &s, &err);
		if (r != -EINVAL)
			fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
		CHECK_INT(r, -EINVAL);
		CHECK(err);
		CHECK_INT(s.state, BTRFS_REPLACE_FINISHED);	/* untouched on failure */
		free(err);
	}
	char nul[] = "Never started\0x";
	char *err = NULL;
	BtrfsReplaceStatus s;
	CHECK_INT(btrfs_replace_parse(nul, sizeof(nul) - 1, &s, &err), -EINVAL);
	free(err);
	err = NULL;
	_cleanup_free_ char *big = calloc(1, BTRFS_REPLACE_INPUT_MAX + 2);
	memset(big, 'a', BTRFS_REPLACE_INPUT_MAX + 1);
	CHECK_INT(btrfs_replace_parse(big, BTRFS_REPLACE_INPUT_MAX + 1, &s, &err), -EINVAL);
	free(err);
	err = NULL;
	CHECK_INT(btrfs_replace_parse(NULL, 0, &s, &err), -EINVAL);
	free(err);

	/* every cut of a real line: refused, but the ones that end it whole */
	const char *full = "Started on  5.Dec 06:07:01, finished on  5.Dec 06:07:08, 0 write errs, 0 uncorr. read errs";
	for (size_t cut = 0; cut < strlen(full); cut++) {
		err = NULL;
		CHECK_INT(btrfs_replace_parse(full, cut, &s, &err), -EINVAL);
		free(err);
	}
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "tests/fixtures/btrfs";
	test_fixtures();
	test_sequence();
	test_grammar();
	test_refused();
	return test_done("btrfsreplace");
}
