/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Routing, the /metrics page cache, and /api/v1, which is the control
 * protocol's read-only commands answered through the handler context.c gave
 * (the same answers smrctl gets). The HTML pages are pages.c's.
 */
#include "web.h"

#include <assert.h>
#include <math.h>

#include "exporter.h"
#include "metrics.h"
#include "pages.h"
#include "protocol.h"
#include "sampler.h"

typedef struct PageSlot {
	HttpBody *body;
	uint64_t samples, usec;
} PageSlot;

struct Web {
	Context *ctx;
	ControlHandler api;		/* the read-only commands, for /api/v1 */
	void *api_userdata;
	PageSlot page[_METRIC_FORMAT_MAX][2];	/* [format][gzip] */
	Buf spare;			/* a plain page's memory, back once nobody sends it: the next render's */
	uint64_t renders;
};

Web *web_new(Context *ctx, ControlHandler api, void *api_userdata)
{
	Web *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	*w = (Web){.ctx = ctx, .api = api, .api_userdata = api_userdata};
	return w;
}

/* A plain page's memory, once nobody is sending it, is the next render's
 * (w->spare): a render writes into memory it already has. A gzip page is a
 * tenth of the size and made to fit; the plain text it was made from is
 * not kept (metrics_page). */
static void drop_slot(Web *w, PageSlot *s, bool gzip)
{
	s->body = gzip ? http_body_unref(s->body) : http_body_unref_into(s->body, &w->spare);
}

Web *web_free(Web *w)
{
	if (!w)
		return NULL;
	for (int f = 0; f < _METRIC_FORMAT_MAX; f++)
		for (int g = 0; g < 2; g++)
			drop_slot(w, &w->page[f][g], g);
	buf_free(&w->spare);
	free(w);
	return NULL;
}

uint64_t web_metrics_renders(const Web *w)
{
	assert(w);
	return w->renders;
}

static HttpBody *body_from(Buf *b) { return http_body_new(b); }

/* ------------------------------------------------------------ /metrics */

/* A page is good for the sample it shows: what it holds changes at the
 * sample, and scrapers in between are sent the same bytes. Only the
 * variants asked for are kept, and a plain page rendered only to be
 * compressed is not kept at all. */
static bool slot_fresh(const Web *w, const PageSlot *s, uint64_t samples, uint64_t now)
{
	return s->body && s->samples == samples && now - s->usec < (uint64_t)(w->ctx->config.interval * 1e6);
}

static int metrics_page(Web *w, const HttpRequest *req, HttpReply *ret)
{
	Context *ctx = w->ctx;
	const char *type;
	MetricFormat fmt = metric_negotiate(req->accept, &type);
	uint64_t now, samples = sampler_stats(ctx->sampler)->samples;
	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	PageSlot *want = &w->page[fmt][req->gzip_ok], *plain = &w->page[fmt][0];
	if (!slot_fresh(w, want, samples, now)) {
		for (int f = 0; f < _METRIC_FORMAT_MAX; f++)
			for (int g = 0; g < 2; g++)
				if (!slot_fresh(w, &w->page[f][g], samples, now))
					drop_slot(w, &w->page[f][g], g);
		bool rendered = false;
		if (!plain->body) {
			Buf b = w->spare;
			w->spare = (Buf){0};
			int r = exporter_render(ctx, &b, fmt);
			if (r < 0) {
				buf_free(&b);
				return r;
			}
			*plain = (PageSlot){.body = body_from(&b), .samples = samples, .usec = now};
			if (!plain->body)
				return -ENOMEM;
			w->renders++;
			rendered = true;
		}
		if (req->gzip_ok) {
			HttpBody *gz = http_body_gzip(plain->body);
			if (!gz)
				return -ENOMEM;
			*want = (PageSlot){.body = gz, .samples = samples, .usec = now};
			/* rendered only to be compressed, as for Prometheus, whose
			 * scrapes come seconds apart: its memory goes back between them */
			if (rendered)
				plain->body = http_body_unref(plain->body);
		}
	}
	*ret = (HttpReply){.status = 200, .type = type, .body = http_body_ref(want->body), .gzipped = req->gzip_ok,
			   .varies = true};
	return 0;
}

/* --------------------------------------------------------------- /api/v1 */

static HttpReply json_reply(unsigned status, json_object *o)
{
	Buf b = {0};
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	buf_put(&b, s, strlen(s));
	buf_put(&b, "\n", 1);
	json_object_put(o);
	return (HttpReply){.status = status, .type = "application/json", .body = body_from(&b)};
}

static HttpReply api_error(unsigned status, ProtoError code, const char *message)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();
	json_object_object_add(e, "code", json_object_new_string(proto_error_to_string(code)));
	json_object_object_add(e, "message", json_object_new_string(message));
	json_object_object_add(o, "error", e);
	return json_reply(status, o);
}

static void json_putp(json_object **o)
{
	if (*o)
		json_object_put(*o);
}

/* The read-only commands of the control protocol, with the same answers. */
static int api(Web *w, const HttpRequest *req, const char *rest, HttpReply *ret)
{
	const char *command = NULL;
	_cleanup_(json_putp) json_object *args = json_object_new_object();
	char v[256];
	if (!args)
		return -ENOMEM;
	if (streq(rest, "status"))
		command = "status";
	else if (streq(rest, "disks"))
		command = "disks";
	else if (strncmp(rest, "disks/", 6) == 0 && rest[6]) {
		command = "show";
		json_object_object_add(args, "device", json_object_new_string(rest + 6));
	} else if (streq(rest, "events")) {
		command = "events";
		static const char *const keys[] = {"device", "since", "after", "limit"};
		for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
			int got = http_arg_copy(req, keys[k], v, sizeof v);
			if (got == 0)
				continue;
			if (got < 0) {	/* dropped, a device filter would return every disk's events */
				*ret = api_error(400, PROTO_ERR_BAD_ARGUMENT, "an argument is longer than 255 bytes");
				return ret->body ? 0 : -ENOMEM;
			}
			char *end;
			if (k == 0) {
				json_object_object_add(args, keys[k], json_object_new_string(v));
				continue;
			}
			errno = 0;
			double x = strtod(v, &end);
			if (!*v || *end || errno || !isfinite(x)) {
				*ret = api_error(400, PROTO_ERR_BAD_ARGUMENT, "since, after and limit are numbers");
				return ret->body ? 0 : -ENOMEM;
			}
			json_object_object_add(args, keys[k], k == 1 ? json_number(x, 6) : json_object_new_int64((int64_t)x));
		}
	} else {
		*ret = api_error(404, PROTO_ERR_UNKNOWN_COMMAND, "no such endpoint: see docs/protocol.md, \"HTTP\"");
		return ret->body ? 0 : -ENOMEM;
	}
	json_object *result = NULL;
	ProtoError err = PROTO_ERR_INTERNAL;
	_cleanup_free_ char *msg = NULL;
	int r = w->api(w->api_userdata, command, args, NULL, &result, &err, &msg);
	if (r < 0) {
		json_object_put(result);
		unsigned status = err == PROTO_ERR_NO_SUCH_DEVICE ? 404 : err == PROTO_ERR_BAD_ARGUMENT ? 400 : 500;
		*ret = api_error(status, err, msg ? msg : "failed");
		return ret->body ? 0 : -ENOMEM;
	}
	*ret = json_reply(200, result);
	return ret->body ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------- routing */

int web_handle(void *userdata, const HttpRequest *req, HttpReply *ret)
{
	Web *w = userdata;
	*ret = (HttpReply){0};
	if (streq(req->path, "/metrics"))
		return metrics_page(w, req, ret);
	if (w->ctx->oneshot)
		return -EOPNOTSUPP;
	if (streq(req->path, "/") || streq(req->path, "/index.html"))
		return pages_status(w->ctx, req, ret);
	if (strncmp(req->path, "/disk/", 6) == 0)
		return pages_disk(w->ctx, req->path + 6, ret);
	if (strncmp(req->path, "/api/v1/", 8) == 0)
		return api(w, req, req->path + 8, ret);
	if (strncmp(req->path, "/docs/", 6) == 0)
		return pages_doc(w->ctx, req->path + 6, ret);
	Buf b = {0};
	buf_puts(&b, "not found: try / (status), /metrics, /api/v1/status, /docs/alerts\n");
	*ret = (HttpReply){.status = 404, .type = "text/plain; charset=utf-8", .body = body_from(&b)};
	return ret->body ? 0 : -ENOMEM;
}
