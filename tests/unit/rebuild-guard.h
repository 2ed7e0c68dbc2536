/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard as the daemon wires it (rebuildwatch.c), for the
 * rebuild tests: its own event loop (never run: no zpool is asked) and a
 * zpool-command that is not there; the callbacks zfsevents and rebuilds
 * call it through.
 */
#pragma once

#include <math.h>
#include <systemd/sd-event.h>

#include "rebuildguard.h"
#include "test.h"

typedef struct TestGuard {
	sd_event *e;
	char *zpool;
	RebuildGuard *g;
} TestGuard;

static inline void test_guard_new(TestGuard *t, DiskRegistry *r, Recorder *rec, DevMap *m)
{
	*t = (TestGuard){.zpool = "zpool-is-not-run-by-this-test"};
	CHECK(sd_event_new(&t->e) >= 0);
	CHECK_INT(rebuildguard_new(t->e, r, rec, m, NULL, &t->zpool, &t->g), 0);
}

static inline void test_guard_free(TestGuard *t)
{
	t->g = rebuildguard_free(t->g);
	t->e = sd_event_unref(t->e);
}

/* zfsevents' vdev_attach: userdata a TestGuard */
static inline bool test_guard_attached(Disk *d, const char *source, const char *path, const char *pool,
				       uint64_t when_usec, uint64_t now_real_usec, RebuildCheck *check,
				       char warning[static REBUILD_TEXT_MAX], void *userdata)
{
	TestGuard *t = userdata;
	return rebuildguard_warn(t->g, d, source, path, pool, NAN, when_usec, now_real_usec, check, warning);
}
