/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A btrfs balance and a device remove onto a watched disk, followed from
 * the readings rebuilds_btrfs_read() takes: a test's own /sys/fs/btrfs
 * and mountinfo, and in place of the ioctls on the mount point what the
 * kernel answers (the balance's progress, the devices' figures, whether a
 * path reaches the file system), with the real mapper and guard
 * (zfsevents), recorder and history. A raid1 of sdd (watched, signed) and sdg (not
 * watched), sdb added (watched, DM-SMR):
 *   - a full balance is followed onto sdb alone, warned of once; its bytes
 *     are what sdb's own counter took, never what btrfs allocated there;
 *     written past the share it was given, it is still not done: done only
 *     when the kernel says the balance is over;
 *   - paused then gone: canceled unless sdb holds its share; unmounted
 *     mid-way: ended unfinished; told from sysfs (no CAP_SYS_ADMIN), a disk
 *     seen joining is followed however far the first reading finds it;
 *   - a device remove of sdd: its chunks land on sdb, followed the same
 *     way, finished once sdd left the file system, canceled if it stayed;
 *   - a mount point covered by another mount (the kernel's FS_INFO does not
 *     reach the file system through it): another mount of it is used.
 */
#include "rebuilds.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "disk.h"
#include "events.h"
#include "rebuild-guard.h"
#include "rebuild-heard.h"
#include "test.h"
#include "util.h"
#include "zfsevents.h"

#define UUID "7c1e5a10-0b9a-4a61-9a3e-2f7d8a4e1f0c"
#define MNT "/mnt/b"
#define FS_DIR "sys/fs/btrfs/" UUID

/* What the kernel answers on the mount point. */
typedef struct Kernel {
	int balance_r;			/* 0, or -EPERM (no CAP_SYS_ADMIN) */
	BtrfsBalanceStatus balance;
	BtrfsShow show;
	int show_r;
	const char *reaches;		/* the one path through which FS_INFO names the file system */
	unsigned balance_asked;
} Kernel;

typedef struct Fixture {
	char t[64], sys[128], mi[128];	/* rebuilds keeps the roots: the fixture outlives it */
	DiskRegistry *r;
	History *h;
	Config cfg;
	Recorder *rec;			/* the one event path, as the daemon's */
	ZfsEvents *z;
	TestGuard guard;
	DevMap *m;
	Rebuilds *rb;
	Disk *sdb, *sdd;
	Kernel k;
	RebuildHeard heard;		/* warnings and ends, as the notifier would hear them */
	char warning[REBUILD_TEXT_MAX];
} Fixture;

static int k_reach(const char *path, const char *uuid, void *userdata)
{
	Kernel *k = userdata;
	return streq(uuid, UUID) && k->reaches && streq(path, k->reaches) ? 0 : -EXDEV;
}

static int k_show(const char *mount, BtrfsShow *ret, void *userdata)
{
	Kernel *k = userdata;
	CHECK_STR(mount, k->reaches);
	*ret = k->show;
	return k->show_r;
}

static int k_replace(const char *mount, BtrfsReplaceStatus *ret, void *userdata)
{
	(void)userdata, (void)mount;
	*ret = (BtrfsReplaceStatus){.state = BTRFS_REPLACE_NEVER_STARTED, .progress = NAN, .started = NAN, .stopped = NAN};
	return 0;
}

static int k_balance(const char *mount, BtrfsBalanceStatus *ret, void *userdata)
{
	Kernel *k = userdata;
	k->balance_asked++;
	*ret = k->balance;
	return k->balance_r;
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

/* As the daemon does (rebuildwatch.c): the guard through zfsevents. */
static void unwarned(Disk *d, const char *source, const char *path, void *userdata)
{
	Fixture *fx = userdata;
	RebuildCheck c;
	char w[REBUILD_TEXT_MAX];
	if (rebuildguard_warn(fx->guard.g, d, source, path, NULL, disk_rebuild(d)->total_bytes, 1796450825000000,
			      1796450825000000, &c, w))
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

/* "N out of about M chunks balanced", every chunk type, no filter */
static BtrfsBalanceStatus full(BtrfsBalanceState state, uint64_t completed, uint64_t expected)
{
	BtrfsBalanceStatus b = {.state = state, .completed = completed, .expected = expected, .considered = completed};
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		b.acts_on[t] = true;
	return b;
}

/* The devices' figures: three of 8 GB, sdg holding 3 GB of chunks; sdd's size 0 while it is removed */
static BtrfsShow show3(double sdd_size, double sdd_used, double sdb_used)
{
	BtrfsShow s = {.n_devs = 3, .devs = {{1, sdd_size, sdd_used, "/dev/sdd"}, {2, 8e9, 3e9, "/dev/sdg"},
					     {3, 8e9, sdb_used, "/dev/sdb"}}};
	return s;
}

static RebuildState *state(Fixture *fx)
{
	return disk_rebuild_mut(fx->sdb);
}

static void wrote(Fixture *fx, double bytes)
{
	fx->sdb->ds.total[DS_WRITE_SECTORS] += (uint64_t)(bytes / 512);
}

static void read_at(Fixture *fx, double now)
{
	rebuilds_btrfs_read(fx->rb, now);
}

static void set_devices(Fixture *fx, bool sdd, bool sdb)
{
	const char *names[] = {"sdd", "sdb"};
	const char *devs[] = {"8:48\n", "8:16\n"};
	bool want[] = {sdd, sdb};
	char p[512];
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/" FS_DIR "/devices/%s", fx->t, names[i]);
		char f[600];
		snprintf(f, sizeof f, "%s/dev", p);
		if (want[i] && access(p, F_OK) < 0) {
			CHECK(mkdir(p, 0755) == 0);
			char rel[128];
			snprintf(rel, sizeof rel, FS_DIR "/devices/%s/dev", names[i]);
			put(fx->t, rel, devs[i]);
		} else if (!want[i] && access(p, F_OK) == 0) {
			CHECK(unlink(f) == 0 && rmdir(p) == 0);
		}
	}
}

/* The file system's sysfs (6 GB of chunks, full), and the mount. */
static void tree(const char *t)
{
	char p[512];
	const char *dirs[] = {"dev", "sys", "sys/fs", "sys/fs/btrfs", FS_DIR, "db"};
	const char *fs_dirs[] = {"devices", "devices/sdd", "devices/sdg", "devices/sdb", "allocation", "allocation/data",
				 "allocation/data/raid1", "allocation/metadata", "allocation/metadata/raid1",
				 "allocation/system"};
	for (size_t i = 0; i < ELEMENTSOF(dirs) + ELEMENTSOF(fs_dirs); i++) {
		if (i < ELEMENTSOF(dirs))
			snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
		else
			snprintf(p, sizeof p, "%s/" FS_DIR "/%s", t, fs_dirs[i - ELEMENTSOF(dirs)]);
		CHECK(mkdir(p, 0755) == 0);
	}
	const char *files[][2] = {{"devices/sdd/dev", "8:48\n"}, {"devices/sdg/dev", "8:96\n"}, {"devices/sdb/dev", "8:16\n"},
				  {"allocation/data/disk_used", "5400000000\n"}, {"allocation/data/total_bytes", "2700000000\n"},
				  {"allocation/data/bytes_used", "2700000000\n"}, {"allocation/data/chunk_size", "10737418240\n"},
				  {"allocation/data/disk_total", "5400000000\n"}, {"allocation/data/raid1/total_bytes", "2700000000\n"},
				  {"allocation/metadata/disk_used", "600000000\n"}, {"allocation/metadata/bytes_used", "300000000\n"},
				  {"allocation/metadata/total_bytes", "300000000\n"}, {"allocation/metadata/disk_total", "600000000\n"},
				  {"allocation/metadata/raid1/total_bytes", "300000000\n"}, {"allocation/system/disk_used", "0\n"},
				  {"exclusive_operation", "none\n"}};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(p, sizeof p, FS_DIR "/%s", files[i][0]);
		put(t, p, files[i][1]);
	}
	put(t, "mountinfo", "36 22 0:46 / " MNT " rw - btrfs /dev/sdg rw\n");
	/* the kernel names DEV_INFO's paths carry, in sysfs */
	const char *names[][2] = {{"sdb", "8:16\n"}, {"sdd", "8:48\n"}, {"sdg", "8:96\n"}};
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		const char *sub[] = {"sys/class", "sys/class/block", NULL};
		for (size_t j = 0; i == 0 && sub[j]; j++) {
			snprintf(p, sizeof p, "%s/%s", t, sub[j]);
			CHECK(mkdir(p, 0755) == 0);
		}
		snprintf(p, sizeof p, "%s/sys/class/block/%s", t, names[i][0]);
		CHECK(mkdir(p, 0755) == 0);
		char rel[128];
		snprintf(rel, sizeof rel, "sys/class/block/%s/dev", names[i][0]);
		put(t, rel, names[i][1]);
	}
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
	int sfd = open(fx->sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK_INT(devmap_new(fx->r, sfd, -1, dev, &fx->m), 0);
	close(sfd);
	test_guard_new(&fx->guard, fx->r, fx->rec, fx->m);
	CHECK_INT(zfsevents_new(fx->r, fx->rec, fx->m, NULL, &fx->z), 0);
	RebuildsCallbacks cb = {.unwarned = unwarned, .userdata = fx};
	CHECK_INT(rebuilds_new(fx->r, fx->rec, fx->m, &cb, &fx->rb), 0);
	if (!fx->sdb || !fx->sdd || !fx->rb || !fx->z || !fx->h)
		return false;
	rebuilds_set_roots(fx->rb, fx->sys, fx->mi);
	fx->k = (Kernel){.balance = full(BTRFS_BALANCE_NONE, 0, 0), .show = show3(8e9, 3e9, 0), .reaches = MNT};
	RebuildsBtrfsOps ops = {.reach = k_reach, .show = k_show, .replace_status = k_replace, .balance_status = k_balance,
				.userdata = &fx->k};
	rebuilds_set_btrfs_ops(fx->rb, &ops);
	rebuilds_set_btrfs_sysfs(fx->rb, false);
	fx->sdb->ds = (DiskstatAccum){.primed = true, .n_fields = _DS_FIELD_MAX};
	return true;
}

/* A full balance onto sdb: followed from a reading at its start, moved
 * along by sdb's write counter alone, finished when the kernel says. */
static void test_follow(Fixture *fx, double now)
{
	read_at(fx, now);		/* none, none followed */
	CHECK_INT(rebuild_starts(&fx->heard), 0);
	CHECK_INT(fx->k.balance_asked, 1);
	/* first seen a fifth of the way: the layout says nothing any more */
	fx->k.balance = full(BTRFS_BALANCE_RUNNING, 1, 5);
	read_at(fx, now + 1);
	CHECK_INT(rebuild_starts(&fx->heard), 0);
	fx->k.balance.completed = 0;	/* seen at its start */
	read_at(fx, now + 2);
	CHECK_INT(rebuild_starts(&fx->heard), 1);
	CHECK_INT(fx->heard.warnings, 1);
	CHECK(strstr(fx->warning, "btrfs file system /mnt/b is rebuilding onto sdb") == fx->warning);
	CHECK_INT(state(fx)->kind, REBUILD_KIND_BTRFS_BALANCE);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	/* 2.7 GB of data in raid1 (in chunks of 1 GiB, a tenth of 24 GB being
	 * more), 0.3 GB of metadata: sdb has the most room as each new data
	 * chunk is made, so it takes a copy of each (as the recorded balances
	 * onto a device added did: fixtures/btrfs/move/), and none of the
	 * metadata's, made once sdd's and sdg's old data chunks are gone */
	CHECK_NEAR(state(fx)->total_bytes, 2.7e9, 1e3);
	CHECK_NEAR(state(fx)->done_bytes, 0, 0);
	CHECK(isfinite(state(fx)->expected));
	CHECK_INT(disk_rebuild_mut(fx->sdd)->phase, REBUILD_PHASE_NONE);	/* at its share */
	/* btrfs has allocated sdb its whole share, its counter says 0.6 GB written */
	fx->k.show = show3(8e9, 2e9, 2e9);
	fx->k.balance.completed = 3;
	wrote(fx, 0.6e9);
	read_at(fx, now + 12);
	CHECK_NEAR(state(fx)->done_bytes, (double)(uint64_t)(0.6e9 / 512) * 512, 1);
	CHECK(state(fx)->rate > 0 && isfinite(state(fx)->eta) && state(fx)->eta > 0);
	/* no devices' figures this time: still followed, nothing lost */
	fx->k.show_r = -EIO;
	read_at(fx, now + 14);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	CHECK_NEAR(state(fx)->total_bytes, 2.7e9, 1e3);
	fx->k.show_r = 0;
	/* written past the share while the kernel says it runs: not done, the share was short */
	wrote(fx, 2.3e9);
	read_at(fx, now + 30);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	CHECK(state(fx)->done_bytes < state(fx)->total_bytes);
	CHECK_NEAR(state(fx)->done_bytes / state(fx)->total_bytes, REBUILD_RUNNING_SHARE_MAX, 1e-9);
	CHECK(state(fx)->eta > 0);
	fx->k.balance = full(BTRFS_BALANCE_NONE, 0, 0);
	read_at(fx, now + 40);
	CHECK_INT(fx->heard.ended, 1);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	CHECK_NEAR(state(fx)->duration, 38, 0);
	CHECK(strstr(fx->heard.message, "balance of /mnt/b onto sdb finished in 38 s") == fx->heard.message);
	CHECK_INT(count_kind(fx->h, "rebuild-done"), 1);
	CHECK_INT(fx->heard.warnings, 1);
}

/* Paused when seen and gone at the next reading: canceled, unless sdb then
 * holds its share (resumed to its end in between); unmounted mid-way:
 * ended unfinished. */
static void test_ends(Fixture *fx, double now)
{
	fx->k.show = show3(8e9, 3e9, 0.1e9);
	fx->k.balance = full(BTRFS_BALANCE_PAUSED, 0, 4);
	read_at(fx, now);
	CHECK_INT(rebuild_starts(&fx->heard), 2);
	fx->k.balance = full(BTRFS_BALANCE_NONE, 0, 0);
	read_at(fx, now + 10);
	CHECK_INT(fx->heard.ended, 2);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_CANCELED);

	fx->k.balance = full(BTRFS_BALANCE_PAUSED, 0, 4);
	read_at(fx, now + 12);
	CHECK_INT(rebuild_starts(&fx->heard), 3);
	fx->k.balance = full(BTRFS_BALANCE_NONE, 0, 0);
	fx->k.show = show3(8e9, 2e9, 2.2e9);
	read_at(fx, now + 14);
	CHECK_INT(fx->heard.ended, 3);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);

	fx->k.show = show3(8e9, 3e9, 0.1e9);
	fx->k.balance = full(BTRFS_BALANCE_RUNNING, 0, 5);
	read_at(fx, now + 20);
	CHECK_INT(rebuild_starts(&fx->heard), 4);
	put(fx->t, "mountinfo", "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n");
	read_at(fx, now + 30);
	CHECK_INT(fx->heard.ended, 4);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_CANCELED);
	put(fx->t, "mountinfo", "36 22 0:46 / " MNT " rw - btrfs /dev/sdg rw\n");
	fx->k.balance = full(BTRFS_BALANCE_NONE, 0, 0);
	read_at(fx, now + 31);
}

/* Told from sysfs (the kernel refuses the balance's status): sdb at its
 * share is not filled by a balance; seen joining the file system (btrfs
 * device add), the next balance is followed onto it though sdb is near its
 * share (one large chunk), once; the one after is not. */
static void test_joined(Fixture *fx, double now)
{
	fx->k.balance_r = -EPERM;
	fx->k.show = show3(8e9, 2e9, 2e9);
	put(fx->t, FS_DIR "/exclusive_operation", "balance\n");
	read_at(fx, now);
	CHECK_INT(rebuild_starts(&fx->heard), 4);
	unsigned asked = fx->k.balance_asked;
	set_devices(fx, true, false);
	read_at(fx, now + 10);	/* not a member: nothing */
	CHECK_INT(rebuild_starts(&fx->heard), 4);
	CHECK_INT(fx->k.balance_asked, asked);	/* refused once: not asked again */
	set_devices(fx, true, true);
	read_at(fx, now + 20);
	CHECK_INT(rebuild_starts(&fx->heard), 5);
	CHECK(state(fx)->total_bytes > 0);
	put(fx->t, FS_DIR "/exclusive_operation", "none\n");
	read_at(fx, now + 25);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	put(fx->t, FS_DIR "/exclusive_operation", "balance\n");
	read_at(fx, now + 30);
	CHECK_INT(rebuild_starts(&fx->heard), 5);
	put(fx->t, FS_DIR "/exclusive_operation", "none\n");
	read_at(fx, now + 31);
	CHECK_INT(count_kind(fx->h, "rebuild-warning"), 5);	/* one for each balance followed onto it */
}

/* btrfs device remove of sdd: exclusive_operation says so, DEV_INFO gives
 * sdd size 0; its chunks land on sdb (the new, empty device), followed,
 * finished once sdd left the file system; a second one that leaves sdd in
 * place is canceled. */
static void test_remove(Fixture *fx, double now)
{
	/* the scan before it: no move under way, the layout it begins from */
	fx->k.show = show3(8e9, 3e9, 0);
	read_at(fx, now - 1);
	CHECK_INT(rebuild_starts(&fx->heard), 5);
	/* its first reading comes mid-way through a chunk: btrfs counts that
	 * chunk's content twice and sdb holds its new copy, empty yet */
	put(fx->t, FS_DIR "/exclusive_operation", "device remove\n");
	put(fx->t, FS_DIR "/allocation/data/bytes_used", "3700000000\n");
	fx->k.show = show3(0, 3e9, 1.07e9);
	read_at(fx, now);
	put(fx->t, FS_DIR "/allocation/data/bytes_used", "2700000000\n");
	CHECK_INT(rebuild_starts(&fx->heard), 6);
	CHECK_INT(state(fx)->kind, REBUILD_KIND_BTRFS_REMOVE);
	/* sdd's 3 GB of chunks over sdg and sdb, both copies of each on one of
	 * them: sdb takes a copy of what they held before it began */
	CHECK_NEAR(state(fx)->total_bytes, 3e9, 1e3);
	CHECK_INT(count_kind(fx->h, "rebuild-warning"), 6);
	fx->k.show = show3(0, 1.5e9, 1.5e9);
	wrote(fx, 1e9);
	read_at(fx, now + 10);
	CHECK_NEAR(state(fx)->done_bytes, (double)(uint64_t)(1e9 / 512) * 512, 1);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_RUNNING);
	put(fx->t, FS_DIR "/exclusive_operation", "none\n");
	set_devices(fx, false, true);
	read_at(fx, now + 20);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	CHECK(strstr(fx->heard.message, "device-remove of /mnt/b onto sdb finished in 20 s") == fx->heard.message);
	/* a remove that fails or is stopped: no device left when it ends */
	fx->k.show = show3(0, 3e9, 0.2e9);
	put(fx->t, FS_DIR "/exclusive_operation", "device remove\n");
	read_at(fx, now + 30);
	CHECK_INT(rebuild_starts(&fx->heard), 7);
	put(fx->t, FS_DIR "/exclusive_operation", "none\n");
	read_at(fx, now + 40);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_CANCELED);
	CHECK_INT(fx->heard.ended, 7);
}

/* The mount point covered by another mount: FS_INFO through it names
 * another file system; a bind mount of the file system is used instead,
 * and a replace is followed through it. */
static void test_overmount(Fixture *fx, double now)
{
	put(fx->t, "mountinfo", "36 22 0:46 / " MNT " rw - btrfs /dev/sdg rw\n"
				"40 22 0:46 / /mnt/alias rw - btrfs /dev/sdg rw\n"
				"41 36 0:50 / " MNT " rw - tmpfs tmpfs rw\n");
	fx->k.reaches = "/mnt/alias";
	fx->k.show = show3(8e9, 3e9, 0.1e9);
	fx->k.balance_r = 0;
	rebuilds_set_btrfs_sysfs(fx->rb, false);
	fx->k.balance = full(BTRFS_BALANCE_RUNNING, 0, 5);
	read_at(fx, now);
	CHECK_INT(rebuild_starts(&fx->heard), 8);
	CHECK_STR(state(fx)->pool, "/mnt/alias");
	fx->k.balance = full(BTRFS_BALANCE_NONE, 0, 0);
	read_at(fx, now + 10);
	CHECK_INT(state(fx)->phase, REBUILD_PHASE_FINISHED);
	/* nothing reaches it: nothing is asked, nothing followed */
	fx->k.reaches = NULL;
	unsigned asked = fx->k.balance_asked;
	fx->k.balance = full(BTRFS_BALANCE_RUNNING, 0, 5);
	read_at(fx, now + 20);
	CHECK_INT(fx->k.balance_asked, asked);
	CHECK_INT(rebuild_starts(&fx->heard), 8);
}

int main(void)
{
	if (geteuid() != 0)
		return test_unavailable("root", "test-daemon-balance: needs root (mknod)");
	Fixture fx = {0};
	double now = 1796450825;
	if (setup(&fx)) {
		test_follow(&fx, now);
		test_ends(&fx, now + 100);
		test_joined(&fx, now + 200);
		test_remove(&fx, now + 300);
		test_overmount(&fx, now + 400);
	} else
		CHECK(!"set up");
	rebuilds_free(fx.rb);
	zfsevents_free(fx.z);
	test_guard_free(&fx.guard);
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
