/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether zed may degrade a disk for slow I/O during a rebuild (pure).
 * Since OpenZFS 2.2.4 and 2.3.0 (PR #15469) zed's diagnosis engine
 * degrades a leaf vdev after slow_io_n delay events (I/Os slower than
 * zio_slow_io_ms) within slow_io_t seconds, but only where both vdev
 * properties are set: there is no default (vdevprops(7); zfs_diagnosis.c
 * makes the SERD engine only when the ereport carries both). The kernel
 * puts in each delay ereport the leaf's own value, else its parent's, up
 * to the root (vdev_prop_get_inherited() in module/zfs/zfs_fm.c), each
 * property on its own. Two outputs are read, both run with
 * ZPOOL_VDEV_NAME_PATH=1 so that a leaf is named by its full path in both:
 *   - the tree: the config block of `zpool status -P POOL` (indentation is
 *     depth; print_status_config() in cmd/zpool/zpool_main.c);
 *   - the values: `zpool get -H -p -o name,property,value,source
 *     allocated,numchildren,slow_io_n,slow_io_t POOL all-vdevs` (one line
 *     per vdev and property, tab-separated; "-" unset; the root vdev named
 *     root-0); allocated and numchildren also say what a rebuild onto a
 *     new leaf of a top-level vdev writes (vdev_leaf_share()).
 * An older zpool has no such properties and fails: the caller says "not
 * known", never a warning. Input is untrusted: bounded, refused with a
 * message. tests/fixtures/zpool/ holds the outputs, with their sources.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VDEV_PROPS_INPUT_MAX (4u << 20)	/* bytes of either output read */
#define VDEV_PROPS_LINE_MAX 4096
#define VDEV_NAME_MAX 1023		/* a vdev's name: a path when ZPOOL_VDEV_NAME_PATH is set */
#define VDEV_TREE_MAX 4096		/* vdevs of one pool, and vdevs zpool get lists */
#define SLOW_IO_UNSET UINT64_MAX	/* the properties' default: "-", not set */
/* zfs_slow_io_events_per_second's default (module/zfs/vdev.c): ZFS posts
 * at most this many delay ereports a second for one vdev. */
#define SLOW_IO_EVENTS_PER_SECOND 20
#define SLOW_IO_TEXT_MAX 320

typedef struct VdevNode {
	char *name;			/* as printed: a path, "mirror-0", "replacing-1" */
	unsigned depth;			/* 0: the pool itself, or a class heading (logs, cache, spares) */
	int parent;			/* index of its parent; -1 at depth 0 (the root vdev, root-0) */
	bool leaf;			/* nothing below it */
	bool resilvering;		/* "(resilvering)" after its counters */
} VdevNode;

typedef struct VdevTree {
	VdevNode *nodes;		/* in zpool's order */
	size_t n, cap;
} VdevTree;

typedef struct VdevProp {
	char *name;			/* root-0 for the root */
	uint64_t n, t;			/* SLOW_IO_UNSET: not set on this vdev */
	bool has_n, has_t;		/* a line for it was read */
	uint64_t allocated;		/* bytes; SLOW_IO_UNSET: no line */
	uint64_t children;		/* numchildren; SLOW_IO_UNSET: no line */
} VdevProp;

typedef struct VdevProps {
	VdevProp *v;
	size_t n, cap;
} VdevProps;

/* What zed would use for one leaf. */
typedef struct SlowIoSetting {
	uint64_t n, t;			/* SLOW_IO_UNSET where neither the leaf nor a parent sets it */
	char n_from[VDEV_NAME_MAX + 1];	/* the vdev each came from ("" unset) */
	char t_from[VDEV_NAME_MAX + 1];
	bool armed;			/* both set: zed diagnoses slow I/O on this leaf */
	bool can_trip;			/* armed, and ZFS can post n delay events within t seconds */
} SlowIoSetting;

/* The config block of pool `pool` in `zpool status` text. 0 and *ret
 * (vdev_tree_free it); -EINVAL with *ret_error (free it) on output it
 * cannot read or no such pool, -E2BIG over the bounds, -ENOMEM. */
int vdev_tree_parse(const char *text, size_t len, const char *pool, VdevTree **ret, char **ret_error);
VdevTree *vdev_tree_free(VdevTree *t);

/* zpool get -H -p -o name,property,value,source
 * allocated,numchildren,slow_io_n,slow_io_t POOL all-vdevs. Lines of
 * other properties are skipped. 0 and *ret (vdev_props_free it); -EINVAL
 * with *ret_error on output it cannot read, -E2BIG, -ENOMEM. */
int vdev_props_parse(const char *text, size_t len, VdevProps **ret, char **ret_error);
VdevProps *vdev_props_free(VdevProps *p);
/* The vdev named so, NULL when absent. */
const VdevProp *vdev_props_find(const VdevProps *p, const char *name);

/* How a top-level vdev keeps its data, by the name zpool gives it. */
typedef enum VdevLayout {
	VDEV_LAYOUT_SINGLE,		/* a disk alone: no redundancy */
	VDEV_LAYOUT_MIRROR,
	VDEV_LAYOUT_RAIDZ,
	VDEV_LAYOUT_DRAID,
	_VDEV_LAYOUT_MAX,
	_VDEV_LAYOUT_INVALID = -EINVAL,
} VdevLayout;

/* "single", "mirror", "raidz", "draid"; NULL outside the enum. */
const char *vdev_layout_to_string(VdevLayout l);
/* The top-level vdevs of the tree's pool (a leaf or a mirror, raidz, draid
 * right under the pool; not logs, cache, spares), in zpool's order, each
 * the index of its node; *n their count. Fills at most max. */
size_t vdev_tree_tops(const VdevTree *t, size_t *ret, size_t max);
/* The top-level vdev node i is in (i itself when it is one); -1 none. */
int vdev_tree_top_of(const VdevTree *t, size_t i);
/* What a new leaf of top-level vdev `top` takes in a rebuild: a mirror's
 * or a single disk's allocated bytes whole, a raidz's or draid's shared
 * among its children (parity included: allocated counts it), from p; its
 * layout in *layout. NaN when p does not say. */
double vdev_leaf_share(const VdevTree *t, size_t top, const VdevProps *p, VdevLayout *layout);

/* Whether zed's SERD engine of n events in t seconds can fire on the delay
 * ereports of one vdev: ZFS posts at most SLOW_IO_EVENTS_PER_SECOND a
 * second, so n of them take at least (n - 1) / rate seconds. */
bool slow_io_can_trip(uint64_t n, uint64_t t);
/* The setting zed uses for tree leaf `leaf`, resolved as the kernel does
 * (each property from the nearest vdev that sets it, leaf first). -ENOENT
 * (*ret_error says) when the leaf or one of its parents has no line in p,
 * or both properties of one of them are missing: not known. */
int slow_io_resolve(const VdevTree *t, size_t leaf, const VdevProps *p, SlowIoSetting *ret, char **ret_error);
/* The warning for an armed setting that can trip, about `device` in pool
 * `pool`: what is set where, what zed may do, what to change. */
void slow_io_text(const SlowIoSetting *s, const char *pool, const char *device, char buf[static SLOW_IO_TEXT_MAX]);
