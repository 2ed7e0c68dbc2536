/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP server (/metrics and a small index page) on libmicrohttpd, driven
 * by our event loop through its epoll fd: no thread of its own. TLS, client
 * certificates and basic auth come from node_exporter's web configuration
 * file. Connections are guarded: each has a deadline for its request
 * headers, each client address a limit, and when the server fills up the
 * oldest connection that is only waiting gives way, so that a slow or
 * hostile client never keeps a scraper out.
 */
#pragma once

#include <systemd/sd-event.h>

#include "util.h"

typedef struct Http Http;

/* A response body shared by every request that is sending it (refcounted):
 * a page rendered once is sent to many scrapers without a copy. */
typedef struct HttpBody HttpBody;
/* Takes b's memory (b is left empty); NULL on OOM (b is freed). */
HttpBody *http_body_new(Buf *b);
HttpBody *http_body_ref(HttpBody *body);
HttpBody *http_body_unref(HttpBody *body);
size_t http_body_size(const HttpBody *body);

/* Renders (or hands out a ref of) the metrics page; returns 0 or -errno. */
typedef int (*HttpRenderFn)(void *userdata, HttpBody **ret);

#define HTTP_EVENT_PRIORITY 10		/* below the sampling timer and the watchdog */
#define HTTP_MAX_CONNECTIONS 128	/* libmicrohttpd's hard limit */
#define HTTP_RESERVED 8			/* kept free: past MAX - RESERVED the oldest waiting one goes */
#define HTTP_MAX_PER_ADDRESS 32
#define HTTP_HEADER_USEC (10 * UINT64_C(1000000))	/* accept to complete request headers */
#define HTTP_KEEPALIVE_USEC (60 * UINT64_C(1000000))	/* idle between requests */

typedef struct HttpStats {
	uint64_t requests, unauthorized, rate_limited;
	uint64_t evicted_slow, evicted_crowded;	/* past their deadline; to make room */
	uint64_t bcrypt_checks;
	unsigned connections;
	bool tls;
} HttpStats;

/* Listens on addr ("[host]:port", "host:port" or ":port"), or on fd if fd >= 0.
 * web_config: a web configuration file, or NULL/"" for plain HTTP without
 * authentication. *ret_error says what is wrong with it (caller frees). */
int http_new(sd_event *e, const char *addr, int fd, const char *web_config, HttpRenderFn render, void *userdata,
	     Http **ret, char **ret_error);
Http *http_free(Http *h);
/* Re-reads the web configuration file (certificates, users, headers); on
 * error the running one stays and *ret_error says why. */
int http_reload(Http *h, const char *web_config, char **ret_error);
/* The port actually bound (useful with port 0). */
unsigned http_port(const Http *h);
void http_stats(const Http *h, HttpStats *ret);
/* Parses an address; exposed for tests. */
int http_parse_listen(const char *addr, char *host, size_t hostlen, unsigned *port);

