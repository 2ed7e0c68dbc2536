/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small metrics writer that collects: families are declared, samples are
 * added to any of them in any order, and one render at the end writes every
 * family in the order declared, each with its samples in the order added, in
 * the Prometheus text exposition format (version 0.0.4) or in OpenMetrics
 * 1.0. So a caller can go object by object (as OpenBGPD's ometric does).
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
	_METRIC_TYPE_INVALID = -EINVAL,
} MetricType;

typedef enum MetricFormat {
	METRIC_FORMAT_TEXT,		/* text/plain; version=0.0.4 */
	METRIC_FORMAT_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
	_METRIC_FORMAT_MAX,
} MetricFormat;

/* An empty set; NULL on OOM. */
MetricSet *metricset_new(void);
MetricSet *metricset_free(MetricSet *s);
/* Declares a family; name and help must be static strings. NULL on OOM
 * (adding to a NULL family does nothing, and the render fails). */
MetricFamily *metricset_family(MetricSet *s, const char *name, MetricType type, const char *help);
/* Values of f are written with at most this many decimals (a duration in
 * seconds: 6, to the microsecond; a 0..1 score: 4), trailing zeros dropped;
 * integers always exactly. Default: the shortest form that reads back
 * exactly. Returns f. */
MetricFamily *metric_family_decimals(MetricFamily *f, int decimals);
/* Room for n samples in f, taken at once: a caller that knows how many
 * are coming (one per disk) spares the copies of growing by doubling.
 * Returns f. */
MetricFamily *metric_family_expect(MetricFamily *f, size_t n);
/* Room for n more bytes of rendered label sets, likewise. */
void metricset_expect_labels(MetricSet *s, size_t n);
/* Adds a sample to f. labels is a NULL-terminated list of name, value
 * pairs (at most 16), rendered and escaped here (the strings need not outlive the call);
 * suffix is appended to the family name (e.g. "_bucket"), a static string,
 * or NULL. Nothing for a NULL f. */
void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value);
/* A label set rendered and escaped once, for the samples of many families
 * (one disk's device="sda"); valid until the set is cleared. */
typedef struct MetricLabels {
	uint32_t at, len;
} MetricLabels;
MetricLabels metricset_labels(MetricSet *s, const char *const *labels);
void metric_add_labels(MetricFamily *f, const char *suffix, MetricLabels labels, double value);
/* Appends the page to out: every family that has samples, in the order
 * declared (a family without samples is left out), then OpenMetrics'
 * # EOF. -ENOMEM if anything could not be kept or written. */
int metricset_render(const MetricSet *s, Buf *out, MetricFormat fmt);
/* The format an Accept header asks for, as the Prometheus client libraries
 * negotiate (text when nothing better is acceptable); *ret_content_type is
 * the Content-Type to answer with. */
MetricFormat metric_negotiate(const char *accept, const char **ret_content_type);
