/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sysfs/udev reader on the fixture trees: every case classifies as its
 * "expected" file says, partitions are refused, names are validated. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "sysfs.h"
#include "test.h"

extern const char smrd_builtin_models[];

static void check_case(const char *dir, const ModelList *ml)
{
	char path[4200], line[256];
	snprintf(path, sizeof path, "%s/sys", dir);
	int sys = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof path, "%s/udev", dir);
	int udev = open(path, O_RDONLY | O_DIRECTORY);	/* may be missing */
	snprintf(path, sizeof path, "%s/expected", dir);
	FILE *f = fopen(path, "re");
	CHECK(sys >= 0 && f);
	if (sys < 0 || !f)
		return;
	while (fgets(line, sizeof line, f)) {
		char dev[64], cls[32];
		double conf;
		if (sscanf(line, "%63s %31s %lf", dev, cls, &conf) != 3)
			continue;
		SysfsDisk d;
		Verdict v;
		int r = sysfs_read_disk(sys, udev, dev, &d, NULL);
		CHECK_INT(r, 0);
		if (r < 0)
			continue;
		classify_disk(&d.facts, ml, &v);
		if (strcmp(disk_class_to_string(v.class), cls) != 0)
			fprintf(stderr, "case %s device %s: %s (%s)\n", dir, dev, disk_class_to_string(v.class), v.basis);
		CHECK_STR(disk_class_to_string(v.class), cls);
		CHECK_NEAR(v.smr_confidence, conf, 1e-9);
		CHECK(d.size_sectors > 0);
	}
	fclose(f);
	close(sys);
	if (udev >= 0)
		close(udev);
}

static void put(int dfd, const char *path, const char *text)
{
	int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* A tree made here: a partition listed under block/ is refused, a malformed
 * dev file is an error, a disk with only dev and size is probed. */
static void test_edge_entries(void)
{
	char root[] = "/tmp/smrd-test-sysfs-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	mkdirat(fd, "block", 0755);
	mkdirat(fd, "block/sdq", 0755);
	mkdirat(fd, "block/sdq1", 0755);
	mkdirat(fd, "block/sdz", 0755);
	put(fd, "block/sdq/dev", "8:240\n");
	put(fd, "block/sdq/size", "2048\n");
	put(fd, "block/sdq1/dev", "8:241\n");
	put(fd, "block/sdq1/partition", "1\n");
	put(fd, "block/sdz/dev", "eight:zero\n");
	SysfsDisk d;
	CHECK_INT(sysfs_read_disk(fd, -1, "sdq", &d, NULL), 0);
	CHECK_INT(d.major, 8);
	CHECK_INT(d.minor, 240);
	CHECK_INT(d.size_sectors, 2048);
	CHECK_INT(sysfs_read_disk(fd, -1, "sdq1", &d, NULL), -ENOTBLK);
	CHECK_INT(sysfs_read_disk(fd, -1, "sdz", &d, NULL), -EBADMSG);
	CHECK_INT(sysfs_read_disk(fd, -1, "sdy", &d, NULL), -ENOENT);
	CHECK_INT(sysfs_read_disk(fd, -1, "../block/sdq", &d, NULL), -EINVAL);
	uint64_t size;
	CHECK_INT(sysfs_read_size(fd, "sdq", &size), 0);
	CHECK_INT(size, 2048);

	/* A FIFO in place of an attribute must not block (the audit's hang), and
	 * an unreadable size is an error the classifier states, never a zero. */
	mkdirat(fd, "block/sdf", 0755);
	put(fd, "block/sdf/dev", "8:80\n");
	CHECK_INT(mkfifoat(fd, "block/sdf/size", 0644), 0);
	mkdirat(fd, "block/sdf/queue", 0755);
	CHECK_INT(mkfifoat(fd, "block/sdf/queue/rotational", 0644), 0);
	CHECK_INT(sysfs_read_disk(fd, -1, "sdf", &d, NULL), 0);
	CHECK_INT(d.facts.size_status, -EBADFD);
	CHECK_INT(d.size_sectors, 0);
	CHECK_INT(d.facts.rotational, -1);
	CHECK_INT(sysfs_read_size(fd, "sdf", &size), -EBADFD);
	Verdict v;
	classify_disk(&d.facts, NULL, &v);
	CHECK_STR(disk_class_to_string(v.class), "unknown");
	CHECK(strstr(v.basis, "size could not be read") != NULL);
	bool said = false;
	for (unsigned i = 0; i < v.n_evidence; i++)
		said |= strstr(v.evidence[i].source, "size") && strstr(v.evidence[i].value, "not a regular file") &&
			v.evidence[i].decisive;
	CHECK(said);
	/* a directory where the size should be, and a missing one */
	mkdirat(fd, "block/sdg", 0755);
	put(fd, "block/sdg/dev", "8:96\n");
	mkdirat(fd, "block/sdg/size", 0755);
	CHECK_INT(sysfs_read_disk(fd, -1, "sdg", &d, NULL), 0);
	CHECK_INT(d.facts.size_status, -EBADFD);
	mkdirat(fd, "block/sdh", 0755);
	put(fd, "block/sdh/dev", "8:112\n");
	CHECK_INT(sysfs_read_disk(fd, -1, "sdh", &d, NULL), 0);
	CHECK_INT(d.facts.size_status, -ENOENT);
	close(fd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

int main(int argc, char **argv)
{
	ModelList *ml = NULL;
	char *err = NULL;
	unsigned cases = 0;
	if (argc < 2 || modellist_parse(smrd_builtin_models, &ml, &err) < 0) {
		fprintf(stderr, "usage: test-sysfs FIXTURE-DIR\n");
		return 1;
	}
	DIR *d = opendir(argv[1]);
	CHECK(d != NULL);
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char dir[2048];
		snprintf(dir, sizeof dir, "%s/%s", argv[1], de->d_name);
		check_case(dir, ml);
		cases++;
	}
	if (d)
		closedir(d);
	CHECK(cases >= 14);
	test_edge_entries();
	CHECK(!sysfs_valid_name("../etc"));
	CHECK(!sysfs_valid_name(".."));
	CHECK(!sysfs_valid_name(""));
	CHECK(sysfs_valid_name("nvme0n1"));
	char buf[32];
	CHECK(udevdb_lookup("S:disk/by-id/x\nE:ID_MODEL=ST8000\nE:ID_MODEL_ENC=x\n", "ID_MODEL", buf, sizeof buf));
	CHECK_STR(buf, "ST8000");
	CHECK(!udevdb_lookup("E:ID_MODELX=1\n", "ID_MODEL", buf, sizeof buf));
	modellist_free(ml);
	printf("%u fixture cases\n", cases);
	return test_done("test-sysfs");
}
