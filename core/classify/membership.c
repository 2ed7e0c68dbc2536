/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "membership.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const type_names[_MEMBER_TYPE_MAX] = {
	[MEMBER_ZFS] = "zfs", [MEMBER_MD] = "md", [MEMBER_LVM] = "lvm", [MEMBER_BCACHE] = "bcache", [MEMBER_BTRFS] = "btrfs",
};

const char *member_type_to_string(MemberType t)
{
	return t >= 0 && t < _MEMBER_TYPE_MAX ? type_names[t] : "?";
}

bool membership_vg_from_dm_name(const char *dm_name, char *buf, size_t n)
{
	size_t o = 0;
	if (n == 0)
		return false;
	for (const char *p = dm_name; *p; p++) {
		if (*p == '-') {
			if (p[1] != '-')
				break;		/* the separator */
			p++;			/* "--" is one dash of the name */
		}
		if (o + 1 >= n)
			return false;
		buf[o++] = *p;
	}
	buf[o] = 0;
	return o > 0;
}

/* The holder of a kind ("md", "bcache", "dm-"), or -1. */
static int holder_of(const MemberSignature *s, const char *prefix)
{
	for (unsigned i = 0; i < s->n_holders && i < MEMBER_HOLDERS; i++)
		if (startswith(s->holders[i], prefix))
			return (int)i;
	return -1;
}

static void set(char *dst, const char *src) { snprintf(dst, MEMBER_STR, "%s", src); }

bool membership_from_signature(const MemberSignature *s, Membership *ret)
{
	Membership m = {0};
	snprintf(m.via, sizeof m.via, "%s", s->device);
	int h;
	if (streq(s->fs_type, "zfs_member")) {
		/* the label is the pool's name; the UUID its GUID, the sub-UUID the vdev's */
		m.type = MEMBER_ZFS;
		set(m.name, *s->label ? s->label : s->uuid);
		if (*s->uuid_sub)
			snprintf(m.detail, sizeof m.detail, "vdev %s", s->uuid_sub);
		/* libblkid writes the GUID in decimal; anything else is not one */
		size_t n = strlen(s->uuid_sub);
		if (n > 0 && n < sizeof m.vdev_guid && strspn(s->uuid_sub, "0123456789") == n)
			memcpy(m.vdev_guid, s->uuid_sub, n + 1);
	} else if (streq(s->fs_type, "linux_raid_member")) {
		/* the array as /proc/mdstat names it when assembled; else
		 * the name it was created with ("host:name") */
		m.type = MEMBER_MD;
		if ((h = holder_of(s, "md")) >= 0) {
			set(m.name, s->holders[h]);
			if (*s->label)
				snprintf(m.detail, sizeof m.detail, "array %s", s->label);
		} else {
			const char *colon = strchr(s->label, ':');
			set(m.name, colon && colon[1] ? colon + 1 : *s->label ? s->label : s->uuid);
			set(m.detail, "not assembled");
		}
	} else if (streq(s->fs_type, "LVM2_member")) {
		/* the volume group is in the PV's metadata, not its signature:
		 * known from an active logical volume's dm name */
		m.type = MEMBER_LVM;
		h = holder_of(s, "dm-");
		if (h < 0 || !membership_vg_from_dm_name(s->holder_names[h], m.name, sizeof m.name)) {
			set(m.name, s->uuid);
			set(m.detail, "no active volume: the name is the PV's UUID");
		}
	} else if (streq(s->fs_type, "bcache")) {
		m.type = MEMBER_BCACHE;
		h = holder_of(s, "bcache");
		set(m.name, h >= 0 ? s->holders[h] : s->uuid);
	} else if (streq(s->fs_type, "btrfs")) {
		m.type = MEMBER_BTRFS;
		set(m.name, *s->label ? s->label : s->uuid);
	} else {
		return false;
	}
	if (!*m.name)
		return false;
	*ret = m;
	return true;
}

bool memberships_add(Memberships *ms, const Membership *m)
{
	for (unsigned i = 0; i < ms->n; i++)
		if (ms->m[i].type == m->type && streq(ms->m[i].name, m->name))
			return true;
	if (ms->n >= MEMBERSHIP_MAX)
		return false;
	ms->m[ms->n++] = *m;
	return true;
}

void memberships_format(const Memberships *ms, char *buf, size_t n)
{
	size_t o = 0;
	if (n)
		buf[0] = 0;
	for (unsigned i = 0; i < ms->n && o < n; i++) {
		int k = snprintf(buf + o, n - o, "%s%s:%s", i ? "," : "", member_type_to_string(ms->m[i].type),
				 ms->m[i].name);
		if (k < 0)
			break;
		o += (size_t)k;
	}
}
