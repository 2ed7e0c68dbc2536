/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples are written straight into the page, family after family: no
 * buffer per family, no copy at the end. The price is an order: a family's
 * samples must come together (the text format wants them together anyway);
 * a sample for a family already closed is refused and the page with it.
 * Families without samples are not printed: Prometheus tolerates them, but
 * promtool and humans read them as noise.
 */
#include "metrics.h"

#include <math.h>

struct MetricFamily {
	MetricSet *set;
	const char *name, *help;
	MetricType type;
	int decimals;		/* -1: the shortest exact form */
	bool started, closed;
};

struct MetricSet {
	Buf *out;
	MetricFormat fmt;
	MetricFamily **fam;	/* pointers: callers keep families while more are added */
	size_t n, cap;
	MetricFamily *cur;
	const char *misused;	/* a family that got a sample after it was closed */
};

MetricSet *metricset_new(Buf *out, MetricFormat fmt)
{
	MetricSet *s = calloc(1, sizeof(MetricSet));
	if (s) {
		s->out = out;
		s->fmt = fmt;
	}
	return s;
}

MetricSet *metricset_free(MetricSet *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		free(s->fam[i]);
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
	*f = (MetricFamily){.set = s, .name = name, .help = help, .type = type, .decimals = -1};
	s->fam[s->n++] = f;
	return f;
}

void metric_escape_label(Buf *b, const char *v)
{
	size_t plain = strcspn(v, "\\\"\n");
	if (!v[plain]) {
		buf_put(b, v, plain);
		return;
	}
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

MetricFamily *metric_family_decimals(MetricFamily *f, int decimals)
{
	if (f)
		f->decimals = decimals < 0 ? -1 : decimals > 9 ? 9 : decimals;
	return f;
}


static size_t base_len(const MetricFamily *f, MetricFormat fmt)
{
	/* OpenMetrics names a counter family without its _total */
	size_t n = strlen(f->name);
	if (fmt == METRIC_FORMAT_OPENMETRICS && f->type == METRIC_COUNTER && n > 6 && streq(f->name + n - 6, "_total"))
		n -= 6;
	return n;
}

static void start_family(MetricSet *s, MetricFamily *f)
{
	static const char *const types[_METRIC_TYPE_MAX] = {
		[METRIC_GAUGE] = "gauge", [METRIC_COUNTER] = "counter", [METRIC_HISTOGRAM] = "histogram",
	};
	if (s->cur)
		s->cur->closed = true;
	int n = (int)base_len(f, s->fmt);
	buf_printf(s->out, "# HELP %.*s %s\n# TYPE %.*s %s\n", n, f->name, f->help, n, f->name, types[f->type]);
	f->started = true;
	s->cur = f;
}

static bool enter(MetricFamily *f)
{
	MetricSet *s = f->set;
	if (f != s->cur) {
		if (f->closed) {
			s->misused = f->name;
			return false;
		}
		start_family(s, f);
	}
	return !s->out->oom;
}

static void put_value(Buf *b, const MetricFamily *f, double value)
{
	char num[34];
	size_t n = format_number(num + 1, value, f->decimals);
	num[0] = ' ';
	num[n + 1] = '\n';
	buf_put(b, num, n + 2);
}

void metric_labels(Buf *b, const char *const *labels)
{
	if (!labels || !labels[0])
		return;
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

void metric_add_rendered(MetricFamily *f, const char *suffix, const char *labels, size_t labels_len, double value)
{
	if (!f || !enter(f))
		return;
	Buf *b = f->set->out;
	buf_put(b, f->name, strlen(f->name));
	if (suffix)
		buf_put(b, suffix, strlen(suffix));
	buf_put(b, labels, labels_len);
	put_value(b, f, value);
}

void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value)
{
	if (!f)
		return;
	MetricSet *s = f->set;
	if (f != s->cur) {
		if (f->closed) {
			s->misused = f->name;
			return;
		}
		start_family(s, f);
	}
	Buf *b = s->out;
	if (b->oom)
		return;
	buf_put(b, f->name, strlen(f->name));
	if (suffix)
		buf_put(b, suffix, strlen(suffix));
	metric_labels(b, labels);
	put_value(b, f, value);
}

int metricset_finish(MetricSet *s, const char **ret_misused)
{
	if (s->cur)
		s->cur->closed = true;
	s->cur = NULL;
	if (s->fmt == METRIC_FORMAT_OPENMETRICS)
		buf_put(s->out, "# EOF\n", 6);
	if (ret_misused)
		*ret_misused = s->misused;
	return s->out->oom ? -ENOMEM : s->misused ? -EINVAL : 0;
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
