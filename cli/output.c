/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text rendering of control-protocol replies. Values the daemon may omit are
 * read with defaults, so an older or newer daemon still prints something sane.
 */
#include "output.h"

#include "format.h"

#include "protocol.h"

#include <time.h>

#include <math.h>
#include <string.h>

#include "util.h"

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *output_str(json_object *o, const char *key) { return jstr(o, key); }
double output_num(json_object *o, const char *key) { return jnum(o, key); }
json_object *output_get(json_object *o, const char *key) { return jget(o, key); }

/* A reply's time as broken-down time; false for one no time_t holds (an
 * open incident's end is NaN; a reply may carry anything, and the cast of
 * such a value is undefined). */
bool output_tm(double t, bool utc, struct tm *tm)
{
	if (!isfinite(t) || fabs(t) > 1e15)
		return false;
	time_t s = (time_t)t;
	return utc ? gmtime_r(&s, tm) != NULL : localtime_r(&s, tm) != NULL;
}

size_t output_list(FILE *f, json_object *r, const char *key, const char *none, json_object **ret_list)
{
	json_object *a = jget(r, key);
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	if (n == 0 && none)
		fprintf(f, "%s\n", none);
	*ret_list = a;
	return n;
}

const char *output_bytes(double v, char *buf, size_t n)
{
	char t[FORMAT_MAX];
	snprintf(buf, n, "%s", format_size(t, v));
	return buf;
}

const char *output_latency(json_object *v, char *buf, size_t n)
{
	/* diskstats counts milliseconds: an average of 0 means under 1 ms */
	if (v && json_object_get_double(v) == 0) {
		snprintf(buf, n, "<1 ms");	/* format_duration's "1 ms" */
		return buf;
	}
	return output_seconds(v ? json_object_get_double(v) : NAN, buf, n);
}

const char *output_seconds(double s, char *buf, size_t n)
{
	char t[FORMAT_MAX];
	snprintf(buf, n, "%s", format_duration(t, s));
	return buf;
}

/* The length of the UTF-8 sequence at s of a printable code point, or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!n || s[0] >= 0xf5)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;	/* C1 controls, U+0080..U+009F: CSI among them */
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;	/* overlong */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f)))
		return 0;
	return n;
}

char *output_escape(const char *s)
{
	Buf b = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_printable(p) : (*p >= 0x20 && *p != 0x7f);
		if (n) {
			buf_put(&b, (const char *)p, n);
			p += n;
		} else {
			buf_printf(&b, "\\x%02x", *p++);
		}
	}
	buf_put(&b, "", 0);
	if (b.oom || !b.data) {
		buf_free(&b);
		return strdup("?");
	}
	return b.data;
}

void output_make_safe(json_object *r)
{
	switch (json_object_get_type(r)) {
	case json_type_string: {
		const char *s = json_object_get_string(r);
		bool clean = true;
		for (const unsigned char *p = (const unsigned char *)s; *p && clean; p++)
			clean = *p >= 0x20 && *p < 0x7f;
		if (!clean) {
			_cleanup_free_ char *e = output_escape(s);
			json_object_set_string(r, e);
		}
		break;
	}
	case json_type_object: {
		json_object_object_foreach(r, k, v) {
			(void)k;
			output_make_safe(v);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(r); i++)
			output_make_safe(json_object_array_get_idx(r, i));
		break;
	default:
		break;
	}
}

void output_json(FILE *f, json_object *r)
{
	fprintf(f, "%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
}

void output_status(FILE *f, json_object *r)
{
	double up = jnum(r, "uptime_seconds");
	long u = isfinite(up) && fabs(up) < 1e15 ? (long)up : 0;
	fprintf(f, "smrd %s, pid %.0f, up %ldh %02ldm %02lds\n", jstr(r, "version"), jnum(r, "pid"),
		u / 3600, u / 60 % 60, u % 60);
	const char *listen = jstr(r, "listen");
	/* ":9863" and "0.0.0.0:9863" listen everywhere; a browser wants a host. */
	const char *host = listen[0] == ':' ? "localhost" : strncmp(listen, "0.0.0.0:", 8) == 0 ? "localhost:" : "";
	fprintf(f, "metrics:     http://%s%s/metrics\n", host, strncmp(listen, "0.0.0.0:", 8) == 0 ? listen + 8 : listen);
	json_object *exists;
	if (json_object_object_get_ex(r, "config_exists", &exists) && !json_object_get_boolean(exists))
		fprintf(f, "config:      none: built-in defaults (%s does not exist)\n", jstr(r, "config"));
	else
		fprintf(f, "config:      %s\n", jstr(r, "config"));
	fprintf(f, "model list:  %s (%.0f entries)\n", jstr(r, "model_list"), jnum(r, "model_list_entries"));
	fprintf(f, "latency:     %s\n", jstr(r, "latency_source"));
	char every[FORMAT_MAX];
	fprintf(f, "sampling:    every %s, %.0f samples", format_duration(every, jnum(r, "interval_seconds")),
		jnum(r, "samples"));
	double lag = jnum(r, "event_loop_lag_seconds");
	if (!isnan(lag))	/* an older smrd does not say */
		fprintf(f, ", at most %.0f ms late in the last minute", lag * 1e3);
	fprintf(f, "\n");
	fprintf(f, "disks:       %.0f watched, %.0f SMR suspect(s)\n", jnum(r, "disks_watched"), jnum(r, "smr_suspects"));
	json_object *h = jget(r, "history");
	if (h) {
		const char *state = jstr(h, "state");
		fprintf(f, "history:     %s (%s", jstr(h, "path"), *state ? state : "?");
		if (jnum(h, "pending") > 0)
			fprintf(f, ", %.0f event(s) kept in memory until it can be written", jnum(h, "pending"));
		if (jnum(h, "dropped") > 0)
			fprintf(f, ", %.0f lost", jnum(h, "dropped"));
		fprintf(f, ")%s%s\n", *jstr(h, "error") ? ": " : "", jstr(h, "error"));
	}
	json_object *bc = jget(r, "disks_by_class");
	if (bc && json_object_is_type(bc, json_type_object)) {
		fprintf(f, "by class:   ");
		json_object_object_foreach(bc, k, v)
			if (json_object_get_int(v) > 0)
				fprintf(f, " %s %d", k, json_object_get_int(v));
		fprintf(f, "\n");
	}
}

/* The daemon's pool string ("zfs:tank", "zfs:tank lvm:vg0"), "-" for none. */
static const char *output_pool(json_object *d)
{
	const char *p = jstr(d, "pool");
	return p[0] ? p : "-";
}

void output_disks(FILE *f, json_object *r)
{
	json_object *a;
	size_t n = output_list(f, r, "disks", "no disks watched", &a);
	if (n == 0)
		return;
	fprintf(f, "%-10s %-24s %-12s %-14s %5s %5s %8s %8s %9s %9s %8s %8s  %s\n", "DEVICE", "MODEL", "CLASS", "POOL",
		"SMR", "GC", "R/S", "W/S", "READ/S", "WRITE/S", "R-LAT", "W-LAT", "STATE");
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(a, i);
		char rb[16], wb[16], rl[16], wl[16];
		/* the state the status page sorts by: storm, stalls, cleaning, ... or ok */
		fprintf(f, "%-10s %-24.24s %-12s %-14.14s %5.2f %5.2f %8.1f %8.1f %9s %9s %8s %8s  %s\n", jstr(d, "device"),
			jstr(d, "model"), jstr(d, "class"), output_pool(d), jnum(d, "smr_confidence"), jnum(d, "gc_score"),
			jnum(d, "reads_per_second"),
			jnum(d, "writes_per_second"), output_bytes(jnum(d, "read_bytes_per_second"), rb, sizeof rb),
			output_bytes(jnum(d, "write_bytes_per_second"), wb, sizeof wb),
			output_latency(jget(d, "read_latency_seconds"), rl, sizeof rl),
			output_latency(jget(d, "write_latency_seconds"), wl, sizeof wl),
			jstr(d, "severity")[0] ? jstr(d, "severity") : "-");
	}
}

void output_evidence(FILE *f, json_object *ev)
{
	size_t n = ev && json_object_is_type(ev, json_type_array) ? json_object_array_length(ev) : 0;
	fprintf(f, "evidence (* decided the class; rank: 1 is the strongest source, docs/classification.md):\n");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i), *dec = jget(e, "decisive"), *rank = jget(e, "rank");
		char r[8] = "-";
		if (rank && json_object_is_type(rank, json_type_int))
			snprintf(r, sizeof r, "%d", json_object_get_int(rank));
		fprintf(f, "  %c %2s %-12s %-34s %-22s -> %s\n", dec && json_object_get_boolean(dec) ? '*' : ' ', r,
			jstr(e, "class")[0] ? jstr(e, "class") : "-", jstr(e, "source"), jstr(e, "value"), jstr(e, "implies"));
	}
}

static const char *lat_or_dash(json_object *o, const char *key, char *buf, size_t n)
{
	return output_latency(jget(o, key), buf, n);
}

/* Per op: percentiles over the last second, minute and ten minutes, then
 * the ten-minute histogram as bars, as biolatency prints it. */
static void output_show_latency(FILE *f, json_object *lat)
{
	static const char bar[] = "########################################";
	if (!lat || !json_object_is_type(lat, json_type_object))
		return;
	fprintf(f, "\nlatency (issue to complete, %s tracer):\n", jstr(lat, "backend"));
	bool any = false;
	json_object_object_foreach(lat, op, x) {
		if (!json_object_is_type(x, json_type_object) || !jget(x, "windows"))
			continue;
		any = true;
		fprintf(f, "  %-7s %6s %9s %8s %8s %8s %8s %8s\n", op, "window", "I/Os", "p50", "p90", "p99", "p99.9", "max");
		json_object *w = jget(x, "windows");
		json_object_object_foreach(w, name, win) {
			char a[16], b[16], c[16], d[16], e[16];
			fprintf(f, "  %-7s %6s %9.0f %8s %8s %8s %8s %8s\n", "", name, jnum(win, "count"),
				lat_or_dash(win, "p50", a, sizeof a), lat_or_dash(win, "p90", b, sizeof b),
				lat_or_dash(win, "p99", c, sizeof c), lat_or_dash(win, "p99.9", d, sizeof d),
				lat_or_dash(win, "max", e, sizeof e));
		}
		json_object *h = jget(x, "histogram_10m");
		size_t n = h && json_object_is_type(h, json_type_array) ? json_object_array_length(h) : 0;
		double top = 0;
		for (size_t i = 0; i < n; i++) {
			double c = json_object_get_double(json_object_array_get_idx(json_object_array_get_idx(h, i), 2));
			if (c > top)
				top = c;
		}
		if (n)
			fprintf(f, "  last 10 minutes:\n");
		for (size_t i = 0; i < n; i++) {
			json_object *row = json_object_array_get_idx(h, i);
			char lo[16], hi[16];
			double c = json_object_get_double(json_object_array_get_idx(row, 2));
			int bars = top > 0 ? (int)(40 * c / top + 0.5) : 0;
			if (bars == 0 && c > 0)
				bars = 1;
			fprintf(f, "  %8s .. %-8s %9.0f |%-40.*s|\n",
				output_latency(json_object_array_get_idx(row, 0), lo, sizeof lo),
				output_latency(json_object_array_get_idx(row, 1), hi, sizeof hi), c, bars, bar);
		}
		if (jnum(x, "slow") > 0) {
			char m[16];
			fprintf(f, "  %.0f slow I/O(s), the slowest %s\n", jnum(x, "slow"), lat_or_dash(x, "slow_max", m, sizeof m));
		}
	}
	if (!any)
		fprintf(f, "  no traced I/O yet\n");
	json_object *rs = jget(lat, "recent_slow");
	size_t n = rs && json_object_is_type(rs, json_type_array) ? json_object_array_length(rs) : 0;
	if (n)
		fprintf(f, "recent slow I/Os:\n");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(rs, i);
		char l[16], t[32] = "-";
		struct tm tm;
		if (output_tm(jnum(s, "time"), false, &tm))
			strftime(t, sizeof t, "%H:%M:%S", &tm);
		if (isnan(jnum(s, "sector")))	/* a flush: no sector, no bytes */
			fprintf(f, "  %s %-7s %s\n", t, jstr(s, "op"), lat_or_dash(s, "latency", l, sizeof l));
		else
			fprintf(f, "  %s %-7s sector %.0f, %.0f bytes, %s\n", t, jstr(s, "op"), jnum(s, "sector"),
				jnum(s, "bytes"), lat_or_dash(s, "latency", l, sizeof l));
	}
}

/* "85%", and the forecast when it has one: "85% 4.2 min" */
static const char *cache_cell(json_object *d, char *buf, size_t n)
{
	double fill = jnum(d, "media_cache_fill_ratio"), fc = jnum(d, "stall_forecast_seconds");
	char t[FORMAT_MAX];
	if (isnan(fill))
		snprintf(buf, n, "-");
	else if (!json_object_get_boolean(jget(d, "media_cache_fill_anchored")))
		snprintf(buf, n, "?");
	else if (isnan(fc))
		snprintf(buf, n, "%.0f%%", fill * 100);
	else
		snprintf(buf, n, "%.0f%% %s", fill * 100, format_duration(t, fc));
	return buf;
}

void output_top(FILE *f, json_object *r)
{
	json_object *a;
	size_t n = output_list(f, r, "disks", NULL, &a);
	/* iostat -x's columns first (their names, their units: ms, %), then the
	 * traced percentiles that iostat cannot give */
	fprintf(f, "%-10s %8s %8s %9s %9s %8s %8s %7s %6s %8s %8s %8s %8s %6s %11s\n", "DEVICE", "r/s", "w/s", "rkB/s",
		"wkB/s", "r_await", "w_await", "aqu-sz", "%util", "R-P50", "R-P99", "W-P50", "W-P99", "STORM", "CACHE");
	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(a, i), *l = jget(d, "latency_last_interval");
		json_object *rd = jget(l, "read"), *wr = jget(l, "write"), *storm = jget(d, "storm");
		char a1[16], a2[16], a3[16], a4[16], ra[16], wa[16];
		json_object *rl = jget(d, "read_latency_seconds"), *wl = jget(d, "write_latency_seconds");
		/* iostat prints 0.00 for an idle interval's await */
		snprintf(ra, sizeof ra, "%.2f", rl ? json_object_get_double(rl) * 1000 : 0.0);
		snprintf(wa, sizeof wa, "%.2f", wl ? json_object_get_double(wl) * 1000 : 0.0);
		char cache[32];
		fprintf(f, "%-10s %8.1f %8.1f %9.1f %9.1f %8s %8s %7.2f %6.1f %8s %8s %8s %8s %6s %11s\n", jstr(d, "device"),
			jnum(d, "reads_per_second"), jnum(d, "writes_per_second"),
			jnum(d, "read_bytes_per_second") / 1024, jnum(d, "write_bytes_per_second") / 1024, ra, wa,
			jnum(d, "queue_depth"), jnum(d, "utilisation") * 100,
			lat_or_dash(rd, "p50", a1, sizeof a1), lat_or_dash(rd, "p99", a2, sizeof a2),
			lat_or_dash(wr, "p50", a3, sizeof a3), lat_or_dash(wr, "p99", a4, sizeof a4),
			!storm ? "-" : json_object_get_boolean(storm) ? "STORM" : "no", cache_cell(d, cache, sizeof cache));
	}
}

/* "media cache ~64M from 2 fills (spread 3%), 85% full; stall in ~4 min at 1.1M/s" */
static void output_cache(FILE *f, json_object *c)
{
	char a[FORMAT_MAX], b[FORMAT_MAX], t[FORMAT_MAX];
	if (!c || isnan(jnum(c, "bytes")))
		return;
	fprintf(f, "  media cache %s%s", json_object_get_boolean(jget(c, "lower_bound")) ? "at least " : "~",
		format_size(a, jnum(c, "bytes")));
	if (jnum(c, "fills") > 1)
		fprintf(f, " from %.0f fills (spread %.0f%%)", jnum(c, "fills"), jnum(c, "spread") * 100);
	if (!json_object_get_boolean(jget(c, "fill_anchored")))
		fprintf(f, ", fill unknown (smrd has not seen it clean or full since it started)");
	else if (!isnan(jnum(c, "fill_ratio")))
		fprintf(f, ", %.0f%% full", jnum(c, "fill_ratio") * 100);
	/* under a second is no countdown: the cache is full now */
	if (jnum(c, "stall_forecast_seconds") < 1)
		fprintf(f, "; writes may stall now (at %s)", format_rate(b, jnum(c, "fill_bytes_per_second")));
	else if (!isnan(jnum(c, "stall_forecast_seconds")))
		fprintf(f, "; writes stall in ~%s at %s", format_duration(t, jnum(c, "stall_forecast_seconds")),
			format_rate(b, jnum(c, "fill_bytes_per_second")));
	fprintf(f, "\n");
	if (!isnan(jnum(c, "slow_write_bytes_per_second")) || !isnan(jnum(c, "idle_recovery_bytes_per_second"))) {
		fprintf(f, "    once full it sustains %s of writes", isnan(jnum(c, "slow_write_bytes_per_second")) ? "-" :
			format_rate(a, jnum(c, "slow_write_bytes_per_second")));
		fprintf(f, "; idle time gives back %s", isnan(jnum(c, "idle_recovery_bytes_per_second")) ? "-" :
			format_rate(b, jnum(c, "idle_recovery_bytes_per_second")));
		if (jnum(c, "idle_recovery_points") > 0)
			fprintf(f, " over a %s rest", format_duration(t, jnum(c, "idle_recovery_rest_seconds")));
		fprintf(f, "\n");
	}
	json_object *fit = jget(jget(c, "idle_recovery_curve"), "fit");
	if (jnum(c, "idle_recovery_points") > 0)
		fprintf(f, "    idle-recovery curve from %.0f rest(s) begun in a storm%s%s\n", jnum(c, "idle_recovery_points"),
			fit ? ": " : "", fit ? jstr(fit, "text") : "");
}

/* The idle budget (docs/detection.md, "Idle time"): its day and sentences. */
static void output_idle(FILE *f, json_object *b)
{
	char need[FORMAT_MAX], got[FORMAT_MAX];
	if (!b)
		return;
	fprintf(f, "  idle: needs ~%s a day, gets ~%s (%.0f hour(s) of the day watched, %.1f day(s))\n",
		format_duration(need, jnum(b, "need_seconds_per_day")), format_duration(got, jnum(b, "idle_seconds_per_day")),
		jnum(b, "watched_hours"), jnum(b, "days"));
	if (*jstr(b, "forecast"))
		fprintf(f, "    %s\n", jstr(b, "forecast"));
	if (*jstr(b, "advice"))
		fprintf(f, "    %s\n", jstr(b, "advice"));
}

static const char *fmt_time(double t, char *buf, size_t n)
{
	struct tm tm;
	if (!output_tm(t, false, &tm))
		snprintf(buf, n, "-");
	else
		strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

static void output_event_line(FILE *f, json_object *e)
{
	char t[32];
	fprintf(f, "%s %-8s %-19s %-5s %s\n", fmt_time(jnum(e, "time"), t, sizeof t), jstr(e, "device"),
		jstr(e, "kind"), *jstr(e, "op") ? jstr(e, "op") : "-", jstr(e, "message"));
}

/* An incident: one line of what it was, its steps beneath. */
static void output_incident(FILE *f, json_object *i)
{
	char t[32], e[32];
	json_object *end = jget(i, "end"), *steps = jget(i, "steps");
	fmt_time(end ? json_object_get_double(end) : NAN, e, sizeof e);
	fprintf(f, "%s %-8s [%s, %s, %s%s] %s\n", fmt_time(jnum(i, "start"), t, sizeof t), jstr(i, "device"),
		jstr(i, "kind"), jstr(i, "severity"), end ? "until " : "open", end ? e + 11 : "", jstr(i, "summary"));
	size_t n = steps && json_object_is_type(steps, json_type_array) ? json_object_array_length(steps) : 0;
	for (size_t k = 0; k < n; k++) {
		json_object *s = json_object_array_get_idx(steps, k);
		fprintf(f, "    %s %-19s %s\n", fmt_time(jnum(s, "time"), t, sizeof t) + 11, jstr(s, "kind"), jstr(s, "message"));
	}
}

void output_incidents(FILE *f, json_object *r)
{
	json_object *a;
	size_t n = output_list(f, r, "incidents", "-- No incidents --", &a);
	for (size_t i = 0; i < n; i++)
		output_incident(f, json_object_array_get_idx(a, i));
}

/* The incidents first, each where it began among the events that are in
 * none (those in one are its steps); --all or --kind: the rows alone. */
void output_events(FILE *f, json_object *r)
{
	json_object *a, *inc = jget(r, "incidents"), *persistent = jget(r, "persistent");	/* absent in a --follow poll */
	size_t n_inc = inc && json_object_is_type(inc, json_type_array) ? json_object_array_length(inc) : 0;
	size_t n = output_list(f, r, "events", persistent && !n_inc ? "-- No events --" : NULL, &a);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		if (inc && jget(e, "incident"))
			continue;
		for (; k < n_inc && jnum(json_object_array_get_idx(inc, k), "start") <= jnum(e, "time"); k++)
			output_incident(f, json_object_array_get_idx(inc, k));
		output_event_line(f, e);
	}
	for (; k < n_inc; k++)
		output_incident(f, json_object_array_get_idx(inc, k));
	if (persistent && !json_object_get_boolean(persistent))
		fprintf(f, "-- Some events are only in memory: the history database cannot be written (smrctl status) --\n");
}

static const char *dur_or_dash(double s, char *buf, size_t n)
{
	char t[FORMAT_MAX];
	snprintf(buf, n, "%s", isfinite(s) ? format_duration(t, s) : "-");
	return buf;
}

void output_rebuilds(FILE *f, json_object *r)
{
	json_object *a;
	size_t n = output_list(f, r, "rebuilds", "-- No rebuild onto a watched disk seen since smrd started --", &a);
	if (!n)
		return;
	/* ETA while it runs, TOOK once it ended: one column never means both */
	fprintf(f, "%-8s %-16s %-13s %-8s %-18s %-10s %-10s %-10s %s\n", "DEVICE", "POOL", "KIND", "STATE", "WRITTEN",
		"RATE", "ETA", "TOOK", "EXPECTED");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		char done[48], b1[FORMAT_MAX], b2[FORMAT_MAX], rate[FORMAT_MAX], eta[FORMAT_MAX], took[FORMAT_MAX],
			exp[FORMAT_MAX];
		double w = jnum(e, "written_bytes"), t = jnum(e, "to_write_bytes");
		if (isfinite(w) && isfinite(t) && t > 0)
			snprintf(done, sizeof done, "%.0f%% of %s", 100 * w / t, format_size(b1, t));
		else
			snprintf(done, sizeof done, "%s", isfinite(w) ? format_size(b2, w) : "-");
		double rt = jnum(e, "rate_bps");
		snprintf(rate, sizeof rate, "%s", isfinite(rt) ? format_rate(b1, rt) : "-");
		bool running = streq(jstr(e, "state"), "running");
		fprintf(f, "%-8s %-16s %-13s %-8s %-18s %-10s %-10s %-10s %s\n", jstr(e, "device"), jstr(e, "pool"),
			jstr(e, "kind"), jstr(e, "state"), done, rate, running ? format_left(eta, jnum(e, "eta_seconds")) : "-",
			running ? "-" : dur_or_dash(jnum(e, "duration"), took, sizeof took),
			dur_or_dash(jnum(e, "expected_seconds"), exp, sizeof exp));
	}
}

static void output_detection(FILE *f, json_object *d)
{
	if (!d)
		return;
	json_object *storm = jget(d, "storm"), *stalls = jget(d, "stalls"), *score = jget(d, "gc_score");
	json_object *bands = jget(d, "bands"), *idle = jget(d, "idle_cleaning");
	char a[16], b[16], t[32], hl[FORMAT_MAX];
	fprintf(f, "\nbehaviour: GC score %.2f (storms %.2f, idle cleaning %.2f, bands %.2f, stalls %.2f; half-life %s)%s\n",
		jnum(score, "score"), jnum(score, "storm"), jnum(score, "idle_cleaning"), jnum(score, "bands"),
		jnum(score, "stalls"), format_duration(hl, jnum(score, "half_life")),
		json_object_get_boolean(jget(d, "behaviour")) ? ", classified dm-smr by behaviour" : "");
	json_object *since = jget(storm, "since");
	json_object *sl = jget(storm, "slow_latency");
	if (json_object_get_boolean(jget(storm, "active"))) {
		fprintf(f, "  destage storm UNDER WAY since %s", fmt_time(since ? json_object_get_double(since) : NAN, t, sizeof t));
		if (sl)
			fprintf(f, ": %.1f writes/s at %s in its slow seconds", jnum(storm, "slow_iops"),
				output_latency(sl, a, sizeof a));
		fprintf(f, "\n");
	}
	fprintf(f, "  storms: %.0f since start, %.0f on record", jnum(storm, "total"), jnum(storm, "on_record"));
	if (jnum(storm, "fast_iops") > 0) {
		json_object *fl = json_number(jnum(storm, "fast_latency"), 6);
		fprintf(f, "; fast phase %.0f writes/s at %s", jnum(storm, "fast_iops"), output_latency(fl, a, sizeof a));
		json_object_put(fl);
	}
	fprintf(f, "\n");
	json_object *thr = jget(stalls, "threshold"), *mx = jget(stalls, "slowest");
	fprintf(f, "  stalls over %s: read %.0f, write %.0f, discard %.0f, flush %.0f; slowest %s\n",
		output_latency(thr, a, sizeof a), jnum(stalls, "read"), jnum(stalls, "write"), jnum(stalls, "discard"),
		jnum(stalls, "flush"), jnum(stalls, "slowest") > 0 ? output_latency(mx, b, sizeof b) : "-");
	if (json_object_get_boolean(jget(idle, "active")))
		fprintf(f, "  cleaning while idle: reads wait behind background cleaning now\n");
	if (jnum(idle, "probe_reads") > 0) {
		json_object *ps = jget(idle, "probe_slowest");
		fprintf(f, "  probe reads: %.0f, slowest %s\n", jnum(idle, "probe_reads"), output_latency(ps, a, sizeof a));
	}
	static const char *const ops[] = {"read", "write"};
	for (size_t i = 0; i < 2; i++) {
		json_object *arr = jget(bands, ops[i]);
		size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
		if (!n)
			continue;
		fprintf(f, "  %s latency bands:", ops[i]);
		for (size_t k = 0; k < n; k++) {
			json_object *x = json_object_array_get_idx(arr, k);
			fprintf(f, "%s %s (%.0f%%)", k ? "," : "", output_latency(jget(x, "centre"), a, sizeof a),
				jnum(x, "share") * 100);
		}
		fprintf(f, "\n");
	}
	output_cache(f, jget(d, "media_cache"));
	output_idle(f, jget(d, "idle_budget"));
	json_object *ev = jget(d, "recent_events");
	size_t n = ev && json_object_is_type(ev, json_type_array) ? json_object_array_length(ev) : 0;
	if (n) {
		fprintf(f, "  recent events:\n");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "    ");
			output_event_line(f, json_object_array_get_idx(ev, i));
		}
	}
}

void output_reload(FILE *f, json_object *r)
{
	fprintf(f, "reloaded %s\n", jstr(r, "reloaded"));
	json_object *keys;
	if (!json_object_object_get_ex(r, "restart_needed", &keys) || !json_object_array_length(keys))
		return;
	fprintf(f, "changed, but applied only by a restart (systemctl restart smrd):");
	for (size_t i = 0; i < json_object_array_length(keys); i++)
		fprintf(f, "%s %s", i ? "," : "", json_object_get_string(json_object_array_get_idx(keys, i)));
	fprintf(f, "\n");
}

bool output_reload_incomplete(json_object *r)
{
	json_object *keys;
	return json_object_object_get_ex(r, "restart_needed", &keys) && json_object_array_length(keys) > 0;
}

void output_forget(FILE *f, json_object *r)
{
	fprintf(f, "forgot %s: detector state reset, %.0f event(s) deleted\n", jstr(r, "device"),
		jnum(r, "events_deleted"));
}

void output_reread(FILE *f, json_object *r)
{
	fprintf(f, "%s: class %s (confidence %.2f), SMR confidence %.2f\n", jstr(r, "device"), jstr(r, "class"),
		jnum(r, "confidence"), jnum(r, "smr_confidence"));
}

/* zfs-annotate's vdev properties: what ZFS has, when smrd wrote it. */
static void output_zfs_annotation(FILE *f, json_object *z)
{
	if (!z || !json_object_is_type(z, json_type_object))
		return;
	json_object *p = jget(z, "properties"), *read = jget(z, "read");
	char t[32];
	fprintf(f, "zfs-annotate: pool %s vdev %s:", jstr(z, "pool"), jstr(z, "vdev"));
	if (read && json_object_get_boolean(read)) {
		json_object_object_foreach(p, name, val)
			fprintf(f, " %s=%s", name, val ? json_object_get_string(val) : "-");
	} else
		fprintf(f, " not read yet");
	if (jget(z, "written"))
		fprintf(f, " (written by smrd %s)", fmt_time(jnum(z, "written"), t, sizeof t));
	if (*jstr(z, "error"))
		fprintf(f, "; last attempt failed: %s", jstr(z, "error"));
	fprintf(f, "\n");
}

void output_show(FILE *f, json_object *r)
{
	json_object *v = jget(r, "verdict");
	char size[16], rb[16], wb[16], rl[16], wl[16];
	fprintf(f, "%s: %s\n", jstr(r, "device"), *jstr(r, "model") ? jstr(r, "model") : "(no model reported)");
	fprintf(f, "  serial %s, wwn %s, firmware %s\n", *jstr(r, "serial") ? jstr(r, "serial") : "-",
		*jstr(r, "wwn") ? jstr(r, "wwn") : "-", *jstr(r, "firmware") ? jstr(r, "firmware") : "-");
	json_object *mem = jget(r, "members");
	for (size_t i = 0; mem && json_object_is_type(mem, json_type_array) && i < json_object_array_length(mem); i++) {
		json_object *m = json_object_array_get_idx(mem, i);
		fprintf(f, "  member of %s %s (on %s%s%s)\n", jstr(m, "type"), jstr(m, "name"), jstr(m, "via"),
			*jstr(m, "detail") ? ", " : "", jstr(m, "detail"));
	}
	fprintf(f, "  %s, %.0f:%.0f, %s, zoned %s", jstr(r, "transport"), jnum(r, "major"), jnum(r, "minor"),
		output_bytes(jnum(r, "size_bytes"), size, sizeof size), jstr(r, "zoned"));
	if (!isnan(jnum(r, "io_timeout_seconds")))
		fprintf(f, ", io_timeout %s", output_seconds(jnum(r, "io_timeout_seconds"), rl, sizeof rl));
	fprintf(f, "\n\nclass %s (confidence %.2f), SMR confidence %.2f\n", jstr(v, "class"), jnum(v, "confidence"),
		jnum(v, "smr_confidence"));
	fprintf(f, "why: %s\n", jstr(v, "basis"));
	output_evidence(f, jget(v, "evidence"));
	output_zfs_annotation(f, jget(r, "zfs_annotation"));
	output_detection(f, jget(r, "detection"));
	fprintf(f, "\nlast %.1fs: %.1f r/s, %.1f w/s, read %s/s, written %s/s, latency read %s write %s\n",
		jnum(r, "interval_seconds"), jnum(r, "reads_per_second"), jnum(r, "writes_per_second"),
		output_bytes(jnum(r, "read_bytes_per_second"), rb, sizeof rb),
		output_bytes(jnum(r, "write_bytes_per_second"), wb, sizeof wb),
		output_latency(jget(r, "read_latency_seconds"), rl, sizeof rl),
		output_latency(jget(r, "write_latency_seconds"), wl, sizeof wl));
	output_show_latency(f, jget(r, "latency"));
	json_object *c = jget(r, "counters");
	if (!c || !json_object_is_type(c, json_type_object) || json_object_object_length(c) == 0)
		fprintf(f, "counters: none yet (no diskstats sample)\n");
	else {
		fprintf(f, "counters:");
		int k = 0;
		json_object_object_foreach(c, key, val)
			fprintf(f, "%s%s=%s", k++ % 6 ? " " : "\n  ", key, json_object_get_string(val));
		fprintf(f, "\n");
	}
}
