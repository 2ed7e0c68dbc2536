/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watcher with real children: shell scripts standing in for
 * zpool (the real one cannot run here: no ZFS module) print the fixtures of
 * tests/fixtures/zpool. One taking -jp gives the JSON reading; one that
 * refuses -jp as OpenZFS 2.1 does gives the text reading, and the watcher
 * keeps to the text form after; ZFS_COLOR never reaches the child; a
 * command that is not there, one that fails, and one that prints past the
 * bound are failures told through the callback, the loop never blocked.
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

typedef struct BtrfsHeard {
	unsigned n, failed, asked;
	char mount[SCANWATCH_MOUNT_LEN];
	BtrfsReplaceStatus last;
	unsigned balances, shows;
	char balance_mount[SCANWATCH_MOUNT_LEN];
	BtrfsBalanceStatus balance;
	unsigned show_devs;
} BtrfsHeard;

static unsigned on_mounts(char (*ret)[SCANWATCH_MOUNT_LEN], unsigned max, void *userdata)
{
	BtrfsHeard *h = userdata;
	h->asked++;
	CHECK(max >= 2);
	/* a mount point a shell or an option parser would misread */
	snprintf(ret[0], SCANWATCH_MOUNT_LEN, "-mnt/r x;$(reboot)");
	snprintf(ret[1], SCANWATCH_MOUNT_LEN, "/mnt/gone");
	return 2;
}

static void on_btrfs(const char *mount, const BtrfsReplaceStatus *b, void *userdata)
{
	BtrfsHeard *h = userdata;
	h->n++;
	snprintf(h->mount, sizeof h->mount, "%s", mount);
	h->last = *b;
}

static void on_balance(const char *mount, const BtrfsBalanceStatus *b, const BtrfsShow *show, void *userdata)
{
	BtrfsHeard *h = userdata;
	h->balances++;
	snprintf(h->balance_mount, sizeof h->balance_mount, "%s", mount);
	h->balance = *b;
	h->shows += show != NULL;
	h->show_devs = show ? show->n_devs : 0;
}

static void on_btrfs_failed(const char *message, void *userdata)
{
	BtrfsHeard *h = userdata;
	h->failed++;
	CHECK(strstr(message, "replace status -1 /mnt/gone: exit 1") || strstr(message, "balance status -v /mnt/gone: exit 2"));
}

/* Each mount the caller names is read in turn, its path one argument after
 * "--": its replace status, its balance status (exit 1: one runs), and
 * then the devices' figures; one that fails is told and the others still read. */
static void test_btrfs(sd_event *e, const char *t)
{
	char btrfs[512], body[1024];
	snprintf(btrfs, sizeof btrfs, "%s/btrfs", t);
	snprintf(body, sizeof body,
		 "F='%s/tests/fixtures/btrfs'\n"
		 "case \"$1 $2 $3 $4 $#\" in\n"
		 "'replace status -1 -- 5') [ \"$5\" = '/mnt/gone' ] && exit 1 ;;\n"
		 "'balance status -v -- 5') [ \"$5\" = '/mnt/gone' ] && exit 2 ;;\n"
		 "'filesystem show --raw -- 5') ;;\n"
		 "*) exit 9 ;;\n"
		 "esac\n"
		 "[ \"$5\" = '-mnt/r x;$(reboot)' ] || exit 7\n"
		 "case $1 in\n"
		 "replace) exec cat \"$F/started.txt\" ;;\n"
		 "balance) sed \"s|/dev/shm/btrfs-balance-record/mnt|$5|\" \"$F/balance-running.txt\"; exit 1 ;;\n"
		 "*) exec cat \"$F/show-added.txt\" ;;\n"
		 "esac", root);
	script(btrfs, body);
	BtrfsHeard h = {0};
	ScanWatchCallbacks cb = {.btrfs_mounts = on_mounts, .btrfs_status = on_btrfs, .btrfs_balance = on_balance,
				 .failed = on_btrfs_failed, .userdata = &h};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, "zpool-is-not-run", 0.2, &cb, &w), 0);
	CHECK_INT(scanwatch_set_btrfs(w, btrfs), 0);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 10000000;
	while ((h.n < 1 || h.failed < 2 || h.balances < 1) && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK(h.n >= 1 && h.failed >= 2);
	CHECK(h.balances >= 1 && h.shows == h.balances);
	CHECK_STR(h.balance_mount, "-mnt/r x;$(reboot)");
	CHECK_INT(h.balance.state, BTRFS_BALANCE_RUNNING);
	CHECK_INT(h.balance.completed, 1);
	CHECK_INT(h.show_devs, 3);
	CHECK(h.asked >= 1);
	CHECK_STR(h.mount, "-mnt/r x;$(reboot)");
	CHECK_INT(h.last.state, BTRFS_REPLACE_STARTED);
	CHECK_NEAR(h.last.progress, 0.438, 1e-9);
	scanwatch_free(w);
}

static unsigned on_one_mount(char (*ret)[SCANWATCH_MOUNT_LEN], unsigned max, void *userdata)
{
	(void)userdata, (void)max;
	snprintf(ret[0], SCANWATCH_MOUNT_LEN, "/mnt/b");
	return 1;
}

typedef struct ShowHeard {
	unsigned balances, shows, none_with_show;
} ShowHeard;

static void on_balance_show(const char *mount, const BtrfsBalanceStatus *b, const BtrfsShow *show, void *userdata)
{
	ShowHeard *h = userdata;
	(void)mount;
	h->balances++;
	h->shows += show != NULL;
	h->none_with_show += show && b->state == BTRFS_BALANCE_NONE;
}

/* The devices' figures are read while a balance runs and at the first
 * reading that finds it gone (did it fill its disk?), not after. */
static void test_balance_show(sd_event *e, const char *t)
{
	char btrfs[512], body[1024];
	snprintf(btrfs, sizeof btrfs, "%s/btrfs-balance", t);
	snprintf(body, sizeof body,
		 "F='%s/tests/fixtures/btrfs'\n"
		 "case $1 in\n"
		 "replace) exec cat \"$F/never-started.txt\" ;;\n"
		 "filesystem) exec cat \"$F/show-added.txt\" ;;\n"
		 "esac\n"
		 "n=$(cat '%s/balance-calls' 2>/dev/null || echo 0); echo $((n + 1)) >'%s/balance-calls'\n"
		 "R=/dev/shm/btrfs-balance-record/mnt\n"
		 "[ \"$n\" = 0 ] && { sed \"s|$R|$5|\" \"$F/balance-running.txt\"; exit 1; }\n"
		 "sed \"s|$R|$5|\" \"$F/balance-none.txt\"",
		 root, t, t);
	script(btrfs, body);
	ShowHeard h = {0};
	ScanWatchCallbacks cb = {.btrfs_mounts = on_one_mount, .btrfs_balance = on_balance_show, .userdata = &h};
	ScanWatch *w = NULL;
	CHECK_INT(scanwatch_new(e, NULL, "zpool-is-not-run", 0.1, &cb, &w), 0);
	CHECK_INT(scanwatch_set_btrfs(w, btrfs), 0);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 10000000;
	while (h.balances < 4 && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK(h.balances >= 4);
	CHECK_INT(h.shows, 2);
	CHECK_INT(h.none_with_show, 1);
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
	test_btrfs(e, t);
	test_balance_show(e, t);
	sd_event_unref(e);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-scanwatch");
}
