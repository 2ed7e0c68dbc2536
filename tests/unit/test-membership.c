/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Membership from signatures (pure): the ID_FS_* values udev and libblkid
 * give ZFS, md, LVM, bcache and btrfs members, with and without the device
 * holding them, and the table column.
 */
#include <string.h>

#include "membership.h"
#include "test.h"

static MemberSignature sig(const char *dev, const char *type, const char *label, const char *uuid)
{
	MemberSignature s = {0};
	snprintf(s.device, sizeof s.device, "%s", dev);
	snprintf(s.fs_type, sizeof s.fs_type, "%s", type);
	snprintf(s.label, sizeof s.label, "%s", label);
	snprintf(s.uuid, sizeof s.uuid, "%s", uuid);
	return s;
}

static void hold(MemberSignature *s, const char *holder, const char *dm_name)
{
	snprintf(s->holders[s->n_holders], sizeof s->holders[0], "%s", holder);
	snprintf(s->holder_names[s->n_holders++], sizeof s->holder_names[0], "%s", dm_name);
}

static void test_types(void)
{
	Membership m;
	MemberSignature s = sig("sdc1", "zfs_member", "tank", "13376641094713441734");
	snprintf(s.uuid_sub, sizeof s.uuid_sub, "9000000000000000002");
	CHECK(membership_from_signature(&s, &m));
	CHECK_INT(m.type, MEMBER_ZFS);
	CHECK_STR(m.name, "tank");
	CHECK_STR(m.via, "sdc1");
	CHECK_STR(m.detail, "vdev 9000000000000000002");
	s = sig("sdc1", "zfs_member", "", "13376641094713441734");	/* an exported pool with no label read */
	CHECK(membership_from_signature(&s, &m));
	CHECK_STR(m.name, "13376641094713441734");

	s = sig("sdg1", "linux_raid_member", "nas:0", "2e5a5f4c");
	hold(&s, "md127", "");
	CHECK(membership_from_signature(&s, &m));
	CHECK_INT(m.type, MEMBER_MD);
	CHECK_STR(m.name, "md127");
	CHECK_STR(m.detail, "array nas:0");
	s = sig("sdg1", "linux_raid_member", "nas:backup", "2e5a5f4c");	/* not assembled */
	CHECK(membership_from_signature(&s, &m));
	CHECK_STR(m.name, "backup");
	CHECK_STR(m.detail, "not assembled");

	s = sig("sdi", "LVM2_member", "", "Hk3x9Q-abcd");
	hold(&s, "dm-0", "vg--data-home");
	CHECK(membership_from_signature(&s, &m));
	CHECK_INT(m.type, MEMBER_LVM);
	CHECK_STR(m.name, "vg-data");
	s = sig("sdi", "LVM2_member", "", "Hk3x9Q-abcd");		/* no active volume */
	CHECK(membership_from_signature(&s, &m));
	CHECK_STR(m.name, "Hk3x9Q-abcd");
	CHECK(strstr(m.detail, "UUID") != NULL);

	s = sig("sdj", "bcache", "", "b7e0");
	hold(&s, "bcache0", "");
	CHECK(membership_from_signature(&s, &m));
	CHECK_INT(m.type, MEMBER_BCACHE);
	CHECK_STR(m.name, "bcache0");

	s = sig("sdk", "btrfs", "media", "5d2c");
	CHECK(membership_from_signature(&s, &m));
	CHECK_INT(m.type, MEMBER_BTRFS);
	CHECK_STR(m.name, "media");

	/* not memberships: a filesystem, nothing, a member with no name at all */
	s = sig("sdl1", "ext4", "root", "abcd");
	CHECK(!membership_from_signature(&s, &m));
	s = sig("sdl", "", "", "");
	CHECK(!membership_from_signature(&s, &m));
	s = sig("sdl", "zfs_member", "", "");
	CHECK(!membership_from_signature(&s, &m));
}

static void test_vg_names(void)
{
	char b[64];
	CHECK(membership_vg_from_dm_name("vg0-home", b, sizeof b));
	CHECK_STR(b, "vg0");
	CHECK(membership_vg_from_dm_name("my--vg-lv--1", b, sizeof b));
	CHECK_STR(b, "my-vg");
	CHECK(membership_vg_from_dm_name("plain", b, sizeof b));	/* a dm device that is no LV */
	CHECK_STR(b, "plain");
	CHECK(!membership_vg_from_dm_name("-lv", b, sizeof b));
	CHECK(!membership_vg_from_dm_name("abcdefgh-x", b, 4));	/* does not fit */
}

static void test_set(void)
{
	Memberships ms = {0};
	Membership tank = {.type = MEMBER_ZFS, .name = "tank", .via = "sda1"};
	Membership again = {.type = MEMBER_ZFS, .name = "tank", .via = "sda"};	/* a stale label on the disk */
	Membership vg = {.type = MEMBER_LVM, .name = "vg0", .via = "sda9"};
	char buf[64];
	memberships_format(&ms, buf, sizeof buf);
	CHECK_STR(buf, "");
	CHECK(memberships_add(&ms, &tank));
	CHECK(memberships_add(&ms, &again));
	CHECK_INT(ms.n, 1);
	CHECK(memberships_add(&ms, &vg));
	memberships_format(&ms, buf, sizeof buf);
	CHECK_STR(buf, "zfs:tank,lvm:vg0");
	for (int i = 0; i < MEMBERSHIP_MAX; i++) {
		Membership x = {.type = MEMBER_BTRFS};
		snprintf(x.name, sizeof x.name, "fs%d", i);
		memberships_add(&ms, &x);
	}
	CHECK_INT(ms.n, MEMBERSHIP_MAX);
	Membership one_more = {.type = MEMBER_MD, .name = "md9"};
	CHECK(!memberships_add(&ms, &one_more));
	CHECK_STR(member_type_to_string(MEMBER_BCACHE), "bcache");
	CHECK_STR(member_type_to_string(_MEMBER_TYPE_MAX), "?");
}

int main(void)
{
	test_types();
	test_vg_names();
	test_set();
	return test_done("membership");
}
