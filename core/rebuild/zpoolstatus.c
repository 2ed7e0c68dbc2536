/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `zpool status -p` as text (OpenZFS 0.8 to 2.2; 2.3 prints the same), read
 * line by line: "pool:" opens a pool, "scan:" and its indented lines are
 * print_scan_scrub_resilver_status() (or print_rebuild_status_impl() for a
 * sequential resilver), and the config tree's "(resilvering)" marks a leaf.
 * Both forms of the progress lines are read: 2.1's "X scanned at R/s, Y
 * issued at R/s, Z total" and 2.2's "X / Z scanned at R/s, Y / W issued".
 */
#include "zpoolstatus-private.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>

#define LINE_MAX_LEN 4096		/* a config line with a long by-id path stays far below */

static const char *const func_names[_ZPOOL_SCAN_FUNC_MAX] = {"none", "scrub", "resilver", "errorscrub"};
static const char *const state_names[_ZPOOL_SCAN_STATE_MAX] = {"none", "scanning", "finished", "canceled"};

const char *zpool_scan_func_to_string(ZpoolScanFunc f)
{
	return f >= 0 && f < _ZPOOL_SCAN_FUNC_MAX ? func_names[f] : NULL;
}

const char *zpool_scan_state_to_string(ZpoolScanState s)
{
	return s >= 0 && s < _ZPOOL_SCAN_STATE_MAX ? state_names[s] : NULL;
}

bool zpool_name_ok(const char *pool)
{
	size_t n = pool ? strnlen(pool, ZPOOL_NAME_MAX + 1) : 0;
	if (n == 0 || n > ZPOOL_NAME_MAX || !isalpha((unsigned char)pool[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)pool[i]) && !strchr("_-:. ", pool[i]))
			return false;
	return true;
}

ZpoolStatus *zpool_status_free(ZpoolStatus *s)
{
	if (!s)
		return NULL;
	for (unsigned i = 0; i < s->n_pools; i++)
		free(s->pools[i].leaves);
	free(s->pools);
	free(s);
	return NULL;
}

const ZpoolScan *zpool_status_find(const ZpoolStatus *s, const char *pool)
{
	for (unsigned i = 0; s && pool && i < s->n_pools; i++)
		if (streq(s->pools[i].pool, pool))
			return &s->pools[i];
	return NULL;
}

bool zpool_printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)s[i]) || s[i] == 0x7f)
			return false;
	return true;
}

/* The scan's figures unknown, its pool and leaves kept. */
static void scan_reset(ZpoolScan *p)
{
	p->func = ZPOOL_SCAN_NONE;
	p->state = ZPOOL_SCAN_STATE_NONE;
	p->paused = false;
	p->errors = 0;
	double *nan_fields[] = {&p->to_examine, &p->examined, &p->skipped, &p->issued_total, &p->issued,
				&p->processed, &p->issue_rate, &p->percent_done, &p->to_go, &p->pass_start,
				&p->pass_issued, &p->start_time, &p->end_time, &p->duration};
	for (size_t i = 0; i < ELEMENTSOF(nan_fields); i++)
		*nan_fields[i] = NAN;
}

ZpoolScan *zpool_status_add(ZpoolStatus *s, const char *name, size_t len)
{
	ZpoolScan *grown = s->n_pools < ZPOOL_POOLS_MAX ? realloc(s->pools, (s->n_pools + 1) * sizeof *grown) : NULL;
	if (!grown) {
		s->pools_truncated = true;
		return NULL;
	}
	s->pools = grown;
	ZpoolScan *p = &s->pools[s->n_pools++];
	*p = (ZpoolScan){0};
	scan_reset(p);
	memcpy(p->pool, name, len);
	return p;
}

bool zpool_scan_add_leaf(ZpoolScan *p, const char *path, size_t len, uint64_t guid, double processed)
{
	ZpoolLeaf *grown = p->n_leaves < ZPOOL_LEAVES_MAX ? realloc(p->leaves, (p->n_leaves + 1) * sizeof *grown) : NULL;
	if (!grown) {
		p->leaves_truncated = true;
		return false;
	}
	p->leaves = grown;
	ZpoolLeaf *l = &p->leaves[p->n_leaves++];
	memcpy(l->path, path, len);
	l->path[len] = 0;
	l->guid = guid;
	l->processed = processed;
	return true;
}

/* ----------------------------------------------------------- the figures */

int zpool_parse_size(const char *s, size_t len, double *ret)
{
	static const char units[] = "BKMGTPE";
	size_t i = 0;
	double v = 0, scale = 1;	/* digits as a whole number, over 10^decimals: exact as printed */
	bool frac = false, digits = false;
	for (; i < len && (isdigit((unsigned char)s[i]) || ((s[i] == '.' || s[i] == ',') && !frac)); i++) {
		if (s[i] == '.' || s[i] == ',') {
			frac = true;
			continue;
		}
		digits = true;
		v = v * 10 + (s[i] - '0');
		if (frac)
			scale *= 10;
	}
	v /= scale;
	if (!digits || !(v <= 1e20))
		return -EINVAL;
	if (i < len) {
		const char *u = memchr(units, s[i], sizeof(units) - 1);
		if (!u || i + 1 != len)
			return -EINVAL;
		v *= pow(1024, (double)(u - units));
	}
	*ret = v;
	return 0;
}

static int parse_uint(const char *s, size_t len, unsigned max_digits, uint64_t *ret)
{
	if (len == 0 || len > max_digits)
		return -EINVAL;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

int zpool_parse_dhms(const char *s, size_t len, double *ret)
{
	uint64_t days = 0, h, m, sec;
	const char *d = memmem(s, len, " days ", 6);
	if (d) {
		if (parse_uint(s, (size_t)(d - s), 12, &days) < 0)
			return -EINVAL;
		len -= (size_t)(d + 6 - s);
		s = d + 6;
	}
	/* "%02llu:%02llu:%02llu": the hours are under 24 but two digits at least */
	if (len != 8 || s[2] != ':' || s[5] != ':' || parse_uint(s, 2, 2, &h) < 0 || parse_uint(s + 3, 2, 2, &m) < 0 ||
	    parse_uint(s + 6, 2, 2, &sec) < 0 || m > 59 || sec > 59)
		return -EINVAL;
	*ret = (double)days * 86400 + (double)h * 3600 + (double)m * 60 + (double)sec;
	return 0;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int zpool_parse_ctime(const char *s, size_t len, double *ret)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	static const char days[] = "SunMonTueWedThuFriSat";
	/* "%.3s %.3s%3d %.2d:%.2d:%.2d %d": "Mon Jun 22 12:58:29 2020", "Wed Apr  8 ..." */
	uint64_t day, h, m, sec, year;
	if (len < 24 || len > 28 || s[3] != ' ' || s[7] != ' ' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
	    s[19] != ' ')
		return -EINVAL;
	const char *dn = memmem(days, sizeof(days) - 1, s, 3), *mn = memmem(months, sizeof(months) - 1, s + 4, 3);
	if (!dn || (dn - days) % 3 || !mn || (mn - months) % 3)
		return -EINVAL;
	const char *dd = s[8] == ' ' ? s + 9 : s + 8;
	if (parse_uint(dd, (size_t)(s + 10 - dd), 2, &day) < 0 || parse_uint(s + 11, 2, 2, &h) < 0 ||
	    parse_uint(s + 14, 2, 2, &m) < 0 || parse_uint(s + 17, 2, 2, &sec) < 0 ||
	    parse_uint(s + 20, len - 20, 8, &year) < 0 || day < 1 || day > 31 || h > 23 || m > 59 || sec > 60)
		return -EINVAL;
	int64_t d = days_from_civil((int64_t)year, (unsigned)((mn - months) / 3 + 1), (unsigned)day);
	*ret = (double)d * 86400 + (double)(h * 3600 + m * 60 + sec);
	return 0;
}

/* ------------------------------------------------------- the scan block */

typedef struct Span {
	const char *s;
	size_t n;
} Span;

static bool span_eat(Span *x, const char *prefix)
{
	size_t l = strlen(prefix);
	if (x->n < l || memcmp(x->s, prefix, l) != 0)
		return false;
	x->s += l;
	x->n -= l;
	return true;
}

/* Cuts x at the first `sep`: *head before it, x after it. */
static bool span_cut(Span *x, const char *sep, Span *head)
{
	const char *at = memmem(x->s, x->n, sep, strlen(sep));
	if (!at)
		return false;
	*head = (Span){x->s, (size_t)(at - x->s)};
	size_t skip = (size_t)(at - x->s) + strlen(sep);
	x->s += skip;
	x->n -= skip;
	return true;
}

/* "resilver (draid2-0) ...": a sequential resilver names its top vdev */
static void skip_vdev_name(Span *x)
{
	Span head;
	if (x->n && x->s[0] == '(' && span_cut(x, ") ", &head))
		return;
}

/* "X in D with N errors on T" after "resilvered " or "scrub repaired " */
static int scan_finished(ZpoolScan *p, Span x)
{
	Span size, dur, errs;
	uint64_t n;
	if (!span_cut(&x, " in ", &size) || !span_cut(&x, " with ", &dur) || !span_cut(&x, " errors on ", &errs) ||
	    zpool_parse_size(size.s, size.n, &p->processed) < 0 || zpool_parse_dhms(dur.s, dur.n, &p->duration) < 0 ||
	    parse_uint(errs.s, errs.n, 20, &n) < 0 || zpool_parse_ctime(x.s, x.n, &p->end_time) < 0)
		return -EINVAL;
	p->errors = n;
	p->state = ZPOOL_SCAN_FINISHED;
	p->start_time = p->end_time - p->duration;
	return 0;
}

/* The line after "scan:". */
static int scan_first(ZpoolScan *p, Span x)
{
	if (x.n == 14 && memcmp(x.s, "none requested", 14) == 0)
		return 0;
	span_eat(&x, "thorough ");
	if (span_eat(&x, "resilvered ")) {
		p->func = ZPOOL_SCAN_RESILVER;
		skip_vdev_name(&x);
		return scan_finished(p, x);
	}
	if (span_eat(&x, "scrub repaired ")) {
		p->func = ZPOOL_SCAN_SCRUB;
		return scan_finished(p, x);
	}
	if (span_eat(&x, "scrub "))
		p->func = ZPOOL_SCAN_SCRUB;
	else if (span_eat(&x, "resilver ")) {
		p->func = ZPOOL_SCAN_RESILVER;
		skip_vdev_name(&x);
	} else
		return -EINVAL;
	if (span_eat(&x, "canceled on ")) {
		p->state = ZPOOL_SCAN_CANCELED;
		return zpool_parse_ctime(x.s, x.n, &p->end_time);
	}
	p->state = ZPOOL_SCAN_SCANNING;
	if (span_eat(&x, "in progress since "))
		return zpool_parse_ctime(x.s, x.n, &p->start_time);
	if (p->func == ZPOOL_SCAN_SCRUB && span_eat(&x, "paused since ")) {
		p->paused = true;	/* the start follows: "scrub started on" */
		return 0;
	}
	return -EINVAL;
}

/* "X[ / T] scanned[ at R/s]" and the like: the size(s) before `word`,
 * the rate after */
static int scan_part_sizes(Span part, const char *word, double *done, double *total, double *rate)
{
	Span head, rest = part;
	if (!span_cut(&rest, word, &head))
		return -EINVAL;
	Span of = head, count = head;
	if (span_cut(&of, " / ", &count) && (!total || zpool_parse_size(of.s, of.n, total) < 0))
		return -EINVAL;	/* 2.2: "done / total" */
	if (zpool_parse_size(count.s, count.n, done) < 0)
		return -EINVAL;
	if (rest.n == 0)
		return 0;
	if (!span_eat(&rest, " at ") || rest.n < 3 || memcmp(rest.s + rest.n - 2, "/s", 2) != 0)
		return -EINVAL;
	return zpool_parse_size(rest.s, rest.n - 2, rate);
}

static bool span_ends(Span x, const char *suffix)
{
	size_t l = strlen(suffix);
	return x.n >= l && memcmp(x.s + x.n - l, suffix, l) == 0;
}

/* One ", "-separated part of the progress lines. */
static int scan_part(ZpoolScan *p, Span part)
{
	double ignored_rate;
	if (memmem(part.s, part.n, " scanned", 8))
		return scan_part_sizes(part, " scanned", &p->examined, &p->to_examine, &ignored_rate);
	if (memmem(part.s, part.n, " issued", 7))
		return scan_part_sizes(part, " issued", &p->issued, &p->issued_total, &p->issue_rate);
	if (span_ends(part, " total"))
		return zpool_parse_size(part.s, part.n - 6, &p->to_examine);
	if (span_ends(part, " resilvered") || span_ends(part, " repaired"))
		return zpool_parse_size(part.s, (size_t)((const char *)memrchr(part.s, ' ', part.n) - part.s),
					&p->processed);
	if (span_ends(part, "% done"))
		return zpool_parse_size(part.s, part.n - 6, &p->percent_done);
	if (span_ends(part, " to go"))
		return zpool_parse_dhms(part.s, part.n - 6, &p->to_go);
	if (part.n == 28 && memcmp(part.s, "no estimated completion time", 28) == 0)
		return 0;
	return -EINVAL;
}

/* An indented line of the scan block. */
static int scan_more(ZpoolScan *p, Span x)
{
	if (p->state != ZPOOL_SCAN_SCANNING)
		return -EINVAL;	/* a finished or canceled scan is one line */
	span_eat(&x, "thorough ");
	if (span_eat(&x, "scrub started on "))
		return zpool_parse_ctime(x.s, x.n, &p->start_time);
	Span part;
	while (span_cut(&x, ", ", &part))
		if (scan_part(p, part) < 0)
			return -EINVAL;
	return scan_part(p, x);
}

/* --------------------------------------------------------- the whole text */

typedef enum Section { SECTION_HEAD, SECTION_SCAN, SECTION_CONFIG } Section;

typedef struct TextParse {
	ZpoolStatus *s;
	ZpoolScan *pool;	/* NULL: before the first pool, or past ZPOOL_POOLS_MAX */
	Section section;
	bool scan_seen;
	unsigned line;
} TextParse;

/* "  pool: tank", " state: ONLINE", "config:": a header's word, else 0 */
static size_t header_word(Span x, Span *ret_rest)
{
	/* " scrub:" heads an error scrub's block (print_err_scrub_status) */
	static const char *const words[] = {"pool", "id", "state", "status", "action", "see", "scan", "scrub",
					    "remove", "checkpoint", "expand", "config", "errors"};
	while (x.n && x.s[0] == ' ')
		x.s++, x.n--;
	for (size_t i = 0; i < ELEMENTSOF(words); i++) {
		Span r = x;
		if (span_eat(&r, words[i]) && span_eat(&r, ":") && (r.n == 0 || r.s[0] == ' ' || r.s[0] == '\t')) {
			while (r.n && (r.s[0] == ' ' || r.s[0] == '\t'))
				r.s++, r.n--;
			*ret_rest = r;
			return strlen(words[i]);
		}
	}
	return 0;
}

/* A config line "\t    sdb  ONLINE  0 0 0  (resilvering)": its name. */
static void config_line(TextParse *t, Span x)
{
	if (!t->pool || !span_ends(x, "(resilvering)"))
		return;
	while (x.n && isspace((unsigned char)x.s[0]))
		x.s++, x.n--;
	size_t n = 0;
	while (n < x.n && !isspace((unsigned char)x.s[n]))
		n++;
	if (n > 0 && n <= ZPOOL_PATH_MAX)
		zpool_scan_add_leaf(t->pool, x.s, n, 0, NAN);
}

static int text_header(TextParse *t, Span word, Span rest, char **ret_error)
{
	t->section = SECTION_HEAD;
	if (word.n == 4 && memcmp(word.s, "pool", 4) == 0) {
		if (rest.n == 0 || rest.n > ZPOOL_NAME_MAX)
			return set_errorf(ret_error, -EINVAL, "line %u: a pool name of %zu bytes", t->line, rest.n);
		t->pool = zpool_status_add(t->s, rest.s, rest.n);
		if (t->pool)
			t->pool->times_local = true;	/* ctime(): the host's local time */
		t->scan_seen = false;
		return 0;
	}
	if (word.n == 6 && memcmp(word.s, "config", 6) == 0)
		t->section = SECTION_CONFIG;
	if (!(word.n == 4 && memcmp(word.s, "scan", 4) == 0) || !t->pool)
		return 0;
	/* print_scan_status() prints the last scrub's block, then a
	 * sequential resilver's, one per top-level vdev: the first block
	 * under way is the pool's, else the last */
	if (t->scan_seen && t->pool->state == ZPOOL_SCAN_SCANNING)
		return 0;
	scan_reset(t->pool);
	t->scan_seen = true;
	t->section = SECTION_SCAN;
	if (scan_first(t->pool, rest) < 0)
		return set_errorf(ret_error, -EINVAL, "line %u: unreadable scan line \"%.*s\"", t->line,
				  (int)fmin(rest.n, 80), rest.s);
	return 0;
}

static int text_line(TextParse *t, Span x, char **ret_error)
{
	if (x.n > LINE_MAX_LEN)
		return set_errorf(ret_error, -EINVAL, "line %u is longer than %u bytes", t->line, LINE_MAX_LEN);
	for (size_t i = 0; i < x.n; i++)
		if (x.s[i] == 0 || (iscntrl((unsigned char)x.s[i]) && x.s[i] != '\t' && x.s[i] != '\r'))
			return set_errorf(ret_error, -EINVAL, "line %u holds a control byte", t->line);
	if (x.n && x.s[x.n - 1] == '\r')
		x.n--;
	Span rest;
	size_t w = header_word(x, &rest);
	if (w) {
		Span word = x;
		while (word.s[0] == ' ')
			word.s++, word.n--;
		word.n = w;
		return text_header(t, word, rest, ret_error);
	}
	if (t->section == SECTION_CONFIG) {
		config_line(t, x);
		return 0;
	}
	if (t->section != SECTION_SCAN)
		return 0;
	while (x.n && isspace((unsigned char)x.s[0]))
		x.s++, x.n--;
	/* "    scan warning: skipped blocks ... checkpoint": after the block */
	if (x.n == 0 || span_eat(&x, "scan warning: ")) {
		t->section = SECTION_HEAD;
		return 0;
	}
	if (scan_more(t->pool, x) < 0)
		return set_errorf(ret_error, -EINVAL, "line %u: unreadable scan line \"%.*s\"", t->line,
				  (int)fmin(x.n, 80), x.s);
	return 0;
}

static Span first_nonblank(const char *text, size_t len)
{
	Span x = {text, len};
	while (x.n && isspace((unsigned char)x.s[0]))
		x.s++, x.n--;
	return x;
}

int zpool_status_parse_text(const char *text, size_t len, ZpoolStatus **ret, char **ret_error)
{
	if (!text || len > ZPOOL_INPUT_MAX)
		return text ? -E2BIG : set_errorf(ret_error, -EINVAL, "no output");
	_cleanup_(zpool_status_freep) ZpoolStatus *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	TextParse t = {.s = s};
	Span all = {text, len}, line;
	bool any = false;
	while (all.n) {
		if (!span_cut(&all, "\n", &line)) {
			line = all;
			all.n = 0;
		}
		t.line++;
		int r = text_line(&t, line, ret_error);
		if (r < 0)
			return r;
		any = any || t.pool || s->pools_truncated;
	}
	Span b = first_nonblank(text, len);
	if (!any && !(b.n >= 18 && memcmp(b.s, "no pools available", 18) == 0))
		return set_errorf(ret_error, -EINVAL, "not zpool status output: no \"pool:\" line");
	*ret = TAKE_PTR(s);
	return 0;
}

int zpool_status_parse(const char *text, size_t len, ZpoolStatus **ret, char **ret_error)
{
	Span b = first_nonblank(text ? text : "", text ? len : 0);
	if (b.n && b.s[0] == '{')
		return zpool_status_parse_json(text, len, ret, ret_error);
	return zpool_status_parse_text(text, len, ret, ret_error);
}
