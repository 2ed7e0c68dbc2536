/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status as a child of the event loop (scanwatch.h). One run at a
 * time; its output is read as it comes, at most ZPOOL_INPUT_MAX bytes (more
 * and it is killed), its time bounded (SCANWATCH_TIMEOUT_USEC: a pool whose
 * disks hang makes zpool hang too). It runs in a session of its own so that
 * a kill reaches what it started, with stdin from /dev/null, its stderr
 * discarded (its message would be the only line read), ZFS_COLOR dropped
 * and LC_ALL=C (the text's numbers and dates in the C locale). The same
 * for btrfs: per mount, its replace status, its balance status and, while
 * a balance runs, its devices' figures.
 */
#include "scanwatch.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "childrun.h"
#include "log.h"
#include "util.h"

typedef enum RunKind {
	RUN_ZPOOL,
	RUN_REPLACE,		/* btrfs replace status -1 -- MOUNT */
	RUN_BALANCE,		/* btrfs balance status -v -- MOUNT */
	RUN_SHOW,		/* btrfs filesystem show --raw -- MOUNT, while a balance runs */
	_RUN_KIND_MAX,
} RunKind;

static size_t input_max(RunKind k)
{
	switch (k) {
	case RUN_REPLACE:
		return BTRFS_REPLACE_INPUT_MAX;
	case RUN_BALANCE:
		return BTRFS_BALANCE_INPUT_MAX;
	case RUN_SHOW:
		return BTRFS_SHOW_INPUT_MAX;
	default:
		return ZPOOL_INPUT_MAX;
	}
}

struct ScanWatch {
	sd_event *event;
	char *zpool;
	uint64_t interval_usec;
	ScanWatchCallbacks cb;
	char **env;
	sd_event_source *timer;
	char *btrfs;
	/* this interval's runs: zpool, then each btrfs mount in turn */
	bool zpool_due;
	char (*mounts)[SCANWATCH_MOUNT_LEN];
	unsigned n_mounts, next_mount;
	bool balance_due;	/* the mount's balance status is next, its replace status read */
	/* the run under way */
	ChildRun *run;
	ScanWatchForm running_form;
	RunKind running;
	const char *running_mount;	/* in mounts[] */
	BtrfsBalanceStatus balance;	/* while its filesystem show runs */
	uint64_t balancing[SCANWATCH_MOUNTS_MAX];	/* the mounts with a balance at their last reading, hashed */
	unsigned n_balancing;
	/* what was learnt */
	ScanWatchForm form;
	bool kicked;		/* polling though not wanted: a scan started and still runs */
	unsigned ok, failed;
	/* per command (zpool, replace, balance, show): logged once until
	 * another comes, or a reading of that command succeeds */
	char last_failure[_RUN_KIND_MAX][512];
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

int scanwatch_new(sd_event *e, Reaper *reaper, const char *zpool, double interval, const ScanWatchCallbacks *cb, ScanWatch **ret)
{
	if (!zpool || !*zpool || !(interval > 0))
		return -EINVAL;
	ScanWatch *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	*w = (ScanWatch){.event = sd_event_ref(e), .zpool = strdup(zpool), .interval_usec = (uint64_t)(interval * 1e6),
			 .btrfs = strdup("btrfs"),
			 .mounts = calloc(SCANWATCH_MOUNTS_MAX, SCANWATCH_MOUNT_LEN)};
	if (cb)
		w->cb = *cb;
	static const char *const drop[] = {"ZFS_COLOR=", "LC_ALL=", NULL}, *const add[] = {"LC_ALL=C", NULL};
	int r = !w->zpool || !w->btrfs || !w->mounts ? -ENOMEM : childrun_env_new(drop, add, &w->env);
	if (r >= 0)
		r = childrun_new(e, reaper, &w->run);
	/* the first reading soon after start: a rebuild under way at a restart is picked up at once */
	if (r >= 0)
		r = sd_event_add_time_relative(e, &w->timer, CLOCK_MONOTONIC, w->interval_usec < 1000000ULL ? w->interval_usec : 1000000ULL, 0, on_timer, w);
	if (r < 0)
		return scanwatch_free(w), r;
	*ret = w;
	return 0;
}

ScanWatch *scanwatch_free(ScanWatch *w)
{
	if (!w)
		return NULL;
	w->run = childrun_free(w->run);	/* a run under way is killed and reaped */
	w->timer = sd_event_source_disable_unref(w->timer);
	childrun_env_free(w->env);
	free(w->zpool);
	free(w->btrfs);
	free(w->mounts);
	sd_event_unref(w->event);
	free(w);
	return NULL;
}

static void fail(ScanWatch *w, const char *fmt, ...) _printf_(2, 3);
static void fail(ScanWatch *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	w->failed++;
	/* a zpool missing on a host with a ZFS-labelled disk fails every interval: said once */
	char *last = w->last_failure[w->running];	/* the run that failed, or could not start */
	if (streq(msg, last))
		log_debug("rebuild watch: %s", msg);
	else
		log_warning("rebuild watch: %s (said once until it changes)", msg);
	snprintf(last, sizeof w->last_failure[0], "%s", msg);
	if (w->cb.failed)
		w->cb.failed(msg, w->cb.userdata);
}

static int spawn(ScanWatch *w, ScanWatchForm form);
static int spawn_btrfs(ScanWatch *w, const char *mount, RunKind kind);
static void run_next(ScanWatch *w);

/* Why a btrfs run gave nothing to read: "" when it exited as it should. */
static void btrfs_why(const ChildRunResult *res, bool exit1_ok, char *why, size_t n)
{
	why[0] = 0;
	if (res->too_big || res->timed_out)
		snprintf(why, n, "%s: killed", res->timed_out ? "ran too long" : "printed too much");
	else if (!res->exited)
		snprintf(why, n, "killed by signal %d", res->status);
	else if (res->status != 0 && !(exit1_ok && res->status == 1))
		snprintf(why, n, "exit %d", res->status);
}

/* btrfs filesystem show --raw ended: the balance read before it, with it. */
static void show_done(ScanWatch *w, const ChildRunResult *res)
{
	const char *mount = w->running_mount;
	char why[160];
	btrfs_why(res, false, why, sizeof why);
	_cleanup_free_ char *error = NULL;
	_cleanup_free_ BtrfsShow *show = calloc(1, sizeof *show);
	int r = why[0] ? -EINVAL : !show ? -ENOMEM : btrfs_show_parse(res->out, res->out_len, show, &error);
	if (r < 0 && !why[0])
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	if (r < 0)
		fail(w, "%s filesystem show --raw %s: %s", w->btrfs, mount, why);
	else {
		w->ok++;
		w->last_failure[RUN_SHOW][0] = 0;
	}
	/* the balance is handed on either way: without the devices, no ETA */
	if (w->cb.btrfs_balance)
		w->cb.btrfs_balance(mount, &w->balance, r < 0 ? NULL : show, w->cb.userdata);
}

/* Whether mount had a balance at its last reading or has one now (its
 * devices' figures are read then), noting whether it has one now. Mounts
 * are kept by a hash of their path: a collision costs one show more. */
static bool balancing_changed(ScanWatch *w, const char *mount, bool now)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	for (const char *c = mount; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	unsigned i = 0;
	while (i < w->n_balancing && w->balancing[i] != h)
		i++;
	bool was = i < w->n_balancing;
	if (was && !now)
		w->balancing[i] = w->balancing[--w->n_balancing];
	else if (!was && now) {
		if (w->n_balancing == SCANWATCH_MOUNTS_MAX)
			w->n_balancing--;	/* the last noted makes room */
		w->balancing[w->n_balancing++] = h;
	}
	return was || now;
}

/* btrfs balance status -v ended (exit 1: one found, 0: none): read, parse;
 * the devices' figures next while one runs, and once after it. */
static void balance_done(ScanWatch *w, const ChildRunResult *res)
{
	const char *mount = w->running_mount;
	char why[160];
	btrfs_why(res, true, why, sizeof why);
	_cleanup_free_ char *error = NULL;
	int r = why[0] ? -EINVAL : btrfs_balance_parse(res->out, res->out_len, mount, &w->balance, &error);
	if (r < 0 && !why[0])
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	if (r < 0) {
		fail(w, "%s balance status -v %s: %s", w->btrfs, mount, why);
		return;
	}
	w->ok++;
	w->last_failure[w->running][0] = 0;
	if (balancing_changed(w, mount, w->balance.state != BTRFS_BALANCE_NONE)) {
		r = spawn_btrfs(w, mount, RUN_SHOW);
		if (r >= 0)
			return;
		fail(w, "%s filesystem show --raw %s could not run: %s", w->btrfs, mount, strerror(-r));
	}
	if (w->cb.btrfs_balance)
		w->cb.btrfs_balance(mount, &w->balance, NULL, w->cb.userdata);
}

/* btrfs replace status -1 ended: read, parse, hand on. */
static void btrfs_done(ScanWatch *w, const ChildRunResult *res)
{
	const char *mount = w->running_mount;
	bool exited0 = res->exited && res->status == 0, killed = res->too_big || res->timed_out;
	_cleanup_free_ char *error = NULL;
	BtrfsReplaceStatus b;
	int r = exited0 && !killed ? btrfs_replace_parse(res->out, res->out_len, &b, &error) : -EINVAL;
	char why[160];
	if (killed)
		snprintf(why, sizeof why, "%s: killed", res->timed_out ? "ran too long" : "printed too much");
	else if (!exited0)
		snprintf(why, sizeof why, res->exited ? "exit %d" : "killed by signal %d", res->status);
	else
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	if (r < 0) {
		fail(w, "%s replace status -1 %s: %s", w->btrfs, mount, why);
		return;
	}
	w->ok++;
	w->last_failure[w->running][0] = 0;
	if (w->cb.btrfs_status)
		w->cb.btrfs_status(mount, &b, w->cb.userdata);
}

/* The run ended: read, parse, hand on; a refused JSON form falls back to the text once. */
static void run_done(ScanWatch *w, const ChildRunResult *res)
{
	ScanWatchForm form = w->running_form;
	bool killed = res->too_big || res->timed_out;
	const char *how = form == SCANWATCH_FORM_JSON ? "status -jp --json-int" : "status -p";
	bool exited0 = res->exited && res->status == 0;
	_cleanup_free_ char *error = NULL;
	ZpoolStatus *st = NULL;
	int r = -EINVAL;
	if (exited0 && !killed)
		r = form == SCANWATCH_FORM_JSON ? zpool_status_parse_json(res->out, res->out_len, &st, &error)
						: zpool_status_parse_text(res->out, res->out_len, &st, &error);
	char why[160];
	if (res->timed_out)
		snprintf(why, sizeof why, "ran past %llu s: killed", SCANWATCH_TIMEOUT_USEC / 1000000ULL);
	else if (res->too_big)
		snprintf(why, sizeof why, "printed more than %u bytes: killed", ZPOOL_INPUT_MAX);
	else if (!res->exited)
		snprintf(why, sizeof why, "killed by signal %d", res->status);
	else if (!exited0)
		snprintf(why, sizeof why, "exit %d", res->status);
	else
		snprintf(why, sizeof why, "%s", error ?: strerror(-r));
	if (r >= 0) {
		w->form = form;
		w->ok++;
		w->last_failure[w->running][0] = 0;
		bool scanning = false;
		for (unsigned i = 0; i < st->n_pools; i++)
			scanning |= st->pools[i].state == ZPOOL_SCAN_SCANNING;
		w->kicked &= scanning;
		if (w->cb.status)
			w->cb.status(st, w->cb.userdata);
		zpool_status_free(st);
		return;
	}
	/* an OpenZFS before 2.3 refuses -j (usage, exit 2): the text it prints
	 * is read from then on; a JSON form that once worked is not given up */
	if (form == SCANWATCH_FORM_JSON && w->form == SCANWATCH_FORM_UNKNOWN && !killed) {
		log_info("rebuild watch: %s %s: %s; reading its text form (status -p)", w->zpool, how, why);
		r = spawn(w, SCANWATCH_FORM_TEXT);
		if (r < 0)
			fail(w, "%s status -p could not run: %s", w->zpool, strerror(-r));
		return;
	}
	fail(w, "%s %s: %s", w->zpool, how, why);
}

static void on_done(const ChildRunResult *res, void *userdata)
{
	ScanWatch *w = userdata;
	switch (w->running) {
	case RUN_REPLACE:
		btrfs_done(w, res);
		break;
	case RUN_BALANCE:
		balance_done(w, res);
		break;
	case RUN_SHOW:
		show_done(w, res);
		break;
	default:
		run_done(w, res);
	}
	/* the next of this interval's runs, unless run_done started the text
	 * form or balance_done the devices' figures */
	if (!childrun_running(w->run))
		run_next(w);
}

static int spawn_argv(ScanWatch *w, char *const argv[])
{
	return childrun_start(w->run, argv, w->env, input_max(w->running), SCANWATCH_TIMEOUT_USEC, on_done, w);
}

static int spawn(ScanWatch *w, ScanWatchForm form)
{
	char *json[] = {w->zpool, "status", "-jp", "--json-int", NULL};
	char *text[] = {w->zpool, "status", "-p", NULL};
	w->running = RUN_ZPOOL;
	w->running_form = form;
	return spawn_argv(w, form == SCANWATCH_FORM_JSON ? json : text);
}

static int spawn_btrfs(ScanWatch *w, const char *mount, RunKind kind)
{
	/* the mount point is an argument, never a shell word; "--" ends the options */
	char *replace[] = {w->btrfs, "replace", "status", "-1", "--", (char *)mount, NULL};
	char *balance[] = {w->btrfs, "balance", "status", "-v", "--", (char *)mount, NULL};
	char *show[] = {w->btrfs, "filesystem", "show", "--raw", "--", (char *)mount, NULL};
	w->running = kind;
	w->running_mount = mount;
	return spawn_argv(w, kind == RUN_REPLACE ? replace : kind == RUN_BALANCE ? balance : show);
}

/* This interval's next run: zpool when due, then each btrfs mount. */
static void run_next(ScanWatch *w)
{
	while (!childrun_running(w->run)) {
		int r;
		if (w->zpool_due) {
			w->zpool_due = false;
			r = spawn(w, w->form == SCANWATCH_FORM_TEXT ? SCANWATCH_FORM_TEXT : SCANWATCH_FORM_JSON);
			if (r < 0)
				fail(w, "%s could not run: %s", w->zpool, strerror(-r));
		} else if (w->next_mount < w->n_mounts) {
			/* each mount's replace status, then its balance status */
			const char *m = w->mounts[w->next_mount];
			bool balance = w->balance_due;
			w->balance_due = !balance;
			w->next_mount += balance;
			r = spawn_btrfs(w, m, balance ? RUN_BALANCE : RUN_REPLACE);
			if (r < 0)
				fail(w, "%s %s status %s could not run: %s", w->btrfs, balance ? "balance" : "replace", m,
				     strerror(-r));
		} else
			return;
	}
}

static void poll_now(ScanWatch *w)
{
	if (childrun_running(w->run))
		return;		/* one at a time: a slow zpool is not piled up */
	w->zpool_due = true;
	run_next(w);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	ScanWatch *w = userdata;
	/* what is left of the last interval's runs (a slow zpool) is not piled up */
	if (!childrun_running(w->run)) {
		w->zpool_due = w->kicked || (w->cb.wanted && w->cb.wanted(w->cb.userdata));
		w->n_mounts = w->cb.btrfs_mounts ? w->cb.btrfs_mounts(w->mounts, SCANWATCH_MOUNTS_MAX, w->cb.userdata) : 0;
		w->n_mounts = w->n_mounts < SCANWATCH_MOUNTS_MAX ? w->n_mounts : SCANWATCH_MOUNTS_MAX;
		w->next_mount = 0;
		w->balance_due = false;
		run_next(w);
	}
	sd_event_source_set_time(s, usec + w->interval_usec);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	return 0;
}

int scanwatch_configure(ScanWatch *w, const char *zpool, double interval)
{
	if (interval > 0)
		w->interval_usec = (uint64_t)(interval * 1e6);
	if (!zpool || !*zpool || streq(zpool, w->zpool))
		return 0;
	char *z = strdup(zpool);
	if (!z)
		return -ENOMEM;
	free(w->zpool);
	w->zpool = z;
	w->form = SCANWATCH_FORM_UNKNOWN;
	return 0;
}

int scanwatch_set_btrfs(ScanWatch *w, const char *btrfs)
{
	if (!btrfs || !*btrfs || streq(btrfs, w->btrfs))
		return 0;
	char *b = strdup(btrfs);
	if (!b)
		return -ENOMEM;
	free(w->btrfs);
	w->btrfs = b;
	return 0;
}

void scanwatch_kick(ScanWatch *w)
{
	if (!w)
		return;
	w->kicked = true;
	poll_now(w);
}

ScanWatchForm scanwatch_form(const ScanWatch *w)
{
	return w->form;
}

void scanwatch_counts(const ScanWatch *w, unsigned *ret_ok, unsigned *ret_failed)
{
	*ret_ok = w->ok;
	*ret_failed = w->failed;
}
