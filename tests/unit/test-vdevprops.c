/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slow_io_n/slow_io_t as zed resolves them for one leaf, from zpool status
 * -P's tree and zpool get's values (tests/fixtures/zpool, each with its
 * source): the leaf's own value over its parents', each property on its
 * own; unset by default; refused whole when cut, garbled or hostile, so
 * that the daemon says "not known" and never warns wrongly.
 * argv[1]: tests/fixtures/zpool.
 */
#include <fcntl.h>

#include "test.h"
#include "util.h"
#include "vdevprops.h"

#define NEW "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1"
#define OLD "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ0QZ8M-part1"
#define LOG "/dev/disk/by-id/ata-WDC_WD1500HLFS-01G6U0_WD-WXL708054896-part1"

static const char *dir;

static char *load(const char *name, size_t *ret_len)
{
	char path[512];
	char *text = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int r = read_file_at(AT_FDCWD, path, VDEV_PROPS_INPUT_MAX, &text, ret_len);
	if (r < 0)
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(-r));
	return text;
}

static VdevTree *tree_of(const char *text, size_t len)
{
	_cleanup_free_ char *err = NULL;
	VdevTree *t = NULL;
	int r = vdev_tree_parse(text, len, "dpool", &t, &err);
	if (r < 0)
		fprintf(stderr, "tree: %s\n", err ? err : strerror(-r));
	CHECK_INT(r, 0);
	return t;
}

static VdevProps *props_of(const char *text, size_t len)
{
	_cleanup_free_ char *err = NULL;
	VdevProps *p = NULL;
	int r = vdev_props_parse(text, len, &p, &err);
	if (r < 0)
		fprintf(stderr, "props: %s\n", err ? err : strerror(-r));
	CHECK_INT(r, 0);
	return p;
}

static int find(const VdevTree *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (streq(t->nodes[i].name, name))
			return (int)i;
	return -1;
}

static void test_tree(void)
{
	size_t len;
	_cleanup_free_ char *text = load("status-P-replacing.txt", &len);
	VdevTree *t = text ? tree_of(text, len) : NULL;
	CHECK(t);
	if (!t)
		return;
	CHECK_INT(t->n, 8);
	int n = find(t, NEW), o = find(t, OLD), l = find(t, LOG), rep = find(t, "replacing-1"), m = find(t, "mirror-0");
	CHECK(n >= 0 && o >= 0 && l >= 0 && rep >= 0 && m >= 0);
	if (n < 0 || o < 0 || l < 0 || rep < 0 || m < 0)
		return (void)vdev_tree_free(t);
	CHECK(t->nodes[n].leaf && t->nodes[n].resilvering);
	CHECK(t->nodes[o].leaf && !t->nodes[o].resilvering);
	CHECK(!t->nodes[rep].leaf && !t->nodes[m].leaf);
	CHECK_INT(t->nodes[n].depth, 3);
	CHECK_INT(t->nodes[n].parent, rep);
	CHECK_INT(t->nodes[rep].parent, m);
	CHECK_INT(t->nodes[m].parent, 0);
	CHECK_STR(t->nodes[0].name, "dpool");
	/* the log device hangs from the "logs" heading, which stands for the root */
	CHECK_INT(t->nodes[t->nodes[l].parent].depth, 0);
	CHECK_STR(t->nodes[t->nodes[l].parent].name, "logs");
	vdev_tree_free(t);
	/* another pool's name: no config block for dpool */
	_cleanup_free_ char *err = NULL;
	CHECK_INT(vdev_tree_parse(text, len, "tank", &t, &err), -EINVAL);
	CHECK(err && strstr(err, "no config block for pool tank"));
}

/* Resolves the new disk's setting from the fixture's tree and `get`. */
static int resolve(const char *get, size_t get_len, SlowIoSetting *s)
{
	size_t len;
	_cleanup_free_ char *text = load("status-P-replacing.txt", &len), *err = NULL;
	VdevTree *t = text ? tree_of(text, len) : NULL;
	VdevProps *p = props_of(get, get_len);
	int r = -EINVAL;
	if (t && p && find(t, NEW) >= 0)
		r = slow_io_resolve(t, (size_t)find(t, NEW), p, s, &err);
	if (r < 0 && err)
		fprintf(stderr, "resolve: %s\n", err);
	vdev_tree_free(t);
	vdev_props_free(p);
	return r;
}

static void test_fixtures(void)
{
	size_t len;
	SlowIoSetting s;
	_cleanup_free_ char *set = load("get-slowio-mirror.txt", &len);
	CHECK(set);
	if (set) {
		VdevProps *p = props_of(set, len);
		CHECK(p && p->n == 7);
		const VdevProp *v = vdev_props_find(p, "mirror-0");
		CHECK(v && v->n == 5 && v->t == 60);
		v = vdev_props_find(p, "root-0");
		CHECK(v && v->n == SLOW_IO_UNSET && v->t == SLOW_IO_UNSET && v->has_n && v->has_t);
		vdev_props_free(p);
		/* set on the top-level vdev only: the new leaf (under replacing-1) has it */
		CHECK_INT(resolve(set, len, &s), 0);
		CHECK(s.armed && s.can_trip);
		CHECK(s.n == 5 && s.t == 60);
		CHECK_STR(s.n_from, "mirror-0");
		CHECK_STR(s.t_from, "mirror-0");
		char buf[SLOW_IO_TEXT_MAX];
		slow_io_text(&s, "dpool", "sdb", buf);
		CHECK_STR(buf, "ZFS pool dpool has slow_io_n=5 slow_io_t=60 on mirror-0: zed may degrade sdb for slow I/O "
			       "if a destage storm delays 5 of its I/Os past zio_slow_io_ms within 60 s; for the rebuild, "
			       "unset them or set a larger slow_io_n on the disk itself");
	}
	_cleanup_free_ char *unset = load("get-slowio-unset.txt", &len);
	CHECK(unset);
	if (unset) {
		/* the default: nothing set, no diagnosis, no warning */
		CHECK_INT(resolve(unset, len, &s), 0);
		CHECK(!s.armed && !s.can_trip && s.n == SLOW_IO_UNSET && s.t == SLOW_IO_UNSET);
		CHECK_STR(s.n_from, "");
	}
}

/* A zpool get output: the fixture's vdevs, with the given lines for
 * root-0, mirror-0 and the new leaf. */
static int resolve_with(const char *root, const char *mirror, const char *leaf, SlowIoSetting *s)
{
	_cleanup_free_ char *get = NULL;
	CHECK(asprintf(&get, "%s%s/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ0RDRP-part1\tslow_io_n\t-\tdefault\n"
			     "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ0RDRP-part1\tslow_io_t\t-\tdefault\n"
			     "replacing-1\tslow_io_n\t-\tdefault\nreplacing-1\tslow_io_t\t-\tdefault\n%s",
		       root, mirror, leaf) > 0);
	return get ? resolve(get, strlen(get), s) : -ENOMEM;
}

static void test_precedence(void)
{
	SlowIoSetting s;
	const char *root_unset = "root-0\tslow_io_n\t-\tdefault\nroot-0\tslow_io_t\t-\tdefault\n";
	const char *mirror_set = "mirror-0\tslow_io_n\t10\tlocal\nmirror-0\tslow_io_t\t600\tlocal\n";
	/* the leaf's own slow_io_n wins over mirror-0's; slow_io_t still comes from mirror-0 */
	CHECK_INT(resolve_with(root_unset, mirror_set, NEW "\tslow_io_n\t100000\tlocal\n" NEW "\tslow_io_t\t-\tdefault\n", &s), 0);
	CHECK(s.armed && s.n == 100000 && s.t == 600);
	CHECK_STR(s.n_from, NEW);
	CHECK_STR(s.t_from, "mirror-0");
	/* 100000 delay events cannot come within 600 s: 20 a second at most */
	CHECK(!s.can_trip);
	/* the leaf's 10 in 600 s: can */
	CHECK_INT(resolve_with(root_unset, "mirror-0\tslow_io_n\t-\tdefault\nmirror-0\tslow_io_t\t-\tdefault\n",
			       NEW "\tslow_io_n\t10\tlocal\n" NEW "\tslow_io_t\t600\tlocal\n", &s), 0);
	CHECK(s.armed && s.can_trip);
	char buf[SLOW_IO_TEXT_MAX];
	slow_io_text(&s, "dpool", "sdb", buf);
	CHECK(strstr(buf, "slow_io_n=10 slow_io_t=600 on " NEW ":"));
	/* one of the two set: zed makes no engine */
	CHECK_INT(resolve_with(root_unset, "mirror-0\tslow_io_n\t10\tlocal\nmirror-0\tslow_io_t\t-\tdefault\n",
			       NEW "\tslow_io_n\t-\tdefault\n" NEW "\tslow_io_t\t-\tdefault\n", &s), 0);
	CHECK(!s.armed && !s.can_trip && s.n == 10);
	/* the root's reach the leaf too (the kernel walks up to it); split: said where each is */
	CHECK_INT(resolve_with("root-0\tslow_io_n\t-\tdefault\nroot-0\tslow_io_t\t30\tlocal\n",
			       "mirror-0\tslow_io_n\t4\tlocal\nmirror-0\tslow_io_t\t-\tdefault\n",
			       NEW "\tslow_io_n\t-\tdefault\n" NEW "\tslow_io_t\t-\tdefault\n", &s), 0);
	CHECK(s.armed && s.can_trip && s.n == 4 && s.t == 30);
	slow_io_text(&s, "dpool", "sdb", buf);
	CHECK(strstr(buf, "(slow_io_n on mirror-0, slow_io_t on root-0)"));
	/* the leaf missing from zpool get (its names differ): not known */
	CHECK_INT(resolve_with(root_unset, mirror_set, "", &s), -ENOENT);
	/* a parent missing: not known either */
	CHECK_INT(resolve_with("", mirror_set, NEW "\tslow_io_n\t-\tdefault\n" NEW "\tslow_io_t\t-\tdefault\n", &s), -ENOENT);
}

/* What a new disk takes of a top-level vdev: a mirror's allocated bytes,
 * a raidz's over its children (parity counted), from both fixtures. */
static void test_share(void)
{
	size_t len, glen;
	VdevLayout l;
	_cleanup_free_ char *text = load("status-P-replacing.txt", &len), *get = load("get-slowio-mirror.txt", &glen);
	VdevTree *t = text ? tree_of(text, len) : NULL;
	VdevProps *p = get ? props_of(get, glen) : NULL;
	CHECK(t && p);
	if (t && p) {
		size_t tops[4];
		/* mirror-0 only: a log device holds no data a rebuild copies */
		CHECK_INT(vdev_tree_tops(t, tops, ELEMENTSOF(tops)), 1);
		CHECK_INT(vdev_tree_top_of(t, (size_t)find(t, NEW)), find(t, "mirror-0"));
		CHECK_INT(vdev_tree_top_of(t, (size_t)find(t, LOG)), -1);
		CHECK(vdev_leaf_share(t, (size_t)find(t, "mirror-0"), p, &l) == 984621252608.0);
		CHECK_INT(l, VDEV_LAYOUT_MIRROR);
	}
	vdev_tree_free(t);
	vdev_props_free(p);
	_cleanup_free_ char *rz = load("status-P-raidz-degraded.txt", &len), *rzget = load("get-raidz-degraded.txt", &glen);
	_cleanup_free_ char *err = NULL;
	t = NULL;
	CHECK_INT(rz ? vdev_tree_parse(rz, len, "rzpool", &t, &err) : -ENOENT, 0);
	p = rzget ? props_of(rzget, glen) : NULL;
	CHECK(t && p);
	if (t && p) {
		int top = find(t, "raidz1-0");
		CHECK(top > 0);
		CHECK_INT(t->n, 6);
		CHECK(vdev_leaf_share(t, (size_t)top, p, &l) == 7937099612160.0 / 4);
		CHECK_INT(l, VDEV_LAYOUT_RAIDZ);
		SlowIoSetting s;
		_cleanup_free_ char *e2 = NULL;
		CHECK_INT(slow_io_resolve(t, (size_t)top, p, &s, &e2), 0);
		CHECK(!s.armed);
	}
	vdev_tree_free(t);
	vdev_props_free(p);
}

static void test_can_trip(void)
{
	CHECK(slow_io_can_trip(5, 60));
	CHECK(slow_io_can_trip(20, 0));		/* 20 in one second */
	CHECK(!slow_io_can_trip(21, 0));
	CHECK(slow_io_can_trip(1220, 60));
	CHECK(!slow_io_can_trip(1221, 60));
	CHECK(slow_io_can_trip(UINT64_MAX - 1, UINT64_MAX - 1));	/* no overflow */
	CHECK(!slow_io_can_trip(SLOW_IO_UNSET, 60));
	CHECK(!slow_io_can_trip(5, SLOW_IO_UNSET));
}

static void refused(const char *what, const char *text, size_t len, int want, const char *msg)
{
	_cleanup_free_ char *err = NULL;
	VdevProps *p = NULL;
	int r = vdev_props_parse(text, len, &p, &err);
	if (r != want || !err || !strstr(err, msg))
		fprintf(stderr, "%s: %d %s\n", what, r, err ? err : "(no message)");
	CHECK_INT(r, want);
	CHECK(!p && err && strstr(err, msg));
	vdev_props_free(p);
}

static void tree_refused(const char *what, const char *text, const char *msg)
{
	_cleanup_free_ char *err = NULL;
	VdevTree *t = NULL;
	int r = vdev_tree_parse(text, strlen(text), "dpool", &t, &err);
	if (r >= 0 || !err || !strstr(err, msg))
		fprintf(stderr, "%s: %d %s\n", what, r, err ? err : "(no message)");
	CHECK(r < 0 && !t && err && strstr(err, msg));
	vdev_tree_free(t);
}

static void test_bad_input(void)
{
	/* zpool 2.1 (Debian 12) prints its usage to stderr: nothing on stdout */
	refused("empty", "", 0, -EINVAL, "no line of the properties asked");
	refused("garbage", "\x01\x02garbage\n", 9, -EINVAL, "separated by tabs");
	refused("headers (no -H)", "NAME      PROPERTY   VALUE  SOURCE\nmirror-0  slow_io_n  10     local\n", 67, -EINVAL,
		"separated by tabs");
	refused("a missing field", "mirror-0\tslow_io_n\t10\n", 22, -EINVAL, "line 1 is not NAME");
	refused("an empty field", "mirror-0\tslow_io_n\t\tlocal\n", 26, -EINVAL, "line 1 is not NAME");
	refused("five fields", "mirror-0\tslow_io_n\t10\tlocal\tx\n", 29, -EINVAL, "line 1 is not NAME");
	refused("a word for a value", "mirror-0\tslow_io_n\tten\tlocal\n", 28, -EINVAL, "is neither a count");
	refused("a negative value", "mirror-0\tslow_io_n\t-5\tlocal\n", 27, -EINVAL, "is neither a count");
	refused("an overflowing value", "mirror-0\tslow_io_n\t99999999999999999999\tlocal\n", 45, -EINVAL,
		"is neither a count");
	refused("a NUL", "mirror-0\tslow_io_n\t1\0\tlocal\n", 26, -EINVAL, "NUL byte");
	refused("an escape", "mirror-0\x1b[31m\tslow_io_n\t1\tlocal\n", 31, -EINVAL, "control byte");
	refused("only other properties", "mirror-0\tio_n\t10\tlocal\n", 23, -EINVAL, "no line of the properties asked");
	_cleanup_free_ char *long_line = malloc(VDEV_PROPS_LINE_MAX + 64);
	CHECK(long_line);
	if (long_line) {
		memset(long_line, 'a', VDEV_PROPS_LINE_MAX + 10);
		strcpy(long_line + VDEV_PROPS_LINE_MAX + 10, "\tslow_io_n\t1\tlocal\n");
		refused("an overlong line", long_line, strlen(long_line), -EINVAL, "longer than 4096 bytes");
		/* a name over the bound, in a line under it */
		memset(long_line, 'a', VDEV_NAME_MAX + 1);
		strcpy(long_line + VDEV_NAME_MAX + 1, "\tslow_io_n\t1\tlocal\n");
		refused("an overlong name", long_line, strlen(long_line), -EINVAL, "longer than 1023 bytes");
	}
	refused("too big", "", VDEV_PROPS_INPUT_MAX + 1, -E2BIG, "more than");

	const char *head = "  pool: dpool\nconfig:\n\n\tNAME  STATE  READ WRITE CKSUM\n";
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	CHECK(asprintf(&a, "%s\tdpool  ONLINE 0 0 0\n\t   sdb  ONLINE 0 0 0\n", head) > 0);
	tree_refused("odd indentation", a, "odd count");
	CHECK(asprintf(&b, "%s\tdpool  ONLINE 0 0 0\n\t      sdb  ONLINE 0 0 0\n", head) > 0);
	tree_refused("a level skipped", b, "deeper than its parent");
	CHECK(asprintf(&c, "%s\tdpool  ONLINE 0 0 0\n\t  s\x07" "db  ONLINE 0 0 0\n", head) > 0);
	tree_refused("a bell", c, "control byte");
	CHECK(asprintf(&d, "  pool: dpool\nconfig:\n\n\tdpool  ONLINE 0 0 0\n") > 0);
	tree_refused("no header", d, "no config block");
	tree_refused("garbage", "garbage\n", "no config block");
	tree_refused("cut before the tree", "  pool: dpool\n state: ONLINE\nconfig:\n", "no config block");
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "tests/fixtures/zpool";
	test_tree();
	test_fixtures();
	test_precedence();
	test_share();
	test_can_trip();
	test_bad_input();
	return test_done("vdevprops");
}
