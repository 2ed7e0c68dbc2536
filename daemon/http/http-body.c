/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Response bodies, shared and refcounted: a metrics page rendered once goes
 * to every scraper of that sample without a copy, plain or gzip.
 */
#include "http.h"
#include "http-internal.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <strings.h>

struct HttpBody {
	unsigned refs;
	Buf buf;
};

HttpBody *http_body_new(Buf *b)
{
	HttpBody *body = b->oom ? NULL : malloc(sizeof *body);
	if (!body) {
		buf_free(b);
		return NULL;
	}
	*body = (HttpBody){.refs = 1, .buf = *b};
	*b = (Buf){0};
	return body;
}

HttpBody *http_body_ref(HttpBody *body)
{
	if (body)
		body->refs++;
	return body;
}

HttpBody *http_body_unref(HttpBody *body)
{
	if (body && --body->refs == 0) {
		buf_free(&body->buf);
		free(body);
	}
	return NULL;
}

HttpBody *http_body_unref_into(HttpBody *body, Buf *ret)
{
	if (body && body->refs == 1) {
		buf_free(ret);
		*ret = body->buf;
		ret->len = 0;
		if (ret->data)
			ret->data[0] = 0;
		free(body);
		return NULL;
	}
	return http_body_unref(body);
}

size_t http_body_size(const HttpBody *body) { return body ? body->buf.len : 0; }

const char *http_body_data(const HttpBody *body) { return body ? body->buf.data : NULL; }

static void compressor_freep(struct libdeflate_compressor **c)
{
	if (*c)
		libdeflate_free_compressor(*c);
}

HttpBody *http_body_gzip(const HttpBody *plain)
{
	/* level 1: the scrape's CPU is the budget, and it still shrinks a
	 * metrics page ten times */
	_cleanup_(compressor_freep) struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	if (!c || !plain)
		return NULL;
	/* a metrics page shrinks 10x: room for a quarter of it, and the bound
	 * (as much as the page) only for what does not shrink, so that a
	 * scrape does not take a second page's worth of memory */
	Buf b = {0};
	size_t bound = libdeflate_gzip_compress_bound(c, plain->buf.len);
	for (size_t want = plain->buf.len / 4 + 4096; !b.len; want = bound) {
		buf_reserve(&b, want < bound ? want : bound);
		if (b.oom)
			return NULL;
		b.len = libdeflate_gzip_compress(c, plain->buf.data, plain->buf.len, b.data, b.cap);
		if (!b.len && b.cap >= bound) {
			buf_free(&b);
			return NULL;
		}
	}
	/* the page is kept for a while: give back the bound's slack */
	char *fit = realloc(b.data, b.len);
	if (fit)
		b.data = fit, b.cap = b.len;
	return http_body_new(&b);
}

/* Accept-Encoding: gzip, unless it comes with q=0 */
bool http_accepts_gzip(const char *v)
{
	for (const char *p = v; p && *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, ",");
		size_t tok = strcspn(p, " \t;,");
		if ((tok == 4 && strncasecmp(p, "gzip", 4) == 0) || (tok == 1 && *p == '*')) {
			const char *qv = memmem(p, n, "q=", 2);
			return !qv || strtod(qv + 2, NULL) > 0;
		}
		p += n;
	}
	return false;
}
