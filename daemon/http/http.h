/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP server on libmicrohttpd, driven
 * by our event loop through its epoll fd: no thread of its own. TLS, client
 * certificates and basic auth come from node_exporter's web configuration
 * file. Connections are guarded: each has a deadline for its request
 * headers, each client address a limit, and when the server fills up the
 * oldest connection that is only waiting gives way, so that a slow or
 * hostile client never keeps a scraper out.
 */
#pragma once

#include <errno.h>
#include <string.h>

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
/* The same; if it was the last reference, the body's memory goes to ret
 * (emptied, what ret held freed) to be written again, not freed. */
HttpBody *http_body_unref_into(HttpBody *body, Buf *ret);
size_t http_body_size(const HttpBody *body);

/* What a GET or HEAD asks for. */
typedef struct HttpRequest HttpRequest;
struct HttpRequest {
	const char *path;		/* without the query, percent-decoded */
	/* A query argument, percent-decoded; NULL if absent. */
	const char *(*arg)(const HttpRequest *req, const char *key);
	void *conn;			/* for arg() */
	const char *accept;		/* the Accept header, or "" */
	bool gzip_ok;			/* Accept-Encoding allows gzip */
};

/* A query argument copied into buf: 1, or 0 if absent, or -E2BIG if it does
 * not fit (buf untouched either way: a caller that must not take a longer
 * value for an absent one, a filter for one, tells them apart). */
static inline int http_arg_copy(const HttpRequest *req, const char *key, char *buf, size_t size)
{
	const char *v = req->arg ? req->arg(req, key) : NULL;
	size_t n = v ? strlen(v) : 0;
	if (!v)
		return 0;
	if (n >= size)
		return -E2BIG;
	memcpy(buf, v, n + 1);
	return 1;
}

typedef struct HttpReply {
	unsigned status;
	const char *type;		/* Content-Type, a static string */
	HttpBody *body;			/* a reference, handed over */
	bool gzipped;			/* body is already gzip: Content-Encoding: gzip */
	bool varies;			/* the body depends on Accept/Accept-Encoding */
} HttpReply;

/* Answers a request (the content is not this module's business): fills
 * ret (status, type, a body reference); returns 0, or -errno for a 500. A
 * body that is not gzipped yet is compressed here when the client takes gzip. */
typedef int (*HttpHandlerFn)(void *userdata, const HttpRequest *req, HttpReply *ret);

/* gzip at the fastest level (libdeflate): a 1.6 MB page in ~3 ms. NULL on error. */
HttpBody *http_body_gzip(const HttpBody *plain);
const char *http_body_data(const HttpBody *body);

#define HTTP_EVENT_PRIORITY 10		/* below the sampling timer and the watchdog */
#define HTTP_MAX_CONNECTIONS 128	/* libmicrohttpd's hard limit */
#define HTTP_RESERVED 8			/* kept free: past MAX - RESERVED the oldest waiting one goes */
#define HTTP_MAX_PER_ADDRESS 32
#define HTTP_GRACE_USEC (500 * UINT64_C(1000))		/* a newcomer is not dropped for crowding before */
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
int http_new(sd_event *e, const char *addr, int fd, const char *web_config, HttpHandlerFn handler, void *userdata,
	     Http **ret, char **ret_error);
Http *http_free(Http *h);
/* Re-reads the web configuration file (certificates, users, headers); on
 * error the running one stays and *ret_error says why. */
int http_reload(Http *h, const char *web_config, char **ret_error);
/* The port actually bound (useful with port 0). */
unsigned http_port(const Http *h);
/* Where the pages are served, as a link gives it: "http://ADDR:PORT" of the
 * socket actually listened on (the service manager's too), https under
 * TLS, host for one that listens on every address: 0, or -errno. */
int http_url(const Http *h, const char *host, char *buf, size_t n);
void http_stats(const Http *h, HttpStats *ret);
/* The time a connection has to send its request headers (HTTP_HEADER_USEC
 * by default), judged at the next once-a-second sweep: a unit test waits it
 * out in less. */
void http_set_header_deadline(Http *h, uint64_t usec);
/* Parses an address; exposed for tests. */
int http_parse_listen(const char *addr, char *host, size_t hostlen, unsigned *port);
/* Whether the listening socket fd is bound where addr ("host:port", ":port")
 * says; *ret_bound gets where it is bound, as "host:port". */
bool http_listens_on(int fd, const char *addr, char *ret_bound, size_t n);

