/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A ZFS event as zed hands it to a zedlet: the ZEVENT_* environment
 * (cmd/zed/zed_event.c: every payload name upper-cased and prefixed, a
 * uint64 as decimal or, for a *_guid, "0x%.16llX"), read into one struct
 * (pure). The strings are untrusted: bounded, printable, a pool name as
 * ZFS allows it, a vdev path absolute under /dev; anything else is refused
 * whole, with a message. smrctl zevent and smrd parse with the same code.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZEVENT_POOL_MAX 255		/* ZFS_MAX_DATASET_NAME_LEN - 1 */
#define ZEVENT_PATH_MAX 255		/* a /dev link: udev names stay far below */
#define ZEVENT_CLASS_MAX 63		/* zfs_event_create()'s class[64] */
#define ZEVENT_STATE_MAX 15		/* "DEGRADED", "UNAVAIL", ... */
#define ZEVENT_ENV_MAX 512		/* environment entries looked at */

/* The events smrd acts on, by subclass (the class's last part). */
typedef enum ZfsEventKind {
	ZFS_EVENT_VDEV_ATTACH,		/* sysevent: zpool attach/replace, the new disk as the vdev */
	ZFS_EVENT_RESILVER_START,
	ZFS_EVENT_RESILVER_FINISH,
	ZFS_EVENT_SCRUB_START,
	ZFS_EVENT_SCRUB_FINISH,
	ZFS_EVENT_DELAY,		/* ereport: an I/O slower than zio_slow_io_ms */
	ZFS_EVENT_DEADMAN,		/* ereport: an I/O hung */
	ZFS_EVENT_STATECHANGE,		/* resource: a vdev's state changed */
	ZFS_EVENT_SITOUT,		/* ereport (2.4): a RAIDZ child sat out of reads for being slow */
	_ZFS_EVENT_KIND_MAX,
	_ZFS_EVENT_KIND_INVALID = -EINVAL,
} ZfsEventKind;

typedef struct ZfsEvent {
	ZfsEventKind kind;
	char class_name[ZEVENT_CLASS_MAX + 1];	/* sysevent.fs.zfs.vdev_attach */
	char subclass[ZEVENT_CLASS_MAX + 1];	/* vdev_attach */
	uint64_t eid;
	int64_t time_sec;			/* CLOCK_REALTIME, when ZFS posted it */
	uint32_t time_nsec;
	char pool[ZEVENT_POOL_MAX + 1];
	uint64_t pool_guid;			/* 0: not given */
	char vdev_path[ZEVENT_PATH_MAX + 1];	/* "" not given */
	uint64_t vdev_guid;			/* 0: not given */
	bool has_zio_delay;
	uint64_t zio_delay_ns;			/* delay: block-layer time of the slow I/O */
	char vdev_state[ZEVENT_STATE_MAX + 1];	/* ZEVENT_VDEV_STATE_STR; "" not given */
} ZfsEvent;

/* "vdev_attach", ...; NULL outside the enum. */
const char *zfs_event_kind_to_string(ZfsEventKind k);
ZfsEventKind zfs_event_kind_from_string(const char *s);
/* True for the names zevent_parse reads (the rest of zed's environment is
 * not smrd's business: smrctl sends only these). */
bool zevent_var_known(const char *name);
/* Reads env (NAME=VALUE strings, n of them, or NULL-terminated when n is
 * SIZE_MAX) into *ret. Required: ZEVENT_EID, ZEVENT_CLASS, ZEVENT_POOL and
 * the time (ZEVENT_TIME_SECS, or ZEVENT_TIME "secs nsecs"). 0, or -EINVAL
 * with *ret_error (caller frees) saying which variable and why; *ret is
 * then untouched. */
int zevent_parse(char *const *env, size_t n, ZfsEvent *ret, char **ret_error);
/* Checks a vdev path as zevent_parse does: absolute under /dev/, no "..",
 * no white space or shell metacharacter, at most ZEVENT_PATH_MAX. NULL
 * when fine, else why not (a constant). */
const char *zevent_path_problem(const char *path);
