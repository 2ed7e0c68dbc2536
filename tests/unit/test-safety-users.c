/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qualify's view of who uses a block device (cli/safety-users.c) on a sysfs
 * tree made here: a partition is looked at with its whole disk and the
 * disk's other partitions; mounts and swap are matched by device number,
 * a swap path that no longer resolves is a refusal, /proc/swaps's
 * escapes are undone before the path is looked at, and a loop device set
 * up over a member (matched by the device number of the node its
 * backing_file names) is a user, with what uses it in turn. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "safety-users.h"
#include "test.h"

static char root[256];

static void put(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(const char *rel, const char *fmt, ...)
{
	char path[512], text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "we");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void dir(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	CHECK(mkdir(path, 0755) == 0);
}

static void link_to(const char *target, const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	CHECK(symlink(target, path) == 0);
}

static bool said(const SafetyReport *r, const char *what)
{
	for (unsigned i = 0; i < r->n; i++)
		if (strstr(r->reason[i], what))
			return true;
	return false;
}

/* loopA (7:0) with partitions loopAp1 (259:0) and loopAp2 (the number of
 * this directory's file system, so a swap file here is "on" it), as the
 * kernel lays them out: the partitions inside the disk's directory, all
 * three reachable through class/block. */
static void tree(dev_t here)
{
	const char *dirs[] = {"sys", "sys/class", "sys/class/block", "sys/devices", "sys/devices/virtual",
			      "sys/devices/virtual/block", "sys/devices/virtual/block/loopA",
			      "sys/devices/virtual/block/loopA/holders", "sys/devices/virtual/block/loopA/loopAp1",
			      "sys/devices/virtual/block/loopA/loopAp2", "sys/devices/virtual/block/loopA/loopAp2/holders",
			      "sys/devices/virtual/block/loopA/loopAp2/holders/dm-3", "proc"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		dir(dirs[i]);
	put("sys/devices/virtual/block/loopA/dev", "7:0\n");
	put("sys/devices/virtual/block/loopA/loopAp1/dev", "259:0\n");
	put("sys/devices/virtual/block/loopA/loopAp1/partition", "1\n");
	put("sys/devices/virtual/block/loopA/loopAp2/dev", "%u:%u\n", major(here), minor(here));
	put("sys/devices/virtual/block/loopA/loopAp2/partition", "2\n");
	link_to("../../devices/virtual/block/loopA", "sys/class/block/loopA");
	link_to("../../devices/virtual/block/loopA/loopAp1", "sys/class/block/loopAp1");
	link_to("../../devices/virtual/block/loopA/loopAp2", "sys/class/block/loopAp2");
	put("swapfile", "%s", "");
}

/* A block device node to stand for the disk: one made here (root), else
 * any the machine has; the family is the disk it stands for. */
static bool block_node(const char *at, dev_t *ret)
{
	struct stat st;
	if (mknod(at, S_IFBLK | 0600, makedev(7, 0)) == 0 && stat(at, &st) == 0) {
		*ret = st.st_rdev;
		return true;
	}
	DIR *d = opendir("/dev");
	char p[600];
	bool found = false;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		snprintf(p, sizeof p, "/dev/%s", e->d_name);
		found = stat(p, &st) == 0 && S_ISBLK(st.st_mode) && symlink(p, at) == 0;
	}
	if (d)
		closedir(d);
	*ret = found ? st.st_rdev : 0;
	return found;
}

/* loopB over the disk (mounted), loopC over a regular file, loopD over a
 * path that no longer resolves: loopB alone is said, with its mount. */
static void loops_above(const SafetyTarget *target, const char *at)
{
	SafetyTarget named = *target, *t = &named;
	named.name = "sdq";
	const char *dirs[] = {"sys/block", "sys/block/loopB", "sys/block/loopB/loop", "sys/block/loopB/holders",
			      "sys/block/loopC", "sys/block/loopC/loop", "sys/block/loopD", "sys/block/loopD/loop",
			      "sys/block/loopE"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		dir(dirs[i]);
	char node[400];
	dev_t disk;
	snprintf(node, sizeof node, "%s/node", at);
	CHECK(block_node(node, &disk));
	Family f = {.n = 1};
	snprintf(f.dev[0].name, sizeof f.dev[0].name, "sdq");
	f.dev[0].major = major(disk), f.dev[0].minor = minor(disk);
	put("sys/block/loopB/dev", "7:1234\n");
	put("sys/block/loopB/loop/backing_file", "%s\n", node);
	put("sys/block/loopC/dev", "7:1235\n");
	put("sys/block/loopC/loop/backing_file", "%s/swapfile\n", at);
	put("sys/block/loopD/dev", "7:1236\n");
	put("sys/block/loopD/loop/backing_file", "%s/gone (deleted)\n", at);
	put("sys/block/loopE/dev", "7:1237\n");	/* not set up: no loop/ */
	put("mountinfo", "50 1 7:1234 / /mnt/b rw - ext4 /dev/loopB rw\n");
	SafetyReport r = {0};
	safety_loops_over(t, &f, &r);
	CHECK(said(&r, "loopB is set up over it "));
	CHECK(said(&r, "above it, loopB, in use: loopB is mounted at /mnt/b"));
	CHECK(!said(&r, "loopC") && !said(&r, "loopD") && !said(&r, "loopE"));
	CHECK_INT(r.n, 2);
	/* the same loop seen from beside the disk (not the target): by name */
	named.name = "sdz";
	SafetyReport beside = {0};
	safety_loops_over(t, &f, &beside);
	CHECK(said(&beside, "loopB is set up over sdq "));
	/* another disk's family: nothing above it */
	f.dev[0].minor++;
	SafetyReport none = {0};
	safety_loops_over(t, &f, &none);
	CHECK_INT(none.n, 0);
}

int main(void)
{
	char s[] = "/tmp/sw\\040node\\134x\\0";
	safety_unescape(s);
	CHECK_STR(s, "/tmp/sw node\\x\\0");

	snprintf(root, sizeof root, "/tmp/test-safety-users.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	struct stat st;
	CHECK(stat(root, &st) == 0);
	tree(st.st_dev);
	char sysfs[300], mountinfo[300], swaps[300], proc[300];
	snprintf(sysfs, sizeof sysfs, "%s/sys", root);
	snprintf(mountinfo, sizeof mountinfo, "%s/mountinfo", root);
	snprintf(swaps, sizeof swaps, "%s/swaps", root);
	snprintf(proc, sizeof proc, "%s/proc", root);
	SafetyTarget t = {.sysfs_root = sysfs, .udev_root = root, .mountinfo = mountinfo, .swaps = swaps, .proc_root = proc};

	/* a partition: its disk first, then both partitions, itself marked */
	Family f;
	safety_family(&t, "loopAp1", makedev(259, 0), &f);
	CHECK_INT(f.n, 3);
	CHECK_STR(f.dev[0].name, "loopA");
	CHECK_INT(f.dev[0].major, 7);
	CHECK_STR(f.dev[f.self].name, "loopAp1");
	CHECK(f.self != 0);
	CHECK(safety_family_has(&f, makedev(7, 0)));
	CHECK(safety_family_has(&f, st.st_dev));
	CHECK(!safety_family_has(&f, makedev(7, 1)));
	/* the disk itself: the same family */
	Family w;
	safety_family(&t, "loopA", makedev(7, 0), &w);
	CHECK_INT(w.n, 3);
	CHECK_INT(w.self, 0);
	/* a device sysfs does not know: itself alone */
	Family u;
	safety_family(&t, "sdz", makedev(8, 0), &u);
	CHECK_INT(u.n, 1);
	CHECK_STR(u.dir, "");

	/* the disk mounted, a sibling held, a swap file on a sibling, a swap
	 * path that is gone: all said of the partition asked about */
	put("mountinfo", "36 1 7:0 / /mnt/whole rw - ext4 /dev/loopA rw\n40 1 8:1 / /elsewhere rw - ext4 /dev/sda1 rw\n");
	put("swaps", "Filename\tType\tSize\tUsed\tPriority\n%s/swapfile file 100 0 -2\n/gone\\040away partition 100 0 -3\n",
	    root);
	SafetyReport r = {0};
	safety_users(&t, &f, &r);
	CHECK(said(&r, "loopA is mounted at /mnt/whole"));
	CHECK(!said(&r, "/elsewhere"));
	CHECK(said(&r, "loopAp2 is held by dm-3"));
	CHECK(said(&r, "loopAp2 holds a swap file in use"));
	CHECK(said(&r, "swap /gone away no longer resolves"));
	CHECK_INT(r.n, 4);

	/* nothing of it in use: nothing said */
	put("mountinfo", "40 1 8:1 / /elsewhere rw - ext4 /dev/sda1 rw\n");
	put("swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	SafetyReport none = {0};
	char held[400];
	snprintf(held, sizeof held, "%s/sys/devices/virtual/block/loopA/loopAp2/holders/dm-3", root);
	CHECK(rmdir(held) == 0);
	safety_users(&t, &f, &none);
	CHECK_INT(none.n, 0);

	loops_above(&t, root);

	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return test_done("safety-users");
}
