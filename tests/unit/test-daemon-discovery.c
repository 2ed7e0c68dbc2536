/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery alone, on a copy of a captured tree that the test changes under
 * it: its callbacks are fakes that record what they were told, and check
 * that a removed disk is still whole while its owner hears of it.
 * argv[1]: tests/fixtures/sysfs.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "discovery.h"
#include "log.h"
#include "test.h"
#include "unit-tree.h"

extern const char smrd_builtin_models[];

typedef struct Heard {
	char added[16][32], removed[16][32];
	unsigned n_added, n_removed, n_changed;
	DiskRegistry *disks;
	bool removed_was_registered;	/* the disk was still in the registry during removed() */
} Heard;

static void on_added(Disk *d, void *userdata)
{
	Heard *h = userdata;
	if (h->n_added < 16)
		snprintf(h->added[h->n_added], 32, "%s", d->name);
	h->n_added++;
}

static void on_removed(Disk *d, void *userdata)
{
	Heard *h = userdata;
	h->removed_was_registered = registry_get(h->disks, d->name) == d;
	if (h->n_removed < 16)
		snprintf(h->removed[h->n_removed], 32, "%s", d->name);
	h->n_removed++;
}

static void on_changed(void *userdata)
{
	((Heard *)userdata)->n_changed++;
}


static bool heard(char (*list)[32], unsigned n, const char *name)
{
	for (unsigned i = 0; i < n && i < 16; i++)
		if (streq(list[i], name))
			return true;
	return false;
}

static void reset(Heard *h)
{
	DiskRegistry *disks = h->disks;
	*h = (Heard){.disks = disks};
}

/* A copied tree's roots, as smrd opens them (not the live /sys). */
static DiskSources tree_sources(const char *root)
{
	return (DiskSources){.sysfs_fd = unit_tree_open(root, "sys"), .procfs_fd = unit_tree_open(root, "proc"),
			     .udev_fd = unit_tree_open(root, "udev"), .live = false};
}

/* The pools tree: each disk's memberships, then a pool destroyed and a
 * disk joining a volume group, seen at the next scan with a changed(). */
static void test_members(const char *fixtures, const ModelList *models, const DeviceFilter *all)
{
	_cleanup_(unit_tree_freep) char *root = unit_tree_copy(fixtures, "pools");
	CHECK(root != NULL);
	if (!root)
		return;
	DiskSources src = tree_sources(root);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	Heard h = {.disks = disks};
	DiscoveryCallbacks cb = {.added = on_added, .removed = on_removed, .changed = on_changed, .userdata = &h};
	Discovery *disc = NULL;
	CHECK_INT(discovery_new(e, &src, disks, &cb, false, &disc), 0);
	discovery_set_rules(disc, all, models);
	CHECK_INT(discovery_scan(disc), 0);
	/* md127 (slaves/ sdg1, sdh1), dm-0 (slaves/ sdi) and the zvol zd0
	 * are stacked: their members are the disks */
	CHECK_INT(registry_size(disks), 9);
	CHECK(!registry_get(disks, "md127") && !registry_get(disks, "dm-0") && !registry_get(disks, "zd0"));
	/* watch-stacked brings them back, and so does an include naming one */
	DeviceFilter *stacked = NULL, *named = NULL;
	char why[PATTERN_WHY_MAX];
	CHECK_INT(filter_new("", "", true, &stacked, why), 0);
	CHECK_INT(filter_new("^(dm-0|sd.)$", "", false, &named, why), 0);
	discovery_set_rules(disc, stacked, models);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK_INT(registry_size(disks), 12);
	Disk *dm = registry_get(disks, "dm-0");
	CHECK(dm && dm->sys.facts.stacked[0] && registry_get(disks, "md127") && registry_get(disks, "zd0"));
	discovery_set_rules(disc, named, models);
	discovery_reclassify(disc);
	CHECK_INT(registry_size(disks), 10);
	CHECK(registry_get(disks, "dm-0") && !registry_get(disks, "md127"));
	discovery_set_rules(disc, all, models);
	discovery_reclassify(disc);
	CHECK_INT(registry_size(disks), 9);
	filter_free(stacked);
	filter_free(named);
	Disk *sda = registry_get(disks, "sda"), *sdg = registry_get(disks, "sdg"), *sdi = registry_get(disks, "sdi");
	CHECK(sda && sda->n_members == 1 && sda->members[0].type == MEMBER_ZFS &&
	      streq(sda->members[0].name, "tank") && streq(sda->members[0].via, "sda1"));
	CHECK(sdg && sdg->n_members == 1 && sdg->members[0].type == MEMBER_MD && streq(sdg->members[0].name, "md127"));
	CHECK(sdi && sdi->n_members == 1 && sdi->members[0].type == MEMBER_LVM &&
	      streq(sdi->members[0].name, "vg-data"));

	/* zpool destroy wipes the labels; sda joins nothing; the next scan says so */
	reset(&h);
	CHECK_INT(unit_tree_write(src.udev_fd, "data/b8:1", "E:ID_PART_ENTRY_NAME=zfs\n"), 0);
	CHECK_INT(discovery_scan(disc), 0);
	sda = registry_get(disks, "sda");
	CHECK(sda && sda->n_members == 0);
	CHECK_INT(h.n_changed, 1);
	/* garbage in the database is no membership, and no crash */
	CHECK_INT(unit_tree_write(src.udev_fd, "data/b8:1", "E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL\n\x01\n"), 0);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK(sda && sda->n_members == 0);
	/* the md array stopped: its members keep the array's created name */
	reset(&h);
	CHECK_INT(unlinkat(src.sysfs_fd, "block/sdg/sdg1/holders/md127", 0), 0);
	discovery_refresh_members(disc);
	sdg = registry_get(disks, "sdg");
	CHECK(sdg && sdg->n_members == 1 && streq(sdg->members[0].name, "0") &&
	      streq(sdg->members[0].detail, "not assembled"));
	CHECK_INT(h.n_changed, 1);

	discovery_free(disc);
	registry_free(disks);
	sd_event_unref(e);
	close(src.sysfs_fd), close(src.procfs_fd), close(src.udev_fd);
}

static bool decided_by(const Disk *d, EvidenceRank rank)
{
	for (unsigned i = 0; i < d->verdict.n_sources; i++)
		if (d->verdict.sources[i].decisive)
			return d->verdict.sources[i].rank == rank;
	return false;
}

/* The disks asked for their FARM log since the last call: with no device
 * nodes where the reader looks, each ask is answered at once, without a
 * smartctl run ("is not device"). */
static unsigned asked(DiskRegistry *disks)
{
	unsigned n = 0;
	for (size_t i = 0; i < registry_size(disks); i++) {
		Disk *d = registry_at(disks, i);
		if (d->farm && d->farm->state == FARM_FAILED) {
			CHECK(strstr(d->farm->detail, "is not device") != NULL);
			n++;
		}
		if (d->farm && d->farm->state != FARM_SMR)
			*d->farm = (FarmReading){.state = FARM_NOT_READ};
	}
	return n;
}

/* Seagate's FARM log is asked for as often as the model list is matched
 * (when a disk is found, when its model strings change, on a reload) and
 * on smrctl reread, never on a rescan or a re-read the kernel asked for;
 * only of the disks smartctl reads it from (the tree's three Seagates);
 * what smartctl read is kept with the disk through re-reads and
 * classifies it, for the device it was asked for only. */
static void test_farm(const char *fixtures, const ModelList *models, const DeviceFilter *all)
{
	_cleanup_(unit_tree_freep) char *root = unit_tree_copy(fixtures, "pools");
	CHECK(root != NULL);
	if (!root)
		return;
	DiskSources src = tree_sources(root);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	Discovery *disc = NULL;
	CHECK_INT(discovery_new(e, &src, disks, NULL, false, &disc), 0);
	discovery_set_rules(disc, all, models);
	char *smartctl = (char *)"smartctl", nodes[600];
	snprintf(nodes, sizeof nodes, "%s/no-such-dev", root);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK_INT(registry_size(disks), 9);
	CHECK_INT(asked(disks), 0);
	/* the reader comes with the reaper, after the first scan: it asks of every disk there */
	CHECK_INT(discovery_read_farm(disc, &smartctl, nodes, NULL), 0);
	CHECK_INT(asked(disks), 3);
	CHECK_INT(discovery_read_farm(disc, &smartctl, nodes, NULL), 0);	/* once */
	CHECK_INT(asked(disks), 0);
	CHECK_INT(discovery_scan(disc), 0);
	discovery_reread(disc, "sdg");
	CHECK_INT(asked(disks), 0);
	discovery_ask_farm(disc, "sdg");	/* smrctl reread */
	discovery_ask_farm(disc, "sda");	/* a WD: smartctl reads no FARM of it */
	CHECK_INT(asked(disks), 1);

	/* sdg, an IronWolf no list names: cmr by its rotation; its log says SMR */
	Disk *sdg = registry_get(disks, "sdg");
	CHECK(sdg && sdg->verdict.class == DISK_CLASS_CMR && decided_by(sdg, EVIDENCE_ROTATING));
	FarmReading smr = {.state = FARM_SMR};
	snprintf(smr.detail, sizeof smr.detail, "Drive Recording Type: SMR");
	discovery_set_farm(disc, "sdg", 8, 97, &smr);	/* another device's answer: not sdg's */
	CHECK(sdg && sdg->verdict.class == DISK_CLASS_CMR);
	discovery_set_farm(disc, "sdg", 8, 96, &smr);
	CHECK(sdg && sdg->verdict.class == DISK_CLASS_DM_SMR && decided_by(sdg, EVIDENCE_VENDOR_LOG));
	discovery_reread(disc, "sdg");
	sdg = registry_get(disks, "sdg");
	CHECK(sdg && sdg->verdict.class == DISK_CLASS_DM_SMR && sdg->farm && sdg->farm->state == FARM_SMR);
	CHECK_INT(asked(disks), 0);

	/* its model string changes: asked again */
	CHECK_INT(unit_tree_write(src.udev_fd, "data/b8:96", "E:ID_MODEL=ST4000VN006-3CW104\nE:ID_SERIAL_SHORT=ZGY0MD00\n"), 0);
	discovery_reread(disc, "sdg");
	CHECK(sdg && sdg->farm && sdg->farm->state == FARM_FAILED);	/* the new answer in place of the old */
	CHECK(sdg && sdg->verdict.class == DISK_CLASS_CMR);
	CHECK_INT(asked(disks), 1);
	discovery_reread(disc, "sdg");
	CHECK_INT(asked(disks), 0);	/* the same strings again: not asked */
	CHECK_INT(unit_tree_write(src.udev_fd, "data/b8:96", "E:ID_MODEL=ST4000VN008-2DR166\nE:ID_SERIAL_SHORT=ZGY0MD00\n"), 0);
	discovery_reread(disc, "sdg");
	CHECK_INT(asked(disks), 1);
	/* a reload asks every one of them again */
	discovery_reclassify(disc);
	CHECK_INT(asked(disks), 3);
	discovery_set_farm(disc, "nosuch", 8, 96, &smr);	/* gone: nothing */

	discovery_free(disc);
	registry_free(disks);
	sd_event_unref(e);
	close(src.sysfs_fd), close(src.procfs_fd), close(src.udev_fd);
}

int main(int argc, char **argv)
{
	log_set_max_level(LOG_CRIT);	/* the module logs what it drops; the test checks what it says */
	const char *fixtures = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
	_cleanup_(unit_tree_freep) char *root = unit_tree_copy(fixtures, "mixed");
	CHECK(root != NULL);
	if (!root)
		return test_done("daemon-discovery");

	DiskSources src = tree_sources(root);
	CHECK(src.sysfs_fd >= 0 && src.procfs_fd >= 0 && src.udev_fd >= 0);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	Heard h = {.disks = disks};
	DiscoveryCallbacks cb = {.added = on_added, .removed = on_removed, .changed = on_changed, .userdata = &h};
	Discovery *disc = NULL;
	CHECK_INT(discovery_new(e, &src, disks, &cb, false, &disc), 0);
	DeviceFilter *all = NULL, *no_sdb = NULL;
	char why[PATTERN_WHY_MAX];
	CHECK_INT(filter_new("", "", false, &all, why), 0);
	CHECK_INT(filter_new("", "^sdb$", false, &no_sdb, why), 0);
	ModelList *models = NULL;
	char *err = NULL;
	CHECK_INT(modellist_parse(smrd_builtin_models, &models, &err), 0);
	free(err);
	discovery_set_rules(disc, all, models);

	/* the tree's three disks (loop0 has size 0, partitions are never disks) */
	CHECK_INT(discovery_scan(disc), 0);
	CHECK_INT(registry_size(disks), 3);
	CHECK_INT(h.n_added, 3);
	CHECK(heard(h.added, h.n_added, "sda") && heard(h.added, h.n_added, "sdb") &&
	      heard(h.added, h.n_added, "nvme0n1"));
	CHECK_INT(h.n_removed, 0);
	CHECK_INT(h.n_changed, 3);
	Disk *sda = registry_get(disks, "sda");
	CHECK(sda && sda->sys.major == 8 && sda->sys.minor == 0);
	CHECK(sda && sda->added_usec > 0);

	/* a second scan of the same tree says nothing */
	reset(&h);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK_INT(h.n_added + h.n_removed + h.n_changed, 0);
	/* a re-read (a udev change event, smrctl reread) with the same model
	 * strings keeps what the list said: audit 4, finding 3 */
	uint64_t matched = modellist_matches(models);
	discovery_reread(disc, "sda");
	CHECK(registry_get(disks, "sda") != NULL);
	CHECK_INT(modellist_matches(models), matched);

	/* a reload that excludes sdb: removed while still registered, then gone */
	reset(&h);
	discovery_set_rules(disc, no_sdb, models);
	discovery_reclassify(disc);
	CHECK_INT(h.n_removed, 1);
	CHECK(heard(h.removed, h.n_removed, "sdb"));
	CHECK(h.removed_was_registered);
	CHECK(registry_get(disks, "sdb") == NULL);
	CHECK_INT(h.n_added, 0);
	discovery_set_rules(disc, all, models);
	reset(&h);
	matched = modellist_matches(models);
	discovery_reclassify(disc);
	CHECK(modellist_matches(models) > matched);	/* a reload matches again */
	CHECK_INT(h.n_added, 1);
	CHECK(heard(h.added, h.n_added, "sdb"));

	/* a disk that vanishes from the tree is dropped at the next scan */
	reset(&h);
	CHECK_INT(unlinkat(src.sysfs_fd, "block/nvme0n1", 0), 0);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK_INT(h.n_removed, 1);
	CHECK(heard(h.removed, h.n_removed, "nvme0n1"));
	CHECK(h.removed_was_registered);
	CHECK_INT(registry_size(disks), 2);

	/* a medium removed (size 0): the cheap check drops it */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/size", "0\n"), 0);
	discovery_check(disc, "sda");
	CHECK_INT(h.n_removed, 1);
	CHECK(registry_get(disks, "sda") == NULL);
	/* and it comes back with its medium */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/size", "3907029168\n"), 0);
	discovery_check(disc, "sda");
	CHECK_INT(h.n_added, 1);
	CHECK(registry_get(disks, "sda") != NULL);

	/* another device under the same name (new dev_t): the old one goes first */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sdb/dev", "8:32\n"), 0);
	discovery_reread(disc, "sdb");
	CHECK_INT(h.n_removed, 1);
	CHECK_INT(h.n_added, 1);
	Disk *sdb = registry_get(disks, "sdb");
	CHECK(sdb && sdb->sys.minor == 32);

	/* an unreadable size: watched with class unknown, counted once */
	reset(&h);
	uint64_t errors = discovery_read_errors(disc);
	CHECK_INT(unlinkat(src.sysfs_fd, "block/sdb/size", 0), 0);
	CHECK_INT(mkdirat(src.sysfs_fd, "block/sdb/size", 0755), 0);
	discovery_reread(disc, "sdb");
	discovery_check(disc, "sdb");
	discovery_scan(disc);
	sdb = registry_get(disks, "sdb");
	CHECK(sdb && sdb->verdict.class == DISK_CLASS_UNKNOWN);
	CHECK_INT(discovery_read_errors(disc), errors + 1);
	CHECK_INT(h.n_removed, 0);

	/* an optical drive (SCSI type 5, sr0) is not a disk: never watched */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/device/type", "5\n"), 0);
	discovery_reread(disc, "sda");
	CHECK_INT(h.n_removed, 1);
	CHECK(registry_get(disks, "sda") == NULL);
	discovery_scan(disc);
	CHECK(registry_get(disks, "sda") == NULL);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/device/type", "0\n"), 0);
	discovery_scan(disc);
	CHECK(registry_get(disks, "sda") != NULL);

	/* names that are not safe in a path are ignored, not probed */
	reset(&h);
	discovery_reread(disc, "../../etc");
	discovery_reread(disc, "");
	discovery_check(disc, "nosuchdisk");
	CHECK_INT(h.n_added + h.n_removed + h.n_changed, 0);

	/* A captured tree's partial scans: block/ is listed again only when it
	 * changed, the disks in turn are re-read either way. Its time is set
	 * in the past, so that the listing is not a racy one. */
	struct timespec old[2] = {{.tv_sec = 1600000000}, {.tv_sec = 1600000000}};
	CHECK_INT(unlinkat(src.sysfs_fd, "block/sdb/size", AT_REMOVEDIR), 0);	/* the unreadable size above */
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sdb/size", "3907029168\n"), 0);
	CHECK_INT(utimensat(src.sysfs_fd, "block", old, 0), 0);
	CHECK_INT(discovery_scan_some(disc, 1), 0);
	/* an entry added, its time set back: the change time still tells */
	reset(&h);
	CHECK_INT(symlinkat("../devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1", src.sysfs_fd,
			    "block/nvme0n1"), 0);
	CHECK_INT(utimensat(src.sysfs_fd, "block", old, 0), 0);
	CHECK_INT(discovery_scan_some(disc, 1), 0);
	CHECK(heard(h.added, h.n_added, "nvme0n1"));
	CHECK_INT(registry_size(disks), 3);
	/* a medium removed: found when its disk's turn comes */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/size", "0\n"), 0);
	for (int i = 0; i < 3; i++)
		CHECK_INT(discovery_scan_some(disc, 1), 0);
	CHECK(heard(h.removed, h.n_removed, "sda"));
	CHECK_INT(registry_size(disks), 2);
	/* back with its medium, in a block/ that did not change: not in any
	 * disk's turn, so the full scan (rarer) finds it */
	reset(&h);
	CHECK_INT(unit_tree_write(src.sysfs_fd, "block/sda/size", "3907029168\n"), 0);
	for (int i = 0; i < 3; i++)
		CHECK_INT(discovery_scan_some(disc, 1), 0);
	CHECK(registry_get(disks, "sda") == NULL);
	CHECK_INT(discovery_scan(disc), 0);
	CHECK(registry_get(disks, "sda") != NULL);
	/* and a disk that goes is gone at the next partial scan */
	reset(&h);
	CHECK_INT(unlinkat(src.sysfs_fd, "block/nvme0n1", 0), 0);
	CHECK_INT(discovery_scan_some(disc, 1), 0);
	CHECK(heard(h.removed, h.n_removed, "nvme0n1"));
	CHECK_INT(registry_size(disks), 2);

	/* a scan that cannot enumerate keeps what is watched */
	reset(&h);
	size_t before = registry_size(disks);
	CHECK_INT(renameat(src.sysfs_fd, "block", src.sysfs_fd, "block.away"), 0);
	CHECK(discovery_scan(disc) < 0);
	CHECK_INT(registry_size(disks), before);
	CHECK_INT(h.n_removed, 0);
	CHECK_INT(renameat(src.sysfs_fd, "block.away", src.sysfs_fd, "block"), 0);

	/* no callbacks at all is allowed */
	Discovery *quiet = NULL;
	DiskRegistry *other = registry_new();
	CHECK_INT(discovery_new(e, &src, other, NULL, false, &quiet), 0);
	discovery_set_rules(quiet, all, models);
	CHECK_INT(discovery_scan(quiet), 0);
	CHECK_INT(registry_size(other), 2);
	discovery_free(quiet);
	registry_free(other);

	discovery_free(disc);
	test_members(fixtures, models, all);
	test_farm(fixtures, models, all);
	filter_free(all);
	filter_free(no_sdb);
	modellist_free(models);
	registry_free(disks);
	sd_event_unref(e);
	close(src.sysfs_fd), close(src.procfs_fd), close(src.udev_fd);
	return test_done("daemon-discovery");
}
