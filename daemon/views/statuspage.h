/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pieces of the status pages that need no daemon (pure, tested on
 * fixtures): HTML escaping of untrusted strings, the latency heatmap and
 * the event timeline as inline SVG, and the style sheet.
 */
#pragma once

#include "hist.h"
#include "util.h"

/* Text for an HTML element or a quoted attribute: & < > " ' escaped and
 * control characters dropped. Model names, serials and udev properties come
 * from the disk: they are never markup. */
void html_escape(Buf *b, const char *s);
/* s as one URL path segment: everything but unreserved characters
 * (RFC 3986: letters, digits, - . _ ~) %-encoded; safe in an attribute too. */
void url_escape(Buf *b, const char *s);
/* %XX decoded in place, as libmicrohttpd does, but a %00 becomes 0x01:
 * decoded to a NUL, "/disk/sda%00x" would read as "/disk/sda" in C and be
 * served as sda; a control character is refused as a bad request instead.
 * Returns the new length. */
size_t url_unescape(char *s);

/* One column of the heatmap: a histogram and the time it covers. */
typedef struct HeatColumn {
	Hist h;
	double seconds;
} HeatColumn;

#define HEATMAP_DECADE_ROWS 6		/* rows per factor of ten in latency */
#define HEATMAP_MIN_SECONDS 1e-5	/* bottom edge: 10 us */
#define HEATMAP_DECADES 7		/* up to 100 s */

/* Latency (log, bottom to top) against time (oldest left, newest right):
 * cols[0] is the oldest column. Each cell's shade is its share of the
 * column's busiest cell (log scale), so a band stays visible beside a busy
 * one and the cliff of a destage storm shows as the mass moving up. Cells
 * carry data-lo (their lower latency edge, seconds) and data-n (I/Os), and
 * the column data-age (seconds before now), for tests and tooltips. */
void heatmap_svg(Buf *b, const char *op, const HeatColumn *cols, unsigned n, double slot_seconds);

/* I/Os per second against time, a bar a column on a log scale (0.1/s to
 * 100k/s), each bar with data-age and data-rate. */
void rate_svg(Buf *b, const char *op, const HeatColumn *cols, unsigned n, double slot_seconds);

/* A span on the timeline: [start, end] in seconds before now (start >= end). */
typedef struct TimelineMark {
	double start, end;
	const char *kind;		/* storm, idle-cleaning, stall: also the CSS class */
	const char *label;		/* title text (escaped here) */
} TimelineMark;

/* The storm/stall timeline over the same span as the heatmap. */
void timeline_svg(Buf *b, const TimelineMark *marks, unsigned n, double span_seconds);

/* The style sheet shared by the pages: light and dark (prefers-color-scheme). */
extern const char status_css[];
