/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The notifier's incident book and recent lines as the last run left them,
 * from the history's notifier tables: what was delivered counts as sent;
 * what was not (its hook failed, it was dropped, smrd stopped first) is
 * due again at the first tick.
 */
#include "notifier-private.h"

#include <errno.h>
#include <stdio.h>

#include "log.h"
#include "util.h"

#define RESTORE_ACKS_MAX 100000

static int restore_ack(const HistoryAck *a, void *userdata)
{
	Notifier *n = userdata;
	int kind = streq(a->kind, "all") ? -1 : detect_event_kind_from_string(a->kind);
	if (kind < 0 && !streq(a->kind, "all"))
		return 0;
	bool withdrawn = a->until_usec == HISTORY_ACK_WITHDRAWN;
	char line[sizeof a->kind + 6];
	snprintf(line, sizeof line, "%s %s", withdrawn ? "unack" : "ack", a->kind);
	notifier_remember_at(n, a->time_usec, a->device, line, withdrawn ? "withdrawn" : "acknowledged", NULL);
	if (withdrawn)
		(void)incident_unack(n->book, a->identity, kind);
	else
		incident_restore_ack(n->book, a->device, a->identity, kind, a->disk_class, a->time_usec,
				     a->until_usec > 0 ? (uint64_t)a->until_usec : 0);
	return 0;
}

static int restore_sent(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	int kind = detect_event_kind_from_string(s->kind);
	/* a storm's start and end: OPEN_STORMS says which is still open */
	if (kind < 0 || kind == EVENT_STORM_START || kind == EVENT_STORM_END)
		return 0;
	if (history_send_delivered(s)) {
		incident_restore_sent(n->book, s->device, s->identity, kind, s->incident, s->follow_up, s->time_usec);
		return 0;
	}
	/* its newest did not get through (failed, dropped, or smrd stopped first): due at once */
	IncidentNote note = {.kind = kind, .count = s->count > 0 ? (uint64_t)s->count : 1, .first_usec = s->event_usec,
			     .time_usec = s->event_usec};
	snprintf(note.device, sizeof note.device, "%s", s->device);
	snprintf(note.identity, sizeof note.identity, "%s", s->identity);
	snprintf(note.incident, sizeof note.incident, "%s", s->incident);
	snprintf(note.message, sizeof note.message, "%s of %s: not delivered before a restart (%s)", s->kind, s->device,
		 s->result[0] ? s->result : "not run");
	incident_unsent(n->book, &note, 0);
	return 0;
}

static int restore_storm(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	if (s->follow_up)
		return 0;	/* a storm within a rebuild's thread: the rebuild's */
	incident_restore_sent(n->book, s->device, s->identity, EVENT_STORM_START, s->incident, false, s->time_usec);
	return 0;
}

static int restore_recent(const HistorySend *s, void *userdata)
{
	Notifier *n = userdata;
	notifier_remember_at(n, s->time_usec, s->device, s->kind, s->result[0] ? s->result : "sent (before a restart)",
		    s->incident);
	return 0;
}

/* The book as the last run left it: acks in time order (an ack of all
 * after one of stall is both), each disk's newest send of each kind, the
 * storms whose end was not sent; and the page's recent lines. */
void notifier_restore(Notifier *n)
{
	if (!n->history)
		return;
	int r = history_query_acks(n->history, RESTORE_ACKS_MAX, restore_ack, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_LAST_PER_KIND, 0, restore_sent, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_OPEN_STORMS, 0, restore_storm, n);
	if (r >= 0)
		r = history_query_sends(n->history, HISTORY_SENDS_NEWEST, NOTIFY_RECENT, restore_recent, n);
	if (r < 0 && r != -EROFS)
		log_warning_errno(r, "notify: could not read what was sent before the restart, ignoring: %m");
}
