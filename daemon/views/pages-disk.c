/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /disk/NAME: the disk's state, class and evidence, latency heatmaps and
 * its writes per second, the storm and stall timeline, percentiles, its
 * storms and last events from the history, identity.
 */
#include "pages.h"
#include "pages-internal.h"
#include "pages-acks.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "format.h"
#include "history.h"
#include "idle-views.h"
#include "monitor.h"
#include "rebuild-views.h"
#include "statuspage.h"

#define HEAT_COLUMNS (WINDOW_SLOTS + 1)	/* ten minutes of slots and the one in progress */

/* ------------------------------------------------------------ one disk */

typedef struct Timeline {
	TimelineMark m[128];
	char label[128][96];
	unsigned n;
	double now, span;
	double open_storm, open_idle;	/* a start seen, its end not yet: seconds ago */
	HistoryEvent recent[20];	/* the disk's newest events, however old, oldest first */
	unsigned n_recent;
	HistoryEvent storms[2][10];	/* its newest storm starts and ends, oldest first */
	unsigned n_storms[2];
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
		page_latency(b, v->storm_latency);
		buf_puts(b, " in its slow seconds");
	}
	buf_puts(b, " · GC score ");
	page_num(b, v->score.score, 2);
	buf_printf(b, " · stalls (read/write) %" PRIu64 "/%" PRIu64 " since smrd started, %" PRIu64
		      " in the last hour (over %s) · %" PRIu64 " destage storm(s) on record</p>\n",
		   v->stalls[TRACE_READ], v->stalls[TRACE_WRITE], v->stalls_hour, format_duration(t, v->stall_threshold),
		   v->storms_known);
	if (disk_model_known(&v->cache)) {
		char a[FORMAT_MAX], c[FORMAT_MAX];
		buf_printf(b, "<p id=\"cache\" class=\"%s\">Media cache %s%s", isfinite(v->forecast) ? "warn" : "",
			   v->cache.cache_lower_bound ? "at least " : "~", format_size(a, v->cache.media_cache_bytes));
		if (v->cache.cache_samples > 1)
			buf_printf(b, " (from %u fills)", v->cache.cache_samples);
		if (!v->cache_sure)
			buf_puts(b, ", fill unknown (smrd has not seen it clean or full since it started)");
		else if (isfinite(v->cache_fill)) {
			buf_puts(b, ", ");
			page_cache_meter(b, v);
			buf_puts(b, " full");
		}
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
	page_num(b, v->confidence, 2);
	buf_puts(b, "), SMR confidence ");
	page_num(b, v->smr_confidence, 2);
	buf_puts(b, ": ");
	page_esc(b, v->basis);
	buf_puts(b, "</p><div class=\"wide\"><table id=\"evidence\"><thead><tr><th></th><th title=\"1 is the strongest "
		    "source (docs/classification.md)\">rank</th><th>speaks for</th><th>source</th><th>value</th><th>implies</th>"
		    "</tr></thead><tbody>");
	for (unsigned i = 0; i < v->n_evidence; i++) {
		const Evidence *e = &v->evidence[i];
		bool ranked = e->rank != EVIDENCE_FACT && e->class >= 0;
		char rank[8] = "";
		if (ranked)
			snprintf(rank, sizeof rank, "%d", (int)e->rank);
		buf_printf(b, "<tr%s><td>%s</td>", e->decisive ? " class=\"decisive\"" : "", e->decisive ? "★" : "");
		page_cells(b, (const char *const[]){rank, ranked ? disk_class_to_string(e->class) : "", e->source, e->value,
						    e->implies}, 5);
	}
	buf_puts(b, "</tbody></table></div>\n");
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
	bool history_ok = history_query(ctx->history, &hf, on_event, t) >= 0;
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

static void percentile_table(Buf *b, Disk *d)
{
	const DiskView *v = &d->view;
	buf_puts(b, "<h2>Percentiles</h2><div class=\"wide\"><table id=\"percentiles\"><thead><tr><th>op</th><th>window</th>"
		    "<th class=\"n\">I/Os</th><th class=\"n\">mean</th><th class=\"n\">p50</th><th class=\"n\">p90</th>"
		    "<th class=\"n\">p99</th><th class=\"n\">p99.9</th><th class=\"n\">max</th></tr></thead><tbody>");
	bool any = false;
	for (int op = 0; op < TRACE_OPS; op++) {
		if (!v->op[op].traced)
			continue;
		for (int k = 0; k < _VIEW_WINDOW_MAX; k++) {
			const LatSummary *l = diskview_latency(d, op, (ViewWindow)k);
			const float q[] = {l->mean, l->p50, l->p90, l->p99, l->p999, l->max};
			buf_printf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td>", trace_op_to_string(op),
				   view_windows[k].name, l->count);
			for (size_t i = 0; i < ELEMENTSOF(q); i++) {
				buf_puts(b, "<td class=\"n\">");
				page_latency(b, q[i]);
				buf_puts(b, "</td>");
			}
			buf_puts(b, "</tr>");
			any = true;
		}
	}
	buf_puts(b, "</tbody></table></div>");
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

typedef struct StormsRun {
	Timeline *t;
	int end;
} StormsRun;

static int on_storm(const HistoryEvent *e, void *userdata)
{
	StormsRun *r = userdata;
	unsigned *n = &r->t->n_storms[r->end];
	if (*n < ELEMENTSOF(r->t->storms[0]))
		r->t->storms[r->end][(*n)++] = *e;
	return 0;
}

/* The storms "on record", with their dates: stalls are far more numerous
 * and would push them out of the last events. Starts and ends, newest
 * first; an end's message has the storm's figures. */
static bool storms_table(Buf *b, const Context *ctx, const Disk *d, Timeline *t)
{
	bool ok = true;
	for (int end = 0; end < 2; end++) {
		HistoryFilter f = {.device = d->name, .kind = end ? "storm-end" : "storm-start",
				   .limit = ELEMENTSOF(t->storms[0])};
		StormsRun run = {t, end};
		ok &= history_query(ctx->history, &f, on_storm, &run) >= 0;
	}
	buf_puts(b, "<h2>Destage storms</h2><div class=\"wide\"><table id=\"storms\"><thead><tr><th>time</th><th>event</th>"
		    "<th>message</th></tr></thead><tbody>");
	unsigned i = t->n_storms[0], k = t->n_storms[1], shown = 0;
	while ((i || k) && shown++ < ELEMENTSOF(t->storms[0])) {
		/* the newer of the two lists' last */
		bool take_end = k && (!i || t->storms[1][k - 1].time_usec >= t->storms[0][i - 1].time_usec);
		const HistoryEvent *e = take_end ? &t->storms[1][--k] : &t->storms[0][--i];
		buf_puts(b, "<tr><td>");
		page_time(b, e->time_usec);
		buf_puts(b, "</td>");
		page_cells(b, (const char *const[]){e->kind, e->message}, 2);
	}
	buf_puts(b, "</tbody></table></div>");
	if (ok && !t->n_storms[0] && !t->n_storms[1])
		buf_puts(b, "<p class=\"mute\">No destage storm on record.</p>");
	return ok;
}

#define PAGE_INCIDENTS 10

typedef struct Incidents {
	Incident *i;
	unsigned n;
} Incidents;

static int on_incident(const Incident *i, void *userdata)
{
	Incidents *x = userdata;
	if (x->n < PAGE_INCIDENTS)
		x->i[x->n++] = *i;
	return 0;
}

/* The disk's newest incidents, newest first: what each was, its steps. */
static bool incidents_table(Buf *b, const Context *ctx, const Disk *d)
{
	_cleanup_free_ Incident *all = calloc(PAGE_INCIDENTS, sizeof *all);
	Incidents x = {.i = all};
	HistoryIncidentFilter f = {.device = d->name, .limit = PAGE_INCIDENTS};
	bool ok = all && history_query_incidents(ctx->history, &f, on_incident, &x) >= 0;
	buf_printf(b, "<h2>Incidents</h2><p class=\"mute\">A storm, a rebuild onto the disk or a run of slow I/Os, each "
		      "with its steps and counts; the newest %d: <code>smrctl incidents --device ", PAGE_INCIDENTS);
	page_esc(b, d->name);
	buf_puts(b, "</code>.</p><div class=\"wide\"><table id=\"incidents\"><thead><tr><th>began</th><th>ended</th>"
		    "<th>kind</th><th>severity</th><th>what</th></tr></thead><tbody>");
	for (unsigned k = x.n; k-- > 0;) {
		const Incident *i = &x.i[k];
		char line[1024];
		buf_puts(b, "<tr><td>");
		page_time(b, i->start_usec);
		buf_puts(b, "</td><td>");
		if (i->end_usec)
			page_time(b, i->end_usec);
		else
			buf_puts(b, "under way");
		buf_puts(b, "</td>");
		page_cells(b, (const char *const[]){incident_kind_to_string(i->kind), incident_severity(i),
						    incident_summary(i, line, sizeof line)}, 3);
		/* the rows end at page_cells: the steps beneath, one line each */
		buf_puts(b, "<tr class=\"steps\"><td></td><td colspan=\"4\">");
		for (unsigned s = 0; s < i->n_steps; s++) {
			page_time(b, i->steps[s].time_usec);
			buf_printf(b, " %s: ", detect_event_kind_to_string(i->steps[s].kind));
			page_esc(b, i->steps[s].message);
			buf_puts(b, "<br>");
		}
		buf_puts(b, "</td></tr>");
	}
	buf_puts(b, "</tbody></table></div>");
	if (ok && !x.n)
		buf_puts(b, "<p class=\"mute\">No incident on record.</p>");
	return ok;
}

/* The disk's incidents and last events from the history, however old. */
static void events_table(Buf *b, const Context *ctx, const Disk *d, Timeline *t)
{
	bool ok = storms_table(b, ctx, d, t);
	ok &= incidents_table(b, ctx, d);
	HistoryFilter f = {.device = d->name, .limit = ELEMENTSOF(t->recent)};
	ok &= history_query(ctx->history, &f, on_recent, t) >= 0;
	buf_printf(b, "<h2>Last events</h2><p class=\"mute\">The newest %zu on record, newest first; all of them: "
		      "<code>smrctl events --device ", ELEMENTSOF(t->recent));
	page_esc(b, d->name);
	buf_puts(b, "</code>.</p><div class=\"wide\"><table id=\"events\"><thead><tr><th>time</th><th>event</th><th>op</th>"
		    "<th>message</th></tr></thead><tbody>");
	for (unsigned i = t->n_recent; i-- > 0;) {
		const HistoryEvent *e = &t->recent[i];
		buf_puts(b, "<tr><td>");
		page_time(b, e->time_usec);
		buf_puts(b, "</td>");
		page_cells(b, (const char *const[]){e->kind, e->op, e->message}, 3);
	}
	buf_puts(b, "</tbody></table></div>");
	if (!ok)
		buf_puts(b, "<p class=\"warn\">The event history could not be read.</p>");
	else if (!t->n_recent)
		buf_puts(b, "<p class=\"mute\">No event on record.</p>");
}

static void kv(Buf *b, const char *k, const char *v)
{
	buf_puts(b, "<tr><th>");
	page_esc(b, k);
	buf_puts(b, "</th><td>");
	page_esc(b, v);
	buf_puts(b, "</td></tr>");
}

static void identity_table(Buf *b, const Disk *d)
{
	char s[160], t[FORMAT_MAX];
	buf_puts(b, "<h2>Identity</h2><div class=\"wide\"><table id=\"identity\">");
	kv(b, "model", d->sys.model);
	kv(b, "serial", d->sys.serial);
	kv(b, "wwn", d->sys.wwn);
	kv(b, "firmware", d->sys.firmware);
	kv(b, "transport", transport_to_string(d->sys.facts.transport));
	snprintf(s, sizeof s, "%u:%u", d->sys.major, d->sys.minor);
	kv(b, "device number", s);
	kv(b, "size", format_size(t, (double)d->sys.size_sectors * 512));
	kv(b, "zoned", d->sys.facts.zoned[0] ? d->sys.facts.zoned : "none");
	if (d->sys.io_timeout_ms > 0)
		kv(b, "I/O timeout", format_duration(t, (double)d->sys.io_timeout_ms / 1000));
	for (unsigned k = 0; k < d->n_members; k++) {
		snprintf(s, sizeof s, "%s %s (via %s)", member_type_to_string(d->members[k].type), d->members[k].name,
			 d->members[k].via);
		kv(b, "member of", s);
	}
	buf_puts(b, "</table></div><p class=\"mute\">The same as JSON: <a href=\"/api/v1/disks/");
	url_escape(b, d->name);
	buf_puts(b, "\">/api/v1/disks/");
	page_esc(b, d->name);
	buf_puts(b, "</a></p>");
}

/* Which disk this is, under its name: what the person pulling it checks
 * first (the whole identity is at the page's end). */
static void identity_line(Buf *b, const Disk *d)
{
	char t[FORMAT_MAX];
	buf_puts(b, "<p id=\"who\">serial <strong>");
	page_esc(b, d->sys.serial[0] ? d->sys.serial : "unknown");
	buf_puts(b, "</strong> · ");
	const RebuildState *rb = disk_rebuild(d);
	if (d->view.pool) {
		buf_puts(b, "pool <strong>");
		page_esc(b, d->view.pool);
		buf_puts(b, "</strong>");
	} else if (rb->phase != REBUILD_PHASE_NONE) {
		/* written into a pool whose signature it does not carry yet */
		buf_printf(b, "%s <strong>", rb->phase == REBUILD_PHASE_RUNNING ? "being rebuilt into" : "rebuilt into");
		page_esc(b, rb->pool);
		buf_puts(b, "</strong>");
	} else
		buf_puts(b, "in no pool or array");
	if (d->sys.wwn[0]) {
		buf_puts(b, " · WWN ");
		page_esc(b, d->sys.wwn);
	}
	buf_printf(b, " · %s · %s</p>\n", format_size(t, (double)d->sys.size_sectors * 512),
		   transport_to_string(d->sys.facts.transport));
}

static int no_such_disk(const Context *ctx, const char *name, HttpReply *ret)
{
	Buf b = {0};
	page_head(&b, "smrd: no such disk", false);
	buf_puts(&b, "<h1>No such disk</h1><p>");
	page_esc(&b, name);
	buf_puts(&b, " is not a watched disk. <a href=\"/\">All disks</a></p>");
	page_foot(&b, ctx);
	return html_reply(404, &b, ret);
}

int pages_disk(const Context *ctx, const char *name, HttpReply *ret)
{
	Disk *d = registry_get(ctx->disks, name);
	if (!d)
		return no_such_disk(ctx, name, ret);
	_cleanup_free_ Verdict *v = malloc(sizeof *v);
	_cleanup_free_ Timeline *t = calloc(1, sizeof *t);
	if (!v || !t)
		return -ENOMEM;
	disk_verdict(d, v);	/* what discovery kept: a page classifies nothing */
	t->now = now_seconds(CLOCK_REALTIME);
	Buf b = {0};
	char title[96];
	snprintf(title, sizeof title, "smrd: %s", d->name);
	page_head(&b, title, true);
	buf_puts(&b, "<p><a href=\"/\">← all disks</a></p><h1>");
	page_esc(&b, d->name);
	if (d->sys.model[0]) {
		buf_puts(&b, ": ");
		page_esc(&b, d->sys.model);
	}
	buf_puts(&b, "</h1>\n");
	identity_line(&b, d);
	if (disk_rebuild(d)->phase != REBUILD_PHASE_NONE) {
		/* under its name: on a phone's first screen */
		char line[256];
		buf_printf(&b, "<p id=\"rebuild\" class=\"rebuild%s\">Rebuild onto it: ",
			   disk_rebuild(d)->phase == REBUILD_PHASE_RUNNING ? " warn" : "");
		page_esc(&b, rebuild_line(d, line, sizeof line));
		buf_puts(&b, "</p>\n");
	}
	Advice a;
	if (page_advice(d, v->class, &a)) {
		buf_printf(&b, "<p id=\"todo\" class=\"%s\"><strong>What to do now:</strong> ",
			   d->view.severity >= DISK_SEVERITY_STORM ? "bad" : "warn");
		page_advice_text(&b, &a);
		buf_puts(&b, "</p>\n");
	}
	disk_state(&b, d, t->now);
	pages_disk_acks(&b, ctx, d);
	disk_class_section(&b, v);
	int r = disk_latency_section(&b, ctx, d, t);
	if (r < 0) {
		buf_free(&b);
		return r;
	}
	percentile_table(&b, d);
	idle_page_section(&b, d);
	events_table(&b, ctx, d, t);
	identity_table(&b, d);
	page_foot(&b, ctx);
	return html_reply(200, &b, ret);
}
