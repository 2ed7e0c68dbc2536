/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs replace or balance read from sysfs (core/rebuild/btrfssysfs.h):
 * exclusive_operation's every value as fs/btrfs/sysfs.c prints it, refused
 * when garbled; the replace and balance states an unprivileged smrd takes
 * from it and from devinfo/0.
 */
#include <math.h>

#include "btrfssysfs.h"
#include "test.h"
#include "util.h"

static void test_exclop(void)
{
	static const struct {
		const char *text;
		BtrfsExclOp op;
	} good[] = {
		{"none\n", BTRFS_EXCLOP_NONE}, {"balance\n", BTRFS_EXCLOP_BALANCE},
		{"balance paused\n", BTRFS_EXCLOP_BALANCE_PAUSED}, {"device add\n", BTRFS_EXCLOP_DEV_ADD},
		{"device remove\n", BTRFS_EXCLOP_DEV_REMOVE}, {"device replace\n", BTRFS_EXCLOP_DEV_REPLACE},
		{"resize\n", BTRFS_EXCLOP_RESIZE}, {"swap activate\n", BTRFS_EXCLOP_SWAP_ACTIVATE},
		{"device replace", BTRFS_EXCLOP_DEV_REPLACE},	/* read_line_at() strips the newline */
	};
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		BtrfsExclOp op;
		CHECK_INT(btrfs_exclop_parse(good[i].text, &op), 0);
		CHECK_INT(op, good[i].op);
		CHECK(btrfs_exclop_to_string(op) != NULL);
	}
	static const char *const bad[] = {"", "\n", "balance\n\n", "none ", " none", "BALANCE", "device", "device replace\nx",
					  "balance paused please", "\xff\xfe"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		BtrfsExclOp op = BTRFS_EXCLOP_NONE;
		CHECK_INT(btrfs_exclop_parse(bad[i], &op), -EINVAL);
		CHECK_INT(op, _BTRFS_EXCLOP_INVALID);
	}
	BtrfsExclOp op = BTRFS_EXCLOP_NONE;
	CHECK_INT(btrfs_exclop_parse(NULL, &op), -EINVAL);
	CHECK_INT(op, _BTRFS_EXCLOP_INVALID);
	CHECK(btrfs_exclop_to_string(_BTRFS_EXCLOP_MAX) == NULL);
	CHECK(btrfs_exclop_to_string(_BTRFS_EXCLOP_INVALID) == NULL);
}

static void test_replace(void)
{
	BtrfsReplaceStatus s;
	/* nothing under way, none followed: never started, whatever else runs */
	btrfs_replace_from_sysfs(BTRFS_EXCLOP_NONE, false, false, false, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_NEVER_STARTED);
	btrfs_replace_from_sysfs(BTRFS_EXCLOP_BALANCE, false, false, true, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_NEVER_STARTED);
	btrfs_replace_from_sysfs(_BTRFS_EXCLOP_INVALID, false, false, false, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_NEVER_STARTED);
	/* under way: either sign alone (devinfo/0 comes before the operation
	 * is marked, and goes before it is cleared), or a kernel before 5.10 */
	BtrfsExclOp ops[] = {BTRFS_EXCLOP_DEV_REPLACE, BTRFS_EXCLOP_NONE, _BTRFS_EXCLOP_INVALID};
	bool listed[] = {false, true, true};
	for (size_t i = 0; i < ELEMENTSOF(ops); i++) {
		btrfs_replace_from_sysfs(ops[i], listed[i], i == 0, false, &s);
		CHECK_INT(s.state, BTRFS_REPLACE_STARTED);
		CHECK_NEAR(s.progress, 0, 0);
		CHECK(isnan(s.started));	/* no time: the first reading stands for it */
		CHECK(isnan(btrfs_replace_duration(&s)));
	}
	/* ended, followed: the target kept (it took the source's devid) or gone */
	btrfs_replace_from_sysfs(BTRFS_EXCLOP_NONE, false, true, true, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_FINISHED);
	CHECK_NEAR(s.progress, 1, 0);
	btrfs_replace_from_sysfs(BTRFS_EXCLOP_NONE, false, true, false, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_CANCELED);
	btrfs_replace_from_sysfs(_BTRFS_EXCLOP_INVALID, false, true, false, &s);
	CHECK_INT(s.state, BTRFS_REPLACE_CANCELED);
}

static void test_balance(void)
{
	BtrfsBalanceStatus b;
	CHECK_INT(btrfs_balance_from_sysfs(BTRFS_EXCLOP_BALANCE, &b), 0);
	CHECK_INT(b.state, BTRFS_BALANCE_RUNNING);
	CHECK(b.uncounted && !btrfs_balance_narrowed(&b));
	CHECK_INT(btrfs_balance_from_sysfs(BTRFS_EXCLOP_BALANCE_PAUSED, &b), 0);
	CHECK_INT(b.state, BTRFS_BALANCE_PAUSED);
	BtrfsExclOp none[] = {BTRFS_EXCLOP_NONE, BTRFS_EXCLOP_DEV_ADD, BTRFS_EXCLOP_DEV_REPLACE, BTRFS_EXCLOP_RESIZE};
	for (size_t i = 0; i < ELEMENTSOF(none); i++) {
		CHECK_INT(btrfs_balance_from_sysfs(none[i], &b), 0);
		CHECK_INT(b.state, BTRFS_BALANCE_NONE);
	}
	/* unknown: nothing can be said (a followed balance is not ended by it) */
	CHECK_INT(btrfs_balance_from_sysfs(_BTRFS_EXCLOP_INVALID, &b), -EINVAL);
	CHECK_INT(btrfs_balance_from_sysfs(_BTRFS_EXCLOP_MAX, &b), -EINVAL);
}

int main(void)
{
	test_exclop();
	test_replace();
	test_balance();
	return test_done("test-btrfssysfs");
}
