/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pages-acks.h"

#include "events.h"
#include "notifier.h"

typedef struct Acks {
	Buf *b;
	const char *device;
	unsigned n;
} Acks;

static void one(const IncidentAck *a, void *userdata)
{
	Acks *x = userdata;
	if (!streq(a->device, x->device))
		return;
	if (!x->n++)
		buf_puts(x->b, "<div id=\"acks\" class=\"wide\"><p class=\"warn\">Notifications silenced "
			       "(<code>smrctl acks</code>; <code>sudo smrctl unack</code> withdraws):</p><table><thead><tr>"
			       "<th>kind</th><th>while it stays</th><th>since</th><th>until</th></tr></thead><tbody>");
	buf_puts(x->b, "<tr><td>");
	page_esc(x->b, a->kind < 0 ? "all" : detect_event_kind_to_string(a->kind));
	buf_puts(x->b, "</td><td>");
	page_esc(x->b, a->disk_class);
	buf_puts(x->b, "</td><td>");
	page_time(x->b, a->time_usec);
	buf_puts(x->b, "</td><td>");
	if (a->until_usec)
		page_time(x->b, a->until_usec);
	else
		buf_puts(x->b, "smrctl unack");
	buf_puts(x->b, "</td></tr>");
}

void pages_disk_acks(Buf *b, const Context *ctx, const Disk *d)
{
	Acks x = {.b = b, .device = d->name};
	notifier_acks(ctx->notifier, one, &x);
	if (x.n)
		buf_puts(b, "</tbody></table></div>\n");
}
