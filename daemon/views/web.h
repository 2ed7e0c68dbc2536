/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the HTTP server answers: /metrics (text or OpenMetrics, gzip, one
 * render per sample), the status pages for a browser (/ and /disk/NAME),
 * and /api/v1/..., the JSON that smrctl --json prints. The server itself
 * (http.c) knows none of this: it is handed web_handle().
 */
#pragma once

#include "context.h"
#include "control.h"
#include "http.h"

typedef struct Web Web;

/* api answers /api/v1/...: the control protocol's handler (commands.c's),
 * called with no peer credentials (read-only commands only). */
Web *web_new(Context *ctx, ControlHandler api, void *api_userdata);
Web *web_free(Web *w);
/* The HttpHandlerFn; userdata is the Web. */
int web_handle(void *userdata, const HttpRequest *req, HttpReply *ret);
/* Renders of the metrics page so far (one per sample at most). */
uint64_t web_metrics_renders(const Web *w);
