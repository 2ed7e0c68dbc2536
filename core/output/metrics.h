/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small metrics writer: families of samples written as they come,
 * rendered in the Prometheus text exposition format (version 0.0.4) or in
 * OpenMetrics 1.0.
 */
#pragma once

#include "util.h"

typedef struct MetricSet MetricSet;
typedef struct MetricFamily MetricFamily;

typedef enum MetricType {
	METRIC_GAUGE,
	METRIC_COUNTER,
	METRIC_HISTOGRAM,
	_METRIC_TYPE_MAX,
	_METRIC_TYPE_INVALID = -22,
} MetricType;

typedef enum MetricFormat {
	METRIC_FORMAT_TEXT,		/* text/plain; version=0.0.4 */
	METRIC_FORMAT_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
	_METRIC_FORMAT_MAX,
} MetricFormat;

/* Samples are written into out as they are added, in the format given. */
MetricSet *metricset_new(Buf *out, MetricFormat fmt);
MetricSet *metricset_free(MetricSet *s);
/* Adds a family; name and help must be static strings. NULL on OOM. */
MetricFamily *metricset_family(MetricSet *s, const char *name, MetricType type, const char *help);
/* Adds a sample. labels is a NULL-terminated list of name, value pairs; values are escaped here.
 * suffix is appended to the family name (e.g. "_bucket"), or NULL. A family's
 * samples must come together: the first sample of another family closes it,
 * and a later sample for it makes metricset_finish() fail. */
void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value);
/* Writes a label set as metric_add() does: {name="value",...}, escaped. */
void metric_labels(Buf *b, const char *const *labels);
/* The same with the label set already written by metric_labels(): a page
 * with a dozen series per disk escapes each disk's labels once. */
void metric_add_rendered(MetricFamily *f, const char *suffix, const char *labels, size_t labels_len, double value);

/* Values of f are written with at most this many decimals (a duration in
 * seconds: 6, to the microsecond; a 0..1 score: 4), trailing zeros dropped;
 * integers always exactly. Default: the shortest form that reads back
 * exactly. Returns f. */
MetricFamily *metric_family_decimals(MetricFamily *f, int decimals);
/* Ends the page (OpenMetrics: # EOF). -EINVAL if a family got samples after
 * it was closed (*ret_misused names it: the page is invalid), -ENOMEM. */
int metricset_finish(MetricSet *s, const char **ret_misused);
/* Escapes a label value per the text format: backslash, quote, newline. */
void metric_escape_label(Buf *b, const char *v);
/* The format an Accept header asks for, as the Prometheus client libraries
 * negotiate (text when nothing better is acceptable); *ret_content_type is
 * the Content-Type to answer with. */
MetricFormat metric_negotiate(const char *accept, const char **ret_content_type);
