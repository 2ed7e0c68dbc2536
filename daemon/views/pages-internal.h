/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the status pages share: the page's frame and its cell writers. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "advice.h"
#include "context.h"
#include "diskview.h"
#include "http.h"
#include "util.h"

#define REFRESH_SECONDS 5

void page_esc(Buf *b, const char *s);
void page_num(Buf *b, double v, int decimals);
void page_latency(Buf *b, double s);
/* the media cache's fill meter, coloured by the view's severity */
void page_cache_meter(Buf *b, const DiskView *v);
/* a sentence shortened for a table cell, the whole in its title */
void page_short(Buf *b, const char *s);
/* local time, as journalctl and smrctl print it */
void page_time(Buf *b, uint64_t realtime_usec);
/* The rest of a table row: each text escaped in its cell, the last (a
 * sentence) in a "why" cell that wraps. */
void page_cells(Buf *b, const char *const *text, size_t n);
/* What to do now about d and why (core/advice.h, the source notifications
 * and rebuild-check use), from its state: false when nothing. */
bool page_advice(const Disk *d, DiskClass disk_class, Advice *ret);
/* The advice, escaped, and a link to its runbook section. */
void page_advice_text(Buf *b, const Advice *a);
void page_head(Buf *b, const char *title, bool refresh);
void page_foot(Buf *b, const Context *ctx);
int html_reply(unsigned status, Buf *b, HttpReply *ret);
