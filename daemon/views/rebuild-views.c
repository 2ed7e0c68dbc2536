/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rebuilds onto watched disks, formatted (rebuild-views.h). */
#include "rebuild-views.h"

#include <math.h>
#include <stdio.h>

#include "disk.h"
#include "format.h"
#include "registry.h"
#include "util.h"

static json_object *jnum(double v) { return json_number(v, 3); }

void rebuild_families(MetricSet *set, RebuildFamilies *f)
{
	f->info = metricset_family(set, "smrd_rebuild_info", METRIC_GAUGE,
		"1 for each disk a rebuild (a ZFS resilver, a btrfs replace, balance or device remove) is being written "
		"onto, with its pool and kind (docs/zfs.md, \"How smrd follows a rebuild\").");
	f->total = metricset_family(set, "smrd_rebuild_to_write_bytes", METRIC_GAUGE,
		"Bytes the rebuild writes onto the disk in all, as zpool or btrfs tell it.");
	f->done = metricset_family(set, "smrd_rebuild_written_bytes", METRIC_GAUGE,
		"Bytes the rebuild has written onto the disk so far.");
	f->rate = metricset_family(set, "smrd_rebuild_rate_bytes_per_second", METRIC_GAUGE,
		"The rate the rebuild has written onto the disk since smrd first saw it (NaN until two readings).");
	f->elapsed = metricset_family(set, "smrd_rebuild_elapsed_seconds", METRIC_GAUGE,
		"Seconds since the rebuild began, at smrd's last reading of it.");
	f->started = metricset_family(set, "smrd_rebuild_started_timestamp_seconds", METRIC_GAUGE,
		"When the rebuild began, Unix seconds: the tool's own start (zpool's scan, btrfs's replace), else when smrd "
		"first saw it. time() minus it is the elapsed time between smrd's readings.");
	f->eta = metricset_family(set, "smrd_rebuild_eta_seconds", METRIC_GAUGE,
		"Seconds the rebuild still takes, from the disk's own model refined by the rate observed (NaN unknown).");
	f->expected = metricset_family(set, "smrd_rebuild_expected_seconds", METRIC_GAUGE,
		"Seconds the whole rebuild takes by the disk's model, estimated when smrd first saw it (NaN unknown).");
	/* seconds to the millisecond, bytes whole: a reading's precision, not a double's */
	MetricFamily *const timed[] = {f->elapsed, f->started, f->eta, f->expected};
	for (size_t i = 0; i < ELEMENTSOF(timed); i++)
		metric_family_decimals(timed[i], 3);
	metric_family_decimals(f->total, 0), metric_family_decimals(f->done, 0), metric_family_decimals(f->rate, 0);
}

void rebuild_samples(const RebuildFamilies *f, const Disk *d, MetricLabels dev)
{
	const RebuildState *s = disk_rebuild(d);
	if (s->phase != REBUILD_PHASE_RUNNING)
		return;
	const char *il[] = {"device", d->name, "pool", s->pool, "kind", rebuild_kind_to_string(s->kind), NULL};
	metric_add(f->info, NULL, il, 1);
	metric_add_labels(f->total, NULL, dev, s->total_bytes);
	metric_add_labels(f->done, NULL, dev, s->done_bytes);
	metric_add_labels(f->rate, NULL, dev, s->rate);
	metric_add_labels(f->elapsed, NULL, dev, s->elapsed);
	metric_add_labels(f->started, NULL, dev, s->started);
	metric_add_labels(f->eta, NULL, dev, s->eta);
	metric_add_labels(f->expected, NULL, dev, s->expected);
}

json_object *rebuild_json(const Disk *d)
{
	const RebuildState *s = disk_rebuild(d);
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "device", json_object_new_string(d->name));
	json_object_object_add(o, "pool", json_object_new_string(s->pool));
	json_object_object_add(o, "kind", json_object_new_string(rebuild_kind_to_string(s->kind) ?: "?"));
	json_object_object_add(o, "state", json_object_new_string(rebuild_phase_to_string(s->phase) ?: "?"));
	json_object_object_add(o, "started", jnum(s->started));
	json_object_object_add(o, "elapsed", jnum(s->elapsed));
	json_object_object_add(o, "to_write_bytes", jnum(s->total_bytes));
	json_object_object_add(o, "written_bytes", jnum(s->done_bytes));
	json_object_object_add(o, "rate_bps", jnum(s->rate));
	json_object_object_add(o, "eta_seconds", jnum(s->eta));
	json_object_object_add(o, "expected_seconds", jnum(s->expected));
	json_object_object_add(o, "duration", s->phase == REBUILD_PHASE_RUNNING ? NULL : jnum(s->duration));
	json_object_object_add(o, "cliff_seen", json_object_new_boolean(s->cliff_seen));
	return o;
}

int commands_rebuilds(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	(void)args, (void)err, (void)msg;
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return -ENOMEM;
	}
	/* running ones first, then those that ended, each in name order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < registry_size(ctx->disks); i++) {
			const Disk *d = registry_at(ctx->disks, i);
			RebuildPhase p = disk_rebuild(d)->phase;
			if (p != REBUILD_PHASE_NONE && (p == REBUILD_PHASE_RUNNING) == (pass == 0))
				json_object_array_add(a, rebuild_json(d));
		}
	json_object_object_add(o, "rebuilds", a);
	*ret = o;
	return 0;
}

const char *rebuild_line(const Disk *d, char *buf, size_t n)
{
	const RebuildState *s = disk_rebuild(d);
	char a[FORMAT_MAX], b[FORMAT_MAX], c[FORMAT_MAX], e[FORMAT_MAX];
	const char *kind = rebuild_kind_to_string(s->kind) ?: "rebuild";
	if (s->phase == REBUILD_PHASE_NONE) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	if (s->phase != REBUILD_PHASE_RUNNING) {
		snprintf(buf, n, "%s of %s %s in %s", kind, s->pool, rebuild_phase_to_string(s->phase),
			 format_duration(a, s->duration));
		return buf;
	}
	int k = snprintf(buf, n, "%s of %s", kind, s->pool);
	if (isfinite(s->done_bytes) && isfinite(s->total_bytes) && s->total_bytes > 0 && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, ": %.0f%% of %s", 100 * s->done_bytes / s->total_bytes,
			      format_size(a, s->total_bytes));
	if (isfinite(s->rate) && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, " at %s", format_rate(b, s->rate));
	if (k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - k, ", %s left", isfinite(s->eta) ? format_left(c, s->eta) : "unknown time");
	if (isfinite(s->expected) && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - k, " (expected %s in all)", format_duration(e, s->expected));
	return buf;
}

const char *rebuild_short(const Disk *d, char *buf, size_t n)
{
	const RebuildState *s = disk_rebuild(d);
	char a[FORMAT_MAX];
	const char *kind = rebuild_kind_to_string(s->kind) ?: "rebuild";
	if (s->phase != REBUILD_PHASE_RUNNING)
		snprintf(buf, n, "%s", "");
	else if (isfinite(s->done_bytes) && isfinite(s->total_bytes) && s->total_bytes > 0)
		snprintf(buf, n, "%s of %s: %.0f%%, %s%s", kind, s->pool, 100 * s->done_bytes / s->total_bytes,
			 isfinite(s->eta) ? format_left(a, s->eta) : "time left unknown", isfinite(s->eta) ? " left" : "");
	else
		snprintf(buf, n, "%s of %s: %s%s", kind, s->pool, isfinite(s->eta) ? format_left(a, s->eta) : "time left unknown",
			 isfinite(s->eta) ? " left" : "");
	return buf;
}
