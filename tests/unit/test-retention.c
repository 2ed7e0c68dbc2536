/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Retention on a wall clock that is wrong (issue 26): 100 days ahead at
 * start, stepped back by NTP, set forward by hand; and on one that is
 * right, where events older than history-days go as they should.
 */
#include "retention.h"
#include "test.h"

#define S UINT64_C(1000000)
#define DAY (86400 * S)

int main(void)
{
	Retention r;
	uint64_t before;
	const char *why;
	const uint64_t mono = 1000 * S, real = 1796000000 * S;

	/* a sane clock: the first prune ten minutes in, by age, then hourly */
	retention_init(&r, mono, real, real - 2 * DAY);
	CHECK(!retention_due(&r, mono + 1 * S, real + 1 * S, 90, &before, &why));	/* never on the first tick */
	CHECK(!retention_due(&r, mono + 599 * S, real + 599 * S, 90, &before, &why));
	CHECK(retention_due(&r, mono + 600 * S, real + 600 * S, 90, &before, &why));
	CHECK(why == NULL);
	CHECK_INT(before, real + 600 * S - 90 * DAY);
	CHECK(!retention_due(&r, mono + 1200 * S, real + 1200 * S, 90, &before, &why));
	CHECK(retention_due(&r, mono + 4200 * S, real + 4200 * S, 90, &before, &why));

	/* an RTC 100 days ahead at boot: every stored event is older than
	 * 90 days by it, and none is deleted by age */
	uint64_t ahead = real + 100 * DAY;
	retention_init(&r, mono, ahead, real - 2 * DAY);
	CHECK(retention_due(&r, mono + 700 * S, ahead + 700 * S, 90, &before, &why));
	CHECK_INT(before, 0);
	CHECK(why && strstr(why, "would delete every event stored before this start"));
	/* NTP steps it back: a jump, said, and an hour without pruning by age */
	CHECK(retention_watch(&r, mono + 800 * S, real + 800 * S) < -99 * (int64_t)DAY);
	CHECK(retention_due(&r, mono + 700 * S + RETENTION_EVERY_USEC, real + 700 * S + RETENTION_EVERY_USEC, 90,
			    &before, &why));
	CHECK_INT(before, 0);
	CHECK(why && strstr(why, "jumped less than an hour ago"));
	/* steady for an hour since: by age again, on the right clock */
	uint64_t later = 800 * S + RETENTION_EVERY_USEC + RETENTION_STEADY_USEC;
	CHECK_INT(retention_watch(&r, mono + later, real + later), 0);
	CHECK(retention_due(&r, mono + later, real + later, 90, &before, &why));
	CHECK(why == NULL);
	CHECK_INT(before, real + later - 90 * DAY);

	/* small drift is no jump; an admin's date -s forward is one */
	retention_init(&r, mono, real, 0);
	CHECK_INT(retention_watch(&r, mono + 10 * S, real + 10 * S + 50000), 0);
	CHECK(retention_watch(&r, mono + 20 * S, real + 20 * S + 3600 * S) > 0);
	/* a history that was empty before the start: nothing to protect but the jump */
	CHECK(retention_due(&r, mono + 700 * S, real + 700 * S + 3600 * S, 90, &before, &why));
	CHECK_INT(before, 0);
	return test_done("retention");
}
