/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The status pages for a browser: / (every disk, problems first, sortable)
 * and /disk/NAME (its state, class and evidence, latency heatmaps, the
 * storm and stall timeline, percentiles, events, identity), and /docs/alerts
 * (the alerts' runbook). Built on the
 * event loop from the disks' views, so a page never shows half a sample.
 */
#pragma once

#include "context.h"
#include "http.h"

int pages_status(const Context *ctx, const HttpRequest *req, HttpReply *ret);
/* 404 with a page of its own for a name that is not watched. */
int pages_disk(const Context *ctx, const char *name, HttpReply *ret);
/* /docs/NAME: the runbooks alerts link to (docs/alerts.md, built in). */
int pages_doc(const Context *ctx, const char *name, HttpReply *ret);
