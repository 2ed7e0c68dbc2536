/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmicrohttpd runs in "external epoll" mode: its epoll fd is one io source
 * on our loop, and its timeout one timer, so scrapes are served by the same
 * thread that samples and never see half-updated state.
 */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "log.h"

#define HTTP_CONNECTION_LIMIT 64
#define HTTP_CONNECTION_TIMEOUT_S 10
#define HTTP_MEMORY_LIMIT (64 * 1024)

struct Http {
	sd_event *event;
	struct MHD_Daemon *mhd;
	sd_event_source *io, *timer;
	HttpRenderFn render;
	void *userdata;
	unsigned port;
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>smrd</title></head><body>\n"
	"<h1>smrd</h1>\n<p>Shingled-disk monitor. <a href=\"/metrics\">Metrics</a></p>\n"
	"</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body,
			     size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return reply(c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	Http *h = cls;
	(void)version, (void)upload_data, (void)con_cls;

	if (*upload_data_size)
		return MHD_NO;	/* we take no bodies */
	if (!streq(method, "GET") && !streq(method, "HEAD"))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (streq(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)index_page,
			     sizeof index_page - 1, MHD_RESPMEM_PERSISTENT);
	if (!streq(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found\n");

	Buf b = {0};
	int r = h->render(h->userdata, &b);
	if (r < 0) {
		buf_free(&b);
		log_warning_errno(r, "Failed to render metrics: %m");
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "render failed\n");
	}
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", b.data ? b.data : strdup(""),
		     b.len, MHD_RESPMEM_MUST_FREE);
}

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

int http_parse_listen(const char *addr, char *host, size_t hostlen, unsigned *port)
{
	const char *colon = strrchr(addr, ':');
	uint64_t p;
	if (!colon || parse_u64(colon + 1, &p) < 0 || p > 65535)
		return -EINVAL;
	size_t n = (size_t)(colon - addr);
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr++;
		n -= 2;
	} else if (memchr(addr, ':', n)) {
		return -EINVAL;	/* IPv6 addresses need brackets */
	}
	if (n >= hostlen)
		return -ENAMETOOLONG;
	memcpy(host, addr, n);
	host[n] = 0;
	*port = (unsigned)p;
	return 0;
}

static int bind_listen(const char *addr, unsigned *ret_port)
{
	char host[256], portstr[8];
	unsigned port;
	int r = http_parse_listen(addr, host, sizeof host, &port);
	if (r < 0)
		return r;
	snprintf(portstr, sizeof portstr, "%u", port);
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *res = NULL;
	if (getaddrinfo(host[0] ? host : NULL, portstr, &hints, &res) != 0)
		return -EADDRNOTAVAIL;
	r = -EADDRNOTAVAIL;
	/* With no host, getaddrinfo lists IPv4 first; prefer a dual-stack IPv6 socket. */
	for (int pass = 0; pass < 2 && r < 0; pass++)
		for (struct addrinfo *ai = res; ai && r < 0; ai = ai->ai_next) {
			if (!host[0] && (pass == 0) != (ai->ai_family == AF_INET6))
				continue;
			int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (fd < 0) {
				r = -errno;
				continue;
			}
			int one = 1, zero = 0;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
			if (ai->ai_family == AF_INET6)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
				r = -errno;
				close(fd);
				continue;
			}
			r = fd;
		}
	freeaddrinfo(res);
	if (r >= 0) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		getsockname(r, (struct sockaddr *)&ss, &sl);
		*ret_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							   : ((struct sockaddr_in *)&ss)->sin_port);
	}
	return r;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_debug("http: %s", msg);
}

Http *http_free(Http *h)
{
	if (!h)
		return NULL;
	sd_event_source_disable_unref(h->io);
	sd_event_source_disable_unref(h->timer);
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	sd_event_unref(h->event);
	free(h);
	return NULL;
}

static void http_freep(Http **h) { http_free(*h); }

unsigned http_port(const Http *h) { return h->port; }

int http_new(sd_event *e, const char *addr, int fd, HttpRenderFn render, void *userdata, Http **ret)
{
	_cleanup_(http_freep) Http *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	h->event = sd_event_ref(e);
	h->render = render;
	h->userdata = userdata;
	if (fd < 0) {
		fd = bind_listen(addr, &h->port);
		if (fd < 0)
			return fd;
	} else {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
			h->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
								 : ((struct sockaddr_in *)&ss)->sin_port);
	}
	h->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_CONNECTION_LIMIT,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_CONNECTION_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
				  MHD_OPTION_END);
	if (!h->mhd) {
		close(fd);
		return -EIO;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info)
		return -EIO;
	int r = sd_event_add_io(e, &h->io, info->epoll_fd, EPOLLIN, on_io, h);
	if (r < 0)
		return r;
	r = sd_event_add_time(e, &h->timer, CLOCK_MONOTONIC, 0, 1000, on_timer, h);
	if (r < 0)
		return r;
	schedule(h);
	*ret = TAKE_PTR(h);
	return 0;
}
