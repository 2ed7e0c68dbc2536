/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples are stored pre-rendered (name, labels) with their value, so a
 * scrape is one pass of appends. Families without samples are not printed:
 * Prometheus tolerates them, but promtool and humans read them as noise.
 */
#include "metrics.h"

#include <math.h>

struct MetricFamily {
	const char *name, *help;
	MetricType type;
	Buf lines;		/* "name{labels} value\n", one per sample, in order */
	size_t n;
};

struct MetricSet {
	MetricFamily **fam;	/* pointers: callers keep families while more are added */
	size_t n, cap;
};

MetricSet *metricset_new(void) { return calloc(1, sizeof(MetricSet)); }

MetricSet *metricset_free(MetricSet *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		buf_free(&s->fam[i]->lines);
		free(s->fam[i]);
	}
	free(s->fam);
	free(s);
	return NULL;
}

MetricFamily *metricset_family(MetricSet *s, const char *name, MetricType type, const char *help)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 32;
		MetricFamily **n = realloc(s->fam, ncap * sizeof *n);
		if (!n)
			return NULL;
		s->fam = n;
		s->cap = ncap;
	}
	MetricFamily *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	*f = (MetricFamily){.name = name, .help = help, .type = type};
	s->fam[s->n++] = f;
	return f;
}

void metric_escape_label(Buf *b, const char *v)
{
	for (const char *p = v; *p;) {
		size_t run = strcspn(p, "\\\"\n");
		buf_put(b, p, run);
		p += run;
		if (!*p)
			break;
		buf_put(b, *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : "\\n", 2);
		p++;
	}
}

static void render_value(Buf *out, double v)
{
	if (isnan(v))
		buf_put(out, "NaN", 3);
	else if (isinf(v))
		buf_printf(out, "%s", v > 0 ? "+Inf" : "-Inf");
	else if (v == (double)(int64_t)v && fabs(v) < 1e15)
		buf_printf(out, "%lld", (long long)v);
	else {
		/* Shortest form that reads back exactly, as Go's exporters print. */
		char tmp[32];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(tmp, sizeof tmp, "%.*g", prec, v);
			if (strtod(tmp, NULL) == v)
				break;
		}
		buf_printf(out, "%s", tmp);
	}
}

void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value)
{
	if (!f || f->lines.oom)
		return;
	/* Straight into the family's page fragment: no allocation per sample. */
	Buf *b = &f->lines;
	buf_put(b, f->name, strlen(f->name));
	if (suffix)
		buf_put(b, suffix, strlen(suffix));
	if (labels && labels[0]) {
		buf_put(b, "{", 1);
		for (size_t i = 0; labels[i] && labels[i + 1]; i += 2) {
			if (i)
				buf_put(b, ",", 1);
			buf_put(b, labels[i], strlen(labels[i]));
			buf_put(b, "=\"", 2);
			metric_escape_label(b, labels[i + 1]);
			buf_put(b, "\"", 1);
		}
		buf_put(b, "}", 1);
	}
	buf_put(b, " ", 1);
	render_value(b, value);
	buf_put(b, "\n", 1);
	f->n++;
}

void metricset_render(MetricSet *s, Buf *out)
{
	static const char *const types[_METRIC_TYPE_MAX] = {
		[METRIC_GAUGE] = "gauge", [METRIC_COUNTER] = "counter", [METRIC_HISTOGRAM] = "histogram",
	};
	/* One allocation for the page, and each family's lines freed once
	 * copied: the peak is the page plus one family, not twice the page. */
	size_t total = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->fam[i]->n)
			total += s->fam[i]->lines.len + 2 * strlen(s->fam[i]->name) + strlen(s->fam[i]->help) + 32;
	buf_reserve(out, total);
	for (size_t i = 0; i < s->n; i++) {
		MetricFamily *f = s->fam[i];
		if (f->n == 0)
			continue;
		buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, types[f->type]);
		if (f->lines.oom)
			out->oom = true;
		else
			buf_put(out, f->lines.data, f->lines.len);
		buf_free(&f->lines);
		f->n = 0;
	}
}
