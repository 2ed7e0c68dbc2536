/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diskstats series use node_exporter's names with node_ replaced by smrd_,
 * its units (seconds, bytes; discards stay in sectors, as node_exporter has
 * them) and its device label, so that PromQL can join the two.
 */
#include "exporter.h"

#include <math.h>
#include <time.h>

#include "control.h"
#include "http.h"
#include "log.h"
#include "discovery.h"
#include "metrics.h"
#include "sampler.h"
#include "monitor.h"
#include "notifier.h"
#include "tracer.h"

#ifndef SMRD_VERSION
#define SMRD_VERSION "0"
#endif

typedef struct StatMetric {
	DiskstatField field;
	const char *name, *help;
	MetricType type;
	double scale;
} StatMetric;

static const StatMetric stat_metrics[] = {
	{DS_READS, "smrd_disk_reads_completed_total", "The total number of reads completed successfully.", METRIC_COUNTER, 1},
	{DS_READS_MERGED, "smrd_disk_reads_merged_total", "The total number of reads merged.", METRIC_COUNTER, 1},
	{DS_READ_SECTORS, "smrd_disk_read_bytes_total", "The total number of bytes read successfully.", METRIC_COUNTER, 512},
	{DS_READ_MS, "smrd_disk_read_time_seconds_total", "The total number of seconds spent by all reads.", METRIC_COUNTER, 0.001},
	{DS_WRITES, "smrd_disk_writes_completed_total", "The total number of writes completed successfully.", METRIC_COUNTER, 1},
	{DS_WRITES_MERGED, "smrd_disk_writes_merged_total", "The number of writes merged.", METRIC_COUNTER, 1},
	{DS_WRITE_SECTORS, "smrd_disk_written_bytes_total", "The total number of bytes written successfully.", METRIC_COUNTER, 512},
	{DS_WRITE_MS, "smrd_disk_write_time_seconds_total", "This is the total number of seconds spent by all writes.", METRIC_COUNTER, 0.001},
	{DS_IN_FLIGHT, "smrd_disk_io_now", "The number of I/Os currently in progress.", METRIC_GAUGE, 1},
	{DS_IO_MS, "smrd_disk_io_time_seconds_total", "Total seconds spent doing I/Os.", METRIC_COUNTER, 0.001},
	{DS_WEIGHTED_MS, "smrd_disk_io_time_weighted_seconds_total", "The weighted # of seconds spent doing I/Os.", METRIC_COUNTER, 0.001},
	{DS_DISCARDS, "smrd_disk_discards_completed_total", "The total number of discards completed successfully.", METRIC_COUNTER, 1},
	{DS_DISCARDS_MERGED, "smrd_disk_discards_merged_total", "The total number of discards merged.", METRIC_COUNTER, 1},
	{DS_DISCARD_SECTORS, "smrd_disk_discarded_sectors_total", "The total number of sectors discarded successfully.", METRIC_COUNTER, 1},
	{DS_DISCARD_MS, "smrd_disk_discard_time_seconds_total", "This is the total number of seconds spent by all discards.", METRIC_COUNTER, 0.001},
	{DS_FLUSHES, "smrd_disk_flush_requests_total", "The total number of flush requests completed successfully", METRIC_COUNTER, 1},
	{DS_FLUSH_MS, "smrd_disk_flush_requests_time_seconds_total", "This is the total number of seconds spent by all flush requests.", METRIC_COUNTER, 0.001},
};

/* Each disk's {device="..."} written once per page, not once per series. */
typedef struct DevLabels {
	Buf text;
	size_t *off, *len;
} DevLabels;

#define DL(dl, i) (dl)->text.data + (dl)->off[i], (dl)->len[i]

static void dev_labels_free(DevLabels *dl)
{
	buf_free(&dl->text);
	free(dl->off);
	free(dl->len);
}

static int dev_labels_build(Context *ctx, DevLabels *dl)
{
	size_t n = registry_size(ctx->disks);
	*dl = (DevLabels){.off = calloc(n + 1, sizeof(size_t)), .len = calloc(n + 1, sizeof(size_t))};
	buf_reserve(&dl->text, n * 24 + 1);
	if (!dl->off || !dl->len || dl->text.oom)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *dev[] = {"device", registry_at(ctx->disks, i)->name, NULL};
		dl->off[i] = dl->text.len;
		metric_labels(&dl->text, dev);
		dl->len[i] = dl->text.len - dl->off[i];
	}
	return dl->text.oom ? -ENOMEM : 0;
}

static void add_classification(MetricSet *set, Context *ctx, const DevLabels *dl)
{
	MetricFamily *info = metricset_family(set, "smrd_disk_info", METRIC_GAUGE,
		"Identity and class of a watched disk; class is cmr, dm-smr, host-aware, host-managed, ssd or unknown; "
		"declared is the class smrd.conf declares for it (disk.<ID>.expect), empty if none.");
	MetricFamily *conf = metric_family_decimals(metricset_family(set, "smrd_disk_smr_confidence", METRIC_GAUGE,
		"How sure smrd is that the disk shingles (0..1), from static and behavioural evidence."), 4);
	MetricFamily *zones = metricset_family(set, "smrd_disk_zones", METRIC_GAUGE,
		"Number of zones of a zoned disk.");
	MetricFamily *zsize = metricset_family(set, "smrd_disk_zone_size_bytes", METRIC_GAUGE,
		"Zone size of a zoned disk.");
	MetricFamily *tmo = metric_family_decimals(metricset_family(set, "smrd_disk_io_timeout_seconds", METRIC_GAUGE,
		"The kernel's I/O timeout for the disk (queue/io_timeout): a stall longer than this resets the disk."), 3);
	MetricFamily *member = metricset_family(set, "smrd_disk_membership_info", METRIC_GAUGE,
		"What the disk belongs to: type zfs (pool), md (array), lvm (volume group), bcache or btrfs; one series each.");

	/* family after family: the page is written as it goes */
	size_t n = registry_size(ctx->disks);
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		const DiskSys *f = &d->sys;
		const char *labels[] = {"device", d->name, "model", d->sys.model, "serial", d->sys.serial,
					"wwn", d->sys.wwn, "firmware", d->sys.firmware,
					"class", disk_class_to_string(disk_class(d)),
					"declared", f->admin_class >= 0 ? disk_class_to_string((DiskClass)f->admin_class) : "",
					"zoned", f->zoned[0] ? f->zoned : "none", NULL};
		metric_add(info, NULL, labels, 1);
	}
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		metric_add_rendered(conf, NULL, DL(dl, i), disk_smr_confidence(d));
	}
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		for (unsigned k = 0; k < d->n_members; k++) {
			const char *ml[] = {"device", d->name, "type", member_type_to_string(d->members[k].type),
					    "name", d->members[k].name, NULL};
			metric_add(member, NULL, ml, 1);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		if (d->sys.nr_zones > 0)
			metric_add_rendered(zones, NULL, DL(dl, i), (double)d->sys.nr_zones);
	}
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		if (d->sys.nr_zones > 0 && d->sys.zone_sectors > 0)
			metric_add_rendered(zsize, NULL, DL(dl, i), (double)d->sys.zone_sectors * 512.0);
	}
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
		if (d->sys.io_timeout_ms > 0)
			metric_add_rendered(tmo, NULL, DL(dl, i), (double)d->sys.io_timeout_ms / 1000.0);
	}
}

static void add_diskstats(MetricSet *set, Context *ctx, const DevLabels *dl)
{
	for (size_t m = 0; m < ELEMENTSOF(stat_metrics); m++) {
		const StatMetric *sm = &stat_metrics[m];
		MetricFamily *fam = metric_family_decimals(metricset_family(set, sm->name, sm->type, sm->help), 3);
		for (size_t i = 0; i < registry_size(ctx->disks); i++) {
			const Disk *d = registry_at(ctx->disks, i);
			/* Like node_exporter: only the fields this kernel prints. */
			if (!d->ds.primed || (unsigned)sm->field >= d->ds.n_fields)
				continue;
			metric_add_rendered(fam, NULL, DL(dl, i), (double)d->ds.total[sm->field] * sm->scale);
		}
	}
}

static void add_latency(MetricSet *set, Context *ctx)
{
	MetricFamily *fam = metric_family_decimals(metricset_family(set, "smrd_disk_io_latency_seconds", METRIC_HISTOGRAM,
		"Issue-to-complete latency of each I/O, from the block tracepoints; op is read, write, discard or flush."), 6);
	char le[HIST_LE][24];
	for (unsigned i = 0; i < HIST_LE; i++)
		snprintf(le[i], sizeof le[i], "%g", (double)hist_le_ns[i] / 1e9);
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const Disk *d = registry_at(ctx->disks, i);
		for (int op = 0; d->lat && op < TRACE_OPS; op++) {
			const OpLatency *o = d->lat->op[op];
			if (!o)
				continue;
			uint64_t cum = 0;
			for (unsigned b = 0; b < HIST_LE; b++) {
				cum += o->total.le[b];
				const char *l[] = {"device", d->name, "op", trace_op_to_string(op), "le", le[b], NULL};
				metric_add(fam, "_bucket", l, (double)cum);
			}
			const char *inf[] = {"device", d->name, "op", trace_op_to_string(op), "le", "+Inf", NULL};
			const char *l[] = {"device", d->name, "op", trace_op_to_string(op), NULL};
			metric_add(fam, "_bucket", inf, (double)o->total.count);
			metric_add(fam, "_sum", l, (double)o->total.sum_ns / 1e9);
			metric_add(fam, "_count", l, (double)o->total.count);
		}
	}
}

/* The media cache learnt from the storms, and the forecast (core/detect/diskmodel.h). */
static void add_cache(MetricSet *set, Context *ctx, const DevLabels *dl)
{
	MetricFamily *cache = metricset_family(set, "smrd_disk_media_cache_bytes", METRIC_GAUGE,
		"Bytes of random writes the media cache takes from clean before writes must wait, learnt from the disk's "
		"destage storms (or smrd.conf's disk.ID.media-cache); absent until known.");
	MetricFamily *fill = metric_family_decimals(metricset_family(set, "smrd_disk_media_cache_fill_ratio", METRIC_GAUGE,
		"How full the media cache is estimated to be (0..1); absent until its size is known."), 4);
	MetricFamily *anchored = metricset_family(set, "smrd_disk_media_cache_fill_anchored", METRIC_GAUGE,
		"1 when the fill estimate is anchored (a storm's end, or an idle long enough to clean the cache), 0 when "
		"it is a guess (after a restart).");
	MetricFamily *forecast = metric_family_decimals(metricset_family(set, "smrd_disk_stall_forecast_seconds",
		METRIC_GAUGE, "Seconds until the media cache is full at the recent write rate (then writes stall); absent "
		"unless it is filling and its size and fill are known."), 1);
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const DiskView *v = &registry_at(ctx->disks, i)->view;
		if (disk_model_known(&v->cache))
			metric_add_rendered(cache, NULL, DL(dl, i), v->cache.media_cache_bytes);
	}
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const DiskView *v = &registry_at(ctx->disks, i)->view;
		if (isfinite(v->cache_fill))
			metric_add_rendered(fill, NULL, DL(dl, i), v->cache_fill);
	}
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const DiskView *v = &registry_at(ctx->disks, i)->view;
		if (isfinite(v->cache_fill))
			metric_add_rendered(anchored, NULL, DL(dl, i), v->cache_sure);
	}
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const DiskView *v = &registry_at(ctx->disks, i)->view;
		if (isfinite(v->forecast))
			metric_add_rendered(forecast, NULL, DL(dl, i), v->forecast);
	}
	metric_add(metric_family_decimals(metricset_family(set, "smrd_stall_forecast_warn_seconds", METRIC_GAUGE,
				    "The forecast-warn setting: a stall forecast this near is a stall-imminent warning "
				    "(the SMRDiskStallImminent alert compares with it)."), 3),
		   NULL, NULL, ctx->config.detect.forecast_warn);
}

static void add_detection(MetricSet *set, Context *ctx, const DevLabels *dl)
{
	MetricFamily *active = metricset_family(set, "smrd_disk_destage_storm_active", METRIC_GAUGE,
		"1 while a destage storm is under way: writes were acknowledged fast, then collapsed with the queue busy.");
	MetricFamily *storms = metricset_family(set, "smrd_disk_destage_storms_total", METRIC_COUNTER,
		"Destage storms seen since smrd started.");
	MetricFamily *stalls = metricset_family(set, "smrd_disk_stall_events_total", METRIC_COUNTER,
		"I/Os slower than the stall threshold, since smrd started.");
	MetricFamily *idle = metricset_family(set, "smrd_disk_idle_cleaning_active", METRIC_GAUGE,
		"1 while reads wait behind cleaning after a write burst with the host nearly quiet.");
	MetricFamily *score = metric_family_decimals(metricset_family(set, "smrd_disk_gc_score", METRIC_GAUGE,
		"How strongly recent behaviour looks like SMR cleaning (0..1), decaying with a half-life."), 4);
	MetricFamily *bands = metric_family_decimals(metricset_family(set, "smrd_disk_latency_band_seconds", METRIC_GAUGE,
		"Centre of each latency band (mode) found in the last minutes of reads or writes; band 0 is the fastest."), 6);
	MetricFamily *probes = ctx->config.probe ? metricset_family(set, "smrd_disk_probe_reads_total", METRIC_COUNTER,
		"Idle-cleaning probe reads (4 KiB, O_DIRECT) smrd sent to the disk.") : NULL;
	MetricFamily *behav = metricset_family(set, "smrd_disk_smr_by_behaviour", METRIC_GAUGE,
		"1 when the disk is classified dm-smr by its behaviour (destage storms) and not by static evidence.");
	MetricFamily *slowest = metric_family_decimals(metricset_family(set, "smrd_disk_slowest_io_seconds", METRIC_GAUGE,
		"The slowest I/O over the slow-io threshold completed in the last ten minutes (0 if none)."), 6);
	MetricFamily *thr = metric_family_decimals(metricset_family(set, "smrd_disk_stall_threshold_seconds", METRIC_GAUGE,
		"I/Os slower than this are stall events."), 6);
	size_t n = registry_size(ctx->disks);
#define EACH_DISK for (size_t i = 0; i < n; i++) { const Disk *d = registry_at(ctx->disks, i); \
		const DiskView *v = &d->view; (void)d; (void)v;
#define END_EACH }
	EACH_DISK metric_add_rendered(active, NULL, DL(dl, i), v->storm); END_EACH
	EACH_DISK metric_add_rendered(storms, NULL, DL(dl, i), (double)v->storms); END_EACH
	EACH_DISK
		/* reads and writes always (rate() needs a zero to start from); the rest once seen */
		for (int op = 0; op < TRACE_OPS; op++) {
			if (op > TRACE_WRITE && !v->stalls[op])
				continue;
			const char *l[] = {"device", d->name, "op", trace_op_to_string(op), NULL};
			metric_add(stalls, NULL, l, (double)v->stalls[op]);
		}
	END_EACH
	EACH_DISK metric_add_rendered(idle, NULL, DL(dl, i), v->idle); END_EACH
	EACH_DISK metric_add_rendered(score, NULL, DL(dl, i), v->score.score); END_EACH
	EACH_DISK
		for (int op = 0; op < 2; op++) {
			Band found[BANDS_MAX];
			unsigned nb = diskview_bands(v, op, found);
			for (unsigned b = 0; b < nb; b++) {
				char band[12];
				snprintf(band, sizeof band, "%u", b);
				const char *l[] = {"device", d->name, "op", trace_op_to_string(op), "band", band, NULL};
				metric_add(bands, NULL, l, found[b].centre);
			}
		}
	END_EACH
	if (probes)
		EACH_DISK metric_add_rendered(probes, NULL, DL(dl, i), (double)v->probes); END_EACH
	EACH_DISK metric_add_rendered(behav, NULL, DL(dl, i), disk_by_behaviour(d)); END_EACH
	EACH_DISK metric_add_rendered(slowest, NULL, DL(dl, i), v->slowest_recent); END_EACH
	EACH_DISK metric_add_rendered(thr, NULL, DL(dl, i), disk_stall_threshold(d, &ctx->config.detect)); END_EACH
#undef EACH_DISK
#undef END_EACH
	History *h = monitor_history(ctx->monitor);
	MetricFamily *ev = metricset_family(set, "smrd_events_total", METRIC_COUNTER,
		"Detector events recorded since smrd started, by kind.");
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		const char *l[] = {"kind", detect_event_kind_to_string(k), NULL};
		metric_add(ev, NULL, l, (double)monitor_events_total(ctx->monitor, k));
	}
	metric_add(metricset_family(set, "smrd_history_persistent", METRIC_GAUGE,
				    "1 when every event is stored in the history database, 0 when some are only in memory."),
		   NULL, NULL, history_persistent(h));
	MetricFamily *hs = metricset_family(set, "smrd_history_state", METRIC_GAUGE,
		"The history database's state, 1 for the current one: ok, pending (events wait in memory to be "
		"written), read-only (stored events readable, new ones in memory), memory-only.");
	for (int s = 0; s < _HISTORY_STATE_MAX; s++) {
		const char *l[] = {"state", history_state_to_string(s), NULL};
		metric_add(hs, NULL, l, history_state(h) == (HistoryState)s);
	}
	metric_add(metricset_family(set, "smrd_history_pending_events", METRIC_GAUGE,
				    "Events kept in memory until the history database can take them."),
		   NULL, NULL, history_pending(h));
	metric_add(metricset_family(set, "smrd_history_dropped_events_total", METRIC_COUNTER,
				    "Events lost because the database failed and the memory queue was full."),
		   NULL, NULL, (double)history_dropped(h));
	metric_add(metricset_family(set, "smrd_history_errors_total", METRIC_COUNTER,
				    "Failed reads and writes of the history database."),
		   NULL, NULL, (double)history_errors(h));
}

static void add_tracer(MetricSet *set, Context *ctx)
{
	TraceCounters c;
	tracer_counters(ctx->tracer, &c);
	const char *backend[] = {"backend", tracer_backend(ctx->tracer), NULL};
	metric_add(metricset_family(set, "smrd_trace_backend_info", METRIC_GAUGE,
				    "Where per-I/O latency comes from: bpf, perf, or none (diskstats averages only); always 1."),
		   NULL, backend, 1);
	MetricFamily *lost = metricset_family(set, "smrd_trace_lost_events_total", METRIC_COUNTER,
		"I/Os the tracer could not time, by reason: inflight_full (in-flight table full), unmatched (completion "
		"without its issue), expired (an issue whose completion never came: the kernel ended it without the "
		"block_rq_complete tracepoint), ring_overflow (perf ring full), slow_dropped "
		"(slow-I/O record lost, the I/O is still in the histogram).");
	const struct { const char *reason; uint64_t v; } reasons[] = {
		{"inflight_full", c.inflight_full}, {"unmatched", c.unmatched}, {"expired", c.expired},
		{"ring_overflow", c.lost_samples}, {"slow_dropped", c.slow_dropped},
	};
	for (size_t i = 0; i < ELEMENTSOF(reasons); i++) {
		const char *l[] = {"reason", reasons[i].reason, NULL};
		metric_add(lost, NULL, l, (double)reasons[i].v);
	}
	metric_add(metricset_family(set, "smrd_trace_completions_total", METRIC_COUNTER,
				    "I/Os on watched disks timed from issue to completion."), NULL, NULL, (double)c.completed);
	metric_add(metricset_family(set, "smrd_trace_requeues_total", METRIC_COUNTER,
				    "Requests issued again before completing (requeued); the latency counts from the last issue."),
		   NULL, NULL, (double)c.reissued);
	metric_add(metricset_family(set, "smrd_trace_slow_ios_total", METRIC_COUNTER,
				    "I/Os slower than slow-io recorded one by one."), NULL, NULL, (double)tracer_slow_total(ctx->tracer));
	metric_add(metric_family_decimals(metricset_family(set, "smrd_trace_slow_threshold_seconds", METRIC_GAUGE,
				    "The slow-io setting: I/Os this slow are recorded one by one."), 6), NULL, NULL, ctx->config.slow_io);
}

static void add_self(MetricSet *set, Context *ctx)
{
	const char *ver[] = {"version", SMRD_VERSION, NULL};
	metric_add(metricset_family(set, "smrd_build_info", METRIC_GAUGE, "smrd's version; always 1."), NULL, ver, 1);
	metric_add(metric_family_decimals(metricset_family(set, "smrd_start_time_seconds", METRIC_GAUGE,
				    "When smrd started, in seconds since the epoch."), 3),
		   NULL, NULL, (double)ctx->start_realtime_usec / 1e6);
	metric_add(metricset_family(set, "smrd_disks_watched", METRIC_GAUGE, "Number of disks smrd watches."),
		   NULL, NULL, (double)registry_size(ctx->disks));
	const SamplerStats *ss = sampler_stats(ctx->sampler);
	metric_add(metricset_family(set, "smrd_diskstats_samples_total", METRIC_COUNTER,
				    "Samples of /proc/diskstats taken."), NULL, NULL, (double)ss->samples);
	metric_add(metricset_family(set, "smrd_diskstats_malformed_lines_total", METRIC_COUNTER,
				    "Lines of /proc/diskstats that could not be parsed, or repeated a device, and were ignored."),
		   NULL, NULL, (double)ss->bad_lines);
	metric_add(metricset_family(set, "smrd_diskstats_resets_total", METRIC_COUNTER,
				    "Kernel counters that went backwards other than by a 32-bit wrap (a device that restarted "
				    "its counters); the exported totals never decrease."),
		   NULL, NULL, (double)ss->resets);
	metric_add(metricset_family(set, "smrd_diskstats_read_errors_total", METRIC_COUNTER,
				    "Failed reads of /proc/diskstats."), NULL, NULL, (double)ss->read_errors);
	metric_add(metricset_family(set, "smrd_host_steal_seconds_total", METRIC_COUNTER,
				    "CPU time a hypervisor took from this machine since smrd started, all CPUs (/proc/stat "
				    "steal); 0 on bare metal."), NULL, NULL, ss->steal_total);
	metric_add(metricset_family(set, "smrd_host_stalled_intervals_total", METRIC_COUNTER,
				    "Intervals in which a CPU lost detect.host-steal of its time or more to the hypervisor: "
				    "what the disks waited then was not taken as their behaviour."),
		   NULL, NULL, (double)monitor_host_stalls(ctx->monitor));
	NotifyStats ns;
	notifier_stats(ctx->notifier, &ns);
	MetricFamily *nf = metricset_family(set, "smrd_notifications_total", METRIC_COUNTER,
		"notify-command runs by result: ok (exit 0), failed (non-zero exit, or it could not run), "
		"timeout (killed at notify-timeout), dropped (too many waiting).");
	const struct { const char *result; uint64_t v; } nr[] = {
		{"ok", ns.ok}, {"failed", ns.failed}, {"timeout", ns.timed_out}, {"dropped", ns.dropped}};
	for (size_t i = 0; i < ELEMENTSOF(nr); i++) {
		const char *l[] = {"result", nr[i].result, NULL};
		metric_add(nf, NULL, l, (double)nr[i].v);
	}
	metric_add(metricset_family(set, "smrd_notifications_suppressed_total", METRIC_COUNTER,
				    "Notifiable events not sent: part of an incident already notified, acknowledged "
				    "(smrctl ack), or below notify-min-severity."), NULL, NULL, (double)ns.suppressed);
	metric_add(metricset_family(set, "smrd_notifications_running", METRIC_GAUGE,
				    "notify-command processes running now."), NULL, NULL, ns.running);
	HttpStats hs;
	http_stats(ctx->http, &hs);
	metric_add(metricset_family(set, "smrd_http_connections", METRIC_GAUGE, "Open HTTP connections."),
		   NULL, NULL, hs.connections);
	metric_add(metricset_family(set, "smrd_http_requests_total", METRIC_COUNTER, "HTTP requests received."),
		   NULL, NULL, (double)hs.requests);
	MetricFamily *hr = metricset_family(set, "smrd_http_requests_refused_total", METRIC_COUNTER,
		"HTTP requests refused, by reason: unauthorized (basic auth or client certificate), rate_limited "
		"(rate_limit, or too many password checks at once).");
	const char *ru[] = {"reason", "unauthorized", NULL}, *rl[] = {"reason", "rate_limited", NULL};
	metric_add(hr, NULL, ru, (double)hs.unauthorized);
	metric_add(hr, NULL, rl, (double)hs.rate_limited);
	MetricFamily *hc = metricset_family(set, "smrd_http_connections_closed_total", METRIC_COUNTER,
		"HTTP connections smrd shut down itself, by reason: slow (no complete request in time), crowded (the "
		"oldest waiting one, to make room for a new client).");
	const char *cs_slow[] = {"reason", "slow", NULL}, *cs_crowd[] = {"reason", "crowded", NULL};
	metric_add(hc, NULL, cs_slow, (double)hs.evicted_slow);
	metric_add(hc, NULL, cs_crowd, (double)hs.evicted_crowded);
	ControlStats cs;
	control_stats(ctx->control, &cs);
	metric_add(metricset_family(set, "smrd_control_connections", METRIC_GAUGE,
				    "Open connections to the control socket."), NULL, NULL, cs.connections);
	metric_add(metricset_family(set, "smrd_control_requests_total", METRIC_COUNTER,
				    "Requests answered on the control socket."), NULL, NULL, (double)cs.requests);
	MetricFamily *cc = metricset_family(set, "smrd_control_connections_closed_total", METRIC_COUNTER,
		"Control connections smrd closed itself, by reason: evicted (the oldest idle one, to make room), "
		"refused (no room: busy), expired (a request or reply not done in time), output (a reply too large to hold).");
	const struct { const char *reason; uint64_t v; } closed[] = {
		{"evicted", cs.evicted}, {"refused", cs.refused}, {"expired", cs.expired}, {"output", cs.refused_output},
	};
	for (size_t i = 0; i < ELEMENTSOF(closed); i++) {
		const char *l[] = {"reason", closed[i].reason, NULL};
		metric_add(cc, NULL, l, (double)closed[i].v);
	}
	metric_add(metricset_family(set, "smrd_probe_errors_total", METRIC_COUNTER,
				    "Failed reads of a disk's sysfs attributes."), NULL, NULL, (double)discovery_read_errors(ctx->discovery));
}


static void metricset_freep(MetricSet **s) { metricset_free(*s); }

int exporter_render(Context *ctx, Buf *out, MetricFormat fmt)
{
	double t0 = now_seconds(CLOCK_MONOTONIC);
	_cleanup_(metricset_freep) MetricSet *set = metricset_new(out, fmt);
	if (!set)
		return -ENOMEM;
	DevLabels dl;
	int r = dev_labels_build(ctx, &dl);
	if (r < 0) {
		dev_labels_free(&dl);
		return r;
	}
	add_classification(set, ctx, &dl);
	add_diskstats(set, ctx, &dl);
	add_latency(set, ctx);
	if (!ctx->oneshot) {
		add_detection(set, ctx, &dl);
		add_cache(set, ctx, &dl);
		add_tracer(set, ctx);
	}
	add_self(set, ctx);
	if (!ctx->oneshot)
		metric_add(metric_family_decimals(metricset_family(set, "smrd_event_loop_lag_seconds", METRIC_GAUGE,
					    "The worst lateness of smrd's sampling timer in the last minute: how long its "
					    "event loop kept its most urgent work waiting."), 6),
			   NULL, NULL, context_loop_lag(ctx, now_usec(CLOCK_MONOTONIC)));
	metric_add(metric_family_decimals(metricset_family(set, "smrd_scrape_duration_seconds", METRIC_GAUGE,
				    "Time smrd spent collecting this scrape."), 6), NULL, NULL, now_seconds(CLOCK_MONOTONIC) - t0);
	dev_labels_free(&dl);
	const char *misused = NULL;
	r = metricset_finish(set, &misused);
	if (r == -EINVAL)
		log_error("metrics page refused: family %s got samples after it was closed (a bug)", misused);
	return r;
}
