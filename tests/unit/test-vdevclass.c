/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vdev user properties zfs-annotate writes: names vdevprops(7) takes,
 * the values written, `zpool get -H -o value` read back (and output of any
 * other shape refused), and when a value changed enough to be written.
 */
#include "test.h"
#include "util.h"
#include "vdevclass.h"
#include "zpoolstatus.h"

static void test_names(void)
{
	CHECK(vdev_user_prop_ok(VDEV_CLASS_PROP));
	CHECK(vdev_user_prop_ok(VDEV_CONFIDENCE_PROP));
	static const char *const bad[] = {"", "class", "-org.smrd:class", "Org.smrd:class", "org.smrd:class name",
					  "org.smrd:class=x", "org/smrd:class"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		CHECK(!vdev_user_prop_ok(bad[i]));
	char longest[258];
	memset(longest, 'a', 257);
	longest[0] = ':';
	longest[257] = 0;
	CHECK(!vdev_user_prop_ok(longest));
	longest[256] = 0;
	CHECK(vdev_user_prop_ok(longest));

	CHECK(zpool_name_ok("tank") && zpool_name_ok("my pool.2_a-b:c"));
	CHECK(!zpool_name_ok("-o") && !zpool_name_ok("") && !zpool_name_ok("2tank") && !zpool_name_ok(NULL) &&
	      !zpool_name_ok("tank/x"));
}

static void test_values(void)
{
	VdevClass v, have;
	vdev_class_of(DISK_CLASS_DM_SMR, 0.854, &v);
	CHECK_STR(v.class, "dm-smr");
	CHECK_STR(v.confidence, "0.85");
	vdev_class_of(DISK_CLASS_CMR, 7, &v);
	CHECK_STR(v.confidence, "1.00");

	const char unset[] = "-\n-\n", set[] = "dm-smr\n0.85\n";
	CHECK_INT(vdev_class_parse(unset, sizeof unset - 1, &have), 0);
	CHECK(!have.class[0] && !have.confidence[0]);
	CHECK_INT(vdev_class_parse(set, sizeof set - 1, &have), 0);
	CHECK_STR(have.class, "dm-smr");
	CHECK_STR(have.confidence, "0.85");
	static const char *const bad[] = {"", "dm-smr\n", "dm-smr\n0.85", "dm-smr\n0.85\nx\n", "dm smr\n0.85\n",
					  "\n0.85\n", "dm-smr\n\x01\n", "averyveryverylongclassname\n0.85\n"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		CHECK_INT(vdev_class_parse(bad[i], strlen(bad[i]), &have), -EINVAL);
		CHECK(!have.class[0] && !have.confidence[0]);
	}

	/* what is written again */
	VdevClass want;
	vdev_class_of(DISK_CLASS_DM_SMR, 0.85, &want);
	CHECK_INT(vdev_class_parse(set, sizeof set - 1, &have), 0);
	CHECK(!vdev_class_differs(&have, &want) && !vdev_confidence_differs(&have, &want));
	vdev_class_of(DISK_CLASS_DM_SMR, 0.94, &want);
	CHECK(!vdev_confidence_differs(&have, &want));
	vdev_class_of(DISK_CLASS_DM_SMR, 0.95, &want);
	CHECK(vdev_confidence_differs(&have, &want));
	vdev_class_of(DISK_CLASS_CMR, 0.85, &want);
	CHECK(vdev_class_differs(&have, &want) && !vdev_confidence_differs(&have, &want));
	CHECK_INT(vdev_class_parse(unset, sizeof unset - 1, &have), 0);
	CHECK(vdev_class_differs(&have, &want) && vdev_confidence_differs(&have, &want));
	const char other[] = "dm-smr\nhigh\n";	/* another tool's value: overwritten */
	CHECK_INT(vdev_class_parse(other, sizeof other - 1, &have), 0);
	CHECK(vdev_confidence_differs(&have, &want));
}

int main(void)
{
	test_names();
	test_values();
	return test_done("test-vdevclass");
}
