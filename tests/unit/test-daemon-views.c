/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The views (exporter.c, commands.c, pages.c, web.c) on a context built by
 * hand: disks whose view is set here as the monitor would set it, a real
 * monitor for the event history, and a fake of web's API handler. Every view
 * must show what the disk's view says (and the same in each), the class
 * must follow the behaviour verdict, and web must route to the handler it
 * was given, with no peer: it gets the read-only commands only.
 */
#include <json-c/json.h>
#include <time.h>

#include "commands.h"
#include "exporter.h"
#include "log.h"
#include "monitor.h"
#include "pages.h"
#include "test.h"
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
	if (disk_sys_set(&n.sys, &s) < 0)
		return NULL;
	Verdict v;
	DiskFacts f;
	disk_sys_facts(&n.sys, &f);
	classify_disk(&f, NULL, &v);
	verdict_summarize(&v, &n.verdict);
	n.tuning = (DiskTuning){NAN, NAN};
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

static LatSummary lat(uint64_t n, float p50, float p99)
{
	return (LatSummary){.count = n, .mean = p50, .p50 = p50, .p90 = p99, .p99 = p99, .p999 = p99, .max = p99};
}

/* sda in a storm the detector found by behaviour; sdb, an SSD, cleaning while idle */
static void set_views(Disk *sda, Disk *sdb, double now_real)
{
	DiskView *v = &sda->view;
	*v = (DiskView){.sample = 7, .detecting = true, .storm = true, .storm_since = now_real - 42, .idle_since = NAN,
			.behaviour = true, .behaviour_confidence = 0.731f,
			.score = {.score = 0.731, .storm = 0.7, .band = 0.1, .stall = 0.0},
			.storms = 1, .storms_known = 2, .fast_iops = 2500, .fast_latency = 0.0004f,
			.stalls = {0, 3, 0, 0}, .stall_max = 4.5f, .slowest_recent = 4.5f, .n_bands = {2, 0},
			.bands = {{{0.008f, 0.004f, 0.016f, 0.6f, 60}, {0.4f, 0.2f, 0.8f, 0.4f, 40}}},
			.rates = {.writes = 3, .write_bytes = 12.3 * 1048576, .read_latency = NAN, .write_latency = 0.333}};
	disk_model_init(&v->cache);
	v->cache_fill = v->forecast = NAN;
	v->op[TRACE_READ] = (OpView){.traced = true, .total = 100, .win = {lat(5, 0.008f, 0.4f), lat(60, 0.008f, 0.41f),
									   lat(100, 0.009f, 0.42f)}};
	v->op[TRACE_WRITE] = (OpView){.traced = true, .total = 1000, .slow = 3, .slow_max = 4.5f,
				      .win = {lat(3, 0.333f, 0.5f), lat(180, 0.3f, 1.5f), lat(1000, 0.0004f, 1.5f)}};
	sdb->view = (DiskView){.sample = 7, .detecting = true, .idle = true, .idle_since = now_real - 5,
			       .storm_since = NAN, .score = {.score = 0.2, .idle = 0.2, .held = true}, .score_held = true,
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
	CHECK_NEAR(num(o, "latency.write.windows.1m.p99"), 1.5, 1e-6);
	CHECK_NEAR(num(o, "latency.read.windows.10m.count"), 100, 0);
	CHECK_NEAR(num(o, "latency.write.slow"), 3, 0);
	CHECK_NEAR(num(o, "latency_last_interval.write.p50"), 0.333, 1e-6);
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
	CHECK(has(&b, "Model &lt;sda&gt;"));		/* escaped, never markup */
	CHECK(has(&b, "<td class=\"n\">0.73</td>"));
	CHECK(has(&b, "12.3M/s"));			/* the one formatter's rate */
	CHECK(has(&b, "300 ms / 1.5 s"));		/* the 1m write percentiles of the view */
	/* a stall forecast near comes first: the one problem that can still be avoided */
	CHECK(has(&b, "data-device=\"sdc\" data-storm=\"0\" data-severity=\"5\""));
	CHECK(has(&b, "85% · stall in ~4 min"));
	CHECK(strstr(b.data, "data-device=\"sdc\"") < strstr(b.data, "data-device=\"sda\""));
	buf_free(&b);
	http_body_unref(rep.body);

	CHECK_INT(pages_disk(ctx, "sda", &rep), 0);
	CHECK_INT(rep.status, 200);
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "Destage storm under way for 42 s"));
	CHECK(has(&b, "GC score 0.73"));
	CHECK(has(&b, "stalls (read/write) 0/3 since smrd started · 2 destage storm(s) on record"));
	CHECK(has(&b, "<b>dm-smr</b>"));
	CHECK(has(&b, "smrd detector"));		/* the behaviour's evidence line */
	CHECK(has(&b, "<td>write</td><td>1m</td><td class=\"n\">180</td>"));
	CHECK(has(&b, "3.6T"));				/* lsblk's size */
	CHECK(has(&b, "<th>I/O timeout</th><td>30 s</td>"));
	CHECK(!has(&b, "id=\"cache\""));		/* sda's cache is unknown */
	buf_free(&b);
	http_body_unref(rep.body);
	CHECK_INT(pages_disk(ctx, "sdc", &rep), 0);
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	CHECK(has(&b, "Media cache ~24G (from 2 fills)"));
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

static const char *fake_arg(const HttpRequest *req, const char *key)
{
	(void)req;
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
	CHECK_INT(get(w, "/api/v1/reload", false, &b), 404);	/* not an endpoint */
	CHECK_INT(calls.n, before);

	/* /metrics: rendered once per sample, whoever asks and however */
	CHECK_INT(get(w, "/metrics", false, &b), 200);
	CHECK(has(&b, "smrd_disk_gc_score{device=\"sda\"} 0.731\n"));
	CHECK_INT(get(w, "/metrics", false, &b), 200);
	CHECK_INT(get(w, "/metrics", true, &b), 200);
	CHECK(b.len > 2 && (unsigned char)b.data[0] == 0x1f && (unsigned char)b.data[1] == 0x8b);
	CHECK_INT(web_metrics_renders(w), 1);
	web_sampled(w);		/* the next sample: a new page */
	CHECK_INT(get(w, "/metrics", false, &b), 200);
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
	CHECK(!sdd->view.detecting && isnan(sdd->view.forecast) && isnan(sdd->view.cache_fill));
	CHECK_INT(sda->verdict.class, DISK_CLASS_CMR);
	CHECK_INT(sdb->verdict.class, DISK_CLASS_SSD);
	CHECK_INT(monitor_new(ctx.event, &ctx.config, ctx.disks, false, NULL, &ctx.monitor), 0);
	set_views(sda, sdb, now_seconds(CLOCK_REALTIME));
	/* sdc: its media cache learnt, 85% full and filling: a stall in 4 min */
	DiskView *c = &sdc->view;
	*c = (DiskView){.sample = 7, .detecting = true, .storm_since = NAN, .idle_since = NAN, .cache_fill = 0.85f,
			.cache_sure = true, .fill_rate = 1048576, .forecast = 240};
	disk_model_init(&c->cache);
	c->cache.media_cache_bytes = 24.0 * 1073741824;
	c->cache.cache_samples = 2;
	c->cache.cache_spread = 0.03;
	c->cache.slow_write_bps = 3e6;

	test_commands(&ctx);
	test_exporter(&ctx);
	test_pages(&ctx);
	test_web(&ctx);

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
	SysfsDisk s;
	disk_sys_get(&sda->sys, &s);
	s.facts.admin_class = DISK_CLASS_CMR;
	CHECK_INT(disk_sys_set(&sda->sys, &s), 0);
	o = call(&ctx, "show", "sda", 0, &err, &r);
	CHECK_STR(str(o, "class"), "cmr");
	json_object_put(o);

	ctx.monitor = monitor_free(ctx.monitor);
	ctx.disks = registry_free(ctx.disks);
	ctx.event = sd_event_unref(ctx.event);
	config_done(&ctx.config);
	return test_done("daemon-views");
}
