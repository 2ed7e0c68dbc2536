/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diskstats series use node_exporter's names with node_ replaced by smrd_,
 * its units (seconds, bytes; discards stay in sectors, as node_exporter has
 * them) and its device label, so that PromQL can join the two. The page
 * is built in one pass over the disks, each disk's series added by one
 * function; the writer (metrics.h) groups them by family when it renders.
 */
#include "exporter.h"

#include <assert.h>
#include <math.h>
#include <time.h>

#include "control.h"
#include "http.h"
#include "discovery.h"
#include "metrics.h"
#include "sampler.h"
#include "monitor.h"
#include "notifier.h"
#include "idle-views.h"
#include "rebuild-views.h"
#include "recorder.h"
#include "tracer.h"
#include "rebuildwatch.h"


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

/* The per-disk families, declared in the order the page lists them; the
 * detection and cache ones stay NULL with --oneshot (no detector ran). */
typedef struct DiskFamilies {
	MetricSet *set;
	MetricFamily *info, *confidence, *evidence, *member, *zones, *zone_size, *timeout;
	MetricFamily *stat[ELEMENTSOF(stat_metrics)];
	MetricFamily *latency;
	char le[HIST_LE][24];		/* the buckets' bounds, as labels */
	MetricFamily *storm, *storms, *stalls, *idle, *score, *bands, *probes, *behaviour, *slowest, *threshold;
	MetricFamily *cache, *fill, *anchored, *forecast;
	RebuildFamilies rebuild;	/* info NULL with --oneshot (no rebuild followed) */
	IdleFamilies idle_time;		/* the same */
} DiskFamilies;

static void classification_families(MetricSet *set, DiskFamilies *fam)
{
	fam->info = metricset_family(set, "smrd_disk_info", METRIC_GAUGE,
		"Identity and class of a watched disk; class is cmr, dm-smr, host-aware, host-managed, ssd or unknown; "
		"declared is the class smrd.conf declares for it (disk.<ID>.expect), empty if none.");
	fam->confidence = metric_family_decimals(metricset_family(set, "smrd_disk_smr_confidence", METRIC_GAUGE,
		"How sure smrd is that the disk shingles (0..1), from static and behavioural evidence."), 4);
	fam->evidence = metricset_family(set, "smrd_disk_class_evidence", METRIC_GAUGE,
		"What each source of evidence says of the disk's class: one series per source (the rank's name in "
		"docs/classification.md) and class it speaks for; 1 for the one that decided the class, 0 for the others.");
	fam->member = metricset_family(set, "smrd_disk_membership_info", METRIC_GAUGE,
		"What the disk belongs to: type zfs (pool), md (array), lvm (volume group), bcache or btrfs; one series each.");
	fam->zones = metricset_family(set, "smrd_disk_zones", METRIC_GAUGE,
		"Number of zones of a zoned disk.");
	fam->zone_size = metricset_family(set, "smrd_disk_zone_size_bytes", METRIC_GAUGE,
		"Zone size of a zoned disk.");
	fam->timeout = metric_family_decimals(metricset_family(set, "smrd_disk_io_timeout_seconds", METRIC_GAUGE,
		"The kernel's I/O timeout for the disk (queue/io_timeout): a stall longer than this resets the disk."), 3);
}

static void classification_samples(const DiskFamilies *fam, const Disk *d, MetricLabels dev)
{
	const SysfsDisk *s = &d->sys;
	const DiskFacts *f = &s->facts;
	const char *labels[] = {"device", d->name, "model", s->model, "serial", s->serial,
				"wwn", s->wwn, "firmware", s->firmware,
				"class", disk_class_to_string(disk_class(d)),
				"declared", f->admin_class >= 0 ? disk_class_to_string((DiskClass)f->admin_class) : "",
				"zoned", f->zoned[0] ? f->zoned : "none", NULL};
	metric_add(fam->info, NULL, labels, 1);
	metric_add_labels(fam->confidence, NULL, dev, disk_smr_confidence(d));
	EvidenceSource src[VERDICT_MAX_SOURCES];
	unsigned n = disk_sources(d, src, VERDICT_MAX_SOURCES);
	for (unsigned k = 0; k < n; k++) {
		const char *el[] = {"device", d->name, "source", evidence_rank_to_string(src[k].rank),
				    "class", disk_class_to_string(src[k].class), NULL};
		metric_add(fam->evidence, NULL, el, src[k].decisive);
	}
	for (unsigned k = 0; k < d->n_members; k++) {
		const char *ml[] = {"device", d->name, "type", member_type_to_string(d->members[k].type),
				    "name", d->members[k].name, NULL};
		metric_add(fam->member, NULL, ml, 1);
	}
	if (f->nr_zones > 0)
		metric_add_labels(fam->zones, NULL, dev, (double)f->nr_zones);
	if (f->nr_zones > 0 && f->zone_sectors > 0)
		metric_add_labels(fam->zone_size, NULL, dev, (double)f->zone_sectors * 512.0);
	if (s->io_timeout_ms > 0)
		metric_add_labels(fam->timeout, NULL, dev, (double)s->io_timeout_ms / 1000.0);
}

static void diskstats_families(MetricSet *set, DiskFamilies *fam)
{
	for (size_t m = 0; m < ELEMENTSOF(stat_metrics); m++) {
		const StatMetric *sm = &stat_metrics[m];
		fam->stat[m] = metric_family_decimals(metricset_family(set, sm->name, sm->type, sm->help), 3);
	}
}

static void diskstats_samples(const DiskFamilies *fam, const Disk *d, MetricLabels dev)
{
	if (!d->ds.primed)
		return;
	for (size_t m = 0; m < ELEMENTSOF(stat_metrics); m++) {
		const StatMetric *sm = &stat_metrics[m];
		/* Like node_exporter: only the fields this kernel prints. */
		if ((unsigned)sm->field < d->ds.n_fields)
			metric_add_labels(fam->stat[m], NULL, dev, (double)d->ds.total[sm->field] * sm->scale);
	}
}

static void latency_family(MetricSet *set, DiskFamilies *fam)
{
	fam->latency = metric_family_decimals(metricset_family(set, "smrd_disk_io_latency_seconds", METRIC_HISTOGRAM,
		"Issue-to-complete latency of each I/O, from the block tracepoints; op is read, write, discard or flush."), 6);
	for (unsigned i = 0; i < HIST_LE; i++)
		snprintf(fam->le[i], sizeof fam->le[i], "%g", (double)hist_le_ns[i] / 1e9);
}

static void latency_samples(const DiskFamilies *fam, const Disk *d)
{
	for (int op = 0; d->lat && op < TRACE_OPS; op++) {
		const OpLatency *o = d->lat->op[op];
		if (!o)
			continue;
		const char *name = trace_op_to_string(op);
		uint64_t cum = 0;
		for (unsigned b = 0; b < HIST_LE; b++) {
			cum += o->total.le[b];
			const char *l[] = {"device", d->name, "op", name, "le", fam->le[b], NULL};
			metric_add(fam->latency, "_bucket", l, (double)cum);
		}
		const char *inf[] = {"device", d->name, "op", name, "le", "+Inf", NULL};
		const char *l[] = {"device", d->name, "op", name, NULL};
		metric_add(fam->latency, "_bucket", inf, (double)o->total.count);
		metric_add(fam->latency, "_sum", l, (double)o->total.sum_ns / 1e9);
		metric_add(fam->latency, "_count", l, (double)o->total.count);
	}
}

static void detection_families(MetricSet *set, const Context *ctx, DiskFamilies *fam)
{
	fam->storm = metricset_family(set, "smrd_disk_destage_storm_active", METRIC_GAUGE,
		"1 while a destage storm is under way: writes were acknowledged fast, then collapsed with the queue busy.");
	fam->storms = metricset_family(set, "smrd_disk_destage_storms_total", METRIC_COUNTER,
		"Destage storms seen since smrd started.");
	fam->stalls = metricset_family(set, "smrd_disk_stall_events_total", METRIC_COUNTER,
		"I/Os slower than the stall threshold, since smrd started.");
	fam->idle = metricset_family(set, "smrd_disk_idle_cleaning_active", METRIC_GAUGE,
		"1 while reads wait behind cleaning after a write burst with the host nearly quiet.");
	fam->score = metric_family_decimals(metricset_family(set, "smrd_disk_gc_score", METRIC_GAUGE,
		"How strongly recent behaviour looks like SMR cleaning (0..1), decaying with a half-life."), 4);
	fam->bands = metric_family_decimals(metricset_family(set, "smrd_disk_latency_band_seconds", METRIC_GAUGE,
		"Centre of each latency band (mode) found in the last minutes of reads or writes; band 0 is the fastest."), 6);
	fam->probes = ctx->config.probe ? metricset_family(set, "smrd_disk_probe_reads_total", METRIC_COUNTER,
		"Idle-cleaning probe reads (4 KiB, O_DIRECT) smrd sent to the disk.") : NULL;
	fam->behaviour = metricset_family(set, "smrd_disk_smr_by_behaviour", METRIC_GAUGE,
		"1 when the disk is classified dm-smr by its behaviour (destage storms) and not by static evidence.");
	fam->slowest = metric_family_decimals(metricset_family(set, "smrd_disk_slowest_io_seconds", METRIC_GAUGE,
		"The slowest I/O over the slow-io threshold completed in the last ten minutes (0 if none)."), 6);
	fam->threshold = metric_family_decimals(metricset_family(set, "smrd_disk_stall_threshold_seconds", METRIC_GAUGE,
		"I/Os slower than this are stall events."), 6);
}

static void detection_samples(const DiskFamilies *fam, const Disk *d, MetricLabels dev)
{
	const DiskView *v = &d->view;
	metric_add_labels(fam->storm, NULL, dev, v->storm);
	metric_add_labels(fam->storms, NULL, dev, (double)v->storms);
	/* reads and writes always (rate() needs a zero to start from); the rest once seen */
	for (int op = 0; op < TRACE_OPS; op++) {
		if (op > TRACE_WRITE && !v->stalls[op])
			continue;
		const char *l[] = {"device", d->name, "op", trace_op_to_string(op), NULL};
		metric_add(fam->stalls, NULL, l, (double)v->stalls[op]);
	}
	metric_add_labels(fam->idle, NULL, dev, v->idle);
	metric_add_labels(fam->score, NULL, dev, v->score.score);
	for (int op = 0; op < 2; op++) {
		Band found[BANDS_MAX];
		unsigned nb = diskview_bands(v, op, found);
		for (unsigned b = 0; b < nb; b++) {
			char band[12];
			snprintf(band, sizeof band, "%u", b);
			const char *l[] = {"device", d->name, "op", trace_op_to_string(op), "band", band, NULL};
			metric_add(fam->bands, NULL, l, found[b].centre);
		}
	}
	metric_add_labels(fam->probes, NULL, dev, (double)v->probes);
	metric_add_labels(fam->behaviour, NULL, dev, disk_by_behaviour(d));
	metric_add_labels(fam->slowest, NULL, dev, v->slowest_recent);
	metric_add_labels(fam->threshold, NULL, dev, v->stall_threshold);
}

static void on_zfs_count(const char *device, const char *zfs_class, uint64_t n, void *userdata)
{
	const char *l[] = {"device", device, "class", zfs_class, NULL};
	metric_add(userdata, NULL, l, (double)n);
}

/* ZFS events from zed (smrctl zevent), by disk ("" for a pool's own) and class. */
static void add_zfs_events(MetricSet *set, Context *ctx)
{
	MetricFamily *f = metricset_family(set, "smrd_zfs_events_total", METRIC_COUNTER,
		"ZFS events zed handed smrd since it started (docs/zfs.md), by disk (\"\" for a pool's own) and class.");
	zfsevents_counts(rebuildwatch_zfs(ctx->rebuild), on_zfs_count, f);
}

/* Events and the history database: the host's, not a disk's. */
static void add_events(MetricSet *set, Context *ctx)
{
	/* --oneshot runs no monitor: no history, no events (zeros, not gaps) */
	/* --oneshot has no history and records nothing (zeros, not gaps) */
	History *h = ctx->history;
	MetricFamily *ev = metricset_family(set, "smrd_events_total", METRIC_COUNTER,
		"Events recorded since smrd started, by kind: the detector's, zed's and the rebuild watcher's.");
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		const char *l[] = {"kind", detect_event_kind_to_string(k), NULL};
		metric_add(ev, NULL, l, (double)recorder_total(ctx->recorder, k));
	}
	const IncidentLog *il = recorder_incidents(ctx->recorder);
	MetricFamily *it = metricset_family(set, "smrd_incidents_total", METRIC_COUNTER,
		"Incidents begun since smrd started, by kind: stalls (slow I/Os), storm (a destage storm), rebuild (a "
		"rebuild onto a disk, its storms and slow I/Os in it).");
	MetricFamily *io = metricset_family(set, "smrd_incidents_open", METRIC_GAUGE,
		"Incidents under way now, by kind.");
	for (int k = 0; k < _INCIDENT_KIND_MAX; k++) {
		const char *l[] = {"kind", incident_kind_to_string(k), NULL};
		metric_add(it, NULL, l, (double)incidentlog_opened(il, k));
		metric_add(io, NULL, l, (double)incidentlog_open(il, k));
	}
	metric_add(metricset_family(set, "smrd_history_persistent", METRIC_GAUGE,
				    "1 when every event is stored in the history database, 0 when some are only in memory."),
		   NULL, NULL, history_persistent(h));
	MetricFamily *hs = metricset_family(set, "smrd_history_state", METRIC_GAUGE,
		"The history database's state, 1 for the current one: ok, pending (events wait in memory to be "
		"written), read-only (stored events readable, new ones in memory), memory-only, recovered (as ok, but "
		"rebuilt at start from a damaged file: what stood on its bad pages is lost).");
	for (int s = 0; s < _HISTORY_STATE_MAX; s++) {
		const char *l[] = {"state", history_state_to_string(s), NULL};
		metric_add(hs, NULL, l, history_state(h) == (HistoryState)s);
	}
	metric_add(metricset_family(set, "smrd_history_pending_events", METRIC_GAUGE,
				    "Events (and incidents, each counting its own) kept in memory until the history database "
				    "can take them."),
		   NULL, NULL, history_pending(h));
	metric_add(metricset_family(set, "smrd_history_dropped_events_total", METRIC_COUNTER,
				    "Events lost because the database failed and the memory queue was full."),
		   NULL, NULL, (double)history_dropped(h));
	metric_add(metricset_family(set, "smrd_history_errors_total", METRIC_COUNTER,
				    "Failed reads and writes of the history database."),
		   NULL, NULL, (double)history_errors(h));
}

/* The media cache learnt from the storms, and the forecast (core/detect/diskmodel.h). */
static void cache_families(MetricSet *set, DiskFamilies *fam)
{
	fam->cache = metricset_family(set, "smrd_disk_media_cache_bytes", METRIC_GAUGE,
		"Bytes of random writes the media cache takes from clean before writes must wait, learnt from the disk's "
		"destage storms (or smrd.conf's disk.ID.media-cache); absent until known.");
	fam->fill = metric_family_decimals(metricset_family(set, "smrd_disk_media_cache_fill_ratio", METRIC_GAUGE,
		"How full the media cache is estimated to be (0..1); absent until its size is known."), 4);
	fam->anchored = metricset_family(set, "smrd_disk_media_cache_fill_anchored", METRIC_GAUGE,
		"1 when the fill estimate is anchored (a storm's end, or an idle long enough to clean the cache), 0 when "
		"it is a guess (after a restart).");
	fam->forecast = metric_family_decimals(metricset_family(set, "smrd_disk_stall_forecast_seconds",
		METRIC_GAUGE, "Seconds until the media cache is full at the recent write rate (then writes stall); absent "
		"unless it is filling and its size and fill are known."), 1);
}

static void cache_samples(const DiskFamilies *fam, const Disk *d, MetricLabels dev)
{
	const DiskView *v = &d->view;
	if (disk_model_known(&v->cache))
		metric_add_labels(fam->cache, NULL, dev, v->cache.media_cache_bytes);
	if (isfinite(v->cache_fill)) {
		metric_add_labels(fam->fill, NULL, dev, v->cache_fill);
		metric_add_labels(fam->anchored, NULL, dev, v->cache_sure);
	}
	if (isfinite(v->forecast))
		metric_add_labels(fam->forecast, NULL, dev, v->forecast);
}

/* Every series of one disk, into the families declared for them. */
static void disk_samples(const DiskFamilies *fam, const Disk *d)
{
	/* {device="sda"} once, for all of the disk's single-label series */
	MetricLabels dev = metricset_labels(fam->set, (const char *const[]){"device", d->name, NULL});
	classification_samples(fam, d, dev);
	diskstats_samples(fam, d, dev);
	latency_samples(fam, d);
	if (fam->storm) {
		detection_samples(fam, d, dev);
		cache_samples(fam, d, dev);
	}
	if (fam->rebuild.info)
		rebuild_samples(&fam->rebuild, d, dev);
	if (fam->idle_time.need)
		idle_samples(&fam->idle_time, d, dev);
}

/* Room taken at once for what n disks add (one sample per disk in most
 * families, two stall series, a few evidence series, label sets of their
 * identity): the page's memory is then written once, not copied as it
 * grows. What goes unused of it is never touched. */
static void expect_disks(DiskFamilies *fam, size_t n)
{
	MetricFamily *one[] = {fam->info, fam->confidence, fam->timeout, fam->storm, fam->storms, fam->idle,
			       fam->score, fam->probes, fam->behaviour, fam->slowest, fam->threshold};
	for (size_t i = 0; i < ELEMENTSOF(one); i++)
		metric_family_expect(one[i], n);
	for (size_t m = 0; m < ELEMENTSOF(fam->stat); m++)
		metric_family_expect(fam->stat[m], n);
	metric_family_expect(fam->stalls, 2 * n);
	metric_family_expect(fam->evidence, 4 * n);
	metricset_expect_labels(fam->set, 1024 * n);
}

static void add_tracer(MetricSet *set, Context *ctx)
{
	/* --oneshot starts no tracer: "none", and nothing counted */
	TraceCounters c = {0};
	if (ctx->tracer)
		tracer_counters(ctx->tracer, &c);
	const char *backend[] = {"backend", ctx->tracer ? tracer_backend(ctx->tracer) : "none", NULL};
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
				    "I/Os slower than slow-io recorded one by one."), NULL, NULL,
		   ctx->tracer ? (double)tracer_slow_total(ctx->tracer) : 0);
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
	MetricFamily *steps = metric_family_decimals(metricset_family(set, "smrd_sample_cpu_seconds_total", METRIC_COUNTER,
		"CPU time smrd's samples took since it started, by step: discovery (the rescan; on a captured tree "
		"its disks re-read in turn), diskstats, tracer, detector (with each disk's view), notifier."), 6);
	for (int i = 0; i < _TICK_STEP_MAX; i++) {
		const char *l[] = {"step", tick_step_names[i], NULL};
		metric_add(steps, NULL, l, ctx->step_cpu[i]);
	}
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
		   NULL, NULL, ctx->monitor ? (double)monitor_host_stalls(ctx->monitor) : 0);
	/* --oneshot serves nothing and notifies no one: its counts are zeros */
	NotifyStats ns = {0};
	HttpStats hs = {0};
	ControlStats cs = {0};
	if (ctx->notifier)
		notifier_stats(ctx->notifier, &ns);
	if (ctx->http)
		http_stats(ctx->http, &hs);
	if (ctx->control)
		control_stats(ctx->control, &cs);
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
	double sysfs_errors = (double)discovery_read_errors(ctx->discovery);
	metric_add(metricset_family(set, "smrd_probe_errors_total", METRIC_COUNTER,
				    "Deprecated: use smrd_sysfs_read_errors_total (the same count; this name goes in the "
				    "next release)."), NULL, NULL, sysfs_errors);
	metric_add(metricset_family(set, "smrd_sysfs_read_errors_total", METRIC_COUNTER,
				    "Failed reads of a disk's sysfs attributes."), NULL, NULL, sysfs_errors);
}

static void metricset_freep(MetricSet **s) { metricset_free(*s); }

/* Families are declared in the page's order, host-wide ones with their
 * samples; then one pass over the disks adds each disk's series. */
int exporter_render(Context *ctx, Buf *out, MetricFormat fmt)
{
	double t0 = now_seconds(CLOCK_MONOTONIC);
	_cleanup_(metricset_freep) MetricSet *set = metricset_new();
	if (!set)
		return -ENOMEM;
	DiskFamilies fam = {.set = set};
	classification_families(set, &fam);
	diskstats_families(set, &fam);
	latency_family(set, &fam);
	if (!ctx->oneshot) {
		detection_families(set, ctx, &fam);
		add_events(set, ctx);
		add_zfs_events(set, ctx);
		rebuild_families(set, &fam.rebuild);
		cache_families(set, &fam);
		idle_families(set, &fam.idle_time);
		metric_add(metric_family_decimals(metricset_family(set, "smrd_stall_forecast_warn_seconds", METRIC_GAUGE,
					    "The forecast-warn setting: a stall forecast this near is a stall-imminent warning "
					    "(the SMRDiskStallImminent alert compares with it)."), 3),
			   NULL, NULL, ctx->config.detect.forecast_warn);
		add_tracer(set, ctx);
	}
	add_self(set, ctx);
	MetricFamily *lag = ctx->oneshot ? NULL : metric_family_decimals(metricset_family(set,
		"smrd_event_loop_lag_seconds", METRIC_GAUGE, "The worst lateness of smrd's sampling timer in the last "
		"minute: how long its event loop kept its most urgent work waiting."), 6);
	MetricFamily *took = metric_family_decimals(metricset_family(set, "smrd_scrape_duration_seconds", METRIC_GAUGE,
		"Time smrd spent collecting this scrape."), 6);
	expect_disks(&fam, registry_size(ctx->disks));
	for (size_t i = 0; i < registry_size(ctx->disks); i++)
		disk_samples(&fam, registry_at(ctx->disks, i));
	if (lag)
		metric_add(lag, NULL, NULL, context_loop_lag(ctx, now_usec(CLOCK_MONOTONIC)));
	metric_add(took, NULL, NULL, now_seconds(CLOCK_MONOTONIC) - t0);
	return metricset_render(set, out, fmt);
}
