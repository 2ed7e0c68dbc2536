/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents from events (core/incidents.h), in model time: the issue's
 * replace (a stall, the warning, a storm, 1,556 slow I/Os, the storm's end,
 * the rebuild's end) is one rebuild incident of a few steps with every
 * slow I/O counted; slow I/Os alone end after a quiet while; a storm is
 * its own incident; a rebuild of which only the end was seen is one too;
 * other kinds stay rows of their own.
 */
#include "incidents.h"

#include <math.h>
#include <syslog.h>

#include "test.h"

#define T0 UINT64_C(1796450825000000)
#define SEC UINT64_C(1000000)

static IncidentChange take(IncidentTrack *t, DetectEventKind k, uint64_t at, double latency, bool rebuilding)
{
	IncidentInput in = {.kind = k, .time_usec = at, .priority = event_kind_info(k)->priority, .latency = latency,
			    .duration = NAN, .message = event_kind_info(k)->name, .rebuilding = rebuilding};
	incident_expire(t, at, rebuilding);
	return incident_take(t, &in, "sdb", "WD-X1");
}

static void test_replace(void)
{
	IncidentTrack t = {0};
	unsigned rows = 0;
	/* the replace's first stall comes a second before the watcher sees it */
	IncidentChange c = take(&t, EVENT_STALL, T0, 1.6, false);
	CHECK_INT(c, INCIDENT_OPENED);
	CHECK_INT(t.open.kind, INCIDENT_STALLS);
	char id[INCIDENT_ID_MAX];
	snprintf(id, sizeof id, "%s", t.open.id);
	CHECK(strncmp(id, "stalls-", 7) == 0);
	rows += incident_change_stores(c);
	IncidentInput w = {.kind = EVENT_REBUILD_WARNING, .time_usec = T0 + SEC, .priority = LOG_WARNING,
			   .latency = NAN, .duration = 780, .message = "btrfs file system /srv is rebuilding onto sdb",
			   .rebuilding = true};
	c = incident_take(&t, &w, "sdb", "WD-X1");
	CHECK_INT(c, INCIDENT_STEP);
	rows++;
	CHECK_INT(t.open.kind, INCIDENT_REBUILD);	/* taken over: the same thread */
	CHECK_STR(t.open.id, id);
	CHECK_INT(t.open.start_usec, T0);
	CHECK_NEAR(t.open.expected, 780, 0);
	rows += incident_change_stores(take(&t, EVENT_STORM_START, T0 + 3 * SEC, 9.2, true));
	for (unsigned k = 0; k < 1555; k++)
		rows += incident_change_stores(take(&t, EVENT_STALL, T0 + 4 * SEC + k * 90000, k == 700 ? 3.2 : 1.6, true));
	rows += incident_change_stores(take(&t, EVENT_TIMEOUT_RISK, T0 + 150 * SEC, 25, true));
	rows += incident_change_stores(take(&t, EVENT_STORM_END, T0 + 152 * SEC, 3.2, true));
	CHECK(t.active);	/* a storm's end within a rebuild is a step of it */
	IncidentInput done = {.kind = EVENT_REBUILD_DONE, .time_usec = T0 + 153 * SEC, .priority = LOG_NOTICE,
			      .latency = NAN, .duration = 152, .message = "btrfs-replace of /srv onto sdb finished in 2.5 min"};
	c = incident_take(&t, &done, "sdb", "WD-X1");
	rows += incident_change_stores(c);
	CHECK_INT(c, INCIDENT_CLOSED);
	CHECK(!t.active);
	const Incident *i = &t.open;
	CHECK_INT(rows, 6);	/* stall, warning, storm-start, timeout-risk, storm-end, done */
	CHECK_INT(i->events, 1561);
	CHECK_INT(i->folded, 1555);
	CHECK_INT(i->slow_ios, 1556);	/* the stalls (a timeout risk is one of them, said again) */
	CHECK_NEAR(i->slow_worst, 25, 0);
	CHECK_INT(i->slow_hist[1], 1555);	/* 1-2 s */
	CHECK_INT(i->slow_hist[2], 1);		/* 3.2 s */
	CHECK(i->slow_peak >= 600 && i->slow_peak <= 700);	/* one every 90 ms */
	CHECK_INT(i->storms, 1);
	CHECK_INT(i->priority, LOG_CRIT);
	CHECK_INT(i->n_steps, 6);
	CHECK_INT(i->steps[1].kind, EVENT_REBUILD_WARNING);
	CHECK_INT(i->end_usec, T0 + 153 * SEC);
	CHECK_NEAR(i->duration, 152, 0);
	CHECK_STR(i->outcome, "btrfs-replace of /srv onto sdb finished in 2.5 min");
	char line[512];
	incident_summary(i, line, sizeof line);
	CHECK_STR(line, "rebuild onto sdb: 1 storm, 1556 slow I/Os (worst 25 s, at most 667 a minute), ended: "
			"btrfs-replace of /srv onto sdb finished in 2.5 min");
	/* the target still destaging after the rebuild: its storm's end is a row of its own */
	CHECK_INT(take(&t, EVENT_STORM_END, T0 + 200 * SEC, 3, false), INCIDENT_UNTOUCHED);
}

static void test_stalls_storm(void)
{
	IncidentTrack t = {0};
	CHECK_INT(take(&t, EVENT_STALL, T0, 1.2, false), INCIDENT_OPENED);
	CHECK_INT(take(&t, EVENT_STALL, T0 + 60 * SEC, 1.2, false), INCIDENT_COUNTED);
	CHECK_INT(take(&t, EVENT_ZFS_DELAY, T0 + 70 * SEC, 31, false), INCIDENT_STEP);	/* its first delay */
	CHECK_INT(take(&t, EVENT_ZFS_DELAY, T0 + 71 * SEC, 35, false), INCIDENT_COUNTED);
	CHECK_INT(t.open.zfs_delays, 2);
	CHECK_NEAR(t.open.zfs_worst, 35, 0);
	char first[INCIDENT_ID_MAX];
	snprintf(first, sizeof first, "%s", t.open.id);
	/* ten quiet minutes end it; the next stall is another */
	CHECK(!incident_expire(&t, T0 + 71 * SEC + INCIDENT_QUIET_USEC - 1, false));
	CHECK(incident_expire(&t, T0 + 71 * SEC + INCIDENT_QUIET_USEC, false));
	CHECK_INT(t.open.end_usec, T0 + 71 * SEC);
	CHECK_STR(t.open.outcome, "no slow I/O for 10 min");
	CHECK_INT(take(&t, EVENT_STALL, T0 + 3600 * SEC, 1.2, false), INCIDENT_OPENED);
	CHECK(strcmp(t.open.id, first) != 0);
	/* a storm takes the stalls over and ends at its end */
	CHECK_INT(take(&t, EVENT_STORM_START, T0 + 3601 * SEC, 9, false), INCIDENT_STEP);
	CHECK_INT(t.open.kind, INCIDENT_STORM);
	CHECK_INT(take(&t, EVENT_BEHAVIOUR, T0 + 3602 * SEC, NAN, false), INCIDENT_UNTOUCHED);
	CHECK_INT(take(&t, EVENT_STORM_END, T0 + 3700 * SEC, 9, false), INCIDENT_CLOSED);
	CHECK_INT(t.open.storms, 1);
	/* a storm alone */
	CHECK_INT(take(&t, EVENT_STORM_START, T0 + 7200 * SEC, 9, false), INCIDENT_OPENED);
	CHECK(strncmp(t.open.id, "storm-", 6) == 0);
	CHECK_INT(take(&t, EVENT_STORM_END, T0 + 7300 * SEC, 9, false), INCIDENT_CLOSED);
	/* a state change to FAULTED makes the incident worse; back to HEALTHY is a row */
	IncidentInput sc = {.kind = EVENT_ZFS_STATECHANGE, .time_usec = T0 + 8000 * SEC, .priority = LOG_WARNING,
			    .latency = NAN, .duration = NAN, .message = "FAULTED"};
	CHECK_INT(incident_take(&t, &sc, "sdb", "WD-X1"), INCIDENT_OPENED);
	sc.priority = LOG_NOTICE;
	CHECK_INT(incident_take(&t, &sc, "sdb", "WD-X1"), INCIDENT_UNTOUCHED);
}

/* A rebuild onto a CMR disk: no warning, only its end, one closed incident
 * that began when the rebuild did; a rebuild whose end is never heard ends
 * a day after its last event once none is followed. */
static void test_rebuild_edges(void)
{
	IncidentTrack t = {0};
	IncidentInput done = {.kind = EVENT_REBUILD_DONE, .time_usec = T0 + 600 * SEC, .priority = LOG_NOTICE,
			      .latency = NAN, .duration = 600, .message = "finished"};
	CHECK_INT(incident_take(&t, &done, "sdc", "CMR-1"), INCIDENT_CLOSED);
	CHECK_INT(t.open.start_usec, T0);
	CHECK_INT(t.open.kind, INCIDENT_REBUILD);
	IncidentInput w = {.kind = EVENT_REBUILD_WARNING, .time_usec = T0, .priority = LOG_WARNING, .latency = NAN,
			   .duration = NAN, .message = "ZFS pool tank is rebuilding onto sdc"};
	CHECK_INT(incident_take(&t, &w, "sdc", "CMR-1"), INCIDENT_OPENED);
	CHECK(!incident_expire(&t, T0 + INCIDENT_STALE_USEC, true));	/* followed: it goes on */
	CHECK(!incident_expire(&t, T0 + INCIDENT_STALE_USEC - 1, false));
	CHECK(incident_expire(&t, T0 + INCIDENT_STALE_USEC, false));
	CHECK(strstr(t.open.outcome, "its end was not seen") != NULL);
	/* many storms in one rebuild: the first few are rows */
	CHECK_INT(incident_take(&t, &w, "sdc", "CMR-1"), INCIDENT_OPENED);
	unsigned rows = 0;
	for (unsigned k = 0; k < 10; k++) {
		rows += incident_change_stores(take(&t, EVENT_STORM_START, T0 + (2 * k + 1) * SEC, 9, true));
		rows += incident_change_stores(take(&t, EVENT_STORM_END, T0 + (2 * k + 2) * SEC, 9, true));
	}
	CHECK_INT(rows, 2 * INCIDENT_STORMS_KEPT);
	CHECK_INT(t.open.storms, 10);
	CHECK_INT(incident_hist_bucket(0.5), 0);
	CHECK_INT(incident_hist_bucket(NAN), 0);
	CHECK_INT(incident_hist_bucket(1), 1);
	CHECK_INT(incident_hist_bucket(64), 7);
	CHECK_INT(incident_hist_bucket(1e9), 7);
	CHECK_STR(incident_hist_label(2), "2-4 s");
	CHECK_INT(incident_kind_from_string("rebuild"), INCIDENT_REBUILD);
	CHECK_INT(incident_kind_from_string("x"), _INCIDENT_KIND_INVALID);
}

int main(void)
{
	test_replace();
	test_stalls_storm();
	test_rebuild_edges();
	return test_done("incidents");
}
