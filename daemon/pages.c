/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No external resource, no framework: a meta refresh, server-side sorting
 * by query string, and inline SVG, so that the pages work offline on a NAS
 * with nothing but a browser. Every figure comes from the disk's view
 * (core/diskview.h) and is written by core/format.c, as smrctl writes it.
 */
#include "pages.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "format.h"
#include "history.h"
#include "monitor.h"
#include "notify.h"
#include "statuspage.h"
#include "tracer.h"

#ifndef SMRD_VERSION
#define SMRD_VERSION "0"
#endif

#define REFRESH_SECONDS 5
#define HEAT_COLUMNS (WINDOW_SLOTS + 1)	/* ten minutes of slots and the one in progress */

/* ---------------------------------------------------------- utilities */

static void esc(Buf *b, const char *s) { html_escape(b, s); }

static void put_num(Buf *b, double v, int decimals)
{
	char s[32];
	format_number(s, v, decimals);
	buf_puts(b, s);
}

static void put_latency(Buf *b, double s)
{
	char t[FORMAT_MAX];
	buf_puts(b, format_duration(t, s));
}

static void put_time(Buf *b, uint64_t realtime_usec)
{
	time_t t = (time_t)(realtime_usec / 1000000);
	struct tm tm;
	char s[32];
	if (localtime_r(&t, &tm) && strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S", &tm))
		buf_puts(b, s);
}

/* The rest of a table row: each text escaped in its cell, the last (a
 * sentence) in a "why" cell that wraps. */
static void cells(Buf *b, const char *const *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, i + 1 == n ? "<td class=\"why\">" : "<td>");
		esc(b, text[i]);
		buf_puts(b, "</td>");
	}
	buf_puts(b, "</tr>");
}

static void page_head(Buf *b, const char *title, bool refresh)
{
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
	buf_puts(b, "<meta name=\"viewport\" content=\"width=device-width\">");
	buf_puts(b, "<meta name=\"color-scheme\" content=\"light dark\">");
	if (refresh)
		buf_printf(b, "<meta http-equiv=\"refresh\" content=\"%d\">", REFRESH_SECONDS);
	buf_puts(b, "<title>");
	esc(b, title);
	buf_printf(b, "</title><style>%s</style></head><body>\n", status_css);
}

static void page_foot(Buf *b, const Context *ctx)
{
	buf_printf(b, "<footer><p>smrd %s · refreshes every %d s · <a href=\"/\">disks</a> · "
		      "<a href=\"/metrics\">/metrics</a> (Prometheus text or OpenMetrics) · "
		      "<a href=\"/api/v1/status\">/api/v1/status</a> · <a href=\"/api/v1/disks\">/api/v1/disks</a> · "
		      "/api/v1/disks/NAME · <a href=\"/api/v1/events\">/api/v1/events</a> · latency from %s</p></footer>"
		      "</body></html>\n",
		   SMRD_VERSION, REFRESH_SECONDS, tracer_backend(ctx->tracer));
}

static int html_reply(unsigned status, Buf *b, HttpReply *ret)
{
	*ret = (HttpReply){.status = status, .type = "text/html; charset=utf-8", .body = http_body_new(b)};
	return ret->body ? 0 : -ENOMEM;
}

/* ---------------------------------------------------------------- docs */

extern const char smrd_doc_alerts[];

/* The documents an alert links to, rendered at build time from docs/. */
int pages_doc(const Context *ctx, const char *name, HttpReply *ret)
{
	Buf b = {0};
	if (!streq(name, "alerts")) {
		page_head(&b, "smrd: no such document", false);
		buf_puts(&b, "<p>No such document. smrd serves <a href=\"/docs/alerts\">/docs/alerts</a>, "
			     "what each alert means and what to do.</p>\n");
		page_foot(&b, ctx);
		return html_reply(404, &b, ret);
	}
	page_head(&b, "smrd: alerts, what each means and what to do", false);
	buf_puts(&b, "<main class=\"doc\">\n");
	buf_puts(&b, smrd_doc_alerts);
	buf_printf(&b, "</main>\n<footer><p>smrd %s · docs/alerts.md as this smrd was built with · "
		      "<a href=\"/\">disks</a></p></footer></body></html>\n", SMRD_VERSION);
	return html_reply(200, &b, ret);
}

/* --------------------------------------------------------------- the list */

typedef struct Row {
	const Disk *d;
	VerdictSummary v;
	bool imminent;			/* the stall forecast is under forecast-warn */
	uint64_t stalls;		/* stall events in the last hour */
	int severity;
	char pool[96];
} Row;

typedef struct StallCount {
	Row *rows;
	size_t n;
} StallCount;

static int row_by_name(const void *key, const void *elem)
{
	return devname_cmp(key, ((const Row *)elem)->d->name);
}

static int count_stall(const HistoryEvent *e, void *userdata)
{
	StallCount *sc = userdata;
	if (!streq(e->kind, event_kind_info(EVENT_STALL)->name))
		return 0;
	/* the registry is in name order, and so are the rows */
	Row *r = bsearch(e->device, sc->rows, sc->n, sizeof *sc->rows, row_by_name);
	if (r)
		r->stalls += e->count > 0 ? (uint64_t)e->count : 1;
	return 0;
}

static const struct {
	const char *key, *title;
	bool numeric;
} columns[] = {
	{"device", "Device", false}, {"model", "Model", false}, {"serial", "Serial", false}, {"pool", "Pool", false},
	{"class", "Class", false}, {"smr", "SMR", true}, {"why", "Decisive evidence", false}, {"score", "GC score", true},
	{"storm", "Storm", false}, {"cache", "Media cache", true}, {"stalls", "Stalls 1h", true},
	{"read", "Read p50 / p99, 1 min", true},
	{"write", "Write p50 / p99, 1 min", true}, {"tput", "Throughput", true},
};

typedef struct SortBy {
	int col;		/* -1: problems first */
	bool desc;
} SortBy;

static const LatSummary *minute(const Row *r, int op) { return &r->d->view.op[op].win[VIEW_1M]; }

static double key_num(const Row *r, const char *k)
{
	const DiskView *v = &r->d->view;
	double x = streq(k, "smr") ? r->v.smr_confidence : streq(k, "score") ? v->score.score
		 : streq(k, "stalls") ? (double)r->stalls : streq(k, "cache") ? v->cache_fill
		 : streq(k, "read") ? minute(r, TRACE_READ)->p99
		 : streq(k, "write") ? minute(r, TRACE_WRITE)->p99 : v->rates.read_bytes + v->rates.write_bytes;
	return isfinite(x) ? x : -1;
}

static const char *state_word(const DiskView *v) { return v->storm ? "storm" : v->idle ? "idle-cleaning" : ""; }

static const char *key_str(const Row *r, const char *k)
{
	return streq(k, "model") ? r->d->sys.model : streq(k, "serial") ? r->d->sys.serial : streq(k, "pool") ? r->pool
	     : streq(k, "class") ? disk_class_to_string(r->v.class) : streq(k, "why") ? r->v.basis
	     : streq(k, "storm") ? state_word(&r->d->view) : r->d->name;
}

static int row_cmp(const void *pa, const void *pb, void *userdata)
{
	const Row *a = pa, *b = pb;
	const SortBy *by = userdata;
	int sort_col = by->col, c = 0;
	if (sort_col < 0)
		c = b->severity - a->severity;	/* problems first */
	else if (columns[sort_col].numeric) {
		double x = key_num(a, columns[sort_col].key), y = key_num(b, columns[sort_col].key);
		c = (x > y) - (x < y);
	} else
		c = strcmp(key_str(a, columns[sort_col].key), key_str(b, columns[sort_col].key));
	if (by->desc)
		c = -c;
	return c ? c : devname_cmp(a->d->name, b->d->name);
}

static void fill_row(const Disk *d, Row *r)
{
	*r = (Row){.d = d};
	disk_summary(d, &r->v);
	for (unsigned k = 0, o = 0; k < d->n_members && o < sizeof r->pool - 1; k++)
		o += (size_t)snprintf(r->pool + o, sizeof r->pool - o, "%s%s %s", k ? ", " : "",
				      member_type_to_string(d->members[k].type), d->members[k].name);
}

static void status_summary(Buf *b, const Row *rows, size_t n, bool history_ok)
{
	unsigned storms = 0, stalling = 0, suspects = 0;
	for (size_t i = 0; i < n; i++) {
		storms += rows[i].d->view.storm;
		stalling += rows[i].stalls > 0;
		suspects += rows[i].v.smr_confidence >= SMR_CONF_TRIM_HINT;
	}
	buf_printf(b, "<p id=\"summary\">%zu disk%s watched · <span class=\"%s\">%u in a destage storm</span> · "
		      "<span class=\"%s\">%u with stalls in the last hour</span> · %u SMR suspect%s",
		   n, n == 1 ? "" : "s", storms ? "bad" : "ok", storms, stalling ? "warn" : "ok", stalling, suspects,
		   suspects == 1 ? "" : "s");
	if (!history_ok)
		buf_puts(b, " · <span class=\"warn\">event history unreadable: stall counts incomplete</span>");
	buf_puts(b, "</p>\n");
}

/* The media cache's fill as a gauge, and the forecast when it has one. */
static void cache_cell(Buf *b, const DiskView *v, bool imminent)
{
	char t[FORMAT_MAX];
	if (!isfinite(v->cache_fill)) {
		buf_puts(b, "<td class=\"cache mute\">–</td>");
		return;
	}
	if (!v->cache_sure) {
		buf_puts(b, "<td class=\"cache mute\" title=\"smrd has not seen it clean or full since it started\">?</td>");
		return;
	}
	buf_printf(b, "<td class=\"cache%s\" data-fill=\"%.3f\"><meter min=\"0\" max=\"1\" low=\"0.5\" high=\"0.8\" "
		      "optimum=\"0\" value=\"%.3f\"></meter> %.0f%%", imminent ? " bad" : "", v->cache_fill, v->cache_fill,
		   v->cache_fill * 100);
	if (isfinite(v->forecast))
		buf_printf(b, " · stall in ~%s", format_duration(t, v->forecast));
	buf_puts(b, "</td>");
}

static void status_row(Buf *b, const Row *r)
{
	const DiskView *v = &r->d->view;
	char t[FORMAT_MAX];
	buf_puts(b, "<tr data-device=\"");
	esc(b, r->d->name);
	buf_printf(b, "\" data-storm=\"%d\" data-severity=\"%d\"><td><a href=\"/disk/", v->storm, r->severity);
	url_escape(b, r->d->name);
	buf_puts(b, "\">");
	esc(b, r->d->name);
	buf_puts(b, "</a></td><td class=\"model\">");
	esc(b, r->d->sys.model);
	buf_puts(b, "</td><td>");
	esc(b, r->d->sys.serial);
	buf_puts(b, "</td><td>");
	esc(b, r->pool);
	buf_printf(b, "</td><td class=\"%s\">%s</td><td class=\"n\">", r->v.class == DISK_CLASS_DM_SMR ? "warn" : "",
		   disk_class_to_string(r->v.class));
	put_num(b, r->v.smr_confidence, 2);
	buf_puts(b, "</td><td class=\"why\">");
	esc(b, r->v.basis);
	buf_puts(b, "</td><td class=\"n\">");
	put_num(b, v->score.score, 2);
	buf_printf(b, "</td><td class=\"storm %s\">%s", v->storm ? "bad" : v->idle ? "warn" : "mute",
		   v->storm ? "storm" : v->idle ? "idle-cleaning" : "–");
	if (v->storm) {
		/* what its writes do now, not the minute's percentiles beside it */
		buf_printf(b, "<br><span class=\"mute\">%.1f w/s at ", v->storm_iops);
		put_latency(b, v->storm_latency);
		buf_puts(b, "</span>");
	}
	buf_puts(b, "</td>");
	cache_cell(b, v, r->imminent);
	buf_printf(b, "<td class=\"n%s\">%" PRIu64 "</td>", r->stalls ? " warn" : "", r->stalls);
	for (int op = TRACE_READ; op <= TRACE_WRITE; op++) {
		buf_printf(b, "<td class=\"n %s\">", op == TRACE_WRITE ? "write" : "read");
		put_latency(b, minute(r, op)->p50);
		buf_puts(b, " / ");
		put_latency(b, minute(r, op)->p99);
		buf_puts(b, "</td>");
	}
	buf_puts(b, "<td class=\"n\">");
	buf_puts(b, format_rate(t, v->rates.read_bytes + v->rates.write_bytes));
	buf_puts(b, "</td></tr>\n");
}

static void status_table(Buf *b, const Row *rows, size_t n, const SortBy *by)
{
	buf_puts(b, "<div class=\"wide\"><table id=\"disks\"><thead><tr>");
	for (size_t c = 0; c < ELEMENTSOF(columns); c++) {
		bool cur = by->col == (int)c;
		buf_printf(b, "<th%s><a href=\"/?sort=%s%s\">%s%s</a></th>", columns[c].numeric ? " class=\"n\"" : "",
			   columns[c].key, cur && !by->desc ? "&amp;dir=desc" : "", columns[c].title,
			   cur ? (by->desc ? " ▼" : " ▲") : "");
	}
	buf_puts(b, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++)
		status_row(b, &rows[i]);
	buf_puts(b, "</tbody></table></div>\n");
	if (!n)
		buf_puts(b, "<p>No disk is watched (see --include/--exclude).</p>");
}

/* What notify-command was run for, and what was acknowledged: the newest first. */
static void notify_section(Buf *b, const Context *ctx)
{
	NotifyRecent r[NOTIFY_RECENT];
	unsigned n = notifier_recent(ctx->notifier, r);
	bool on = ctx->config.notify_command && ctx->config.notify_command[0];
	if (!on && !n)
		return;
	buf_puts(b, "<h2>Notifications</h2>\n");
	if (!n) {
		buf_puts(b, "<p>None sent since smrd started (notify-command ");
		esc(b, ctx->config.notify_command);
		buf_puts(b, ").</p>\n");
		return;
	}
	buf_puts(b, "<div class=\"wide\"><table id=\"notifications\"><thead><tr><th>When</th><th>Disk</th>"
		    "<th>What</th><th>Result</th><th>Incident</th></tr></thead><tbody>\n");
	for (unsigned i = 0; i < n; i++) {
		buf_puts(b, "<tr><td>");
		put_time(b, r[i].time_usec);
		const char *cell[] = {r[i].device, r[i].what, r[i].result, r[i].incident};
		buf_puts(b, "</td>");
		cells(b, cell, ELEMENTSOF(cell));	/* closes the row */
		buf_puts(b, "\n");
	}
	buf_puts(b, "</tbody></table></div>\n");
}

int pages_status(const Context *ctx, const HttpRequest *req, HttpReply *ret)
{
	size_t n = registry_size(ctx->disks);
	_cleanup_free_ Row *rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fill_row(registry_at(ctx->disks, i), &rows[i]);
	StallCount scnt = {rows, n};
	HistoryFilter f = {.since_usec = now_usec(CLOCK_REALTIME) - 3600 * UINT64_C(1000000), .limit = 10000};
	bool history_ok = history_query(monitor_history(ctx->monitor), &f, count_stall, &scnt) >= 0;
	for (size_t i = 0; i < n; i++) {
		Row *r = &rows[i];
		const DiskView *v = &r->d->view;
		r->imminent = v->forecast <= ctx->config.detect.forecast_warn;
		/* a stall forecast near first: the one problem that can still be avoided */
		r->severity = r->imminent ? 5 : v->storm ? 4 : r->stalls ? 3 : v->idle ? 2
			    : r->v.smr_confidence >= SMR_CONF_TRIM_HINT ? 1 : 0;
	}

	char sort[16] = "", dir[8] = "";
	http_arg_copy(req, "sort", sort, sizeof sort);
	http_arg_copy(req, "dir", dir, sizeof dir);
	SortBy by = {.col = -1, .desc = streq(dir, "desc")};
	for (size_t c = 0; c < ELEMENTSOF(columns); c++)
		if (streq(sort, columns[c].key))
			by.col = (int)c;
	qsort_r(rows, n, sizeof *rows, row_cmp, &by);

	Buf b = {0};
	char host[256];
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "this host");
	host[sizeof host - 1] = 0;
	char title[300];
	snprintf(title, sizeof title, "smrd: %s", host);
	page_head(&b, title, true);
	buf_puts(&b, "<h1>");
	esc(&b, title);
	buf_puts(&b, "</h1>");
	status_summary(&b, rows, n, history_ok);
	status_table(&b, rows, n, &by);
	notify_section(&b, ctx);
	page_foot(&b, ctx);
	return html_reply(200, &b, ret);
}

/* ------------------------------------------------------------ one disk */

typedef struct Timeline {
	TimelineMark m[128];
	char label[128][96];
	unsigned n;
	double now, span;
	double open_storm, open_idle;	/* a start seen, its end not yet: seconds ago */
	HistoryEvent recent[20];	/* the disk's newest events, however old, oldest first */
	unsigned n_recent;
} Timeline;

static void mark(Timeline *t, const char *kind, double start, double end, const char *label)
{
	if (t->n >= ELEMENTSOF(t->m))
		return;
	snprintf(t->label[t->n], sizeof t->label[t->n], "%s", label);
	t->m[t->n] = (TimelineMark){.start = start, .end = end, .kind = kind, .label = t->label[t->n]};
	t->n++;
}

static int on_event(const HistoryEvent *e, void *userdata)
{
	Timeline *t = userdata;
	double ago = t->now - (double)e->time_usec / 1e6;
	char label[96], d[FORMAT_MAX];
	if (streq(e->kind, "storm-start"))
		t->open_storm = ago;
	else if (streq(e->kind, "storm-end")) {
		/* at the storm's end, with its duration */
		mark(t, "storm", ago + e->duration, ago, "destage storm");
		t->open_storm = NAN;
	} else if (streq(e->kind, "idle-cleaning-start"))
		t->open_idle = ago;
	else if (streq(e->kind, "idle-cleaning-end")) {
		mark(t, "idle-cleaning", ago + e->duration, ago, "idle cleaning");
		t->open_idle = NAN;
	} else if (streq(e->kind, "stall")) {
		snprintf(label, sizeof label, "stall: %s of %s", e->op, format_duration(d, e->latency));
		mark(t, "stall", ago, ago, label);
	}
	return 0;
}

/* State first: what a person opening the page at 3 a.m. wants. */
static void disk_state(Buf *b, const Disk *d, double now)
{
	const DiskView *v = &d->view;
	char t[FORMAT_MAX];
	buf_printf(b, "<p id=\"state\" data-storm=\"%d\" class=\"%s\">%s", v->storm,
		   v->storm ? "bad" : v->idle ? "warn" : "ok",
		   v->storm ? "Destage storm under way" : v->idle ? "Cleaning while idle" : "No storm");
	if (v->storm) {
		buf_printf(b, " for %s: %.1f writes/s at ", format_duration(t, fmax(now - v->storm_since, 0)),
			   v->storm_iops);
		put_latency(b, v->storm_latency);
		buf_puts(b, " in its slow seconds");
	}
	buf_puts(b, " · GC score ");
	put_num(b, v->score.score, 2);
	buf_printf(b, " · stalls (read/write) %" PRIu64 "/%" PRIu64 " since smrd started · %" PRIu64
		      " destage storm(s) on record</p>\n",
		   v->stalls[TRACE_READ], v->stalls[TRACE_WRITE], v->storms_known);
	if (disk_model_known(&v->cache)) {
		char a[FORMAT_MAX], c[FORMAT_MAX];
		buf_printf(b, "<p id=\"cache\" class=\"%s\">Media cache %s%s", isfinite(v->forecast) ? "warn" : "",
			   v->cache.cache_lower_bound ? "at least " : "~", format_size(a, v->cache.media_cache_bytes));
		if (v->cache.cache_samples > 1)
			buf_printf(b, " (from %u fills)", v->cache.cache_samples);
		if (!v->cache_sure)
			buf_puts(b, ", fill unknown (smrd has not seen it clean or full since it started)");
		else if (isfinite(v->cache_fill))
			buf_printf(b, ", <meter min=\"0\" max=\"1\" value=\"%.3f\"></meter> %.0f%% full", v->cache_fill,
				   v->cache_fill * 100);
		/* under a second is no countdown: the cache is full now */
		if (isfinite(v->forecast) && v->forecast < 1)
			buf_printf(b, " · writes may stall now (at %s)", format_rate(c, v->fill_rate));
		else if (isfinite(v->forecast))
			buf_printf(b, " · writes stall in ~%s at %s", format_duration(t, v->forecast),
				   format_rate(c, v->fill_rate));
		buf_puts(b, "</p>\n");
	}
}

static void disk_class_section(Buf *b, const Verdict *v)
{
	buf_printf(b, "<h2>Class</h2><p id=\"class\"><b>%s</b> (confidence ", disk_class_to_string(v->class));
	put_num(b, v->confidence, 2);
	buf_puts(b, "), SMR confidence ");
	put_num(b, v->smr_confidence, 2);
	buf_puts(b, ": ");
	esc(b, v->basis);
	buf_puts(b, "</p><table id=\"evidence\"><thead><tr><th></th><th>source</th><th>value</th><th>implies</th>"
		    "</tr></thead><tbody>");
	for (unsigned i = 0; i < v->n_evidence; i++) {
		const Evidence *e = &v->evidence[i];
		buf_printf(b, "<tr%s><td>%s</td>", e->decisive ? " class=\"decisive\"" : "", e->decisive ? "★" : "");
		cells(b, (const char *const[]){e->source, e->value, e->implies}, 3);
	}
	buf_puts(b, "</tbody></table>\n");
}

/* The heatmaps and the timeline share one time axis: ten minutes, or as
 * much as smrd has seen of the disk (a minute at least), so that a storm
 * just after start is not squeezed into the right edge. */
static unsigned heat_columns(const Disk *d)
{
	unsigned n = 6;
	for (int op = 0; d->lat && op < TRACE_OPS; op++)
		if (d->lat->op[op] && d->lat->op[op]->window.used + 1 > n)
			n = d->lat->op[op]->window.used + 1;
	return n > HEAT_COLUMNS ? HEAT_COLUMNS : n;
}

static int disk_latency_section(Buf *b, const Context *ctx, const Disk *d, Timeline *t)
{
	_cleanup_free_ HeatColumn *cols = calloc(HEAT_COLUMNS, sizeof *cols);
	if (!cols)
		return -ENOMEM;
	const DiskView *v = &d->view;
	unsigned ncols = heat_columns(d);
	t->span = ncols * (double)WINDOW_SLOT_SECONDS;
	t->open_storm = t->open_idle = NAN;
	HistoryFilter hf = {.device = d->name, .since_usec = (uint64_t)((t->now - t->span) * 1e6), .limit = 1000};
	bool history_ok = history_query(monitor_history(ctx->monitor), &hf, on_event, t) >= 0;
	if (v->storm)
		mark(t, "storm", t->now - v->storm_since, 0, "destage storm (under way)");
	else if (isfinite(t->open_storm))
		mark(t, "storm", t->open_storm, 0, "destage storm");
	if (v->idle)
		mark(t, "idle-cleaning", isfinite(t->open_idle) ? t->open_idle : t->now - v->idle_since, 0,
		     "idle cleaning (under way)");
	buf_printf(b, "<h2>Latency, last %u %s</h2>", t->span >= 120 ? (unsigned)(t->span / 60) : (unsigned)t->span,
		   t->span >= 120 ? "minutes" : "seconds");
	for (int op = 0; op < 2; op++) {
		const OpLatency *ol = d->lat ? d->lat->op[op] : NULL;
		for (unsigned c = 0; c < ncols; c++) {
			cols[c] = (HeatColumn){0};
			if (ol)
				lat_window_slot(&ol->window, ncols - 1 - c, &cols[c].h, &cols[c].seconds);
		}
		buf_printf(b, "<h3>%s</h3>", trace_op_to_string(op));
		heatmap_svg(b, trace_op_to_string(op), cols, ncols, WINDOW_SLOT_SECONDS);
		if (!ol)
			buf_printf(b, "<p class=\"mute\">No traced %ss.</p>", trace_op_to_string(op));
		else if (op == TRACE_WRITE) {
			buf_puts(b, "<h3>writes per second</h3>");
			rate_svg(b, "write", cols, ncols, WINDOW_SLOT_SECONDS);
		}
	}
	buf_printf(b, "<p class=\"mute\">A column is %d s. A cell's shade is its share of the column's I/Os: the "
		      "darkest is the latency most of them took, a pale one a few (a storm: writes moving up, and "
		      "fewer of them).</p>", WINDOW_SLOT_SECONDS);
	buf_puts(b, "<h3>Storms, idle cleaning and stalls</h3>");
	timeline_svg(b, t->m, t->n, t->span);
	if (!history_ok)
		buf_puts(b, "<p class=\"warn\">The event history could not be read.</p>");
	return 0;
}

static void percentile_table(Buf *b, const DiskView *v)
{
	buf_puts(b, "<h2>Percentiles</h2><table id=\"percentiles\"><thead><tr><th>op</th><th>window</th>"
		    "<th class=\"n\">I/Os</th><th class=\"n\">mean</th><th class=\"n\">p50</th><th class=\"n\">p90</th>"
		    "<th class=\"n\">p99</th><th class=\"n\">p99.9</th><th class=\"n\">max</th></tr></thead><tbody>");
	bool any = false;
	for (int op = 0; op < TRACE_OPS; op++) {
		if (!v->op[op].traced)
			continue;
		for (int k = 0; k < _VIEW_WINDOW_MAX; k++) {
			const LatSummary *l = &v->op[op].win[k];
			const float q[] = {l->mean, l->p50, l->p90, l->p99, l->p999, l->max};
			buf_printf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td>", trace_op_to_string(op),
				   view_windows[k].name, l->count);
			for (size_t i = 0; i < ELEMENTSOF(q); i++) {
				buf_puts(b, "<td class=\"n\">");
				put_latency(b, q[i]);
				buf_puts(b, "</td>");
			}
			buf_puts(b, "</tr>");
			any = true;
		}
	}
	buf_puts(b, "</tbody></table>");
	if (!any)
		buf_puts(b, "<p class=\"mute\">No traced I/O yet.</p>");
}

static int on_recent(const HistoryEvent *e, void *userdata)
{
	Timeline *t = userdata;
	if (t->n_recent < ELEMENTSOF(t->recent))
		t->recent[t->n_recent++] = *e;
	return 0;
}

/* The disk's last events from the history, however old: the storms and
 * stalls "on record" above are these, with their dates. */
static void events_table(Buf *b, const Context *ctx, const Disk *d, Timeline *t)
{
	HistoryFilter f = {.device = d->name, .limit = ELEMENTSOF(t->recent)};
	bool ok = history_query(monitor_history(ctx->monitor), &f, on_recent, t) >= 0;
	buf_printf(b, "<h2>Last events</h2><p class=\"mute\">The newest %zu on record, newest first; all of them: "
		      "<code>smrctl events --device ", ELEMENTSOF(t->recent));
	esc(b, d->name);
	buf_puts(b, "</code>.</p><table id=\"events\"><thead><tr><th>time</th><th>event</th><th>op</th>"
		    "<th>message</th></tr></thead><tbody>");
	for (unsigned i = t->n_recent; i-- > 0;) {
		const HistoryEvent *e = &t->recent[i];
		buf_puts(b, "<tr><td>");
		put_time(b, e->time_usec);
		buf_puts(b, "</td>");
		cells(b, (const char *const[]){e->kind, e->op, e->message}, 3);
	}
	buf_puts(b, "</tbody></table>");
	if (!ok)
		buf_puts(b, "<p class=\"warn\">The event history could not be read.</p>");
	else if (!t->n_recent)
		buf_puts(b, "<p class=\"mute\">No event on record.</p>");
}

static void kv(Buf *b, const char *k, const char *v)
{
	buf_puts(b, "<tr><th>");
	esc(b, k);
	buf_puts(b, "</th><td>");
	esc(b, v);
	buf_puts(b, "</td></tr>");
}

static void identity_table(Buf *b, const Disk *d)
{
	char s[160], t[FORMAT_MAX];
	buf_puts(b, "<h2>Identity</h2><table id=\"identity\">");
	kv(b, "model", d->sys.model);
	kv(b, "serial", d->sys.serial);
	kv(b, "wwn", d->sys.wwn);
	kv(b, "firmware", d->sys.firmware);
	kv(b, "transport", transport_to_string(d->sys.transport));
	snprintf(s, sizeof s, "%u:%u", d->sys.major, d->sys.minor);
	kv(b, "device number", s);
	kv(b, "size", format_size(t, (double)d->sys.size_sectors * 512));
	kv(b, "zoned", d->sys.zoned[0] ? d->sys.zoned : "none");
	if (d->sys.io_timeout_ms > 0)
		kv(b, "I/O timeout", format_duration(t, (double)d->sys.io_timeout_ms / 1000));
	for (unsigned k = 0; k < d->n_members; k++) {
		snprintf(s, sizeof s, "%s %s (via %s)", member_type_to_string(d->members[k].type), d->members[k].name,
			 d->members[k].via);
		kv(b, "member of", s);
	}
	buf_puts(b, "</table><p class=\"mute\">The same as JSON: <a href=\"/api/v1/disks/");
	url_escape(b, d->name);
	buf_puts(b, "\">/api/v1/disks/");
	esc(b, d->name);
	buf_puts(b, "</a></p>");
}

static int no_such_disk(const Context *ctx, const char *name, HttpReply *ret)
{
	Buf b = {0};
	page_head(&b, "smrd: no such disk", false);
	buf_puts(&b, "<h1>No such disk</h1><p>");
	esc(&b, name);
	buf_puts(&b, " is not a watched disk. <a href=\"/\">All disks</a></p>");
	page_foot(&b, ctx);
	return html_reply(404, &b, ret);
}

int pages_disk(const Context *ctx, const char *name, HttpReply *ret)
{
	const Disk *d = registry_get(ctx->disks, name);
	if (!d)
		return no_such_disk(ctx, name, ret);
	_cleanup_free_ Verdict *v = malloc(sizeof *v);
	_cleanup_free_ Timeline *t = calloc(1, sizeof *t);
	if (!v || !t)
		return -ENOMEM;
	disk_verdict(d, ctx->models.list, v);
	t->now = now_seconds(CLOCK_REALTIME);
	Buf b = {0};
	char title[96];
	snprintf(title, sizeof title, "smrd: %s", d->name);
	page_head(&b, title, true);
	buf_puts(&b, "<p><a href=\"/\">← all disks</a></p><h1>");
	esc(&b, d->name);
	if (d->sys.model[0]) {
		buf_puts(&b, ": ");
		esc(&b, d->sys.model);
	}
	buf_puts(&b, "</h1>\n");
	disk_state(&b, d, t->now);
	disk_class_section(&b, v);
	int r = disk_latency_section(&b, ctx, d, t);
	if (r < 0) {
		buf_free(&b);
		return r;
	}
	percentile_table(&b, &d->view);
	events_table(&b, ctx, d, t);
	identity_table(&b, d);
	page_foot(&b, ctx);
	return html_reply(200, &b, ret);
}
