/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrd's class as OpenZFS vdev user properties (OpenZFS 2.2 and later;
 * vdevprops(7)), so that `zpool get` and every ZFS tool see it: what is
 * written (the class and the SMR confidence, as text), what `zpool get`
 * says is there, and whether it changed enough to be written again. Pure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "classify.h"

/* vdevprops(7), "User Properties": a colon, lowercase letters, digits and
 * ":-._", at most 256 characters, no leading dash; a reversed domain for
 * the module part. */
#define VDEV_CLASS_PROP "org.smrd:class"
#define VDEV_CONFIDENCE_PROP "org.smrd:smr_confidence"
/* A confidence is written again once it moved this much: behaviour moves
 * it a little every sample, and each `zpool set` is a line of the pool's
 * history. */
#define VDEV_CONFIDENCE_STEP 0.1
#define VDEV_GET_MAX 4096	/* bytes of `zpool get` output read: two short lines */

typedef struct VdevClass {
	char class[16];		/* "dm-smr"; "" not set ("-") */
	char confidence[8];	/* "0.85"; "" not set */
} VdevClass;

/* Whether name is a user property name vdevprops(7) takes. */
bool vdev_user_prop_ok(const char *name);
/* The values smrd writes for a disk of class c and SMR confidence smr. */
void vdev_class_of(DiskClass c, double smr, VdevClass *ret);
/* `zpool get -H -o value org.smrd:class,org.smrd:smr_confidence POOL VDEV`:
 * one value a line, in that order, "-" for unset. 0, or -EINVAL for output
 * of another shape (*ret then says nothing is set). */
int vdev_class_parse(const char *out, size_t len, VdevClass *ret);
/* What to write over have to make it want: the class when it differs,
 * the confidence when it is unset, unreadable or VDEV_CONFIDENCE_STEP off. */
bool vdev_class_differs(const VdevClass *have, const VdevClass *want);
bool vdev_confidence_differs(const VdevClass *have, const VdevClass *want);
