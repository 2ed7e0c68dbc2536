/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-report.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "idle-out.h"
#include "output.h"
#include "protocol.h"
#include "qualify-text.h"
#include "util.h"

static json_object *jd(double v) { return json_number(v, 6); }

json_object *report_hist(const Hist *h)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "count", json_object_new_int64((int64_t)h->count));
	json_object_object_add(o, "p50", jd(hist_quantile(h, 0.5)));
	json_object_object_add(o, "p90", jd(hist_quantile(h, 0.9)));
	json_object_object_add(o, "p99", jd(hist_quantile(h, 0.99)));
	json_object_object_add(o, "max", jd(hist_max(h)));
	Band b[BANDS_MAX];
	unsigned n = verdict_bands(h, b);
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "centre", jd(b[i].centre));
		json_object_object_add(x, "share", jd(b[i].share));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "bands", a);
	return o;
}

json_object *report_seconds(const Phase *p)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < p->n_sec; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "t", jd(p->sec[i].t));
		json_object_object_add(x, "iops", jd(p->sec[i].iops));
		json_object_object_add(x, "latency_mean", jd(p->sec[i].lat_mean));
		json_object_object_add(x, "latency_max", jd(p->sec[i].lat_max));
		json_object_array_add(a, x);
	}
	return a;
}

json_object *report_write_phase(const Phase *p, const CliffResult *c)
{
	json_object *w = json_object_new_object();
	json_object_object_add(w, "duration", jd(p->duration));
	json_object_object_add(w, "bytes", json_object_new_int64((int64_t)p->bytes));
	json_object_object_add(w, "ios", json_object_new_int64((int64_t)p->n));
	json_object_object_add(w, "block_size", json_object_new_int64((int64_t)p->io_bytes));
	json_object_object_add(w, "stopped_by", json_object_new_string(p->stopped ? p->stopped : "?"));
	json_object *x = json_object_new_object();
	json_object_object_add(x, "found", json_object_new_boolean(c->found));
	json_object_object_add(x, "rate_fell", json_object_new_boolean(c->fell));
	json_object_object_add(x, "at", c->fell ? jd(c->cliff_t) : NULL);
	json_object_object_add(x, "fast_iops", jd(c->fast_iops));
	json_object_object_add(x, "fast_latency", jd(c->fast_lat));
	json_object_object_add(x, "fast_bytes", json_object_new_int64((int64_t)(c->fast_ios * p->io_bytes)));
	json_object_object_add(x, "slow_iops", c->fell ? jd(c->slow_iops) : NULL);
	json_object_object_add(x, "slow_latency", c->fell ? jd(c->slow_lat) : NULL);
	json_object_object_add(x, "waits", json_object_new_int64((int64_t)c->stalls));
	json_object_object_add(x, "wait_floor", jd(c->stall_floor));
	json_object_object_add(x, "pause_floor", jd(c->pause_floor));
	json_object_object_add(x, "slowest_after", c->fell ? jd(c->slowest) : NULL);
	json_object_object_add(w, "cliff", x);
	json_object_object_add(w, "latency", report_hist(&p->hist));
	json_object_object_add(w, "per_second", report_seconds(p));
	return w;
}

json_object *report_seq_phase(const Phase *p)
{
	json_object *x = report_hist(&p->hist);
	json_object_object_add(x, "duration", jd(p->duration));
	json_object_object_add(x, "block_size", json_object_new_int64((int64_t)p->io_bytes));
	json_object_object_add(x, "bytes", json_object_new_int64((int64_t)p->bytes));
	json_object_object_add(x, "bytes_per_second", jd(p->duration > 0 ? (double)p->bytes / p->duration : 0));
	json_object_object_add(x, "per_second", report_seconds(p));
	return x;
}

json_object *report_read_phase(const Phase *p)
{
	json_object *x = report_hist(&p->hist);
	json_object_object_add(x, "duration", jd(p->duration));
	json_object_object_add(x, "iops", jd(p->duration > 0 ? (double)p->n / p->duration : 0));
	json_object_object_add(x, "per_second", report_seconds(p));
	return x;
}

json_object *report_verdict(const QualifyVerdict *v)
{
	json_object *o = json_object_new_object(), *limits = json_object_new_array();
	for (unsigned i = 0; i < v->n_limits; i++)
		json_object_array_add(limits, json_object_new_string(v->limits[i]));
	json_object_object_add(o, "smr_like", json_object_new_boolean(v->smr_like));
	json_object_object_add(o, "text", json_object_new_string(v->text));
	json_object_object_add(o, "limits", limits);
	return o;
}

int report_create(const char *path, FILE **ret)
{
	/* O_EXCL with O_CREAT refuses any existing name, a symbolic link
	 * (dangling or not) included */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int r = -errno;
		close(fd);
		unlink(path);
		return r;
	}
	*ret = f;
	return 0;
}

void report_safe_name(const char *from, char *ret, size_t n)
{
	size_t k = 0;
	for (const char *c = from; *c && k + 1 < n && k < 64; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
			  *c == '_' || (*c == '.' && k > 0 && ret[k - 1] != '.');
		ret[k++] = ok ? *c : '_';
	}
	ret[k] = 0;
	if (!k)
		snprintf(ret, n, "disk");
}

/* Two panels over time: IOPS (log) and mean latency (log). */
static void svg_text(FILE *f, const char *s)
{
	for (const char *c = s; *c; c++)
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : *c == '>' ? "&gt;" : (char[2]){*c, 0}, f);
}

#define SVG_W 900.0
#define SVG_L 70.0
#define SVG_R 20.0
#define PANEL_H 200.0
#define WRAP_CHARS 118		/* 12 px sans-serif: a line within 900 px */
#define WRAP_MONO 110		/* 11 px monospace */
#define MAX_LINES 24

/* s cut at spaces into lines of at most `width` characters */
static unsigned wrap(const char *s, size_t width, char lines[][QUALIFY_LINE], unsigned n, unsigned max)
{
	while (*s && n < max) {
		size_t len = strlen(s), k = len <= width ? len : width;
		if (k < len) {
			size_t sp = k;
			while (sp > width / 2 && s[sp] != ' ')
				sp--;
			if (s[sp] == ' ')
				k = sp;
		}
		snprintf(lines[n++], QUALIFY_LINE, "%.*s", (int)(k < QUALIFY_LINE - 1 ? k : QUALIFY_LINE - 1), s);
		s += k;
		while (*s == ' ')
			s++;
	}
	return n;
}

/* The seconds of a phase the plot draws: not a last one that ran a
 * fraction of a second. */
static size_t plotted(const Phase *p)
{
	size_t n = p->n_sec;
	if (n && p->sec[n - 1].t - (n > 1 ? p->sec[n - 2].t : 0) < 0.5)
		n--;
	return n;
}

/* 1, 2 or 5 times a power of ten: about six ticks over span */
static double tick_step(double span)
{
	double raw = span / 6, p = pow(10, floor(log10(raw)));
	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

typedef struct Axis {
	double start[REPORT_PHASES];	/* each phase's start on the run's clock */
	double span;
	double imax, lmax;
} Axis;

static void axis_of(const ReportPlot *p, Axis *a)
{
	double at = 0;
	a->imax = 1;
	a->lmax = 1e-3;
	for (unsigned i = 0; i < p->n; i++) {
		const Phase *ph = p->phase[i];
		at += p->rest_before[i];
		a->start[i] = at;
		size_t n = plotted(ph);
		double end = n ? ph->sec[n - 1].t : 0;
		at += fmax(ph->duration, end);
		for (size_t k = 0; k < n; k++) {
			a->imax = fmax(a->imax, ph->sec[k].iops);
			if (isfinite(ph->sec[k].lat_mean) && ph->sec[k].lat_mean > 0)
				a->lmax = fmax(a->lmax, ph->sec[k].lat_mean);
		}
	}
	a->span = fmax(at, 1);
}

static double x_of(const Axis *a, double t) { return SVG_L + t / a->span * (SVG_W - SVG_L - SVG_R); }

/* Labels that never overlap: short phases and rests close together (the
 * refills after rests of 1, 2, 4 s) would write over each other. Each label
 * takes the first of a few lanes (rows) where it starts clear of the last
 * one there, at a width estimated from its length (11 px sans-serif, 6 px a
 * character: above what lower case and digits take), kept within the plot;
 * where none is clear, it is left out (a rest keeps its figure if that
 * fits). Drawn after every phase's span, so that none covers a label. */
#define LANES 3
#define LANE_H 13.0
#define CHAR_W 6.0

typedef struct Lanes {
	double right[LANES];		/* where the last label of each lane ends */
} Lanes;

static int lane(Lanes *l, double x0, double x1)
{
	for (int k = 0; k < LANES; k++)
		if (x0 >= l->right[k] + 4) {
			l->right[k] = x1;
			return k;
		}
	return -1;
}

/* A label starting at x (or ending there: end), in the first clear lane
 * from y going by dy; false when none is clear. */
static bool label(FILE *f, Lanes *l, double x, bool end, double y, double dy, const char *attrs, const char *text)
{
	double w = CHAR_W * (double)strlen(text);
	if (!end && x + w > SVG_W - SVG_R)
		x = fmax(SVG_W - SVG_R - w, SVG_L);
	int k = lane(l, end ? x - w : x, end ? x : x + w);
	if (k < 0)
		return false;
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\"%s%s>", x, y + k * dy, attrs,
		end ? " text-anchor=\"end\"" : "");
	svg_text(f, text);
	fprintf(f, "</text>\n");
	return true;
}

/* The phases as shaded spans named at the top, the rests as gaps named in
 * grey at the bottom, the cliff as a red line: drawn in both panels, named
 * in the first. */
static void svg_phases(FILE *f, const ReportPlot *p, const Axis *a, double y0, double ph, bool names)
{
	Lanes top = {{-1e9, -1e9, -1e9}}, bottom = {{-1e9, -1e9, -1e9}};
	double cliff = p->n && isfinite(p->cliff_t) ? x_of(a, a->start[0] + p->cliff_t) : NAN;
	char t[64];
	for (unsigned i = 0; i < p->n; i++) {
		double x0 = x_of(a, a->start[i]), end = a->start[i] + fmax(p->phase[i]->duration, 0);
		fprintf(f, "<rect class=\"phase\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>\n", x0, y0,
			fmax(x_of(a, end) - x0, 1), ph, i % 2 ? "#f4f6f8" : "#eaf1f8");
	}
	for (unsigned i = 0; names && i < p->n; i++) {
		double x0 = x_of(a, a->start[i]);
		const Phase *q = p->phase[i];
		/* the write phase's name in the report is "write" */
		label(f, &top, x0 + 3, false, y0 + 12, LANE_H, " class=\"phase-name\"",
		      q->write && !q->sequential && q->name && streq(q->name, "write") ? "random writes" : q->name ? q->name : "");
		if (i == 0 && isfinite(cliff)) {
			snprintf(t, sizeof t, "cliff at %.0f s", p->cliff_t);
			label(f, &top, cliff + 3, false, y0 + 12, LANE_H, " class=\"cliff-name\" fill=\"#c0392b\"", t);
		}
		if (p->rest_before[i] >= 1) {
			snprintf(t, sizeof t, "rest %.0f s", p->rest_before[i]);
			if (!label(f, &bottom, x0 - 2, true, y0 + ph - 4, -LANE_H, " class=\"rest\" fill=\"#888\"", t))
				label(f, &bottom, x0 - 2, true, y0 + ph - 4, -LANE_H, " class=\"rest\" fill=\"#888\"", t + 5);
		}
	}
	if (isfinite(cliff))
		fprintf(f, "<line class=\"cliff\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#c0392b\" "
			   "stroke-dasharray=\"4 3\"/>\n", cliff, cliff, y0, y0 + ph);
}

static void svg_panel(FILE *f, const ReportPlot *p, const Axis *a, int panel, double y0)
{
	double ph = PANEL_H - 30, lo = panel ? log10(1e-5) : 0, hi = panel ? log10(a->lmax * 2) : log10(a->imax * 2);
	svg_phases(f, p, a, y0, ph, panel == 0);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n", SVG_L, y0,
		SVG_W - SVG_L - SVG_R, ph);
	for (double d = floor(lo); d <= hi; d++) {
		double y = y0 + ph - (d - lo) / (hi - lo) * ph;
		if (y < y0 || y > y0 + ph)
			continue;
		char lab[32];
		if (panel)
			output_seconds(pow(10, d), lab, sizeof lab);
		else
			format_number(lab, pow(10, d), 0);
		fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", SVG_L, SVG_W - SVG_R, y, y, SVG_L - 4, y + 4, lab);
	}
	fprintf(f, "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">%s</text>\n",
		y0 + ph / 2, y0 + ph / 2, panel ? "mean latency" : "IOPS");
	for (unsigned i = 0; i < p->n; i++) {
		const Phase *q = p->phase[i];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", panel ? "#c0392b" : "#2471a3");
		for (size_t k = 0, n = plotted(q); k < n; k++) {
			double v = panel ? q->sec[k].lat_mean : q->sec[k].iops;
			if (!isfinite(v) || v <= 0)
				continue;
			double y = y0 + ph - (log10(v) - lo) / (hi - lo) * ph;
			fprintf(f, "%.1f,%.1f ", x_of(a, a->start[i] + q->sec[k].t), fmin(fmax(y, y0), y0 + ph));
		}
		fprintf(f, "\"/>\n");
	}
	/* the time axis: a label at each tick, along it */
	double step = tick_step(a->span);
	for (double s = 0; s <= a->span + step / 1000; s += step) {
		char lab[FORMAT_MAX];
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>"
			   "<text class=\"x\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			x_of(a, s), x_of(a, s), y0 + ph, y0 + ph + 4, x_of(a, s), y0 + ph + 16, s > 0 ? format_duration(lab, s) : "0 s");
	}
}

static double svg_lines(FILE *f, char lines[][QUALIFY_LINE], unsigned n, double y, const char *attrs)
{
	for (unsigned i = 0; i < n; i++, y += 16) {
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\"%s>", SVG_L, y, attrs);
		svg_text(f, lines[i]);
		fprintf(f, "</text>\n");
	}
	return y;
}

int report_svg(FILE *f, const ReportPlot *p)
{
	char head[MAX_LINES][QUALIFY_LINE], legend[MAX_LINES][QUALIFY_LINE], model[QUALIFY_MODEL_LINES][QUALIFY_LINE], who[QUALIFY_LINE * 2];
	snprintf(who, sizeof who, "serial %s · %s", p->serial && *p->serial ? p->serial : "unknown",
		 p->date && *p->date ? p->date : "date unknown");
	unsigned nh = wrap(who, WRAP_CHARS, head, 0, MAX_LINES);
	nh = wrap(p->verdict && *p->verdict ? p->verdict : "no verdict", WRAP_CHARS, head, nh, MAX_LINES);
	unsigned nm = p->model ? qualify_text_model_lines(p->model, model, QUALIFY_MODEL_LINES) : 0, nl = 0;
	for (unsigned i = 0; i < nm; i++)
		nl = wrap(model[i], WRAP_MONO, legend, nl, MAX_LINES);
	Axis a;
	axis_of(p, &a);
	double top = 30 + 16.0 * nh + 8, height = top + 2 * PANEL_H + (nl ? 16.0 * nl + 24 : 0) + 10;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", SVG_W, height);
	fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", SVG_L);
	svg_text(f, p->title ? p->title : "");
	fprintf(f, "</text>\n");
	svg_lines(f, head, 1, 36, " class=\"who\"");
	svg_lines(f, head + 1, nh - 1, 52, " class=\"verdict\"");
	for (int panel = 0; panel < 2; panel++)
		svg_panel(f, p, &a, panel, top + panel * PANEL_H);
	if (nl) {
		double y = top + 2 * PANEL_H + 8;
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">disk model</text>\n", SVG_L, y);
		svg_lines(f, legend, nl, y + 16, " class=\"model\" font-family=\"monospace\" font-size=\"11\"");
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -errno;
}

json_object *report_refill(const Phase *p, const Refill *f)
{
	json_object *x = json_object_new_object();
	json_object_object_add(x, "rest_seconds", jd(f->rest));
	json_object_object_add(x, "bytes_before_wait", json_object_new_int64((int64_t)f->bytes));
	json_object_object_add(x, "waited", json_object_new_boolean(f->waited));
	json_object_object_add(x, "duration", jd(p->duration));
	json_object_object_add(x, "bytes", json_object_new_int64((int64_t)p->bytes));
	json_object_object_add(x, "stopped_by", json_object_new_string(p->stopped ? p->stopped : "?"));
	return x;
}

static void figure(json_object *o, const char *key, double v, double err, const char *method)
{
	if (!isfinite(v))
		return;	/* absent, not zero: not measured */
	json_object *x = json_object_new_object();
	json_object_object_add(x, "value", jd(v));
	json_object_object_add(x, "uncertainty", isfinite(err) ? jd(err) : NULL);
	json_object_object_add(x, "method", json_object_new_string(method));
	json_object_object_add(o, key, x);
}

/* The points, each with its uncertainty, and the fitted form. */
json_object *report_model(const QualifyModel *q)
{
	const DiskModel *m = &q->m;
	json_object *o = json_object_new_object(), *skipped = json_object_new_array();
	figure(o, "media_cache_bytes", m->media_cache_bytes, q->cache_err,
	       "bytes of random writes submitted before the first write that waited, from the start of the run");
	figure(o, "slow_write_bytes_per_second", m->slow_write_bps, q->slow_err,
	       "bytes of random writes a second from the cliff to the last write that waited");
	figure(o, "rewrite_seconds", m->rewrite_seconds, q->rewrite_err,
	       "median gap in the completions after the cliff, over gaps of 10 fast writes' time or more");
	figure(o, "idle_recovery_bytes_per_second", m->idle_recovery_bps, q->recovery_err,
	       q->recovery_lower_bound ? "the longest rest cleaned it all: at least the bytes taken after it, a second of it"
					: "bytes taken before the first wait after the longest rest (begun where writes wait), a "
					  "second of it");
	if (isfinite(m->idle_recovery_bps)) {
		json_object_object_add(o, "idle_recovery_lower_bound", json_object_new_boolean(q->recovery_lower_bound));
		json_object_object_add(o, "idle_recovery_rest_seconds", jd(m->recovery_rest));
		json_object_object_add(o, "idle_recovery_curve", idle_curve_json(q->curve, q->n_curve, &q->m.curve));
	}
	if (isfinite(m->rewrite_seconds))
		json_object_object_add(o, "rewrites", json_object_new_int((int)q->rewrites));
	if (isfinite(q->fast_bps))
		json_object_object_add(o, "fast_write_bytes_per_second", jd(q->fast_bps));
	double t_slow = disk_model_write_seconds(m, RESILVER_BYTES, q->fast_bps);
	if (isfinite(t_slow)) {
		json_object_object_add(o, "rewrite_1tb_seconds", jd(t_slow));
		json_object_object_add(o, "rewrite_1tb_fast_seconds", jd(RESILVER_BYTES / q->fast_bps));
	}
	/* a rebuild's writes: large and in order, past the cache */
	if (isfinite(q->seq_bps) && q->seq_bps > 0) {
		json_object_object_add(o, "rebuild_bytes_per_second", jd(q->seq_bps));
		json_object_object_add(o, "rebuild_1tb_seconds", jd(RESILVER_BYTES / q->seq_bps));
	}
	for (unsigned i = 0; i < q->n_skipped; i++)
		json_object_array_add(skipped, json_object_new_string(q->skipped[i]));
	json_object_object_add(o, "skipped", skipped);
	return o;
}
