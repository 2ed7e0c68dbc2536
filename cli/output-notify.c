/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "output-notify.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "since.h"
#include "util.h"

#define ACK_FOR_MAX (366.0 * 86400)

int output_parse_for(const char *s, double *ret)
{
	if (streq(s, "forever") || streq(s, "0")) {
		*ret = 0;
		return 0;
	}
	if (!*s || *s == '-' || *s == '+' || *s == '@')
		return -EINVAL;
	char span[64];
	if (snprintf(span, sizeof span, "+%s", s) >= (int)sizeof span)
		return -EINVAL;
	time_t now = time(NULL);
	double until;
	if (parse_since(span, now, &until) < 0 || until - (double)now < 1 || until - (double)now > ACK_FOR_MAX)
		return -EINVAL;
	*ret = until - (double)now;
	return 0;
}

/* "until 2026-12-06 07:15 UTC (in 23h 59m)", or "until unack". */
static void until_text(json_object *until, char *buf, size_t n)
{
	if (!until || (!json_object_is_type(until, json_type_double) && !json_object_is_type(until, json_type_int))) {
		snprintf(buf, n, "until smrctl unack");
		return;
	}
	double u = json_object_get_double(until);
	struct tm tm;
	char when[32];
	if (!output_tm(u, true, &tm)) {
		snprintf(buf, n, "until ?");
		return;
	}
	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
	double left = u - (double)time(NULL);
	if (left < 0)
		left = 0;
	long m = (long)(left / 60), h = m / 60;
	if (h >= 24)
		snprintf(buf, n, "until %s (in %ldd %ldh)", when, h / 24, h % 24);
	else
		snprintf(buf, n, "until %s (in %ldh %02ldm)", when, h, m % 60);
}

void output_ack(FILE *f, json_object *r)
{
	char until[96];
	until_text(output_get(r, "until"), until, sizeof until);
	const char *kind = output_str(r, "kind");
	fprintf(f, "%s: no notifications of %s while it stays %s, %s\n", output_str(r, "device"),
		streq(kind, "all") ? "any kind" : kind, output_str(r, "class"), until);
}

void output_unack(FILE *f, json_object *r)
{
	double n = output_num(r, "withdrawn");
	if (n > 0)
		fprintf(f, "%s: acknowledgement of %s withdrawn: its notifications are sent again\n",
			output_str(r, "device"), output_str(r, "kind"));
	else
		fprintf(f, "%s: no acknowledgement of %s to withdraw\n", output_str(r, "device"), output_str(r, "kind"));
}

void output_acks(FILE *f, json_object *r)
{
	json_object *list;
	size_t n = output_list(f, r, "acks", "No acknowledgements: every notification is sent.", &list);
	if (!n)
		return;
	fprintf(f, "%-10s %-16s %-12s %-17s %s\n", "DISK", "KIND", "CLASS", "SINCE", "UNTIL");
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(list, i);
		char until[96], since[32] = "?";
		until_text(output_get(a, "until"), until, sizeof until);
		struct tm tm;
		if (output_tm(output_num(a, "time"), true, &tm))
			strftime(since, sizeof since, "%Y-%m-%d %H:%M", &tm);
		fprintf(f, "%-10s %-16s %-12s %-17s %s\n", output_str(a, "device"), output_str(a, "kind"),
			output_str(a, "class"), since, until + strlen("until "));
	}
}

/* r as the daemon sent it: each line of the output escaped here (the
 * newlines between them are the daemon's, the rest is the hook's). */
void output_notify_test(FILE *f, json_object *r)
{
	const char *out = output_str(r, "output");
	_cleanup_free_ char *cmd = output_escape(output_str(r, "command"));
	_cleanup_free_ char *res = output_escape(output_str(r, "result"));
	fprintf(f, "notify-test: %s: %s\n", cmd ? cmd : "?", res ? res : "?");
	if (*out) {
		fprintf(f, "Its output:\n");
		for (const char *p = out; *p;) {
			size_t len = strcspn(p, "\n");
			_cleanup_free_ char *line = strndup(p, len);
			_cleanup_free_ char *safe = line ? output_escape(line) : NULL;
			fprintf(f, "  %s\n", safe ? safe : "?");
			p += len + (p[len] == '\n');
		}
		if (json_object_get_boolean(output_get(r, "output_truncated")))
			fprintf(f, "  ... (more not kept)\n");
	}
	json_object *st = output_get(r, "exit_status");
	if (st && json_object_get_int(st) == 0)
		fprintf(f, "Sent: check that it arrived where notify-mailto or notify-webhook-url says.\n");
	else
		fprintf(f, "Not sent: journalctl -u smrd has the hook's output too (docs/notify.md).\n");
}
