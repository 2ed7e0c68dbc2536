/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command table of the control protocol: what each command answers,
 * built from the daemon context, which it only reads (but for reload,
 * reread and forget, which need root).
 */
#include "commands.h"
#include "commands-incidents.h"
#include "commands-notify.h"
#include "commands-rebuild.h"
#include "rebuild-views.h"

#include <math.h>
#include <time.h>

#include "http.h"
#include "idle-out.h"
#include "modellist.h"
#include "discovery.h"
#include "sampler.h"
#include "verdict-json.h"
#include "log.h"
#include "monitor.h"
#include "notifier.h"
#include "tracer.h"
#include "zfsannotate.h"

typedef int (*CommandFn)(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);

/* Every number with the precision it carries: microseconds for times and
 * latencies, and as much for the rest, which is more than any carries. */
static json_object *jdouble(double v) { return json_number(v, 6); }

/* The listen address with the port actually bound (the config may say port 0). */
static const char *bound_listen(Context *ctx, char *buf, size_t n)
{
	const char *colon = strrchr(ctx->config.listen, ':');
	if (!ctx->http || !colon)
		return ctx->config.listen;
	snprintf(buf, n, "%.*s:%u", (int)(colon - ctx->config.listen), ctx->config.listen, http_port(ctx->http));
	return buf;
}

static int cmd_status(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	(void)args, (void)err, (void)msg;
	char buf[300];
	json_object *o = json_object_new_object(), *by_class = json_object_new_object();
	unsigned counts[_DISK_CLASS_MAX] = {0}, suspects, storms;

	for (size_t i = 0; i < registry_size(ctx->disks); i++)
		counts[disk_class(registry_at(ctx->disks, i))]++;
	registry_count(ctx->disks, &suspects, &storms);
	for (int c = 0; c < _DISK_CLASS_MAX; c++)
		json_object_object_add(by_class, disk_class_to_string(c), json_object_new_int((int)counts[c]));
	const SamplerStats *ss = sampler_stats(ctx->sampler);

	json_object_object_add(o, "version", json_object_new_string(SMRD_VERSION));
	json_object_object_add(o, "pid", json_object_new_int((int)getpid()));
	/* the monotonic clock: a wall clock set back must not make it negative */
	json_object_object_add(o, "uptime_seconds",
			       jdouble((double)(now_usec(CLOCK_MONOTONIC) - ctx->start_mono_usec) / 1e6));
	json_object_object_add(o, "interval_seconds", jdouble(ctx->config.interval));
	json_object_object_add(o, "listen", json_object_new_string(bound_listen(ctx, buf, sizeof buf)));
	json_object_object_add(o, "config", json_object_new_string(ctx->config_path));
	/* the default path may not exist (smrd then runs on its defaults): say so */
	json_object_object_add(o, "config_exists", json_object_new_boolean(access(ctx->config_path, F_OK) == 0));
	json_object_object_add(o, "model_list", json_object_new_string(ctx->models.origin ? ctx->models.origin : ""));
	json_object_object_add(o, "model_list_entries", json_object_new_int((int)modellist_size(ctx->models.list)));
	json_object_object_add(o, "latency_source", json_object_new_string(
		streq(tracer_backend(ctx->tracer), "none") ? "diskstats" : "tracepoints"));
	json_object_object_add(o, "trace_backend", json_object_new_string(tracer_backend(ctx->tracer)));
	json_object_object_add(o, "trace_refused", json_object_new_string(tracer_refused(ctx->tracer)));
	json_object_object_add(o, "disks_watched", json_object_new_int((int)registry_size(ctx->disks)));
	json_object_object_add(o, "smr_suspects", json_object_new_int((int)suspects));
	json_object_object_add(o, "disks_by_class", by_class);
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)ss->samples));
	json_object_object_add(o, "event_loop_lag_seconds", jdouble(context_loop_lag(ctx, now_usec(CLOCK_MONOTONIC))));
	json_object_object_add(o, "diskstats_malformed_lines", json_object_new_int64((int64_t)ss->bad_lines));
	json_object_object_add(o, "storms_active", json_object_new_int((int)storms));
	History *h = ctx->history;
	json_object *hist = json_object_new_object();
	json_object_object_add(hist, "path", json_object_new_string(history_path(h)));
	json_object_object_add(hist, "persistent", json_object_new_boolean(history_persistent(h)));
	json_object_object_add(hist, "state", json_object_new_string(history_state_to_string(history_state(h))));
	json_object_object_add(hist, "pending", json_object_new_int64(history_pending(h)));
	json_object_object_add(hist, "dropped", json_object_new_int64((int64_t)history_dropped(h)));
	json_object_object_add(hist, "errors", json_object_new_int64((int64_t)history_errors(h)));
	json_object_object_add(hist, "error", json_object_new_string(history_last_error(h)));
	json_object_object_add(o, "history", hist);
	*ret = o;
	return 0;
}

static json_object *members_json(const Disk *d)
{
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < d->n_members; i++) {
		const Membership *m = &d->members[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "type", json_object_new_string(member_type_to_string(m->type)));
		json_object_object_add(o, "name", json_object_new_string(m->name));
		json_object_object_add(o, "via", json_object_new_string(m->via));
		json_object_object_add(o, "detail", json_object_new_string(m->detail));
		json_object_array_add(a, o);
	}
	return a;
}

/* null for what is not known, as the metrics leave it out */
static json_object *jknown(double v) { return isfinite(v) ? jdouble(v) : NULL; }

static json_object *lat_json(const LatSummary *l, bool full)
{
	json_object *x = json_object_new_object();
	json_object_object_add(x, "count", json_object_new_int64((int64_t)l->count));
	if (full)
		json_object_object_add(x, "mean", jdouble(l->mean));
	json_object_object_add(x, "p50", jdouble(l->p50));
	if (full)
		json_object_object_add(x, "p90", jdouble(l->p90));
	json_object_object_add(x, "p99", jdouble(l->p99));
	if (full) {
		json_object_object_add(x, "p99.9", jdouble(l->p999));
		json_object_object_add(x, "max", jdouble(l->max));
	}
	return x;
}

static json_object *summary_json(Disk *d)
{
	json_object *o = json_object_new_object();
	const DiskView *v = &d->view;
	const DiskRates *r = &v->rates;
	VerdictSummary s;
	disk_summary(d, &s);
	json_object_object_add(o, "device", json_object_new_string(d->name));
	json_object_object_add(o, "model", json_object_new_string(d->sys.model));
	json_object_object_add(o, "serial", json_object_new_string(d->sys.serial));
	json_object_object_add(o, "members", members_json(d));
	json_object_object_add(o, "pool", json_object_new_string(diskview_pool_str(v)));
	json_object_object_add(o, "class", json_object_new_string(disk_class_to_string(s.class)));
	json_object_object_add(o, "confidence", jdouble(s.confidence));
	json_object_object_add(o, "smr_confidence", jdouble(s.smr_confidence));
	json_object_object_add(o, "storm", json_object_new_boolean(v->storm));
	json_object_object_add(o, "idle_cleaning", json_object_new_boolean(v->idle));
	json_object_object_add(o, "gc_score", jdouble(v->score.score));
	json_object_object_add(o, "media_cache_fill_ratio", jknown(v->cache_fill));
	json_object_object_add(o, "media_cache_fill_anchored", json_object_new_boolean(v->cache_sure));
	json_object_object_add(o, "stall_forecast_seconds", jknown(v->forecast));
	json_object_object_add(o, "stall_imminent", json_object_new_boolean(v->imminent));
	json_object_object_add(o, "stalls_last_hour", json_object_new_int64((int64_t)v->stalls_hour));
	json_object_object_add(o, "severity", json_object_new_string(diskview_severity_to_string(v->severity)));
	json_object_object_add(o, "reads_per_second", jdouble(r->reads));
	json_object_object_add(o, "writes_per_second", jdouble(r->writes));
	json_object_object_add(o, "read_bytes_per_second", jdouble(r->read_bytes));
	json_object_object_add(o, "write_bytes_per_second", jdouble(r->write_bytes));
	json_object_object_add(o, "read_latency_seconds", jdouble(r->read_latency));
	json_object_object_add(o, "write_latency_seconds", jdouble(r->write_latency));
	json_object_object_add(o, "utilisation", jdouble(r->utilisation));
	json_object_object_add(o, "queue_depth", jdouble(r->queue_depth));
	/* The last interval's percentiles, for smrctl top. */
	json_object *lat = json_object_new_object();
	for (int op = 0; op < TRACE_OPS; op++)
		if (v->op[op].traced)
			json_object_object_add(lat, trace_op_to_string(op), lat_json(diskview_latency(d, op, VIEW_LAST), false));
	json_object_object_add(o, "latency_last_interval", lat);
	return o;
}

static json_object *latency_json(const Context *ctx, Disk *d)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "backend", json_object_new_string(tracer_backend(ctx->tracer)));
	for (int op = 0; op < TRACE_OPS; op++) {
		const OpView *ov = &d->view.op[op];
		if (!ov->traced)
			continue;
		json_object *x = json_object_new_object(), *w = json_object_new_object(), *hist = json_object_new_array();
		/* "last" is the last sampling interval: a second by default; the
		 * ten minutes' buckets come with their percentiles, summed once */
		Hist h;
		for (int k = 0; k < _VIEW_WINDOW_MAX; k++)
			json_object_object_add(w, view_windows[k].name,
					       lat_json(k == VIEW_10M ? diskview_latency_hist(d, op, VIEW_10M, &h)
								      : diskview_latency(d, op, (ViewWindow)k), true));
		json_object_object_add(x, "windows", w);
		for (unsigned b = 0; b < HIST_BUCKETS; b++) {
			if (!h.bucket[b])
				continue;
			double lo, hi;
			hist_bucket_bounds(b, &lo, &hi);
			json_object *row = json_object_new_array();
			json_object_array_add(row, jdouble(lo));
			json_object_array_add(row, jdouble(hi));
			json_object_array_add(row, json_object_new_int64((int64_t)h.bucket[b]));
			json_object_array_add(hist, row);
		}
		json_object_object_add(x, "histogram_10m", hist);
		json_object_object_add(x, "total", json_object_new_int64((int64_t)ov->total));
		json_object_object_add(x, "slow", json_object_new_int64((int64_t)ov->slow));
		json_object_object_add(x, "slow_max", ov->slow ? jdouble(ov->slow_max) : NULL);
		json_object_object_add(o, trace_op_to_string(op), x);
	}
	json_object *recent = json_object_new_array();
	for (unsigned i = 0, n = 0; n < 10; i++) {
		const SlowRecord *r = tracer_slow_at(ctx->tracer, i);
		if (!r)
			break;
		if (!streq(r->device, d->name))
			continue;
		json_object *x = json_object_new_object();
		json_object_object_add(x, "op", json_object_new_string(trace_op_to_string(r->op)));
		/* a flush has none: the kernel's all ones */
		json_object_object_add(x, "sector", r->sector == UINT64_MAX ? NULL : json_object_new_int64((int64_t)r->sector));
		json_object_object_add(x, "bytes", json_object_new_int64(r->bytes));
		json_object_object_add(x, "latency", jdouble(r->latency));
		json_object_object_add(x, "time", jdouble((double)r->done_realtime_usec / 1e6));
		json_object_array_add(recent, x);
		n++;
	}
	json_object_object_add(o, "recent_slow", recent);
	return o;
}

static int cmd_disks(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	(void)args, (void)err, (void)msg;
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < registry_size(ctx->disks); i++)
		json_object_array_add(a, summary_json(registry_at(ctx->disks, i)));
	json_object *o = json_object_new_object();
	json_object_object_add(o, "disks", a);
	*ret = o;
	return 0;
}


static json_object *counters_json(const Disk *d)
{
	json_object *o = json_object_new_object();
	for (unsigned f = 0; d->ds.primed && f < d->ds.n_fields; f++)
		json_object_object_add(o, diskstat_field_to_string(f), json_object_new_int64((int64_t)d->ds.total[f]));
	return o;
}

static json_object *event_json(const HistoryEvent *e)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(e->id));
	json_object_object_add(o, "time", jdouble((double)e->time_usec / 1e6));
	json_object_object_add(o, "logged", jdouble((double)e->logged_usec / 1e6));
	json_object_object_add(o, "device", json_object_new_string(e->device));
	json_object_object_add(o, "disk_id", json_object_new_string(e->serial));
	json_object_object_add(o, "kind", json_object_new_string(e->kind));
	json_object_object_add(o, "op", json_object_new_string(e->op));
	json_object_object_add(o, "severity", json_object_new_string(e->severity));
	json_object_object_add(o, "duration", jdouble(e->duration));
	json_object_object_add(o, "latency", jdouble(e->latency));
	json_object_object_add(o, "value", jdouble(e->value));
	json_object_object_add(o, "count", json_object_new_int64(e->count));
	json_object_object_add(o, "bytes", json_object_new_int64(e->bytes));
	json_object_object_add(o, "sector", e->sector < 0 ? NULL : json_object_new_int64(e->sector));
	json_object_object_add(o, "message", json_object_new_string(e->message));
	json_object_object_add(o, "incident", e->incident[0] ? json_object_new_string(e->incident) : NULL);
	return o;
}

static int add_event(const HistoryEvent *e, void *userdata)
{
	json_object_array_add(userdata, event_json(e));
	return 0;
}

static json_object *bands_json(const Band *b, unsigned n)
{
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "centre", jdouble(b[i].centre));
		json_object_object_add(x, "low", jdouble(b[i].lo));
		json_object_object_add(x, "high", jdouble(b[i].hi));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)b[i].count));
		json_object_object_add(x, "share", jdouble(b[i].share));
		json_object_array_add(a, x);
	}
	return a;
}

static json_object *cache_json(const DiskView *v)
{
	json_object *o = json_object_new_object();
	const DiskModel *m = &v->cache;
	json_object_object_add(o, "bytes", jknown(m->media_cache_bytes));
	json_object_object_add(o, "fills", json_object_new_int((int)m->cache_samples));
	json_object_object_add(o, "lower_bound", json_object_new_boolean(m->cache_lower_bound));
	json_object_object_add(o, "spread", disk_model_known(m) && m->cache_samples > 1 ? jdouble(m->cache_spread) : NULL);
	json_object_object_add(o, "fill_ratio", jknown(v->cache_fill));
	json_object_object_add(o, "fill_anchored", json_object_new_boolean(v->cache_sure));
	json_object_object_add(o, "fill_bytes_per_second", jdouble(v->fill_rate));
	json_object_object_add(o, "stall_forecast_seconds", jknown(v->forecast));
	json_object_object_add(o, "slow_write_bytes_per_second", jknown(m->slow_write_bps));
	json_object_object_add(o, "rewrite_seconds", jknown(m->rewrite_seconds));
	json_object_object_add(o, "idle_recovery_bytes_per_second", jknown(m->idle_recovery_bps));
	/* the curve learnt from the disk's own rests (docs/detection.md, "Idle time") */
	json_object_object_add(o, "idle_recovery_rest_seconds", jknown(m->recovery_rest));
	const DiskViewCurve *k = diskview_curve(v);
	json_object_object_add(o, "idle_recovery_points", json_object_new_int((int)k->n_points));
	json_object_object_add(o, "idle_recovery_curve", k->n_points ? idle_curve_json(k->points, k->n_points, &m->curve) : NULL);
	return o;
}

static json_object *detection_json(const Context *ctx, const Disk *d)
{
	json_object *o = json_object_new_object(), *storm = json_object_new_object(), *stalls = json_object_new_object();
	json_object *bands = json_object_new_object(), *score = json_object_new_object(), *idle = json_object_new_object();
	const DiskView *v = &d->view;

	json_object_object_add(storm, "active", json_object_new_boolean(v->storm));
	json_object_object_add(storm, "since", v->storm ? jdouble(v->storm_since) : NULL);
	json_object_object_add(storm, "total", json_object_new_int64((int64_t)v->storms));
	json_object_object_add(storm, "on_record", json_object_new_int64((int64_t)v->storms_known));
	json_object_object_add(storm, "fast_iops", jdouble(v->fast_iops));
	json_object_object_add(storm, "fast_latency", jdouble(v->fast_latency));
	/* the storm under way, or the last since smrd started: its slow seconds */
	json_object_object_add(storm, "slow_iops", v->storms ? jdouble(v->storm_iops) : NULL);
	json_object_object_add(storm, "slow_latency", v->storms ? jdouble(v->storm_latency) : NULL);
	json_object_object_add(o, "storm", storm);
	json_object_object_add(idle, "active", json_object_new_boolean(v->idle));
	json_object_object_add(idle, "probe_enabled", json_object_new_boolean(ctx->config.probe));
	json_object_object_add(idle, "probe_reads", json_object_new_int64((int64_t)v->probes));
	json_object_object_add(idle, "probe_slowest", jdouble(v->probe_max));
	json_object_object_add(o, "idle_cleaning", idle);
	for (int op = 0; op < TRACE_OPS; op++)
		json_object_object_add(stalls, trace_op_to_string(op), json_object_new_int64((int64_t)v->stalls[op]));
	json_object_object_add(stalls, "slowest", jdouble(v->stall_max));
	json_object_object_add(stalls, "threshold", jdouble(v->stall_threshold));
	json_object_object_add(o, "stalls", stalls);
	for (int op = 0; op < 2; op++) {
		Band b[BANDS_MAX];
		unsigned n = diskview_bands(v, op, b);
		json_object_object_add(bands, trace_op_to_string(op), bands_json(b, n));
	}
	json_object_object_add(o, "bands", bands);
	json_object_object_add(score, "score", jdouble(v->score.score));
	json_object_object_add(score, "storm", jdouble(v->score.storm));
	json_object_object_add(score, "idle_cleaning", jdouble(v->score.idle));
	json_object_object_add(score, "bands", jdouble(v->score.band));
	json_object_object_add(score, "stalls", jdouble(v->score.stall));
	json_object_object_add(score, "half_life", jdouble(ctx->config.detect.half_life));
	json_object_object_add(o, "gc_score", score);
	json_object_object_add(o, "behaviour", json_object_new_boolean(v->behaviour));
	json_object_object_add(o, "media_cache", cache_json(v));
	json_object_object_add(o, "idle_budget", idle_budget_json(&diskview_curve(v)->budget));
	json_object *recent = json_object_new_array();
	HistoryFilter f = {.device = d->name, .limit = 10};
	history_query(ctx->history, &f, add_event, recent);
	json_object_object_add(o, "recent_events", recent);
	return o;
}

int commands_list_args(json_object *args, const char **device, uint64_t *since_usec, unsigned *limit)
{
	json_object *x;
	if (args && json_object_object_get_ex(args, "device", &x)) {
		if (!json_object_is_type(x, json_type_string))
			return -EINVAL;
		*device = device_name(json_object_get_string(x));
	}
	if (args && json_object_object_get_ex(args, "since", &x)) {
		double s = json_object_get_double(x);
		/* NaN passes every comparison: it must be refused by name */
		if (!(json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int)) || !isfinite(s) ||
		    s < 0 || s > 1e11)
			return -EINVAL;
		*since_usec = (uint64_t)(s * 1e6);
	}
	if (args && json_object_object_get_ex(args, "limit", &x)) {
		int64_t l = json_object_get_int64(x);
		if (!json_object_is_type(x, json_type_int) || l < 1 || l > 10000)
			return -EINVAL;
		*limit = (unsigned)l;
	}
	return 0;
}

/* "since" is wall-clock seconds (fractional), "after" an event id, "limit"
 * a count, "kind" an event kind; the incidents too unless "all" (the rows
 * only) or a kind or a stream's "after" is asked. */
static int cmd_events(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	HistoryFilter f = {.limit = 1000};
	bool all = false;
	json_object *x;
	if (args && json_object_object_get_ex(args, "kind", &x)) {
		if (!json_object_is_type(x, json_type_string) || detect_event_kind_from_string(json_object_get_string(x)) < 0)
			goto bad;
		f.kind = json_object_get_string(x);
	}
	if (args && json_object_object_get_ex(args, "all", &x)) {
		if (!json_object_is_type(x, json_type_boolean))
			goto bad;
		all = json_object_get_boolean(x);
	}
	if (commands_list_args(args, &f.device, &f.since_usec, &f.limit) < 0)
		goto bad;
	if (args && json_object_object_get_ex(args, "after", &x)) {
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0)
			goto bad;
		f.after_id = json_object_get_int64(x);
		f.in_recorded_order = true;
	}
	json_object *a = json_object_new_array();
	int r = history_query(ctx->history, &f, add_event, a);
	if (r < 0) {
		json_object_put(a);
		*err = PROTO_ERR_INTERNAL;
		*msg = strdup("the event history could not be read (see smrd's log)");
		return r;
	}
	if (f.device && !registry_get(ctx->disks, f.device) && json_object_array_length(a) == 0) {
		/* a typo must not read as a quiet disk; a disk gone since keeps its past */
		json_object_put(a);
		*err = PROTO_ERR_NO_SUCH_DEVICE;
		_cleanup_free_ char *safe = str_sanitize(f.device);
		set_errorf(msg, 0, "%s is not a watched disk and has no events on record", safe ? safe : "?");
		return -ENOENT;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "events", a);
	if (!all && !f.kind && !f.in_recorded_order) {
		HistoryIncidentFilter fi = {.device = f.device, .since_usec = f.since_usec, .limit = f.limit};
		json_object_object_add(o, "incidents", commands_incident_list(ctx, &fi));
	}
	json_object_object_add(o, "persistent", json_object_new_boolean(history_persistent(ctx->history)));
	*ret = o;
	return 0;
bad:
	*err = PROTO_ERR_BAD_ARGUMENT;
	*msg = strdup("events takes \"device\" (string), \"since\" (seconds since the epoch), \"after\" (event id), "
		      "\"limit\" (1 to 10000), \"kind\" (an event kind), \"all\" (boolean)");
	return -EINVAL;
}

Disk *commands_disk(Context *ctx, const char *device, ProtoError *err, char **msg)
{
	Disk *d = registry_get(ctx->disks, device_name(device));
	if (!d) {
		_cleanup_free_ char *safe = str_sanitize(device);
		*err = PROTO_ERR_NO_SUCH_DEVICE;
		set_errorf(msg, 0, "%.64s is not a watched disk", safe ? safe : "?");
	}
	return d;
}

static Disk *arg_disk(Context *ctx, json_object *args, const char *cmd, ProtoError *err, char **msg)
{
	json_object *dev;
	if (!args || !json_object_object_get_ex(args, "device", &dev) || !json_object_is_type(dev, json_type_string)) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		set_errorf(msg, 0, "%s needs a string \"device\" argument", cmd);
		return NULL;
	}
	return commands_disk(ctx, json_object_get_string(dev), err, msg);
}

static int cmd_reload(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	(void)args;
	_cleanup_free_ char *why = NULL;
	int r = context_reload(ctx, &why);
	if (r < 0) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		*msg = TAKE_PTR(why);
		if (!*msg)
			*msg = strdup("the configuration has errors; the old one stays");
		return r;
	}
	*ret = json_object_new_object();
	json_object_object_add(*ret, "reloaded", json_object_new_string(ctx->config_path));
	json_object *keys = json_object_new_array();
	for (const char *k = ctx->restart_needed; *k;) {
		size_t n = strcspn(k, ",");
		json_object_array_add(keys, json_object_new_string_len(k, (int)n));
		k += n + (k[n] == ',');
	}
	json_object_object_add(*ret, "restart_needed", keys);
	return 0;
}

/* Re-reads a disk's sysfs, VPD pages and udev data, and classifies it again. */
static int cmd_reread(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	Disk *d = arg_disk(ctx, args, "reread", err, msg);
	if (!d)
		return -EINVAL;
	char name[sizeof d->name];
	snprintf(name, sizeof name, "%s", d->name);
	discovery_reread(ctx->discovery, name);
	d = registry_get(ctx->disks, name);
	if (!d) {
		*err = PROTO_ERR_NO_SUCH_DEVICE;
		set_errorf(msg, 0, "%s went away while it was re-read", name);
		return -ENOENT;
	}
	discovery_ask_farm(ctx->discovery, name);	/* its answer comes later, in show's evidence */
	*ret = summary_json(d);
	return 0;
}

/* After a disk is replaced or discarded: its past no longer says anything. */
static int cmd_forget(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	Disk *d = arg_disk(ctx, args, "forget", err, msg);
	if (!d)
		return -EINVAL;
	int n = monitor_forget(ctx->monitor, d);
	if (n < 0) {
		*err = PROTO_ERR_INTERNAL;
		set_errorf(msg, 0, "the event history could not be changed: %s", history_last_error(ctx->history));
		return n;
	}
	notifier_forget(ctx->notifier, d);
	log_notice("%s: forgotten on request (%d event(s) deleted)", d->name, n);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "device", json_object_new_string(d->name));
	json_object_object_add(*ret, "events_deleted", json_object_new_int(n));
	return 0;
}

/* What zfs-annotate knows of the disk's vdev properties; NULL when it follows none. */
static json_object *zfs_annotation_json(const Context *ctx, const Disk *d)
{
	const ZfsAnnotation *a = zfsannotate_of(ctx->annotate, d);
	if (!a)
		return NULL;
	json_object *o = json_object_new_object(), *p = json_object_new_object();
	json_object_object_add(o, "pool", json_object_new_string(a->pool));
	json_object_object_add(o, "vdev", json_object_new_string(a->vdev));
	json_object_object_add(p, VDEV_CLASS_PROP, a->read && a->have.class[0] ? json_object_new_string(a->have.class) : NULL);
	json_object_object_add(p, VDEV_CONFIDENCE_PROP,
			       a->read && a->have.confidence[0] ? json_object_new_string(a->have.confidence) : NULL);
	json_object_object_add(o, "properties", p);
	json_object_object_add(o, "read", json_object_new_boolean(a->read));
	json_object_object_add(o, "written", a->written > 0 ? jdouble(a->written) : NULL);
	json_object_object_add(o, "error", a->error[0] ? json_object_new_string(a->error) : NULL);
	return o;
}

static int cmd_show(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	Disk *d = arg_disk(ctx, args, "show", err, msg);
	if (!d)
		return -ENOENT;
	json_object *o = summary_json(d);
	_cleanup_free_ Verdict *v = malloc(sizeof *v);
	if (!v) {
		json_object_put(o);
		return -ENOMEM;
	}
	disk_verdict(d, v);	/* what discovery kept: a page classifies nothing */
	const DiskFacts *f = &d->sys.facts;
	json_object_object_add(o, "major", json_object_new_int((int)d->sys.major));
	json_object_object_add(o, "minor", json_object_new_int((int)d->sys.minor));
	json_object_object_add(o, "wwn", json_object_new_string(d->sys.wwn));
	json_object_object_add(o, "firmware", json_object_new_string(d->sys.firmware));
	json_object_object_add(o, "transport", json_object_new_string(transport_to_string(f->transport)));
	json_object_object_add(o, "size_bytes", json_object_new_int64((int64_t)(d->sys.size_sectors * 512)));
	json_object_object_add(o, "zoned", json_object_new_string(f->zoned[0] ? f->zoned : "none"));
	json_object_object_add(o, "io_timeout_seconds",
			       d->sys.io_timeout_ms > 0 ? jdouble((double)d->sys.io_timeout_ms / 1000) : NULL);
	json_object_object_add(o, "interval_seconds", jdouble(d->interval));
	json_object_object_add(o, "verdict", verdict_to_json(v));
	json_object *zfs = zfs_annotation_json(ctx, d);
	if (zfs)
		json_object_object_add(o, "zfs_annotation", zfs);
	json_object_object_add(o, "detection", detection_json(ctx, d));
	json_object_object_add(o, "counters", counters_json(d));
	json_object_object_add(o, "latency", latency_json(ctx, d));
	*ret = o;
	return 0;
}

/* Read commands are open to anyone who can connect (the socket's mode
 * decides who can); those that change smrd's state need root, checked
 * once, here, from SO_PEERCRED. */
static const struct {
	const char *name;
	CommandFn fn;
	bool needs_root;
} commands[] = {
	{"status", cmd_status, false},
	{"disks", cmd_disks, false},
	{"show", cmd_show, false},
	{"events", cmd_events, false},
	{"incidents", commands_incidents, false},
	{"reload", cmd_reload, true},
	{"reread", cmd_reread, true},
	/* reread's name until 0.1: "probe" now means idle-cleaning reads only;
	 * kept for a release so that scripts keep working (docs/protocol.md) */
	{"probe", cmd_reread, true},
	{"forget", cmd_forget, true},
	{"ack", commands_ack, true},
	{"unack", commands_unack, true},
	{"acks", commands_acks, false},
	{"notify-test", commands_notify_test, true},
	{"zevent", commands_zevent, true},
	{"rebuild-check", commands_rebuild_check, false},
	{"rebuilds", commands_rebuilds, false},
};

int commands_dispatch(void *userdata, const char *command, json_object *args, const struct ucred *peer,
		      json_object **ret_result, ProtoError *ret_err, char **ret_message)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		if (!streq(commands[i].name, command))
			continue;
		if (commands[i].needs_root && (!peer || peer->uid != 0)) {
			*ret_err = PROTO_ERR_PERMISSION;
			set_errorf(ret_message, 0, "%s changes smrd's state and needs root (uid 0); you are uid %d", command,
				   peer ? (int)peer->uid : -1);
			return -EPERM;
		}
		return commands[i].fn(userdata, args, ret_result, ret_err, ret_message);
	}
	*ret_err = PROTO_ERR_UNKNOWN_COMMAND;
	_cleanup_free_ char *safe = str_sanitize(command);
	set_errorf(ret_message, 0, "unknown command '%.64s'", safe ? safe : "?");
	return -EOPNOTSUPP;
}
