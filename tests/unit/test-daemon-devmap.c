/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device path mapper on its own trees: a /sys with kernel names and a
 * partition, udev's links/ index as systemd-udevd writes it (entries named
 * by device id, empty files of the old format or "PRIORITY:DEVNODE"
 * symlinks of the new one, stack directories with and without a leading
 * \x2f), and a /dev holding one link udev did not make (mknod: root, as
 * the suite runs). What udev and sysfs say is enough: the /dev link is
 * found only when the caller allows it, and never says whether a path
 * exists otherwise.
 */
#include "devmap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test.h"
#include "util.h"

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

static void dirs(const char *t, const char *const *list, size_t n)
{
	char p[512];
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/%s", t, list[i]);
		CHECK(mkdir(p, 0755) == 0);
	}
}

static void link_at(const char *t, const char *target, const char *path)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", t, path);
	CHECK(symlink(target, p) == 0);
}

/* sdb 8:16 with its partition sdb1 259:7, sdc 8:32, dm-0 253:0 (not watched) */
static void tree(const char *t)
{
	static const char *const d[] = {
		"sys", "sys/dev", "sys/dev/block", "sys/class", "sys/class/block", "sys/devices", "sys/devices/sdb",
		"sys/devices/sdb/sdb1", "sys/devices/sdc", "sys/devices/dm-0", "udev", "udev/data", "udev/links",
		"udev/links/disk\\x2fby-id\\x2fata-WDC_X-part1", "udev/links/disk\\x2fby-id\\x2fwwn-0x5000c500a",
		"udev/links/\\x2fdisk\\x2fby-path\\x2fpci-0000:00:1f.2-ata-3", "udev/links/disk\\x2fby-label\\x2ftie",
		"udev/links/mapper\\x2fmpatha", "udev/links/disk\\x2fby-id\\x2fgone", "dev", "dev/shm",
	};
	dirs(t, d, ELEMENTSOF(d));
	put(t, "sys/devices/sdb/dev", "8:16\n");
	put(t, "sys/devices/sdb/sdb1/dev", "259:7\n");
	put(t, "sys/devices/sdb/sdb1/partition", "1\n");
	put(t, "sys/devices/sdc/dev", "8:32\n");
	put(t, "sys/devices/dm-0/dev", "253:0\n");
	static const char *const links[][2] = {
		{"../../devices/sdb", "sys/dev/block/8:16"}, {"../../devices/sdb/sdb1", "sys/dev/block/259:7"},
		{"../../devices/sdc", "sys/dev/block/8:32"}, {"../../devices/dm-0", "sys/dev/block/253:0"},
		{"../../devices/sdb", "sys/class/block/sdb"}, {"../../devices/sdb/sdb1", "sys/class/block/sdb1"},
		{"../../devices/sdc", "sys/class/block/sdc"}, {"../../devices/dm-0", "sys/class/block/dm-0"},
		/* the new format: the claim names its priority and node */
		{"0:/dev/sdc", "udev/links/disk\\x2fby-id\\x2fwwn-0x5000c500a/b8:32"},
		/* multipath: the dm device claims the link above its paths */
		{"10:/dev/sdb", "udev/links/mapper\\x2fmpatha/b8:16"},
		{"50:/dev/dm-0", "udev/links/mapper\\x2fmpatha/b253:0"},
		/* two claims of one priority: which one the link leads to cannot be told */
		{"0:/dev/sdb", "udev/links/disk\\x2fby-label\\x2ftie/b8:16"},
		{"0:/dev/sdc", "udev/links/disk\\x2fby-label\\x2ftie/b8:32"},
	};
	for (size_t i = 0; i < ELEMENTSOF(links); i++)
		link_at(t, links[i][0], links[i][1]);
	/* the old format: empty files, the priority in the device's record */
	put(t, "udev/links/disk\\x2fby-id\\x2fata-WDC_X-part1/b259:7", "");
	put(t, "udev/data/b259:7", "S:disk/by-id/ata-WDC_X-part1\nL:0\nE:DEVTYPE=partition\n");
	put(t, "udev/links/\\x2fdisk\\x2fby-path\\x2fpci-0000:00:1f.2-ata-3/b8:32", "");
	/* a claim left by a device that is gone */
	put(t, "udev/links/disk\\x2fby-id\\x2fgone/b8:99", "");
	/* a link only smrd's /dev has (no udev): to sdb's partition */
	char p[512];
	snprintf(p, sizeof p, "%s/dev/sdb1", t);
	CHECK(mknod(p, S_IFBLK | 0600, makedev(259, 7)) == 0);
	link_at(t, "../sdb1", "dev/shm/handmade");
}

static void add_disk(DiskRegistry *r, const char *name, unsigned ma, unsigned mi)
{
	Disk d = {0}, *got = NULL;
	snprintf(d.name, sizeof d.name, "%s", name);
	d.sys.major = ma, d.sys.minor = mi;
	diskview_init(&d.view);
	CHECK_INT(registry_add(r, &d, &got), 0);
}

static const char *name_of(DevMap *m, const char *path, bool look_in_dev, int *ret)
{
	Disk *d = NULL;
	*ret = devmap_disk(m, path, look_in_dev, &d);
	return d ? d->name : "";
}

static void test_map(const char *t)
{
	char sys[512], udev[512], dev[512];
	snprintf(sys, sizeof sys, "%s/sys", t), snprintf(udev, sizeof udev, "%s/udev", t), snprintf(dev, sizeof dev, "%s/dev", t);
	DiskRegistry *r = registry_new();
	add_disk(r, "sdb", 8, 16);
	add_disk(r, "sdc", 8, 32);
	int sfd = open(sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ufd = open(udev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DevMap *m = NULL;
	CHECK_INT(devmap_new(r, sfd, ufd, dev, &m), 0);
	close(sfd), close(ufd);
	CHECK(registry_by_devnum(r, 8, 32) == registry_get(r, "sdc"));
	CHECK(registry_by_devnum(r, 259, 7) == NULL);

	int e;
	/* kernel names, a partition to its whole disk */
	CHECK_STR(name_of(m, "/dev/sdb1", false, &e), "sdb");
	CHECK_INT(e, 0);
	CHECK_STR(name_of(m, "/dev/sdc", false, &e), "sdc");
	CHECK_STR(name_of(m, "/dev/dm-0", false, &e), "");
	CHECK_INT(e, -ENXIO);
	dev_t dv = 0;
	CHECK_INT(devmap_devnum(m, "/dev/sdb1", false, &dv), 0);
	CHECK(dv == makedev(259, 7));
	/* udev's links, both formats, both directory names */
	CHECK_STR(name_of(m, "/dev/disk/by-id/ata-WDC_X-part1", false, &e), "sdb");
	CHECK_STR(name_of(m, "/dev/disk/by-id/wwn-0x5000c500a", false, &e), "sdc");
	CHECK_STR(name_of(m, "/dev/disk/by-path/pci-0000:00:1f.2-ata-3", false, &e), "sdc");
	/* the highest claim wins: the link is the multipath device's, not sdb's */
	CHECK_STR(name_of(m, "/dev/mapper/mpatha", false, &e), "");
	CHECK_INT(e, -ENXIO);
	CHECK_INT(devmap_devnum(m, "/dev/mapper/mpatha", false, &dv), 0);
	CHECK(dv == makedev(253, 0));
	CHECK_INT(devmap_devnum(m, "/dev/disk/by-label/tie", false, &dv), -ENODEV);
	CHECK_INT(devmap_devnum(m, "/dev/disk/by-id/gone", false, &dv), -ENODEV);
	/* a link udev did not make: only where smrd's /dev may be asked */
	CHECK_INT(devmap_devnum(m, "/dev/shm/handmade", false, &dv), -ENODEV);
	CHECK_STR(name_of(m, "/dev/shm/handmade", true, &e), "sdb");
	CHECK_INT(devmap_devnum(m, "/dev/shm/absent", false, &dv), -ENODEV);
	CHECK_INT(devmap_devnum(m, "/dev/shm/absent", true, &dv), -ENOENT);
	/* what no lookup may take */
	CHECK_INT(devmap_devnum(m, "/dev/../etc/passwd", true, &dv), -EINVAL);
	CHECK_INT(devmap_devnum(m, "/etc/passwd", true, &dv), -EINVAL);
	CHECK_INT(devmap_devnum(m, "/dev/sd b", true, &dv), -EINVAL);
	CHECK(strstr(devmap_strerror(-ENODEV), "udev") != NULL);

	/* no udev database, no sysfs: nothing is known, nothing fails */
	DevMap *bare = NULL;
	CHECK_INT(devmap_new(r, -1, -1, dev, &bare), 0);
	CHECK_INT(devmap_devnum(bare, "/dev/sdb1", false, &dv), -ENODEV);
	CHECK(devmap_disk_of(bare, makedev(8, 16)) == registry_get(r, "sdb"));
	devmap_free(bare);
	devmap_free(m);
	registry_free(r);
}

int main(void)
{
	if (geteuid() != 0)
		return test_unavailable("root", "test-daemon-devmap: needs root (mknod)");
	char t[] = "/tmp/test-devmap.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	tree(t);
	test_map(t);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-devmap");
}
