/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The idle curve and budget, written out (idle-out.h). */
#include "idle-out.h"

#include <math.h>
#include <stdio.h>

#include "format.h"
#include "protocol.h"

#define HOUR 3600.0

static json_object *jd(double v) { return json_number(v, 6); }

json_object *idle_curve_json(const IdlePoint *p, unsigned n, const IdleFit *f)
{
	json_object *c = json_object_new_object(), *pts = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "rest_seconds", jd(p[i].rest));
		json_object_object_add(x, "bytes", jd(p[i].bytes));
		json_object_object_add(x, "uncertainty", jd(p[i].err));
		json_object_object_add(x, "at_least", json_object_new_boolean(p[i].at_least));
		json_object_array_add(pts, x);
	}
	json_object_object_add(c, "points", pts);
	if (!idle_fit_known(f)) {
		json_object_object_add(c, "fit", NULL);
		return c;
	}
	char text[256];
	json_object *x = json_object_new_object();
	json_object_object_add(x, "form", json_object_new_string(
		"bytes(t) = 0 before delay_seconds, then room_bytes + (cache_bytes - room_bytes) * (1 - (1 - s)^shape), "
		"s = (t - delay_seconds) / clean_seconds, at most 1"));
	json_object_object_add(x, "cache_bytes", jd(f->cache));
	json_object_object_add(x, "room_bytes", jd(f->room));
	json_object_object_add(x, "clean_seconds", jd(f->clean_seconds));
	json_object_object_add(x, "shape", jd(f->shape));
	json_object_object_add(x, "delay_seconds", jd(f->delay));
	json_object_object_add(x, "initial_bytes_per_second", jd(idle_fit_rate(f, f->delay)));
	double half = idle_fit_half_rate(f);
	json_object_object_add(x, "half_rate_seconds", isfinite(half) ? jd(half) : NULL);
	json_object_object_add(x, "worst_misfit", jd(f->worst));
	json_object_object_add(x, "text", json_object_new_string(idle_fit_describe(f, text, sizeof text)));
	json_object_object_add(c, "fit", x);
	return c;
}

static json_object *forecast_json(const BudgetForecast *f, int hour)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "hour", json_object_new_int(hour));
	json_object_object_add(o, "write_bytes_per_hour", jd(f->write_per_hour));
	json_object_object_add(o, "read_bytes_per_hour", jd(f->read_per_hour));
	json_object_object_add(o, "idle_seconds_per_hour", jd(f->idle_per_hour));
	json_object_object_add(o, "idle_runs_per_hour", jd(f->runs_per_hour));
	json_object_object_add(o, "need_seconds_per_hour", jd(f->need_per_hour));
	/* null: none at that load */
	json_object_object_add(o, "first_storm_seconds", jd(f->first_storm));
	json_object_object_add(o, "storm_interval_seconds", jd(f->storm_every));
	return o;
}

json_object *idle_budget_json(const IdleBudgetDay *d)
{
	if (!d->known)
		return NULL;
	json_object *o = json_object_new_object(), *hours = json_object_new_array();
	for (int h = 0; h < BUDGET_HOURS; h++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "hour", json_object_new_int(h));
		json_object_object_add(x, "need_seconds", jd(d->need[h]));
		json_object_object_add(x, "idle_seconds", jd(d->got[h]));
		json_object_object_add(x, "write_bytes", jd(d->write[h]));
		json_object_array_add(hours, x);
	}
	json_object_object_add(o, "hours", hours);
	json_object_object_add(o, "watched_hours", json_object_new_int((int)d->watched));
	json_object_object_add(o, "days", jd(d->days));
	json_object_object_add(o, "need_seconds_per_day", jd(d->need_day));
	json_object_object_add(o, "idle_seconds_per_day", jd(d->got_day));
	json_object_object_add(o, "short_hour", d->worst >= 0 ? json_object_new_int(d->worst) : NULL);
	json_object_object_add(o, "at", d->at_hour >= 0 ? forecast_json(&d->at, d->at_hour) : NULL);
	json_object *w = NULL;
	if (d->window >= 0) {
		w = json_object_new_object();
		json_object_object_add(w, "from_hour", json_object_new_int(d->window));
		json_object_object_add(w, "hours", json_object_new_int(BUDGET_WINDOW));
		json_object_object_add(w, "idle_seconds", jd(d->window_idle));
		json_object_object_add(w, "need_seconds", jd(d->window_need));
	}
	json_object_object_add(o, "window", w);
	char text[512];
	json_object_object_add(o, "forecast", json_object_new_string(idle_budget_forecast_text(d, text, sizeof text)));
	json_object_object_add(o, "advice", json_object_new_string(idle_budget_advice_text(d, text, sizeof text)));
	return o;
}

/* What follows a clean cache at the hour's load. */
static void storms_text(const BudgetForecast *f, char *buf, size_t n)
{
	char a[FORMAT_MAX], b[FORMAT_MAX];
	if (!isfinite(f->first_storm))
		snprintf(buf, n, "no storm expected at that load");
	else if (isfinite(f->storm_every))
		snprintf(buf, n, "a clean cache lasts ~%s at that load, then expect a storm every ~%s",
			 format_duration(a, f->first_storm), format_duration(b, f->storm_every));
	else if (!(f->runs_per_hour > 0))
		snprintf(buf, n, "a clean cache lasts ~%s at that load, then its writes stay slow (it never rests)",
			 format_duration(a, f->first_storm));
	else
		snprintf(buf, n, "a clean cache lasts ~%s at that load; its rests keep up after that storm",
			 format_duration(a, f->first_storm));
}

const char *idle_budget_forecast_text(const IdleBudgetDay *d, char *buf, size_t n)
{
	if (!n)
		return buf;
	buf[0] = 0;
	if (!d->known || d->at_hour < 0)
		return buf;
	const BudgetForecast *f = &d->at;
	char w[FORMAT_MAX], need[FORMAT_MAX], got[FORMAT_MAX], storms[200];
	storms_text(f, storms, sizeof storms);
	snprintf(buf, n, "%02d:00-%02d:00: %s/h of random writes need ~%s of idle an hour, it got %s: %s", d->at_hour,
		 (d->at_hour + 1) % BUDGET_HOURS, format_size(w, f->write_per_hour), format_duration(need, f->need_per_hour),
		 f->idle_per_hour > 0 ? format_duration(got, f->idle_per_hour) : "none", storms);
	return buf;
}

const char *idle_budget_advice_text(const IdleBudgetDay *d, char *buf, size_t n)
{
	if (!n)
		return buf;
	buf[0] = 0;
	if (!d->known || d->window < 0)
		return buf;
	char idle[FORMAT_MAX], spare[FORMAT_MAX];
	int from = d->window, to = (d->window + BUDGET_WINDOW) % BUDGET_HOURS;
	double left = d->got_day - d->need_day;
	format_duration(idle, d->window_idle);
	if (!(left > 0))
		snprintf(buf, n, "keep scrubs, backups and SMART long tests out of %02d:00-%02d:00, its best idle window "
			 "(%s of idle): it is short of idle for its writes as it is", from, to, idle);
	else
		snprintf(buf, n, "scrubs, backups and SMART long tests belong in %02d:00-%02d:00, its best idle window (%s "
			 "of idle), for up to ~%s a day: longer, they take rest its writes need", from, to, idle,
			 format_duration(spare, fmin(left, d->window_idle)));
	return buf;
}

#define SVG_W 504
#define SVG_H 120
#define SVG_X 40
#define SVG_COL 19

void idle_budget_svg(Buf *b, const IdleBudgetDay *d)
{
	/* the scale: the hour's whole at most, the day's largest figure at least */
	double top = 600;
	for (int h = 0; h < BUDGET_HOURS; h++) {
		if (isfinite(d->got[h]))
			top = fmax(top, d->got[h]);
		if (isfinite(d->need[h]))
			top = fmax(top, d->need[h]);
	}
	top = fmin(ceil(top / 600) * 600, HOUR);
	buf_printf(b, "<svg class=\"idle-day\" viewBox=\"0 -8 %u %u\" width=\"%u\" height=\"%u\" role=\"img\"><title>"
		      "idle got (bars) against idle needed (marks), by hour of the day</title>",
		   SVG_W, SVG_H + 28, SVG_W, SVG_H + 28);
	buf_printf(b, "<rect class=\"frame\" x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\"/>", SVG_X,
		   SVG_COL * BUDGET_HOURS, SVG_H);
	for (int k = 0; k <= 2; k++) {
		double y = SVG_H - k * SVG_H / 2.0;
		buf_printf(b, "<line class=\"grid\" x1=\"%u\" x2=\"%u\" y1=\"%.0f\" y2=\"%.0f\"/><text x=\"%u\" y=\"%.0f\" "
			      "text-anchor=\"end\">%.0f min</text>", SVG_X, SVG_X + SVG_COL * BUDGET_HOURS, y, y, SVG_X - 4,
			   y + 4, top * k / 2 / 60);
	}
	for (int h = 0; h < BUDGET_HOURS; h++) {
		double x = SVG_X + h * SVG_COL;
		if (h % 3 == 0)
			buf_printf(b, "<text x=\"%.0f\" y=\"%u\">%02d</text>", x + 2, SVG_H + 14, h);
		if (!isfinite(d->got[h]))
			continue;	/* not watched: empty */
		double got = fmin(d->got[h] / top, 1) * SVG_H, need = fmin(d->need[h] / top, 1) * SVG_H;
		bool lack = d->need[h] > d->got[h];
		buf_printf(b, "<rect class=\"bar\" x=\"%.0f\" y=\"%.1f\" width=\"%u\" height=\"%.1f\" style=\"fill:var(%s)\" "
			      "data-hour=\"%d\" data-got=\"%.0f\" data-need=\"%.0f\"><title>%02d:00 idle %.1f min, needs "
			      "%.1f min</title></rect>", x + 1, SVG_H - got, SVG_COL - 2, got, lack ? "--warn" : "--ok", h,
			   d->got[h], d->need[h], h, d->got[h] / 60, d->need[h] / 60);
		buf_printf(b, "<rect class=\"need\" x=\"%.0f\" y=\"%.1f\" width=\"%u\" height=\"2\" style=\"fill:var(--fg)\"/>",
			   x, SVG_H - need - 1, SVG_COL);
	}
	buf_put(b, "</svg>", 6);
}
