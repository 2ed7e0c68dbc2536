/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status pages' pure parts: escaping untrusted strings, the heatmap and the timeline. */
#include <math.h>

#include "statuspage.h"
#include "test.h"

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

int main(void)
{
	Buf b = {0};
	html_escape(&b, "<script>alert(\"x\")</script> & 'q' \x1b[31m\ttab");
	CHECK_STR(b.data, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; [31m\ttab");
	buf_free(&b);
	html_escape(&b, "");
	CHECK(b.len == 0);
	html_escape(&b, NULL);
	CHECK(b.len == 0);

	/* the server's percent-decoding: a %00 cannot cut a path short */
	char path[] = "/disk/sda%00x%2Fy%zz%4", plain[] = "/api/v1/disks/sd%61";
	CHECK_INT(url_unescape(path), 18);
	CHECK(memcmp(path, "/disk/sda\x01x/y%zz%4", 19) == 0);
	CHECK_INT(url_unescape(plain), 17);
	CHECK_STR(plain, "/api/v1/disks/sda");

	/* three columns: fast writes, then the cliff (a few at 1-2 s), then nothing */
	HeatColumn cols[3] = {{.seconds = 10}, {.seconds = 10}, {.seconds = 4}};
	for (int i = 0; i < 1000; i++)
		hist_add(&cols[0].h, 800000);		/* 0.8 ms */
	for (int i = 0; i < 30; i++)
		hist_add(&cols[1].h, 1500000000);	/* 1.5 s */
	hist_add(&cols[1].h, 900000);
	heatmap_svg(&b, "write\"<", cols, 3, 10);
	CHECK(strstr(b.data, "data-op=\"write&quot;&lt;\"") != NULL);
	CHECK_INT(count(b.data, "<g data-age="), 2);		/* the empty column draws nothing */
	CHECK(strstr(b.data, "<g data-age=\"20\">") != NULL);
	CHECK(strstr(b.data, "<g data-age=\"10\">") != NULL);
	/* the fast column's cell is in the 0.68-1 ms row, the slow ones in the 1-1.47 s row */
	const char *g20 = strstr(b.data, "<g data-age=\"20\">"), *g10 = strstr(b.data, "<g data-age=\"10\">");
	CHECK(g20 && g10 && g20 < g10);
	CHECK(strstr(g20, "data-lo=\"0.000681\" data-n=\"1000\"") != NULL);
	CHECK(strstr(g10, "data-lo=\"1\" data-n=\"30\"") != NULL);
	CHECK(strstr(g10, "fill-opacity=\"1\" data-lo=\"1\"") != NULL);	/* the busiest cell is solid */
	CHECK(strstr(b.data, ">now</text>") != NULL && strstr(b.data, ">-30 s</text>") != NULL);
	/* the latency axis in the one formatter's units, as the tables beside it */
	CHECK(strstr(b.data, ">100 us</text>") && strstr(b.data, ">1 ms</text>") && strstr(b.data, ">10 s</text>"));
	CHECK(!strstr(b.data, "µs"));
	buf_free(&b);

	/* the same columns as writes per second: 100/s, then 3.1/s, then none */
	rate_svg(&b, "write", cols, 3, 10);
	CHECK_INT(count(b.data, "class=\"bar\""), 3);
	CHECK(strstr(b.data, "data-age=\"20\" data-rate=\"100\"") != NULL);
	CHECK(strstr(b.data, "data-age=\"10\" data-rate=\"3.1\"") != NULL);
	CHECK(strstr(b.data, "data-age=\"0\" data-rate=\"0\"") != NULL);
	CHECK(strstr(b.data, "height=\"0.0\" data-age=\"0\"") != NULL);	/* no writes: no bar */
	CHECK(strstr(b.data, "<title>writes per second over the last 30 seconds</title>") != NULL);
	buf_free(&b);

	TimelineMark m[] = {{.start = 25, .end = 5, .kind = "storm", .label = "destage <storm>"},
			    {.start = 12, .end = 12, .kind = "stall", .label = "stall"},
			    {.start = 900, .end = 800, .kind = "storm", .label = "long ago"}};
	timeline_svg(&b, m, 3, 30);
	CHECK_INT(count(b.data, "class=\"mark storm\""), 1);	/* the one out of the span is left out */
	CHECK_INT(count(b.data, "class=\"mark stall\""), 1);
	CHECK(strstr(b.data, "<title>destage &lt;storm&gt;</title>") != NULL);
	buf_free(&b);
	return test_done("test-statuspage");
}
