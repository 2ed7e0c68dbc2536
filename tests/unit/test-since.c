/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smrctl events --since: the forms journalctl users type. */
#include <stdlib.h>

#include "since.h"
#include "test.h"

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	time_t now = 1764486000;	/* 2025-11-30 07:00:00 UTC */
	double v;
	CHECK_INT(parse_since("1h", now, &v), 0);
	CHECK_NEAR(v, now - 3600, 0);
	CHECK_INT(parse_since("-30m", now, &v), 0);
	CHECK_NEAR(v, now - 1800, 0);
	CHECK_INT(parse_since("10min ago", now, &v), 0);
	CHECK_NEAR(v, now - 600, 0);
	CHECK_INT(parse_since("2d ago", now, &v), 0);
	CHECK_NEAR(v, now - 2 * 86400, 0);
	CHECK_INT(parse_since("90s", now, &v), 0);
	CHECK_NEAR(v, now - 90, 0);
	CHECK_INT(parse_since("today", now, &v), 0);
	CHECK_NEAR(v, now - 7 * 3600, 0);
	CHECK_INT(parse_since("yesterday", now, &v), 0);
	CHECK_NEAR(v, now - 7 * 3600 - 86400, 0);
	CHECK_INT(parse_since("2025-11-30 06:15", now, &v), 0);
	CHECK_NEAR(v, now - 2700, 0);
	CHECK_INT(parse_since("2025-11-30T06:15:30", now, &v), 0);
	CHECK_NEAR(v, now - 2670, 0);
	CHECK_INT(parse_since("2025-11-29", now, &v), 0);
	CHECK_NEAR(v, now - 7 * 3600 - 86400, 0);
	CHECK_INT(parse_since("06:00", now, &v), 0);
	CHECK_NEAR(v, now - 3600, 0);
	CHECK_INT(parse_since("@1764480000", now, &v), 0);
	CHECK_NEAR(v, 1764480000, 0);
	/* systemd.time(7), as journalctl --since takes it */
	static const struct { const char *s; double off; } spans[] = {
		{"now", 0}, {"2 hours ago", -7200}, {"1h30m ago", -5400}, {"1h 30min ago", -5400}, {"-1h30m", -5400},
		{"90 seconds ago", -90}, {"3 days 2 hours ago", -(3 * 86400 + 7200)}, {"1 week ago", -604800},
		{"2weeks ago", -1209600}, {"1 month ago", -2629800}, {"1y ago", -31557600}, {"500ms ago", -0.5},
		{"+1h", 3600}, {"5min left", 300}, {"45 ago", -45}, {"1 hr ago", -3600}, {"2 minutes ago", -120},
		{"  10min ago ", -600},
	};
	for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
		int r = parse_since(spans[i].s, now, &v);
		if (r != 0 || v != now + spans[i].off)
			fprintf(stderr, "'%s': %d, %f (want %f)\n", spans[i].s, r, v - now, spans[i].off);
		CHECK(r == 0 && v == now + spans[i].off);
	}
	CHECK_INT(parse_since("tomorrow", now, &v), 0);
	CHECK_NEAR(v, now + 17 * 3600, 0);
	CHECK_INT(parse_since("Sun 2025-11-30 06:15", now, &v), 0);
	CHECK_NEAR(v, now - 2700, 0);
	const char *bad[] = {"", "h", "1x", "1h later", "2025-13-45", "@", "@-5", "@12abc", "25:99", "ago", "1h ago ago",
			     "-", "+", "1 fortnight ago", "1h-30m", "now ago", "1e400h"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int r = parse_since(bad[i], now, &v);
		if (r == 0)
			fprintf(stderr, "accepted '%s'\n", bad[i]);
		CHECK(r < 0);
	}
	return test_done("since");
}
