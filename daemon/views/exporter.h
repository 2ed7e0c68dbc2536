/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builds the /metrics page from the daemon context: classification metrics
 * of the contract, node_exporter-compatible diskstats counters, self metrics.
 */
#pragma once

#include "context.h"
#include "metrics.h"

/* Renders the whole page into out; -ENOMEM if it could not. */
int exporter_render(Context *ctx, Buf *out, MetricFormat fmt);
