/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl rebuild-check's answer as the daemon builds it (rebuildguard.c),
 * against a zpool that prints the recorded and assembled outputs of
 * tests/fixtures/zpool (each with its source): what a disk joining the
 * mirror of status-P-replacing.txt, or the degraded RAIDZ1 of
 * status-P-raidz-degraded.txt, would write (the mirror's allocated bytes,
 * the raidz's over its four disks), where that came from, the advice for
 * the DM-SMR disk and the CMR one; "waiting" while zpool runs; a pool zpool
 * does not know and a vdev the pool does not have are errors, as is a name
 * zpool would take for an option. zed's attach of the DM-SMR disk into the
 * mirror: its warning held until a reading of the pool that has the disk
 * ends, then recorded naming what it writes (the mirror's allocated
 * bytes, not the disk's size), before zed's slow I/O warning; recorded
 * once. The fixture's leaf resolves to the
 * DM-SMR disk through a by-id link in a /dev of the test's own (mknod:
 * root, as the suite is).
 * argv[1]: the source root.
 */
#include "rebuildguard.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "format.h"
#include "test.h"
#include "util.h"

#define NEW "ata-ST5000LM000-2AN170_WCJ13R2Q-part1"	/* the leaf resilvered in status-P-replacing.txt */
#define MIRROR_ALLOCATED 984621252608.0			/* mirror-0's in get-slowio-mirror.txt */
#define RAIDZ_ALLOCATED 7937099612160.0			/* raidz1-0's in get-raidz-degraded.txt, over 4 disks */

static const char *root;

typedef struct Heard {
	unsigned warnings;
	char first[320], second[320];
} Heard;

static void on_event(Disk *d, const Recorded *r, void *userdata)
{
	Heard *heard = userdata;
	(void)d;
	if (r->kind != EVENT_REBUILD_WARNING || !r->event)
		return;
	if (++heard->warnings <= 2)
		snprintf(heard->warnings == 1 ? heard->first : heard->second, sizeof heard->first, "%s", r->event->message);
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	CHECK(chmod(path, 0755) == 0);
}

/* /dev with sdb (8:16, its partition sdb1 259:7 the fixture's new leaf) and sdc (8:32); /sys to match */
static void tree(const char *t)
{
	char p[600];
	const char *dirs[] = {"dev", "dev/disk", "dev/disk/by-id", "sys", "sys/dev", "sys/dev/block", "sys/devices",
			      "sys/devices/sdb", "sys/devices/sdb/sdb1", "sys/devices/sdc"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
	struct { const char *name; unsigned ma, mi; } nodes[] = {{"sdb", 8, 16}, {"sdb1", 259, 7}, {"sdc", 8, 32}};
	for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
		snprintf(p, sizeof p, "%s/dev/%s", t, nodes[i].name);
		CHECK(mknod(p, S_IFBLK | 0600, makedev(nodes[i].ma, nodes[i].mi)) == 0);
	}
	const char *files[][2] = {{"sys/devices/sdb/dev", "8:16\n"}, {"sys/devices/sdb/sdb1/dev", "259:7\n"},
				  {"sys/devices/sdb/sdb1/partition", "1\n"}, {"sys/devices/sdc/dev", "8:32\n"}};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(p, sizeof p, "%s/%s", t, files[i][0]);
		FILE *f = fopen(p, "w");
		CHECK(f && fputs(files[i][1], f) >= 0);
		if (f)
			fclose(f);
	}
	const char *links[][2] = {
		{"../../devices/sdb", "sys/dev/block/8:16"}, {"../../devices/sdb/sdb1", "sys/dev/block/259:7"},
		{"../../devices/sdc", "sys/dev/block/8:32"}, {"../../sdb1", "dev/disk/by-id/" NEW},
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
	d.sys.major = 8, d.sys.minor = mi, d.sys.size_sectors = 9767541168;	/* 5 TB, the fixture's disks */
	d.tuning.media_cache = d.tuning.rebuild_rate = NAN;
	d.verdict.class = c;
	snprintf(d.verdict.basis, sizeof d.verdict.basis, "model list");
	diskview_init(&d.view);
	CHECK_INT(registry_add(r, &d, &got), 0);
}

/* rebuild-check until zpool's figures are in (15 s at most): its return */
static int check_until(sd_event *e, RebuildGuard *g, Disk *d, const char *target, RebuildCheckAnswer *a, char **err)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	for (;;) {
		free(*err);
		*err = NULL;
		int r = rebuildguard_check(g, d, target, now_usec(CLOCK_REALTIME), a, err);
		if (r < 0 || !a->waiting || now_usec(CLOCK_MONOTONIC) > until)
			return r;
		CHECK(sd_event_run(e, 100000) >= 0);
	}
}

static const ForecastAdvice *advice(const RebuildCheckAnswer *a, const char *word)
{
	for (unsigned i = 0; i < a->forecast.n_advice; i++)
		if (strstr(a->forecast.advice[i].text, word))
			return &a->forecast.advice[i];
	return NULL;
}

static void test_answers(sd_event *e, RebuildGuard *g, DiskRegistry *r, const Heard *heard)
{
	Disk *smr = registry_get(r, "sdb"), *cmr = registry_get(r, "sdc");
	RebuildCheckAnswer a;
	_cleanup_free_ char *err = NULL;
	CHECK(smr && cmr);
	if (!smr || !cmr)
		return;

	/* sdb carries dpool's label (blkid's zfs_member): its own pool too */
	Memberships ms = {.n = 1};
	ms.m[0].type = MEMBER_ZFS;
	snprintf(ms.m[0].name, sizeof ms.m[0].name, "dpool");
	CHECK_INT(disk_set_members(smr, &ms), 0);
	/* the first ask starts zpool; the answer says it waits */
	CHECK_INT(rebuildguard_check(g, smr, "dpool", now_usec(CLOCK_REALTIME), &a, &err), 0);
	CHECK(a.waiting);
	CHECK_INT(check_until(e, g, smr, "dpool", &a, &err), 0);
	CHECK(!a.waiting);
	/* the DM-SMR disk is the mirror's new leaf: it takes mirror-0's allocated bytes */
	CHECK_STR(a.where, "ZFS pool dpool");
	CHECK_STR(a.vdev, "mirror-0");
	CHECK(a.forecast.bytes == MIRROR_ALLOCATED);
	CHECK(strstr(a.forecast.bytes_from, "mirror-0's share of mirror-0") != NULL);
	CHECK_INT(a.forecast.figures, REBUILD_FIGURES_PUBLISHED);
	CHECK(a.forecast.low > 0 && a.forecast.high > a.forecast.low);
	CHECK(advice(&a, "zpool set slow_io_events=off dpool VDEV") && advice(&a, "slow_io_events=off")->warns);
	CHECK(advice(&a, "zpool replace -s"));
	CHECK(a.forecast.warn);
	/* zed may trip on it in its own pool: said in the answer, no warning recorded (no rebuild runs) */
	CHECK_STR(a.slow_io_pool, "dpool");
	CHECK_INT(a.slow_io.state, SLOWIO_CAN_TRIP);
	CHECK(strstr(a.slow_io.text, "slow_io_n=5 slow_io_t=60 on mirror-0: zed may degrade sdb") != NULL);
	CHECK_INT(heard->warnings, 0);

	/* the CMR disk, not in the pool: the same share; zed's diagnosis said, no warning */
	CHECK_INT(check_until(e, g, cmr, "dpool", &a, &err), 0);
	CHECK(a.forecast.bytes == MIRROR_ALLOCATED);
	CHECK(advice(&a, "seldom delays I/O") && !advice(&a, "seldom delays I/O")->warns);
	CHECK(!a.forecast.warn);
	CHECK_NEAR(a.forecast.expected, MIRROR_ALLOCATED / REBUILD_FAST_BPS_DEFAULT, 1e-6);

	/* the RAIDZ1: a quarter of raidz1-0's, named or not */
	CHECK_INT(check_until(e, g, smr, "rzpool", &a, &err), 0);
	CHECK_STR(a.vdev, "raidz1-0");
	CHECK(a.forecast.bytes == RAIDZ_ALLOCATED / 4);
	CHECK(advice(&a, "resilvers only by healing") && advice(&a, "resilvers only by healing")->warns);
	CHECK(advice(&a, "keep slow_io_n and slow_io_t unset"));
	CHECK(a.forecast.warn);
	CHECK_INT(check_until(e, g, cmr, "rzpool/raidz1-0", &a, &err), 0);
	CHECK(a.forecast.bytes == RAIDZ_ALLOCATED / 4);
	CHECK(!a.forecast.warn);

	/* errors: a vdev the pool lacks, a pool zpool does not know, a name zpool would take for an option */
	CHECK_INT(check_until(e, g, smr, "rzpool/mirror-7", &a, &err), -EINVAL);
	CHECK(err && strstr(err, "pool rzpool has no vdev mirror-7"));
	CHECK_INT(check_until(e, g, smr, "nopool", &a, &err), -ENOENT);
	CHECK(err && strstr(err, "no ZFS pool nopool as zpool sees it") && strstr(err, "exit 1"));
	CHECK_INT(check_until(e, g, smr, "-o", &a, &err), -EINVAL);
	CHECK(err && strstr(err, "not a ZFS pool name"));
	/* no target: the whole disk at most */
	CHECK_INT(check_until(e, g, smr, NULL, &a, &err), 0);
	CHECK(a.forecast.bytes == 9767541168.0 * 512);
	CHECK(strstr(a.forecast.bytes_from, "name the pool or file system") != NULL);
}

/* zed's vdev_attach of sdb into dpool, through its by-id link */
static void test_attach(sd_event *e, RebuildGuard *g, DiskRegistry *r, Heard *heard)
{
	Disk *smr = registry_get(r, "sdb");
	RebuildCheck check;
	char warning[REBUILD_TEXT_MAX];
	uint64_t now = now_usec(CLOCK_REALTIME);
	if (!smr)
		return;
	*heard = (Heard){0};
	/* the pool read before (rebuild-check) is read again: the disk is in it only since the attach */
	CHECK(rebuildguard_warn(g, smr, "ZFS pool dpool", "/dev/disk/by-id/" NEW, "dpool", NAN, now + 1000000, now + 1000000,
				&check, warning));
	CHECK(check.warn && check.risk == REBUILD_RISK_SMR);
	CHECK(strstr(warning, "ZFS pool dpool is rebuilding onto sdb (serial S-sdb, /dev/disk/by-id/" NEW "): what it "
			      "writes is being read from zpool (smrctl rebuild-check sdb dpool says it") != NULL);
	CHECK_INT(heard->warnings, 0);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	while (heard->warnings < 2 && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(heard->warnings, 2);
	char sz[FORMAT_MAX];
	char want[200];
	snprintf(want, sizeof want, ": %s to write, expected ", format_size(sz, MIRROR_ALLOCATED));
	CHECK(strstr(heard->first, want) != NULL);
	CHECK(strstr(heard->first, "published figures") != NULL);
	CHECK(strstr(heard->second, "slow_io_n=5 slow_io_t=60 on mirror-0") != NULL);
	/* zed's replay of it: warned of already, nothing recorded */
	CHECK(rebuildguard_warn(g, smr, "ZFS pool dpool", "/dev/disk/by-id/" NEW, "dpool", NAN, now + 1000000,
				now + 2000000, &check, warning));
	for (int i = 0; i < 5; i++)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(heard->warnings, 2);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-rebuildguard SOURCE_ROOT\n");
		return 1;
	}
	root = argv[1];
	if (geteuid() != 0)
		return test_unavailable("root", "test-daemon-rebuildguard: needs root (mknod)");
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	CHECK(sigprocmask(SIG_BLOCK, &ss, NULL) == 0);
	char t[] = "/tmp/test-rebuildguard.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	tree(t);
	char zpool_path[600], body[2048], dev[600], sys[600];
	snprintf(zpool_path, sizeof zpool_path, "%s/zpool", t);
	/* zpool as the fixtures have it; any other pool: zpool's own answer */
	snprintf(body, sizeof body,
		 "F='%s/tests/fixtures/zpool'\n"
		 "[ \"$ZPOOL_VDEV_NAME_PATH\" = 1 ] && [ \"$LC_ALL\" = C ] || exit 8\n"
		 "G='get -H -p -o name,property,value,source " SLOWIO_PROPERTIES "'\n"
		 "case \"$*\" in\n"
		 "\"status -P dpool\") exec cat \"$F/status-P-replacing.txt\";;\n"
		 "\"$G dpool all-vdevs\") exec cat \"$F/get-slowio-mirror.txt\";;\n"
		 "\"status -P rzpool\") exec cat \"$F/status-P-raidz-degraded.txt\";;\n"
		 "\"$G rzpool all-vdevs\") exec cat \"$F/get-raidz-degraded.txt\";;\n"
		 "\"status -P \"*) echo \"cannot open '$3': no such pool\" >&2; exit 1;;\n"
		 "*) exit 9;;\nesac",
		 root);
	script(zpool_path, body);
	snprintf(dev, sizeof dev, "%s/dev", t), snprintf(sys, sizeof sys, "%s/sys", t);
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, DISK_CLASS_DM_SMR);
	add_disk(r, "sdc", 32, DISK_CLASS_CMR);
	int sysfd = open(sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DevMap *m = NULL;
	CHECK_INT(devmap_new(r, sysfd, -1, dev, &m), 0);
	close(sysfd);
	sd_event *e = NULL;
	CHECK(sd_event_new(&e) >= 0);
	char db[600];
	snprintf(db, sizeof db, "%s/db", t);
	CHECK(mkdir(db, 0755) == 0);
	History *h = NULL;
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &h, &herr) >= 0 && h);
	Heard heard = {0};
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	RecorderCallbacks cb = {.heard = on_event, .userdata = &heard};
	Recorder *rec = NULL;
	CHECK_INT(recorder_new(h, &cfg, r, &cb, &rec), 0);
	char *zpool = zpool_path;
	RebuildGuard *g = NULL;
	CHECK_INT(rebuildguard_new(e, r, rec, m, NULL, &zpool, &g), 0);
	if (g && m) {
		test_answers(e, g, r, &heard);
		test_attach(e, g, r, &heard);
	}
	rebuildguard_free(g);
	recorder_free(rec);
	history_close(h);
	config_done(&cfg);
	devmap_free(m);
	registry_free(r);
	sd_event_unref(e);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-rebuildguard");
}
