/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampler alone: a scratch procfs root whose diskstats the test
 * rewrites between samples, a registry it fills by hand, and a fake of the
 * missing-disk callback that drops the disk as discovery would.
 */
#include <math.h>

#include "log.h"

#include "sampler.h"
#include "test.h"
#include "unit-tree.h"

typedef struct Missing {
	DiskRegistry *disks;
	char names[8][32];
	unsigned n;
	bool drop;			/* behave like discovery finding it gone */
} Missing;

static void on_missing(const char *name, void *userdata)
{
	Missing *m = userdata;
	if (m->n < 8)
		snprintf(m->names[m->n], 32, "%s", name);
	m->n++;
	if (m->drop)
		registry_remove(m->disks, name);
}

static Disk *add(DiskRegistry *r, const char *name, unsigned major, unsigned minor)
{
	Disk n = {.sys = {.major = major, .minor = minor}}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	return registry_add(r, &n, &d) == 0 ? d : NULL;
}

/* One diskstats line with reads r, writes w, write_ms wms, io_ms iom. */
static void line(char *buf, size_t n, unsigned major, unsigned minor, const char *name, uint64_t r, uint64_t w,
		 uint64_t wms, uint64_t iom)
{
	size_t len = strlen(buf);
	snprintf(buf + len, n - len, "%4u %7u %s %lu 0 %lu 10 %lu 0 %lu %lu 0 %lu %lu 0 0 0 0 0 0\n", major, minor,
		 name, (unsigned long)r, (unsigned long)(r * 8), (unsigned long)w, (unsigned long)(w * 8),
		 (unsigned long)wms, (unsigned long)iom, (unsigned long)(wms + 10));
}

int main(void)
{
	log_set_max_level(LOG_CRIT);
	_cleanup_(unit_tree_freep) char *root = unit_tree_empty();
	CHECK(root != NULL);
	if (!root)
		return test_done("daemon-sampler");
	int procfs = unit_tree_open(root, "");
	CHECK(procfs >= 0);
	DiskRegistry *disks = registry_new();
	Disk *sda = add(disks, "sda", 8, 0), *sdb = add(disks, "sdb", 8, 16);
	CHECK(sda && sdb);
	Sampler *s = NULL;
	CHECK_INT(sampler_new(procfs, disks, &s), 0);
	Missing m = {.disks = disks};
	char text[4096];

	/* no file: an error, counted, nothing touched, nobody called missing */
	CHECK(sampler_sample(s, 1000000, on_missing, &m) < 0);
	CHECK_INT(sampler_stats(s)->read_errors, 1);
	CHECK_INT(sampler_stats(s)->samples, 0);
	CHECK_INT(m.n, 0);

	/* the first sample primes: totals, no deltas, no interval */
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 100, 200, 1000, 500);
	line(text, sizeof text, 8, 1, "sda1", 100, 200, 1000, 500);
	line(text, sizeof text, 8, 16, "sdb", 5, 6, 7, 8);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 2000000, on_missing, &m), 0);
	CHECK_INT(sda->ds.total[DS_WRITES], 200);
	CHECK_INT(sda->ds.delta[DS_WRITES], 0);
	CHECK_INT(m.n, 0);
	CHECK_INT(sampler_stats(s)->samples, 1);
	CHECK_INT(sampler_stats(s)->last_usec, 2000000);

	/* the second: deltas over the measured interval (2.5 s, not the nominal) */
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 150, 450, 3000, 1500);
	line(text, sizeof text, 8, 16, "sdb", 5, 6, 7, 8);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 4500000, on_missing, &m), 0);
	CHECK_INT(sda->ds.delta[DS_WRITES], 250);
	CHECK_INT(sda->ds.delta[DS_READS], 50);
	CHECK_INT(sda->ds.delta[DS_WRITE_MS], 2000);
	CHECK_NEAR(sda->interval, 2.5, 1e-9);
	CHECK_INT(sdb->ds.delta[DS_WRITES], 0);

	/* a line with another dev_t under a watched name is not that disk;
	 * a repeated line and a garbage line are counted, the first line counts */
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 160, 460, 3100, 1600);
	line(text, sizeof text, 8, 0, "sda", 999, 999, 9999, 9999);
	line(text, sizeof text, 8, 99, "sdb", 1, 1, 1, 1);
	strcat(text, "garbage line\n");
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	uint64_t bad = sampler_stats(s)->bad_lines;
	CHECK_INT(sampler_sample(s, 5500000, on_missing, &m), 0);
	CHECK_INT(sda->ds.delta[DS_WRITES], 10);
	CHECK_INT(sampler_stats(s)->bad_lines, bad + 2);
	/* sdb (8:16) is not listed: the callback hears of it */
	CHECK_INT(m.n, 1);
	CHECK_STR(m.names[0], "sdb");
	CHECK(registry_get(disks, "sdb") != NULL);

	/* a file that cannot be read keeps the last values */
	CHECK_INT(unlinkat(procfs, "diskstats", 0), 0);
	CHECK_INT(mkdirat(procfs, "diskstats", 0755), 0);
	uint64_t total = sda->ds.total[DS_WRITES];
	m.n = 0;
	CHECK(sampler_sample(s, 6500000, on_missing, &m) < 0);
	CHECK_INT(sda->ds.total[DS_WRITES], total);
	CHECK_INT(m.n, 0);
	CHECK_INT(sampler_stats(s)->read_errors, 2);
	CHECK_INT(unlinkat(procfs, "diskstats", AT_REMOVEDIR), 0);

	/* counters that go back for good (a reset): totals never decrease, counted */
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 1, 2, 3, 4);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	m = (Missing){.disks = disks, .drop = true};
	for (int i = 0; i < 3; i++) {
		text[0] = 0;
		line(text, sizeof text, 8, 0, "sda", 1 + (uint64_t)i, 2 + (uint64_t)i * 10, 3, 4);
		CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
		CHECK_INT(sampler_sample(s, 7500000 + (uint64_t)i * 1000000, on_missing, &m), 0);
	}
	CHECK(sda->ds.total[DS_WRITES] >= total);
	CHECK(sampler_stats(s)->resets >= 1);
	/* the callback dropped sdb, as discovery does for a vanished disk */
	CHECK(registry_get(disks, "sdb") == NULL);
	CHECK_INT(registry_size(disks), 1);

	/* without a callback, a missing disk is simply not updated */
	CHECK_INT(sampler_sample(s, 20000000, NULL, NULL), 0);

	/* lines are matched by where they were the last time: a line whose
	 * name changed is looked up again, and a disk added since is found on
	 * a line that named no watched disk before */
	text[0] = 0;
	line(text, sizeof text, 8, 1, "sda1", 1, 1, 1, 1);
	line(text, sizeof text, 8, 0, "sda", 1000, 2000, 10, 10);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 21000000, NULL, NULL), 0);
	uint64_t w0 = sda->ds.total[DS_WRITES];
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 1000, 2100, 10, 10);	/* where sda1 was */
	line(text, sizeof text, 8, 48, "sdz", 1, 1, 1, 1);		/* where sda was: not watched */
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 22000000, NULL, NULL), 0);
	CHECK_INT(sda->ds.total[DS_WRITES], w0 + 100);
	Disk *sdz = add(disks, "sdz", 8, 48);
	CHECK(sdz != NULL);
	for (int i = 0; i < 2; i++) {
		text[0] = 0;
		line(text, sizeof text, 8, 0, "sda", 1000, 2100, 10, 10);
		line(text, sizeof text, 8, 48, "sdz", 1, 1 + (uint64_t)i * 7, 1, 1);
		CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
		CHECK_INT(sampler_sample(s, 23000000 + (uint64_t)i * 1000000, NULL, NULL), 0);
	}
	CHECK(sdz && sdz->ds.primed && sdz->ds.delta[DS_WRITES] == 7);

	/* A quiet disk's line, the same text as last time, is not parsed
	 * again but still counted: seen, its interval measured, nothing
	 * moved; the next change is counted in full; a second line for a
	 * disk is still a duplicate. */
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 1000, 2200, 10, 10);
	line(text, sizeof text, 8, 48, "sdz", 1, 8, 1, 1);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 30000000, NULL, NULL), 0);
	CHECK_INT(sda->ds.delta[DS_WRITES], 100);
	uint64_t w1 = sda->ds.total[DS_WRITES], bad0 = sampler_stats(s)->bad_lines;
	CHECK_INT(sampler_sample(s, 31500000, NULL, NULL), 0);	/* the same file */
	CHECK(sda->seen && sdz->seen);
	CHECK_INT(sda->ds.delta[DS_WRITES], 0);
	CHECK_INT(sda->ds.total[DS_WRITES], w1);
	CHECK(fabs(sda->interval - 1.5) < 1e-9);
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 1000, 2250, 10, 10);
	line(text, sizeof text, 8, 48, "sdz", 1, 8, 1, 1);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 32500000, NULL, NULL), 0);
	CHECK_INT(sda->ds.delta[DS_WRITES], 50);
	CHECK_INT(sda->ds.total[DS_WRITES], w1 + 50);
	CHECK_INT(sdz->ds.delta[DS_WRITES], 0);
	CHECK(fabs(sda->interval - 1.0) < 1e-9);
	text[0] = 0;
	line(text, sizeof text, 8, 0, "sda", 1000, 2250, 10, 10);
	line(text, sizeof text, 8, 0, "sda", 1000, 2999, 10, 10);
	CHECK_INT(unit_tree_write(procfs, "diskstats", text), 0);
	CHECK_INT(sampler_sample(s, 33500000, NULL, NULL), 0);
	CHECK_INT(sda->ds.total[DS_WRITES], w1 + 50);	/* the first line counts */
	CHECK_INT(sampler_stats(s)->bad_lines, bad0 + 1);
	/* a bad line is bad every time, however often it comes again */
	CHECK_INT(unit_tree_write(procfs, "diskstats", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12\n"), 0);
	for (int i = 0; i < 2; i++)
		CHECK_INT(sampler_sample(s, 34500000 + (uint64_t)i * 1000000, NULL, NULL), 0);
	CHECK_INT(sampler_stats(s)->bad_lines, bad0 + 3);
	CHECK_INT(sda->ds.total[DS_WRITES], w1 + 50);
	/* ... a line nobody reads too, and one that passed is still not bad
	 * when it comes again, changed or not */
	const char *const partitions[] = {"8 1 sda1 1 2 3 4 5 6 7 8 9 10 11 12\n", "8 1 sda1 1 2 3 4 5 6 7 8 9 10 11 12\n",
					  "8 1 sda1 1 2 3 4 5 6 7 8 9 10 11\n", "8 1 sda1 1 2 3 4 5 6 7 8 9 10 11\n",
					  "8 1 sda1 1 2 3 4 5 6 7 8 9 10 12\n"};
	for (size_t i = 0; i < ELEMENTSOF(partitions); i++) {
		CHECK_INT(unit_tree_write(procfs, "diskstats", partitions[i]), 0);
		CHECK_INT(sampler_sample(s, 36500000 + (uint64_t)i * 1000000, NULL, NULL), 0);
	}
	CHECK_INT(sampler_stats(s)->bad_lines, bad0 + 5);

	sampler_free(s);
	registry_free(disks);
	close(procfs);
	return test_done("daemon-sampler");
}
