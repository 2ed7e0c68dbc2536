/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl ack, unack and acks: an acknowledgement silences a disk's kind (or
 * all) while its class holds and until it expires, like an Alertmanager
 * silence; each, and each withdrawal, is a row of the history's notify_acks
 * (a withdrawal's until_usec is HISTORY_ACK_WITHDRAWN), replayed in time
 * order at start (notifier-restore.c).
 */
#include "notifier.h"
#include "notifier-private.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "classify.h"
#include "log.h"
#include "util.h"

static void record_ack(Notifier *n, const Disk *d, const char *id, const char *what, const char *cls,
		       int64_t until_usec)
{
	HistoryAck a = {.time_usec = now_usec(CLOCK_REALTIME), .until_usec = until_usec};
	snprintf(a.device, sizeof a.device, "%s", d->name);
	snprintf(a.identity, sizeof a.identity, "%s", id);
	snprintf(a.kind, sizeof a.kind, "%s", what);
	snprintf(a.disk_class, sizeof a.disk_class, "%s", cls);
	int r = history_add_ack(n->history, &a);
	if (r < 0 && r != -EIO)
		log_warning_errno(r, "history: could not record the acknowledgement of %s, ignoring: %m", d->name);
}

int notifier_ack(Notifier *n, const Disk *d, int kind, uint64_t until_usec)
{
	char key[96];
	const char *id = notifier_disk_key(n, d, key);
	const char *cls = disk_class_to_string(disk_class(d));
	int r = incident_ack(n->book, d->name, id, kind, cls, now_usec(CLOCK_REALTIME), until_usec);
	if (r < 0)
		return r;
	const char *what = kind < 0 ? "all" : event_kind_info(kind)->name;
	record_ack(n, d, id, what, cls, (int64_t)until_usec);
	char line[32], until[40] = "";
	snprintf(line, sizeof line, "ack %s", what);
	notifier_remember(n, d->name, line, "acknowledged", NULL);
	if (until_usec) {
		time_t t = (time_t)(until_usec / 1000000);
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(until, sizeof until, " until %Y-%m-%d %H:%M:%S UTC", &tm);
	}
	log_notice("%s: notifications of %s acknowledged while it stays %s%s", d->name,
		   kind < 0 ? "every kind" : what, cls, until);
	return 0;
}

int notifier_unack(Notifier *n, const Disk *d, int kind)
{
	char key[96];
	const char *id = notifier_disk_key(n, d, key);
	int k = incident_unack(n->book, id, kind);
	if (k <= 0)
		return k;
	const char *what = kind < 0 ? "all" : event_kind_info(kind)->name;
	record_ack(n, d, id, what, disk_class_to_string(disk_class(d)), HISTORY_ACK_WITHDRAWN);
	char line[32];
	snprintf(line, sizeof line, "unack %s", what);
	notifier_remember(n, d->name, line, "withdrawn", NULL);
	log_notice("%s: acknowledgement of %s withdrawn: its notifications are sent again", d->name,
		   kind < 0 ? "every kind" : what);
	return k;
}

unsigned notifier_acks(const Notifier *n, void (*cb)(const IncidentAck *a, void *userdata), void *userdata)
{
	return n ? incident_acks(n->book, now_usec(CLOCK_REALTIME), cb, userdata) : 0;
}
