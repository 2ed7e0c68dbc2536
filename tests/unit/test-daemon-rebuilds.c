/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuilds onto watched disks from zpool's readings (the fixtures of
 * tests/fixtures/zpool): a resilvering leaf is mapped to the disk by the
 * vdev GUID of its ZFS membership, else by its path (JSON) or its name
 * (text) resolved under a test's /dev with the real mapper
 * (zfsevents_map: device nodes by mknod, so root, as the suite runs); a
 * name that is no plain file name, or a link out of /dev, maps to nothing.
 * The sequence resilver, resilvered starts the disk's rebuild and ends it
 * with one rebuild-done event in the history.
 */
#include "rebuilds.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "events.h"
#include "rebuild-views.h"
#include "rebuild-guard.h"
#include "rebuild-heard.h"
#include "test.h"
#include "util.h"
#include "zfsevents.h"

static const char *root;

static void tree(const char *t)
{
	char p[512];
	const char *dirs[] = {"dev", "dev/disk", "dev/disk/by-id", "sys", "sys/dev", "sys/dev/block", "sys/devices",
			      "sys/devices/sdb", "sys/devices/sdb/sdb1", "db"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
	snprintf(p, sizeof p, "%s/dev/sdb", t);
	CHECK(mknod(p, S_IFBLK | 0600, makedev(8, 16)) == 0);
	snprintf(p, sizeof p, "%s/dev/sdb1", t);
	CHECK(mknod(p, S_IFBLK | 0600, makedev(259, 7)) == 0);
	const char *files[][2] = {{"sys/devices/sdb/dev", "8:16\n"}, {"sys/devices/sdb/sdb1/dev", "259:7\n"},
				  {"sys/devices/sdb/sdb1/partition", "1\n"}};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(p, sizeof p, "%s/%s", t, files[i][0]);
		FILE *f = fopen(p, "w");
		CHECK(f != NULL);
		if (f)
			fputs(files[i][1], f), fclose(f);
	}
	const char *links[][2] = {
		{"../../devices/sdb", "sys/dev/block/8:16"}, {"../../devices/sdb/sdb1", "sys/dev/block/259:7"},
		/* the fixtures' resilvering leaf, as JSON (a partition) and text (the disk) name it */
		{"../../sdb1", "dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1"},
		{"../../sdb", "dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q"},
		{"/etc/passwd", "dev/disk/by-id/evil"},
	};
	for (size_t i = 0; i < ELEMENTSOF(links); i++) {
		snprintf(p, sizeof p, "%s/%s", t, links[i][1]);
		CHECK(symlink(links[i][0], p) == 0);
	}
}

static void add_disk(DiskRegistry *r, const char *name, unsigned mi, const char *vdev_guid)
{
	Disk d = {0}, *got = NULL;
	snprintf(d.name, sizeof d.name, "%s", name);
	snprintf(d.sys.serial, sizeof d.sys.serial, "S-%s", name);
	d.sys.major = 8, d.sys.minor = mi, d.sys.size_sectors = 7814037168;
	d.tuning.media_cache = NAN;
	d.verdict.class = DISK_CLASS_DM_SMR;
	diskview_init(&d.view);
	d.view.sample = 1;	/* as the monitor left it: registry_add keeps it */
	disk_model_add_cache(&d.view.cache, 20e9, true);
	d.view.cache.slow_write_bps = 20e6;
	if (vdev_guid) {
		Memberships ms = {.n = 1};
		ms.m[0].type = MEMBER_ZFS;
		snprintf(ms.m[0].name, sizeof ms.m[0].name, "dpool");
		snprintf(ms.m[0].detail, sizeof ms.m[0].detail, "vdev %s", vdev_guid);
		CHECK_INT(disk_set_members(&d, &ms), 0);
	}
	CHECK_INT(registry_add(r, &d, &got), 0);
}

static ZpoolStatus *zpool(const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/tests/fixtures/zpool/%s", root, name);
	_cleanup_free_ char *text = NULL, *err = NULL;
	size_t n = 0;
	CHECK_INT(read_file_at(AT_FDCWD, p, ZPOOL_INPUT_MAX, &text, &n), 0);
	ZpoolStatus *s = NULL;
	CHECK_INT(zpool_status_parse(text ?: "", n, &s, &err), 0);
	return s;
}

typedef struct Fixture {
	ZfsEvents *z;
	TestGuard guard;
	Recorder *rec;			/* the one event path, as the daemon's */
	DevMap *m;
	RebuildHeard heard;		/* warnings and ends, as the notifier would hear them */
	char warning[REBUILD_TEXT_MAX];
} Fixture;

/* The mapper over the tree's sys and dev (no udev database). */
static DevMap *tree_map(DiskRegistry *r, const char *sys, const char *dev)
{
	int fd = open(sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DevMap *m = NULL;
	CHECK_INT(devmap_new(r, fd, -1, dev, &m), 0);
	if (fd >= 0)
		close(fd);
	return m;
}

/* As the daemon does (daemon/context.c): the guard through zfsevents. */
static void unwarned(Disk *d, const char *source, const char *path, void *userdata)
{
	Fixture *fx = userdata;
	RebuildCheck c;
	char w[REBUILD_TEXT_MAX];
	if (rebuildguard_warn(fx->guard.g, d, source, path, NULL, disk_rebuild(d)->total_bytes, 1796450825000000,
			      1796450825000000, &c, w))
		snprintf(fx->warning, sizeof fx->warning, "%s", w);
}

/* The daemon's wiring: a recorder in front of h, the mapper over the
 * tree, zfsevents and the rebuilds on them. */
static Rebuilds *wire(Fixture *fx, DiskRegistry *r, History *h, const Config *cfg, const char *dev, const char *sys)
{
	fx->heard.r = r;
	RecorderCallbacks ecb = {.heard = rebuild_heard, .userdata = &fx->heard};
	CHECK_INT(recorder_new(h, cfg, r, &ecb, &fx->rec), 0);
	fx->m = tree_map(r, sys, dev);
	test_guard_new(&fx->guard, r, fx->rec, fx->m);
	ZfsEventsCallbacks zcb = {.attached = test_guard_attached, .userdata = &fx->guard};
	CHECK_INT(zfsevents_new(r, fx->rec, fx->m, &zcb, &fx->z), 0);
	RebuildsCallbacks cb = {.unwarned = unwarned, .userdata = fx};
	Rebuilds *rb = NULL;
	CHECK_INT(rebuilds_new(r, fx->rec, fx->m, &cb, &rb), 0);
	return rb;
}

static void unwire(Fixture *fx, Rebuilds *rb)
{
	rebuilds_free(rb);
	zfsevents_free(fx->z);
	test_guard_free(&fx->guard);
	devmap_free(fx->m);
	recorder_free(fx->rec);
}

static unsigned count_kind(History *h, const char *kind);


static int count_events(const HistoryEvent *e, void *userdata)
{
	(*(unsigned *)userdata)++;
	CHECK_STR(e->device, "sdb");
	CHECK_STR(e->serial, "S-sdb");
	return 0;
}

static unsigned count_kind(History *h, const char *kind)
{
	unsigned n = 0;
	HistoryFilter f = {.kind = kind};
	history_query(h, &f, count_events, &n);
	return n;
}

static void test_map(const char *t)
{
	char dev[512], sys[512];
	snprintf(dev, sizeof dev, "%s/dev", t), snprintf(sys, sizeof sys, "%s/sys", t);
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, NULL);
	add_disk(r, "sdc", 32, "6982750226085199860");
	Fixture fx = {0};
	fx.m = tree_map(r, sys, dev);
	CHECK_INT(zfsevents_new(r, NULL, fx.m, NULL, &fx.z), 0);
	Rebuilds *rb = NULL;
	RebuildsCallbacks cb = {.userdata = &fx};
	CHECK_INT(rebuilds_new(r, NULL, fx.m, &cb, &rb), 0);
	CHECK(rebuilds_zfs_wanted(rb));	/* sdc is in a pool */

	Disk *d = NULL;
	/* the GUID first: sdc's label names the leaf, whatever the path says */
	ZpoolLeaf leaf = {.guid = 6982750226085199860ULL};
	snprintf(leaf.path, sizeof leaf.path, "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1");
	CHECK_INT(rebuilds_map_leaf(rb, &leaf, &d), 0);
	CHECK(d && streq(d->name, "sdc"));
	/* a GUID no disk carries: the path, a partition's, to its whole disk */
	leaf.guid = 1;
	CHECK_INT(rebuilds_map_leaf(rb, &leaf, &d), 0);
	CHECK(d && streq(d->name, "sdb"));
	/* the text's name, found in by-id; a partition's name in /dev */
	leaf = (ZpoolLeaf){0};
	snprintf(leaf.path, sizeof leaf.path, "ata-ST5000LM000-2AN170_WCJ13R2Q");
	CHECK_INT(rebuilds_map_leaf(rb, &leaf, &d), 0);
	CHECK(d && streq(d->name, "sdb"));
	snprintf(leaf.path, sizeof leaf.path, "sdb1");
	CHECK_INT(rebuilds_map_leaf(rb, &leaf, &d), 0);
	CHECK(d && streq(d->name, "sdb"));
	/* names that are no plain file name, a link out of /dev, nothing there */
	const char *bad[] = {"../sdb", "disk/by-id/../../sdb", "..", ".", "", "evil", "/dev/../sdb", "/etc/passwd",
			     "sdz", "/dev/disk/by-id/evil", "sdb1 ", "$(reboot)"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		snprintf(leaf.path, sizeof leaf.path, "%s", bad[i]);
		d = NULL;
		CHECK_INT(rebuilds_map_leaf(rb, &leaf, &d), -ENXIO);
		CHECK(d == NULL);
	}
	rebuilds_free(rb);
	zfsevents_free(fx.z);
	devmap_free(fx.m);
	registry_free(r);
}

/* The views of a rebuild under way onto sdb: its series and its JSON;
 * sdc, with none, has neither. SMRD_METRICS_OUT keeps the page (for
 * promtool check metrics by hand). */
static void check_views(DiskRegistry *r, const char *name)
{
	MetricSet *set = metricset_new();
	CHECK(set != NULL);
	if (!set)
		return;
	RebuildFamilies fam;
	rebuild_families(set, &fam);
	for (size_t i = 0; i < registry_size(r); i++) {
		const Disk *d = registry_at(r, i);
		rebuild_samples(&fam, d, metricset_labels(set, (const char *const[]){"device", d->name, NULL}));
	}
	Buf b = {0};
	CHECK_INT(metricset_render(set, &b, METRIC_FORMAT_TEXT), 0);
	const char *page = b.data ?: "";
	CHECK(strstr(page, "smrd_rebuild_info{device=\"sdb\",pool=\"dpool\",kind=\"resilver\"} 1\n") != NULL);
	CHECK(strstr(page, "smrd_rebuild_eta_seconds{device=\"sdb\"} ") != NULL);
	CHECK(strstr(page, "smrd_rebuild_expected_seconds{device=\"sdb\"} ") != NULL);
	CHECK(strstr(page, "smrd_rebuild_written_bytes{device=\"sdb\"} 5") != NULL);
	CHECK(strstr(page, "device=\"sdc\"") == NULL);
	const char *out = getenv("SMRD_METRICS_OUT");
	if (out) {
		char p[512];
		snprintf(p, sizeof p, "%s.%s", out, name);
		FILE *f = fopen(p, "w");
		if (f)
			fputs(page, f), fclose(f);
	}
	buf_free(&b);
	metricset_free(set);
	json_object *j = rebuild_json(registry_get(r, "sdb"));
	CHECK_STR(json_object_get_string(json_object_object_get(j, "state")), "running");
	CHECK_STR(json_object_get_string(json_object_object_get(j, "kind")), "resilver");
	CHECK(json_object_get_double(json_object_object_get(j, "eta_seconds")) > 0);
	CHECK(json_object_object_get(j, "duration") == NULL);
	json_object_put(j);
	char line[256];
	CHECK(strstr(rebuild_line(registry_get(r, "sdb"), line, sizeof line), "resilver of dpool: ") == line);
	CHECK_STR(rebuild_line(registry_get(r, "sdc"), line, sizeof line), "");
}

/* A resilver onto sdb read twice while it runs, then finished. */
static void test_sequence(const char *t, const char *running, const char *ended)
{
	char dev[512], sys[512], db[512];
	snprintf(dev, sizeof dev, "%s/dev", t), snprintf(sys, sizeof sys, "%s/sys", t);
	snprintf(db, sizeof db, "%s/db-%s", t, running);
	CHECK(mkdir(db, 0700) == 0);
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, NULL);
	add_disk(r, "sdc", 32, NULL);
	Disk *sdb = registry_get(r, "sdb");
	History *h = NULL;
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &h, &herr) >= 0 && h);
	Fixture fx = {0};
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	Rebuilds *rb = wire(&fx, r, h, &cfg, dev, sys);
	CHECK(!rebuilds_zfs_wanted(rb));	/* no pool, no rebuild */

	ZpoolStatus *a = zpool(running), *b = zpool(ended ? ended : running);
	if (!ended && b && b->n_pools) {
		/* the same pool's resilver finished, as the next zpool status says it */
		b->pools[0].state = ZPOOL_SCAN_FINISHED;
		b->pools[0].n_leaves = 0;
		b->pools[0].duration = 7200;
	}
	double t0 = 1592830709 + 3600;
	if (a && b && sdb) {
		rebuilds_zpool(rb, a, t0, 0);
		CHECK_INT(rebuild_starts(&fx.heard), 1);
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_RUNNING);
		CHECK_STR(disk_rebuild_mut(sdb)->pool, a->pools[0].pool);
		CHECK(isfinite(disk_rebuild_mut(sdb)->expected) && isfinite(disk_rebuild_mut(sdb)->eta));
		CHECK(rebuilds_zfs_wanted(rb));	/* a rebuild followed */
		CHECK_INT(disk_rebuild(registry_get(r, "sdc"))->phase, REBUILD_PHASE_NONE);
		check_views(r, running);
		/* no attach heard (smrd started after it): the watcher warns, once */
		CHECK_INT(fx.heard.warnings, 1);
		CHECK(strstr(fx.warning, "ZFS pool dpool is rebuilding onto sdb (serial S-sdb, ") == fx.warning);
		rebuilds_zpool(rb, a, t0 + 60, 0);
		CHECK_INT(rebuild_starts(&fx.heard), 1);
		CHECK_INT(fx.heard.warnings, 1);
		CHECK_NEAR(disk_rebuild_mut(sdb)->rate, 0, 0);	/* the same figures a minute later */
		CHECK_INT(fx.heard.ended, 0);
		rebuilds_zpool(rb, b, t0 + 120, 0);
		CHECK_INT(fx.heard.ended, 1);
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_FINISHED);
		CHECK(strstr(fx.heard.message, "resilver of ") == fx.heard.message && strstr(fx.heard.message, " onto sdb finished in "));
		rebuilds_zpool(rb, b, t0 + 180, 0);
		CHECK_INT(fx.heard.ended, 1);
	}
	unsigned n = 0;
	HistoryFilter f = {.kind = "rebuild-done"};
	history_query(h, &f, count_events, &n);
	CHECK_INT(n, 1);

	CHECK_INT(count_kind(h, "rebuild-warning"), 1);

	/* a new resilver after zed's attach warned: that warning is its one;
	 * then its pool gone from the output: it ends canceled */
	if (a && sdb) {
		a->pools[0].start_time += 86400;
		ZfsEvent e = {.kind = ZFS_EVENT_VDEV_ATTACH, .eid = 9, .pool = "dpool",
			      .vdev_path = "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q"};
		e.time_sec = (int64_t)(t0 + 86400 * 2 - 5);
		ZfsEventResult res;
		_cleanup_free_ char *err = NULL;
		CHECK_INT(zfsevents_handle(fx.z, &e, (uint64_t)(t0 + 86400 * 2 - 5) * 1000000, &res, &err), 0);
		CHECK(res.warned);
		CHECK_INT(fx.heard.warnings, 2);
		rebuilds_zpool(rb, a, t0 + 86400 * 2, 0);
		CHECK_INT(rebuild_starts(&fx.heard), 2);
		CHECK_INT(fx.heard.warnings, 2);
		/* zed's attach heard after the watcher's reading: said, not recorded again */
		e.eid = 10;
		CHECK_INT(zfsevents_handle(fx.z, &e, (uint64_t)(t0 + 86400 * 2 - 5) * 1000000, &res, &err), 0);
		CHECK(res.warned);
		CHECK_INT(fx.heard.warnings, 2);
		ZpoolStatus *empty = calloc(1, sizeof *empty);
		CHECK(empty != NULL);
		if (empty)
			rebuilds_zpool(rb, empty, t0 + 86400 * 2 + 60, 0);
		free(empty);
		CHECK_INT(fx.heard.ended, 2);
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_CANCELED);
		CHECK(strstr(fx.heard.message, "ended unfinished") != NULL);
		CHECK_INT(count_kind(h, "rebuild-warning"), 2);
	}
	zpool_status_free(a);
	zpool_status_free(b);
	unwire(&fx, rb);
	history_close(h);
	config_done(&cfg);
	registry_free(r);
}

/* What the kernel answers on the mount point: the replace's status as
 * tests/fixtures/btrfs/'s recordings printed it (test-btrfsreplace.c),
 * the one path that reaches the file system. */
typedef struct Kernel {
	BtrfsReplaceStatus replace;
	const char *reaches;
	unsigned asked;
} Kernel;

static BtrfsReplaceStatus btrfs(uint64_t state, uint64_t per_mille, uint64_t started, uint64_t stopped)
{
	struct btrfs_ioctl_dev_replace_status_params p = {.replace_state = state, .progress_1000 = per_mille,
							  .time_started = started, .time_stopped = stopped};
	BtrfsReplaceStatus b;
	CHECK_INT(btrfs_replace_from_ioctl(&p, &b), 0);
	return b;
}

static int k_reach(const char *path, const char *uuid, void *userdata)
{
	Kernel *k = userdata;
	(void)uuid;
	return k->reaches && streq(path, k->reaches) ? 0 : -EXDEV;
}

static int k_replace(const char *mount, BtrfsReplaceStatus *ret, void *userdata)
{
	Kernel *k = userdata;
	CHECK_STR(mount, k->reaches);
	k->asked++;
	*ret = k->replace;
	return 0;
}

static int k_balance(const char *mount, BtrfsBalanceStatus *ret, void *userdata)
{
	(void)mount, (void)userdata;
	*ret = (BtrfsBalanceStatus){.state = BTRFS_BALANCE_NONE};
	return 0;
}

static int k_show(const char *mount, BtrfsShow *ret, void *userdata)
{
	(void)mount, (void)userdata;
	*ret = (BtrfsShow){0};
	return -ENOTTY;
}

static void kernel_ops(Rebuilds *rb, Kernel *k)
{
	RebuildsBtrfsOps ops = {.reach = k_reach, .show = k_show, .replace_status = k_replace, .balance_status = k_balance,
				.userdata = k};
	rebuilds_set_btrfs_ops(rb, &ops);
}

static void put(const char *t, const char *path, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", t, path);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f)
		fputs(text, f), fclose(f);
}

/* A btrfs raid1 of sdd (a member, watched) and another device, replaced
 * onto sdb's partition (no btrfs signature yet), its status the kernel's:
 * the file system and its mount point (with a space) found, the replace
 * followed onto sdb, its end recorded; unmounted, nothing is asked. */
static void test_btrfs(const char *t)
{
	const char *uuid = "0b9a8a4e-1f0c-4a61-9a3e-2f7d7c1e5a10";
	char p[512], sys[512], mi[512], db[512];
	const char *top[] = {"sys/fs", "sys/fs/btrfs", "db-btrfs"};
	for (size_t i = 0; i < ELEMENTSOF(top); i++) {
		snprintf(p, sizeof p, "%s/%s", t, top[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
	const char *dirs[] = {"", "/devices", "/devices/sdd", "/devices/sdb1", "/devices/sde", "/allocation",
			      "/allocation/data", "/allocation/metadata", "/allocation/system"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		snprintf(p, sizeof p, "%s/sys/fs/btrfs/%s%s", t, uuid, dirs[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
	const char *files[][2] = {{"devices/sdd/dev", "8:48\n"}, {"devices/sdb1/dev", "259:7\n"},
				  {"devices/sde/dev", "8:64\n"}, {"allocation/data/disk_used", "6000000000\n"},
				  {"allocation/metadata/disk_used", "1000000000\n"}, {"allocation/system/disk_used", "0\n"}};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "sys/fs/btrfs/%s/%s", uuid, files[i][0]);
		put(t, rel, files[i][1]);
	}
	put(t, "mountinfo", "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n"
			    "36 22 0:45 / /mnt/r\\040x rw,relatime shared:1 - btrfs /dev/sdd rw,space_cache=v2\n"
			    "37 22 0:45 /sub /mnt/again rw - btrfs /dev/sdd rw\n");
	snprintf(sys, sizeof sys, "%s/sys", t), snprintf(mi, sizeof mi, "%s/mountinfo", t);
	snprintf(db, sizeof db, "%s/db-btrfs", t);

	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, NULL);
	add_disk(r, "sdd", 48, NULL);
	Disk *sdb = registry_get(r, "sdb"), *sdd = registry_get(r, "sdd");
	Memberships ms = {.n = 1};
	ms.m[0].type = MEMBER_BTRFS;
	snprintf(ms.m[0].name, sizeof ms.m[0].name, "%s", uuid);
	CHECK_INT(disk_set_members(sdd, &ms), 0);
	History *h = NULL;
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &h, &herr) >= 0 && h);
	Fixture fx = {0};
	char dev[512];
	snprintf(dev, sizeof dev, "%s/dev", t);
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	Rebuilds *rb = wire(&fx, r, h, &cfg, dev, sys);
	rebuilds_set_roots(rb, sys, mi);
	/* the disk's own write counter, as the sampler keeps it */
	if (sdb)
		sdb->ds = (DiskstatAccum){.primed = true, .n_fields = _DS_FIELD_MAX};
	CHECK(!rebuilds_zfs_wanted(rb));

	double now = 1796450825;	/* 5 Dec 2026 06:07:05 UTC, the fixtures' day */
	Kernel k = {.replace = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED, 438, (uint64_t)now - 4, 0), .reaches = "/mnt/r x"};
	kernel_ops(rb, &k);
	rebuilds_set_btrfs_sysfs(rb, false);
	rebuilds_btrfs_read(rb, now);
	CHECK_INT(k.asked, 1);
	CHECK_INT(rebuild_starts(&fx.heard), 1);
	/* no zed for btrfs: the watcher runs the guard on the DM-SMR target */
	CHECK_INT(fx.heard.warnings, 1);
	CHECK(strstr(fx.warning, "btrfs file system /mnt/r x is rebuilding onto sdb (serial S-sdb, /dev/sdb)") ==
	      fx.warning);
	if (sdb && sdd) {
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_RUNNING);
		CHECK_INT(disk_rebuild_mut(sdb)->kind, REBUILD_KIND_BTRFS_REPLACE);
		CHECK_NEAR(disk_rebuild_mut(sdb)->started, now - 4, 0);	/* the kernel's */
		CHECK_NEAR(disk_rebuild_mut(sdb)->total_bytes, 3.5e9, 1);	/* 7 GB on the two devices but the target */
		CHECK_NEAR(disk_rebuild_mut(sdb)->done_bytes, 0.438 * 3.5e9, 1);
		CHECK(isfinite(disk_rebuild_mut(sdb)->expected));
		CHECK_INT(disk_rebuild_mut(sdd)->phase, REBUILD_PHASE_NONE);
		/* the same chunk a few seconds on, the disk having taken 100 MB more */
		double eta = disk_rebuild_mut(sdb)->eta;
		sdb->ds.total[DS_WRITE_SECTORS] += 100000000 / 512;
		rebuilds_btrfs_read(rb, now + 5);
		CHECK_NEAR(disk_rebuild_mut(sdb)->done_bytes, 0.438 * 3.5e9 + 100000000 / 512 * 512, 1);
		CHECK(disk_rebuild_mut(sdb)->rate > 0 && disk_rebuild_mut(sdb)->eta < eta);
		CHECK_INT(fx.heard.warnings, 1);
	}
	k.replace = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED, 1000, (uint64_t)now - 4, (uint64_t)now + 3);
	rebuilds_btrfs_read(rb, now + 10);
	CHECK_INT(fx.heard.ended, 1);
	if (sdb) {
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_FINISHED);
		CHECK_NEAR(disk_rebuild_mut(sdb)->duration, 7, 0);
	}
	CHECK(strstr(fx.heard.message, "btrfs-replace of /mnt/r x onto sdb finished in ") == fx.heard.message);
	unsigned n = 0;
	HistoryFilter f = {.kind = "rebuild-done"};
	history_query(h, &f, count_events, &n);
	CHECK_INT(n, 1);
	/* the kernel keeps saying it finished: nothing more */
	rebuilds_btrfs_read(rb, now + 15);
	CHECK_INT(rebuild_starts(&fx.heard), 1);

	/* another replace, onto sdb become a CMR disk (no model), then the file
	 * system unmounted: over, unseen. A CMR disk: no warning, no estimate
	 * at the start (its own rate was never measured), an ETA from the rate
	 * the kernel's start and progress show */
	k.replace = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED, 438, (uint64_t)now + 18, 0);
	if (sdb) {
		sdb->verdict.class = DISK_CLASS_CMR;
		disk_model_init(&sdb->view.cache);
	}
	rebuilds_btrfs_read(rb, now + 20);
	CHECK_INT(rebuild_starts(&fx.heard), 2);
	CHECK_INT(fx.heard.warnings, 1);
	if (sdb) {
		CHECK(isnan(disk_rebuild_mut(sdb)->expected));
		CHECK_NEAR(disk_rebuild_mut(sdb)->eta, 2 * (1 - 0.438) / 0.438, 1e-6);
		sdb->ds.total[DS_WRITE_SECTORS] += 100000000 / 512;
		rebuilds_btrfs_read(rb, now + 25);
		CHECK(isfinite(disk_rebuild_mut(sdb)->eta) && disk_rebuild_mut(sdb)->eta > 0);
	}
	put(t, "mountinfo", "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n");
	unsigned asked = k.asked;
	rebuilds_btrfs_read(rb, now + 30);
	CHECK_INT(k.asked, asked);	/* nothing reaches it: nothing asked */
	CHECK_INT(fx.heard.ended, 2);
	if (sdb)
		CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_CANCELED);
	CHECK_INT(count_kind(h, "rebuild-warning"), 1);

	unwire(&fx, rb);
	history_close(h);
	config_done(&cfg);
	registry_free(r);
}

/* The same file system read as an unprivileged smrd reads it (no
 * CAP_SYS_ADMIN: the kernel's status refused): exclusive_operation missing
 * or garbled says nothing; devinfo/0 or "device replace" starts the replace
 * onto sdb with what it wrote since the reading before as its head start,
 * its own writes move it on; it ends finished while sdb1 stays a device,
 * canceled once it left. A balance with no disk joined follows none, and
 * the devices' figures of a mount that is no btrfs are a clear error. */
static void test_btrfs_sysfs(const char *t)
{
	const char *uuid = "0b9a8a4e-1f0c-4a61-9a3e-2f7d7c1e5a10";	/* test_btrfs()'s tree */
	char sys[512], mi[512], db[512], p[600];
	snprintf(sys, sizeof sys, "%s/sys", t), snprintf(mi, sizeof mi, "%s/mountinfo", t);
	snprintf(db, sizeof db, "%s/db-sysfs", t);
	CHECK(mkdir(db, 0755) == 0);
	put(t, "mountinfo", "36 22 0:45 / /mnt/r\\040x rw,relatime shared:1 - btrfs /dev/sdd rw\n");
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 16, NULL);
	add_disk(r, "sdd", 48, NULL);
	Disk *sdb = registry_get(r, "sdb"), *sdd = registry_get(r, "sdd");
	Memberships ms = {.n = 1};
	ms.m[0].type = MEMBER_BTRFS;
	snprintf(ms.m[0].name, sizeof ms.m[0].name, "%s", uuid);
	CHECK_INT(disk_set_members(sdd, &ms), 0);
	History *h = NULL;
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &h, &herr) >= 0 && h);
	Fixture fx = {0};
	char dev[512];
	snprintf(dev, sizeof dev, "%s/dev", t);
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	Rebuilds *rb = wire(&fx, r, h, &cfg, dev, sys);
	rebuilds_set_roots(rb, sys, mi);
	Kernel k = {.reaches = "/mnt/r x"};
	kernel_ops(rb, &k);
	rebuilds_set_btrfs_sysfs(rb, true);
	if (!sdb || !rb)
		return;
	sdb->ds = (DiskstatAccum){.primed = true, .n_fields = _DS_FIELD_MAX};
	char rel[256];
	double now = 1796450825;
	/* no exclusive_operation (a kernel before 5.10), then garbage: nothing */
	rebuilds_btrfs_read(rb, now);
	snprintf(rel, sizeof rel, "sys/fs/btrfs/%s/exclusive_operation", uuid);
	put(t, rel, "device repl\xff\n");
	rebuilds_btrfs_read(rb, now + 1);
	CHECK_INT(rebuild_starts(&fx.heard), 0);
	CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_NONE);
	/* the replace's target listed (its devinfo/0 comes first), 50 MB written since the last reading */
	snprintf(p, sizeof p, "%s/sys/fs/btrfs/%s/devinfo", t, uuid);
	CHECK(mkdir(p, 0755) == 0 || errno == EEXIST);
	snprintf(p, sizeof p, "%s/sys/fs/btrfs/%s/devinfo/0", t, uuid);
	CHECK(mkdir(p, 0755) == 0);
	sdb->ds.total[DS_WRITE_SECTORS] += 50000000 / 512;
	rebuilds_btrfs_read(rb, now + 2);
	CHECK_INT(rebuild_starts(&fx.heard), 1);
	CHECK_INT(fx.heard.warnings, 1);	/* the same guard: DM-SMR */
	CHECK_INT(disk_rebuild_mut(sdb)->kind, REBUILD_KIND_BTRFS_REPLACE);
	CHECK_NEAR(disk_rebuild_mut(sdb)->total_bytes, 3.5e9, 1);
	CHECK_NEAR(disk_rebuild_mut(sdb)->done_bytes, 50000000 / 512 * 512, 1);
	CHECK_NEAR(disk_rebuild_mut(sdb)->started, now + 2, 0);	/* no time from sysfs: the first reading */
	put(t, rel, "device replace\n");
	sdb->ds.total[DS_WRITE_SECTORS] += 100000000 / 512;
	rebuilds_btrfs_read(rb, now + 7);
	CHECK_NEAR(disk_rebuild_mut(sdb)->done_bytes, 150000000 / 512 * 512, 1);
	CHECK(disk_rebuild_mut(sdb)->rate > 0 && isfinite(disk_rebuild_mut(sdb)->eta));
	CHECK_INT(fx.heard.warnings, 1);
	/* devinfo/0 gone first, the operation still marked: under way */
	CHECK(rmdir(p) == 0);
	rebuilds_btrfs_read(rb, now + 8);
	CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_RUNNING);
	put(t, rel, "none\n");
	rebuilds_btrfs_read(rb, now + 10);
	CHECK_INT(fx.heard.ended, 1);
	CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_FINISHED);
	CHECK_NEAR(disk_rebuild_mut(sdb)->duration, 8, 0);
	CHECK_NEAR(disk_rebuild_mut(sdb)->done_bytes, 3.5e9, 1);
	CHECK_INT(count_kind(h, "rebuild-done"), 1);
	/* another, canceled: its target leaves the file system */
	put(t, rel, "device replace\n");
	rebuilds_btrfs_read(rb, now + 20);
	CHECK_INT(rebuild_starts(&fx.heard), 2);
	CHECK_INT(fx.heard.warnings, 2);	/* once per replace */
	/* smrd restarted mid-way: the replace picked up again (sysfs gives no
	 * time: its first reading is its start), its warning in the history
	 * already: none again (audit round 5, finding 4) */
	unwire(&fx, rb);
	rebuild_state_init(disk_rebuild_mut(sdb));
	rb = wire(&fx, r, h, &cfg, dev, sys);
	rebuilds_set_roots(rb, sys, mi);
	kernel_ops(rb, &k);
	rebuilds_set_btrfs_sysfs(rb, true);
	rebuilds_btrfs_read(rb, now + 22);
	CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_RUNNING);
	CHECK_INT(rebuild_starts(&fx.heard), 3);
	CHECK_INT(fx.heard.warnings, 2);
	CHECK_INT(count_kind(h, "rebuild-warning"), 2);
	put(t, rel, "none\n");
	snprintf(p, sizeof p, "%s/sys/fs/btrfs/%s/devices/sdb1/dev", t, uuid);
	CHECK(unlink(p) == 0);
	rebuilds_btrfs_read(rb, now + 25);
	CHECK_INT(fx.heard.ended, 2);
	CHECK_INT(disk_rebuild_mut(sdb)->phase, REBUILD_PHASE_CANCELED);
	CHECK_INT(count_kind(h, "rebuild-done"), 2);
	CHECK_INT(k.asked, 0);	/* told from sysfs: the kernel is never asked */
	/* a balance, paused, with no disk joined: none followed; its devices
	 * asked of a mount point that does not exist, which fails cleanly */
	put(t, rel, "balance paused\n");
	rebuilds_btrfs_read(rb, now + 30);
	CHECK_INT(disk_rebuild_mut(sdb)->kind, REBUILD_KIND_BTRFS_REPLACE);
	CHECK_INT(rebuild_starts(&fx.heard), 3);
	BtrfsShow *show = calloc(1, sizeof *show);
	CHECK(show != NULL);
	if (show) {
		CHECK_INT(btrfsfs_show("/mnt/r x", show), -ENOENT);
		CHECK_INT(btrfsfs_show(t, show), -ENOTTY);	/* not a btrfs */
		CHECK_INT(show->n_devs, 0);
	}
	free(show);
	CHECK_INT(count_kind(h, "rebuild-warning"), 2);
	unwire(&fx, rb);
	history_close(h);
	config_done(&cfg);
	registry_free(r);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-rebuilds SOURCE_ROOT\n");
		return 1;
	}
	if (geteuid() != 0)
		return test_unavailable("root", "test-daemon-rebuilds: needs root (mknod)");
	root = argv[1];
	char t[] = "/tmp/test-rebuilds.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	tree(t);
	test_map(t);
	test_sequence(t, "json-resilver.json", "json-resilvered.json");
	test_sequence(t, "text-resilver-noeta.txt", NULL);
	test_btrfs(t);
	test_btrfs_sysfs(t);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-rebuilds");
}
