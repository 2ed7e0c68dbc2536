/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether zed may degrade a disk a rebuild writes onto for slow I/O: when
 * the rebuild guard warned about a disk in a ZFS pool, the pool's vdev tree
 * (`zpool status -P POOL`) and its vdevs' properties (`zpool get -H -p -o
 * name,property,value,source allocated,numchildren,slow_io_n,slow_io_t
 * POOL all-vdevs`) are read by the configured zpool, run as children of
 * the event loop one after the other (never blocking it), each with a
 * bounded time and output, with ZPOOL_VDEV_NAME_PATH=1 and LC_ALL=C. The
 * same reading of a pool gives smrctl rebuild-check what a rebuild into one
 * of its vdevs writes (slowio_pool()). The leaf on the disk is found by
 * resolving each leaf path to its disk (the mapper it was given: by device
 * number, as zed's events are), its setting resolved as zed's kernel side
 * does (core/rebuild/vdevprops.h), and when it can trip the found callback
 * says so. An older zpool (no such properties: it fails), a pool or disk it
 * does not list, a bad output: "not known", logged, never a warning. The
 * last result per disk is kept for smrctl rebuild-check.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "reaper.h"
#include "registry.h"
#include "vdevprops.h"
#include "zpoolstatus.h"

#define SLOWIO_TIMEOUT_USEC (10 * 1000000ULL)	/* each zpool run; killed past it */
#define SLOWIO_QUEUE_MAX 8			/* checks waiting; more are dropped (logged) */
#define SLOWIO_RECHECK_SECONDS 3600.0		/* the same disk and pool is not read again sooner */
#define SLOWIO_RETRY_SECONDS 60.0		/* ... unless it was not known */
#define SLOWIO_KNOWN_MAX 64			/* disks whose last result is kept */
#define SLOWIO_POOLS_MAX 64			/* pools whose last reading is kept */
#define SLOWIO_PROPERTIES "allocated,numchildren,slow_io_n,slow_io_t"

typedef struct SlowIo SlowIo;

typedef enum SlowIoState {
	SLOWIO_NOT_CHECKED,
	SLOWIO_CHECKING,
	SLOWIO_NOT_KNOWN,	/* zpool failed (older than 2.2.4: no such properties), or its output did not say */
	SLOWIO_UNSET,		/* not both set: zed does not diagnose slow I/O on the disk */
	SLOWIO_SAFE,		/* set, but more delay events than ZFS can post within slow_io_t */
	SLOWIO_CAN_TRIP,	/* set so that a destage storm's delays can trip them */
	_SLOWIO_STATE_MAX,
} SlowIoState;

/* The last check of one disk. */
typedef struct SlowIoResult {
	SlowIoState state;
	char pool[ZPOOL_NAME_MAX + 1];
	SlowIoSetting setting;		/* UNSET, SAFE, CAN_TRIP */
	char text[SLOW_IO_TEXT_MAX];	/* CAN_TRIP: the warning; NOT_KNOWN: why */
	double when;			/* CLOCK_REALTIME seconds it ended */
} SlowIoResult;

/* The last reading of one pool. */
typedef struct SlowIoPool {
	char pool[ZPOOL_NAME_MAX + 1];
	SlowIoState state;		/* CHECKING (a reading under way: tree and props the last one's, or NULL),
					 * NOT_KNOWN (why says), UNSET (read) */
	VdevTree *tree;
	VdevProps *props;
	char why[SLOW_IO_TEXT_MAX];
	bool no_pool;			/* NOT_KNOWN because zpool status -P POOL failed: no such pool, or no zpool */
	double when;			/* CLOCK_REALTIME seconds it ended */
} SlowIoPool;

typedef struct SlowIoCallbacks {
	/* The watched disk a vdev path (absolute, under /dev) is on: 0 and
	 * *ret, or -errno (zfsevents_map). */
	int (*map)(const char *path, Disk **ret, void *userdata);
	/* zed may degrade d for slow I/O during the rebuild: r->text says so. */
	void (*found)(Disk *d, const SlowIoResult *r, void *userdata);
	/* A reading of pool p ended (p->state says how), before the disks
	 * waiting for it are judged; may be NULL. */
	void (*pool_read)(const SlowIoPool *p, void *userdata);
	void *userdata;
} SlowIoCallbacks;

/* *zpool: the command as scanwatch_new's (a name looked up in PATH, else a
 * path; reaper as there), read at each run: the configuration's field, which a reload
 * replaces, so that zpool-command applies here as soon as it changes. */
int slowio_new(sd_event *e, Reaper *reaper, char *const *zpool, const SlowIoCallbacks *cb, SlowIo **ret);
/* Kills a zpool still running and reaps it. */
SlowIo *slowio_free(SlowIo *w);
/* Reads pool's settings for disk d, in the background; now in CLOCK_REALTIME
 * seconds. 0 queued; 0 also when the same disk and pool is queued, or was
 * read less than SLOWIO_RECHECK_SECONDS ago (SLOWIO_RETRY_SECONDS when it
 * was not known); -EINVAL not a pool name, -EBUSY
 * the queue is full. */
int slowio_check(SlowIo *w, const Disk *d, const char *pool, double now);
/* The last result for d; NULL none. */
const SlowIoResult *slowio_result(const SlowIo *w, const Disk *d);
/* pool's last reading, a new one started when there is none within the
 * bounds above, nor younger than max_age seconds (INFINITY: the bounds
 * alone); NULL not a pool name, or no room. */
const SlowIoPool *slowio_pool(SlowIo *w, const char *pool, double now, double max_age);
/* What pool's reading p says of the disk major:minor (device its name),
 * saying nothing to anyone: CHECKING while it has none yet. *ret_disk (may
 * be NULL) the watched disk its leaf maps to. */
void slowio_judge(SlowIo *w, const SlowIoPool *p, unsigned major, unsigned minor, const char *device,
		  SlowIoResult *ret, Disk **ret_disk);
/* "not-checked", "checking", "not-known", "unset", "safe", "can-trip". */
const char *slowio_state_to_string(SlowIoState s);
