/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "statuspage.h"

#include <inttypes.h>
#include <math.h>

#include "format.h"

void url_escape(Buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
			     *p == '.' || *p == '_' || *p == '~';
		if (plain)
			buf_put(b, (const char *)p, 1);
		else
			buf_printf(b, "%%%02X", *p);
	}
}

void html_escape(Buf *b, const char *s)
{
	for (const char *p = s; p && *p;) {
		size_t run = strcspn(p, "&<>\"'\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14"
					"\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f");
		buf_put(b, p, run);
		p += run;
		if (!*p)
			break;
		switch (*p) {
		case '&': buf_put(b, "&amp;", 5); break;
		case '<': buf_put(b, "&lt;", 4); break;
		case '>': buf_put(b, "&gt;", 4); break;
		case '"': buf_put(b, "&quot;", 6); break;
		case '\'': buf_put(b, "&#39;", 5); break;
		default: break;		/* a control character: dropped */
		}
		p++;
	}
}

#define PLOT_X 52		/* left margin: the latency axis */
#define PLOT_W 600
#define ROW_H 5
#define ROWS (HEATMAP_DECADES * HEATMAP_DECADE_ROWS)
#define PLOT_H (ROWS * ROW_H)
#define TOP 8		/* room for the top label */

static void num(Buf *b, double v, int decimals)
{
	char s[32];
	format_number(s, v, decimals);
	buf_put(b, s, strlen(s));
}

static void time_axis(Buf *b, double span, unsigned y)
{
	/* ticks before now, at the bottom: every 2 min, 1 min or 10 s */
	double step = span > 360 ? 120 : span > 120 ? 60 : 10;
	for (double t = 0; t <= span + 0.5; t += step) {
		double x = PLOT_X + PLOT_W - (t / span) * PLOT_W;
		if (t == 0)
			buf_printf(b, "<text x=\"%.0f\" y=\"%u\" text-anchor=\"end\">now</text>", x, y);
		else if (step >= 60)
			buf_printf(b, "<text x=\"%.0f\" y=\"%u\" text-anchor=\"middle\">-%.0f min</text>", x, y, t / 60);
		else
			buf_printf(b, "<text x=\"%.0f\" y=\"%u\" text-anchor=\"middle\">-%.0f s</text>", x, y, t);
	}
}

void heatmap_svg(Buf *b, const char *op, const HeatColumn *cols, unsigned n, double slot_seconds)
{
	double span = n * slot_seconds;
	buf_printf(b, "<svg class=\"heatmap\" data-op=\"");
	html_escape(b, op);
	buf_printf(b, "\" viewBox=\"0 -%u %u %u\" width=\"%u\" height=\"%u\" role=\"img\">", TOP, PLOT_X + PLOT_W + 8,
		   PLOT_H + 24 + TOP, PLOT_X + PLOT_W + 8, PLOT_H + 24 + TOP);
	buf_printf(b, "<title>%s latency over the last %.0f seconds</title>", streq(op, "read") ? "read" : "write", span);
	buf_printf(b, "<rect class=\"frame\" x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\"/>", PLOT_X, PLOT_W, PLOT_H);
	for (unsigned d = 0; d <= HEATMAP_DECADES; d++) {
		unsigned y = PLOT_H - d * HEATMAP_DECADE_ROWS * ROW_H;
		buf_printf(b, "<line class=\"grid\" x1=\"%u\" x2=\"%u\" y1=\"%u\" y2=\"%u\"/>", PLOT_X, PLOT_X + PLOT_W, y, y);
		char lab[FORMAT_MAX];	/* as every latency on the page reads: "100 us", "1 ms" */
		buf_printf(b, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%s</text>", PLOT_X - 4, y + 4,
			   format_duration(lab, HEATMAP_MIN_SECONDS * pow(10, d)));
	}
	double colw = n ? (double)PLOT_W / n : PLOT_W;
	for (unsigned c = 0; c < n; c++) {
		uint64_t row[ROWS] = {0}, max = 0;
		const Hist *h = &cols[c].h;
		if (!h->count)
			continue;
		for (unsigned k = 0; k < HIST_BUCKETS; k++) {
			if (!h->bucket[k])
				continue;
			double lo, hi;
			hist_bucket_bounds(k, &lo, &hi);
			double mid = isfinite(hi) ? sqrt(fmax(lo, 1e-9) * hi) : lo * 2;
			int r = (int)floor(log10(mid / HEATMAP_MIN_SECONDS) * HEATMAP_DECADE_ROWS);
			r = r < 0 ? 0 : r >= ROWS ? ROWS - 1 : r;
			row[r] += h->bucket[k];
		}
		for (unsigned r = 0; r < ROWS; r++)
			max = row[r] > max ? row[r] : max;
		double age = (n - 1 - c) * slot_seconds;
		buf_printf(b, "<g data-age=\"%.0f\">", age);
		for (unsigned r = 0; r < ROWS; r++) {
			if (!row[r])
				continue;
			double shade = 0.15 + 0.85 * log1p((double)row[r]) / log1p((double)max);
			buf_printf(b, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\" fill-opacity=\"", PLOT_X + c * colw,
				   PLOT_H - (r + 1) * ROW_H, colw, ROW_H);
			num(b, shade, 2);
			buf_put(b, "\" data-lo=\"", 11);
			num(b, HEATMAP_MIN_SECONDS * pow(10, (double)r / HEATMAP_DECADE_ROWS), 6);
			buf_printf(b, "\" data-n=\"%" PRIu64 "\"/>", row[r]);
		}
		buf_put(b, "</g>", 4);
	}
	time_axis(b, span, PLOT_H + 16);
	buf_put(b, "</svg>", 6);
}

#define RATE_H 90
#define RATE_DECADES 6		/* 0.1/s to 100k/s */

void rate_svg(Buf *b, const char *op, const HeatColumn *cols, unsigned n, double slot_seconds)
{
	double span = n * slot_seconds, colw = n ? (double)PLOT_W / n : PLOT_W;
	buf_puts(b, "<svg class=\"rate\" data-op=\"");
	html_escape(b, op);
	buf_printf(b, "\" viewBox=\"0 -%u %u %u\" width=\"%u\" height=\"%u\" role=\"img\">", TOP, PLOT_X + PLOT_W + 8,
		   RATE_H + 24 + TOP, PLOT_X + PLOT_W + 8, RATE_H + 24 + TOP);
	buf_puts(b, "<title>");
	html_escape(b, op);
	buf_printf(b, "s per second over the last %.0f seconds</title>", span);
	buf_printf(b, "<rect class=\"frame\" x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\"/>", PLOT_X, PLOT_W, RATE_H);
	static const char *const label[RATE_DECADES + 1] = {"0.1/s", "1/s", "10/s", "100/s", "1k/s", "10k/s", "100k/s"};
	for (unsigned d = 0; d <= RATE_DECADES; d += 2) {
		unsigned y = RATE_H - d * RATE_H / RATE_DECADES;
		buf_printf(b, "<line class=\"grid\" x1=\"%u\" x2=\"%u\" y1=\"%u\" y2=\"%u\"/>", PLOT_X, PLOT_X + PLOT_W, y, y);
		buf_printf(b, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%s</text>", PLOT_X - 4, y + 4, label[d]);
	}
	/* one bar a column, on a log scale: 2000/s falling to 2/s is the
	 * clearest picture of a storm there is */
	for (unsigned c = 0; c < n; c++) {
		if (!(cols[c].seconds > 0))
			continue;
		double rate = (double)cols[c].h.count / cols[c].seconds, age = (n - 1 - c) * slot_seconds;
		double f = rate > 0 ? fmin(fmax((log10(rate) + 1) / RATE_DECADES, 0.01), 1) : 0;
		buf_printf(b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" data-age=\"%.0f\" "
			      "data-rate=\"", PLOT_X + c * colw, RATE_H * (1 - f), fmax(colw - 1, 1), RATE_H * f, age);
		num(b, rate, 1);
		buf_puts(b, "\"><title>");
		num(b, rate, 1);
		buf_printf(b, "/s, %.0f s ago</title></rect>", age);
	}
	time_axis(b, span, RATE_H + 16);
	buf_put(b, "</svg>", 6);
}

void timeline_svg(Buf *b, const TimelineMark *marks, unsigned n, double span)
{
	const unsigned h = 22;
	buf_printf(b, "<svg class=\"timeline\" viewBox=\"0 0 %u %u\" width=\"%u\" height=\"%u\" role=\"img\">",
		   PLOT_X + PLOT_W + 8, h + 16, PLOT_X + PLOT_W + 8, h + 16);
	buf_printf(b, "<rect class=\"frame\" x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\"/>", PLOT_X, PLOT_W, h);
	for (unsigned i = 0; i < n; i++) {
		const TimelineMark *m = &marks[i];
		double s = fmin(m->start, span), e = fmax(m->end, 0);
		if (e > span || s < 0)
			continue;
		double x0 = PLOT_X + PLOT_W - s / span * PLOT_W, x1 = PLOT_X + PLOT_W - e / span * PLOT_W;
		double w = fmax(x1 - x0, 2);
		buf_printf(b, "<rect class=\"mark %s\" x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\"><title>",
			   m->kind, x0, streq(m->kind, "stall") ? 2 : 6, w, streq(m->kind, "stall") ? h - 4 : h - 12);
		html_escape(b, m->label);
		buf_put(b, "</title></rect>", 15);
	}
	time_axis(b, span, h + 13);
	buf_put(b, "</svg>", 6);
}

const char status_css[] =
	":root{--bg:#fff;--fg:#1d1f21;--mute:#6a6f75;--line:#d8dadd;--heat:#1f5fbf;--bad:#c62828;--warn:#b26a00;"
	"--ok:#2e7d32;--row:#f4f5f7}"
	"@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e4e6e8;--mute:#9aa0a6;--line:#34383d;"
	"--heat:#6ea8ff;--bad:#ff6b6b;--warn:#ffb74d;--ok:#81c784;--row:#1f2226}}"
	"body{background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,sans-serif;margin:1.2em}"
	"a{color:var(--heat)}h1,h2{font-weight:600}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.4em}"
	"table{border-collapse:collapse}th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;"
	"white-space:nowrap}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}tbody tr:nth-child(even){"
	"background:var(--row)}th a{color:var(--fg);text-decoration:none}.mute,footer{color:var(--mute)}"
	".bad{color:var(--bad);font-weight:600}.warn{color:var(--warn)}.ok{color:var(--ok)}"
	"svg text{fill:var(--mute);font-size:10px}svg .frame{fill:none;stroke:var(--line)}svg .grid{stroke:var(--line);"
	"stroke-dasharray:2 3}.heatmap rect:not(.frame){fill:var(--heat)}.mark.storm{fill:var(--bad)}"
	".mark.idle-cleaning{fill:var(--warn)}.rate .bar{fill:var(--heat)}.mark.stall{fill:var(--fg)}td.why{white-space:normal;min-width:14em;max-width:28em}"
	".wide{overflow-x:auto}main.doc{max-width:50em}.doc pre{overflow-x:auto;background:var(--row);padding:.5em}"
	".doc td{white-space:normal}.doc a.anchor{color:var(--mute);text-decoration:none;font-weight:400}"
	"svg{max-width:100%;height:auto}time{white-space:nowrap}.rebuild{white-space:normal}"
	/* what to do: in the text's own colour, a bar of the severity's beside it */
	"#todo ul{padding:0;list-style:none}#todo li,p#todo{margin:.4em 0;max-width:60em;padding-left:.6em;color:var(--fg);"
	"font-weight:400;border-left:4px solid var(--warn)}#todo li.bad,p#todo.bad{border-color:var(--bad)}"
	/* The list at 1400 px: long headers, models and the evidence wrap so
	 * that latency and throughput stay on screen; a number never wraps. */
	"#disks th.n{white-space:normal;min-width:3.5em}#disks td.model{white-space:normal;min-width:7em}"
	"#disks td.why{min-width:8em;max-width:14em}#disks td.storm{min-width:9em;white-space:normal}"
	/* the cache meter's colour is the disk's severity (page_cache_meter) */
	"meter{appearance:none;width:5em;height:.8em;background:var(--row);border:1px solid var(--line)}"
	"meter::-webkit-meter-bar{background:var(--row);border:0}"
	"meter.ok::-webkit-meter-optimum-value,meter.ok::-webkit-meter-suboptimum-value,"
	"meter.ok::-webkit-meter-even-less-good-value{background:var(--ok)}meter.ok::-moz-meter-bar{background:var(--ok)}"
	"meter.warn::-webkit-meter-optimum-value,meter.warn::-webkit-meter-suboptimum-value,"
	"meter.warn::-webkit-meter-even-less-good-value{background:var(--warn)}meter.warn::-moz-meter-bar{background:var(--warn)}"
	"meter.bad::-webkit-meter-optimum-value,meter.bad::-webkit-meter-suboptimum-value,"
	"meter.bad::-webkit-meter-even-less-good-value{background:var(--bad)}meter.bad::-moz-meter-bar{background:var(--bad)}"
	/* A phone: the plots scale, cells wrap between words (never inside a
	 * word or a number: a table wider than the screen scrolls in its
	 * .wide box), and the list keeps device, state (a storm, a rebuild's
	 * progress and time left), class, SMR, GC score, stalls and write
	 * latency (columns[] in daemon/views/pages.c: model and serial, pool,
	 * evidence, cache, read and throughput go); 37-status-page measures it
	 * at 400 px. */
	"@media (max-width:640px){body{margin:.5em}th,td{white-space:normal;padding:3px 4px}td.n,th.n{white-space:nowrap}"
	"td.why{min-width:10em}#disks td.storm{min-width:7em}"
	"#disks th:nth-child(3),#disks td:nth-child(3),#disks th:nth-child(4),#disks td:nth-child(4),#disks th:nth-child(7),#disks td:nth-child(7),#disks th:nth-child(9),#disks td:nth-child(9),#disks th:nth-child(11),#disks td:nth-child(11),#disks th:nth-child(13),#disks td:nth-child(13){display:none}}";

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

size_t url_unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		int hi, lo;
		if (*r == '%' && (hi = hexval(r[1])) >= 0 && (lo = hexval(r[2])) >= 0) {
			char v = (char)(hi << 4 | lo);
			*w++ = v ? v : 0x01;
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
	return (size_t)(w - s);
}
