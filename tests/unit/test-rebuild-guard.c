/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard: who is warned of (DM-SMR, host-aware, storms, an
 * unknown disk never qualified) and who is not (CMR, SSD, a qualified
 * unknown), the expected time from the disk's model, and the sentences a
 * ZFS event is recorded with.
 */
#include "guard.h"
#include "eta.h"

#include <math.h>

#include "test.h"
#include "util.h"

static RebuildFacts facts(DiskClass c)
{
	return (RebuildFacts){.disk_class = c, .basis = "model is on the DM-SMR list", .storm_seconds = NAN,
			      .size_bytes = 4e12, .fast_bps = NAN};
}

static void test_who(void)
{
	RebuildCheck c;
	RebuildFacts f = facts(DISK_CLASS_DM_SMR);
	rebuild_check(&f, &c);
	CHECK(c.warn);
	CHECK_STR(rebuild_risk_to_string(c.risk), "smr");
	CHECK(strstr(c.evidence, "dm-smr (model is on the DM-SMR list)") != NULL);
	CHECK(isnan(c.expected_seconds));	/* no cliff figures: no honest estimate */
	CHECK(strstr(c.advice, "CMR") != NULL);

	f = facts(DISK_CLASS_HOST_AWARE);
	rebuild_check(&f, &c);
	CHECK_INT(c.risk, REBUILD_RISK_SMR);

	f = facts(DISK_CLASS_CMR);
	f.basis = "model is on the CMR list";
	rebuild_check(&f, &c);
	CHECK(!c.warn);
	CHECK_INT(c.risk, REBUILD_RISK_NONE);
	CHECK_NEAR(c.expected_seconds, 4e12 / REBUILD_FAST_BPS_DEFAULT, 1);

	f = facts(DISK_CLASS_SSD);
	f.fast_bps = 500e6;
	rebuild_check(&f, &c);
	CHECK(!c.warn);
	CHECK_NEAR(c.expected_seconds, 8000, 1e-6);

	/* a CMR label, but it destages: the storms decide */
	f = facts(DISK_CLASS_CMR);
	f.storms = 3, f.storm_now = true, f.storm_seconds = 48;
	rebuild_check(&f, &c);
	CHECK_INT(c.risk, REBUILD_RISK_STORMS);
	CHECK(strstr(c.evidence, "3 destage storm(s) on record; in a destage storm for 48 s") != NULL);

	f = facts(DISK_CLASS_UNKNOWN);
	rebuild_check(&f, &c);
	CHECK_INT(c.risk, REBUILD_RISK_UNTESTED);
	CHECK(strstr(c.advice, "smrctl qualify") != NULL);
	f.qualified = true;
	rebuild_check(&f, &c);
	CHECK_INT(c.risk, REBUILD_RISK_NONE);
}

static void test_expected(void)
{
	DiskModel m;
	disk_model_init(&m);
	m.media_cache_bytes = 20e9, m.cache_samples = 2, m.slow_write_bps = 10e6;
	RebuildFacts f = facts(DISK_CLASS_DM_SMR);
	f.model = &m, f.fast_bps = 200e6;
	RebuildCheck c;
	rebuild_check(&f, &c);
	/* the eta module's two regimes: what it says, the guard says */
	CHECK_NEAR(c.expected_seconds, rebuild_expected_seconds(&m, 4e12, 200e6), 1e-6);
	CHECK(c.expected_seconds > 4e12 / 200e6 * 10);
	f.size_bytes = 0;
	rebuild_check(&f, &c);
	CHECK(isnan(c.expected_seconds));
}

static void test_text(void)
{
	char buf[REBUILD_TEXT_MAX];
	ZfsEvent e = {.kind = ZFS_EVENT_DELAY, .has_zio_delay = true, .zio_delay_ns = 31204567890};
	snprintf(e.subclass, sizeof e.subclass, "delay");
	snprintf(e.pool, sizeof e.pool, "tank");
	snprintf(e.vdev_path, sizeof e.vdev_path, "/dev/sdb1");
	zfs_event_text(&e, "sdb", "dm-smr", 48, buf);
	CHECK_STR(buf, "ZFS delay on tank/sdb (an I/O took 31.2 s), a DM-SMR disk in a destage storm for 48 s: "
		       "the storm explains the slow I/O");
	zfs_event_text(&e, "sdb", "dm-smr", NAN, buf);
	CHECK_STR(buf, "ZFS delay on tank/sdb (an I/O took 31.2 s), a DM-SMR disk (no destage storm under way)");
	zfs_event_text(&e, "sdc", "cmr", NAN, buf);
	CHECK_STR(buf, "ZFS delay on tank/sdc (an I/O took 31.2 s)");
	e.kind = ZFS_EVENT_SITOUT, e.has_zio_delay = false;
	snprintf(e.subclass, sizeof e.subclass, "sitout");
	zfs_event_text(&e, "sdc", "cmr", 12, buf);
	CHECK_STR(buf, "ZFS sitout on tank/sdc, a disk in a destage storm for 12 s: the storm explains the slow I/O");
	e = (ZfsEvent){.kind = ZFS_EVENT_RESILVER_START};
	snprintf(e.subclass, sizeof e.subclass, "resilver_start");
	snprintf(e.pool, sizeof e.pool, "tank");
	zfs_event_text(&e, NULL, NULL, NAN, buf);
	CHECK_STR(buf, "ZFS resilver_start on tank");
	e.kind = ZFS_EVENT_STATECHANGE;
	snprintf(e.subclass, sizeof e.subclass, "statechange");
	snprintf(e.vdev_state, sizeof e.vdev_state, "FAULTED");
	zfs_event_text(&e, "sdd", "cmr", NAN, buf);
	CHECK_STR(buf, "ZFS statechange on tank/sdd (now FAULTED)");
	/* a pool name at its longest: cut, terminated */
	memset(e.pool, 'p', ZEVENT_POOL_MAX);
	e.pool[ZEVENT_POOL_MAX] = 0;
	zfs_event_text(&e, "sdd", "cmr", 5, buf);
	CHECK(strlen(buf) == REBUILD_TEXT_MAX - 1);
}

int main(void)
{
	test_who();
	test_expected();
	test_text();
	return test_done("test-rebuild-guard");
}
