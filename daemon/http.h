/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP server (/metrics and a small index page) on libmicrohttpd, driven
 * by our event loop through its epoll fd: no thread of its own.
 */
#pragma once

#include <systemd/sd-event.h>

#include "util.h"

typedef struct Http Http;
/* Renders the metrics page; returns 0 or -errno. */
typedef int (*HttpRenderFn)(void *userdata, Buf *out);

/* Listens on addr ("[host]:port", "host:port" or ":port"), or on fd if fd >= 0. */
int http_new(sd_event *e, const char *addr, int fd, HttpRenderFn render, void *userdata, Http **ret);
Http *http_free(Http *h);
/* The port actually bound (useful with port 0). */
unsigned http_port(const Http *h);
/* Parses an address; exposed for tests. */
int http_parse_listen(const char *addr, char *host, size_t hostlen, unsigned *port);
