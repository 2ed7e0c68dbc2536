/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status read from real outputs (tests/fixtures/zpool, each with its
 * source) in both forms, every figure checked, and refused whole when cut,
 * garbled or hostile. argv[1]: tests/fixtures/zpool.
 */
#include <fcntl.h>

#include "test.h"
#include "util.h"
#include "zpoolstatus.h"
#include "zpoolstatus-private.h"

#define G (1024.0 * 1024 * 1024)
#define T (G * 1024)
/* zfs_nicebytes keeps three digits: a printed size is within 0.5% */
#define NICE(v) ((v) * 0.005 + 1)

static const char *dir;

static char *load(const char *name, size_t *ret_len)
{
	char path[512];
	char *text = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int r = read_file_at(AT_FDCWD, path, ZPOOL_INPUT_MAX, &text, ret_len);
	if (r < 0)
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(-r));
	return text;
}

static ZpoolStatus *parse_file(const char *name)
{
	size_t len = 0;
	_cleanup_free_ char *text = load(name, &len), *err = NULL;
	ZpoolStatus *s = NULL;
	CHECK(text);
	if (!text)
		return NULL;
	int r = zpool_status_parse(text, len, &s, &err);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", name, err ? err : strerror(-r));
	CHECK_INT(r, 0);
	return s;
}

/* "  pool: NAME\n" + the file, the man page's "  ..." lines (its elisions)
 * left out: for the blocks published without their pool line */
static ZpoolStatus *parse_with_pool(const char *name)
{
	size_t len = 0;
	_cleanup_free_ char *text = load(name, &len), *err = NULL, *all = NULL;
	ZpoolStatus *s = NULL;
	CHECK(text && asprintf(&all, "  pool: tank\n%s", text) > 0);
	if (!all)
		return NULL;
	for (char *e; (e = strstr(all, "  ...\n"));)
		memmove(e, e + 6, strlen(e + 6) + 1);
	CHECK_INT(zpool_status_parse(all, strlen(all), &s, &err), 0);
	return s;
}

static void test_text_resilver_noeta(void)
{
	ZpoolStatus *s = parse_file("text-resilver-noeta.txt");
	if (!s)
		return;
	CHECK(!s->json);
	CHECK_INT(s->n_pools, 1);
	const ZpoolScan *p = zpool_status_find(s, "dpool");
	CHECK(p);
	CHECK_INT(p->func, ZPOOL_SCAN_RESILVER);
	CHECK_INT(p->state, ZPOOL_SCAN_SCANNING);
	CHECK(!p->paused);
	CHECK(p->times_local);
	CHECK_NEAR(p->start_time, 1592830709, 0);	/* Mon Jun 22 12:58:29 2020 */
	CHECK_NEAR(p->examined, 917 * G, NICE(917 * G));
	CHECK_NEAR(p->to_examine, 917 * G, NICE(917 * G));
	CHECK_NEAR(p->issued, 522 * G, NICE(522 * G));
	CHECK_NEAR(p->issue_rate, 7.87 * 1024 * 1024, 1);	/* "7,87M/s": the locale's comma */
	CHECK_NEAR(p->processed, 526 * G, NICE(526 * G));
	CHECK_NEAR(p->percent_done, 56.89, 1e-9);
	CHECK(isnan(p->to_go));				/* "no estimated completion time" */
	CHECK(isnan(p->end_time));
	CHECK(isnan(p->issued_total));			/* 2.1 prints none */
	CHECK_INT(p->n_leaves, 1);
	CHECK_STR(p->leaves[0].path, "ata-ST5000LM000-2AN170_WCJ13R2Q");
	CHECK_INT(p->leaves[0].guid, 0);
	CHECK(isnan(p->leaves[0].processed));
	zpool_status_free(s);
}

static void test_text_resilver_togo(void)
{
	ZpoolStatus *s = parse_file("text-resilver-togo.txt");
	if (!s)
		return;
	const ZpoolScan *p = zpool_status_find(s, "xpool2");
	CHECK(p);
	CHECK_INT(p->func, ZPOOL_SCAN_RESILVER);
	CHECK_INT(p->state, ZPOOL_SCAN_SCANNING);
	CHECK_NEAR(p->start_time, 1612448663, 0);	/* Thu Feb  4 14:24:23 2021: a padded day */
	CHECK_NEAR(p->examined, 1.61 * T, NICE(1.61 * T));
	CHECK_NEAR(p->to_examine, 5.32 * T, NICE(5.32 * T));
	CHECK_NEAR(p->issued, 81.5 * G, NICE(81.5 * G));
	CHECK_NEAR(p->issue_rate, 15.6 * 1024 * 1024, 1);
	CHECK_NEAR(p->processed, 77.3 * G, NICE(77.3 * G));
	CHECK_NEAR(p->percent_done, 1.5, 1e-9);
	CHECK_NEAR(p->to_go, 4 * 86400 + 2 * 3600 + 6 * 60 + 31, 0);
	CHECK_INT(p->n_leaves, 0);			/* the paste has no config */
	zpool_status_free(s);
}

static void test_text_resilvered(void)
{
	ZpoolStatus *s = parse_file("text-resilvered.txt");
	if (!s)
		return;
	CHECK_INT(s->n_pools, 2);
	const ZpoolScan *a = zpool_status_find(s, "tank"), *b = zpool_status_find(s, "tank2");
	CHECK(a && b);
	if (!a || !b)
		goto out;
	CHECK_INT(a->func, ZPOOL_SCAN_RESILVER);
	CHECK_INT(a->state, ZPOOL_SCAN_FINISHED);
	CHECK_NEAR(a->processed, 126 * 1024, 0);
	CHECK_NEAR(a->duration, 0, 0);
	CHECK_NEAR(a->end_time, 1664301437, 0);	/* Tue Sep 27 17:57:17 2022 */
	CHECK_NEAR(a->start_time, a->end_time, 0);
	CHECK_INT(a->errors, 0);
	CHECK_INT(a->n_leaves, 0);			/* a finished resilver marks none */
	CHECK_INT(b->state, ZPOOL_SCAN_FINISHED);
	CHECK_NEAR(b->processed, 2.31 * T, NICE(2.31 * T));
	CHECK_NEAR(b->duration, 86400 + 2 * 3600 + 55 * 60 + 32, 0);
	CHECK_NEAR(b->end_time, 1671849188, 0);	/* Sat Dec 24 02:33:08 2022 */
	CHECK_NEAR(b->start_time, 1671849188 - b->duration, 0);
	CHECK(isnan(b->to_go));
out:
	zpool_status_free(s);
}

static void test_text_scrubs(void)
{
	ZpoolStatus *s = parse_file("text-scrub.txt");
	if (s) {
		const ZpoolScan *p = zpool_status_find(s, "gwosc-jbod5");
		CHECK(p && p->func == ZPOOL_SCAN_SCRUB && p->state == ZPOOL_SCAN_SCANNING);
		CHECK(p && fabs(p->examined - 112 * T) <= NICE(112 * T) && fabs(p->issued - 3.23 * T) <= NICE(3.23 * T));
		CHECK(p && fabs(p->to_examine - 384 * T) <= NICE(384 * T) && p->processed == 0);
		CHECK(p && p->to_go == 18 * 3600 + 22 * 60 + 5 && p->percent_done == 0.84);
		CHECK(p && fabs(p->issue_rate - 5.89 * G) < 1);
	}
	zpool_status_free(s);

	/* 2.2's "done / total": the man page's block */
	s = parse_with_pool("text22-scrub-manpage.txt");
	if (s) {
		const ZpoolScan *p = zpool_status_find(s, "tank");
		CHECK(p && p->func == ZPOOL_SCAN_SCRUB && p->state == ZPOOL_SCAN_SCANNING);
		CHECK(p && p->examined == 403 * 1024 * 1024 && p->to_examine == 405 * 1024 * 1024);
		CHECK(p && fabs(p->issued - 68.4 * 1024 * 1024) < 1 && p->issued_total == 405 * 1024 * 1024);
		CHECK(p && p->issue_rate == 10 * 1024 * 1024 && p->to_go == 4 && p->percent_done == 16.91);
		CHECK(p && p->processed == 0);
	}
	zpool_status_free(s);
}

static void test_text22_draid(void)
{
	ZpoolStatus *s = parse_file("text22-resilver-draid.txt");
	if (!s)
		return;
	const ZpoolScan *p = zpool_status_find(s, "merced216");
	CHECK(p);
	if (p) {
		CHECK_INT(p->func, ZPOOL_SCAN_RESILVER);
		CHECK_NEAR(p->examined, 1.38 * T * 1024, NICE(1.38 * T * 1024));
		CHECK_NEAR(p->to_examine, 1.38 * T * 1024, NICE(1.38 * T * 1024));
		CHECK_NEAR(p->issued, 144 * T, NICE(144 * T));
		CHECK_NEAR(p->issued_total, 177 * T, NICE(177 * T));
		CHECK_NEAR(p->issue_rate, 1.29 * G, 1);
		CHECK_NEAR(p->processed, 43.4 * T, NICE(43.4 * T));
		CHECK_NEAR(p->to_go, 7 * 3600 + 21 * 60 + 15, 0);
		CHECK_NEAR(p->start_time, 1737441885, 0);	/* Tue Jan 21 06:44:45 2025 */
	}
	zpool_status_free(s);
}

static void test_text_scan_only(void)
{
	/* the block without its pool: refused, not guessed */
	size_t len;
	_cleanup_free_ char *text = load("text-scan-only.txt", &len), *err = NULL;
	ZpoolStatus *s = NULL;
	CHECK(text);
	CHECK_INT(zpool_status_parse(text, len, &s, &err), -EINVAL);
	CHECK(err && strstr(err, "pool:"));
	CHECK(!s);
	s = parse_with_pool("text-scan-only.txt");
	const ZpoolScan *p = s ? zpool_status_find(s, "tank") : NULL;
	CHECK(p && fabs(p->issue_rate - 15.5 * G) < 1 && p->to_go == 7 * 60 + 43);
	CHECK(p && fabs(p->to_examine - 20.3 * T) <= NICE(20.3 * T));
	zpool_status_free(s);
}

static void test_json(void)
{
	ZpoolStatus *s = parse_file("json-resilver.json");
	if (s) {
		CHECK(s->json);
		CHECK_INT(s->n_pools, 1);
		const ZpoolScan *p = zpool_status_find(s, "dpool");
		CHECK(p);
		if (p) {
			CHECK_INT(p->func, ZPOOL_SCAN_RESILVER);
			CHECK_INT(p->state, ZPOOL_SCAN_SCANNING);
			CHECK(!p->times_local);
			CHECK_NEAR(p->to_examine, 984621252608.0, 0);
			CHECK_NEAR(p->examined, 984621252608.0, 0);
			CHECK_NEAR(p->issued, 560493232128.0, 0);
			CHECK_NEAR(p->skipped, 0, 0);
			CHECK_NEAR(p->issued_total, 984621252608.0, 0);
			CHECK_NEAR(p->processed, 564788199424.0, 0);
			CHECK_NEAR(p->start_time, 1592830709, 0);
			CHECK_NEAR(p->pass_start, 1592830709, 0);
			CHECK_NEAR(p->pass_issued, 560493232128.0, 0);
			CHECK(isnan(p->end_time));		/* 0: not yet */
			CHECK(isnan(p->to_go) && isnan(p->percent_done));
			CHECK_INT(p->n_leaves, 1);
			CHECK_STR(p->leaves[0].path, "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1");
			CHECK(p->leaves[0].guid == 6982750226085199860ull);
			CHECK_NEAR(p->leaves[0].processed, 564788199424.0, 0);
		}
	}
	zpool_status_free(s);

	s = parse_file("json-resilvered.json");
	const ZpoolScan *p = s ? zpool_status_find(s, "dpool") : NULL;
	CHECK(p && p->state == ZPOOL_SCAN_FINISHED && p->func == ZPOOL_SCAN_RESILVER);
	CHECK(p && p->end_time == 1594264481 && p->duration == 1594264481 - 1592830709);
	CHECK(p && p->n_leaves == 0);		/* scan_processed outlives the scan */
	zpool_status_free(s);
}

/* the JSON's other spellings: strings under -p without --json-int, nice
 * strings and dates without -p, a pool keyed by guid */
static void test_json_strings(void)
{
	const char *j = "{\"pools\":{\"123\":{\"name\":\"tank\",\"scan_stats\":{\"function\":\"SCRUB\","
			"\"state\":\"SCANNING\",\"start_time\":\"Wed Mar 27 12:54:52 2024\",\"to_examine\":\"100G\","
			"\"issued\":\"53687091200\",\"skipped\":\"0\",\"scrub_pause\":\"1711544092\",\"errors\":\"3\"}}}}";
	ZpoolStatus *s = NULL;
	_cleanup_free_ char *err = NULL;
	CHECK_INT(zpool_status_parse(j, strlen(j), &s, &err), 0);
	const ZpoolScan *p = s ? zpool_status_find(s, "tank") : NULL;
	CHECK(p && p->func == ZPOOL_SCAN_SCRUB && p->paused && p->times_local);
	CHECK(p && p->to_examine == 100 * G && p->issued == 50 * G && p->errors == 3);
	CHECK(p && p->start_time == 1711544092);
	zpool_status_free(s);

	/* figures past a uint64_t are no zpool's (1e308 everywhere): not known, never taken */
	const char *h = "{\"pools\":{\"t\":{\"scan_stats\":{\"function\":\"RESILVER\",\"state\":\"SCANNING\","
			"\"to_examine\":1e308,\"issued\":1.8446744073709552e19,\"processed\":\"99999999999999999999\","
			"\"examined\":1e19,\"start_time\":1e308}}}}";
	s = NULL;
	CHECK_INT(zpool_status_parse(h, strlen(h), &s, &err), 0);
	p = s ? zpool_status_find(s, "t") : NULL;
	CHECK(p && isnan(p->to_examine) && isnan(p->issued) && isnan(p->processed) && isnan(p->start_time));
	CHECK(p && p->examined == 1e19);
	zpool_status_free(s);

	/* a leaf whose path holds an escape is left out, the others kept */
	const char *k = "{\"pools\":{\"t\":{\"scan_stats\":{\"function\":\"RESILVER\",\"state\":\"SCANNING\"},"
			"\"vdevs\":{\"t\":{\"vdevs\":{\"a\":{\"path\":\"/dev/a\\u001b[2J\",\"scan_processed\":5},"
			"\"b\":{\"path\":\"/dev/b\",\"guid\":\"77\",\"scan_processed\":\"6\"},"
			"\"c\":{\"path\":\"/dev/c\",\"state\":\"FAULTED\",\"scan_processed\":7}}}}}}}";
	s = NULL;
	CHECK_INT(zpool_status_parse(k, strlen(k), &s, &err), 0);
	p = s ? zpool_status_find(s, "t") : NULL;
	CHECK(p && p->n_leaves == 1 && streq(p->leaves[0].path, "/dev/b") && p->leaves[0].guid == 77 &&
	      p->leaves[0].processed == 6);
	zpool_status_free(s);
}

static void expect_refused(const char *what, const char *text, size_t len)
{
	ZpoolStatus *s = NULL;
	char *err = NULL;
	int r = zpool_status_parse(text, len, &s, &err);
	if (r != -EINVAL && r != -E2BIG)
		fprintf(stderr, "%s: %d\n", what, r);
	CHECK(r == -EINVAL || r == -E2BIG);
	CHECK(!s);
	CHECK(r != -EINVAL || err);
	free(err);
	zpool_status_free(s);
}

static void test_hostile(void)
{
	char big[600];
	memset(big, 'a', sizeof(big));
	_cleanup_free_ char *longname = NULL, *deep = NULL, *longline = NULL;
	CHECK(asprintf(&longname, "  pool: %.*s\n", 300, big) > 0);
	expect_refused("pool name of 300 bytes", longname, strlen(longname));
	CHECK(asprintf(&longline, "  pool: t\n  scan: %.*s%.*s%.*s%.*s%.*s%.*s%.*s%.*s\n", 600, big, 600, big, 600,
		       big, 600, big, 600, big, 600, big, 600, big, 600, big) > 0);
	expect_refused("a line of 4.8 kB", longline, strlen(longline));
	expect_refused("empty", "", 0);
	expect_refused("garbage", "hello world\n", 12);
	expect_refused("NUL in text", "  pool: t\0x\n", 12);
	expect_refused("escape in text", "  pool: t\033[31m\n", 15);
	const char *bad_scans[] = {
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29\n",
		"  pool: t\n  scan: resilver in progress since Xyz Jun 22 12:58:29 2020\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 32 12:58:29 2020\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 25:58:29 2020\n",
		"  pool: t\n  scan: resilvered 126K in 00:00 with 0 errors on Tue Sep 27 17:57:17 2022\n",
		"  pool: t\n  scan: resilvered 126X in 00:00:00 with 0 errors on Tue Sep 27 17:57:17 2022\n",
		"  pool: t\n  scan: resilvered 126K in 00:00:00 with -1 errors on Tue Sep 27 17:57:17 2022\n",
		"  pool: t\n  scan: resilvered 126K in 00:00:00 with 18446744073709551616 errors on Tue Sep 27 17:57:17 2022\n",
		"{\"pools\": {\"t\": {\"name\": \"a\\u001b[2Jb\"}}}",
		"  pool: t\n  scan: scrub repaired 0B in 00:61:00 with 0 errors on Tue Sep 27 17:57:17 2022\n",
		"  pool: t\n  scan: defragment in progress since Mon Jun 22 12:58:29 2020\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29 2020\n\t917G scanned at 13,8M/s, 5"
		"22G issued at\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29 2020\n\t917G scanned, 522G issued, 9"
		"17G total\n\t526G resilvered, 56,89% done, 1:00:00 to go\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29 2020\n\t1e999G scanned\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29 2020\n\t99999999999999999999999G s"
		"canned\n",
		"  pool: t\n  scan: resilver in progress since Mon Jun 22 12:58:29 2020\n\t917G / scanned\n",
		"  pool: t\n  scan: resilvered 1G in 00:00:01 with 0 errors on Tue Sep 27 17:57:17 2022\n\t1G scanned\n",
		"{\"pools\": {\"t\": {\"scan_stats\": {\"function\": \"DEFRAG\"}}}}",
		"{\"pools\": {\"t\": {\"scan_stats\": {\"function\": 2}}}}",
		"{\"pools\": {\"t\": 5}}",
		"{\"pools\": []}",
		"{\"pool\": {}}",
		"[1, 2]",
		"{\"pools\": {\"t\": {\"scan_stats\": {\"function\": \"RESILVER\"",
		"{\"pools\": {\"t\": {}}} trailing",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad_scans); i++)
		expect_refused(bad_scans[i], bad_scans[i], strlen(bad_scans[i]));

	/* 100 levels of vdevs: json-c's depth limit refuses it */
	size_t n = 0;
	deep = malloc(100 * 16 + 64);
	n += (size_t)sprintf(deep + n, "{\"pools\":{\"t\":");
	for (int i = 0; i < 100; i++)
		n += (size_t)sprintf(deep + n, "{\"vdevs\":");
	n += (size_t)sprintf(deep + n, "{}");
	for (int i = 0; i < 102; i++)
		deep[n++] = '}';
	expect_refused("100 levels deep", deep, n);
	expect_refused("too big", "  pool: t\n", ZPOOL_INPUT_MAX + 1);
}

/* every prefix of every fixture: a cut output is read or refused, never a crash */
static void test_truncations(void)
{
	const char *names[] = {"text-resilver-noeta.txt", "text-resilvered.txt", "text22-resilver-draid.txt",
			       "json-resilver.json"};
	for (size_t f = 0; f < ELEMENTSOF(names); f++) {
		size_t len;
		_cleanup_free_ char *text = load(names[f], &len);
		CHECK(text);
		unsigned refused = 0;
		for (size_t cut = 0; text && cut < len; cut++) {
			ZpoolStatus *s = NULL;
			char *err = NULL;
			int r = zpool_status_parse(text, cut, &s, &err);
			refused += r < 0;
			if (r < 0 && !err)
				CHECK(err);
			free(err);
			zpool_status_free(s);
		}
		/* a JSON cut anywhere is not JSON */
		if (names[f][0] == 'j')
			CHECK_INT(refused, len - 1);	/* but the one that cuts only its newline */
		else
			CHECK(refused > 0);
	}
}

/* Flipped bytes: read or refused, and anything read stays within bounds. */
static void test_mutations(void)
{
	size_t len;
	_cleanup_free_ char *text = load("text-resilver-noeta.txt", &len);
	CHECK(text);
	unsigned seed = 42, ok = 0;
	for (int i = 0; text && i < 3000; i++) {
		_cleanup_free_ char *m = malloc(len);
		memcpy(m, text, len);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245 + 12345;
			m[(seed >> 8) % len] = (char)(seed >> 16);
		}
		ZpoolStatus *s = NULL;
		char *err = NULL;
		if (zpool_status_parse(m, len, &s, &err) == 0) {
			ok++;
			CHECK(s->n_pools <= ZPOOL_POOLS_MAX);
			for (unsigned p = 0; p < s->n_pools; p++)
				CHECK(strlen(s->pools[p].pool) <= ZPOOL_NAME_MAX && s->pools[p].n_leaves <= ZPOOL_LEAVES_MAX);
		}
		free(err);
		zpool_status_free(s);
	}
	CHECK(ok > 0);
}

static void test_figures(void)
{
	double v;
	CHECK(zpool_parse_size("0B", 2, &v) == 0 && v == 0);
	CHECK(zpool_parse_size("16.0E", 5, &v) == 0 && v == 16.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024);
	CHECK(zpool_parse_size("1024", 4, &v) == 0 && v == 1024);
	CHECK(zpool_parse_size("", 0, &v) < 0 && zpool_parse_size("G", 1, &v) < 0 && zpool_parse_size("1.2.3G", 6, &v) < 0);
	CHECK(zpool_parse_size("1GB", 3, &v) < 0 && zpool_parse_size("-1G", 3, &v) < 0);
	CHECK(zpool_parse_dhms("00:00:04", 8, &v) == 0 && v == 4);
	CHECK(zpool_parse_dhms("0 days 05:05:31", 15, &v) == 0 && v == 5 * 3600 + 5 * 60 + 31);	/* 0.8 */
	CHECK(zpool_parse_dhms("days 05:05:31", 13, &v) < 0 && zpool_parse_dhms("05:05:3", 7, &v) < 0);
	CHECK(zpool_parse_ctime("Wed Apr  8 19:53:32 2021", 24, &v) == 0 && v == 1617911612);
	CHECK(zpool_parse_ctime("Wed Apr 8 19:53:32 2021", 23, &v) < 0);
	CHECK(zpool_parse_ctime("Wed Apx  8 19:53:32 2021", 24, &v) < 0);
	CHECK(zpool_parse_ctime("edT Apr  8 19:53:32 2021", 24, &v) < 0);	/* a day name cut across */
	CHECK(zpool_scan_func_to_string(ZPOOL_SCAN_RESILVER) && !zpool_scan_func_to_string(_ZPOOL_SCAN_FUNC_MAX));
	CHECK_STR(zpool_scan_state_to_string(ZPOOL_SCAN_CANCELED), "canceled");
	CHECK(!zpool_scan_state_to_string(_ZPOOL_SCAN_STATE_INVALID));
}

static void test_canceled_paused_sequential(void)
{
	const char *t = "  pool: a\n  scan: resilver canceled on Tue Sep 27 17:57:17 2022\n"
			"  pool: b\n  scan: scrub paused since Tue Sep 27 17:57:17 2022\n"
			"\tscrub started on Tue Sep 27 16:57:17 2022\n"
			"\t1.00G scanned, 512M issued, 2.00G total\n\t0B repaired, 25.00% done\n"
			"  pool: c\n  scan: resilver (draid1:2d:4c:0s-0) in progress since Tue Sep 27 17:57:17 2022\n"
			"\t1.00G / 2.00G scanned at 10.0M/s, 512M / 2.00G issued at 5.00M/s\n"
			"\t512M resilvered, 25.00% done, no estimated completion time\n"
			"  scan: resilver (draid1:2d:4c:0s-1) in progress since Tue Sep 27 17:57:17 2022\n"
			"\tgarbage the first block's reader never sees\n"
			"  pool: d\n  scan: none requested\n"
			/* the last scrub, then a sequential resilver under way, then a
			 * checkpoint's warning; an error scrub's own block */
			"  pool: e\n  scan: scrub repaired 0B in 00:00:01 with 0 errors on Tue Sep 27 17:57:17 2022\n"
			"  scan: resilver (mirror-0) in progress since Tue Sep 27 18:57:17 2022\n"
			"\t1.00G / 2.00G scanned at 10.0M/s, 512M / 2.00G issued at 5.00M/s\n"
			"\t512M resilvered, 25.00% done, no estimated completion time\n"
			"    scan warning: skipping blocks that are only referenced by the checkpoint.\n"
			" scrub: error scrub in progress since Tue Sep 27 18:57:17 2022\n"
			"\terror scrub started on Tue Sep 27 18:57:17 2022\n"
			"config:\n";
	ZpoolStatus *s = NULL;
	_cleanup_free_ char *err = NULL;
	CHECK_INT(zpool_status_parse(t, strlen(t), &s, &err), 0);
	if (err)
		fprintf(stderr, "%s\n", err);
	CHECK(s && s->n_pools == 5);
	const ZpoolScan *e = zpool_status_find(s, "e");
	CHECK(e && e->func == ZPOOL_SCAN_RESILVER && e->state == ZPOOL_SCAN_SCANNING && e->start_time == 1664305037);
	CHECK(e && e->issued == 512 << 20 && isnan(e->duration) && e->errors == 0);
	const ZpoolScan *a = zpool_status_find(s, "a"), *b = zpool_status_find(s, "b"), *c = zpool_status_find(s, "c"),
			*d = zpool_status_find(s, "d");
	CHECK(a && a->state == ZPOOL_SCAN_CANCELED && a->end_time == 1664301437);
	CHECK(b && b->paused && b->state == ZPOOL_SCAN_SCANNING && b->start_time == 1664297837 && b->issued == 512 << 20);
	CHECK(b && isnan(b->issue_rate) && isnan(b->to_go));
	CHECK(c && c->func == ZPOOL_SCAN_RESILVER && c->issued_total == 2 * G && c->issue_rate == 5 << 20);
	CHECK(d && d->func == ZPOOL_SCAN_NONE && d->state == ZPOOL_SCAN_STATE_NONE);
	CHECK(!zpool_status_find(s, "f"));
	zpool_status_free(s);
}

/* More pools and leaves than kept: the first are kept, the rest said cut. */
static void test_bounds(void)
{
	_cleanup_free_ char *t = malloc(64 * 1024);
	size_t n = 0;
	for (int i = 0; i < ZPOOL_POOLS_MAX + 6; i++)
		n += (size_t)sprintf(t + n, "  pool: p%d\n  scan: none requested\nconfig:\n", i);
	for (int i = 0; i < ZPOOL_LEAVES_MAX + 4; i++)
		n += (size_t)sprintf(t + n, "\t    sd%c  ONLINE  0 0 0  (resilvering)\n", 'a' + i);
	ZpoolStatus *s = NULL;
	_cleanup_free_ char *err = NULL;
	CHECK_INT(zpool_status_parse(t, n, &s, &err), 0);
	CHECK(s && s->n_pools == ZPOOL_POOLS_MAX && s->pools_truncated);
	CHECK(s && zpool_status_find(s, "p63") && !zpool_status_find(s, "p64"));
	zpool_status_free(s);

	n = (size_t)sprintf(t, "  pool: t\n  scan: resilver in progress since Tue Sep 27 17:57:17 2022\nconfig:\n");
	for (int i = 0; i < ZPOOL_LEAVES_MAX + 4; i++)
		n += (size_t)sprintf(t + n, "\t    sd%c  ONLINE  0 0 0  (resilvering)\n", 'a' + i);
	s = NULL;
	CHECK_INT(zpool_status_parse(t, n, &s, &err), 0);
	CHECK(s && s->pools[0].n_leaves == ZPOOL_LEAVES_MAX && s->pools[0].leaves_truncated);
	CHECK(s && streq(s->pools[0].leaves[15].path, "sdp"));
	zpool_status_free(s);
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "tests/fixtures/zpool";
	test_figures();
	test_text_resilver_noeta();
	test_text_resilver_togo();
	test_text_resilvered();
	test_text_scrubs();
	test_text22_draid();
	test_text_scan_only();
	test_json();
	test_json_strings();
	test_canceled_paused_sequential();
	test_bounds();
	test_hostile();
	test_truncations();
	test_mutations();
	return test_done("zpoolstatus");
}
