/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An SMR disk's idle time in the exporter and on its page (idle-views.h). */
#include "idle-views.h"

#include <math.h>

#include "idle-out.h"
#include "statuspage.h"

void idle_families(MetricSet *set, IdleFamilies *f)
{
	f->recovery = metric_family_decimals(metricset_family(set, "smrd_disk_idle_recovery_bytes_per_second",
		METRIC_GAUGE, "What a second of idle gives back of the media cache, on average over the longest rest "
		"learnt from the disk's own rests begun in a storm (docs/detection.md, \"Idle time\"); absent until one."), 0);
	f->points = metricset_family(set, "smrd_disk_idle_recovery_points", METRIC_GAUGE,
		"Rests the disk's idle-recovery curve rests on.");
	f->need = metric_family_decimals(metricset_family(set, "smrd_disk_idle_needed_seconds", METRIC_GAUGE,
		"Seconds of idle a day the disk needs for its random writes into the media cache, by its curve and its "
		"load by hour of the day (over the hours watched, made a day's); absent for a disk without a curve."), 0);
	f->got = metric_family_decimals(metricset_family(set, "smrd_disk_idle_got_seconds", METRIC_GAUGE,
		"Seconds of idle a day the disk gets: runs without I/O long enough for it to clean, from its own counters "
		"(the same hours as smrd_disk_idle_needed_seconds)."), 0);
	f->interval = metric_family_decimals(metricset_family(set, "smrd_disk_idle_storm_interval_seconds",
		METRIC_GAUGE, "Seconds between destage storms forecast at the load of the hour most short of idle (the "
		"busiest when none is); absent when none is forecast."), 0);
	f->hours = metricset_family(set, "smrd_disk_idle_watched_hours", METRIC_GAUGE,
		"Hours of the day (0-24) the idle figures rest on: a day's budget is whole at 24.");
}

void idle_samples(const IdleFamilies *f, const Disk *d, MetricLabels dev)
{
	const DiskView *v = &d->view;
	const DiskViewCurve *k = diskview_curve(v);
	if (k->n_points) {
		metric_add_labels(f->recovery, NULL, dev, v->cache.idle_recovery_bps);
		metric_add_labels(f->points, NULL, dev, k->n_points);
	}
	if (!k->budget.known)
		return;
	metric_add_labels(f->need, NULL, dev, k->budget.need_day);
	metric_add_labels(f->got, NULL, dev, k->budget.got_day);
	if (isfinite(k->budget.at.storm_every))
		metric_add_labels(f->interval, NULL, dev, k->budget.at.storm_every);
	metric_add_labels(f->hours, NULL, dev, k->budget.watched);
}

void idle_page_section(Buf *b, const Disk *d)
{
	const IdleBudgetDay *day = &diskview_curve(&d->view)->budget;
	if (!day->known)
		return;
	char text[512], need[24], got[24];
	snprintf(need, sizeof need, "%.0f min", day->need_day / 60);
	snprintf(got, sizeof got, "%.0f min", day->got_day / 60);
	buf_printf(b, "<h2 id=\"idle\">Idle time</h2>\n<p>It needs ~%s of idle a day for its writes and gets ~%s "
		      "(%u hour(s) of the day watched). By hour of the day: the idle it got (bars, orange where short) "
		      "against the idle it needs (marks).</p>\n<div class=\"wide\">", need, got, day->watched);
	idle_budget_svg(b, day);
	buf_puts(b, "</div>\n<p id=\"idle-forecast\">");
	html_escape(b, idle_budget_forecast_text(day, text, sizeof text));
	buf_puts(b, "</p>\n");
	if (*idle_budget_advice_text(day, text, sizeof text)) {
		buf_puts(b, "<p id=\"idle-advice\">");
		html_escape(b, text);
		buf_puts(b, "</p>\n");
	}
}
