/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No external resource, no framework: a meta refresh, server-side sorting
 * by query string, and inline SVG, so that the pages work offline on a NAS
 * with nothing but a browser. Every figure comes from the disk's view
 * (core/disk/diskview.h) and is written by core/output/format.c, as smrctl writes it.
 */
#include "pages.h"
#include "pages-internal.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "advice.h"
#include "format.h"
#include "notifier.h"
#include "rebuild-views.h"
#include "statuspage.h"
#include "tracer.h"

/* ---------------------------------------------------------- utilities */

void page_esc(Buf *b, const char *s) { html_escape(b, s); }

void page_num(Buf *b, double v, int decimals)
{
	char s[32];
	format_number(s, v, decimals);
	buf_puts(b, s);
}

void page_latency(Buf *b, double s)
{
	char t[FORMAT_MAX];
	buf_puts(b, format_duration(t, s));
}

/* The media cache's fill as a meter, coloured by the disk's severity as
 * its view has it: the list and the disk page show one colour, and neither
 * judges the fill on its own. */
void page_cache_meter(Buf *b, const DiskView *v)
{
	const char *c = v->severity >= DISK_SEVERITY_STORM ? "bad"
		      : v->severity >= DISK_SEVERITY_IDLE_CLEANING ? "warn" : "ok";
	buf_printf(b, "<meter class=\"%s\" min=\"0\" max=\"1\" value=\"%.3f\"></meter> %.0f%%", c, v->cache_fill,
		   v->cache_fill * 100);
}

/* A sentence cut for a table cell, the whole of it in the cell's title:
 * to its first parenthesis or colon, then at a word within ~40
 * characters. */
void page_short(Buf *b, const char *s)
{
	size_t n = strcspn(s, "(:"), max = 40;
	while (n && s[n - 1] == ' ')
		n--;
	if (n < 12)
		n = strlen(s);
	bool cut = n < strlen(s);
	if (n > max) {
		size_t w = max;
		while (w > 12 && s[w] != ' ')
			w--;
		n = w;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;	/* never inside a UTF-8 sequence */
		cut = true;
	}
	buf_puts(b, "<span title=\"");
	page_esc(b, s);
	buf_puts(b, "\">");
	char part[64];
	snprintf(part, sizeof part, "%.*s", (int)n, s);
	page_esc(b, part);
	buf_puts(b, cut ? "…</span>" : "</span>");
}

void page_time(Buf *b, uint64_t realtime_usec)
{
	time_t t = (time_t)(realtime_usec / 1000000);
	struct tm tm;
	char s[32];
	/* a <time> never wraps (status_css): a date on three lines reads as three */
	if (localtime_r(&t, &tm) && strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S", &tm))
		buf_printf(b, "<time>%s</time>", s);
}

/* The rest of a table row: each text escaped in its cell, the last (a
 * sentence) in a "why" cell that wraps. */
void page_cells(Buf *b, const char *const *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, i + 1 == n ? "<td class=\"why\">" : "<td>");
		page_esc(b, text[i]);
		buf_puts(b, "</td>");
	}
	buf_puts(b, "</tr>");
}

void page_head(Buf *b, const char *title, bool refresh)
{
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
	buf_puts(b, "<meta name=\"viewport\" content=\"width=device-width\">");
	buf_puts(b, "<meta name=\"color-scheme\" content=\"light dark\">");
	if (refresh)
		buf_printf(b, "<meta http-equiv=\"refresh\" content=\"%d\">", REFRESH_SECONDS);
	buf_puts(b, "<title>");
	page_esc(b, title);
	buf_printf(b, "</title><style>%s</style></head><body>\n", status_css);
}

void page_foot(Buf *b, const Context *ctx)
{
	buf_printf(b, "<footer><p>smrd %s · refreshes every %d s · <a href=\"/\">disks</a> · "
		      "<a href=\"/metrics\">/metrics</a> (Prometheus text or OpenMetrics) · "
		      "<a href=\"/api/v1/status\">/api/v1/status</a> · <a href=\"/api/v1/disks\">/api/v1/disks</a> · "
		      "/api/v1/disks/NAME · <a href=\"/api/v1/events\">/api/v1/events</a> · latency from %s</p></footer>"
		      "</body></html>\n",
		   SMRD_VERSION, REFRESH_SECONDS, tracer_backend(ctx->tracer));
}

bool page_advice(const Disk *d, DiskClass disk_class, Advice *ret)
{
	const RebuildState *rb = disk_rebuild(d);	/* as notifications pass it (hookenv.c) */
	AdviceFacts f = {.disk_class = disk_class, .storm = d->view.storm, .rebuild = rb, .kind = _EVENT_KIND_INVALID,
			 .device = d->name};
	advice_for(&f, ret);
	return ret->text[0] != 0;
}

void page_advice_text(Buf *b, const Advice *a)
{
	page_esc(b, a->text);
	if (a->anchor && a->anchor[0])
		buf_printf(b, " <a href=\"/docs/alerts#%s\">Runbook</a>", a->anchor);
}

int html_reply(unsigned status, Buf *b, HttpReply *ret)
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

/* A disk and its class as shown; every other figure is its view's. */
typedef struct Row {
	Disk *d;
	VerdictSummary v;
} Row;

static const struct {
	const char *key, *title;
	bool numeric;
} columns[] = {
	/* the state second: what a phone keeps of a row (status_css) */
	/* the serial under the model: one column for both keeps the list
	 * within 1400 px with real latencies in its last columns */
	{"device", "Device", false}, {"storm", "State", false}, {"model", "Model, serial", false}, {"pool", "Pool", false}, {"class", "Class", false}, {"smr", "SMR", true}, {"why", "Decisive evidence", false},
	{"score", "GC score", true}, {"cache", "Media cache", true}, {"stalls", "Stalls 1h", true},
	{"read", "Read p50 / p99, 1 min", true},
	{"write", "Write p50 / p99, 1 min", true}, {"tput", "Throughput, bytes/s", true},
};

typedef struct SortBy {
	int col;		/* -1: problems first */
	bool desc;
} SortBy;

static const LatSummary *minute(const Row *r, int op) { return diskview_latency(r->d, op, VIEW_1M); }

static double key_num(const Row *r, const char *k)
{
	const DiskView *v = &r->d->view;
	double x = streq(k, "smr") ? r->v.smr_confidence : streq(k, "score") ? v->score.score
		 : streq(k, "stalls") ? (double)v->stalls_hour : streq(k, "cache") ? v->cache_fill
		 : streq(k, "read") ? minute(r, TRACE_READ)->p99
		 : streq(k, "write") ? minute(r, TRACE_WRITE)->p99 : v->rates.read_bytes + v->rates.write_bytes;
	return isfinite(x) ? x : -1;
}

static const char *state_word(const DiskView *v) { return v->storm ? "storm" : v->idle ? "idle-cleaning" : ""; }

static const char *key_str(const Row *r, const char *k)
{
	return streq(k, "model") ? r->d->sys.model : streq(k, "serial") ? r->d->sys.serial
	     : streq(k, "pool") ? diskview_pool_str(&r->d->view) : streq(k, "class") ? disk_class_to_string(r->v.class)
	     : streq(k, "why") ? r->v.basis : streq(k, "storm") ? state_word(&r->d->view) : r->d->name;
}

static int row_cmp(const void *pa, const void *pb, void *userdata)
{
	const Row *a = pa, *b = pb;
	const SortBy *by = userdata;
	int sort_col = by->col, c = 0;
	if (sort_col < 0)
		c = (int)b->d->view.severity - (int)a->d->view.severity;	/* problems first */
	else if (columns[sort_col].numeric) {
		double x = key_num(a, columns[sort_col].key), y = key_num(b, columns[sort_col].key);
		c = (x > y) - (x < y);
	} else
		c = strcmp(key_str(a, columns[sort_col].key), key_str(b, columns[sort_col].key));
	if (by->desc)
		c = -c;
	return c ? c : devname_cmp(a->d->name, b->d->name);
}

static void status_summary(Buf *b, const Context *ctx, const Row *rows, size_t n)
{
	unsigned storms, stalling = 0, suspects, rebuilding = 0;
	registry_count(ctx->disks, &suspects, &storms);
	for (size_t i = 0; i < n; i++) {
		stalling += rows[i].d->view.stalls_hour > 0;
		rebuilding += disk_rebuild(rows[i].d)->phase == REBUILD_PHASE_RUNNING;
	}
	buf_printf(b, "<p id=\"summary\">%zu disk%s watched · <span class=\"%s\">%u in a destage storm</span> · "
		      "<span class=\"%s\">%u with stalls in the last hour</span> · %u SMR suspect%s",
		   n, n == 1 ? "" : "s", storms ? "bad" : "ok", storms, stalling ? "warn" : "ok", stalling, suspects,
		   suspects == 1 ? "" : "s");
	if (rebuilding)
		buf_printf(b, " · <span class=\"warn\">%u rebuild%s running</span>", rebuilding, rebuilding == 1 ? "" : "s");
	buf_puts(b, "</p>\n");
}

/* The media cache's fill as a gauge, and the forecast when it has one. */
static void cache_cell(Buf *b, const DiskView *v)
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
	buf_printf(b, "<td class=\"cache n%s\" data-fill=\"%.3f\">", v->imminent ? " bad" : "", v->cache_fill);
	page_cache_meter(b, v);
	if (isfinite(v->forecast))
		buf_printf(b, " · stall in ~%s", format_duration(t, v->forecast));
	buf_puts(b, "</td>");
}

/* A storm or idle cleaning, and a rebuild onto the disk in a few words
 * (the whole line in its title): what a phone keeps beside the name. */
static void state_cell(Buf *b, const Disk *d)
{
	const DiskView *v = &d->view;
	bool rebuild = disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING;
	buf_printf(b, "<td class=\"storm %s\">%s", v->storm ? "bad" : v->idle ? "warn" : "mute",
		   v->storm ? "storm" : v->idle ? "idle-cleaning" : rebuild ? "" : "–");
	if (v->storm) {
		/* what its writes do now, not the minute's percentiles beside it */
		buf_printf(b, "<br><span class=\"mute\">%.1f w/s at ", v->storm_iops);
		page_latency(b, v->storm_latency);
		buf_puts(b, "</span>");
	}
	if (rebuild) {
		char line[256];
		buf_puts(b, v->storm || v->idle ? "<br><span class=\"rebuild warn\" title=\"" : "<span class=\"rebuild warn\" title=\"");
		page_esc(b, rebuild_line(d, line, sizeof line));
		buf_puts(b, "\">");
		page_esc(b, rebuild_short(d, line, sizeof line));
		buf_puts(b, "</span>");
	}
	buf_puts(b, "</td>");
}

static void status_row(Buf *b, const Row *r)
{
	const DiskView *v = &r->d->view;
	char t[FORMAT_MAX];
	buf_puts(b, "<tr data-device=\"");
	page_esc(b, r->d->name);
	buf_printf(b, "\" data-storm=\"%d\" data-severity=\"%d\"><td><a href=\"/disk/", v->storm, (int)v->severity);
	url_escape(b, r->d->name);
	buf_puts(b, "\">");
	page_esc(b, r->d->name);
	buf_puts(b, "</a></td>");
	state_cell(b, r->d);
	buf_puts(b, "<td class=\"model\">");
	page_esc(b, r->d->sys.model);
	if (r->d->sys.serial[0]) {
		buf_puts(b, "<br><span class=\"serial mute\">");
		page_esc(b, r->d->sys.serial);
		buf_puts(b, "</span>");
	}
	buf_puts(b, "</td><td>");
	page_esc(b, diskview_pool_str(v));
	buf_printf(b, "</td><td class=\"%s\">%s</td><td class=\"n\">", r->v.class == DISK_CLASS_DM_SMR ? "warn" : "",
		   disk_class_to_string(r->v.class));
	page_num(b, r->v.smr_confidence, 2);
	buf_puts(b, "</td><td class=\"why\">");
	page_short(b, r->v.basis);	/* the whole on its page: the other columns stay on screen */
	buf_puts(b, "</td><td class=\"n\">");
	page_num(b, v->score.score, 2);
	buf_puts(b, "</td>");
	cache_cell(b, v);
	buf_printf(b, "<td class=\"n%s\">%" PRIu64 "</td>", v->stalls_hour ? " warn" : "", v->stalls_hour);
	for (int op = TRACE_READ; op <= TRACE_WRITE; op++) {
		buf_printf(b, "<td class=\"n %s\">", op == TRACE_WRITE ? "write" : "read");
		page_latency(b, minute(r, op)->p50);
		buf_puts(b, " / ");
		page_latency(b, minute(r, op)->p99);
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

/* For every disk with a problem, problems first: the one thing to do now
 * and why, from the advice notifications and rebuild-check give too, above
 * the table, where a phone shows it whole. */
static void todo_section(Buf *b, Row *rows, size_t n)
{
	SortBy severity = {.col = -1};
	qsort_r(rows, n, sizeof *rows, row_cmp, &severity);
	unsigned shown = 0;
	for (size_t i = 0; i < n; i++) {
		const Disk *d = rows[i].d;
		Advice a;
		if (!page_advice(d, rows[i].v.class, &a))
			continue;
		if (!shown++)
			buf_puts(b, "<section id=\"todo\"><h2>What to do now</h2><ul>\n");
		buf_printf(b, "<li class=\"%s\" data-todo=\"", d->view.severity >= DISK_SEVERITY_STORM ? "bad" : "warn");
		page_esc(b, d->name);
		buf_puts(b, "\"><a href=\"/disk/");
		url_escape(b, d->name);
		buf_puts(b, "\"><strong>");
		page_esc(b, d->name);
		buf_puts(b, "</strong></a>: ");
		page_advice_text(b, &a);
		buf_puts(b, "</li>\n");
	}
	if (shown)
		buf_puts(b, "</ul></section>\n");
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
		page_esc(b, ctx->config.notify_command);
		buf_puts(b, ").</p>\n");
		return;
	}
	buf_puts(b, "<div class=\"wide\"><table id=\"notifications\"><thead><tr><th>When</th><th>Disk</th>"
		    "<th>What</th><th>Result</th><th>Incident</th></tr></thead><tbody>\n");
	for (unsigned i = 0; i < n; i++) {
		buf_puts(b, "<tr><td>");
		page_time(b, r[i].time_usec);
		const char *cell[] = {r[i].device, r[i].what, r[i].result, r[i].incident};
		buf_puts(b, "</td>");
		page_cells(b, cell, ELEMENTSOF(cell));	/* closes the row */
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
	for (size_t i = 0; i < n; i++) {
		rows[i] = (Row){.d = registry_at(ctx->disks, i)};
		disk_summary(rows[i].d, &rows[i].v);
	}

	char sort[16] = "", dir[8] = "";
	http_arg_copy(req, "sort", sort, sizeof sort);
	http_arg_copy(req, "dir", dir, sizeof dir);
	SortBy by = {.col = -1, .desc = streq(dir, "desc")};
	for (size_t c = 0; c < ELEMENTSOF(columns); c++)
		if (streq(sort, columns[c].key))
			by.col = (int)c;

	Buf b = {0};
	char host[256];
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "this host");
	host[sizeof host - 1] = 0;
	char title[300];
	snprintf(title, sizeof title, "smrd: %s", host);
	page_head(&b, title, true);
	buf_puts(&b, "<h1>");
	page_esc(&b, title);
	buf_puts(&b, "</h1>");
	status_summary(&b, ctx, rows, n);
	todo_section(&b, rows, n);	/* problems first, whatever the table's order */
	qsort_r(rows, n, sizeof *rows, row_cmp, &by);
	status_table(&b, rows, n, &by);
	notify_section(&b, ctx);
	page_foot(&b, ctx);
	return html_reply(200, &b, ret);
}

