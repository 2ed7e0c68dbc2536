/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small metrics registry: families of samples are collected first, then
 * rendered in the Prometheus text exposition format (version 0.0.4).
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

MetricSet *metricset_new(void);
MetricSet *metricset_free(MetricSet *s);
/* Adds a family; name and help must be static strings. NULL on OOM. */
MetricFamily *metricset_family(MetricSet *s, const char *name, MetricType type, const char *help);
/* Adds a sample. labels is a NULL-terminated list of name, value pairs; values are escaped here.
 * suffix is appended to the family name (e.g. "_bucket"), or NULL. */
void metric_add(MetricFamily *f, const char *suffix, const char *const *labels, double value);
/* Renders every family that has samples into out; the families are emptied
 * as they are copied. */
void metricset_render(MetricSet *s, Buf *out);
/* Escapes a label value per the text format: backslash, quote, newline. */
void metric_escape_label(Buf *b, const char *v);
