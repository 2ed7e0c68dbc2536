/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ZEVENT_* parser on environments as zed builds them (cmd/zed/
 * zed_event.c: payload pairs of zfs_event_create()/zfs_ereport_start(),
 * then IFS, PATH, ZED_*, ZEVENT_SUBCLASS and the ZEVENT_TIME_* strings),
 * and on hostile ones: each is refused whole, with the variable named.
 */
#include "zevent.h"

#include "test.h"
#include "util.h"

/* sysevent.fs.zfs.vdev_attach as zed 2.2 hands it to a zedlet, in its order */
static char *attach_env[] = {
	"ZEVENT_VERSION=0",
	"ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach",
	"ZEVENT_POOL=tank",
	"ZEVENT_POOL_GUID=0x1B3B9DB6E7AC6F4A",
	"ZEVENT_POOL_STATE=0",
	"ZEVENT_POOL_STATE_STR=ACTIVE",
	"ZEVENT_POOL_CONTEXT=0",
	"ZEVENT_VDEV_GUID=0x06F2E3F1A1B2C3D4",
	"ZEVENT_VDEV_STATE=7",
	"ZEVENT_VDEV_STATE_STR=HEALTHY",
	"ZEVENT_VDEV_PATH=/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789-part1",
	"ZEVENT_VDEV_DEVID=ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789-part1",
	"ZEVENT_VDEV_ENC_SYSFS_PATH=/sys/class/enclosure/0:0:1:0/3",
	"ZEVENT_TIME=1733380000 123456789",
	"ZEVENT_EID=21",
	"IFS= \t\n",
	"PATH=/usr/bin:/bin:/usr/sbin:/sbin",
	"ZPOOL=/sbin/zpool",
	"ZFS_ALIAS=zfs-2.2.7-1",
	"ZED_PID=1234",
	"ZED_ZEDLET_DIR=/etc/zfs/zed.d",
	"ZEVENT_SUBCLASS=vdev_attach",
	"ZEVENT_TIME_SECS=1733380000",
	"ZEVENT_TIME_NSECS=123456789",
	"ZEVENT_TIME_STRING=2024-12-05 06:26:40+0000",
	NULL,
};

/* ereport.fs.zfs.delay: an ereport's payload (zfs_ereport_start) */
static char *delay_env[] = {
	"ZEVENT_CLASS=ereport.fs.zfs.delay",
	"ZEVENT_ENA=0x3C1D6BB8A6A00C01",
	"ZEVENT_DETECTOR=_NOT_IMPLEMENTED_",
	"ZEVENT_POOL=tank",
	"ZEVENT_POOL_GUID=0x1B3B9DB6E7AC6F4A",
	"ZEVENT_POOL_STATE=0",
	"ZEVENT_POOL_CONTEXT=0",
	"ZEVENT_POOL_FAILMODE=wait",
	"ZEVENT_VDEV_GUID=0x06F2E3F1A1B2C3D4",
	"ZEVENT_VDEV_TYPE=disk",
	"ZEVENT_VDEV_PATH=/dev/sdb1",
	"ZEVENT_VDEV_ASHIFT=12",
	"ZEVENT_VDEV_COMPLETE_TS=0x000001A2B3C4D5E6",
	"ZEVENT_VDEV_DELTA_TS=0x0000000746A52880",
	"ZEVENT_VDEV_READ_ERRORS=0",
	"ZEVENT_VDEV_WRITE_ERRORS=0",
	"ZEVENT_VDEV_DELAYS=3",
	"ZEVENT_PARENT_GUID=0x5A5A5A5A5A5A5A5A",
	"ZEVENT_PARENT_TYPE=raidz",
	"ZEVENT_ZIO_ERR=0",
	"ZEVENT_ZIO_FLAGS=0x100080",
	"ZEVENT_ZIO_STAGE=0x1000000",
	"ZEVENT_ZIO_PIPELINE=0x1700000",
	"ZEVENT_ZIO_DELAY=31204567890",
	"ZEVENT_ZIO_TIMESTAMP=1234567890123",
	"ZEVENT_ZIO_DELTA=31300000000",
	"ZEVENT_ZIO_PRIORITY=3",
	"ZEVENT_ZIO_OFFSET=1048576",
	"ZEVENT_ZIO_SIZE=131072",
	"ZEVENT_TIME=1733380100 5",
	"ZEVENT_EID=22",
	"ZEVENT_SUBCLASS=delay",
	"ZEVENT_TIME_SECS=1733380100",
	"ZEVENT_TIME_NSECS=5",
	NULL,
};

static void test_zed_envs(void)
{
	ZfsEvent e;
	_cleanup_free_ char *err = NULL;
	CHECK_INT(zevent_parse(attach_env, SIZE_MAX, &e, &err), 0);
	CHECK(err == NULL);
	CHECK_INT(e.kind, ZFS_EVENT_VDEV_ATTACH);
	CHECK_STR(e.class_name, "sysevent.fs.zfs.vdev_attach");
	CHECK_STR(e.subclass, "vdev_attach");
	CHECK_INT(e.eid, 21);
	CHECK_INT(e.time_sec, 1733380000);
	CHECK_INT(e.time_nsec, 123456789);
	CHECK_STR(e.pool, "tank");
	CHECK(e.pool_guid == UINT64_C(0x1B3B9DB6E7AC6F4A));
	CHECK(e.vdev_guid == UINT64_C(0x06F2E3F1A1B2C3D4));
	CHECK_STR(e.vdev_path, "/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12D3456789-part1");
	CHECK_STR(e.vdev_state, "HEALTHY");
	CHECK(!e.has_zio_delay);

	CHECK_INT(zevent_parse(delay_env, ELEMENTSOF(delay_env) - 1, &e, &err), 0);
	CHECK_INT(e.kind, ZFS_EVENT_DELAY);
	CHECK(e.has_zio_delay && e.zio_delay_ns == UINT64_C(31204567890));
	CHECK_STR(e.vdev_path, "/dev/sdb1");
	CHECK_INT(e.time_nsec, 5);

	/* resilver_start names the pool alone; the subclass from the class;
	 * the time from ZEVENT_TIME when the split form is absent */
	char *rs[] = {"ZEVENT_EID=30", "ZEVENT_CLASS=sysevent.fs.zfs.resilver_start", "ZEVENT_POOL=my pool:1.x",
		      "ZEVENT_TIME=1733380200 7", "ZEVENT_RESILVER_TYPE=healing", NULL};
	CHECK_INT(zevent_parse(rs, SIZE_MAX, &e, &err), 0);
	CHECK_INT(e.kind, ZFS_EVENT_RESILVER_START);
	CHECK_STR(e.subclass, "resilver_start");
	CHECK_STR(e.pool, "my pool:1.x");
	CHECK_STR(e.vdev_path, "");
	CHECK_INT(e.time_sec, 1733380200);
	CHECK_INT(e.time_nsec, 7);

	/* every class a shipped zedlet is named for */
	const char *classes[] = {"sysevent.fs.zfs.resilver_finish", "sysevent.fs.zfs.scrub_start",
				 "sysevent.fs.zfs.scrub_finish", "ereport.fs.zfs.deadman", "resource.fs.zfs.statechange",
				 "ereport.fs.zfs.sitout"};
	for (size_t i = 0; i < ELEMENTSOF(classes); i++) {
		char cls[96];
		snprintf(cls, sizeof cls, "ZEVENT_CLASS=%s", classes[i]);
		char *env[] = {"ZEVENT_EID=1", cls, "ZEVENT_POOL=tank", "ZEVENT_TIME_SECS=1", NULL};
		CHECK_INT(zevent_parse(env, SIZE_MAX, &e, &err), 0);
		CHECK_STR(zfs_event_kind_to_string(e.kind), strrchr(classes[i], '.') + 1);
	}
	CHECK(zevent_var_known("ZEVENT_VDEV_PATH") && !zevent_var_known("ZEVENT_VDEV_DEVID") && !zevent_var_known("PATH"));
}

/* Refused with a message naming `what`; ret left as it was. */
static void refused(char **env, const char *what)
{
	ZfsEvent e = {.eid = 4242};
	_cleanup_free_ char *err = NULL;
	CHECK_INT(zevent_parse(env, SIZE_MAX, &e, &err), -EINVAL);
	CHECK(err && strstr(err, what));
	if (!err || !strstr(err, what))
		fprintf(stderr, "  message: %s (wanted %s)\n", err ? err : "(none)", what);
	CHECK_INT(e.eid, 4242);
}

static void test_hostile(void)
{
	char pool300[320] = "ZEVENT_POOL=", path5000[5100] = "ZEVENT_VDEV_PATH=/dev/";
	memset(pool300 + strlen(pool300), 'p', 300);
	memset(path5000 + strlen(path5000), 'x', 5000);
#define EV(...) ((char *[]){"ZEVENT_EID=9", "ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach", "ZEVENT_TIME_SECS=5", \
			    __VA_ARGS__, NULL})
	refused(EV(pool300), "ZEVENT_POOL is longer than 255 bytes");
	refused(EV("ZEVENT_POOL=tank", path5000), "ZEVENT_VDEV_PATH is longer than 255 bytes");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/disk/by-id/my disk"), "ZEVENT_VDEV_PATH holds a character");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/sdb\n/dev/sdc"), "control character");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/$(touch /tmp/pwned)"), "ZEVENT_VDEV_PATH holds");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/sdb;reboot"), "ZEVENT_VDEV_PATH holds");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/`id`"), "ZEVENT_VDEV_PATH holds");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/../etc/shadow"), "not a plain path");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/sdb/.."), "not a plain path");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/etc/passwd"), "not a path under /dev/");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=sdb"), "not a path under /dev/");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_PATH=/dev/"), "not a path under /dev/");
	refused(EV("ZEVENT_POOL=tank$(id)"), "ZEVENT_POOL is not a pool name");
	refused(EV("ZEVENT_POOL=tank\nZEVENT_POOL=x"), "ZEVENT_POOL holds a control character");
	refused(EV("ZEVENT_POOL=t\xc3\xa4nk"), "non-ASCII");
	refused(EV("ZEVENT_POOL=1tank"), "ZEVENT_POOL is not a pool name");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_POOL=other"), "ZEVENT_POOL is given twice");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_GUID=0xZZ"), "ZEVENT_VDEV_GUID is not a GUID");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_GUID=0x11112222333344445"), "ZEVENT_VDEV_GUID is not a GUID");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_ZIO_DELAY=-5"), "ZEVENT_ZIO_DELAY is not a decimal");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_TIME_NSECS=1000000000"), "ZEVENT_TIME_NSECS is not");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_VDEV_STATE_STR=ok; rm"), "ZEVENT_VDEV_STATE_STR is not");
	refused(EV("ZEVENT_POOL=tank", "ZEVENT_SUBCLASS=delay"), "ZEVENT_SUBCLASS is not the last part");
	refused(((char *[]){"ZEVENT_EID=9", "ZEVENT_CLASS=ereport.fs.zfs.checksum", "ZEVENT_POOL=tank",
			    "ZEVENT_TIME_SECS=5", NULL}), "is not an event smrd handles");
	refused(((char *[]){"ZEVENT_EID=9", "ZEVENT_CLASS=Sysevent;x", "ZEVENT_POOL=tank", "ZEVENT_TIME_SECS=5", NULL}),
		"ZEVENT_CLASS is not an event class");
	refused(((char *[]){"ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach", "ZEVENT_POOL=tank", "ZEVENT_TIME_SECS=5", NULL}),
		"ZEVENT_EID is not set");
	refused(((char *[]){"ZEVENT_EID=1", "ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach", "ZEVENT_TIME_SECS=5", NULL}),
		"ZEVENT_POOL is not set");
	refused(((char *[]){"ZEVENT_EID=1", "ZEVENT_CLASS=sysevent.fs.zfs.vdev_attach", "ZEVENT_POOL=t", NULL}),
		"ZEVENT_TIME");
	refused(((char *[]){NULL}), "ZEVENT_EID is not set");
#undef EV
	/* the path rule alone, as the daemon applies it again */
	CHECK(zevent_path_problem("/dev/disk/by-path/pci-0000:00:1f.2-ata-1.0-part1") == NULL);
	CHECK(zevent_path_problem("/dev/disk/by-id/wwn-0x50014ee2b1c2d3e4") == NULL);
	CHECK(zevent_path_problem("/dev/disk/by-partlabel/zfs\\x20data") == NULL);
	CHECK(zevent_path_problem("/dev//sdb") != NULL);
	CHECK(zevent_path_problem("/dev/./sdb") != NULL);
	CHECK(zfs_event_kind_from_string("bogus") == _ZFS_EVENT_KIND_INVALID);
	CHECK(zfs_event_kind_to_string(_ZFS_EVENT_KIND_MAX) == NULL);
}

int main(void)
{
	test_zed_envs();
	test_hostile();
	return test_done("test-zevent");
}
