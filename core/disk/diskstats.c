/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/diskstats has 3 id columns then 11, 15 (4.18+, discards) or 17 (5.5+,
 * flushes) fields. The kernel prints the time fields as 32-bit milliseconds,
 * which wrap after 49.7 days, so totals are accumulated from deltas.
 */
#include "diskstats.h"

#include <ctype.h>
#include <string.h>

static const char *const field_names[_DS_FIELD_MAX] = {
	[DS_READS] = "reads", [DS_READS_MERGED] = "reads_merged",
	[DS_READ_SECTORS] = "read_sectors", [DS_READ_MS] = "read_ms",
	[DS_WRITES] = "writes", [DS_WRITES_MERGED] = "writes_merged",
	[DS_WRITE_SECTORS] = "write_sectors", [DS_WRITE_MS] = "write_ms",
	[DS_IN_FLIGHT] = "in_flight", [DS_IO_MS] = "io_ms",
	[DS_WEIGHTED_MS] = "weighted_ms", [DS_DISCARDS] = "discards",
	[DS_DISCARDS_MERGED] = "discards_merged", [DS_DISCARD_SECTORS] = "discard_sectors",
	[DS_DISCARD_MS] = "discard_ms", [DS_FLUSHES] = "flushes", [DS_FLUSH_MS] = "flush_ms",
};

const char *diskstat_field_to_string(DiskstatField f)
{
	return f >= 0 && f < _DS_FIELD_MAX ? field_names[f] : NULL;
}

/* Reads one unsigned decimal token; advances *p past it. */
static int next_u64(const char **p, uint64_t *ret)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return *s == 0 || *s == '\n' ? -ENODATA : -EINVAL;
	/* 19 digits cannot overflow: only a longer number is checked, digit
	 * by digit (a counter line is 17 numbers, every second, per device) */
	uint64_t v = 0;
	unsigned n = 0;
	for (; *s >= '0' && *s <= '9'; s++, n++) {
		unsigned d = (unsigned)(*s - '0');
		if (n >= 19 && v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*s && *s != ' ' && *s != '\t' && *s != '\n')
		return -EINVAL;
	*p = s;
	*ret = v;
	return 0;
}

/* The three id columns; *p is left after the name. */
static int parse_head(const char **p, DiskstatLine *l)
{
	uint64_t maj, min;
	if (next_u64(p, &maj) < 0 || next_u64(p, &min) < 0 || maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strcspn(s, " \t\n");
	if (n == 0 || n >= sizeof l->name)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]))
			return -EINVAL;
	memcpy(l->name, s, n);
	l->name[n] = 0;
	l->major = (unsigned)maj;
	l->minor = (unsigned)min;
	*p = s + n;
	return 0;
}

/* Only the layouts the kernel has printed; anything else is not trusted. */
static bool layout_known(unsigned n_fields) { return n_fields == 11 || (n_fields >= 15 && n_fields != 16); }

static int parse_fields(const char *p, DiskstatLine *l)
{
	for (;;) {
		uint64_t v;
		int r = next_u64(&p, &v);
		if (r == -ENODATA)
			break;
		if (r < 0)
			return -EINVAL;
		if (l->n_fields < _DS_FIELD_MAX)
			l->v[l->n_fields] = v;
		l->n_fields++;
	}
	if (!layout_known(l->n_fields))
		return -EINVAL;
	if (l->n_fields > _DS_FIELD_MAX)
		l->n_fields = _DS_FIELD_MAX;
	return 0;
}

/* The same verdict as parse_fields, without converting a number: for the
 * lines nobody reads (partitions, devices not watched), which still count
 * as bad when they are. */
static int check_fields(const char *p)
{
	static const char top[] = "18446744073709551615";	/* UINT64_MAX */
	unsigned n_fields = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == 0 || *p == '\n')
			break;
		const char *s = p;
		while (*p >= '0' && *p <= '9')
			p++;
		size_t len = (size_t)(p - s);
		if (len == 0 || (*p && *p != ' ' && *p != '\t' && *p != '\n'))
			return -EINVAL;
		while (len > 1 && *s == '0')	/* leading zeros are still the same number */
			s++, len--;
		if (len > sizeof top - 1 || (len == sizeof top - 1 && memcmp(s, top, len) > 0))
			return -EINVAL;
		n_fields++;
	}
	return layout_known(n_fields) ? 0 : -EINVAL;
}

int diskstats_parse_line(const char *line, DiskstatLine *ret)
{
	DiskstatLine l = {0};
	const char *p = line;
	if (parse_head(&p, &l) < 0 || parse_fields(p, &l) < 0)
		return -EINVAL;
	*ret = l;
	return 0;
}

/* One line of n bytes at p: 1 if it is bad, else 0. */
static unsigned one_line(const char *p, size_t n, DiskstatWantFn want,
			 void (*cb)(const DiskstatLine *l, void *userdata), void *userdata)
{
	/* parsed where it lies: every step stops at the line's end */
	DiskstatLine l = {0};
	const char *q = p;
	if (parse_head(&q, &l) < 0)
		return 1;
	l.counters = q;
	l.counters_len = n - (size_t)(q - p);
	switch (want ? want(&l, userdata) : DISKSTAT_PARSE) {
	case DISKSTAT_CHECK:
		return check_fields(q) < 0;
	case DISKSTAT_SKIP:
		return 0;
	default:
		if (parse_fields(q, &l) < 0)
			return 1;
		cb(&l, userdata);
		return 0;
	}
}

unsigned diskstats_parse(const char *text, DiskstatWantFn want, void (*cb)(const DiskstatLine *l, void *userdata),
			 void *userdata)
{
	unsigned bad = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		if (n >= DISKSTATS_LINE_MAX)
			bad++;
		else if (n > 0)
			bad += one_line(p, n, want, cb, userdata);
		p += n;
		if (*p == '\n')
			p++;
	}
	return bad;
}

bool diskstats_field_is_ms(DiskstatField f)
{
	return f == DS_READ_MS || f == DS_WRITE_MS || f == DS_IO_MS || f == DS_WEIGHTED_MS || f == DS_DISCARD_MS ||
	       f == DS_FLUSH_MS;
}

bool diskstats_counter_delta(DiskstatField f, uint64_t prev, uint64_t cur, uint64_t *ret)
{
	const uint64_t half = UINT64_C(1) << 31;
	if (cur >= prev) {
		*ret = cur - prev;
		return true;
	}
	/* A wrap leaves a 32-bit counter from the top half to the bottom one;
	 * anything else that goes backwards was reset. */
	if (diskstats_field_is_ms(f) && prev <= UINT32_MAX && prev >= half && cur < half) {
		*ret = cur + (UINT64_C(1) << 32) - prev;
		return true;
	}
	return false;
}

static void add_saturating(uint64_t *total, uint64_t d)
{
	*total = *total > UINT64_MAX - d ? UINT64_MAX : *total + d;
}

/* One field of one sample: returns the increase to count. */
static uint64_t step_field(DiskstatAccum *a, DiskstatField f, uint64_t cur)
{
	uint32_t bit = UINT32_C(1) << f;
	uint64_t d;
	if (diskstats_counter_delta(f, a->last[f], cur, &d)) {
		if (cur < a->last[f])
			a->wraps++;
		a->last[f] = cur;
		a->suspect_mask &= ~bit;
		return d;
	}
	/* Backwards. A reset is confirmed once the counter grows from the low
	 * value (a stale line repeats it, or the counter comes back to where
	 * it was: then it was a glitch, counted by the first branch). */
	if ((a->suspect_mask & bit) && cur > a->suspect[f]) {
		a->resets++;
		a->suspect_mask &= ~bit;
		a->last[f] = cur;
		return cur - a->suspect[f];
	}
	a->suspect[f] = cur;
	a->suspect_mask |= bit;
	return 0;
}

bool diskstats_accumulate_unchanged(DiskstatAccum *a)
{
	/* the same text: the same values, so each delta is 0 and in-flight
	 * (a gauge, the only raw total) is what it was */
	if (!a->primed || a->suspect_mask)
		return false;
	memset(a->delta, 0, sizeof a->delta);
	return true;
}

/* murmur3's 64-bit finalizer, one 8-byte word at a time */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

uint64_t diskstats_counters_hash(const DiskstatLine *l)
{
	const char *s = l->counters;
	size_t n = s ? l->counters_len : 0, i = 0;
	uint64_t h = mix(UINT64_C(0x9e3779b97f4a7c15) ^ n);
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = mix(h ^ w);
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, s + i, n - i);
		h = mix(h ^ w);
	}
	return h;
}

void diskstats_accumulate(DiskstatAccum *a, const DiskstatLine *l)
{
	if (!a->primed || l->n_fields != a->n_fields) {
		/* First sample, or the kernel layout changed under us: count from
		 * here on, keeping what was counted so far. */
		for (int f = 0; f < _DS_FIELD_MAX; f++) {
			uint64_t v = f < (int)l->n_fields ? l->v[f] : 0;
			if (!a->primed || f == DS_IN_FLIGHT || v > a->total[f])
				a->total[f] = v;
			a->last[f] = v;
			a->delta[f] = 0;
		}
		a->suspect_mask = 0;
		a->n_fields = l->n_fields;
		a->primed = true;
		return;
	}
	/* An idle device, most of a big host's at any time: nothing moved
	 * (in-flight, a gauge, is not counted up to) */
	size_t n = l->n_fields;
	if (n > DS_IN_FLIGHT && !a->suspect_mask && !memcmp(l->v, a->last, DS_IN_FLIGHT * sizeof *l->v) &&
	    !memcmp(l->v + DS_IN_FLIGHT + 1, a->last + DS_IN_FLIGHT + 1, (n - DS_IN_FLIGHT - 1) * sizeof *l->v)) {
		memset(a->delta, 0, n * sizeof *a->delta);
		a->total[DS_IN_FLIGHT] = l->v[DS_IN_FLIGHT];
		return;
	}
	for (int f = 0; f < (int)l->n_fields; f++) {
		if (f == DS_IN_FLIGHT) {
			a->total[f] = l->v[f];
			a->delta[f] = 0;
			continue;
		}
		a->delta[f] = step_field(a, (DiskstatField)f, l->v[f]);
		add_saturating(&a->total[f], a->delta[f]);
	}
}
