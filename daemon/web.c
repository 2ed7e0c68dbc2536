/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pages are built on the event loop from the same state the metrics
 * come from, so a page never shows half a sample. No external resource,
 * no framework: a meta refresh, server-side sorting by query string, and
 * inline SVG, so that it works offline on a NAS with nothing but a browser.
 */
#include "web.h"

#include <malloc.h>
#include <math.h>
#include <time.h>

#include "commands.h"
#include "exporter.h"
#include "history.h"
#include "metrics.h"
#include "monitor.h"
#include "protocol.h"
#include "sampler.h"
#include "statuspage.h"
#include "tracer.h"

#ifndef SMRD_VERSION
#define SMRD_VERSION "0"
#endif

#define REFRESH_SECONDS 5
#define PAGE_KEEP_USEC (3 * UINT64_C(1000000))
#define HEAT_COLUMNS (WINDOW_SLOTS + 1)	/* ten minutes of slots and the one in progress */

typedef struct PageSlot {
	HttpBody *body;
	uint64_t samples, usec;
} PageSlot;

struct Web {
	Context *ctx;
	PageSlot page[_METRIC_FORMAT_MAX][2];	/* [format][gzip] */
	size_t last_size;			/* of the last page: the next one's allocation */
	uint64_t renders;
	uint64_t last_page_usec;		/* CLOCK_MONOTONIC of the last /metrics request */
	bool keep;				/* it came within PAGE_KEEP_USEC of the one before */
	bool owed;				/* a page was made since memory was last given back */
};

Web *web_new(Context *ctx)
{
	Web *w = calloc(1, sizeof *w);
	if (w)
		w->ctx = ctx;
	return w;
}

static void drop_slot(PageSlot *s)
{
	s->body = http_body_unref(s->body);
}

Web *web_free(Web *w)
{
	if (!w)
		return NULL;
	for (int f = 0; f < _METRIC_FORMAT_MAX; f++)
		for (int g = 0; g < 2; g++)
			drop_slot(&w->page[f][g]);
	free(w);
	return NULL;
}

uint64_t web_metrics_renders(const Web *w) { return w ? w->renders : 0; }

/* The page is a mapping of its own (buf_reserve_pages, 1.6 MB at 1000
 * disks): it goes back to the kernel when the last scraper has it, and a
 * fresh one costs a huge-page fault, not 400 small ones (~14 us each on a
 * VM). What the render allocates besides stays in malloc's heap, which
 * glibc keeps: for a scraper that comes back within PAGE_KEEP_USEC the next
 * render reuses it; for Prometheus's usual 15-60 s it is given back as soon
 * as the page is gone (malloc_trim), and for one that stops, PAGE_KEEP_USEC
 * after it stopped. */
void web_sampled(Web *w)
{
	/* a page shows one sample: past it, nobody will be sent it again, and
	 * 1.6 MB at 1000 disks need not wait for the next scrape to go */
	for (int f = 0; w && f < _METRIC_FORMAT_MAX; f++)
		for (int g = 0; g < 2; g++)
			drop_slot(&w->page[f][g]);
	uint64_t now;
	if (w && w->owed && sd_event_now(w->ctx->event, CLOCK_MONOTONIC, &now) >= 0 &&
	    (!w->keep || now - w->last_page_usec >= PAGE_KEEP_USEC)) {
		malloc_trim(0);
		w->owed = false;
	}
}

static HttpBody *body_from(Buf *b) { return http_body_new(b); }

/* ------------------------------------------------------------ /metrics */

/* A page is good for the sample it shows: what it holds changes at the
 * sample, and scrapers in between are sent the same bytes. Only the
 * variants asked for are kept, and a plain page rendered only to be
 * compressed is not kept at all. */
static bool slot_fresh(const Web *w, const PageSlot *s, uint64_t samples, uint64_t now)
{
	return s->body && s->samples == samples && now - s->usec < (uint64_t)(w->ctx->config.interval * 1e6);
}

static int metrics_page(Web *w, const HttpRequest *req, HttpReply *ret)
{
	Context *ctx = w->ctx;
	const char *type;
	MetricFormat fmt = metric_negotiate(req->accept, &type);
	uint64_t now, samples = sampler_stats(ctx->sampler)->samples;
	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	PageSlot *want = &w->page[fmt][req->gzip_ok], *plain = &w->page[fmt][0];
	w->keep = w->last_page_usec && now - w->last_page_usec < PAGE_KEEP_USEC;
	w->last_page_usec = now;
	if (!slot_fresh(w, want, samples, now)) {
		for (int f = 0; f < _METRIC_FORMAT_MAX; f++)
			for (int g = 0; g < 2; g++)
				if (!slot_fresh(w, &w->page[f][g], samples, now))
					drop_slot(&w->page[f][g]);
		bool rendered = false;
		if (!plain->body) {
			Buf b = {0};
			buf_reserve_pages(&b, w->last_size + w->last_size / 16 + 4096);
			int r = exporter_render(ctx, &b, fmt);
			if (r < 0) {
				buf_free(&b);
				return r;
			}
			w->last_size = b.len;
			*plain = (PageSlot){.body = body_from(&b), .samples = samples, .usec = now};
			if (!plain->body)
				return -ENOMEM;
			w->renders++;
			w->owed = true;
			rendered = true;
		}
		if (req->gzip_ok) {
			HttpBody *gz = http_body_gzip(plain->body);
			if (!gz)
				return -ENOMEM;
			*want = (PageSlot){.body = gz, .samples = samples, .usec = now};
			if (rendered) {
				drop_slot(plain);
				if (!w->keep)
					malloc_trim(0);	/* the gzip page stays owed until the sample */
			}
		}
	}
	*ret = (HttpReply){.status = 200, .type = type, .body = http_body_ref(want->body), .gzipped = req->gzip_ok,
			   .varies = true};
	return 0;
}

/* ---------------------------------------------------------- utilities */

/* A query argument into buf; false if absent or too long. */
static bool query_get(const HttpRequest *req, const char *key, char *buf, size_t size)
{
	const char *v = req->arg ? req->arg(req, key) : NULL;
	if (!v || strlen(v) >= size)
		return false;
	memcpy(buf, v, strlen(v) + 1);
	return true;
}

static void esc(Buf *b, const char *s) { html_escape(b, s); }

static void put_num(Buf *b, double v, int decimals)
{
	char s[32];
	format_number(s, v, decimals);
	buf_put(b, s, strlen(s));
}

/* A latency for a person: 850µs, 12.3ms, 4.2s; "–" when there is none. */
static void put_latency(Buf *b, double s)
{
	if (!isfinite(s))
		buf_put(b, "–", strlen("–"));
	else if (s < 1e-3)
		buf_printf(b, "%.0fµs", s * 1e6);
	else if (s < 1)
		buf_printf(b, "%.3gms", s * 1e3);
	else
		buf_printf(b, "%.3gs", s);
}

static void put_rate(Buf *b, double bytes)
{
	if (bytes >= 1e9)
		buf_printf(b, "%.1f GB/s", bytes / 1e9);
	else if (bytes >= 1e6)
		buf_printf(b, "%.1f MB/s", bytes / 1e6);
	else if (bytes >= 1e3)
		buf_printf(b, "%.0f kB/s", bytes / 1e3);
	else
		buf_printf(b, "%.0f B/s", bytes);
}

static void put_time(Buf *b, uint64_t realtime_usec)
{
	time_t t = (time_t)(realtime_usec / 1000000);
	struct tm tm;
	char s[32];
	if (localtime_r(&t, &tm) && strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S", &tm))
		buf_put(b, s, strlen(s));
}

static void page_head(Buf *b, const char *title, bool refresh)
{
	buf_put(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", strlen("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"));
	buf_put(b, "<meta name=\"viewport\" content=\"width=device-width\">", strlen("<meta name=\"viewport\" content=\"width=device-width\">"));
	buf_put(b, "<meta name=\"color-scheme\" content=\"light dark\">", strlen("<meta name=\"color-scheme\" content=\"light dark\">"));
	if (refresh)
		buf_printf(b, "<meta http-equiv=\"refresh\" content=\"%d\">", REFRESH_SECONDS);
	buf_put(b, "<title>", 7);
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

static HttpReply html_reply(unsigned status, Buf *b)
{
	return (HttpReply){.status = status, .type = "text/html; charset=utf-8", .body = body_from(b)};
}

/* --------------------------------------------------------------- the list */

typedef struct Row {
	const Disk *d;
	DiskClass cls;
	double smr, score;
	bool storm, idle;
	uint64_t stalls;		/* stall events in the last hour */
	double rp50, rp99, wp50, wp99;
	DiskRates rates;
	int severity;
	char pool[96];
} Row;

typedef struct StallCount {
	Row *rows;
	size_t n;
} StallCount;

static int row_by_name(const void *key, const void *elem)
{
	return strcmp(key, ((const Row *)elem)->d->name);
}

static int count_stall(const HistoryEvent *e, void *userdata)
{
	StallCount *sc = userdata;
	if (!streq(e->kind, detect_event_kind_to_string(EVENT_STALL)))
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
	{"storm", "Storm", false}, {"stalls", "Stalls 1h", true}, {"read", "Read p50 / p99", true},
	{"write", "Write p50 / p99", true}, {"tput", "Throughput", true},
};

typedef struct SortBy {
	int col;		/* -1: problems first */
	bool desc;
} SortBy;

static double key_num(const Row *r, const char *k)
{
	double v = streq(k, "smr") ? r->smr : streq(k, "score") ? r->score : streq(k, "stalls") ? (double)r->stalls
		 : streq(k, "read") ? r->rp99 : streq(k, "write") ? r->wp99 : r->rates.read_bytes + r->rates.write_bytes;
	return isfinite(v) ? v : -1;
}

static const char *key_str(const Row *r, const char *k)
{
	return streq(k, "model") ? r->d->sys.model : streq(k, "serial") ? r->d->sys.serial : streq(k, "pool") ? r->pool
	     : streq(k, "class") ? disk_class_to_string(r->cls) : streq(k, "why") ? r->d->verdict.basis
	     : streq(k, "storm") ? (r->storm ? "storm" : r->idle ? "idle-cleaning" : "") : r->d->name;
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
	return c ? c : strcmp(a->d->name, b->d->name);
}

static void fill_row(const Context *ctx, const Disk *d, Row *r)
{
	DetectScore sc;
	*r = (Row){.d = d, .cls = monitor_class(ctx->monitor, d), .smr = monitor_smr_confidence(ctx->monitor, d),
		   .storm = d->det_ready && d->det.storm, .idle = d->det_ready && d->det.idle,
		   .rp50 = NAN, .rp99 = NAN, .wp50 = NAN, .wp99 = NAN};
	monitor_score(ctx->monitor, d, &sc);
	r->score = sc.score;
	disk_rates(d, &r->rates);
	for (int op = 0; d->lat && op < 2; op++) {
		const OpLatency *ol = d->lat->op[op];
		if (!ol)
			continue;
		Hist h;
		lat_window_sum(&ol->window, 60, &h);
		*(op ? &r->wp50 : &r->rp50) = hist_quantile(&h, 0.5);
		*(op ? &r->wp99 : &r->rp99) = hist_quantile(&h, 0.99);
	}
	for (unsigned k = 0, o = 0; k < d->n_members && o < sizeof r->pool - 1; k++)
		o += (size_t)snprintf(r->pool + o, sizeof r->pool - o, "%s%s %s", k ? ", " : "",
				      member_type_to_string(d->members[k].type), d->members[k].name);
}

static int status_page(Web *w, const HttpRequest *req, HttpReply *ret)
{
	Context *ctx = w->ctx;
	size_t n = registry_size(ctx->disks);
	_cleanup_free_ Row *rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fill_row(ctx, registry_at(ctx->disks, i), &rows[i]);
	StallCount scnt = {rows, n};
	HistoryFilter f = {.since_usec = now_usec(CLOCK_REALTIME) - 3600 * UINT64_C(1000000), .limit = 10000};
	bool history_ok = history_query(monitor_history(ctx->monitor), &f, count_stall, &scnt) >= 0;
	unsigned storms = 0, stalling = 0, suspects = 0;
	for (size_t i = 0; i < n; i++) {
		Row *r = &rows[i];
		r->severity = r->storm ? 4 : r->stalls ? 3 : r->idle ? 2 : r->smr >= SMR_CONF_TRIM_HINT ? 1 : 0;
		storms += r->storm;
		stalling += r->stalls > 0;
		suspects += r->smr >= SMR_CONF_TRIM_HINT;
	}

	char sort[16] = "", dir[8] = "";
	query_get(req, "sort", sort, sizeof sort);
	query_get(req, "dir", dir, sizeof dir);
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
	buf_put(&b, "<h1>", 4);
	esc(&b, title);
	buf_printf(&b, "</h1><p id=\"summary\">%zu disk%s watched · <span class=\"%s\">%u in a destage storm</span> · "
		       "<span class=\"%s\">%u with stalls in the last hour</span> · %u SMR suspect%s",
		   n, n == 1 ? "" : "s", storms ? "bad" : "ok", storms, stalling ? "warn" : "ok", stalling, suspects,
		   suspects == 1 ? "" : "s");
	if (!history_ok)
		buf_put(&b, " · <span class=\"warn\">event history unreadable: stall counts incomplete</span>",
			strlen(" · <span class=\"warn\">event history unreadable: stall counts incomplete</span>"));
	buf_put(&b, "</p>\n<div class=\"wide\"><table id=\"disks\"><thead><tr>",
		strlen("</p>\n<div class=\"wide\"><table id=\"disks\"><thead><tr>"));
	for (size_t c = 0; c < ELEMENTSOF(columns); c++) {
		bool cur = by.col == (int)c;
		buf_printf(&b, "<th%s><a href=\"/?sort=%s%s\">%s%s</a></th>", columns[c].numeric ? " class=\"n\"" : "",
			   columns[c].key, cur && !by.desc ? "&amp;dir=desc" : "", columns[c].title,
			   cur ? (by.desc ? " ▼" : " ▲") : "");
	}
	buf_put(&b, "</tr></thead><tbody>\n", strlen("</tr></thead><tbody>\n"));
	for (size_t i = 0; i < n; i++) {
		const Row *r = &rows[i];
		buf_put(&b, "<tr data-device=\"", strlen("<tr data-device=\""));
		esc(&b, r->d->name);
		buf_printf(&b, "\" data-storm=\"%d\" data-severity=\"%d\"><td><a href=\"/disk/", r->storm, r->severity);
		esc(&b, r->d->name);
		buf_put(&b, "\">", 2);
		esc(&b, r->d->name);
		buf_put(&b, "</a></td><td class=\"model\">", strlen("</a></td><td class=\"model\">"));
		esc(&b, r->d->sys.model);
		buf_put(&b, "</td><td>", 9);
		esc(&b, r->d->sys.serial);
		buf_put(&b, "</td><td>", 9);
		esc(&b, r->pool);
		buf_printf(&b, "</td><td class=\"%s\">%s</td><td class=\"n\">", r->cls == DISK_CLASS_DM_SMR ? "warn" : "",
			   disk_class_to_string(r->cls));
		put_num(&b, r->smr, 2);
		buf_put(&b, "</td><td class=\"why\">", strlen("</td><td class=\"why\">"));
		esc(&b, r->d->verdict.basis);
		buf_put(&b, "</td><td class=\"n\">", strlen("</td><td class=\"n\">"));
		put_num(&b, r->score, 2);
		buf_printf(&b, "</td><td class=\"storm %s\">%s</td><td class=\"n%s\">%" PRIu64 "</td>",
			   r->storm ? "bad" : r->idle ? "warn" : "mute", r->storm ? "storm" : r->idle ? "idle-cleaning" : "–",
			   r->stalls ? " warn" : "", r->stalls);
		const double lat[][2] = {{r->rp50, r->rp99}, {r->wp50, r->wp99}};
		for (size_t k = 0; k < ELEMENTSOF(lat); k++) {
			buf_printf(&b, "<td class=\"n %s\">", k ? "write" : "read");
			put_latency(&b, lat[k][0]);
			buf_put(&b, " / ", 3);
			put_latency(&b, lat[k][1]);
			buf_put(&b, "</td>", 5);
		}
		buf_put(&b, "<td class=\"n\">", strlen("<td class=\"n\">"));
		put_rate(&b, r->rates.read_bytes + r->rates.write_bytes);
		buf_put(&b, "</td></tr>\n", strlen("</td></tr>\n"));
	}
	buf_put(&b, "</tbody></table></div>\n", strlen("</tbody></table></div>\n"));
	if (!n)
		buf_put(&b, "<p>No disk is watched (see --include/--exclude).</p>", strlen("<p>No disk is watched (see --include/--exclude).</p>"));
	page_foot(&b, ctx);
	*ret = html_reply(200, &b);
	return ret->body ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------ one disk */

typedef struct Timeline {
	TimelineMark m[128];
	char label[128][96];
	unsigned n;
	double now, span;
	double open_storm, open_idle;	/* a start seen, its end not yet: seconds ago */
	HistoryEvent recent[20];
	unsigned n_recent, first_recent;
	uint64_t total;
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
	/* the last ones for the table, in a ring */
	t->recent[(t->first_recent + t->n_recent) % ELEMENTSOF(t->recent)] = *e;
	if (t->n_recent < ELEMENTSOF(t->recent))
		t->n_recent++;
	else
		t->first_recent = (t->first_recent + 1) % ELEMENTSOF(t->recent);
	t->total++;
	double ago = t->now - (double)e->time_usec / 1e6;
	char label[96];
	snprintf(label, sizeof label, "%s %s", e->kind, e->op);
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
		snprintf(label, sizeof label, "stall: %s of %.3gs", e->op, e->latency);
		mark(t, "stall", ago, ago, label);
	}
	return 0;
}

static void percentile_table(Buf *b, const Disk *d)
{
	static const struct { const char *name; double seconds; } wins[] = {{"last", 1}, {"1m", 60}, {"10m", 600}};
	static const struct { const char *k; double q; } qs[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}};
	buf_put(b, "<table id=\"percentiles\"><thead><tr><th>op</th><th>window</th><th class=\"n\">I/Os</th>"
		   "<th class=\"n\">mean</th><th class=\"n\">p50</th><th class=\"n\">p90</th><th class=\"n\">p99</th>"
		   "<th class=\"n\">p99.9</th><th class=\"n\">max</th></tr></thead><tbody>",
		strlen("<table id=\"percentiles\"><thead><tr><th>op</th><th>window</th><th class=\"n\">I/Os</th>"
		       "<th class=\"n\">mean</th><th class=\"n\">p50</th><th class=\"n\">p90</th><th class=\"n\">p99</th>"
		       "<th class=\"n\">p99.9</th><th class=\"n\">max</th></tr></thead><tbody>"));
	bool any = false;
	for (int op = 0; d->lat && op < TRACE_OPS; op++) {
		const OpLatency *ol = d->lat->op[op];
		if (!ol)
			continue;
		for (size_t k = 0; k < ELEMENTSOF(wins); k++) {
			Hist h;
			lat_window_sum(&ol->window, wins[k].seconds, &h);
			buf_printf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">",
				   trace_op_to_string(op), wins[k].name, (uint64_t)h.count);
			put_latency(b, hist_mean(&h));
			for (size_t q = 0; q < ELEMENTSOF(qs); q++) {
				buf_put(b, "</td><td class=\"n\">", strlen("</td><td class=\"n\">"));
				put_latency(b, hist_quantile(&h, qs[q].q));
			}
			buf_put(b, "</td><td class=\"n\">", strlen("</td><td class=\"n\">"));
			put_latency(b, hist_max(&h));
			buf_put(b, "</td></tr>", 10);
			any = true;
		}
	}
	buf_put(b, "</tbody></table>", strlen("</tbody></table>"));
	if (!any)
		buf_put(b, "<p class=\"mute\">No traced I/O yet.</p>", strlen("<p class=\"mute\">No traced I/O yet.</p>"));
}

static void kv(Buf *b, const char *k, const char *v)
{
	buf_put(b, "<tr><th>", 8);
	esc(b, k);
	buf_put(b, "</th><td>", 9);
	esc(b, v);
	buf_put(b, "</td></tr>", 10);
}

static int disk_page(Web *w, const char *name, HttpReply *ret)
{
	Context *ctx = w->ctx;
	const Disk *d = registry_get(ctx->disks, name);
	Buf b = {0};
	if (!d) {
		page_head(&b, "smrd: no such disk", false);
		buf_put(&b, "<h1>No such disk</h1><p>", strlen("<h1>No such disk</h1><p>"));
		esc(&b, name);
		buf_put(&b, " is not a watched disk. <a href=\"/\">All disks</a></p>",
			strlen(" is not a watched disk. <a href=\"/\">All disks</a></p>"));
		page_foot(&b, ctx);
		*ret = html_reply(404, &b);
		return ret->body ? 0 : -ENOMEM;
	}
	_cleanup_free_ Verdict *v = malloc(sizeof *v);
	_cleanup_free_ Timeline *t = calloc(1, sizeof *t);
	_cleanup_free_ HeatColumn *cols = calloc(HEAT_COLUMNS, sizeof *cols);
	if (!v || !t || !cols)
		return -ENOMEM;
	monitor_verdict(ctx->monitor, ctx->models.list, d, v);
	DetectScore sc;
	monitor_score(ctx->monitor, d, &sc);
	const DiskSys *f = &d->sys;
	char title[96];
	snprintf(title, sizeof title, "smrd: %s", d->name);
	page_head(&b, title, true);
	buf_put(&b, "<p><a href=\"/\">← all disks</a></p><h1>", strlen("<p><a href=\"/\">← all disks</a></p><h1>"));
	esc(&b, d->name);
	if (d->sys.model[0]) {
		buf_put(&b, ": ", 2);
		esc(&b, d->sys.model);
	}
	buf_put(&b, "</h1>\n", 6);

	/* state first: what a person opening this page at 3 a.m. wants */
	bool storm = d->det_ready && d->det.storm;
	buf_printf(&b, "<p id=\"state\" data-storm=\"%d\" class=\"%s\">%s", storm,
		   storm ? "bad" : d->det_ready && d->det.idle ? "warn" : "ok",
		   storm ? "Destage storm under way" : d->det_ready && d->det.idle ? "Cleaning while idle" : "No storm");
	if (storm)
		buf_printf(&b, " for %.0f s", now_seconds(CLOCK_MONOTONIC) - d->det.storm_start);
	buf_put(&b, " · GC score ", strlen(" · GC score "));
	put_num(&b, sc.score, 2);
	buf_printf(&b, " · stalls (read/write) %" PRIu64 "/%" PRIu64 " since smrd started · %" PRIu64
		       " destage storm(s) on record</p>\n",
		   d->det.stalls[0], d->det.stalls[1], d->det.storms_known);

	buf_put(&b, "<h2>Class</h2><p id=\"class\"><b>", strlen("<h2>Class</h2><p id=\"class\"><b>"));
	buf_printf(&b, "%s</b> (confidence ", disk_class_to_string(v->class));
	put_num(&b, v->confidence, 2);
	buf_put(&b, "), SMR confidence ", strlen("), SMR confidence "));
	put_num(&b, v->smr_confidence, 2);
	buf_put(&b, ": ", 2);
	esc(&b, v->basis);
	buf_put(&b, "</p><table id=\"evidence\"><thead><tr><th></th><th>source</th><th>value</th><th>implies</th></tr></thead><tbody>",
		strlen("</p><table id=\"evidence\"><thead><tr><th></th><th>source</th><th>value</th><th>implies</th></tr></thead><tbody>"));
	for (unsigned i = 0; i < v->n_evidence; i++) {
		const Evidence *e = &v->evidence[i];
		buf_printf(&b, "<tr%s><td>%s</td><td>", e->decisive ? " class=\"decisive\"" : "", e->decisive ? "★" : "");
		esc(&b, e->source);
		buf_put(&b, "</td><td>", 9);
		esc(&b, e->value);
		buf_put(&b, "</td><td class=\"why\">", strlen("</td><td class=\"why\">"));
		esc(&b, e->implies);
		buf_put(&b, "</td></tr>", 10);
	}
	buf_put(&b, "</tbody></table>\n", strlen("</tbody></table>\n"));

	/* the heatmaps and the timeline share one time axis: ten minutes, or
	 * as much as smrd has seen of the disk (a minute at least), so that a
	 * storm just after start is not squeezed into the right edge */
	unsigned ncols = 6;
	for (int op = 0; d->lat && op < TRACE_OPS; op++)
		if (d->lat->op[op] && d->lat->op[op]->window.used + 1 > ncols)
			ncols = d->lat->op[op]->window.used + 1;
	ncols = ncols > HEAT_COLUMNS ? HEAT_COLUMNS : ncols;
	t->now = now_seconds(CLOCK_REALTIME);
	t->span = ncols * (double)WINDOW_SLOT_SECONDS;
	t->open_storm = t->open_idle = NAN;
	HistoryFilter hf = {.device = d->name, .since_usec = (uint64_t)((t->now - t->span) * 1e6), .limit = 1000};
	bool history_ok = history_query(monitor_history(ctx->monitor), &hf, on_event, t) >= 0;
	if (storm)
		mark(t, "storm", now_seconds(CLOCK_MONOTONIC) - d->det.storm_start, 0, "destage storm (under way)");
	else if (isfinite(t->open_storm))
		mark(t, "storm", t->open_storm, 0, "destage storm");
	if (d->det_ready && d->det.idle)
		mark(t, "idle-cleaning", isfinite(t->open_idle) ? t->open_idle : now_seconds(CLOCK_MONOTONIC) - d->det.idle_start,
		     0, "idle cleaning (under way)");
	buf_printf(&b, "<h2>Latency, last %u %s</h2>", t->span >= 120 ? (unsigned)(t->span / 60) : (unsigned)t->span,
		   t->span >= 120 ? "minutes" : "seconds");
	for (int op = 0; op < 2; op++) {
		const OpLatency *ol = d->lat ? d->lat->op[op] : NULL;
		for (unsigned c = 0; c < ncols; c++) {
			cols[c] = (HeatColumn){0};
			if (ol)
				lat_window_slot(&ol->window, ncols - 1 - c, &cols[c].h, &cols[c].seconds);
		}
		buf_printf(&b, "<h3>%s</h3>", trace_op_to_string(op));
		heatmap_svg(&b, trace_op_to_string(op), cols, ncols, WINDOW_SLOT_SECONDS);
		if (!ol)
			buf_printf(&b, "<p class=\"mute\">No traced %ss.</p>", trace_op_to_string(op));
	}
	buf_put(&b, "<h3>Storms, idle cleaning and stalls</h3>", strlen("<h3>Storms, idle cleaning and stalls</h3>"));
	timeline_svg(&b, t->m, t->n, t->span);
	if (!history_ok)
		buf_put(&b, "<p class=\"warn\">The event history could not be read.</p>",
			strlen("<p class=\"warn\">The event history could not be read.</p>"));

	buf_put(&b, "<h2>Percentiles</h2>", strlen("<h2>Percentiles</h2>"));
	percentile_table(&b, d);

	buf_put(&b, "<h2>Recent events</h2><table id=\"events\"><thead><tr><th>time</th><th>event</th><th>op</th>"
		    "<th>message</th></tr></thead><tbody>",
		strlen("<h2>Recent events</h2><table id=\"events\"><thead><tr><th>time</th><th>event</th><th>op</th>"
		       "<th>message</th></tr></thead><tbody>"));
	for (unsigned i = t->n_recent; i-- > 0;) {
		const HistoryEvent *e = &t->recent[(t->first_recent + i) % ELEMENTSOF(t->recent)];
		buf_put(&b, "<tr><td>", 8);
		put_time(&b, e->time_usec);
		buf_put(&b, "</td><td>", 9);
		esc(&b, e->kind);
		buf_put(&b, "</td><td>", 9);
		esc(&b, e->op);
		buf_put(&b, "</td><td class=\"why\">", strlen("</td><td class=\"why\">"));
		esc(&b, e->message);
		buf_put(&b, "</td></tr>", 10);
	}
	buf_put(&b, "</tbody></table>", strlen("</tbody></table>"));
	if (!t->n_recent)
		buf_printf(&b, "<p class=\"mute\">No event in the last %.0f seconds.</p>", t->span);

	buf_put(&b, "<h2>Identity</h2><table id=\"identity\">", strlen("<h2>Identity</h2><table id=\"identity\">"));
	char s[160];
	kv(&b, "model", d->sys.model);
	kv(&b, "serial", d->sys.serial);
	kv(&b, "wwn", d->sys.wwn);
	kv(&b, "firmware", d->sys.firmware);
	kv(&b, "transport", transport_to_string(f->transport));
	snprintf(s, sizeof s, "%u:%u", d->sys.major, d->sys.minor);
	kv(&b, "device number", s);
	snprintf(s, sizeof s, "%.1f GB", (double)d->sys.size_sectors * 512 / 1e9);
	kv(&b, "size", s);
	kv(&b, "zoned", f->zoned[0] ? f->zoned : "none");
	if (d->sys.io_timeout_ms > 0) {
		snprintf(s, sizeof s, "%.1f s", d->sys.io_timeout_ms / 1000.0);
		kv(&b, "I/O timeout", s);
	}
	for (unsigned k = 0; k < d->n_members; k++) {
		snprintf(s, sizeof s, "%s %s (via %s)", member_type_to_string(d->members[k].type), d->members[k].name,
			 d->members[k].via);
		kv(&b, "member of", s);
	}
	buf_put(&b, "</table>", 8);
	buf_put(&b, "<p class=\"mute\">The same as JSON: <a href=\"/api/v1/disks/", strlen("<p class=\"mute\">The same as JSON: <a href=\"/api/v1/disks/"));
	esc(&b, d->name);
	buf_put(&b, "\">/api/v1/disks/", strlen("\">/api/v1/disks/"));
	esc(&b, d->name);
	buf_put(&b, "</a></p>", 8);
	page_foot(&b, ctx);
	*ret = html_reply(200, &b);
	return ret->body ? 0 : -ENOMEM;
}

/* --------------------------------------------------------------- /api/v1 */

static HttpReply json_reply(unsigned status, json_object *o)
{
	Buf b = {0};
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	buf_put(&b, s, strlen(s));
	buf_put(&b, "\n", 1);
	json_object_put(o);
	return (HttpReply){.status = status, .type = "application/json", .body = body_from(&b)};
}

static HttpReply api_error(unsigned status, ProtoError code, const char *message)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();
	json_object_object_add(e, "code", json_object_new_string(proto_error_to_string(code)));
	json_object_object_add(e, "message", json_object_new_string(message));
	json_object_object_add(o, "error", e);
	return json_reply(status, o);
}

static void json_putp(json_object **o)
{
	if (*o)
		json_object_put(*o);
}

/* The read-only commands of the control protocol, with the same answers. */
static int api(Web *w, const HttpRequest *req, const char *rest, HttpReply *ret)
{
	const char *command = NULL;
	_cleanup_(json_putp) json_object *args = json_object_new_object();
	char v[256];
	if (!args)
		return -ENOMEM;
	if (streq(rest, "status"))
		command = "status";
	else if (streq(rest, "disks"))
		command = "disks";
	else if (strncmp(rest, "disks/", 6) == 0 && rest[6]) {
		command = "show";
		json_object_object_add(args, "device", json_object_new_string(rest + 6));
	} else if (streq(rest, "events")) {
		command = "events";
		static const char *const keys[] = {"device", "since", "after", "limit"};
		for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
			if (!query_get(req, keys[k], v, sizeof v))
				continue;
			char *end;
			if (k == 0) {
				json_object_object_add(args, keys[k], json_object_new_string(v));
				continue;
			}
			errno = 0;
			double x = strtod(v, &end);
			if (!*v || *end || errno || !isfinite(x)) {
				*ret = api_error(400, PROTO_ERR_BAD_ARGUMENT, "since, after and limit are numbers");
				return ret->body ? 0 : -ENOMEM;
			}
			json_object_object_add(args, keys[k], k == 1 ? json_number(x, 6) : json_object_new_int64((int64_t)x));
		}
	} else {
		*ret = api_error(404, PROTO_ERR_UNKNOWN_COMMAND, "no such endpoint: see docs/protocol.md, \"HTTP\"");
		return ret->body ? 0 : -ENOMEM;
	}
	json_object *result = NULL;
	ProtoError err = PROTO_ERR_INTERNAL;
	_cleanup_free_ char *msg = NULL;
	int r = commands_dispatch(w->ctx, command, args, NULL, &result, &err, &msg);
	if (r < 0) {
		json_object_put(result);
		unsigned status = err == PROTO_ERR_NO_SUCH_DEVICE ? 404 : err == PROTO_ERR_BAD_ARGUMENT ? 400 : 500;
		*ret = api_error(status, err, msg ? msg : "failed");
		return ret->body ? 0 : -ENOMEM;
	}
	*ret = json_reply(200, result);
	return ret->body ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------- routing */

int web_handle(void *userdata, const HttpRequest *req, HttpReply *ret)
{
	Web *w = userdata;
	*ret = (HttpReply){0};
	if (streq(req->path, "/metrics"))
		return metrics_page(w, req, ret);
	if (w->ctx->oneshot)
		return -EOPNOTSUPP;
	if (streq(req->path, "/") || streq(req->path, "/index.html"))
		return status_page(w, req, ret);
	if (strncmp(req->path, "/disk/", 6) == 0) {
		return disk_page(w, req->path + 6, ret);
	}
	if (strncmp(req->path, "/api/v1/", 8) == 0)
		return api(w, req, req->path + 8, ret);
	Buf b = {0};
	buf_put(&b, "not found: try / (status), /metrics, /api/v1/status\n",
		strlen("not found: try / (status), /metrics, /api/v1/status\n"));
	*ret = (HttpReply){.status = 404, .type = "text/plain; charset=utf-8", .body = body_from(&b)};
	return ret->body ? 0 : -ENOMEM;
}
