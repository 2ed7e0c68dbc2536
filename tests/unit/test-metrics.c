/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics registry renders valid text format: escaping, values, empty families. */
#include <math.h>

#include "metrics.h"
#include "test.h"

int main(void)
{
	MetricSet *s = metricset_new();
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
	Buf b = {0};
	metricset_render(s, &b);
	CHECK_STR(b.data,
		  "# HELP x_info Help text.\n# TYPE x_info gauge\n"
		  "x_info{device=\"sda\",model=\"a \\\"quoted\\\" back\\\\slash\\nnew\"} 1\n"
		  "# HELP x_total A counter.\n# TYPE x_total counter\n"
		  "x_total 0.1\nx_total_extra 12345678901234\nx_total NaN\nx_total +Inf\n"
		  "x_total 0.3333333333333333\n");
	buf_free(&b);
	metricset_free(s);
	return test_done("test-metrics");
}
