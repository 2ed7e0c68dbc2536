/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a disk belongs to (pure): a ZFS pool, an md array, an LVM volume
 * group, a bcache set, a btrfs filesystem, from the signatures on the disk
 * and its partitions (udev's ID_FS_* properties, or libblkid's where udev
 * has none) and the devices holding them (holders/: mdN, dm-N with its
 * dm/name, bcacheN). "Which pool is hurting" is the first question when a
 * disk storms.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum MemberType {
	MEMBER_ZFS,
	MEMBER_MD,
	MEMBER_LVM,
	MEMBER_BCACHE,
	MEMBER_BTRFS,
	_MEMBER_TYPE_MAX,
} MemberType;

#define MEMBER_STR 64
#define MEMBER_HOLDERS 4
#define MEMBERSHIP_MAX 4

/* One block device's signature: the disk itself or one of its partitions. */
typedef struct MemberSignature {
	char device[32];		/* sdc, sdc1 */
	char fs_type[32];		/* ID_FS_TYPE: zfs_member, linux_raid_member, LVM2_member, bcache, btrfs */
	char label[MEMBER_STR];		/* ID_FS_LABEL: the pool, "host:array", the btrfs label */
	char uuid[MEMBER_STR];		/* ID_FS_UUID: pool GUID, array UUID, PV UUID */
	char uuid_sub[MEMBER_STR];	/* ID_FS_UUID_SUB: vdev GUID, md member UUID */
	unsigned n_holders;
	char holders[MEMBER_HOLDERS][32];	/* md0, dm-3, bcache0 */
	char holder_names[MEMBER_HOLDERS][MEMBER_STR];	/* dm/name of a dm holder ("vg0-home"), else "" */
} MemberSignature;

typedef struct Membership {
	MemberType type;
	char name[MEMBER_STR];		/* the pool, array, volume group, set, filesystem */
	char via[32];			/* the device carrying it: sdc, sdc1 */
	char detail[MEMBER_STR + 16];	/* the vdev GUID, holder, or why the name is a UUID */
	char vdev_guid[24];		/* ZFS: the leaf vdev's GUID (decimal, as zpool takes it for VDEV), "" if unknown */
} Membership;

typedef struct Memberships {
	unsigned n;
	Membership m[MEMBERSHIP_MAX];
} Memberships;

const char *member_type_to_string(MemberType t);
/* True and fills ret when the signature makes its device a member of something. */
bool membership_from_signature(const MemberSignature *s, Membership *ret);
/* Adds m unless a membership of the same type and name is there (a ZFS
 * disk carries its label on partition 1 and sometimes a stale one on the
 * disk: one pool). False when full. */
bool memberships_add(Memberships *ms, const Membership *m);
/* "zfs:tank,md:md0" (or "" for none), for a table column. */
void memberships_format(const Memberships *ms, char *buf, size_t n);
/* The volume group of a device-mapper name: "vg0-home" -> "vg0",
 * "my--vg-lv" -> "my-vg" (dm doubles the dashes inside names). */
bool membership_vg_from_dm_name(const char *dm_name, char *buf, size_t n);
