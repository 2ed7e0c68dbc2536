/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status's vdev tree and zpool get's slow_io_n/slow_io_t, and what
 * zed makes of them for one leaf (vdevprops.h). Both outputs are read
 * line by line, each line bounded; a line that does not have the shape
 * zpool prints refuses the whole output, so that a changed format is
 * "not known" and never a wrong answer.
 */
#include "vdevprops.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct Line {
	const char *s;
	size_t n;
	unsigned no;			/* 1-based, for messages */
} Line;

/* The next line of text[*at..len) (its newline left out); false at the end. */
static bool next_line(const char *text, size_t len, size_t *at, Line *l)
{
	if (*at >= len)
		return false;
	const char *s = text + *at, *nl = memchr(s, '\n', len - *at);
	l->s = s;
	l->n = nl ? (size_t)(nl - s) : len - *at;
	l->no++;
	*at += l->n + (nl ? 1 : 0);
	return true;
}

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((iscntrl((unsigned char)s[i]) && s[i] != '\t') || s[i] == 0x7f)
			return false;
	return true;
}

static bool span_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* Common checks of both readers: size, NUL bytes, line length. */
static int check_input(const char *text, size_t len, const char *what, char **ret_error)
{
	if (len > VDEV_PROPS_INPUT_MAX)
		return set_errorf(ret_error, -E2BIG, "%s: more than %u bytes", what, VDEV_PROPS_INPUT_MAX);
	if (memchr(text, 0, len))
		return set_errorf(ret_error, -EINVAL, "%s: a NUL byte in the output", what);
	size_t at = 0;
	Line l = {0};
	while (next_line(text, len, &at, &l))
		if (l.n > VDEV_PROPS_LINE_MAX)
			return set_errorf(ret_error, -EINVAL, "%s: line %u is longer than %d bytes", what, l.no,
					  VDEV_PROPS_LINE_MAX);
	return 0;
}

/* ------------------------------------------------------------ the tree */

VdevTree *vdev_tree_free(VdevTree *t)
{
	if (t) {
		for (size_t i = 0; i < t->n; i++)
			free(t->nodes[i].name);
		free(t->nodes);
		free(t);
	}
	return NULL;
}

/* "  pool: NAME": NAME's span, else false. */
static bool pool_header(const Line *l, const char **name, size_t *n)
{
	size_t i = 0;
	while (i < l->n && l->s[i] == ' ')
		i++;
	if (l->n - i < 6 || memcmp(l->s + i, "pool: ", 6) != 0)
		return false;
	*name = l->s + i + 6;
	*n = l->n - i - 6;
	return true;
}

/* One config line "\t    NAME  STATE ...": appended to t. */
static int tree_line(VdevTree *t, const Line *l, char **ret_error)
{
	size_t sp = 1;
	while (sp < l->n && l->s[sp] == ' ')
		sp++;
	size_t end = sp;
	while (end < l->n && l->s[end] != ' ' && l->s[end] != '\t')
		end++;
	if (end == sp)
		return set_errorf(ret_error, -EINVAL, "zpool status: config line %u names no vdev", l->no);
	if ((sp - 1) % 2)
		return set_errorf(ret_error, -EINVAL, "zpool status: config line %u is indented by an odd count", l->no);
	unsigned depth = (unsigned)(sp - 1) / 2;
	if (t->n == 0 ? depth != 0 : depth > t->nodes[t->n - 1].depth + 1)
		return set_errorf(ret_error, -EINVAL, "zpool status: config line %u is deeper than its parent", l->no);
	if (end - sp > VDEV_NAME_MAX)
		return set_errorf(ret_error, -EINVAL, "zpool status: config line %u names a vdev longer than %d bytes",
				  l->no, VDEV_NAME_MAX);
	if (t->n == VDEV_TREE_MAX)
		return set_errorf(ret_error, -E2BIG, "zpool status: more than %d vdevs", VDEV_TREE_MAX);
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		VdevNode *g = realloc(t->nodes, cap * sizeof *g);
		if (!g)
			return -ENOMEM;
		t->nodes = g, t->cap = cap;
	}
	VdevNode v = {.depth = depth, .parent = -1, .leaf = true, .name = strndup(l->s + sp, end - sp)};
	if (!v.name)
		return -ENOMEM;
	/* the nearest line above one level up is the parent */
	for (size_t i = t->n; depth > 0 && i-- > 0;)
		if (t->nodes[i].depth == depth - 1) {
			v.parent = (int)i;
			t->nodes[i].leaf = false;
			break;
		}
	const char *mark = "(resilvering)";
	size_t k = strlen(mark), n = l->n;
	while (n > end && (l->s[n - 1] == ' ' || l->s[n - 1] == '\t'))
		n--;
	v.resilvering = n - end >= k && memcmp(l->s + n - k, mark, k) == 0;
	t->nodes[t->n++] = v;
	return 0;
}

int vdev_tree_parse(const char *text, size_t len, const char *pool, VdevTree **ret, char **ret_error)
{
	int r = check_input(text, len, "zpool status", ret_error);
	if (r < 0)
		return r;
	VdevTree *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	/* 0 before the pool, 1 in it, 2 past "config:", 3 past the header, 4 done */
	int at_step = 0;
	size_t at = 0;
	Line l = {0};
	while (at_step < 4 && next_line(text, len, &at, &l)) {
		const char *name;
		size_t n;
		if (pool_header(&l, &name, &n)) {
			if (at_step > 0)
				break;	/* the next pool: ours had no config */
			at_step = span_is(name, n, pool) ? 1 : 0;
		} else if (at_step == 1 && span_is(l.s, l.n, "config:"))
			at_step = 2;
		else if (at_step == 2 && l.n > 5 && memcmp(l.s, "\tNAME ", 6) == 0)
			at_step = 3;
		else if (at_step == 2 && l.n > 0)
			break;	/* the header must come first */
		else if (at_step == 3 && (l.n == 0 || l.s[0] != '\t'))
			at_step = 4;
		else if (at_step == 3) {
			if (!printable(l.s + 1, l.n - 1)) {
				r = set_errorf(ret_error, -EINVAL, "zpool status: config line %u holds a control byte", l.no);
				break;
			}
			if ((r = tree_line(t, &l, ret_error)) < 0)
				break;
		}
	}
	if (r >= 0 && t->n == 0)
		r = set_errorf(ret_error, -EINVAL, "zpool status: no config block for pool %.80s", pool);
	if (r < 0)
		return vdev_tree_free(t), r;
	*ret = t;
	return 0;
}

/* ------------------------------------------------------------ the values */

VdevProps *vdev_props_free(VdevProps *p)
{
	if (p) {
		for (size_t i = 0; i < p->n; i++)
			free(p->v[i].name);
		free(p->v);
		free(p);
	}
	return NULL;
}

const VdevProp *vdev_props_find(const VdevProps *p, const char *name)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (streq(p->v[i].name, name))
			return &p->v[i];
	return NULL;
}

/* The line's four tab-separated fields; false unless exactly four, none empty. */
static bool fields(const Line *l, const char *f[4], size_t fn[4])
{
	size_t k = 0, start = 0;
	for (size_t i = 0; i <= l->n; i++)
		if (i == l->n || l->s[i] == '\t') {
			if (k == 4 || i == start)
				return false;
			f[k] = l->s + start, fn[k] = i - start, k++;
			start = i + 1;
		}
	return k == 4;
}

/* "-" or digits (zpool_get_vdev_prop_value(): "-" for UINT64_MAX). */
static int value_of(const char *s, size_t n, uint64_t *ret)
{
	if (span_is(s, n, "-")) {
		*ret = SLOW_IO_UNSET;
		return 0;
	}
	char buf[24];
	if (n == 0 || n >= sizeof buf)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	return parse_u64(buf, ret);
}

static int props_line(VdevProps *p, const Line *l, char **ret_error)
{
	const char *f[4];
	size_t fn[4];
	if (!fields(l, f, fn))
		return set_errorf(ret_error, -EINVAL, "zpool get: line %u is not NAME, PROPERTY, VALUE and SOURCE "
				  "separated by tabs (-H -o name,property,value,source)", l->no);
	if (!printable(l->s, l->n))
		return set_errorf(ret_error, -EINVAL, "zpool get: line %u holds a control byte", l->no);
	bool is_n = span_is(f[1], fn[1], "slow_io_n"), is_t = span_is(f[1], fn[1], "slow_io_t"),
	     is_alloc = span_is(f[1], fn[1], "allocated"), is_children = span_is(f[1], fn[1], "numchildren");
	if (!is_n && !is_t && !is_alloc && !is_children)
		return 0;
	if (fn[0] > VDEV_NAME_MAX)
		return set_errorf(ret_error, -EINVAL, "zpool get: line %u names a vdev longer than %d bytes", l->no,
				  VDEV_NAME_MAX);
	uint64_t v;
	if (value_of(f[2], fn[2], &v) < 0)
		return set_errorf(ret_error, -EINVAL, "zpool get: line %u: %.*s's value %.*s is neither a count nor \"-\"",
				  l->no, (int)fn[1], f[1], (int)(fn[2] > 40 ? 40 : fn[2]), f[2]);
	VdevProp *s = NULL;
	for (size_t i = p->n; !s && i-- > 0;)
		if (strlen(p->v[i].name) == fn[0] && memcmp(p->v[i].name, f[0], fn[0]) == 0)
			s = &p->v[i];
	if (!s) {
		if (p->n == VDEV_TREE_MAX)
			return set_errorf(ret_error, -E2BIG, "zpool get: more than %d vdevs", VDEV_TREE_MAX);
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 16;
			VdevProp *g = realloc(p->v, cap * sizeof *g);
			if (!g)
				return -ENOMEM;
			p->v = g, p->cap = cap;
		}
		s = &p->v[p->n];
		*s = (VdevProp){.n = SLOW_IO_UNSET, .t = SLOW_IO_UNSET, .allocated = SLOW_IO_UNSET,
				.children = SLOW_IO_UNSET, .name = strndup(f[0], fn[0])};
		if (!s->name)
			return -ENOMEM;
		p->n++;
	}
	if (is_alloc || is_children) {
		if (v == SLOW_IO_UNSET)
			return set_errorf(ret_error, -EINVAL, "zpool get: line %u: %.*s has no value", l->no, (int)fn[1], f[1]);
		if (is_alloc && s->allocated == SLOW_IO_UNSET)
			s->allocated = v;
		if (is_children && s->children == SLOW_IO_UNSET)
			s->children = v;
		return 0;
	}
	/* a spare in use is listed twice (the spares and its spare-N): the first counts */
	if (is_n && !s->has_n)
		s->n = v, s->has_n = true;
	if (is_t && !s->has_t)
		s->t = v, s->has_t = true;
	return 0;
}

int vdev_props_parse(const char *text, size_t len, VdevProps **ret, char **ret_error)
{
	int r = check_input(text, len, "zpool get", ret_error);
	if (r < 0)
		return r;
	VdevProps *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	size_t at = 0;
	Line l = {0};
	while (r >= 0 && next_line(text, len, &at, &l))
		if (l.n > 0)
			r = props_line(p, &l, ret_error);
	if (r >= 0 && p->n == 0)
		r = set_errorf(ret_error, -EINVAL, "zpool get: no line of the properties asked");
	if (r < 0)
		return vdev_props_free(p), r;
	*ret = p;
	return 0;
}

/* ------------------------------------------------------------ the judgement */

bool slow_io_can_trip(uint64_t n, uint64_t t)
{
	if (n == SLOW_IO_UNSET || t == SLOW_IO_UNSET)
		return false;
	/* at most `rate` a second, counted per whole second (zfs_ratelimit):
	 * within t seconds, rate * (t + 1) */
	uint64_t rate = SLOW_IO_EVENTS_PER_SECOND;
	return t >= UINT64_MAX / rate - 1 || n <= rate * (t + 1);
}

int slow_io_resolve(const VdevTree *t, size_t leaf, const VdevProps *p, SlowIoSetting *ret, char **ret_error)
{
	if (leaf >= t->n)
		return set_errorf(ret_error, -ENOENT, "no such leaf");
	SlowIoSetting s = {.n = SLOW_IO_UNSET, .t = SLOW_IO_UNSET};
	for (int i = (int)leaf; i >= 0; i = t->nodes[i].parent) {
		const char *name = t->nodes[i].depth == 0 ? "root-0" : t->nodes[i].name;
		const VdevProp *v = vdev_props_find(p, name);
		if (!v || !v->has_n || !v->has_t)
			return set_errorf(ret_error, -ENOENT, "zpool get gives no slow_io_n and slow_io_t of %.80s", name);
		if (s.n == SLOW_IO_UNSET && v->n != SLOW_IO_UNSET) {
			s.n = v->n;
			snprintf(s.n_from, sizeof s.n_from, "%s", name);
		}
		if (s.t == SLOW_IO_UNSET && v->t != SLOW_IO_UNSET) {
			s.t = v->t;
			snprintf(s.t_from, sizeof s.t_from, "%s", name);
		}
		if (t->nodes[i].depth == 0)
			break;
	}
	s.armed = s.n != SLOW_IO_UNSET && s.t != SLOW_IO_UNSET;
	s.can_trip = s.armed && slow_io_can_trip(s.n, s.t);
	*ret = s;
	return 0;
}

void slow_io_text(const SlowIoSetting *s, const char *pool, const char *device, char buf[static SLOW_IO_TEXT_MAX])
{
	char where[200];
	if (streq(s->n_from, s->t_from))
		snprintf(where, sizeof where, "on %.80s", s->n_from);
	else
		snprintf(where, sizeof where, "(slow_io_n on %.60s, slow_io_t on %.60s)", s->n_from, s->t_from);
	/* the set one is what to unset; a larger slow_io_n on the leaf wins
	 * over a parent's. Long names are what gets cut (each is bounded). */
	int k = snprintf(buf, SLOW_IO_TEXT_MAX,
		 "ZFS pool %.40s has slow_io_n=%llu slow_io_t=%llu %s: zed may degrade %.32s for slow I/O if a destage "
		 "storm delays %llu of its I/Os past zio_slow_io_ms within %llu s; for the rebuild, unset them or set a "
		 "larger slow_io_n on the disk itself",
		 pool, (unsigned long long)s->n, (unsigned long long)s->t, where, device, (unsigned long long)s->n,
		 (unsigned long long)s->t);
	if (k >= SLOW_IO_TEXT_MAX)
		memcpy(buf + SLOW_IO_TEXT_MAX - 4, "...", 4);
}

/* ------------------------------------------------------------ a rebuild's share */

static const char *const layouts[_VDEV_LAYOUT_MAX] = {
	[VDEV_LAYOUT_SINGLE] = "single", [VDEV_LAYOUT_MIRROR] = "mirror", [VDEV_LAYOUT_RAIDZ] = "raidz",
	[VDEV_LAYOUT_DRAID] = "draid",
};

const char *vdev_layout_to_string(VdevLayout l)
{
	return (unsigned)l < _VDEV_LAYOUT_MAX ? layouts[l] : NULL;
}

/* The pool's own node: the tree's first (class headings follow at depth 0). */
static bool is_top(const VdevTree *t, size_t i)
{
	return t->nodes[i].depth == 1 && t->nodes[i].parent == 0;
}

size_t vdev_tree_tops(const VdevTree *t, size_t *ret, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n && n < max; i++)
		if (is_top(t, i))
			ret[n++] = i;
	return n;
}

int vdev_tree_top_of(const VdevTree *t, size_t i)
{
	for (int k = (int)i; k >= 0 && k < (int)t->n; k = t->nodes[k].parent)
		if (is_top(t, (size_t)k))
			return k;
	return -1;
}

static VdevLayout layout_of(const VdevNode *v)
{
	/* zpool_vdev_name(): "mirror-0", "raidz1-0", "draid2:8d:10c:1s-0"; a leaf is a disk alone */
	if (v->leaf)
		return VDEV_LAYOUT_SINGLE;
	if (startswith(v->name, "mirror-"))
		return VDEV_LAYOUT_MIRROR;
	if (startswith(v->name, "raidz"))
		return VDEV_LAYOUT_RAIDZ;
	if (startswith(v->name, "draid"))
		return VDEV_LAYOUT_DRAID;
	return _VDEV_LAYOUT_INVALID;
}

double vdev_leaf_share(const VdevTree *t, size_t top, const VdevProps *p, VdevLayout *layout)
{
	*layout = top < t->n ? layout_of(&t->nodes[top]) : _VDEV_LAYOUT_INVALID;
	const VdevProp *v = *layout >= 0 ? vdev_props_find(p, t->nodes[top].name) : NULL;
	if (!v || v->allocated == SLOW_IO_UNSET)
		return NAN;
	if (*layout == VDEV_LAYOUT_SINGLE || *layout == VDEV_LAYOUT_MIRROR)
		return (double)v->allocated;
	return v->children != SLOW_IO_UNSET && v->children > 0 ? (double)v->allocated / (double)v->children : NAN;
}
