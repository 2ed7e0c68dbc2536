/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The views (exporter.c, commands.c, pages.c, web.c) on a context built by
 * hand: disks whose view is set here as the monitor would set it, a real
 * monitor for the event history, and a fake of web's API handler. Every view
 * must show what the disk's view says (and the same in each), the class
 * must follow the behaviour verdict, and web must route to the handler it
 * was given, with no peer: it gets the read-only commands only.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <time.h>

#include "commands.h"
#include "control.h"
#include "discovery.h"
#include "advice.h"
#include "exporter.h"
#include "format.h"
#include "log.h"
#include "monitor.h"
#include "output.h"
#include "recorder.h"
#include "pages.h"
#include "rebuild-views.h"
#include "sampler.h"
#include "statuspage.h"
#include "test.h"
#include "tracer.h"
#include "unit-tree.h"
#include "web.h"

static Disk *add(DiskRegistry *r, const char *name, int rotational, Transport t)
{
	Disk n = {0}, *d = NULL;
	SysfsDisk s = {.major = 8, .minor = (unsigned)registry_size(r) * 16, .size_sectors = 7814037168,
		       .io_timeout_ms = 30000};
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(s.model, sizeof s.model, "Model <%s>", name);
	snprintf(s.serial, sizeof s.serial, "SER-%s", name);
	disk_facts_init(&s.facts, name);
	s.facts.transport = t;
	s.facts.rotational = rotational;
	s.facts.size_status = 0;
	s.facts.admin_class = -1;
	n.sys = s;
	Verdict v;
	classify_disk(&n.sys.facts, NULL, &v);
	verdict_summarize(&v, &n.verdict);
	n.tuning = (DiskTuning){NAN, NAN, NAN};
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

/* One traced interval of n I/Os of op at lat seconds. */
static void push(Disk *d, int op, unsigned n, double lat)
{
	Hist h = {0};
	for (unsigned i = 0; i < n; i++)
		hist_add(&h, (uint64_t)(lat * 1e9));
	CHECK_INT(disk_latency_push(&d->lat, op, &h, 1), 0);
}

/* sda's traced latency: a read a second for ten minutes; writes fast, then
 * slow for the last minute, a 1.5 s one among them */
static void feed_latency(Disk *sda)
{
	for (int t = 0; t < 600; t++) {
		push(sda, TRACE_READ, 1, t % 10 ? 0.008 : 0.4);
		if (t < 540)
			push(sda, TRACE_WRITE, 2, 0.0004);
		else
			push(sda, TRACE_WRITE, 3, t % 20 ? 0.3 : 1.5);
	}
	push(sda, TRACE_WRITE, 3, 0.333);
}

/* sda in a storm the detector found by behaviour; sdb, an SSD, cleaning while idle */
static void set_views(Disk *sda, Disk *sdb, double now_real)
{
	DiskView *v = &sda->view;
	*v = (DiskView){.sample = 7, .storm = true, .storm_since = now_real - 42, .idle_since = NAN,
			.behaviour = true, .behaviour_confidence = 0.731f,
			.score = {.score = 0.731, .storm = 0.7, .band = 0.1, .stall = 0.0},
			.storms = 1, .storms_known = 2, .fast_iops = 2500, .fast_latency = 0.0004f,
			.stalls = {0, 3, 0, 0}, .stalls_hour = 4, .stall_max = 4.5f, .slowest_recent = 4.5f, .n_bands = {2, 0},
			.bands = {{{0.008f, 0.004f, 0.016f, 0.6f, 60}, {0.4f, 0.2f, 0.8f, 0.4f, 40}}},
			.rates = {.writes = 3, .write_bytes = 12.3 * 1048576, .read_latency = NAN, .write_latency = 0.333}};
	disk_model_init(&v->cache);
	v->cache_fill = v->forecast = NAN;
	v->op[TRACE_READ] = (OpView){.traced = true, .total = 600};
	v->op[TRACE_WRITE] = (OpView){.traced = true, .total = 1263, .slow = 3, .slow_max = 4.5};
	sdb->view = (DiskView){.sample = 7, .idle = true, .idle_since = now_real - 5,
			       .storm_since = NAN, .score = {.score = 0.2, .idle = 0.2, .held = true},
			       .cache_fill = NAN, .forecast = NAN};
	disk_model_init(&sdb->view.cache);
}

static double ctx_static_smr(const Context *ctx) { return registry_get(ctx->disks, "sda")->verdict.smr_confidence; }

static json_object *call(Context *ctx, const char *cmd, const char *device, uid_t uid, ProtoError *err, int *ret_r)
{
	json_object *args = json_object_new_object(), *res = NULL;
	if (device)
		json_object_object_add(args, "device", json_object_new_string(device));
	struct ucred peer = {.uid = uid};
	char *msg = NULL;
	*err = PROTO_ERR_INTERNAL;
	*ret_r = commands_dispatch(ctx, cmd, args, &peer, &res, err, &msg);
	free(msg);
	json_object_put(args);
	return res;
}

static json_object *path(json_object *o, const char *p)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", p);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); o && k; k = strtok_r(NULL, ".", &save)) {
		json_object *x = NULL;
		if (json_object_is_type(o, json_type_array))
			x = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &x))
			x = NULL;
		o = x;
	}
	return o;
}

static double num(json_object *o, const char *p) { json_object *x = path(o, p); return x ? json_object_get_double(x) : NAN; }
static const char *str(json_object *o, const char *p) { json_object *x = path(o, p); return x ? json_object_get_string(x) : ""; }

static bool has(const Buf *b, const char *needle)
{
	return b->data && memmem(b->data, b->len, needle, strlen(needle)) != NULL;
}

static void test_commands(Context *ctx)
{
	ProtoError err;
	int r;
	json_object *o = call(ctx, "show", "sda", 1000, &err, &r);
	CHECK_INT(r, 0);
	CHECK_STR(str(o, "class"), "dm-smr");	/* a cmr disk, dm-smr by behaviour */
	CHECK_STR(str(o, "verdict.class"), "dm-smr");
	CHECK(strstr(str(o, "verdict.basis"), "behaviour") != NULL);
	CHECK_NEAR(num(o, "confidence"), 0.731, 1e-6);
	CHECK_NEAR(num(o, "smr_confidence"), 1 - (1 - ctx_static_smr(ctx)) * (1 - 0.731), 1e-6);
	CHECK(json_object_get_boolean(path(o, "detection.storm.active")));
	CHECK_NEAR(num(o, "detection.storm.since"), registry_get(ctx->disks, "sda")->view.storm_since, 1e-6);
	CHECK_NEAR(num(o, "detection.storm.on_record"), 2, 0);
	CHECK_NEAR(num(o, "detection.gc_score.score"), 0.731, 1e-6);
	CHECK_NEAR(num(o, "detection.gc_score.storm"), 0.7, 1e-6);
	CHECK_NEAR(num(o, "detection.stalls.write"), 3, 0);
	CHECK_NEAR(num(o, "detection.stalls.threshold"), 1, 0);
	CHECK_NEAR(num(o, "detection.bands.read.1.centre"), 0.4, 1e-6);
	/* the percentiles the disk's windows give, summed on this first read */
	Disk *sda = registry_get(ctx->disks, "sda");
	const LatSummary *w1 = diskview_latency(sda, TRACE_WRITE, VIEW_1M);
	CHECK(w1->count >= 180 && w1->count <= 183 && w1->p99 > 1 && w1->p50 > 0.25 && w1->p50 < 0.35);
	CHECK_NEAR(num(o, "latency.write.windows.1m.p99"), w1->p99, 1e-6);
	CHECK_NEAR(num(o, "latency.write.windows.1m.count"), w1->count, 0);
	CHECK_NEAR(num(o, "latency.read.windows.10m.count"), diskview_latency(sda, TRACE_READ, VIEW_10M)->count, 0);
	CHECK(num(o, "latency.read.windows.10m.count") >= 590);
	CHECK_NEAR(num(o, "latency.write.windows.10m.p50"), diskview_latency(sda, TRACE_WRITE, VIEW_10M)->p50, 1e-6);
	CHECK(num(o, "latency.write.windows.10m.p50") < 0.001);
	/* the ten minutes' buckets are the ones its percentiles come from */
	json_object *hist = path(o, "latency.write.histogram_10m");
	double in_buckets = 0;
	for (size_t i = 0; hist && i < json_object_array_length(hist); i++)
		in_buckets += json_object_get_double(json_object_array_get_idx(json_object_array_get_idx(hist, i), 2));
	CHECK_NEAR(in_buckets, num(o, "latency.write.windows.10m.count"), 0);
	CHECK_NEAR(num(o, "latency.write.slow"), 3, 0);
	CHECK_NEAR(num(o, "latency_last_interval.write.count"), 3, 0);
	CHECK_NEAR(num(o, "latency_last_interval.write.p50"), diskview_latency(sda, TRACE_WRITE, VIEW_LAST)->p50, 1e-6);
	CHECK(num(o, "latency_last_interval.write.p50") > 0.25 && num(o, "latency_last_interval.write.p50") < 0.4);
	CHECK_STR(str(o, "pool"), "zfs:tank");
	CHECK_NEAR(num(o, "stalls_last_hour"), 4, 0);
	CHECK_STR(str(o, "severity"), "storm");
	CHECK(!json_object_get_boolean(path(o, "stall_imminent")));
	CHECK_NEAR(num(o, "write_latency_seconds"), 0.333, 1e-6);
	json_object_put(o);
	o = call(ctx, "show", "sdc", 1000, &err, &r);
	CHECK_NEAR(num(o, "detection.media_cache.bytes"), 24.0 * 1073741824, 0);
	CHECK_NEAR(num(o, "detection.media_cache.stall_forecast_seconds"), 240, 0);
	CHECK_NEAR(num(o, "detection.media_cache.fill_ratio"), 0.85, 1e-6);
	CHECK(path(o, "detection.media_cache.idle_recovery_bytes_per_second") == NULL);	/* unknown: null */
	CHECK_NEAR(num(o, "stall_forecast_seconds"), 240, 0);
	json_object_put(o);

	o = call(ctx, "disks", NULL, 1000, &err, &r);
	CHECK_INT(r, 0);
	CHECK_STR(str(o, "disks.0.device"), "sda");
	CHECK_STR(str(o, "disks.0.class"), "dm-smr");
	CHECK(json_object_get_boolean(path(o, "disks.0.storm")));
	CHECK(json_object_get_boolean(path(o, "disks.1.idle_cleaning")));
	CHECK_NEAR(num(o, "disks.1.gc_score"), 0.2, 1e-6);
	json_object_put(o);

	o = call(ctx, "status", NULL, 1000, &err, &r);
	CHECK_INT(r, 0);
	CHECK_NEAR(num(o, "storms_active"), 1, 0);
	CHECK_NEAR(num(o, "disks_by_class.dm-smr"), 1, 0);
	CHECK_NEAR(num(o, "disks_by_class.cmr"), 2, 0);
	CHECK_NEAR(num(o, "disks_by_class.ssd"), 1, 0);
	CHECK_NEAR(num(o, "disks_watched"), 4, 0);
	/* a config file that is not there is not named as if it were */
	json_object *exists = path(o, "config_exists");
	CHECK(exists && json_object_get_boolean(exists) == (access(ctx->config_path, F_OK) == 0));
	json_object_put(o);

	/* what changes smrd needs root; unknown names and disks say so */
	o = call(ctx, "forget", "sda", 1000, &err, &r);
	CHECK_INT(r, -EPERM);
	CHECK_INT(err, PROTO_ERR_PERMISSION);
	json_object_put(o);
	o = call(ctx, "show", "sdq", 0, &err, &r);
	CHECK(r < 0 && err == PROTO_ERR_NO_SUCH_DEVICE);
	json_object_put(o);
	o = call(ctx, "frobnicate", NULL, 0, &err, &r);
	CHECK(r < 0 && err == PROTO_ERR_UNKNOWN_COMMAND);
	json_object_put(o);
}

static void test_exporter(Context *ctx)
{
	Buf b = {0};
	CHECK_INT(exporter_render(ctx, &b, METRIC_FORMAT_TEXT), 0);
	CHECK(has(&b, "smrd_disk_gc_score{device=\"sda\"} 0.731\n"));
	CHECK(has(&b, "smrd_disk_gc_score{device=\"sdb\"} 0.2\n"));
	CHECK(has(&b, "smrd_disk_destage_storm_active{device=\"sda\"} 1\n"));
	CHECK(has(&b, "smrd_disk_destage_storm_active{device=\"sdb\"} 0\n"));
	CHECK(has(&b, "smrd_disk_idle_cleaning_active{device=\"sdb\"} 1\n"));
	CHECK(has(&b, "smrd_disk_smr_by_behaviour{device=\"sda\"} 1\n"));
	CHECK(has(&b, "class=\"dm-smr\""));
	CHECK(has(&b, "smrd_disk_stall_events_total{device=\"sda\",op=\"write\"} 3\n"));
	CHECK(has(&b, "smrd_disk_latency_band_seconds{device=\"sda\",op=\"read\",band=\"1\"} 0.4\n"));
	CHECK(has(&b, "smrd_disk_destage_storms_total{device=\"sda\"} 1\n"));
	CHECK(has(&b, "smrd_disk_slowest_io_seconds{device=\"sda\"} 4.5\n"));
	CHECK(has(&b, "smrd_disk_stall_threshold_seconds{device=\"sda\"} 1\n"));
	/* the media cache: only where it is known, the forecast only while filling */
	CHECK(has(&b, "smrd_disk_media_cache_bytes{device=\"sdc\"} 25769803776\n"));
	CHECK(!has(&b, "smrd_disk_media_cache_bytes{device=\"sda\"}"));
	CHECK(has(&b, "smrd_disk_media_cache_fill_ratio{device=\"sdc\"} 0.85\n"));
	CHECK(has(&b, "smrd_disk_media_cache_fill_anchored{device=\"sdc\"} 1\n"));
	CHECK(has(&b, "smrd_disk_stall_forecast_seconds{device=\"sdc\"} 240\n"));
	CHECK(!has(&b, "smrd_disk_stall_forecast_seconds{device=\"sdb\"}"));
	CHECK(!has(&b, "smrd_disk_stall_forecast_seconds{device=\"sdd\"}"));	/* before its first sample */
	CHECK(!has(&b, "smrd_disk_media_cache_fill_ratio{device=\"sdd\"}"));
	CHECK(has(&b, "smrd_stall_forecast_warn_seconds 300\n"));
	buf_free(&b);
}

static void test_pages(Context *ctx)
{
	HttpRequest req = {.path = "/", .accept = ""};
	HttpReply rep;
	CHECK_INT(pages_status(ctx, &req, &rep), 0);
	CHECK_INT(rep.status, 200);
	Buf b = {0};
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "data-device=\"sda\" data-storm=\"1\" data-severity=\"4\""));
	CHECK(has(&b, "data-device=\"sdb\" data-storm=\"0\" data-severity=\"2\""));
	CHECK(has(&b, "1 in a destage storm"));
	CHECK(has(&b, "Model &lt;sda&gt;<br><span class=\"serial mute\">SER-sda</span>"));	/* escaped, never markup */
	CHECK(has(&b, "<td class=\"why\"><span title=\""));	/* the evidence cut short, the whole in its title */
	CHECK(has(&b, "<td class=\"n\">0.73</td>"));
	CHECK(has(&b, "12.3M/s") && has(&b, ">Throughput, bytes/s</a>"));	/* the one formatter's rate, its unit said */
	/* the 1m write percentiles, as every view reads them */
	char cell[64], p50[FORMAT_MAX], p99[FORMAT_MAX];
	Disk *sda = registry_get(ctx->disks, "sda");
	snprintf(cell, sizeof cell, "%s / %s", format_duration(p50, diskview_latency(sda, TRACE_WRITE, VIEW_1M)->p50),
		 format_duration(p99, diskview_latency(sda, TRACE_WRITE, VIEW_1M)->p99));
	CHECK(has(&b, cell));
	CHECK(has(&b, "<td>md:md127 lvm:vg0</td>"));	/* sdb's pool string */
	/* a stall forecast near comes first: the one problem that can still be avoided */
	CHECK(has(&b, "data-device=\"sdc\" data-storm=\"0\" data-severity=\"5\""));
	CHECK(has(&b, "85% · stall in ~4 min"));
	/* the meter's colour is the view's severity, on the list as on the page */
	CHECK(has(&b, "<meter class=\"bad\" min=\"0\" max=\"1\" value=\"0.850\">"));
	CHECK(strstr(b.data, "data-device=\"sdc\"") < strstr(b.data, "data-device=\"sda\""));
	buf_free(&b);
	http_body_unref(rep.body);

	CHECK_INT(pages_disk(ctx, "sda", &rep), 0);
	CHECK_INT(rep.status, 200);
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "Destage storm under way for 42 s"));
	CHECK(has(&b, "GC score 0.73"));
	CHECK(has(&b, "stalls (read/write) 0/3 since smrd started, 4 in the last hour (over 1 s) · 2 destage storm(s) "
		      "on record"));
	CHECK(has(&b, "<b>dm-smr</b>"));
	CHECK(has(&b, "smrd detector"));		/* the behaviour's evidence line */
	snprintf(cell, sizeof cell, "<td>write</td><td>1m</td><td class=\"n\">%" PRIu64 "</td>",
		 diskview_latency(sda, TRACE_WRITE, VIEW_1M)->count);
	CHECK(has(&b, cell));
	CHECK(has(&b, "3.6T"));				/* lsblk's size */
	CHECK(has(&b, "<th>I/O timeout</th><td>30 s</td>"));
	CHECK(!has(&b, "id=\"cache\""));		/* sda's cache is unknown */
	const char *who = strstr(b.data, "<p id=\"who\">serial <strong>");	/* which disk, first */
	CHECK(who && who < strstr(b.data, "id=\"state\"") && has(&b, "pool <strong>zfs:tank</strong>"));
	buf_free(&b);
	http_body_unref(rep.body);
	CHECK_INT(pages_disk(ctx, "sdc", &rep), 0);
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "Media cache ~24G (from 2 fills)"));
	CHECK(has(&b, "<meter class=\"bad\" min=\"0\" max=\"1\" value=\"0.850\"></meter> 85% full"));
	CHECK(has(&b, "85% full · writes stall in ~4 min at 1M/s"));
	buf_free(&b);
	http_body_unref(rep.body);

	CHECK_INT(pages_disk(ctx, "sdq<x>", &rep), 0);
	CHECK_INT(rep.status, 404);
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "sdq&lt;x&gt; is not a watched disk"));
	buf_free(&b);
	http_body_unref(rep.body);
}

/* ------------------------------------------------------------ web */

typedef struct ApiCalls {
	unsigned n;
	char command[32], device[32];
	bool peer;
	ProtoError fail;		/* 0: answer {"ok":1} */
} ApiCalls;

static ApiCalls calls;

static int fake_api(void *userdata, const char *command, json_object *args, const struct ucred *peer,
		    json_object **ret_result, ProtoError *ret_err, char **ret_message)
{
	ApiCalls *c = userdata;
	json_object *dev;
	c->n++;
	snprintf(c->command, sizeof c->command, "%s", command);
	c->device[0] = 0;
	if (args && json_object_object_get_ex(args, "device", &dev))
		snprintf(c->device, sizeof c->device, "%s", json_object_get_string(dev));
	c->peer = peer != NULL;
	if (c->fail) {
		*ret_err = c->fail;
		*ret_message = strdup("no such disk");
		return -ENOENT;
	}
	*ret_result = json_object_new_object();
	json_object_object_add(*ret_result, "ok", json_object_new_int(1));
	return 0;
}

static const char *query[][2] = {{"since", "abc"}, {"sort", "score"}};
static bool query_on;
static const char *long_device;	/* a device= argument longer than the filter takes */

static const char *fake_arg(const HttpRequest *req, const char *key)
{
	(void)req;
	if (long_device && streq(key, "device"))
		return long_device;
	for (size_t i = 0; query_on && i < ELEMENTSOF(query); i++)
		if (streq(query[i][0], key))
			return query[i][1];
	return NULL;
}

static unsigned get(Web *w, const char *p, bool gzip, Buf *out)
{
	HttpRequest req = {.path = p, .arg = fake_arg, .accept = "", .gzip_ok = gzip};
	HttpReply rep;
	int r = web_handle(w, &req, &rep);
	if (r < 0)
		return 0;
	buf_free(out);
	*out = (Buf){0};
	buf_put(out, http_body_data(rep.body), http_body_size(rep.body));
	http_body_unref(rep.body);
	return rep.status;
}

static void test_web(Context *ctx)
{
	Web *w = web_new(ctx, fake_api, &calls);
	CHECK(w != NULL);
	Buf b = {0};
	CHECK_INT(get(w, "/api/v1/disks/sda", false, &b), 200);
	CHECK_INT(calls.n, 1);
	CHECK_STR(calls.command, "show");
	CHECK_STR(calls.device, "sda");
	CHECK(!calls.peer);		/* no credentials: commands that need root refuse */
	CHECK(has(&b, "{\"ok\":1}\n"));
	CHECK_INT(get(w, "/api/v1/status", false, &b), 200);
	CHECK_STR(calls.command, "status");
	calls.fail = PROTO_ERR_NO_SUCH_DEVICE;
	CHECK_INT(get(w, "/api/v1/disks/sdq", false, &b), 404);
	CHECK(has(&b, "\"code\":\"no-such-device\""));
	calls.fail = 0;
	unsigned before = calls.n;
	query_on = true;
	CHECK_INT(get(w, "/api/v1/events", false, &b), 400);	/* since=abc */
	query_on = false;
	CHECK_INT(calls.n, before);				/* refused before the handler */
	char dev[301];
	memset(dev, 's', 300);
	dev[300] = 0;
	long_device = dev;	/* refused, not dropped: no filter would be every disk's events */
	CHECK_INT(get(w, "/api/v1/events", false, &b), 400);
	long_device = NULL;
	CHECK_INT(calls.n, before);
	CHECK_INT(get(w, "/api/v1/reload", false, &b), 404);	/* not an endpoint */
	CHECK_INT(calls.n, before);

	/* /metrics: rendered once per sample, whoever asks and however */
	CHECK_INT(get(w, "/metrics", false, &b), 200);
	CHECK(has(&b, "smrd_disk_gc_score{device=\"sda\"} 0.731\n"));
	CHECK_INT(get(w, "/metrics", false, &b), 200);
	CHECK_INT(get(w, "/metrics", true, &b), 200);
	CHECK(b.len > 2 && (unsigned char)b.data[0] == 0x1f && (unsigned char)b.data[1] == 0x8b);
	CHECK_INT(web_metrics_renders(w), 1);
	/* the next sample: a new page, with nothing telling the view but the sampler's count */
	CHECK_INT(sampler_sample(ctx->sampler, 1000000, NULL, NULL), 0);
	CHECK_INT(get(w, "/metrics", false, &b), 200);	/* into the last page's memory, */
	const char *gc = strstr(b.data, "smrd_disk_gc_score{device=\"sda\"} 0.731\n");
	CHECK(gc && !strstr(gc + 1, "smrd_disk_gc_score{device=\"sda\"}"));	/* written anew, not after it */
	CHECK_INT(get(w, "/metrics", true, &b), 200);
	CHECK_INT(web_metrics_renders(w), 2);

	CHECK_INT(get(w, "/", false, &b), 200);
	CHECK(has(&b, "id=\"disks\""));
	CHECK_INT(get(w, "/disk/sdb", false, &b), 200);
	CHECK(has(&b, "Cleaning while idle"));
	CHECK_INT(get(w, "/disk/nope", false, &b), 404);
	CHECK_INT(get(w, "/favicon.ico", false, &b), 404);
	buf_free(&b);
	web_free(w);
}

/* ------------------------------------------------- one sample, three views */

/* The value of one series of a metrics page ("name{labels}"), NaN if absent. */
static double metric(const Buf *m, const char *series)
{
	char needle[256];
	snprintf(needle, sizeof needle, "\n%s ", series);
	const char *at = m->data ? memmem(m->data, m->len, needle, strlen(needle)) : NULL;
	return at ? strtod(at + strlen(needle), NULL) : NAN;
}

static double metric_of(const Buf *m, const char *name, const char *device, const char *more)
{
	char series[200];
	snprintf(series, sizeof series, "%s{device=\"%s\"%s%s}", name, device, more ? "," : "", more ? more : "");
	return metric(m, series);
}

/* The status page's columns (columns[] in daemon/views/pages.c). */
enum { C_DEVICE, C_STATE, C_MODEL, C_POOL, C_CLASS, C_SMR, C_WHY, C_SCORE, C_CACHE, C_STALLS, C_READ, C_WRITE, C_TPUT,
       C_COLUMNS };

/* The text of the status page's cells of one disk, tags left out; how many. */
static unsigned page_row(const Buf *page, const char *device, char cells[][160], unsigned max)
{
	char start[64];
	snprintf(start, sizeof start, "<tr data-device=\"%s\"", device);
	const char *p = page->data ? memmem(page->data, page->len, start, strlen(start)) : NULL;
	const char *end = p ? strstr(p, "</tr>") : NULL;
	unsigned n = 0;
	while (p && end && n < max && (p = strstr(p, "<td")) && p < end) {
		p = strchr(p, '>') + 1;
		const char *close = strstr(p, "</td>");
		size_t o = 0;
		for (int tag = 0; p < close; p++) {
			tag += *p == '<';
			if (!tag && o + 1 < 160 && (o || *p != ' '))
				cells[n][o++] = *p;
			tag -= *p == '>';
		}
		cells[n++][o] = 0;
	}
	return n;
}

static bool json_true(json_object *o, const char *p) { return json_object_get_boolean(path(o, p)); }

/* /metrics, /api/v1/disks/NAME (what `smrctl show` gets) and the pages,
 * served by the real handlers in one sample, show one disk the same. */
static void agree_disk(const Buf *metrics, const Buf *status, const Buf *page, json_object *api, const Disk *d)
{
	const char *dev = d->name;
	char cells[16][160], want[160], t[FORMAT_MAX];
	CHECK_INT(page_row(status, dev, cells, 16), C_COLUMNS);
	/* class and confidence */
	const char *class = str(api, "class");
	snprintf(want, sizeof want, "\nsmrd_disk_info{device=\"%s\",", dev);
	const char *info = memmem(metrics->data, metrics->len, want, strlen(want));
	snprintf(want, sizeof want, "class=\"%s\"", class);
	CHECK(info && strstr(info, want) && strstr(info, want) < strchr(info + 1, '\n'));
	CHECK_STR(cells[C_CLASS], class);
	snprintf(want, sizeof want, "<b>%s</b>", class);
	CHECK(has(page, want));
	double smr = num(api, "smr_confidence");
	CHECK_NEAR(metric_of(metrics, "smrd_disk_smr_confidence", dev, NULL), smr, 5e-5);
	CHECK_NEAR(strtod(cells[C_SMR], NULL), smr, 0.005 + 1e-9);
	/* the GC score, storms, idle cleaning */
	double score = num(api, "gc_score");
	CHECK_NEAR(metric_of(metrics, "smrd_disk_gc_score", dev, NULL), score, 5e-5);
	CHECK_NEAR(strtod(cells[C_SCORE], NULL), score, 0.005 + 1e-9);
	bool storm = json_true(api, "storm"), idle = json_true(api, "idle_cleaning");
	CHECK(json_true(api, "detection.storm.active") == storm);
	CHECK_NEAR(metric_of(metrics, "smrd_disk_destage_storm_active", dev, NULL), storm, 0);
	CHECK_NEAR(metric_of(metrics, "smrd_disk_idle_cleaning_active", dev, NULL), idle, 0);
	CHECK_NEAR(metric_of(metrics, "smrd_disk_destage_storms_total", dev, NULL), num(api, "detection.storm.total"), 0);
	CHECK(strncmp(cells[C_STATE], storm ? "storm" : idle ? "idle-cleaning" : "–", strlen(storm ? "storm" : "x")) == 0);
	snprintf(want, sizeof want, "id=\"state\" data-storm=\"%d\"", storm);
	CHECK(has(page, want));
	snprintf(want, sizeof want, "%.0f destage storm(s) on record", num(api, "detection.storm.on_record"));
	CHECK(has(page, want));
	/* stalls: since start by op, in the last hour, over which threshold */
	double rd = num(api, "detection.stalls.read"), wr = num(api, "detection.stalls.write");
	CHECK_NEAR(metric_of(metrics, "smrd_disk_stall_events_total", dev, "op=\"read\""), rd, 0);
	CHECK_NEAR(metric_of(metrics, "smrd_disk_stall_events_total", dev, "op=\"write\""), wr, 0);
	double hour = num(api, "stalls_last_hour");
	CHECK_NEAR(strtod(cells[C_STALLS], NULL), hour, 0);
	snprintf(want, sizeof want, "stalls (read/write) %.0f/%.0f since smrd started, %.0f in the last hour (over %s)", rd,
		 wr, hour, format_duration(t, num(api, "detection.stalls.threshold")));
	CHECK(has(page, want));
	if (d->view.sample)	/* the threshold is the view's from the first sample */
		CHECK_NEAR(metric_of(metrics, "smrd_disk_stall_threshold_seconds", dev, NULL),
			   num(api, "detection.stalls.threshold"), 1e-6);
	/* the media cache and the forecast */
	json_object *fill = path(api, "media_cache_fill_ratio"), *fc = path(api, "stall_forecast_seconds");
	double mfill = metric_of(metrics, "smrd_disk_media_cache_fill_ratio", dev, NULL);
	double mfc = metric_of(metrics, "smrd_disk_stall_forecast_seconds", dev, NULL);
	CHECK(fill ? fabs(mfill - json_object_get_double(fill)) < 5e-5 : isnan(mfill));
	CHECK(fc ? fabs(mfc - json_object_get_double(fc)) < 0.05 : isnan(mfc));
	if (fill && json_true(api, "media_cache_fill_anchored")) {
		snprintf(want, sizeof want, "%.0f%%", json_object_get_double(fill) * 100);
		CHECK(strncmp(cells[C_CACHE], want, strlen(want)) == 0);
	} else
		CHECK(streq(cells[C_CACHE], fill ? "?" : "–"));
	if (fc) {
		snprintf(want, sizeof want, "stall in ~%s", format_duration(t, json_object_get_double(fc)));
		CHECK(strstr(cells[C_CACHE], want) != NULL);
	}
	/* the pool: one string, and a series per membership */
	const char *pool = str(api, "pool");
	CHECK_STR(cells[C_POOL], pool);
	unsigned members = 0;
	for (const char *m = pool; *m; members++) {
		size_t len = strcspn(m, " "), colon = strcspn(m, ":");
		snprintf(want, sizeof want, "type=\"%.*s\",name=\"%.*s\"", (int)colon, m, (int)(len - colon - 1),
			 m + colon + 1);
		CHECK_NEAR(metric_of(metrics, "smrd_disk_membership_info", dev, want), 1, 0);
		m += len + (m[len] == ' ');
	}
	CHECK_INT(members, json_object_array_length(path(api, "members")));
	/* how urgent: the page's order is the view's severity */
	snprintf(want, sizeof want, "data-device=\"%s\" data-storm=\"%d\" data-severity=\"%d\"", dev, storm,
		 (int)d->view.severity);
	CHECK(has(status, want));
	CHECK_STR(str(api, "severity"), diskview_severity_to_string(d->view.severity));
	CHECK(json_true(api, "stall_imminent") == (d->view.severity == DISK_SEVERITY_IMMINENT));
}

static void page_of(int r, HttpReply *rep, Buf *b)
{
	CHECK_INT(r, 0);
	buf_free(b);
	*b = (Buf){0};
	buf_put(b, http_body_data(rep->body), http_body_size(rep->body));
	buf_put(b, "", 1);	/* a string, for strstr */
	http_body_unref(rep->body);
}

/* smrctl rebuilds' text, from the command's JSON as smrctl gets it. */
static void rebuilds_text(Context *ctx, char *out, size_t n)
{
	ProtoError err;
	int r;
	json_object *o = call(ctx, "rebuilds", NULL, 0, &err, &r);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f && o) {
		output_rebuilds(f, o);
		fclose(f);
	}
	snprintf(out, n, "%s", text ? text : "");
	free(text);
	json_object_put(o);
}

/* A resilver onto sdd, a disk not yet a member of the pool it joins: the
 * list keeps it in the state column (a phone keeps that one), the disk's
 * page says where it goes and what it writes under its name, the metrics
 * give its start; near its end "< 1 s", never "0 us"; ended, smrctl
 * rebuilds gives how long it took, and no time left. */
static void test_rebuild_views(Context *ctx)
{
	Disk *sdd = registry_get(ctx->disks, "sdd");
	RebuildState *s = disk_rebuild_mut(sdd);
	double now = floor(now_seconds(CLOCK_REALTIME));
	rebuild_state_init(s);
	s->phase = REBUILD_PHASE_RUNNING;
	s->kind = REBUILD_KIND_RESILVER;
	snprintf(s->pool, sizeof s->pool, "dpool");
	s->started = now - 3600, s->elapsed = 3600, s->total_bytes = 1e12, s->done_bytes = 0.41e12;
	s->rate = 25e6, s->eta = 7560, s->expected = 4 * 86400;
	char line[256];
	CHECK_STR(rebuild_short(sdd, line, sizeof line), "resilver of dpool: 41%, 126 min left");
	HttpRequest req = {.path = "/", .accept = ""};
	HttpReply rep;
	Buf b = {0};
	page_of(pages_status(ctx, &req, &rep), &rep, &b);
	char cells[16][160];
	CHECK_INT(page_row(&b, "sdd", cells, 16), C_COLUMNS);
	CHECK_STR(cells[C_STATE], "resilver of dpool: 41%, 126 min left");
	CHECK(has(&b, "<span class=\"rebuild warn\" title=\"resilver of dpool: 41% of 931.3G at 23.8M/s, 126 min left "
		      "(expected 4 days in all)\">"));
	CHECK(has(&b, "1 rebuild running"));
	/* what to do, above the table: the advice notifications give, from the
	 * disk's state, with its runbook; the storming sda's too */
	Advice a, storm;
	advice_for(&(AdviceFacts){.disk_class = sdd->verdict.class, .rebuild = s, .kind = _EVENT_KIND_INVALID,
				  .device = "sdd"}, &a);
	Disk *sda = registry_get(ctx->disks, "sda");
	VerdictSummary sv;
	disk_summary(sda, &sv);
	advice_for(&(AdviceFacts){.disk_class = sv.class, .storm = true, .kind = _EVENT_KIND_INVALID, .device = "sda"}, &storm);
	CHECK(a.text[0] && streq(a.anchor, "smrrebuildslow") && storm.text[0] && streq(storm.anchor, "smrdestagestorm"));
	Buf esc = {0};
	html_escape(&esc, a.text);
	buf_put(&esc, "", 1);
	const char *todo = strstr(b.data, "<section id=\"todo\">"), *table = strstr(b.data, "<table id=\"disks\">");
	const char *item = strstr(b.data, "<li class=\"warn\" data-todo=\"sdd\"><a href=\"/disk/sdd\"><strong>sdd</strong></a>: ");
	const char *stormy = strstr(b.data, "<li class=\"bad\" data-todo=\"sda\">");
	CHECK(todo && table && todo < table && item && item > todo && item < table && stormy && stormy < item);
	CHECK(item && strstr(item, esc.data) && strstr(item, "<a href=\"/docs/alerts#smrrebuildslow\">Runbook</a></li>"));
	CHECK(!strstr(b.data, "data-todo=\"sdb\""));	/* sdb, an SSD cleaning: nothing to do */
	page_of(pages_disk(ctx, "sdd", &rep), &rep, &b);
	const char *p = strstr(b.data, "<p id=\"todo\" class=\"warn\"><strong>What to do now:</strong> ");
	CHECK(p && strstr(p, esc.data) && p > strstr(b.data, "id=\"rebuild\"") && p < strstr(b.data, "id=\"state\""));
	buf_free(&esc);
	CHECK(has(&b, "being rebuilt into <strong>dpool</strong>") && !has(&b, "in no pool or array"));
	const char *rb = strstr(b.data, "<p id=\"rebuild\" class=\"rebuild warn\">Rebuild onto it: resilver of dpool: 41%");
	CHECK(rb && rb > strstr(b.data, "id=\"who\"") && rb < strstr(b.data, "id=\"state\""));
	buf_free(&b);
	b = (Buf){0};
	CHECK_INT(exporter_render(ctx, &b, METRIC_FORMAT_TEXT), 0);
	char want[128];
	snprintf(want, sizeof want, "smrd_rebuild_started_timestamp_seconds{device=\"sdd\"} %.0f\n", s->started);
	CHECK(has(&b, want));
	/* a reading's precision, not a double's: 0.1 s is 0.1 */
	s->elapsed = 3600.1000000000004;
	buf_free(&b);
	b = (Buf){0};
	CHECK_INT(exporter_render(ctx, &b, METRIC_FORMAT_TEXT), 0);
	CHECK(has(&b, "smrd_rebuild_elapsed_seconds{device=\"sdd\"} 3600.1\n"));
	s->done_bytes = s->total_bytes, s->eta = 0;
	CHECK_STR(rebuild_short(sdd, line, sizeof line), "resilver of dpool: 100%, < 1 s left");
	CHECK(strstr(rebuild_line(sdd, line, sizeof line), "< 1 s left") && !strstr(line, "0 us"));
	char text[1024];
	rebuilds_text(ctx, text, sizeof text);
	CHECK(strstr(text, "ETA        TOOK") && strstr(text, "< 1 s      -          4 days\n"));
	/* ended: how long it took, no time left */
	s->phase = REBUILD_PHASE_FINISHED, s->duration = 7200, s->elapsed = 7200;
	rebuilds_text(ctx, text, sizeof text);
	CHECK(strstr(text, "finished") && strstr(text, " -          120 min    4 days\n"));
	CHECK_STR(rebuild_short(sdd, line, sizeof line), "");
	page_of(pages_disk(ctx, "sdd", &rep), &rep, &b);
	CHECK(has(&b, "rebuilt into <strong>dpool</strong>"));
	CHECK(has(&b, "<p id=\"rebuild\" class=\"rebuild\">Rebuild onto it: resilver of dpool finished in 120 min</p>"));
	page_of(pages_status(ctx, &req, &rep), &rep, &b);
	CHECK(!has(&b, "rebuild running"));
	buf_free(&b);
	disk_rebuild_mut(sdd)->phase = REBUILD_PHASE_NONE;
}

/* sdc's idle time, from a curve and a day of hours: its series, show's
 * JSON and text, and its page's section; none of it for sda (CMR) or sdb
 * (an SSD). */
static void give_idle(Disk *d)
{
	DiskView *v = &d->view;
	DiskViewCurve *k = diskview_curve_mut(v);
	static const IdlePoint pts[] = {{.rest = 8, .bytes = 3e9}, {.rest = 30, .bytes = 9e9}, {.rest = 120, .bytes = 2.2e10}};
	CHECK(k != NULL);
	if (!k)
		return;
	k->n_points = 3;
	memcpy(k->points, pts, sizeof pts);
	idle_fit(pts, 3, v->cache.media_cache_bytes, &v->cache.curve);
	v->cache.idle_recovery_bps = 2.2e10 / 120, v->cache.recovery_rest = 120, v->cache.recovery_samples = 3;
	IdleBudget b;
	idle_budget_init(&b);
	for (int h = 0; h < BUDGET_HOURS; h++) {
		bool work = h >= 9 && h < 17;
		BudgetHour x = {.seen = 3600, .cache_bytes = work ? 1.5e11 : 1e9, .cache_writes = 1e6,
				.idle = work ? 240 : 3000, .runs = work ? 20 : 5};
		idle_budget_restore(&b, h, &x, 72);
	}
	idle_budget_day(&b, &(BudgetDisk){.curve = &v->cache.curve, .cache = v->cache.media_cache_bytes}, &k->budget);
}

static void test_idle_views(Context *ctx)
{
	Disk *sdc = registry_get(ctx->disks, "sdc");
	give_idle(sdc);
	const IdleBudgetDay *day = &diskview_curve(&sdc->view)->budget;
	CHECK(day->known && day->worst >= 9);
	Buf b = {0};
	CHECK_INT(exporter_render(ctx, &b, METRIC_FORMAT_TEXT), 0);
	CHECK(has(&b, "smrd_disk_idle_recovery_points{device=\"sdc\"} 3\n"));
	CHECK(has(&b, "smrd_disk_idle_recovery_bytes_per_second{device=\"sdc\"} 183333333\n"));
	CHECK(has(&b, "smrd_disk_idle_watched_hours{device=\"sdc\"} 24\n"));
	char want[128];
	snprintf(want, sizeof want, "smrd_disk_idle_needed_seconds{device=\"sdc\"} %.0f\n", day->need_day);
	CHECK(has(&b, want));
	snprintf(want, sizeof want, "smrd_disk_idle_got_seconds{device=\"sdc\"} %.0f\n", day->got_day);
	CHECK(has(&b, want));
	CHECK(has(&b, "smrd_disk_idle_storm_interval_seconds{device=\"sdc\"}"));
	CHECK(!has(&b, "smrd_disk_idle_needed_seconds{device=\"sda\"}") && !has(&b, "smrd_disk_idle_got_seconds{device=\"sdb\"}"));
	buf_free(&b);
	ProtoError err;
	int r;
	json_object *o = call(ctx, "show", "sdc", 0, &err, &r);
	CHECK_NEAR(num(o, "detection.media_cache.idle_recovery_rest_seconds"), 120, 0);
	CHECK_NEAR(num(o, "detection.media_cache.idle_recovery_points"), 3, 0);
	CHECK(path(o, "detection.media_cache.idle_recovery_curve.fit.clean_seconds") != NULL);
	CHECK_NEAR(num(o, "detection.idle_budget.watched_hours"), 24, 0);
	CHECK(strstr(str(o, "detection.idle_budget.forecast"), "of random writes need ~") != NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f && o) {
		output_show(f, o);
		fclose(f);
	}
	CHECK(text && strstr(text, "  idle: needs ~") && strstr(text, str(o, "detection.idle_budget.forecast")));
	CHECK(text && strstr(text, "idle-recovery curve from 3 rest(s) begun in a storm: "));
	free(text);
	json_object_put(o);
	o = call(ctx, "show", "sda", 0, &err, &r);
	CHECK(path(o, "detection.idle_budget") == NULL && num(o, "detection.media_cache.idle_recovery_points") == 0);
	json_object_put(o);
	Web *w = web_new(ctx, commands_dispatch, ctx);
	Buf page = {0};
	CHECK_INT(get(w, "/disk/sdc", false, &page), 200);
	CHECK(has(&page, "<h2 id=\"idle\">Idle time</h2>") && has(&page, "<svg class=\"idle-day\""));
	CHECK(has(&page, "<p id=\"idle-forecast\">") && has(&page, "<p id=\"idle-advice\">"));
	buf_free(&page);
	CHECK_INT(get(w, "/disk/sda", false, &page), 200);
	CHECK(!has(&page, "id=\"idle\""));
	buf_free(&page);
	web_free(w);
}

static void test_agree(Context *ctx)
{
	Web *w = web_new(ctx, commands_dispatch, ctx);
	CHECK(w != NULL);
	Buf metrics = {0}, status = {0}, page = {0}, api = {0};
	CHECK_INT(get(w, "/metrics", false, &metrics), 200);
	CHECK_INT(get(w, "/", false, &status), 200);
	unsigned suspects, storms;
	registry_count(ctx->disks, &suspects, &storms);
	char want[160];
	snprintf(want, sizeof want, "%u in a destage storm</span>", storms);
	CHECK(has(&status, want));
	snprintf(want, sizeof want, "%u SMR suspect%s", suspects, suspects == 1 ? "" : "s");
	CHECK(has(&status, want));
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const Disk *d = registry_at(ctx->disks, i);
		char p[64];
		snprintf(p, sizeof p, "/api/v1/disks/%s", d->name);
		CHECK_INT(get(w, p, false, &api), 200);
		snprintf(p, sizeof p, "/disk/%s", d->name);
		CHECK_INT(get(w, p, false, &page), 200);
		json_object *o = json_tokener_parse(api.data ? api.data : "");
		CHECK(o != NULL);
		if (o)
			agree_disk(&metrics, &status, &page, o, d);
		json_object_put(o);
	}
	buf_free(&metrics);
	buf_free(&status);
	buf_free(&page);
	buf_free(&api);
	web_free(w);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	_cleanup_(unit_tree_freep) char *state = unit_tree_empty();
	CHECK(state != NULL);
	if (!state)
		return test_done("daemon-views");
	Context ctx = {.src = {.sysfs_fd = -1, .procfs_fd = -1, .udev_fd = -1}, .config_path = "/etc/smrd/smrd.conf"};
	CHECK_INT(config_init(&ctx.config), 0);
	free(ctx.config.state_dir);
	ctx.config.state_dir = strdup(state);
	CHECK_INT(sd_event_new(&ctx.event), 0);
	ctx.disks = registry_new();
	Disk *sda = add(ctx.disks, "sda", 1, TRANSPORT_ATA);
	Disk *sdb = add(ctx.disks, "sdb", 0, TRANSPORT_ATA);
	Disk *sdc = add(ctx.disks, "sdc", 1, TRANSPORT_ATA);
	Disk *sdd = add(ctx.disks, "sdd", 1, TRANSPORT_ATA);	/* as found: no sample yet */
	CHECK(sda && sdb && sdc && sdd);
	CHECK(sdd->view.sample == 0 && isnan(sdd->view.forecast) && isnan(sdd->view.cache_fill));
	CHECK_INT(sda->verdict.class, DISK_CLASS_CMR);
	CHECK_INT(sdb->verdict.class, DISK_CLASS_SSD);
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(ctx.config.state_dir, &ctx.history, &herr) >= 0 && ctx.history);
	CHECK_INT(recorder_new(ctx.history, &ctx.config, ctx.disks, NULL, &ctx.recorder), 0);
	CHECK_INT(monitor_new(ctx.event, &ctx.config, ctx.disks, ctx.history, ctx.recorder, false, &ctx.monitor), 0);
	/* the daemon always has a sampler (here of an empty diskstats) and a
	 * tracer (here with no backend: "none") */
	_cleanup_(unit_tree_freep) char *proc = unit_tree_empty();
	_cleanup_close_ int procfs = proc ? unit_tree_open(proc, "") : -1;
	CHECK_INT(unit_tree_write(procfs, "diskstats", ""), 0);
	CHECK_INT(sampler_new(procfs, ctx.disks, &ctx.sampler), 0);
	CHECK_INT(discovery_new(ctx.event, &ctx.src, ctx.disks, NULL, false, &ctx.discovery), 0);
	static const TraceBackendOps *const no_backends[] = {NULL};
	CHECK_INT(tracer_new(ctx.event, no_backends, "none", false, 0.1, ctx.disks, NULL, &ctx.tracer), 0);
	set_views(sda, sdb, now_seconds(CLOCK_REALTIME));
	/* sdc: its media cache learnt, 85% full and filling: a stall in 4 min */
	DiskView *c = &sdc->view;
	*c = (DiskView){.sample = 7, .imminent = true, .storm_since = NAN, .idle_since = NAN, .cache_fill = 0.85f,
			.cache_sure = true, .fill_rate = 1048576, .forecast = 240};
	disk_model_init(&c->cache);
	c->cache.media_cache_bytes = 24.0 * 1073741824;
	c->cache.cache_samples = 2;
	c->cache.cache_spread = 0.03;
	c->cache.slow_write_bps = 3e6;
	Memberships ms = {.n = 1, .m = {{.type = MEMBER_ZFS, .name = "tank", .via = "sda1"}}};
	CHECK_INT(disk_set_members(sda, &ms), 0);
	ms = (Memberships){.n = 2, .m = {{.type = MEMBER_MD, .name = "md127", .via = "sdb"},
					 {.type = MEMBER_LVM, .name = "vg0", .via = "md127"}}};
	CHECK_INT(disk_set_members(sdb, &ms), 0);
	feed_latency(sda);
	/* what follows from the rest, as diskview_update ends (sdd has had no sample) */
	diskview_derive(sda, &ctx.config.detect);
	diskview_derive(sdb, &ctx.config.detect);
	diskview_derive(sdc, &ctx.config.detect);

	test_commands(&ctx);
	test_exporter(&ctx);
	test_pages(&ctx);
	test_web(&ctx);
	test_agree(&ctx);
	test_rebuild_views(&ctx);
	test_idle_views(&ctx);

	/* the next sample: every view shows it, none keeps the old one */
	sda->view.storm = false;
	sda->view.score.score = 0.5;
	Buf b = {0};
	exporter_render(&ctx, &b, METRIC_FORMAT_TEXT);
	CHECK(has(&b, "smrd_disk_destage_storm_active{device=\"sda\"} 0\n"));
	CHECK(has(&b, "smrd_disk_gc_score{device=\"sda\"} 0.5\n"));
	buf_free(&b);
	ProtoError err;
	int r;
	json_object *o = call(&ctx, "show", "sda", 0, &err, &r);
	CHECK(!json_object_get_boolean(path(o, "detection.storm.active")));
	CHECK_NEAR(num(o, "gc_score"), 0.5, 1e-9);
	json_object_put(o);
	/* smrd.conf declares it cmr: behaviour no longer decides, at once */
	sda->sys.facts.admin_class = DISK_CLASS_CMR;
	o = call(&ctx, "show", "sda", 0, &err, &r);
	CHECK_STR(str(o, "class"), "cmr");
	json_object_put(o);

	ctx.tracer = tracer_free(ctx.tracer);
	ctx.sampler = sampler_free(ctx.sampler);
	ctx.discovery = discovery_free(ctx.discovery);
	ctx.monitor = monitor_free(ctx.monitor);
	ctx.recorder = recorder_free(ctx.recorder);
	ctx.history = history_close(ctx.history);
	ctx.disks = registry_free(ctx.disks);
	ctx.event = sd_event_unref(ctx.event);
	config_done(&ctx.config);
	return test_done("daemon-views");
}
