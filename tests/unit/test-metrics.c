/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics registry renders valid text format: escaping, values, empty families. */
#include <math.h>

#include "metrics.h"
#include "test.h"

int main(void)
{
	Buf b = {0};
	MetricSet *s = metricset_new(&b, METRIC_FORMAT_TEXT);
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
	CHECK_INT(metricset_finish(s, NULL), 0);
	metricset_free(s);
	CHECK_STR(b.data,
		  "# HELP x_info Help text.\n# TYPE x_info gauge\n"
		  "x_info{device=\"sda\",model=\"a \\\"quoted\\\" back\\\\slash\\nnew\"} 1\n"
		  "# HELP x_total A counter.\n# TYPE x_total counter\n"
		  "x_total 0.1\nx_total_extra 12345678901234\nx_total NaN\nx_total +Inf\n"
		  "x_total 0.3333333333333333\n");
	buf_free(&b);

	s = metricset_new(&b, METRIC_FORMAT_OPENMETRICS);
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
	CHECK_INT(metricset_finish(s, NULL), 0);
	metricset_free(s);
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

	/* a family's samples come together, or the page is refused, not torn */
	s = metricset_new(&b, METRIC_FORMAT_TEXT);
	MetricFamily *x = metricset_family(s, "x_a", METRIC_GAUGE, "A."), *y = metricset_family(s, "x_b", METRIC_GAUGE, "B.");
	metric_add(x, NULL, NULL, 1);
	metric_add(y, NULL, NULL, 2);
	metric_add(x, NULL, NULL, 3);
	const char *who = NULL;
	CHECK_INT(metricset_finish(s, &who), -EINVAL);
	CHECK(who && streq(who, "x_a"));
	metricset_free(s);
	buf_free(&b);

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
	return test_done("test-metrics");
}
