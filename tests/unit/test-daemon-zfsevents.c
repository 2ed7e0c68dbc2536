/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ZFS event module on its own trees: a /dev with by-id links and
 * device nodes (mknod: this needs root, as the suite does), a /sys in
 * which a partition's parent names its whole disk. A link to a partition
 * maps to the disk by device number; a link out of /dev, a character
 * device, a missing or unwatched one are refused and nothing is recorded.
 * On vdev_attach the DM-SMR disk gets a rebuild-warning event, through the
 * one event path the notifier listens on; the CMR disk does not. An event
 * zed delivers again (its EID and time: zed replays its queue) is recorded
 * once, also after a restart; another attach of the same disk warns no
 * more.
 */
#include "zfsevents.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "rebuild-guard.h"
#include "test.h"
#include "util.h"

typedef struct Heard {
	unsigned n[_EVENT_KIND_MAX];
	char last[32];
} Heard;

static void on_event(Disk *d, const Recorded *r, void *userdata)
{
	Heard *heard = userdata;
	if (!r->event)
		return;
	heard->n[r->kind]++;
	snprintf(heard->last, sizeof heard->last, "%s", d->name);
}

static void put(const char *root, const char *path, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, path);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void tree(const char *t)
{
	char p[512];
	const char *dirs[] = {"dev", "dev/disk", "dev/disk/by-id", "sys", "sys/dev", "sys/dev/block", "sys/devices",
			      "sys/devices/sdb", "sys/devices/sdb/sdb1", "sys/devices/sdc", "sys/devices/sdd", "db",
			      "outside"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
	/* sdb 8:16 (its partition sdb1 259:7, as loop and nvme partitions
	 * number), sdc 8:32, sdd 8:48 (not watched) */
	struct { const char *name; unsigned ma, mi; mode_t type; } nodes[] = {
		{"sdb", 8, 16, S_IFBLK}, {"sdb1", 259, 7, S_IFBLK}, {"sdc", 8, 32, S_IFBLK}, {"sdd", 8, 48, S_IFBLK},
		{"null", 1, 3, S_IFCHR}, {"../outside/sdb", 8, 16, S_IFBLK},
	};
	for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
		snprintf(p, sizeof p, "%s/dev/%s", t, nodes[i].name);
		CHECK(mknod(p, nodes[i].type | 0600, makedev(nodes[i].ma, nodes[i].mi)) == 0);
	}
	put(t, "sys/devices/sdb/dev", "8:16\n");
	put(t, "sys/devices/sdb/sdb1/dev", "259:7\n");
	put(t, "sys/devices/sdb/sdb1/partition", "1\n");
	put(t, "sys/devices/sdc/dev", "8:32\n");
	put(t, "sys/devices/sdd/dev", "8:48\n");
	const char *links[][2] = {
		{"../../devices/sdb", "sys/dev/block/8:16"}, {"../../devices/sdb/sdb1", "sys/dev/block/259:7"},
		{"../../devices/sdc", "sys/dev/block/8:32"}, {"../../devices/sdd", "sys/dev/block/8:48"},
		{"../../sdb1", "dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-X1-part1"},
		{"../../sdc", "dev/disk/by-id/ata-TOSHIBA_HDWD120_C1"},
		{"/etc/passwd", "dev/disk/by-id/evil"}, {"../../../sys/devices/sdb", "dev/disk/by-id/out"},
		/* sdb's device number, but a node outside /dev: anyone's */
		{"../../../outside/sdb", "dev/disk/by-id/outblk"},
	};
	for (size_t i = 0; i < ELEMENTSOF(links); i++) {
		snprintf(p, sizeof p, "%s/%s", t, links[i][1]);
		CHECK(symlink(links[i][0], p) == 0);
	}
}

static void add_disk(DiskRegistry *r, const char *name, unsigned mi, DiskClass c)
{
	Disk d = {0}, *got = NULL;
	snprintf(d.name, sizeof d.name, "%s", name);
	snprintf(d.sys.serial, sizeof d.sys.serial, "S-%s", name);
	d.sys.major = 8, d.sys.minor = mi, d.sys.size_sectors = 7814037168;
	d.tuning.media_cache = NAN;
	d.verdict.class = c;
	snprintf(d.verdict.basis, sizeof d.verdict.basis, "model list");
	diskview_init(&d.view);
	CHECK_INT(registry_add(r, &d, &got), 0);
}

/* zed numbers its events: eid, each at its own time */
static ZfsEvent attach(const char *path, uint64_t eid)
{
	ZfsEvent e = {.kind = ZFS_EVENT_VDEV_ATTACH, .eid = eid, .time_sec = 1733380000 + (int64_t)eid};
	snprintf(e.subclass, sizeof e.subclass, "vdev_attach");
	snprintf(e.pool, sizeof e.pool, "tank");
	snprintf(e.vdev_path, sizeof e.vdev_path, "%s", path);
	return e;
}

static int count_events(const HistoryEvent *e, void *userdata)
{
	(*(unsigned *)userdata)++;
	(void)e;
	return 0;
}

static void test_map_and_guard(const char *t)
{
	char dev[512], sys[512], db[512];
	snprintf(dev, sizeof dev, "%s/dev", t), snprintf(sys, sizeof sys, "%s/sys", t), snprintf(db, sizeof db, "%s/db", t);
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, DISK_CLASS_DM_SMR);
	add_disk(r, "sdc", 32, DISK_CLASS_CMR);
	History *h = NULL;
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &h, &herr) >= 0 && h);
	Heard heard = {0};
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	RecorderCallbacks cb = {.heard = on_event, .userdata = &heard};
	Recorder *rec = NULL;
	CHECK_INT(recorder_new(h, &cfg, r, &cb, &rec), 0);
	ZfsEvents *z = NULL;
	int sysfd = open(sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DevMap *m = NULL;
	CHECK_INT(devmap_new(r, sysfd, -1, dev, &m), 0);
	close(sysfd);
	TestGuard guard;
	test_guard_new(&guard, r, rec, m);
	ZfsEventsCallbacks zcb = {.attached = test_guard_attached, .userdata = &guard};
	CHECK_INT(zfsevents_new(r, rec, m, &zcb, &z), 0);

	Disk *d = NULL;
	CHECK_INT(devmap_disk(m, "/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-X1-part1", true, &d), 0);
	CHECK(d && streq(d->name, "sdb"));
	CHECK_INT(devmap_disk(m, "/dev/sdb1", true, &d), 0);
	CHECK(d && streq(d->name, "sdb"));
	CHECK_INT(devmap_disk(m, "/dev/disk/by-id/ata-TOSHIBA_HDWD120_C1", true, &d), 0);
	CHECK(d && streq(d->name, "sdc"));
	d = NULL;
	CHECK_INT(devmap_disk(m, "/dev/sdd", true, &d), -ENXIO);
	CHECK_INT(devmap_disk(m, "/dev/null", true, &d), -ENOTBLK);
	CHECK_INT(devmap_disk(m, "/dev/disk/by-id/evil", true, &d), -ENOTBLK);
	CHECK_INT(devmap_disk(m, "/dev/disk/by-id/out", true, &d), -ENOTBLK);
	CHECK_INT(devmap_disk(m, "/dev/disk/by-id/outblk", true, &d), -ENOTBLK);
	CHECK_INT(devmap_disk(m, "/dev/sdz", true, &d), -ENOENT);
	CHECK_INT(devmap_disk(m, "/dev/../etc/passwd", true, &d), -EINVAL);
	CHECK(d == NULL);

	ZfsEventResult res;
	_cleanup_free_ char *err = NULL;
	ZfsEvent e = attach("/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-X1-part1", 7);
	CHECK_INT(zfsevents_handle(z, &e, 1733380001000000, &res, &err), 0);
	CHECK_STR(res.device, "sdb");
	CHECK(res.warned && res.check.risk == REBUILD_RISK_SMR);
	CHECK(strstr(res.warning, "ZFS pool tank is rebuilding onto sdb (serial S-sdb, "
				  "/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-X1-part1): at most 3.6T to write, expected ") != NULL);
	/* no pool figures read yet: the whole disk at most, a range from the published DM-SMR shapes */
	CHECK(strstr(res.warning, "(published figures): dm-smr") != NULL);
	CHECK_INT(heard.n[EVENT_REBUILD_START], 1);
	CHECK_INT(heard.n[EVENT_REBUILD_WARNING], 1);

	e = attach("/dev/disk/by-id/ata-TOSHIBA_HDWD120_C1", 8);
	CHECK_INT(zfsevents_handle(z, &e, 1733380002000000, &res, &err), 0);
	CHECK_STR(res.device, "sdc");
	CHECK(!res.warned);
	CHECK_INT(heard.n[EVENT_REBUILD_START], 2);
	CHECK_INT(heard.n[EVENT_REBUILD_WARNING], 1);

	e = attach("/dev/sdd", 9);
	CHECK_INT(zfsevents_handle(z, &e, 1733380003000000, &res, &err), -ENXIO);
	CHECK(err && strstr(err, "vdev /dev/sdd is not on a disk smrd watches: event 9 not recorded"));
	CHECK_INT(heard.n[EVENT_REBUILD_START], 2);

	/* a pool's own event: recorded on no disk */
	e = (ZfsEvent){.kind = ZFS_EVENT_SCRUB_START, .eid = 10};
	snprintf(e.subclass, sizeof e.subclass, "scrub_start");
	snprintf(e.pool, sizeof e.pool, "tank");
	CHECK_INT(zfsevents_handle(z, &e, 1733380004000000, &res, &err), 0);
	CHECK_STR(res.device, "");
	CHECK_STR(res.message, "ZFS scrub_start on tank");
	CHECK_INT(heard.n[EVENT_REBUILD_START], 2);	/* the notifier hears of disks only */

	unsigned n = 0;
	HistoryFilter f = {.kind = "rebuild-start"};
	history_query(h, &f, count_events, &n);
	CHECK_INT(n, 3);
	n = 0;
	f = (HistoryFilter){.kind = "rebuild-warning", .device = "sdb"};
	history_query(h, &f, count_events, &n);
	CHECK_INT(n, 1);

	/* zed delivers the first attach again (EID 7 at its time): nothing
	 * recorded, nothing heard; after a restart (a new recorder on the same
	 * history) neither */
	e = attach("/dev/sdb1", 7);
	CHECK_INT(zfsevents_handle(z, &e, 1733380005000000, &res, &err), 0);
	CHECK(res.duplicate && !res.warned);
	CHECK_INT(heard.n[EVENT_REBUILD_START], 2);
	zfsevents_free(z);
	test_guard_free(&guard);
	recorder_free(rec);
	CHECK_INT(recorder_new(h, &cfg, r, &cb, &rec), 0);
	test_guard_new(&guard, r, rec, m);
	CHECK_INT(zfsevents_new(r, rec, m, &zcb, &z), 0);
	CHECK_INT(zfsevents_handle(z, &e, 1733380006000000, &res, &err), 0);
	CHECK(res.duplicate);
	/* another attach of sdb (another EID): recorded, but its rebuild has
	 * its warning already, in the history */
	e = attach("/dev/sdb1", 11);
	CHECK_INT(zfsevents_handle(z, &e, 1733380007000000, &res, &err), 0);
	CHECK(!res.duplicate && res.warned);
	CHECK_INT(heard.n[EVENT_REBUILD_START], 3);
	CHECK_INT(heard.n[EVENT_REBUILD_WARNING], 1);
	CHECK_INT(recorder_total(rec, EVENT_REBUILD_START), 1);
	CHECK_INT(recorder_total(rec, EVENT_REBUILD_WARNING), 0);

	zfsevents_free(z);
	test_guard_free(&guard);
	recorder_free(rec);
	devmap_free(m);
	history_close(h);
	config_done(&cfg);
	registry_free(r);
}

int main(void)
{
	if (geteuid() != 0)
		return test_unavailable("root", "test-daemon-zfsevents: needs root (mknod)");
	char t[] = "/tmp/test-zfsevents.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	tree(t);
	test_map_and_guard(t);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-zfsevents");
}
