/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrfs's chunk allocator replayed over a move, against what real moves
 * wrote: each file in tests/fixtures/btrfs/move/ was recorded on this
 * machine by record-move.sh there (Linux 6.18, btrfs-progs 6.2, loop
 * devices over tmpfs): the devices' figures and sysfs allocation/ before a
 * full balance or a device remove onto a device added, and what each
 * device's diskstats took during it. The replay begins, as smrd does, from
 * the layout before with the sizes of the first reading during it (a
 * removed device's 0).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "btrfsalloc.h"
#include "btrfsbalance.h"
#include "test.h"
#include "util.h"

#define MIB 1048576.0

typedef struct Case {
	bool remove;
	uint64_t convert;
	BtrfsShow before, during, after;
	BtrfsTypeFigures type[_BTRFS_CHUNK_TYPE_MAX];
	double written[BTRFS_SHOW_DEVS_MAX + 1];	/* by devid */
	int exit_status;
} Case;

static void add_dev(BtrfsShow *s, unsigned long long devid, double size, double used)
{
	if (s->n_devs < BTRFS_SHOW_DEVS_MAX)
		s->devs[s->n_devs++] = (BtrfsShowDevice){.devid = devid, .size = size, .used = used};
}

static void add_type(Case *c, const char *kind, const char *prof, double used, double total, double disk, double cs)
{
	static const char *const kinds[_BTRFS_CHUNK_TYPE_MAX] = {"data", "metadata", "system"};
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		if (streq(kind, kinds[t]))
			c->type[t] = (BtrfsTypeFigures){.profile = btrfs_profile_from_name(prof), .used = used, .total = total,
							.disk_total = disk, .chunk_size = cs};
}

static bool load(const char *dir, const char *name, Case *c)
{
	char path[512], line[256], w[32], a[32], b[32];
	snprintf(path, sizeof path, "%s/%s.txt", dir, name);
	FILE *f = fopen(path, "re");
	CHECK(f != NULL);
	if (!f)
		return false;
	*c = (Case){0};
	while (fgets(line, sizeof line, f)) {
		unsigned long long id;
		double x, y, z, v;
		if (sscanf(line, "move %31s %31s", w, a) == 2) {
			c->remove = streq(w, "remove");
			c->convert = btrfs_profile_from_name(a);
		} else if (sscanf(line, "%31s %llu %lf %lf", w, &id, &x, &y) == 4 && !strchr(w, '-')) {
			add_dev(streq(w, "before") ? &c->before : streq(w, "during") ? &c->during : &c->after, id, x, y);
		} else if (sscanf(line, "type %31s %31s %lf %lf %lf %lf", a, b, &x, &y, &z, &v) == 6) {
			add_type(c, a, b, x, y, z, v);
		} else if (sscanf(line, "written %llu %lf", &id, &x) == 2 && id <= BTRFS_SHOW_DEVS_MAX) {
			c->written[id] = x;
		} else if (sscanf(line, "exit %d", &c->exit_status) == 1) {
			continue;
		}
	}
	fclose(f);
	return c->before.n_devs > 0 && c->before.n_devs == c->during.n_devs;
}

/* The replay of case `name` against its recording: what it writes onto the
 * device added (the last one), within `within` of what that took. */
static void check_case(const char *dir, const char *name, double within)
{
	Case c;
	if (!load(dir, name, &c)) {
		CHECK(!"a recorded case");
		return;
	}
	unsigned n = c.before.n_devs, k = n - 1;
	double size[BTRFS_SHOW_DEVS_MAX], used[BTRFS_SHOW_DEVS_MAX], wrote[BTRFS_SHOW_DEVS_MAX], after[BTRFS_SHOW_DEVS_MAX];
	BtrfsMove m = {.n_devs = n, .size = size, .used = used, .removed = -1, .type = c.type};
	for (unsigned i = 0; i < n; i++) {
		size[i] = c.during.devs[i].size, used[i] = c.before.devs[i].used;
		if (size[i] == 0)
			m.removed = (int)i;
	}
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		m.acts_on[t] = true, m.convert_to[t] = c.convert;
	CHECK_INT(c.remove, m.removed >= 0);
	CHECK_INT(btrfs_move_replay(&m, wrote, after), 0);
	double real = c.written[c.before.devs[k].devid];
	printf("  %-22s devid %llu: %7.1f MiB foreseen, %7.1f MiB written (%+.1f%%); it holds %6.1f MiB of chunks, "
	       "foreseen %6.1f\n", name, (unsigned long long)c.before.devs[k].devid, wrote[k] / MIB, real / MIB,
	       (wrote[k] / real - 1) * 100, c.after.devs[c.after.n_devs - 1].used / MIB, after[k] / MIB);
	CHECK(real > 0 && fabs(wrote[k] / real - 1) <= within);
}

static void test_recorded(const char *dir)
{
	/* the sizes of smrd's full-tier test (87), and larger, fuller, emptier */
	const char *raid1[] = {"raid1-balance", "raid1-remove", "raid1-4g-balance", "raid1-4g-remove", "raid1-8g-balance",
			       "raid1-three-balance", "raid1-three-remove", "raid1-holes-balance", "raid1-holes-remove",
			       "raid1-full-balance", "raid1-fuller-balance", "raid1-big-target"};
	for (size_t i = 0; i < ELEMENTSOF(raid1); i++)
		check_case(dir, raid1[i], 0.03);
	/* other profiles, a convert */
	const char *other[] = {"single-balance", "raid10-balance", "raid10-remove", "raid1c3-balance", "single-convert"};
	for (size_t i = 0; i < ELEMENTSOF(other); i++)
		check_case(dir, other[i], 0.05);
	/* removes that leave chunks in place: those take what they have room
	 * for first, and whose room that is (the last chunk made, half empty,
	 * on one device or another) the figures do not tell */
	check_case(dir, "raid1-full-remove", 0.12);
	check_case(dir, "single-remove", 0.12);
	/* raid5 writes each partial stripe's parity again: more than its share */
	check_case(dir, "raid5-balance", 0.15);
}

#define GIB 1073741824.0

/* Inputs the replay refuses or cannot carry through. */
static void test_edges(void)
{
	/* two raid1 devices of 1 GiB holding 0.5 GiB each, the data 0.4 GiB */
	BtrfsTypeFigures type[_BTRFS_CHUNK_TYPE_MAX] = {
		{BTRFS_PROFILE_RAID1, 0.4 * GIB, 0.5 * GIB, GIB, NAN}, {0, NAN, NAN, NAN, NAN}, {0, NAN, NAN, NAN, NAN}};
	double size[3] = {GIB, 0, 0.25 * GIB}, used[3] = {0.5 * GIB, 0.5 * GIB, 0}, wrote[3], after[3];
	BtrfsMove m = {.n_devs = 3, .size = size, .used = used, .removed = 1, .type = type,
		       .acts_on = {true, true, true}};
	/* removing one leaves a quarter of a GiB for the second copy of 0.4: no room */
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -ENOSPC);
	CHECK(wrote[2] > 0 && wrote[2] <= 0.25 * GIB);
	/* a device as large: room, a whole copy onto it (metadata and system unknown, left out) */
	size[2] = GIB;
	CHECK_INT(btrfs_move_replay(&m, wrote, after), 0);
	CHECK_NEAR(wrote[2], 0.4 * GIB, 1);
	CHECK_NEAR(after[1], 0, 1);
	/* a balance of metadata alone writes no data */
	m.removed = -1;
	size[1] = GIB;
	m.acts_on[BTRFS_CHUNK_DATA] = false;
	CHECK_INT(btrfs_move_replay(&m, wrote, after), 0);
	CHECK_NEAR(wrote[2], 0, 0);
	CHECK_NEAR(after[0], used[0], 0);
	m.acts_on[BTRFS_CHUNK_DATA] = true;
	/* chunks of 1 MiB over 1 PiB of data: past the chunks it replays */
	double big[3] = {1024 * 1024 * GIB, 1024 * 1024 * GIB, 1024 * 1024 * GIB}, none[3] = {0, 0, 0};
	BtrfsTypeFigures tiny = {BTRFS_PROFILE_SINGLE, 1024 * 1024 * GIB, 1024 * 1024 * GIB, 1024 * 1024 * GIB,
				 1048576};
	BtrfsMove huge = {.n_devs = 3, .size = big, .used = none, .removed = -1, .type = &tiny, .acts_on = {true}};
	BtrfsTypeFigures three[_BTRFS_CHUNK_TYPE_MAX] = {tiny, {0, NAN, NAN, NAN, NAN}, {0, NAN, NAN, NAN, NAN}};
	huge.type = three;
	CHECK_INT(btrfs_move_replay(&huge, wrote, after), -ERANGE);
	/* bad inputs */
	m.removed = 3;
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -EINVAL);
	m.removed = -1;
	used[0] = NAN;
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -EINVAL);
	used[0] = 0.5 * GIB;
	type[BTRFS_CHUNK_DATA].profile = 1;	/* no profile of btrfs's */
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -EINVAL);
	type[BTRFS_CHUNK_DATA].profile = BTRFS_PROFILE_RAID1;
	type[BTRFS_CHUNK_DATA].used = GIB;	/* more than its chunks hold */
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -EINVAL);
	m.n_devs = 0;
	CHECK_INT(btrfs_move_replay(&m, wrote, after), -EINVAL);
	CHECK_INT(btrfs_move_replay(NULL, wrote, after), -EINVAL);
	/* sysfs's names of the profiles */
	CHECK(btrfs_profile_from_name("raid1c3") == BTRFS_PROFILE_RAID1C3);
	CHECK(btrfs_profile_from_name("single") == BTRFS_PROFILE_SINGLE);
	CHECK(btrfs_profile_from_name("RAID1") == 0 && btrfs_profile_from_name("raid") == 0);
	CHECK(btrfs_profile_from_name(NULL) == 0);
}

int main(int argc, char **argv)
{
	test_recorded(argc > 1 ? argv[1] : "tests/fixtures/btrfs/move");
	test_edges();
	return test_done("btrfsalloc");
}
