/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's SVG report: who, when and the verdict above the plot; every
 * phase on one time axis with the rests between them; the cliff marked;
 * labels along the time axis; no last second that ran a fraction of one;
 * nothing wider than the 900 px it is drawn in. And smrctl's latencies in
 * the units of core/output/format.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "qualify-report.h"
#include "test.h"

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* the points of the n-th polyline */
static unsigned points(const char *s, unsigned nth)
{
	const char *p = s;
	for (unsigned i = 0; i <= nth && p; i++)
		if ((p = strstr(p, "<polyline")))
			p += 9;
	if (!p || !(p = strstr(p, "points=\"")))
		return 0;
	unsigned n = 0;
	for (p += 8; *p && *p != '"'; p++)
		n += *p == ',';
	return n;
}

/* the longest text a <text> element holds */
static size_t longest_text(const char *s)
{
	size_t m = 0;
	for (const char *p = s; (p = strstr(p, "<text")); p++) {
		const char *a = strchr(p, '>'), *b = a ? strstr(a, "</text>") : NULL;
		if (b && (size_t)(b - a - 1) > m)
			m = (size_t)(b - a - 1);
	}
	return m;
}

static void fill(Phase *p, const char *name, unsigned n, double iops, double lat)
{
	*p = (Phase){.name = name, .write = true, .duration = n, .sec = calloc(n + 1, sizeof(Second))};
	for (unsigned i = 0; i < n; i++)
		p->sec[p->n_sec++] = (Second){.t = i + 1, .iops = i < n / 2 ? iops : iops / 50, .lat_mean = lat,
					      .lat_max = lat};
}

static void test_svg(void)
{
	Phase w, seq, rd;
	fill(&w, "write", 20, 1000, 0.004);
	/* the queue drained in 50 ms after the last whole second: 4 I/Os
	 * there are 80 a second, a spike the disk never ran at */
	w.sec[w.n_sec++] = (Second){.t = 20.05, .iops = 80000, .lat_mean = 0.001, .lat_max = 0.001};
	fill(&seq, "sequential", 5, 150, 0.007);
	fill(&rd, "read 4K", 6, 120, 0.008);
	char verdict[600];
	snprintf(verdict, sizeof verdict, "SMR-like: the write rate fell 50-fold after 10 s %s", "and writes waited "
		 "for seconds at a time, as a drive-managed SMR disk's do once its media cache is full; a sequential "
		 "phase kept its rate, and the reads were those of a rotating disk with every I/O a seek and a "
		 "rotation away from the last one, which is what a platter shows");
	ReportPlot p = {.title = "smrctl qualify --destructive: sdz, WDC WD40EFAX", .serial = "WD-ZA123",
			.date = "2026-12-05 06:30:00", .verdict = verdict, .n = 3, .cliff_t = 10,
			.phase = {&w, &seq, &rd}, .rest_before = {0, 0, 30}};
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	CHECK(f != NULL);
	CHECK_INT(report_svg(f, &p), 0);
	CHECK(s && strstr(s, "WDC WD40EFAX") && strstr(s, "serial WD-ZA123 · 2026-12-05 06:30:00"));
	CHECK(strstr(s, "class=\"verdict\">SMR-like: the write rate fell") != NULL);
	CHECK(count(s, "class=\"x\"") >= 4);			/* labels along the time axis */
	CHECK_INT(count(s, "class=\"cliff\""), 2);		/* in both panels */
	CHECK(strstr(s, ">cliff at 10 s<") != NULL);
	CHECK(strstr(s, ">sequential<") && strstr(s, ">read 4K<") && strstr(s, ">rest 30 s<"));
	CHECK_INT(points(s, 0), 20);				/* not the partial last second */
	CHECK_INT(points(s, 1), 5);
	CHECK(longest_text(s) <= 118);				/* within 900 px */
	free(s);
	/* no verdict: said so, never a blank */
	p.verdict = NULL;
	p.cliff_t = NAN;
	f = open_memstream(&s, &n);
	CHECK_INT(report_svg(f, &p), 0);
	CHECK(strstr(s, ">no verdict<") && !strstr(s, "class=\"cliff\""));
	free(s);
	free(w.sec);
	free(seq.sec);
	free(rd.sec);
}

typedef struct Box {
	double x0, x1, y;
	char text[64];
} Box;

/* The labels of the phases, rests and cliff (the texts with a class but
 * the time axis's): their boxes at 6 px a character (11 px sans-serif:
 * Chromium draws "refill after a rest" 89 px wide, 4.7 a character) and
 * 11 px high; how many. */
static unsigned labels(const char *s, Box *box, unsigned max)
{
	unsigned n = 0;
	for (const char *p = s; n < max && (p = strstr(p, "<text ")); p++) {
		const char *gt = strchr(p, '>'), *close = gt ? strstr(gt, "</text>") : NULL, *cls = strstr(p, " class=\"");
		if (!close || !cls || cls > gt || !strncmp(cls, " class=\"x\"", 10) || !strstr(p, " x=\"") ||
		    !strstr(p, " y=\""))
			continue;
		double x = strtod(strstr(p, " x=\"") + 4, NULL), y = strtod(strstr(p, " y=\"") + 4, NULL);
		double w = 6.0 * (double)(close - gt - 1);
		const char *anchor = strstr(p, "text-anchor=\"end\"");
		bool end = anchor && anchor < gt;
		box[n] = (Box){end ? x - w : x, end ? x : x + w, y, ""};
		snprintf(box[n].text, sizeof box[n].text, "%.*s", (int)(close - gt - 1), gt + 1);
		n++;
	}
	return n;
}

/* A write phase, then refills after rests of 1, 2, 4 and 8 s, a few
 * seconds each, on a 200 s axis: no label over another, every rest named. */
static void test_svg_labels(void)
{
	Phase w, r[5];
	fill(&w, "write", 150, 1000, 0.004);
	ReportPlot p = {.title = "t", .verdict = "v", .n = 6, .cliff_t = 3, .phase = {&w}, .rest_before = {0, 0, 1, 2, 4, 8}};
	for (unsigned i = 0; i < 5; i++) {
		fill(&r[i], i ? "refill after a rest" : "refill", 5, 1000, 0.004);
		p.phase[i + 1] = &r[i];
	}
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	CHECK(f != NULL);
	CHECK_INT(report_svg(f, &p), 0);
	Box b[64];
	unsigned nb = labels(s ?: "", b, 64), overlaps = 0, rests = 0;
	for (unsigned i = 0; i < nb; i++) {
		rests += strstr(b[i].text, " s") && !strstr(b[i].text, "cliff");
		for (unsigned k = i + 1; k < nb; k++)
			if (fabs(b[i].y - b[k].y) < 11 && b[i].x0 < b[k].x1 && b[k].x0 < b[i].x1) {
				fprintf(stderr, "\"%s\" overlaps \"%s\"\n", b[i].text, b[k].text);
				overlaps++;
			}
	}
	CHECK(nb >= 6);
	CHECK_INT(overlaps, 0);
	/* no phase's span drawn over a label */
	const char *first = strstr(s, "class=\"phase-name\""), *span = first;
	for (const char *q = s; (q = strstr(q, "class=\"phase\"")) && q < strstr(s, "class=\"x\""); q++)
		span = q;
	CHECK(first && span <= first);
	CHECK_INT(rests, 4);
	CHECK(strstr(s, ">cliff at 3 s<") && strstr(s, ">random writes<"));
	const char *out = getenv("QUALIFY_SVG_OUT");	/* for a person, or a browser, to look at */
	FILE *o = out ? fopen(out, "w") : NULL;
	if (o)
		fputs(s, o), fclose(o);
	free(s);
	free(w.sec);
	for (unsigned i = 0; i < 5; i++)
		free(r[i].sec);
}

/* smrctl's latencies in the one formatter's units: "<1 ms" beside "125 us" */
static void test_units(void)
{
	char b[32];
	json_object *zero = json_object_new_double(0), *fast = json_object_new_double(125e-6);
	CHECK_STR(output_latency(zero, b, sizeof b), "<1 ms");
	CHECK_STR(output_latency(fast, b, sizeof b), "125 us");
	json_object_put(zero);
	json_object_put(fast);
}

int main(void)
{
	test_svg();
	test_svg_labels();
	test_units();
	return test_done("qualify-report");
}
