/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP server alone, with a fake renderer and HTTP clients written
 * here, in the loop's thread (non-blocking sockets, the loop pumped while
 * they wait). It checks the pages and their types, a failing render, basic
 * auth and extra headers from a web configuration file, a reload that keeps
 * the working setup when the new file is bad, and the guard: a client that
 * never finishes its headers is cut off at the deadline, and one address
 * cannot hold more than its share of connections. TLS runs end to end in
 * tests/e2e/34-web.sh, against curl and Prometheus.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "http.h"
#include "http-internal.h"
#include <libdeflate.h>

#include "log.h"
#include "test.h"
#include "unit-tree.h"

#define TEST_HEADER_USEC (500 * UINT64_C(1000))	/* the header deadline the guard test waits out */

typedef struct Fake {
	unsigned renders;
	bool fail;
	HttpBody *cached;
} Fake;

static int handle(void *userdata, const HttpRequest *req, HttpReply *ret)
{
	Fake *f = userdata;
	Buf b = {0};
	if (streq(req->path, "/")) {
		buf_printf(&b, "<a href=\"/metrics\">metrics</a>");
		*ret = (HttpReply){.status = 200, .type = "text/html; charset=utf-8", .body = http_body_new(&b)};
		return 0;
	}
	if (streq(req->path, "/big")) {
		/* large enough to be compressed, and the query reaches the handler */
		for (int i = 0; i < 200; i++)
			buf_printf(&b, "line %d of %s\n", i, req->arg(req, "q") ? req->arg(req, "q") : "");
		*ret = (HttpReply){.status = 200, .body = http_body_new(&b)};
		return 0;
	}
	if (!streq(req->path, "/metrics")) {
		buf_printf(&b, "not found\n");
		*ret = (HttpReply){.status = 404, .body = http_body_new(&b)};
		return 0;
	}
	f->renders++;
	if (f->fail)
		return -EIO;
	if (!f->cached) {
		buf_printf(&b, "# TYPE smrd_up gauge\nsmrd_up 1\n");
		f->cached = http_body_new(&b);
		if (!f->cached)
			return -ENOMEM;
	}
	*ret = (HttpReply){.status = 200, .type = "text/plain; version=0.0.4; charset=utf-8",
			   .body = http_body_ref(f->cached)};
	return 0;
}

typedef struct Env {
	sd_event *e;
	Http *h;
} Env;

static void pump(Env *env, int rounds)
{
	for (int i = 0; i < rounds; i++)
		sd_event_run(env->e, 1000);
}

/* From 127.0.0.1, or from the loopback address `from` (another client). */
static int connect_from(Env *env, const char *from)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)http_port(env->h)),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in src = {.sin_family = AF_INET};
	if (fd < 0)
		return -1;
	if (from && (inet_pton(AF_INET, from, &src.sin_addr) != 1 || bind(fd, (struct sockaddr *)&src, sizeof src) < 0)) {
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	pump(env, 2);
	return fd;
}

static int connect_to(Env *env)
{
	return connect_from(env, NULL);
}

/* One request on a new connection from `from` (see connect_from), closed by
 * the server after the reply; the whole response, or "" on failure. */
static char *request_from(Env *env, const char *from, const char *method, const char *path, const char *extra_headers)
{
	int fd = connect_from(env, from);
	if (fd < 0)
		return strdup("");
	Buf rb = {0};
	buf_printf(&rb, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n%s\r\n", method, path,
		   extra_headers ? extra_headers : "");
	const char *req = rb.data ? rb.data : "";
	size_t off = 0, len = rb.len;
	Buf b = {0};
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 10000000;
	while (now_usec(CLOCK_MONOTONIC) < end) {
		if (off < len) {
			ssize_t k = send(fd, req + off, len - off, MSG_NOSIGNAL);
			if (k > 0)
				off += (size_t)k;
		}
		pump(env, 1);
		char chunk[4096];
		ssize_t k = recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
		if (k == 0)
			break;
		if (k > 0)
			buf_put(&b, chunk, (size_t)k);
		else if (errno != EAGAIN)
			break;
	}
	close(fd);
	buf_free(&rb);
	buf_put(&b, "", 1);
	return b.data;
}

static char *request(Env *env, const char *method, const char *path, const char *extra_headers)
{
	return request_from(env, NULL, method, path, extra_headers);
}

static int status_of(const char *resp)
{
	int s = 0;
	return sscanf(resp, "HTTP/1.1 %d", &s) == 1 ? s : -1;
}

static bool has_header(const char *resp, const char *header)
{
	const char *end = strstr(resp, "\r\n\r\n");
	const char *p = strcasestr(resp, header);
	return p && end && p < end;
}

static const char *body_of(const char *resp)
{
	const char *p = strstr(resp, "\r\n\r\n");
	return p ? p + 4 : "";
}

static void test_pages(Env *env, Fake *fake)
{
	_cleanup_free_ char *m = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(m), 200);
	CHECK(has_header(m, "Content-Type: text/plain; version=0.0.4; charset=utf-8"));
	CHECK_STR(body_of(m), "# TYPE smrd_up gauge\nsmrd_up 1\n");
	unsigned renders = fake->renders;
	_cleanup_free_ char *m2 = request(env, "GET", "/metrics", NULL);
	CHECK_STR(body_of(m2), "# TYPE smrd_up gauge\nsmrd_up 1\n");
	CHECK_INT(fake->renders, renders + 1);

	_cleanup_free_ char *head = request(env, "HEAD", "/metrics", NULL);
	CHECK_INT(status_of(head), 200);
	CHECK_STR(body_of(head), "");

	_cleanup_free_ char *idx = request(env, "GET", "/", NULL);
	CHECK_INT(status_of(idx), 200);
	CHECK(has_header(idx, "Content-Type: text/html"));
	CHECK(strstr(body_of(idx), "href=\"/metrics\"") != NULL);

	_cleanup_free_ char *nf = request(env, "GET", "/nope", NULL);
	CHECK_INT(status_of(nf), 404);
	_cleanup_free_ char *post = request(env, "POST", "/metrics", NULL);
	CHECK_INT(status_of(post), 405);
	CHECK(has_header(post, "Allow: GET, HEAD"));

	/* gzip when asked (and not for a few bytes), never when refused */
	_cleanup_free_ char *gz = request(env, "GET", "/big?q=x%20y%3C", "Accept-Encoding: deflate, gzip\r\n");
	CHECK(has_header(gz, "Content-Encoding: gzip"));
	CHECK(has_header(gz, "Vary: Accept-Encoding"));
	const char *cl = strstr(gz, "Content-Length: ");
	const unsigned char *zb = (const unsigned char *)body_of(gz);
	CHECK(cl && zb[0] == 0x1f && zb[1] == 0x8b);
	if (cl && zb[0] == 0x1f) {
		char out[16384];
		size_t got = 0;
		struct libdeflate_decompressor *dz = libdeflate_alloc_decompressor();
		CHECK_INT(libdeflate_gzip_decompress(dz, zb, strtoul(cl + 16, NULL, 10), out, sizeof out - 1, &got), 0);
		libdeflate_free_decompressor(dz);
		out[got] = 0;
		CHECK(strstr(out, "line 0 of x y<\nline 1 of") == out);
		CHECK(strstr(out, "line 199 of x y<\n") != NULL);
	}
	_cleanup_free_ char *nogz = request(env, "GET", "/big", "Accept-Encoding: gzip;q=0, identity\r\n");
	CHECK(!has_header(nogz, "Content-Encoding: gzip"));
	CHECK(strstr(body_of(nogz), "line 199 of \n") != NULL);
	_cleanup_free_ char *small = request(env, "GET", "/metrics", "Accept-Encoding: gzip\r\n");
	CHECK(!has_header(small, "Content-Encoding: gzip"));
	CHECK_STR(body_of(small), "# TYPE smrd_up gauge\nsmrd_up 1\n");

	fake->fail = true;
	_cleanup_free_ char *bad = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(bad), 500);
	fake->fail = false;

	/* more query arguments than any page takes: a status line, not a
	 * connection closed for the memory they would take */
	Buf many = {0};
	buf_puts(&many, "/big?q=1");
	for (int i = 0; i < 5000; i++)
		buf_printf(&many, "&a%d=1", i);
	_cleanup_free_ char *crowded = request(env, "GET", many.data, NULL);
	buf_free(&many);
	CHECK_INT(status_of(crowded), 400);
	CHECK(strstr(body_of(crowded), "too many query arguments") != NULL);
	_cleanup_free_ char *few = request(env, "GET", "/big?q=ok&a=1&b=2", NULL);	/* and a few still reach the page */
	CHECK_INT(status_of(few), 200);
	CHECK(strstr(body_of(few), "line 0 of ok\n") != NULL);

	HttpStats st;
	http_stats(env->h, &st);
	CHECK_INT(st.requests, 12);
	CHECK(!st.tls);
}

static char *hash_of(const char *password)
{
	char salt[64];
	struct crypt_data *d = calloc(1, sizeof *d);
	const char *h = d && crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof salt) ?
		crypt_rn(password, salt, d, (int)sizeof *d) : NULL;
	char *r = h ? strdup(h) : NULL;
	free(d);
	return r;
}

static void test_web_config(Env *env, const char *dir)
{
	char path[4096], text[1024];
	_cleanup_free_ char *hash = hash_of("s3cret");
	CHECK(hash != NULL);
	snprintf(path, sizeof path, "%s/web.yml", dir);
	snprintf(text, sizeof text, "basic_auth_users:\n  prom: %s\nhttp_server_config:\n  headers:\n"
		 "    X-Frame-Options: deny\n", hash ? hash : "");
	CHECK_INT(unit_tree_write(AT_FDCWD, path, text), 0);
	_cleanup_free_ char *err = NULL;
	CHECK_INT(http_reload(env->h, path, &err), 0);

	_cleanup_free_ char *none = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(none), 401);
	CHECK(has_header(none, "WWW-Authenticate: Basic"));
	CHECK(has_header(none, "X-Frame-Options: deny"));
	/* prom:wrong, then prom:s3cret */
	_cleanup_free_ char *wrong = request(env, "GET", "/metrics", "Authorization: Basic cHJvbTp3cm9uZw==\r\n");
	CHECK_INT(status_of(wrong), 401);
	_cleanup_free_ char *right = request(env, "GET", "/metrics", "Authorization: Basic cHJvbTpzM2NyZXQ=\r\n");
	CHECK_INT(status_of(right), 200);
	CHECK(has_header(right, "X-Frame-Options: deny"));
	HttpStats st;
	http_stats(env->h, &st);
	CHECK_INT(st.unauthorized, 2);

	/* a broken file: refused with the reason, the running setup stays */
	char broken[4096];
	snprintf(broken, sizeof broken, "%s/broken.yml", dir);
	CHECK_INT(unit_tree_write(AT_FDCWD, broken, "basic_auth_users:\n  prom: not-a-hash\n"), 0);
	_cleanup_free_ char *err2 = NULL;
	CHECK(http_reload(env->h, broken, &err2) < 0);
	CHECK(err2 && strstr(err2, "broken.yml") != NULL);
	_cleanup_free_ char *still = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(still), 401);

	/* and back to no configuration: plain, open */
	CHECK_INT(http_reload(env->h, NULL, NULL), 0);
	_cleanup_free_ char *open_again = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(open_again), 200);
	CHECK(!has_header(open_again, "X-Frame-Options"));
}

static bool peer_closed(Env *env, int fd)
{
	pump(env, 3);
	char c;
	ssize_t k = recv(fd, &c, 1, MSG_DONTWAIT);
	return k == 0 || (k < 0 && errno != EAGAIN);
}

static void test_guard(Env *env)
{
	HttpStats st0, st;
	http_stats(env->h, &st0);

	/* one address past HTTP_MAX_PER_ADDRESS silent connections: while they
	 * are all newcomers none is dropped (their requests may be on the way) */
	int fds[HTTP_MAX_PER_ADDRESS + 2];
	for (int i = 0; i <= HTTP_MAX_PER_ADDRESS; i++) {
		fds[i] = connect_to(env);
		pump(env, 2);
	}
	pump(env, 20);
	http_stats(env->h, &st);
	CHECK_INT(st.evicted_crowded, st0.evicted_crowded);
	CHECK(!peer_closed(env, fds[0]));
	/* past the grace they only wait: the next newcomer drops the oldest */
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	while (now_usec(CLOCK_MONOTONIC) - t0 < HTTP_GRACE_USEC + 100000)
		pump(env, 1);
	fds[HTTP_MAX_PER_ADDRESS + 1] = connect_to(env);
	pump(env, 20);
	http_stats(env->h, &st);
	CHECK_INT(st.evicted_crowded, st0.evicted_crowded + 1);
	CHECK(peer_closed(env, fds[0]));
	CHECK(!peer_closed(env, fds[1]));
	CHECK(!peer_closed(env, fds[HTTP_MAX_PER_ADDRESS + 1]));
	/* a scraper still gets its page */
	_cleanup_free_ char *m = request(env, "GET", "/metrics", NULL);
	CHECK_INT(status_of(m), 200);
	for (int i = 0; i <= HTTP_MAX_PER_ADDRESS + 1; i++)
		close(fds[i]);
	pump(env, 20);

	/* half a request, then nothing: cut off at the header deadline (a
	 * short one, so that the suite does not wait out the real 10 s; the
	 * sweep that judges it runs once a second) */
	http_set_header_deadline(env->h, TEST_HEADER_USEC);
	int fd = connect_to(env);
	(void)!send(fd, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	bool gone = false;
	while (!gone && now_usec(CLOCK_MONOTONIC) - start < TEST_HEADER_USEC + 20000000)
		gone = peer_closed(env, fd);
	double took = (double)(now_usec(CLOCK_MONOTONIC) - start) / 1e6;
	printf("http: half a request was cut off after %.2f s (deadline %.2f s)\n", took,
	       (double)TEST_HEADER_USEC / 1e6);
	CHECK(gone);
	CHECK(took >= (double)TEST_HEADER_USEC / 1e6 - 0.1);
	CHECK(took <= (double)TEST_HEADER_USEC / 1e6 + 5.0);
	http_set_header_deadline(env->h, HTTP_HEADER_USEC);
	http_stats(env->h, &st);
	CHECK(st.evicted_slow >= st0.evicted_slow + 1);
	close(fd);
}

static void base64(const char *in, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(in), o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
		v |= i + 1 < n ? (uint32_t)(unsigned char)in[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)in[i + 2] : 0;
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = 0;
}

/* A guessing flood from one address (127.0.0.2): a scraper at another
 * (127.0.0.1) sending the right password, for the first time during the
 * flood and then again and again, gets its page every time. */
static void test_auth_flood(Env *env, const char *dir)
{
	char path[4096], text[1024];
	_cleanup_free_ char *hash = hash_of("s3cret");
	snprintf(path, sizeof path, "%s/flood.yml", dir);
	snprintf(text, sizeof text, "basic_auth_users:\n  prom: %s\n", hash ? hash : "");
	CHECK_INT(unit_tree_write(AT_FDCWD, path, text), 0);
	CHECK_INT(http_reload(env->h, path, NULL), 0);
	unsigned guesses = 0, limited = 0, scrapes = 0, ok = 0;
	for (int round = 0; round < 30; round++) {
		for (int i = 0; i < 10; i++) {
			char cred[64], hdr[128];
			snprintf(cred, sizeof cred, "prom:guess-%d-%d", round, i);
			base64(cred, hdr + snprintf(hdr, sizeof hdr, "Authorization: Basic "));
			strcat(hdr, "\r\n");
			_cleanup_free_ char *g = request_from(env, "127.0.0.2", "GET", "/metrics", hdr);
			guesses++;
			limited += status_of(g) == 429;
		}
		_cleanup_free_ char *m = request(env, "GET", "/metrics", "Authorization: Basic cHJvbTpzM2NyZXQ=\r\n");
		scrapes++;
		ok += status_of(m) == 200;
	}
	printf("http: %u guesses from another address, %u of them refused as too many; the scraper got %u of %u pages\n",
	       guesses, limited, ok, scrapes);
	CHECK(limited > guesses / 2);
	CHECK_INT(ok, scrapes);
	CHECK_INT(http_reload(env->h, NULL, NULL), 0);
}

/* gzip round trips, for a page that shrinks and for bytes that do not (the
 * first, smaller output buffer is too small for them) */
static void test_gzip_bodies(void)
{
	uint64_t x = 1;
	for (int kind = 0; kind < 2; kind++) {
		Buf b = {0};
		for (int i = 0; i < 200000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			char c = kind ? (char)(x >> 56) : "smrd_disk_gc_score{device=\"sda\"} 0.25\n"[i % 37];
			buf_put(&b, &c, 1);
		}
		size_t n = b.len;
		_cleanup_free_ char *copy = malloc(n);
		memcpy(copy, b.data, n);
		HttpBody *plain = http_body_new(&b), *gz = http_body_gzip(plain);
		CHECK(gz != NULL);
		if (gz) {
			_cleanup_free_ char *out = malloc(n + 1);
			size_t got = 0;
			struct libdeflate_decompressor *dz = libdeflate_alloc_decompressor();
			CHECK_INT(libdeflate_gzip_decompress(dz, http_body_data(gz), http_body_size(gz), out, n + 1, &got), 0);
			libdeflate_free_decompressor(dz);
			CHECK(got == n && memcmp(out, copy, n) == 0);
			printf("http: gzip of %s: %zu -> %zu bytes\n", kind ? "random bytes" : "a page", n, http_body_size(gz));
			CHECK(kind ? http_body_size(gz) > n / 4 : http_body_size(gz) < n / 10);
		}
		http_body_unref(gz);
		http_body_unref(plain);
	}
}

/* A page's memory back for the next render: only from its last reference
 * (a scraper still sending it keeps it whole), emptied, with its room. */
static void test_body_reuse(void)
{
	Buf b = {0}, spare = {0};
	for (unsigned i = 0; i < 100000; i++)
		buf_printf(&b, "%07u\n", i);
	CHECK(!b.oom && b.len == 800000);
	const char *data = b.data;
	size_t cap = b.cap;
	HttpBody *body = http_body_new(&b), *sending = http_body_ref(body);
	CHECK(body && !http_body_unref_into(body, &spare) && !spare.data);
	CHECK(http_body_size(sending) == 800000 && memcmp(http_body_data(sending) + 799992, "0099999\n", 8) == 0);
	CHECK(!http_body_unref_into(sending, &spare));
	CHECK(spare.data == data && spare.cap == cap && spare.len == 0 && !spare.data[0] && !spare.oom);
	buf_puts(&spare, "the next page\n");
	CHECK(spare.data == data && streq(spare.data, "the next page\n"));
	/* what it held is freed (the sanitizers would see a leak) when another comes back */
	buf_puts(&b, "a small one\n");
	CHECK(!http_body_unref_into(http_body_new(&b), &spare) && spare.len == 0 && spare.cap < cap);
	buf_free(&spare);
	CHECK(!http_body_unref_into(NULL, &spare) && !spare.data);
}

int main(void)
{
	log_set_max_level(LOG_CRIT);
	test_gzip_bodies();
	test_body_reuse();
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-http");
	Env env = {0};
	Fake fake = {0};
	CHECK_INT(sd_event_new(&env.e), 0);
	_cleanup_free_ char *err = NULL;
	CHECK_INT(http_new(env.e, "127.0.0.1:0", -1, NULL, handle, &fake, &env.h, &err), 0);
	if (!env.h)
		return test_done("daemon-http");
	CHECK(http_port(env.h) > 0);

	/* addresses as node_exporter's --web.listen-address takes them */
	char host[64];
	unsigned port;
	CHECK_INT(http_parse_listen(":9863", host, sizeof host, &port), 0);
	CHECK_STR(host, "");
	CHECK_INT(port, 9863);
	CHECK_INT(http_parse_listen("[::1]:80", host, sizeof host, &port), 0);
	CHECK_STR(host, "::1");
	CHECK(http_parse_listen("::1:80", host, sizeof host, &port) < 0);
	CHECK(http_parse_listen("host:99999", host, sizeof host, &port) < 0);

	/* where the pages are served, as links give it: the socket's own
	 * address, or the host's name for one that listens everywhere, as a
	 * passed socket (the service manager's) does */
	char url[320], want[64];
	snprintf(want, sizeof want, "http://127.0.0.1:%u", http_port(env.h));
	CHECK_INT(http_url(env.h, "nas", url, sizeof url), 0);
	CHECK_STR(url, want);
	int any = http_bind_listen(":0");
	CHECK(any >= 0);
	Http *passed = NULL;
	_cleanup_free_ char *perr = NULL;
	if (any >= 0 && http_new(env.e, "127.0.0.1:9", any, NULL, handle, &fake, &passed, &perr) == 0) {
		snprintf(want, sizeof want, "http://nas:%u", http_port(passed));
		CHECK_INT(http_url(passed, "nas", url, sizeof url), 0);
		CHECK_STR(url, want);
	} else
		CHECK(!"an HTTP server on a passed socket");
	http_free(passed);

	/* a web configuration that cannot be used stops the start, saying why */
	Http *bad = NULL;
	_cleanup_free_ char *berr = NULL;
	CHECK(http_new(env.e, "127.0.0.1:0", -1, "/nonexistent/web.yml", handle, &fake, &bad, &berr) < 0);
	CHECK(berr && strstr(berr, "/nonexistent/web.yml") != NULL);

	test_pages(&env, &fake);
	test_web_config(&env, dir);
	test_guard(&env);
	test_auth_flood(&env, dir);

	http_free(env.h);
	http_body_unref(fake.cached);
	sd_event_unref(env.e);
	return test_done("daemon-http");
}
