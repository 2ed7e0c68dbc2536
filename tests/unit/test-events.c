/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event-kind table against the two texts that repeat it for people:
 * the journal catalog and the table in docs/detection.md. A kind added to
 * the enum without an entry, or to the table without its catalog entry and
 * docs line, fails here. argv[1]: the source root.
 */
#include <ctype.h>
#include <fcntl.h>
#include <syslog.h>

#include "events.h"
#include "test.h"
#include "util.h"

static bool is_message_id(const char *s)
{
	if (!s || strlen(s) != 32)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
			return false;
	return true;
}

static const char *priority_word(int p)
{
	switch (p) {
	case LOG_CRIT: return "crit";
	case LOG_ERR: return "err";
	case LOG_WARNING: return "warning";
	case LOG_NOTICE: return "notice";
	case LOG_INFO: return "info";
	default: return NULL;
	}
}

static void check_table(void)
{
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		const EventKindInfo *e = event_kind_info((DetectEventKind)k);
		CHECK(e && e->name && e->message_id && e->subject && e->severity);
		if (!e || !e->name || !e->message_id || !e->subject || !e->severity)
			continue;
		CHECK(is_message_id(e->message_id));
		CHECK_STR(e->severity, priority_word(e->priority));
		CHECK(strstr(e->subject, "@SMRD_DEVICE@") != NULL);
		CHECK_INT(detect_event_kind_from_string(e->name), k);
		CHECK_STR(detect_event_kind_to_string((DetectEventKind)k), e->name);
		for (int j = 0; j < k; j++) {
			const EventKindInfo *o = event_kind_info((DetectEventKind)j);
			CHECK(!o || !o->name || strcmp(o->name, e->name) != 0);
			CHECK(!o || !o->message_id || strcmp(o->message_id, e->message_id) != 0);
		}
	}
	CHECK(event_kind_info(_EVENT_KIND_MAX) == NULL);
	CHECK(event_kind_info(_EVENT_KIND_INVALID) == NULL);
	CHECK_INT(detect_event_kind_from_string("no-such-kind"), _EVENT_KIND_INVALID);
	CHECK_INT(detect_event_kind_from_string(NULL), _EVENT_KIND_INVALID);
	CHECK_STR(detect_event_kind_to_string(_EVENT_KIND_MAX), "unknown");
}

static int find_kind_by_id(const char *id)
{
	for (int k = 0; k < _EVENT_KIND_MAX; k++)
		if (streq(event_kind_info((DetectEventKind)k)->message_id, id))
			return k;
	return -1;
}

/* Each "-- ID" entry names a kind and its Subject: line is the table's. */
static void check_catalog(const char *root)
{
	char path[4096];
	_cleanup_free_ char *text = NULL;
	snprintf(path, sizeof path, "%s/contrib/systemd/smrd.catalog", root);
	int r = read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL);
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	int seen[_EVENT_KIND_MAX] = {0};
	int current = -1;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (startswith(line, "-- ")) {
			current = find_kind_by_id(line + 3);
			if (current < 0)
				fprintf(stderr, "catalog entry %s is no event kind\n", line + 3);
			CHECK(current >= 0);
			if (current >= 0)
				seen[current]++;
		} else if (startswith(line, "Subject: ") && current >= 0) {
			CHECK_STR(line + 9, event_kind_info((DetectEventKind)current)->subject);
		}
	}
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		if (seen[k] != 1)
			fprintf(stderr, "catalog has %d entries for %s\n", seen[k],
				event_kind_info((DetectEventKind)k)->name);
		CHECK_INT(seen[k], 1);
	}
}

/* The docs' rows "| `name` | id | severity |", one per kind, no other. */
static void check_docs(const char *root)
{
	char path[4096];
	_cleanup_free_ char *text = NULL;
	snprintf(path, sizeof path, "%s/docs/detection.md", root);
	int r = read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL);
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	int seen[_EVENT_KIND_MAX] = {0};
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[64], id[64], sev[64];
		if (sscanf(line, "| `%63[^`]` | %63[0-9a-f] | %63[a-z] |", name, id, sev) != 3)
			continue;
		DetectEventKind k = detect_event_kind_from_string(name);
		if (k < 0)
			fprintf(stderr, "docs list %s, which is no event kind\n", name);
		CHECK(k >= 0);
		if (k < 0)
			continue;
		seen[k]++;
		CHECK_STR(id, event_kind_info(k)->message_id);
		CHECK_STR(sev, event_kind_info(k)->severity);
	}
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		if (seen[k] != 1)
			fprintf(stderr, "docs/detection.md lists %s %d times\n",
				event_kind_info((DetectEventKind)k)->name, seen[k]);
		CHECK_INT(seen[k], 1);
	}
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	check_table();
	check_catalog(root);
	check_docs(root);
	return test_done("events");
}
