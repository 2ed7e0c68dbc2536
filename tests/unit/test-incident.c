/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One notification per incident: storms and their follow-ups, once-kinds,
 * aggregated stalls, severity, acknowledgements, a restart, and notes that
 * did not get through. */
#include <syslog.h>

#include "incident.h"
#include "test.h"
#include "util.h"

#define S(x) ((uint64_t)(x) * 1000000)

static IncidentParams P = {.min_priority = LOG_WARNING, .interval_usec = S(3600)};

static bool judge(IncidentBook *b, DetectEventKind k, const char *cls, uint64_t t, IncidentNote *n, const char **why)
{
	IncidentEvent e = {.kind = k, .device = "sdb", .identity = "wwn-0x5000c500a1b2c3d4", .disk_class = cls,
			   .time_usec = t, .message = "m"};
	return incident_judge(b, &P, &e, n, why);
}

static unsigned summaries;
static IncidentNote last_summary;
static void on_summary(const IncidentNote *n, void *userdata)
{
	(void)userdata;
	summaries++;
	last_summary = *n;
}

static void test_storms_and_once(void)
{
	IncidentBook *b;
	IncidentNote n, start;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	CHECK(judge(b, EVENT_STORM_START, "unknown", S(100), &start, &why));
	CHECK(!start.follow_up);
	CHECK(strncmp(start.incident, "storm-", 6) == 0);
	/* the end: a follow-up of the same incident, though it is only a notice */
	CHECK(judge(b, EVENT_STORM_END, "dm-smr", S(160), &n, &why));
	CHECK(n.follow_up);
	CHECK_STR(n.incident, start.incident);
	/* an end without a start sent says nothing */
	CHECK(!judge(b, EVENT_STORM_END, "dm-smr", S(170), &n, &why));
	CHECK_STR(why, "its start was not sent");
	/* the next storm is a new incident */
	CHECK(judge(b, EVENT_STORM_START, "dm-smr", S(900), &n, &why));
	CHECK(strcmp(n.incident, start.incident) != 0);
	/* behaviour once, ever; a notice (bands) is below the default */
	CHECK(judge(b, EVENT_BEHAVIOUR, "dm-smr", S(101), &n, &why));
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(9000), &n, &why));
	CHECK_STR(why, "already sent");
	CHECK(!judge(b, EVENT_BANDS, "dm-smr", S(102), &n, &why));
	CHECK_STR(why, "below notify-min-severity");
	CHECK(!judge(b, EVENT_MEDIA_CACHE, "dm-smr", S(103), &n, &why));
	CHECK_STR(why, "not a notification kind");
	incident_book_free(b);
}

static void test_stalls_aggregated(void)
{
	IncidentBook *b;
	IncidentNote n;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	CHECK(judge(b, EVENT_STALL, "cmr", S(10), &n, &why));
	CHECK_INT(n.count, 1);
	for (int i = 0; i < 41; i++) {
		CHECK(!judge(b, EVENT_STALL, "cmr", S(20 + i), &n, &why));
		CHECK_STR(why, "aggregated");
	}
	summaries = 0;
	CHECK_INT(incident_due(b, &P, S(3000), on_summary, NULL), 0);	/* the hour is not over */
	CHECK_INT(incident_due(b, &P, S(3610), on_summary, NULL), 1);
	CHECK_INT(last_summary.count, 41);
	CHECK_INT(last_summary.first_usec, S(20));
	CHECK(strstr(last_summary.message, "41 more") != NULL);
	CHECK_INT(incident_due(b, &P, S(9000), on_summary, NULL), 0);	/* nothing left */
	/* the next one an hour after the summary goes at once */
	CHECK(!judge(b, EVENT_STALL, "cmr", S(3620), &n, &why));
	CHECK(judge(b, EVENT_STALL, "cmr", S(3610 + 3600), &n, &why));
	/* a timeout risk is its own kind, and crit */
	CHECK(judge(b, EVENT_TIMEOUT_RISK, "cmr", S(3620), &n, &why));
	incident_book_free(b);
}

static void test_acks_and_restart(void)
{
	IncidentBook *b;
	IncidentNote n;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	CHECK_INT(incident_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_STALL, "cmr", S(1), 0), 0);
	CHECK(!judge(b, EVENT_STALL, "cmr", S(10), &n, &why));
	CHECK_STR(why, "acknowledged");
	CHECK(judge(b, EVENT_STORM_START, "cmr", S(11), &n, &why));	/* another kind */
	/* the class changed: news again, and the ack is gone */
	CHECK(judge(b, EVENT_STALL, "dm-smr", S(12), &n, &why));
	CHECK(!incident_acked(b, "wwn-0x5000c500a1b2c3d4", EVENT_STALL, "cmr", S(12)));
	/* all kinds */
	CHECK_INT(incident_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", -1, "dm-smr", S(12), 0), 0);
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(13), &n, &why));
	CHECK_STR(why, "acknowledged");
	/* an acknowledged storm's end is silent too */
	CHECK(!judge(b, EVENT_STORM_START, "dm-smr", S(14), &n, &why));
	CHECK(!judge(b, EVENT_STORM_END, "dm-smr", S(15), &n, &why));
	CHECK_INT(incident_ack(b, "sdb", "x", _EVENT_KIND_MAX, "dm-smr", S(1), 0), -EINVAL);
	incident_book_free(b);

	/* a restart: what the history says was sent is not sent again, an
	 * open storm's end is still its follow-up, acks hold */
	CHECK_INT(incident_book_new(&b), 0);
	incident_restore_sent(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_BEHAVIOUR, "behaviour-1", false, S(5));
	incident_restore_sent(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_STORM_START, "storm-00ff", false, S(6));
	incident_restore_sent(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_STALL, "stall-1", false, S(7));
	incident_restore_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_TIMEOUT_RISK, "dm-smr", S(8), 0);
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(100), &n, &why));
	CHECK(!judge(b, EVENT_STALL, "dm-smr", S(100), &n, &why));
	CHECK_STR(why, "aggregated");
	CHECK(!judge(b, EVENT_TIMEOUT_RISK, "dm-smr", S(100), &n, &why));
	CHECK(judge(b, EVENT_STORM_END, "dm-smr", S(100), &n, &why));
	CHECK_STR(n.incident, "storm-00ff");
	/* the same disk under another name is the same disk */
	IncidentEvent e = {.kind = EVENT_BEHAVIOUR, .device = "sdc", .identity = "wwn-0x5000c500a1b2c3d4",
			   .disk_class = "dm-smr", .time_usec = S(200), .message = "m"};
	CHECK(!incident_judge(b, &P, &e, &n, &why));
	/* forgotten (smrctl forget): its verdict and acks go with it, other
	 * disks keep theirs */
	incident_restore_sent(b, "sdd", "ZA1234", EVENT_BEHAVIOUR, "behaviour-2", false, S(5));
	CHECK_INT(incident_forget(b, "sdb", "wwn-0x5000c500a1b2c3d4"), 1);
	CHECK(judge(b, EVENT_BEHAVIOUR, "dm-smr", S(300), &n, &why));
	CHECK(judge(b, EVENT_TIMEOUT_RISK, "dm-smr", S(300), &n, &why));
	e.device = "sdd", e.identity = "ZA1234";
	CHECK(!incident_judge(b, &P, &e, &n, &why));
	CHECK_STR(why, "already sent");
	CHECK_INT(incident_forget(b, "sdx", ""), 0);
	incident_book_free(b);
}

/* A note whose hook failed or that was dropped is not sent: the next
 * event of its kind sends it, else a retry one interval on; a storm's start
 * that did not get through makes its end no follow-up. */
static void count_ack(const IncidentAck *a, void *userdata)
{
	IncidentAck *last = userdata;
	*last = *a;
}

/* An ack expires (like an Alertmanager silence), can be withdrawn, and is
 * listed while it holds. */
static void test_ack_expiry_and_unack(void)
{
	IncidentBook *b;
	IncidentNote n;
	IncidentAck a = {0};
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	CHECK_INT(incident_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_STALL, "cmr", S(1), S(100)), 0);
	CHECK_INT(incident_acks(b, S(50), count_ack, &a), 1);
	CHECK_STR(a.device, "sdb");
	CHECK_INT(a.kind, EVENT_STALL);
	CHECK_STR(a.disk_class, "cmr");
	CHECK(a.time_usec == S(1) && a.until_usec == S(100));
	CHECK(!judge(b, EVENT_STALL, "cmr", S(50), &n, &why));
	CHECK_STR(why, "acknowledged");
	/* past its expiry: notified again, and no longer listed */
	CHECK(judge(b, EVENT_STALL, "cmr", S(100), &n, &why));
	CHECK_INT(incident_acks(b, S(101), NULL, NULL), 0);
	/* unack of all withdraws an ack of all and each kind's */
	CHECK_INT(incident_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", -1, "cmr", S(200), 0), 0);
	CHECK_INT(incident_ack(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_STORM_START, "cmr", S(200), 0), 0);
	CHECK_INT(incident_acks(b, S(10000), NULL, NULL), 2);
	CHECK(!judge(b, EVENT_STORM_START, "cmr", S(300), &n, &why));
	CHECK_INT(incident_unack(b, "wwn-0x5000c500a1b2c3d4", EVENT_STORM_START), 1);
	CHECK(!judge(b, EVENT_STORM_START, "cmr", S(301), &n, &why));	/* the ack of all still holds */
	CHECK_INT(incident_unack(b, "wwn-0x5000c500a1b2c3d4", -1), 1);
	CHECK(judge(b, EVENT_STORM_START, "cmr", S(302), &n, &why));
	CHECK_INT(incident_unack(b, "wwn-0x5000c500a1b2c3d4", -1), 0);
	CHECK_INT(incident_unack(b, "nobody", -1), 0);
	CHECK_INT(incident_acks(b, S(400), NULL, NULL), 0);
	incident_book_free(b);
}

/* notify-coalesce: a storm's start waits; the verdict of that while is
 * folded into it (one notification, not two in a second), an end that came
 * first too; a start that then fails gives the folded verdict back. */
static void test_coalesce(void)
{
	IncidentBook *b;
	IncidentNote n;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	P.coalesce_usec = S(10);
	CHECK(!judge(b, EVENT_STORM_START, "unknown", S(100), &n, &why));
	CHECK_STR(why, INCIDENT_HELD);
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(101), &n, &why));
	CHECK_STR(why, INCIDENT_FOLDED);
	summaries = 0;
	CHECK_INT(incident_due(b, &P, S(105), on_summary, NULL), 0);
	CHECK_INT(incident_due(b, &P, S(110), on_summary, NULL), 1);
	CHECK_INT(last_summary.kind, EVENT_STORM_START);
	CHECK_STR(last_summary.message, "m; m");
	CHECK(last_summary.folded == (UINT32_C(1) << EVENT_BEHAVIOUR));
	CHECK_INT(incident_due(b, &P, S(200), on_summary, NULL), 0);	/* once */
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(120), &n, &why));	/* sent, in the storm's */
	CHECK_STR(why, "already sent");
	CHECK(judge(b, EVENT_STORM_END, "dm-smr", S(130), &n, &why));	/* its follow-up */
	CHECK(n.follow_up);
	CHECK_STR(n.incident, last_summary.incident);
	/* the start was not delivered: the verdict folded into it is due again */
	incident_unsent(b, &last_summary, S(140));
	CHECK_INT(incident_due(b, &P, S(140 + 3600), on_summary, NULL), 1);
	CHECK_INT(last_summary.kind, EVENT_BEHAVIOUR);
	/* a storm over within the window: one notification says both */
	CHECK(!judge(b, EVENT_STORM_START, "dm-smr", S(5000), &n, &why));
	CHECK(judge(b, EVENT_STORM_END, "dm-smr", S(5003), &n, &why));
	CHECK_INT(n.kind, EVENT_STORM_START);
	CHECK(n.ended && !n.follow_up);
	CHECK_INT(incident_due(b, &P, S(6000), on_summary, NULL), 0);
	P.coalesce_usec = 0;
	incident_book_free(b);
}

static void test_unsent(void)
{
	IncidentBook *b;
	IncidentNote n, first;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	CHECK(judge(b, EVENT_BEHAVIOUR, "dm-smr", S(100), &first, &why));
	incident_unsent(b, &first, S(101));
	CHECK(judge(b, EVENT_BEHAVIOUR, "dm-smr", S(200), &n, &why));
	CHECK_STR(n.incident, first.incident);
	summaries = 0;
	CHECK_INT(incident_due(b, &P, S(200 + 3600), on_summary, NULL), 0);	/* that was the retry */
	/* no event again: retried one interval after the failure, then sent once */
	incident_unsent(b, &n, S(300));
	CHECK_INT(incident_due(b, &P, S(300 + 3599), on_summary, NULL), 0);
	CHECK_INT(incident_due(b, &P, S(300 + 3600), on_summary, NULL), 1);
	CHECK_INT(last_summary.kind, EVENT_BEHAVIOUR);
	CHECK_STR(last_summary.incident, first.incident);
	CHECK_STR(last_summary.message, "m");
	CHECK(!judge(b, EVENT_BEHAVIOUR, "dm-smr", S(9000), &n, &why));
	CHECK_STR(why, "already sent");
	/* a stall dropped: the summary an interval on stands for it, and one
	 * logged before the drop was known is summed too, not sent */
	CHECK(judge(b, EVENT_STALL, "dm-smr", S(100), &n, &why));
	incident_unsent(b, &n, S(105));
	CHECK(!judge(b, EVENT_STALL, "dm-smr", S(102), &n, &why));
	CHECK_STR(why, "aggregated");
	CHECK_INT(incident_due(b, &P, S(3699), on_summary, NULL), 0);
	CHECK(!judge(b, EVENT_STALL, "dm-smr", S(150), &n, &why));
	CHECK_STR(why, "aggregated");
	CHECK_INT(incident_due(b, &P, S(3700), on_summary, NULL), 1);
	CHECK_INT(last_summary.kind, EVENT_STALL);
	CHECK_INT(last_summary.count, 3);
	CHECK_INT(last_summary.first_usec, S(100));
	/* a storm's start not delivered: its end is no follow-up */
	CHECK(judge(b, EVENT_STORM_START, "dm-smr", S(500), &n, &why));
	incident_unsent(b, &n, S(501));
	CHECK(!judge(b, EVENT_STORM_END, "dm-smr", S(560), &n, &why));
	CHECK_STR(why, "its start was not sent");
	incident_book_free(b);

	/* from the history at start: a book that never judged it sends it at the first tick */
	CHECK_INT(incident_book_new(&b), 0);
	IncidentNote old = {.kind = EVENT_BANDS, .count = 1, .first_usec = S(5), .time_usec = S(5),
			    .device = "sdc", .identity = "ZA1", .incident = "bands-0011223344556677", .message = "x"};
	incident_unsent(b, &old, 0);
	CHECK_INT(incident_due(b, &P, S(1800000000), on_summary, NULL), 1);	/* a real clock */
	CHECK_STR(last_summary.device, "sdc");
	CHECK_INT(incident_due(b, &P, S(1800007200), on_summary, NULL), 0);
	incident_book_free(b);
}

static void test_ids(void)
{
	char a[INCIDENT_ID_MAX], b[INCIDENT_ID_MAX];
	/* never a byte of the (untrusted) identity */
	incident_make_id(a, "x\nBcc: evil@example.com $(reboot)", "storm", 1);
	CHECK(strchr(a, '\n') == NULL && strchr(a, '$') == NULL && strchr(a, ' ') == NULL);
	CHECK(strncmp(a, "storm-", 6) == 0 && strlen(a) == 6 + 16);
	incident_make_id(b, "x\nBcc: evil@example.com $(reboot)", "storm", 2);
	CHECK(strcmp(a, b) != 0);
}

static bool tjudge(IncidentBook *b, DetectEventKind k, const char *thread, const char *tkind, bool end, uint64_t t,
		   IncidentNote *n, const char **why)
{
	IncidentEvent e = {.kind = k, .device = "sdb", .identity = "wwn-0x5000c500a1b2c3d4", .disk_class = "dm-smr",
			   .time_usec = t, .message = k >= 0 ? "m" : NULL, .thread = thread, .thread_kind = tkind,
			   .summary = "sum", .thread_end = end};
	if (k == EVENT_ZFS_STATECHANGE)
		e.has_priority = true, e.priority = LOG_WARNING;	/* to FAULTED */
	return incident_judge(b, &P, &e, n, why);
}

/* A replace as the recorder tells it: the stall a second before its
 * warning held and dropped, the warning the thread's start, its storm and
 * zed's first delay and state change what changed, its stalls and storm's
 * end counted, its end always: five notes, one thread. The next rebuild is
 * a thread of its own at once; after a restart an open rebuild's end is
 * still sent. */
static void test_rebuild_thread(void)
{
	IncidentBook *b;
	IncidentNote n;
	const char *why;
	unsigned notes = 0;
	CHECK_INT(incident_book_new(&b), 0);
	P.coalesce_usec = S(10);
	CHECK(!tjudge(b, EVENT_STALL, "stalls-1", "stalls", false, S(100), &n, &why));
	CHECK_STR(why, INCIDENT_HELD);
	CHECK(tjudge(b, EVENT_REBUILD_WARNING, "stalls-1", "rebuild", false, S(101), &n, &why));
	notes++;
	CHECK(n.stage == INCIDENT_STAGE_START && !n.follow_up && streq(n.incident, "stalls-1") && n.kind == EVENT_REBUILD_WARNING);
	CHECK_STR(n.thread_kind, "rebuild");
	summaries = 0;
	CHECK_INT(incident_due(b, &P, S(200), on_summary, NULL), 0);	/* the held stall gave way */
	for (unsigned k = 0; k < 50; k++) {
		CHECK(!tjudge(b, EVENT_STALL, "stalls-1", "rebuild", false, S(102) + k, &n, &why));
		CHECK_STR(why, INCIDENT_IN_THREAD);
	}
	const DetectEventKind news[] = {EVENT_STORM_START, EVENT_ZFS_DELAY, EVENT_ZFS_STATECHANGE};
	for (size_t k = 0; k < ELEMENTSOF(news); k++) {
		CHECK(tjudge(b, news[k], "stalls-1", "rebuild", false, S(110 + k), &n, &why));
		notes++;
		CHECK(n.stage == INCIDENT_STAGE_UPDATE && n.follow_up && streq(n.incident, "stalls-1"));
	}
	CHECK(!tjudge(b, EVENT_ZFS_DELAY, "stalls-1", "rebuild", false, S(120), &n, &why));	/* counted */
	CHECK(!tjudge(b, EVENT_STORM_END, "stalls-1", "rebuild", false, S(150), &n, &why));
	CHECK(!tjudge(b, EVENT_STORM_START, "stalls-1", "rebuild", false, S(160), &n, &why));	/* its second storm */
	CHECK(tjudge(b, EVENT_REBUILD_DONE, "stalls-1", "rebuild", true, S(200), &n, &why));	/* a notice: sent all the same */
	notes++;
	CHECK(n.stage == INCIDENT_STAGE_END && n.follow_up && streq(n.incident, "stalls-1") && n.kind == EVENT_REBUILD_DONE);
	CHECK_STR(n.summary, "sum");
	CHECK_INT(notes, 5);
	/* the next rebuild onto it: at once, not held back by notify-interval */
	CHECK(tjudge(b, EVENT_REBUILD_WARNING, "rebuild-2", "rebuild", false, S(300), &n, &why));
	CHECK(n.stage == INCIDENT_STAGE_START && streq(n.incident, "rebuild-2"));
	incident_book_free(b);

	/* a restart mid-way: its start went out before; its end is owed */
	CHECK_INT(incident_book_new(&b), 0);
	incident_restore_sent(b, "sdb", "wwn-0x5000c500a1b2c3d4", EVENT_REBUILD_WARNING, "rebuild-2", false, S(300));
	CHECK(!tjudge(b, EVENT_REBUILD_WARNING, "rebuild-2", "rebuild", false, S(301), &n, &why) || n.follow_up);
	CHECK(!tjudge(b, EVENT_STALL, "rebuild-2", "rebuild", false, S(302), &n, &why));
	CHECK(tjudge(b, _EVENT_KIND_INVALID, "rebuild-2", "rebuild", true, S(90000), &n, &why));	/* ended unseen */
	CHECK(n.stage == INCIDENT_STAGE_END && n.kind == EVENT_REBUILD_DONE && streq(n.message, "sum"));
	/* a rebuild onto a CMR disk says nothing: a stall is no news, its end follows none */
	CHECK(!tjudge(b, EVENT_STALL, "rebuild-3", "rebuild", false, S(100000), &n, &why));
	CHECK(!tjudge(b, EVENT_REBUILD_DONE, "rebuild-3", "rebuild", true, S(100100), &n, &why));
	CHECK_STR(why, "its start was not sent");
	P.coalesce_usec = 0;
	incident_book_free(b);
}

/* A storm's incident: the stall before it held and given way, its stalls
 * counted, its end a follow-up with its counts; stalls alone: their end a
 * follow-up of their first note. */
static void test_storm_and_stalls_threads(void)
{
	IncidentBook *b;
	IncidentNote n;
	const char *why;
	CHECK_INT(incident_book_new(&b), 0);
	P.coalesce_usec = S(10);
	CHECK(!tjudge(b, EVENT_STALL, "stalls-9", "stalls", false, S(100), &n, &why));
	CHECK(!tjudge(b, EVENT_STORM_START, "stalls-9", "storm", false, S(102), &n, &why));
	CHECK_STR(why, INCIDENT_HELD);
	CHECK(!tjudge(b, EVENT_STALL, "stalls-9", "storm", false, S(103), &n, &why));
	CHECK_STR(why, INCIDENT_IN_THREAD);
	summaries = 0;
	CHECK_INT(incident_due(b, &P, S(112), on_summary, NULL), 1);
	CHECK(last_summary.kind == EVENT_STORM_START && streq(last_summary.incident, "stalls-9"));
	CHECK(tjudge(b, EVENT_STORM_END, "stalls-9", "storm", true, S(160), &n, &why));
	CHECK(n.follow_up && n.stage == INCIDENT_STAGE_END && streq(n.incident, "stalls-9") && streq(n.summary, "sum"));
	/* stalls alone */
	CHECK(!tjudge(b, EVENT_STALL, "stalls-a", "stalls", false, S(5000), &n, &why));
	CHECK_INT(incident_due(b, &P, S(5010), on_summary, NULL), 1);
	CHECK(last_summary.kind == EVENT_STALL && streq(last_summary.incident, "stalls-a") && !last_summary.follow_up);
	CHECK(tjudge(b, _EVENT_KIND_INVALID, "stalls-a", "stalls", true, S(5700), &n, &why));
	CHECK(n.follow_up && n.kind == EVENT_STALL && n.stage == INCIDENT_STAGE_END && streq(n.message, "sum"));
	P.coalesce_usec = 0;
	incident_book_free(b);
}

int main(void)
{
	test_storms_and_once();
	test_stalls_aggregated();
	test_acks_and_restart();
	test_ack_expiry_and_unack();
	test_coalesce();
	test_unsent();
	test_ids();
	test_rebuild_thread();
	test_storm_and_stalls_threads();
	return test_done("test-incident");
}
