/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-report.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <math.h>
#include <stdlib.h>

#include "format.h"
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
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){*c, 0}, f);
}

int report_svg(FILE *f, const Phase *p, const char *title, json_object *model)
{
	const double W = 900, H = 260, L = 70, R = 20, T = 30, B = 30;
	char lines[8][QUALIFY_LINE];
	unsigned nl = model ? qualify_text_model_lines(model, lines, 8) : 0;
	double tmax = 1, imax = 1, lmin = 1e-5, lmax = 1e-3;
	for (size_t i = 0; i < p->n_sec; i++) {
		tmax = fmax(tmax, p->sec[i].t);
		imax = fmax(imax, p->sec[i].iops);
		if (isfinite(p->sec[i].lat_mean) && p->sec[i].lat_mean > 0)
			lmax = fmax(lmax, p->sec[i].lat_mean);
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W,
		2 * H + 20 + (nl ? 16.0 * nl + 24 : 0));
	fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">", L);
	svg_text(f, title);
	fprintf(f, "</text>\n");
	if (nl)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">disk model</text>\n", L, 2 * H + 36);
	for (unsigned i = 0; i < nl; i++) {
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-family=\"monospace\">", L, 2 * H + 52 + 16.0 * i);
		svg_text(f, lines[i]);
		fprintf(f, "</text>\n");
	}
	for (int panel = 0; panel < 2; panel++) {
		double y0 = T + panel * (H + 10), ph = H - T - B, lo = panel ? log10(lmin) : 0, hi = panel ? log10(lmax * 2) : log10(imax * 2);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n", L, y0,
			W - L - R, ph);
		for (double d = floor(lo); d <= hi; d++) {
			double y = y0 + ph - (d - lo) / (hi - lo) * ph;
			if (y < y0 || y > y0 + ph)
				continue;
			char lab[32];
			if (panel)
				output_seconds(pow(10, d), lab, sizeof lab);
			else
				snprintf(lab, sizeof lab, "%g", pow(10, d));
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
				   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, W - R, y, y, L - 4, y + 4, lab);
		}
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">%s</text>\n",
			14.0, y0 + ph / 2, y0 + ph / 2, panel ? "mean latency" : "IOPS");
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", panel ? "#c0392b" : "#2471a3");
		for (size_t i = 0; i < p->n_sec; i++) {
			double v = panel ? p->sec[i].lat_mean : p->sec[i].iops;
			if (!isfinite(v) || v <= 0)
				continue;
			double y = y0 + ph - (log10(v) - lo) / (hi - lo) * ph;
			fprintf(f, "%.1f,%.1f ", L + p->sec[i].t / tmax * (W - L - R), fmin(fmax(y, y0), y0 + ph));
		}
		fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.0f s</text>\n", W - R, y0 + ph + 16, tmax);
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
	       q->recovery_lower_bound ? "a rest cleaned it all: at least the bytes taken before the first wait a second of rest"
					: "bytes taken before the first wait after the longer rest, less after the shorter, a second of "
					  "the difference");
	if (isfinite(m->idle_recovery_bps))
		json_object_object_add(o, "idle_recovery_lower_bound", json_object_new_boolean(q->recovery_lower_bound));
	if (isfinite(m->rewrite_seconds))
		json_object_object_add(o, "rewrites", json_object_new_int((int)q->rewrites));
	if (isfinite(q->fast_bps))
		json_object_object_add(o, "fast_write_bytes_per_second", jd(q->fast_bps));
	double t_slow = disk_model_write_seconds(m, RESILVER_BYTES, q->fast_bps);
	if (isfinite(t_slow)) {
		json_object_object_add(o, "rewrite_1tb_seconds", jd(t_slow));
		json_object_object_add(o, "rewrite_1tb_fast_seconds", jd(RESILVER_BYTES / q->fast_bps));
	}
	for (unsigned i = 0; i < q->n_skipped; i++)
		json_object_array_add(skipped, json_object_new_string(q->skipped[i]));
	json_object_object_add(o, "skipped", skipped);
	return o;
}
