/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs balance onto a watched disk added to a file system, followed
 * from the readings of the real `btrfs balance status -v` outputs
 * (tests/fixtures/btrfs/balance-*.txt, their mount point swapped for the
 * test's) and devices' figures as `btrfs filesystem show --raw` gives them,
 * in a test's own /sys/fs/btrfs and /dev (device nodes by mknod, so root,
 * as the suite runs), with the real mapper and guard (zfsevents),
 * recorder and history. A raid1 of sdd (watched, signed) and sdg (not
 * watched), sdb added (watched, DM-SMR): the balance is followed onto sdb
 * alone, warned of once, moved along, ended as the tools say; a paused
 * one that goes is canceled unless sdb then holds its share; one whose
 * file system is unmounted ends unfinished; a disk seen joining is
 * followed however far the first reading finds the balance.
 */
#include "rebuilds.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "disk.h"
#include "events.h"
#include "rebuild-heard.h"
#include "test.h"
#include "util.h"
#include "zfsevents.h"

#define UUID "7c1e5a10-0b9a-4a61-9a3e-2f7d8a4e1f0c"
#define MNT "/mnt/b"

static const char *root;

typedef struct Fixture {
	char t[64], sys[128], mi[128];	/* rebuilds keeps the roots: the fixture outlives it */
	DiskRegistry *r;
	History *h;
	Config cfg;
	Recorder *rec;			/* the one event path, as the daemon's */
	ZfsEvents *z;
	DevMap *m;
	Rebuilds *rb;
	Disk *sdb, *sdd;
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

static void put(const char *t, const char *path, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", t, path);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f)
		fputs(text, f), fclose(f);
}

static void add_disk(DiskRegistry *r, const char *name, unsigned mi)
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
	CHECK_INT(registry_add(r, &d, &got), 0);
}

/* As the daemon does (daemon/context.c): the guard through zfsevents. */
static void unwarned(Disk *d, const char *source, const char *path, void *userdata)
{
	Fixture *fx = userdata;
	RebuildCheck c;
	char w[REBUILD_TEXT_MAX];
	if (zfsevents_warn(fx->z, d, source, path, 1796450825000000, 1796450825000000, &c, w))
		snprintf(fx->warning, sizeof fx->warning, "%s", w);
}


static int count_events(const HistoryEvent *e, void *userdata)
{
	(*(unsigned *)userdata)++;
	CHECK_STR(e->device, "sdb");
	return 0;
}

static unsigned count_kind(History *h, const char *kind)
{
	unsigned n = 0;
	HistoryFilter f = {.kind = kind};
	history_query(h, &f, count_events, &n);
	return n;
}

/* btrfs balance status -v of the fixtures, their mount point the test's */
static BtrfsBalanceStatus balance(const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/tests/fixtures/btrfs/%s", root, name);
	_cleanup_free_ char *text = NULL, *err = NULL, *swapped = NULL;
	size_t n = 0;
	BtrfsBalanceStatus b = {0};
	CHECK_INT(read_file_at(AT_FDCWD, p, BTRFS_BALANCE_INPUT_MAX, &text, &n), 0);
	const char *rec = "/dev/shm/btrfs-balance-record/mnt", *at = text ? strstr(text, rec) : NULL;
	CHECK(at != NULL);
	if (at)
		CHECK(asprintf(&swapped, "%.*s%s%s", (int)(at - text), text, MNT, at + strlen(rec)) > 0);
	CHECK_INT(btrfs_balance_parse(swapped ?: "", swapped ? strlen(swapped) : 0, MNT, &b, &err), 0);
	return b;
}

/* The devices' figures: three of 8 GB, sdg holding 3 GB of chunks */
static BtrfsShow show3(double sdd_used, double sdb_used)
{
	BtrfsShow s = {.n_devs = 3,
		       .devs = {{1, 8e9, sdd_used, "/dev/sdd"}, {2, 8e9, 3e9, "/dev/sdg"}, {3, 8e9, sdb_used, "/dev/sdb"}}};
	return s;
}

static unsigned mounts(Fixture *fx, double now)
{
	char m[4][64];
	unsigned n = rebuilds_btrfs_mounts(fx->rb, m[0], sizeof m[0], 4, now);
	if (n)
		CHECK_STR(m[0], MNT);
	return n;
}

static RebuildState *state(Fixture *fx)
{
	return disk_rebuild_mut(fx->sdb);
}

/* The file system's sysfs (6 GB of chunks, full), sdb, sdd and the mount. */
static void tree(const char *t)
{
	char p[512];
	const char *dirs[] = {"dev", "sys", "sys/fs", "sys/fs/btrfs", "sys/fs/btrfs/" UUID, "db"};
	const char *fs_dirs[] = {"devices", "devices/sdd", "devices/sdg", "devices/sdb", "allocation", "allocation/data",
				 "allocation/data/raid1", "allocation/metadata", "allocation/system"};
	for (size_t i = 0; i < ELEMENTSOF(dirs) + ELEMENTSOF(fs_dirs); i++) {
		if (i < ELEMENTSOF(dirs))
			snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
		else
			snprintf(p, sizeof p, "%s/sys/fs/btrfs/" UUID "/%s", t, fs_dirs[i - ELEMENTSOF(dirs)]);
		CHECK(mkdir(p, 0755) == 0);
	}
	const char *files[][2] = {{"devices/sdd/dev", "8:48\n"}, {"devices/sdg/dev", "8:96\n"}, {"devices/sdb/dev", "8:16\n"},
				  {"allocation/data/disk_used", "5400000000\n"}, {"allocation/data/total_bytes", "2700000000\n"},
				  {"allocation/data/disk_total", "5400000000\n"}, {"allocation/data/raid1/total_bytes", "2700000000\n"},
				  {"allocation/metadata/disk_used", "600000000\n"}, {"allocation/system/disk_used", "0\n"}};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(p, sizeof p, "sys/fs/btrfs/" UUID "/%s", files[i][0]);
		put(t, p, files[i][1]);
	}
	snprintf(p, sizeof p, "%s/dev/sdb", t);
	CHECK(mknod(p, S_IFBLK | 0600, makedev(8, 16)) == 0);
	snprintf(p, sizeof p, "%s/dev/sdd", t);
	CHECK(mknod(p, S_IFBLK | 0600, makedev(8, 48)) == 0);
	put(t, "mountinfo", "36 22 0:46 / " MNT " rw - btrfs /dev/sdg rw\n");
}

static bool setup(Fixture *fx)
{
	char db[128], dev[128];
	snprintf(fx->t, sizeof fx->t, "/tmp/test-balance.XXXXXX");
	if (!mkdtemp(fx->t))
		return false;
	tree(fx->t);
	snprintf(fx->sys, sizeof fx->sys, "%s/sys", fx->t), snprintf(fx->mi, sizeof fx->mi, "%s/mountinfo", fx->t);
	snprintf(db, sizeof db, "%s/db", fx->t), snprintf(dev, sizeof dev, "%s/dev", fx->t);
	fx->r = registry_new();
	add_disk(fx->r, "sdb", 16);
	add_disk(fx->r, "sdd", 48);
	fx->sdb = registry_get(fx->r, "sdb"), fx->sdd = registry_get(fx->r, "sdd");
	/* sdd has its btrfs signature; sdb's is not seen (udev not read
	 * again): the one a replace would be taken to write onto */
	Memberships ms = {.n = 1};
	ms.m[0].type = MEMBER_BTRFS;
	snprintf(ms.m[0].name, sizeof ms.m[0].name, UUID);
	if (fx->sdd)
		CHECK_INT(disk_set_members(fx->sdd, &ms), 0);
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(db, &fx->h, &herr) >= 0 && fx->h);
	CHECK_INT(config_init(&fx->cfg), 0);
	fx->heard.r = fx->r;
	RecorderCallbacks ecb = {.heard = rebuild_heard, .userdata = &fx->heard};
	CHECK_INT(recorder_new(fx->h, &fx->cfg, fx->r, &ecb, &fx->rec), 0);
	fx->m = tree_map(fx->r, fx->sys, dev);
	CHECK_INT(zfsevents_new(fx->r, fx->rec, fx->m, NULL, &fx->z), 0);
	RebuildsCallbacks cb = {.unwarned = unwarned, .userdata = fx};
	CHECK_INT(rebuilds_new(fx->r, fx->rec, fx->m, &cb, &fx->rb), 0);
	if (!fx->sdb || !fx->sdd || !fx->rb || !fx->z || !fx->h)
		return false;
	rebuilds_set_roots(fx->rb, fx->sys, fx->mi);
	fx->sdb->ds = (DiskstatAccum){.primed = true, .n_fields = _DS_FIELD_MAX};
	return true;
}

/* A full balance onto sdb: followed from a reading at its start, moved
 * along by the chunks and sdb's write counter, finished. */
static void test_follow(Fixture *fx, double now)
{
	CHECK_INT(mounts(fx, now), 1);
	BtrfsBalanceStatus b = balance("balance-none.txt");
	BtrfsShow s = show3(3e9, 0);
	rebuilds_btrfs_balance(fx->rb, MNT, &b, NULL, now);	/* none, none followed */
	CHECK_INT(rebuild_starts(&fx->heard), 0);
	b = balance("balance-running.txt");
	rebuilds_btrfs_balance(fx->rb, "/mnt/elsewhere", &b, &s, now);
	CHECK_INT(rebuild_starts(&fx->heard), 0);
	/* first seen a fifth of the way: the layout says nothing any more */
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now);
	CHECK_INT(rebuild_starts(&fx->heard), 0);
	b.completed = 0;	/* seen at its start */
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now);
	CHECK_INT(rebuild_starts(&fx->heard), 1);
	b.completed = 1;
	CHECK_INT(fx->heard.warnings, 1);
	CHECK(strstr(fx->warning, "btrfs file system /mnt/b is rebuilding onto sdb") == fx->warning);
	CHECK_INT(state(fx)->kind, REBUILD_KIND_BTRFS_BALANCE);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	/* 6 GB of chunks, full, over three equal devices: 2 GB land on sdb */
	CHECK_NEAR(state(fx)->total_bytes, 2e9, 1e3);
	CHECK_NEAR(state(fx)->done_bytes, 0, 0);
	CHECK(isfinite(state(fx)->expected));
	CHECK_INT(disk_rebuild_mut(fx->sdd)->phase, REBUILD_PHASE_NONE);	/* at its share */
	/* later: sdb holds 1 GB of chunks, its counter says 1.2 GB written */
	s = show3(2.5e9, 1e9);
	fx->sdb->ds.total[DS_WRITE_SECTORS] += 1200000000 / 512;
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 10);
	CHECK_NEAR(state(fx)->done_bytes, 1200000000 / 512 * 512, 1);
	CHECK(state(fx)->rate > 0 && isfinite(state(fx)->eta));
	/* no devices' figures this time: still followed, nothing lost */
	rebuilds_btrfs_balance(fx->rb, MNT, &b, NULL, now + 12);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	CHECK_NEAR(state(fx)->total_bytes, 2e9, 1e3);
	/* the replace status of the same file system (an old one, finished) leaves it be */
	BtrfsReplaceStatus old = {.state = BTRFS_REPLACE_FINISHED, .progress = 1,
				  .started = {12, 5, 3600}, .stopped = {12, 5, 3607}};
	rebuilds_btrfs(fx->rb, MNT, &old, now + 13, 0);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	CHECK_INT(state(fx)->kind, REBUILD_KIND_BTRFS_BALANCE);
	b = balance("balance-none.txt");
	rebuilds_btrfs_balance(fx->rb, MNT, &b, NULL, now + 20);
	CHECK_INT(fx->heard.ended, 1);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	CHECK_NEAR(state(fx)->duration, 20, 0);
	CHECK(strstr(fx->heard.message, "balance of /mnt/b onto sdb finished in 20 s") == fx->heard.message);
	CHECK_INT(count_kind(fx->h, "rebuild-done"), 1);
	CHECK_INT(fx->heard.warnings, 1);
}

/* Paused when seen and gone at the next reading: canceled, unless sdb then
 * holds its share (resumed to its end in between); unmounted mid-way:
 * ended unfinished. */
static void test_ends(Fixture *fx, double now)
{
	BtrfsShow s = show3(3e9, 0.1e9);
	BtrfsBalanceStatus b = balance("balance-paused.txt");
	b.completed = 0;
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now);
	CHECK_INT(rebuild_starts(&fx->heard), 2);
	b = balance("balance-none.txt");
	rebuilds_btrfs_balance(fx->rb, MNT, &b, NULL, now + 10);
	CHECK_INT(fx->heard.ended, 2);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_CANCELED);

	b = balance("balance-paused.txt");
	b.completed = 0;
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 12);
	CHECK_INT(rebuild_starts(&fx->heard), 3);
	b = balance("balance-none.txt");
	BtrfsShow filled = show3(2e9, 2.2e9);
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &filled, now + 14);
	CHECK_INT(fx->heard.ended, 3);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);

	b = balance("balance-running.txt");
	b.completed = 0;
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 20);
	CHECK_INT(rebuild_starts(&fx->heard), 4);
	put(fx->t, "mountinfo", "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n");
	CHECK_INT(mounts(fx, now + 30), 0);
	CHECK_INT(fx->heard.ended, 4);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_CANCELED);
	put(fx->t, "mountinfo", "36 22 0:46 / " MNT " rw - btrfs /dev/sdg rw\n");
}

/* sdb at its share is not filled by a balance; seen joining the file
 * system (btrfs device add), the next balance is followed onto it though
 * the first reading finds it a fifth of the way and sdb near its share
 * (one large chunk), once; the one after is not. */
static void test_joined(Fixture *fx, double now)
{
	char p[512];
	CHECK_INT(mounts(fx, now), 1);
	BtrfsBalanceStatus b = balance("balance-running.txt");
	b.completed = 0;
	BtrfsShow s = show3(2e9, 2e9);
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now);
	CHECK_INT(rebuild_starts(&fx->heard), 4);

	snprintf(p, sizeof p, "%s/sys/fs/btrfs/" UUID "/devices/sdb/dev", fx->t);
	CHECK(unlink(p) == 0);
	snprintf(p, sizeof p, "%s/sys/fs/btrfs/" UUID "/devices/sdb", fx->t);
	CHECK(rmdir(p) == 0);
	CHECK_INT(mounts(fx, now + 10), 1);
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 10);	/* not a member: nothing */
	CHECK_INT(rebuild_starts(&fx->heard), 4);
	CHECK(mkdir(p, 0755) == 0);
	put(fx->t, "sys/fs/btrfs/" UUID "/devices/sdb/dev", "8:16\n");
	CHECK_INT(mounts(fx, now + 20), 1);
	b.completed = 1;
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 20);
	CHECK_INT(rebuild_starts(&fx->heard), 5);
	b = balance("balance-none.txt");
	rebuilds_btrfs_balance(fx->rb, MNT, &b, NULL, now + 25);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	b = balance("balance-running.txt");
	CHECK_INT(mounts(fx, now + 30), 1);
	rebuilds_btrfs_balance(fx->rb, MNT, &b, &s, now + 30);
	CHECK_INT(rebuild_starts(&fx->heard), 5);
	CHECK_INT(count_kind(fx->h, "rebuild-warning"), 5);	/* one for each balance followed onto it */
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-balance SOURCE_ROOT\n");
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "test-daemon-balance: needs root (mknod)\n");
		return 77;
	}
	root = argv[1];
	Fixture fx = {0};
	double now = 1796450825;	/* 5 Dec 2026 06:07:05 UTC, the fixtures' day */
	if (setup(&fx)) {
		test_follow(&fx, now);
		test_ends(&fx, now + 100);
		test_joined(&fx, now + 200);
	} else
		CHECK(!"set up");
	rebuilds_free(fx.rb);
	zfsevents_free(fx.z);
	recorder_free(fx.rec);
	devmap_free(fx.m);
	history_close(fx.h);
	config_done(&fx.cfg);
	registry_free(fx.r);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.t);
	CHECK(fx.t[0] && system(cmd) == 0);
	return test_done("test-daemon-balance");
}
