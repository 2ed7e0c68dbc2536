/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmicrohttpd runs in "external epoll" mode: its epoll fd is one io source
 * on our loop, and its timeout one timer, so scrapes are served by the same
 * thread that samples and never see half-updated state.
 *
 * The guard: libmicrohttpd tells us when a connection starts and ends and
 * when each request has its headers and completes; between those a
 * connection is "waiting". A waiting connection past its deadline, or the
 * oldest one when an address or the whole server is at its limit, is shut
 * down (shutdown(2), not close: the fd stays libmicrohttpd's until it sees
 * the end and closes it itself).
 *
 * A reload swaps the whole libmicrohttpd daemon: the old one is quiesced
 * (it hands back the listening socket) and a new one, with the new
 * certificates, starts on the same socket.
 */
#include "http.h"
#include "http-internal.h"

#include <assert.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"
#include "statuspage.h"
#include "webauth.h"
#include "websetup.h"

#define HTTP_CONNECTION_TIMEOUT_S 70	/* libmicrohttpd's own idle timeout, past ours */
/* Per connection, from libmicrohttpd's pool (mapped: what is not used costs
 * nothing): room for a long URL (a sort key, a device name). */
#define HTTP_MEMORY_LIMIT (256 * 1024)
/* Query arguments a request may have (our pages take a few). Each takes ~48
 * bytes of the pool besides the URL, and when they exhausted it libmicrohttpd
 * closed the connection without a status line (its own 431 needs the pool
 * too), and a URL that fits in the pool can name many more than that. */
#define HTTP_MAX_ARGS 64

/* What on_request finds in *con_cls: the URL was just read, with a query
 * cut off for its arguments, or the request is being served. */
static int fresh_request, crowded_query, serving;

static void body_release(void *cls) { http_body_unref(cls); }

typedef struct Guarded {
	struct Guarded *prev, *next;
	int fd;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	uint64_t since;		/* accept, or the end of the last request */
	bool active;		/* a request's headers are in: it is being served */
	bool served;		/* a request completed: now keep-alive idle */
	bool doomed;		/* shut down by us, closing */
	int cert_ok;		/* client certificate checked: 0 not yet, 1 good, -1 bad */
} Guarded;

struct Http {
	sd_event *event;
	struct MHD_Daemon *mhd;
	sd_event_source *io, *timer, *sweep;
	int listen_fd;
	HttpHandlerFn handler;
	void *userdata;
	unsigned port;
	WebSetup *web;
	Guarded *conns;
	unsigned n_conns;
	double rate_tokens;
	uint64_t rate_usec;
	uint64_t header_usec;	/* HTTP_HEADER_USEC unless a test shortens it */
	HttpStats stats;
};

/* --------------------------------------------------------------- guard */

static Guarded *guarded_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

static bool same_address(const Guarded *a, const Guarded *b)
{
	const struct sockaddr *x = (const struct sockaddr *)&a->addr, *y = (const struct sockaddr *)&b->addr;
	if (x->sa_family != y->sa_family)
		return false;
	if (x->sa_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr == ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr, &((const struct sockaddr_in6 *)y)->sin6_addr,
			       sizeof(struct in6_addr));
	return true;	/* UNIX sockets: one address */
}

static void doom(Guarded *g)
{
	g->doomed = true;
	shutdown(g->fd, SHUT_RDWR);
}

/* The connection to drop for a newcomer: among those like `like` (same
 * address), or among all when like is NULL, the one that has waited longest
 * without being served, counting the living ones. A connection is spared
 * while it is being served and for HTTP_GRACE_USEC after it came in: a
 * scraper's request arrives right behind its handshake, and when accepts
 * come in a burst (keep-alive scrapers told to reconnect, slowloris
 * clients coming back) it must be read before it can count as waiting.
 * With nothing to drop, libmicrohttpd's hard limit holds the rest in the
 * listen queue, first come first served. */
static Guarded *oldest_waiting(Http *h, const Guarded *like, uint64_t now, unsigned *ret_n)
{
	Guarded *best = NULL;
	unsigned n = 0;
	for (Guarded *g = h->conns; g; g = g->next) {
		if (g->doomed || (like && !same_address(g, like)))
			continue;
		n++;
		if (g->active || (!g->served && now - g->since < HTTP_GRACE_USEC))
			continue;
		if (!best || g->since <= best->since)
			best = g;
	}
	*ret_n = n;
	return best;
}

/* One for each connection past the limits: of the address `like` (or, for
 * NULL, of every address above its limit), then of the server. */
static void make_room(Http *h, Guarded *like, uint64_t now)
{
	unsigned n;
	Guarded *v = oldest_waiting(h, like, now, &n);
	if (like && n > HTTP_MAX_PER_ADDRESS && v) {
		doom(v);
		h->stats.evicted_crowded++;
	}
	v = oldest_waiting(h, NULL, now, &n);
	if (n > HTTP_MAX_CONNECTIONS - HTTP_RESERVED && v) {
		doom(v);
		h->stats.evicted_crowded++;
	}
}

/* The limits, again, for what the newcomers' grace spared: one address that
 * opened 150 connections within the grace filled all 128 slots, and with
 * libmicrohttpd at its limit no newcomer comes whose arrival would make room:
 * scrapers waited in the listen queue until the slow ones timed out. */
static void enforce_limits(Http *h, uint64_t now)
{
	for (Guarded *g = h->conns; g; g = g->next) {
		unsigned n;
		if (g->doomed)
			continue;
		oldest_waiting(h, g, now, &n);
		while (n > HTTP_MAX_PER_ADDRESS) {
			Guarded *v = oldest_waiting(h, g, now, &n);
			if (!v || n <= HTTP_MAX_PER_ADDRESS)
				break;
			doom(v);
			h->stats.evicted_crowded++;
		}
	}
	for (unsigned n = h->n_conns; n > HTTP_MAX_CONNECTIONS - HTTP_RESERVED;) {
		Guarded *v = oldest_waiting(h, NULL, now, &n);
		if (!v || n <= HTTP_MAX_CONNECTIONS - HTTP_RESERVED)
			break;
		doom(v);
		h->stats.evicted_crowded++;
	}
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	Http *h = cls;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		Guarded *g = *socket_context;
		if (!g)
			return;
		if (g->prev)
			g->prev->next = g->next;
		else
			h->conns = g->next;
		if (g->next)
			g->next->prev = g->prev;
		h->n_conns--;
		free(g);
		*socket_context = NULL;
		return;
	}
	Guarded *g = calloc(1, sizeof *g);
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!g || !fd) {
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		free(g);
		return;
	}
	g->fd = fd->connect_fd;
	g->since = now_usec(CLOCK_MONOTONIC);
	if (addr && addr->client_addr) {
		g->addr_len = addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
				: addr->client_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) : 0;
		memcpy(&g->addr, addr->client_addr, g->addr_len);
	}
	g->next = h->conns;
	if (h->conns)
		h->conns->prev = g;
	h->conns = g;
	h->n_conns++;
	*socket_context = g;
	make_room(h, g, g->since);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)con_cls, (void)toe;
	Guarded *g = guarded_of(c);
	if (g) {
		g->active = false;
		g->served = true;
		g->since = now_usec(CLOCK_MONOTONIC);
	}
}

static void run(Http *h);

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata)
{
	Http *h = userdata;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	/* At its connection limit libmicrohttpd takes the listening socket out
	 * of its epoll set and puts it back only in a later MHD_run(); when
	 * the last connections all close in one pass it asks for no timeout,
	 * and nothing would run it again: the accept queue grew for good (135
	 * idle connections opened and closed at once). A run a second puts it
	 * back whatever happened. */
	for (Guarded *g = h->conns; g; g = g->next) {
		uint64_t span = g->served ? HTTP_KEEPALIVE_USEC : h->header_usec;
		if (!g->active && !g->doomed && now - g->since >= span) {
			doom(g);
			h->stats.evicted_slow++;
		}
	}
	enforce_limits(h, now);
	run(h);
	/* crowded, a quarter of a second: a scraper in the listen queue waits no longer */
	bool crowded = h->n_conns > HTTP_MAX_CONNECTIONS - 2 * HTTP_RESERVED;
	return sd_event_source_set_time(s, usec + (crowded ? 250000 : 1000000));
}

/* ------------------------------------------------------------ requests */

static enum MHD_Result send_response(Http *h, struct MHD_Connection *c, unsigned status, const char *type,
				     struct MHD_Response *resp)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* Crowded, a slot is worth more than a kept-alive connection: keep-alive
	 * clients busy with request after request are never "only waiting", so
	 * the guard could not make room, and libmicrohttpd's hard limit would
	 * refuse the next scraper. */
	if (h->n_conns > HTTP_MAX_CONNECTIONS - 4 * HTTP_RESERVED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic");
	if (status == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	for (unsigned i = 0; h->web && i < h->web->cfg.n_headers; i++)
		MHD_add_response_header(resp, h->web->cfg.headers[i].key, h->web->cfg.headers[i].value);
	enum MHD_Result r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result reply(Http *h, struct MHD_Connection *c, unsigned status, const char *type, char *body,
			     size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	return send_response(h, c, status, type, resp);
}

static enum MHD_Result reply_text(Http *h, struct MHD_Connection *c, unsigned status, const char *text)
{
	return reply(h, c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), MHD_RESPMEM_PERSISTENT);
}

/* The client certificate, as client_auth_type asks; once per connection. */
static bool client_cert_ok(Http *h, struct MHD_Connection *c, Guarded *g)
{
	if (!h->web || !h->web->cfg.tls || h->web->cfg.client_auth == WEB_CLIENT_NONE)
		return true;
	if (g && g->cert_ok)
		return g->cert_ok > 0;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	bool ok = websetup_client_cert_ok(h->web, ci ? ci->tls_session : NULL);
	if (g)
		g->cert_ok = ok ? 1 : -1;
	return ok;
}

static bool rate_ok(Http *h)
{
	const WebConfig *c = h->web ? &h->web->cfg : NULL;
	if (!c || c->rate_interval <= 0)
		return true;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	double burst = c->rate_burst ? c->rate_burst : 1;
	if (h->rate_usec)
		h->rate_tokens += (double)(now - h->rate_usec) / 1e6 / c->rate_interval;
	else
		h->rate_tokens = burst;
	h->rate_usec = now;
	if (h->rate_tokens > burst)
		h->rate_tokens = burst;
	if (h->rate_tokens < 1)
		return false;
	h->rate_tokens -= 1;
	return true;
}

/* 0 to go on, else the status to answer with. */
static unsigned admit(Http *h, struct MHD_Connection *c, Guarded *g)
{
	if (!client_cert_ok(h, c, g))
		return MHD_HTTP_FORBIDDEN;
	if (!rate_ok(h))
		return MHD_HTTP_TOO_MANY_REQUESTS;
	if (!h->web || !h->web->cfg.n_users)
		return 0;
	AuthClientKey client;
	auth_client_key(g && g->addr_len ? (const struct sockaddr *)&g->addr : NULL, &client);
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);
	WebAuthResult a = user && pass ? webauth_check(h->web->auth, &client, user, pass, now_usec(CLOCK_MONOTONIC))
				       : WEB_AUTH_DENIED;
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	return a == WEB_AUTH_OK ? 0 : a == WEB_AUTH_BUSY ? MHD_HTTP_TOO_MANY_REQUESTS : MHD_HTTP_UNAUTHORIZED;
}

static const char *request_arg(const HttpRequest *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

/* libmicrohttpd calls this with the request's URI when it has found the '?'
 * and is about to split what follows into arguments. Past HTTP_MAX_ARGS
 * the query is cut off right after the '?' (the URI is libmicrohttpd's own
 * writable buffer, handed over as const), so that it parses none, and the
 * request is refused with a status line in on_request. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls, (void)c;
	char *q = strchr(uri, '?');
	unsigned n = 1;
	for (const char *p = q; p && *p && n <= HTTP_MAX_ARGS; p++)
		n += *p == '&';
	if (!q || n <= HTTP_MAX_ARGS)
		return &fresh_request;
	q[1] = '\0';
	return &crowded_query;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	Http *h = cls;
	(void)version, (void)upload_data;

	if (*con_cls != &serving) {	/* the headers are in: this connection is being served */
		bool crowded = *con_cls == &crowded_query;
		*con_cls = &serving;
		Guarded *g = guarded_of(c);
		if (g)
			g->active = true;
		h->stats.requests++;
		/* Refused before any body is read, with a status line (answering
		 * now closes the connection afterwards, which is what such a
		 * client gets): only GET and HEAD, and never a request body. */
		if (!streq(method, "GET") && !streq(method, "HEAD"))
			return reply_text(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if ((cl && !streq(cl, "0")) || MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
			return reply_text(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "no request body is accepted\n");
		/* a NUL in the path ("/disk/sda%00x") must not pass for its part before it */
		for (const char *p = url; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return reply_text(h, c, MHD_HTTP_BAD_REQUEST, "bad request: a control character in the path\n");
		if (crowded)
			return reply_text(h, c, MHD_HTTP_BAD_REQUEST, "bad request: too many query arguments\n");
		/* answered on the next call, once the (empty) body is read: a
		 * response queued this early makes libmicrohttpd close the
		 * connection, and a scraper wants to keep it */
		return MHD_YES;
	}
	if (*upload_data_size)
		return MHD_NO;	/* we take no bodies */
	unsigned deny = admit(h, c, guarded_of(c));
	if (deny) {
		if (deny == MHD_HTTP_UNAUTHORIZED)
			h->stats.unauthorized++;
		else if (deny == MHD_HTTP_TOO_MANY_REQUESTS)
			h->stats.rate_limited++;
		return reply_text(h, c, deny, deny == MHD_HTTP_UNAUTHORIZED ? "Unauthorized\n"
					     : deny == MHD_HTTP_FORBIDDEN ? "Forbidden: client certificate\n"
									 : "Too Many Requests\n");
	}
	if (!streq(method, "GET") && !streq(method, "HEAD"))
		return reply_text(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");

	/* libmicrohttpd has split off the query and decoded both */
	const char *path = url;
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	HttpRequest req = {.path = path, .arg = request_arg, .conn = c, .accept = accept ? accept : "",
			   .gzip_ok = http_accepts_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
										    MHD_HTTP_HEADER_ACCEPT_ENCODING))};
	HttpReply rep = {0};
	int r = h->handler(h->userdata, &req, &rep);
	if (r < 0 || !rep.body) {
		http_body_unref(rep.body);
		log_warning_errno(r < 0 ? r : -ENOMEM, "Failed to answer %s: %m", path);
		return reply_text(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "render failed\n");
	}
	if (req.gzip_ok && !rep.gzipped && http_body_size(rep.body) >= 1024) {
		HttpBody *gz = http_body_gzip(rep.body);
		if (gz) {
			http_body_unref(rep.body);
			rep.body = gz;
			rep.gzipped = true;
		}
	}
	HttpBody *body = rep.body;
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback_cls(
		http_body_size(body), (void *)http_body_data(body), body_release, body);
	if (!resp) {
		http_body_unref(body);
		return MHD_NO;
	}
	if (rep.gzipped)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (rep.gzipped || rep.varies || req.gzip_ok)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, rep.varies ? "Accept, Accept-Encoding" : "Accept-Encoding");
	return send_response(h, c, rep.status ? rep.status : MHD_HTTP_OK, rep.type ? rep.type : "text/plain; charset=utf-8",
			     resp);
}

/* daemon/views/statuspage.c's url_unescape: a %00 must not end the path early. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls, (void)c;
	return url_unescape(s);
}

/* ----------------------------------------------------------- the loop */

static void schedule(Http *h);

static void run(Http *h)
{
	MHD_run(h->mhd);
	schedule(h);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s, (void)fd, (void)revents;
	run(userdata);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	run(userdata);
	return 0;
}

static void schedule(Http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;
	uint64_t now;
	if (MHD_get_timeout(h->mhd, &ms) != MHD_YES) {
		sd_event_source_set_enabled(h->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_now(h->event, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(h->timer, now + (uint64_t)ms * 1000);
	sd_event_source_set_enabled(h->timer, SD_EVENT_ONESHOT);
}

/* libmicrohttpd's own messages: its format, its arguments */
static void mhd_logger(void *cls, const char *fmt, va_list ap) _printf_(2, 0);
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_debug("http: %s", msg);
}

static void stop_mhd(Http *h)
{
	h->io = sd_event_source_disable_unref(h->io);
	h->timer = sd_event_source_disable_unref(h->timer);
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
}

/* A libmicrohttpd daemon on h->listen_fd with web's settings. */
static int start_mhd(Http *h, WebSetup *web)
{
	bool tls = web && web->cfg.tls;
	struct MHD_OptionItem opts[16];
	unsigned n = 0;
#define OPT(o, v, p) opts[n++] = (struct MHD_OptionItem){o, (intptr_t)(v), p}
	OPT(MHD_OPTION_LISTEN_SOCKET, h->listen_fd, NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, HTTP_CONNECTION_TIMEOUT_S, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_MEMORY_LIMIT, NULL);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h);
	OPT(MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape, NULL);
	OPT(MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, NULL);
	if (tls) {	/* in an option array, pointers go in ptr_value */
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert_pem);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, web->key_pem);
		OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, web->priorities);
		if (web->ca_pem)
			OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0, web->ca_pem);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	h->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0), 0, NULL, NULL,
				  on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
				  MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!h->mhd)
		return -EIO;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info)
		return -EIO;
	int r = sd_event_add_io(h->event, &h->io, info->epoll_fd, EPOLLIN, on_io, h);
	if (r >= 0)
		r = sd_event_add_time(h->event, &h->timer, CLOCK_MONOTONIC, 0, 1000, on_timer, h);
	if (r < 0)
		return r;
	/* Scrapers wait behind sampling and the watchdog, never the reverse. */
	sd_event_source_set_priority(h->io, HTTP_EVENT_PRIORITY);
	sd_event_source_set_priority(h->timer, HTTP_EVENT_PRIORITY);
	h->stats.tls = tls;
	schedule(h);
	return 0;
}

Http *http_free(Http *h)
{
	if (!h)
		return NULL;
	h->sweep = sd_event_source_disable_unref(h->sweep);
	stop_mhd(h);	/* closes the listening socket too */
	h->web = websetup_free(h->web);
	sd_event_unref(h->event);
	free(h);
	return NULL;
}

static void http_freep(Http **h) { http_free(*h); }

unsigned http_port(const Http *h) { return h->port; }

int http_url(const Http *h, const char *host, char *buf, size_t n)
{
	return h ? http_url_of(h->listen_fd, h->stats.tls, host, buf, n) : -EBADF;
}

void http_set_header_deadline(Http *h, uint64_t usec) { h->header_usec = usec; }

void http_stats(const Http *h, HttpStats *ret)
{
	assert(h);
	*ret = h->stats;
	ret->connections = h->n_conns;
	uint64_t busy;
	webauth_counts(h->web ? h->web->auth : NULL, &ret->bcrypt_checks, &busy);
}

static void log_web(const WebSetup *w, const char *path)
{
	if (!w)
		return;
	log_info("web configuration %s: %s, %s%s%s", path,
		 w->cfg.tls ? "TLS" : "plain HTTP", w->cfg.n_users ? "basic auth" : "no basic auth",
		 w->cfg.tls && w->cfg.client_auth != WEB_CLIENT_NONE ? ", client certificates " : "",
		 w->cfg.tls && w->cfg.client_auth != WEB_CLIENT_NONE ? web_client_auth_to_string(w->cfg.client_auth) : "");
	if (w->cfg.ignored)
		log_notice("web configuration %s: %s accepted but not applied (no equivalent in GnuTLS or smrd)", path,
			   w->cfg.ignored);
}

int http_new(sd_event *e, const char *addr, int fd, const char *web_config, HttpHandlerFn handler, void *userdata,
	     Http **ret, char **ret_error)
{
	_cleanup_(http_freep) Http *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	h->event = sd_event_ref(e);
	h->handler = handler;
	h->userdata = userdata;
	h->listen_fd = -1;
	h->header_usec = HTTP_HEADER_USEC;
	int r;
	if (web_config && *web_config) {
		r = websetup_load(web_config, &h->web, ret_error);
		if (r < 0)
			return r;
		log_web(h->web, web_config);
	}
	h->listen_fd = fd >= 0 ? fd : http_bind_listen(addr);
	if (h->listen_fd < 0)
		return h->listen_fd;
	h->port = http_port_of(h->listen_fd);
	r = start_mhd(h, h->web);
	if (r < 0) {
		if (!h->mhd)
			close(h->listen_fd);
		return r;
	}
	r = sd_event_add_time_relative(e, &h->sweep, CLOCK_MONOTONIC, 1000000, 100000, on_sweep, h);
	if (r >= 0)
		r = sd_event_source_set_enabled(h->sweep, SD_EVENT_ON);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(h);
	return 0;
}

int http_reload(Http *h, const char *web_config, char **ret_error)
{
	WebSetup *web = NULL;
	if (web_config && *web_config) {
		int r = websetup_load(web_config, &web, ret_error);
		if (r < 0)
			return r;
	}
	/* Unchanged, the server goes on: a restart would drop the requests
	 * in flight, and a reload changes nothing for it. */
	if (websetup_same(web, h->web)) {
		websetup_free(web);
		return 0;
	}
	/* The listening socket passes from the old daemon to the new one. */
	int fd = MHD_quiesce_daemon(h->mhd);
	if (fd < 0) {
		websetup_free(web);
		return set_errorf(ret_error, -EINVAL, "the HTTP server cannot hand over its socket");
	}
	stop_mhd(h);
	WebSetup *old = h->web;
	h->listen_fd = fd;
	h->web = web;
	int r = start_mhd(h, web);
	if (r < 0) {
		/* Back to what worked: a server on the old settings. */
		h->web = old;
		old = NULL;
		if (h->mhd)
			stop_mhd(h);
		if (start_mhd(h, h->web) < 0)
			log_error("HTTP server could not be restarted after a failed reload");
		websetup_free(web);
		return set_errorf(ret_error, -EINVAL, "the HTTP server did not start with the new web configuration");
	}
	websetup_free(old);
	log_web(web, web_config);
	return 0;
}
