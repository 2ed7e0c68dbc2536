/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics writer: samples added in any order render grouped by family, in
 * the order declared, as valid text format and OpenMetrics; escaping, values,
 * empty families. */
#include <math.h>

#include "metrics.h"
#include "test.h"

static void metricset_freep(MetricSet **s) { metricset_free(*s); }

static void test_text(void)
{
	Buf b = {0};
	_cleanup_(metricset_freep) MetricSet *s = metricset_new();
	MetricFamily *g = metricset_family(s, "x_info", METRIC_GAUGE, "Help text.");
	MetricFamily *unused = metricset_family(s, "x_unused", METRIC_COUNTER, "Never printed.");
	MetricFamily *c = metricset_family(s, "x_total", METRIC_COUNTER, "A counter.");
	(void)unused;
	const char *labels[] = {"device", "sda", "model", "a \"quoted\" back\\slash\nnew", NULL};
	metric_add(g, NULL, labels, 1);
	metric_add(c, NULL, NULL, 0.1);
	metric_add(c, "_extra", NULL, 12345678901234.0);
	metric_add(c, NULL, NULL, NAN);
	metric_add(c, NULL, NULL, INFINITY);
	metric_add(c, NULL, NULL, 1.0 / 3.0);
	metric_add(NULL, NULL, labels, 2);		/* a family that could not be made: nothing */
	CHECK_INT(metricset_render(s, &b, METRIC_FORMAT_TEXT), 0);
	CHECK_STR(b.data,
		  "# HELP x_info Help text.\n# TYPE x_info gauge\n"
		  "x_info{device=\"sda\",model=\"a \\\"quoted\\\" back\\\\slash\\nnew\"} 1\n"
		  "# HELP x_total A counter.\n# TYPE x_total counter\n"
		  "x_total 0.1\nx_total_extra 12345678901234\nx_total NaN\nx_total +Inf\n"
		  "x_total 0.3333333333333333\n");
	buf_free(&b);
}

static void test_openmetrics(void)
{
	Buf b = {0};
	_cleanup_(metricset_freep) MetricSet *s = metricset_new();
	/* with the precision they carry: a sum of tenths, a duration to the microsecond */
	MetricFamily *sc = metric_family_decimals(metricset_family(s, "x_score", METRIC_GAUGE, "A score."), 4);
	MetricFamily *du = metric_family_decimals(metricset_family(s, "x_seconds_total", METRIC_COUNTER, "Time."), 6);
	metric_add(sc, NULL, NULL, 0.1 + 0.2 - 0.2);		/* 0.10000000000000003 */
	metric_add(sc, NULL, NULL, 1 - 0.9);			/* 0.09999999999999998 */
	metric_add(sc, NULL, NULL, 0.80000000000000004);
	metric_add(sc, NULL, NULL, -0.00001);			/* rounds to zero: no "-0" */
	metric_add(sc, NULL, NULL, -2.5);
	metric_add(du, NULL, NULL, 0.019326792997162556);
	metric_add(du, NULL, NULL, 1234.5670000001);
	metric_add(du, NULL, NULL, 3e20);			/* past fixed point: exact shortest form */
	metric_add(du, NULL, NULL, 18446744073709.551);
	CHECK_INT(metricset_render(s, &b, METRIC_FORMAT_OPENMETRICS), 0);
	CHECK_STR(b.data,
		  "# HELP x_score A score.\n# TYPE x_score gauge\n"
		  "x_score 0.1\nx_score 0.1\nx_score 0.8\nx_score 0\nx_score -2.5\n"
		  "# HELP x_seconds Time.\n# TYPE x_seconds counter\n"
		  "x_seconds_total 0.019327\nx_seconds_total 1234.567\nx_seconds_total 3e+20\n"
		  "x_seconds_total 18446744073709.55\n"
		  "# EOF\n");
	buf_free(&b);
	char v[32];
	CHECK(format_number(v, 4294967296.0, 6) == 10 && streq(v, "4294967296"));
	CHECK(format_number(v, -7, -1) == 2 && streq(v, "-7"));
}

/* What the exporter does: disk by disk, each disk's series in several
 * families (a histogram among them), then a family declared late whose
 * samples come first. The page lists each family once, in the order
 * declared, its samples in the order added; in both formats from one set. */
static void test_interleaved(void)
{
	_cleanup_(metricset_freep) MetricSet *s = metricset_new();
	MetricFamily *up = metricset_family(s, "d_up", METRIC_GAUGE, "Up.");
	MetricFamily *io = metricset_family(s, "d_reads_total", METRIC_COUNTER, "Reads.");
	MetricFamily *lat = metricset_family(s, "d_latency_seconds", METRIC_HISTOGRAM, "Latency.");
	MetricFamily *none = metricset_family(s, "d_zones", METRIC_GAUGE, "No disk has zones.");
	(void)none;
	const char *disks[] = {"sda", "sd\"b"};
	for (int i = 0; i < 2; i++) {
		const char *dev[] = {"device", disks[i], NULL};
		metric_add(io, NULL, dev, 10 * (i + 1));
		metric_add(up, NULL, dev, 1);
		char le[8];		/* reused: a label value need not outlive the call */
		for (int k = 0; k < 2; k++) {
			snprintf(le, sizeof le, "%d", k + 1);
			const char *l[] = {"device", disks[i], "le", le, NULL};
			metric_add(lat, "_bucket", l, k + i);
		}
		metric_add(lat, "_count", dev, 1 + i);
	}
	MetricFamily *late = metricset_family(s, "d_build_info", METRIC_GAUGE, "Declared last.");
	const char *ver[] = {"version", "1\n2\\", NULL};
	metric_add(late, NULL, ver, 1);
	metric_add(up, NULL, NULL, 0);				/* a sample after another family's */

	static const char up_text[] =
		"# HELP d_up Up.\n# TYPE d_up gauge\n"
		"d_up{device=\"sda\"} 1\nd_up{device=\"sd\\\"b\"} 1\nd_up 0\n";
	static const char rest[] =
		"d_reads_total{device=\"sda\"} 10\nd_reads_total{device=\"sd\\\"b\"} 20\n"
		"# HELP d_latency_seconds Latency.\n# TYPE d_latency_seconds histogram\n"
		"d_latency_seconds_bucket{device=\"sda\",le=\"1\"} 0\n"
		"d_latency_seconds_bucket{device=\"sda\",le=\"2\"} 1\n"
		"d_latency_seconds_count{device=\"sda\"} 1\n"
		"d_latency_seconds_bucket{device=\"sd\\\"b\",le=\"1\"} 1\n"
		"d_latency_seconds_bucket{device=\"sd\\\"b\",le=\"2\"} 2\n"
		"d_latency_seconds_count{device=\"sd\\\"b\"} 2\n"
		"# HELP d_build_info Declared last.\n# TYPE d_build_info gauge\n"
		"d_build_info{version=\"1\\n2\\\\\"} 1\n";
	Buf want = {0}, b = {0};
	buf_puts(&want, up_text);
	buf_puts(&want, "# HELP d_reads_total Reads.\n# TYPE d_reads_total counter\n");
	buf_puts(&want, rest);
	CHECK_INT(metricset_render(s, &b, METRIC_FORMAT_TEXT), 0);
	CHECK_STR(b.data, want.data);
	buf_free(&b);
	buf_free(&want);
	/* OpenMetrics: the counter family named without _total, and # EOF;
	 * appended to what out already holds */
	buf_puts(&b, "before\n");
	buf_puts(&want, "before\n");
	buf_puts(&want, up_text);
	buf_puts(&want, "# HELP d_reads Reads.\n# TYPE d_reads counter\n");
	buf_puts(&want, rest);
	buf_puts(&want, "# EOF\n");
	CHECK_INT(metricset_render(s, &b, METRIC_FORMAT_OPENMETRICS), 0);
	CHECK_STR(b.data, want.data);
	buf_free(&b);
	buf_free(&want);

	/* nothing at all: an empty page (OpenMetrics: just # EOF) */
	_cleanup_(metricset_freep) MetricSet *empty = metricset_new();
	metricset_family(empty, "e_unused", METRIC_GAUGE, "Unused.");
	CHECK_INT(metricset_render(empty, &b, METRIC_FORMAT_TEXT), 0);
	CHECK_INT(b.len, 0);
	CHECK_INT(metricset_render(empty, &b, METRIC_FORMAT_OPENMETRICS), 0);
	CHECK_STR(b.data, "# EOF\n");
	buf_free(&b);
}

/* Many samples: the arrays and the label text grow; every line kept in order. */
static void test_many(void)
{
	_cleanup_(metricset_freep) MetricSet *s = metricset_new();
	MetricFamily *a = metricset_family(s, "m_a", METRIC_GAUGE, "A.");
	MetricFamily *c = metricset_family(s, "m_b", METRIC_GAUGE, "B.");
	char name[16];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "d%d", i);
		const char *dev[] = {"device", name, NULL};
		metric_add(c, NULL, dev, i);
		metric_add(a, NULL, dev, -i);
	}
	Buf b = {0};
	CHECK_INT(metricset_render(s, &b, METRIC_FORMAT_TEXT), 0);
	const char *second_family = strstr(b.data, "# HELP m_b");
	CHECK(second_family && strstr(b.data, "m_a{device=\"d4999\"} -4999\n# HELP m_b B.\n") != NULL);
	CHECK(second_family && strstr(second_family, "m_b{device=\"d0\"} 0\nm_b{device=\"d1\"} 1\n") != NULL);
	const char *tail = "\nm_b{device=\"d4999\"} 4999\n";
	CHECK(b.len > strlen(tail) && streq(b.data + b.len - strlen(tail), tail));
	size_t lines = 0;
	for (size_t i = 0; i < b.len; i++)
		lines += b.data[i] == '\n';
	CHECK_INT(lines, 2 * 5000 + 4);
	buf_free(&b);
}

/* Room taken up front (too little, too much, or for no family) changes
 * nothing on the page: the same bytes as a set that grew as it went. */
static void test_expect(void)
{
	Buf page[2] = {0};
	for (int k = 0; k < 2; k++) {
		_cleanup_(metricset_freep) MetricSet *s = metricset_new();
		MetricFamily *a = metricset_family(s, "e_a", METRIC_GAUGE, "A.");
		MetricFamily *c = metricset_family(s, "e_b", METRIC_GAUGE, "B.");
		if (k) {
			CHECK(metric_family_expect(a, 3) == a);	/* fewer than come: grows past it */
			metric_family_expect(c, 100000);
			metricset_expect_labels(s, 7);
			CHECK(metric_family_expect(NULL, 10) == NULL);
		}
		char name[16];
		for (int i = 0; i < 3000; i++) {
			snprintf(name, sizeof name, "sd%d", i);
			MetricLabels dev = metricset_labels(s, (const char *const[]){"device", name, NULL});
			metric_add_labels(a, NULL, dev, i);
			metric_add(c, "_x", (const char *const[]){"device", name, "op", "w\\", NULL}, 0.5 * i);
		}
		CHECK_INT(metricset_render(s, &page[k], METRIC_FORMAT_TEXT), 0);
	}
	CHECK(page[0].len > 3000 * 2 * 10 && page[0].len == page[1].len &&
	      memcmp(page[0].data, page[1].data, page[0].len) == 0);
	buf_free(&page[0]);
	buf_free(&page[1]);
}

static void test_negotiate(void)
{
	/* Accept negotiation, as client_golang does it */
	const char *ct;
	CHECK_INT(metric_negotiate(NULL, &ct), METRIC_FORMAT_TEXT);
	CHECK_STR(ct, "text/plain; version=0.0.4; charset=utf-8");
	CHECK_INT(metric_negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
				   "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", &ct),
		  METRIC_FORMAT_OPENMETRICS);
	CHECK_STR(ct, "application/openmetrics-text; version=1.0.0; charset=utf-8");
	CHECK_INT(metric_negotiate("application/openmetrics-text; version=0.0.1", &ct), METRIC_FORMAT_OPENMETRICS);
	CHECK_STR(ct, "application/openmetrics-text; version=0.0.1; charset=utf-8");
	CHECK_INT(metric_negotiate("application/openmetrics-text;q=0.2, text/plain;q=0.9", NULL), METRIC_FORMAT_TEXT);
	CHECK_INT(metric_negotiate("application/openmetrics-text;version=2.0.0", NULL), METRIC_FORMAT_TEXT);
	CHECK_INT(metric_negotiate("application/openmetrics-text;q=0", NULL), METRIC_FORMAT_TEXT);
	CHECK_INT(metric_negotiate("application/json", NULL), METRIC_FORMAT_TEXT);
	CHECK_INT(metric_negotiate(",,;;;q=,APPLICATION/OPENMETRICS-TEXT ;q=1", NULL), METRIC_FORMAT_OPENMETRICS);
}

/* One label set for the samples of many families, as one disk's
 * device="sda" serves all of its series. */
static void test_shared_labels(void)
{
	_cleanup_(metricset_freep) MetricSet *s = metricset_new();
	MetricFamily *a = metricset_family(s, "a_info", METRIC_GAUGE, "A.");
	MetricFamily *b = metricset_family(s, "b_total", METRIC_COUNTER, "B.");
	for (int i = 0; i < 2; i++) {
		MetricLabels dev = metricset_labels(s, (const char *const[]){"device", i ? "sd\"b" : "sda", NULL});
		metric_add_labels(a, NULL, dev, 1);
		metric_add_labels(b, NULL, dev, 2 + i);
	}
	Buf out = {0};
	CHECK_INT(metricset_render(s, &out, METRIC_FORMAT_TEXT), 0);
	CHECK_STR(out.data, "# HELP a_info A.\n# TYPE a_info gauge\na_info{device=\"sda\"} 1\na_info{device=\"sd\\\"b\"} 1\n"
			    "# HELP b_total B.\n# TYPE b_total counter\nb_total{device=\"sda\"} 2\n"
			    "b_total{device=\"sd\\\"b\"} 3\n");
	buf_free(&out);
}

int main(void)
{
	test_shared_labels();
	test_text();
	test_openmetrics();
	test_interleaved();
	test_many();
	test_expect();
	test_negotiate();
	return test_done("test-metrics");
}
