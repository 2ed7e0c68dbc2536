/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Families keep their samples until the render, so a caller adds them in
 * the order it walks its objects and the page still groups them by family,
 * as the text format wants. A sample keeps its label set rendered and
 * escaped once, in one text shared by the whole set, and its value as a
 * number, formatted at the render with its family's precision. Families
 * without samples are not printed: Prometheus tolerates them, but promtool
 * and humans read them as noise.
 */
#include "metrics.h"

#include <math.h>

typedef struct MetricSample {
	const char *suffix;	/* static, or NULL */
	uint32_t labels, labels_len;	/* the rendered label set, in the set's label text */
	double value;
} MetricSample;

struct MetricFamily {
	MetricSet *set;
	const char *name, *help;
	size_t name_len;
	MetricType type;
	int decimals;		/* -1: the shortest exact form */
	MetricSample *samples;
	size_t n, cap;
};

struct MetricSet {
	MetricFamily **fam;	/* pointers: callers keep families while more are declared */
	size_t n, cap;
	Buf labels;		/* every sample's label set, one after the other */
	bool oom;		/* a family or a sample could not be kept */
};

MetricSet *metricset_new(void)
{
	return calloc(1, sizeof(MetricSet));
}

MetricSet *metricset_free(MetricSet *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		free(s->fam[i]->samples);
		free(s->fam[i]);
	}
	free(s->fam);
	buf_free(&s->labels);
	free(s);
	return NULL;
}


MetricFamily *metricset_family(MetricSet *s, const char *name, MetricType type, const char *help)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		MetricFamily **n = realloc(s->fam, ncap * sizeof *n);
		if (!n) {
			s->oom = true;
			return NULL;
		}
		s->fam = n;
		s->cap = ncap;
	}
	MetricFamily *f = calloc(1, sizeof *f);
	if (!f) {
		s->oom = true;
		return NULL;
	}
	*f = (MetricFamily){.set = s, .name = name, .help = help, .name_len = strlen(name), .type = type, .decimals = -1};
	s->fam[s->n++] = f;
	return f;
}

MetricFamily *metric_family_decimals(MetricFamily *f, int decimals)
{
	if (f)
		f->decimals = decimals < 0 ? -1 : decimals > 9 ? 9 : decimals;
	return f;
}

static bool family_grow(MetricFamily *f, size_t ncap)
{
	MetricSample *n = realloc(f->samples, ncap * sizeof *n);
	if (!n) {
		f->set->oom = true;
		return false;
	}
	f->samples = n;
	f->cap = ncap;
	return true;
}

MetricFamily *metric_family_expect(MetricFamily *f, size_t n)
{
	if (f && n > f->cap)
		family_grow(f, n);
	return f;
}

void metricset_expect_labels(MetricSet *s, size_t n)
{
	buf_reserve(&s->labels, n);
}

/* Room for n more bytes at b's end, growing by doubling as buf_put does
 * (buf_reserve alone grows to the byte: once per sample, a copy each time). */
static char *room(Buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap)
		buf_reserve(b, n > b->cap ? n : b->cap);
	return b->oom ? NULL : b->data + b->len;
}

static void advance(Buf *b, char *end)
{
	b->len = (size_t)(end - b->data);
	b->data[b->len] = 0;
}

/* A label value of n bytes per the text format: backslash, quote and
 * newline escaped. */
static char *put_escaped(char *p, const char *v, size_t n)
{
	const char *end = v + n;
	for (;;) {
		size_t run = strcspn(v, "\\\"\n");
		p = mempcpy(p, v, run);
		v += run;
		if (v >= end)
			return p;
		*p++ = '\\';
		*p++ = *v == '\n' ? 'n' : *v;
		v++;
	}
}

/* {name="value",...}, or nothing for no labels. Each string is measured
 * once: a disk's identity alone is eight of them, on every scrape. */
static void put_labels(Buf *b, const char *const *labels)
{
	if (!labels || !labels[0])
		return;
	size_t len[32], n = 0, need = 2;
	for (; n + 1 < ELEMENTSOF(len) && labels[n] && labels[n + 1]; n += 2) {
		len[n] = strlen(labels[n]);
		len[n + 1] = strlen(labels[n + 1]);
		need += len[n] + 4 + 2 * len[n + 1];
	}
	char *p = room(b, need);
	if (!p)
		return;
	*p++ = '{';
	for (size_t i = 0; i < n; i += 2) {
		if (i)
			*p++ = ',';
		p = mempcpy(p, labels[i], len[i]);
		*p++ = '=';
		*p++ = '"';
		p = put_escaped(p, labels[i + 1], len[i + 1]);
		*p++ = '"';
	}
	*p++ = '}';
	advance(b, p);
}

MetricLabels metricset_labels(MetricSet *s, const char *const *labels)
{
	size_t off = s->labels.len;
	put_labels(&s->labels, labels);
	if (s->labels.len > UINT32_MAX)
		s->oom = true;
	return (MetricLabels){.at = (uint32_t)off, .len = (uint32_t)(s->labels.len - off)};
}

void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value)
{
	if (f)
		metric_add_labels(f, suffix, metricset_labels(f->set, labels), value);
}

void metric_add_labels(MetricFamily *f, const char *suffix, MetricLabels labels, double value)
{
	if (!f)
		return;
	if (f->n == f->cap && !family_grow(f, f->cap ? f->cap * 2 : 16))
		return;
	f->samples[f->n++] = (MetricSample){.suffix = suffix, .labels = labels.at, .labels_len = labels.len,
					    .value = value};
}

static void render_family(Buf *out, const MetricFamily *f, const char *labels, MetricFormat fmt)
{
	static const char *const types[_METRIC_TYPE_MAX] = {
		[METRIC_GAUGE] = "gauge", [METRIC_COUNTER] = "counter", [METRIC_HISTOGRAM] = "histogram",
	};
	/* OpenMetrics names a counter family without its _total */
	int base = (int)f->name_len;
	if (fmt == METRIC_FORMAT_OPENMETRICS && f->type == METRIC_COUNTER && base > 6 &&
	    streq(f->name + base - 6, "_total"))
		base -= 6;
	buf_printf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", base, f->name, f->help, base, f->name, types[f->type]);
	for (size_t i = 0; i < f->n; i++) {
		const MetricSample *m = &f->samples[i];
		size_t suffix_len = m->suffix ? strlen(m->suffix) : 0;
		/* the value: a space, at most 31 characters and a NUL, a newline */
		char *p = room(out, f->name_len + suffix_len + m->labels_len + 34);
		if (!p)
			return;
		p = mempcpy(p, f->name, f->name_len);
		p = mempcpy(p, m->suffix ? m->suffix : "", suffix_len);
		p = mempcpy(p, labels + m->labels, m->labels_len);
		*p++ = ' ';
		p += format_number(p, m->value, f->decimals);
		*p++ = '\n';
		advance(out, p);
	}
}

int metricset_render(const MetricSet *s, Buf *out, MetricFormat fmt)
{
	if (s->oom || s->labels.oom)
		return -ENOMEM;
	size_t size = 0;
	for (size_t i = 0; i < s->n; i++) {
		const MetricFamily *f = s->fam[i];
		if (f->n)
			size += strlen(f->help) + 2 * f->name_len + 32 + f->n * (f->name_len + 8 + 34);
		for (size_t k = 0; k < f->n; k++)
			size += f->samples[k].labels_len;
	}
	buf_reserve(out, size);
	for (size_t i = 0; i < s->n; i++)
		if (s->fam[i]->n)
			render_family(out, s->fam[i], s->labels.data ? s->labels.data : "", fmt);
	if (fmt == METRIC_FORMAT_OPENMETRICS)
		buf_put(out, "# EOF\n", 6);
	return out->oom ? -ENOMEM : 0;
}

/* As client_golang's expfmt.Negotiate does: the acceptable type with the
 * highest q wins (the first listed on a tie); OpenMetrics 0.0.1 and 1.0.0
 * read the same for what this page holds. */
MetricFormat metric_negotiate(const char *accept, const char **ret_content_type)
{
	MetricFormat best = METRIC_FORMAT_TEXT;
	double best_q = -1;
	const char *best_om_version = "1.0.0";
	for (const char *p = accept ? accept : ""; *p;) {
		size_t n = strcspn(p, ",");
		char range[256];
		snprintf(range, sizeof range, "%.*s", (int)(n < sizeof range ? n : sizeof range - 1), p);
		p += n + (p[n] == ',');
		char *save = NULL, *type = strtok_r(range, ";", &save);
		if (!type)
			continue;
		type += strspn(type, " \t");
		type[strcspn(type, " \t")] = 0;
		double q = 1;
		const char *version = "";
		for (char *param; (param = strtok_r(NULL, ";", &save));) {
			param += strspn(param, " \t");
			if (strncasecmp(param, "q=", 2) == 0)
				q = strtod(param + 2, NULL);
			else if (strncasecmp(param, "version=", 8) == 0)
				version = param + 8;
		}
		if (!(q > 0) || q <= best_q)
			continue;
		if (strcasecmp(type, "application/openmetrics-text") == 0) {
			if (*version && strncmp(version, "1.0.0", 5) != 0 && strncmp(version, "0.0.1", 5) != 0)
				continue;
			best = METRIC_FORMAT_OPENMETRICS;
			best_om_version = strncmp(version, "0.0.1", 5) == 0 ? "0.0.1" : "1.0.0";
		} else if (strcasecmp(type, "text/plain") == 0 || strcasecmp(type, "*/*") == 0 ||
			   strcasecmp(type, "text/*") == 0) {
			best = METRIC_FORMAT_TEXT;
		} else
			continue;
		best_q = q;
	}
	if (ret_content_type)
		*ret_content_type = best == METRIC_FORMAT_TEXT ? "text/plain; version=0.0.4; charset=utf-8"
				    : streq(best_om_version, "0.0.1") ? "application/openmetrics-text; version=0.0.1; charset=utf-8"
								      : "application/openmetrics-text; version=1.0.0; charset=utf-8";
	return best;
}
