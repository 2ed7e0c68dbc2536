/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watcher with real children: shell scripts standing in for
 * zpool (the real one cannot run here: no ZFS module) print the fixtures of
 * tests/fixtures/zpool. One taking -jp gives the JSON reading; one that
 * refuses -jp as OpenZFS 2.1 does gives the text reading, and the watcher
 * keeps to the text form after; ZFS_COLOR never reaches the child; a
 * command that is not there, one that fails, and one that prints past the
 * bound are failures told through the callback, the loop never blocked.
 * The caller is told each interval to read what needs no child (btrfs),
 * and a flood of kicks is a reading a second, not one each.
 */
#include "scanwatch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "test.h"
#include "util.h"

static const char *root;

typedef struct Heard {
	unsigned status, failed;
	char pool[ZPOOL_NAME_MAX + 1];
	bool json;
	char message[512];
} Heard;

static void on_status(const ZpoolStatus *s, void *userdata)
{
	Heard *h = userdata;
	h->status++;
	h->json = s->json;
	snprintf(h->pool, sizeof h->pool, "%s", s->n_pools ? s->pools[0].pool : "");
}

static void on_failed(const char *message, void *userdata)
{
	Heard *h = userdata;
	h->failed++;
	snprintf(h->message, sizeof h->message, "%s", message);
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	CHECK(chmod(path, 0755) == 0);
}

/* Runs the loop until the watcher told something, or 10 s passed. */
static void run_until(sd_event *e, const Heard *h, unsigned want)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 10000000;
	while (h->status + h->failed < want && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(h->status + h->failed, want);
}

static void test_forms(sd_event *e, const char *t)
{
	char json[512], old[512], body[2048];
	snprintf(json, sizeof json, "%s/zpool-json", t);
	snprintf(body, sizeof body,
		 "[ \"$*\" = \"status -jp --json-int\" ] || exit 9\n[ -z \"$ZFS_COLOR\" ] || exit 8\n"
		 "exec cat '%s/tests/fixtures/zpool/json-resilver.json'", root);
	script(json, body);
	snprintf(old, sizeof old, "%s/zpool-2.1", t);
	snprintf(body, sizeof body,
		 "echo \"$*\" >> '%s/zpool-2.1.calls'\n"
		 "case \"$*\" in\n\"status -p\") exec cat '%s/tests/fixtures/zpool/text-resilver-noeta.txt';;\n"
		 "*) echo \"invalid option 'j'\" >&2; exit 2;;\nesac", t, root);
	script(old, body);

	Heard h = {0};
	ScanWatchCallbacks cb = {.status = on_status, .failed = on_failed, .userdata = &h};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, json, 3600, &cb, &w), 0);
	scanwatch_set_kick_gap(w, 0);	/* the gap is test_kick_flood's */
	CHECK_INT(scanwatch_form(w), SCANWATCH_FORM_UNKNOWN);
	scanwatch_kick(w);
	run_until(e, &h, 1);
	CHECK_INT(h.status, 1);
	CHECK(h.json);
	CHECK_STR(h.pool, "dpool");
	CHECK_INT(scanwatch_form(w), SCANWATCH_FORM_JSON);

	/* a reload to OpenZFS 2.1's zpool: -jp refused, the text read, and kept to */
	CHECK_INT(scanwatch_configure(w, old, 3600), 0);
	CHECK_INT(scanwatch_form(w), SCANWATCH_FORM_UNKNOWN);
	scanwatch_kick(w);
	run_until(e, &h, 2);
	CHECK_INT(h.status, 2);
	CHECK(!h.json);
	CHECK_STR(h.pool, "dpool");
	CHECK_INT(scanwatch_form(w), SCANWATCH_FORM_TEXT);
	scanwatch_kick(w);
	run_until(e, &h, 3);
	CHECK_INT(h.status, 3);
	char calls[600];
	snprintf(calls, sizeof calls, "%s/zpool-2.1.calls", t);
	_cleanup_free_ char *text = NULL;
	CHECK_INT(read_file_at(AT_FDCWD, calls, 4096, &text, NULL), 0);
	CHECK_STR(text, "status -jp --json-int\nstatus -p\nstatus -p\n");
	CHECK_INT(h.failed, 0);
	unsigned ok, failed;
	scanwatch_counts(w, &ok, &failed);
	CHECK_INT(ok, 3);
	CHECK_INT(failed, 0);
	scanwatch_free(w);
}

static void test_bad_commands(sd_event *e, const char *t)
{
	char bad[512], big[512], missing[512];
	snprintf(bad, sizeof bad, "%s/zpool-broken", t);
	script(bad, "echo 'no pools available'; exit 1");
	snprintf(big, sizeof big, "%s/zpool-big", t);
	/* past ZPOOL_INPUT_MAX: killed, not read to the end */
	script(big, "exec yes '{\"pools\": {}}'");
	snprintf(missing, sizeof missing, "%s/no-such-zpool", t);

	Heard h = {0};
	ScanWatchCallbacks cb = {.status = on_status, .failed = on_failed, .userdata = &h};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, bad, 3600, &cb, &w), 0);
	scanwatch_set_kick_gap(w, 0);
	scanwatch_kick(w);
	/* -jp failed, then -p: the text fallback fails too, once told */
	run_until(e, &h, 1);
	CHECK_INT(h.failed, 1);
	CHECK(strstr(h.message, "status -p: exit 1") != NULL);

	CHECK_INT(scanwatch_configure(w, big, 3600), 0);
	scanwatch_kick(w);
	run_until(e, &h, 2);
	CHECK_INT(h.failed, 2);
	/* JSON's own output too long: no second run of the text form */
	CHECK(strstr(h.message, "status -jp --json-int: printed more than") != NULL);

	CHECK_INT(scanwatch_configure(w, missing, 3600), 0);
	scanwatch_kick(w);
	CHECK_INT(h.failed, 3);	/* not there: told at once */
	CHECK(strstr(h.message, "could not run") != NULL);
	CHECK_INT(h.status, 0);
	scanwatch_free(w);
	CHECK_INT(scanwatch_new(e, NULL, "", 10, &cb, &w), -EINVAL);
}

static void on_interval(void *userdata)
{
	(*(unsigned *)userdata)++;
}

/* Each interval the caller reads what needs no child, zpool wanted or not. */
static void test_interval(sd_event *e)
{
	unsigned n = 0;
	ScanWatchCallbacks cb = {.interval = on_interval, .userdata = &n};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, "zpool-is-not-run", 0.1, &cb, &w), 0);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 10000000;
	while (n < 3 && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK(n >= 3);
	unsigned ok, failed;
	scanwatch_counts(w, &ok, &failed);
	CHECK_INT(ok + failed, 0);	/* never wanted, never kicked: zpool never run */
	scanwatch_free(w);
}

/* A flood of zed's resilver_start kicks: one reading under way or one
 * due at most, one per SCANWATCH_KICK_GAP_USEC, the last kick never lost. */
static void test_kick_flood(sd_event *e, const char *t)
{
	char zpool[512], body[1024], runs[600];
	snprintf(zpool, sizeof zpool, "%s/zpool-counted", t);
	snprintf(runs, sizeof runs, "%s/zpool-counted.runs", t);
	snprintf(body, sizeof body, "echo run >> '%s'\nexec cat '%s/tests/fixtures/zpool/json-resilver.json'", runs, root);
	script(zpool, body);
	Heard h = {0};
	ScanWatchCallbacks cb = {.status = on_status, .failed = on_failed, .userdata = &h};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, zpool, 3600, &cb, &w), 0);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	for (int i = 0; i < 300; i++) {
		scanwatch_kick(w);
		CHECK(sd_event_run(e, 1000) >= 0);
	}
	uint64_t flood = now_usec(CLOCK_MONOTONIC) - start;
	/* what is due runs, then nothing more: neither a run under way nor
	 * one due (the next reading of the hour's interval is not for an hour) */
	uint64_t until = now_usec(CLOCK_MONOTONIC) + SCANWATCH_KICK_GAP_USEC + 10000000;
	while (scanwatch_pending(w) && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK(!scanwatch_pending(w));
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	CHECK_INT(read_file_at(AT_FDCWD, runs, 1 << 16, &text, &len), 0);
	unsigned n = (unsigned)(len / strlen("run\n"));
	unsigned most = 2 + (unsigned)(flood / SCANWATCH_KICK_GAP_USEC);
	if (n > most)
		fprintf(stderr, "%u zpool runs for 300 kicks in %.2f s\n", n, (double)flood / 1e6);
	CHECK(n >= 2 && n <= most);
	CHECK_INT(h.status, n);
	scanwatch_free(w);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-scanwatch SOURCE_ROOT\n");
		return 1;
	}
	root = argv[1];
	/* sd-event reaps children only with SIGCHLD blocked, as the daemon has it */
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	CHECK(sigprocmask(SIG_BLOCK, &ss, NULL) == 0);
	setenv("ZFS_COLOR", "1", 1);
	char t[] = "/tmp/test-scanwatch.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	sd_event *e = NULL;
	CHECK(sd_event_new(&e) >= 0);
	test_forms(e, t);
	test_bad_commands(e, t);
	test_interval(e);
	test_kick_flood(e, t);
	sd_event_unref(e);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-scanwatch");
}
