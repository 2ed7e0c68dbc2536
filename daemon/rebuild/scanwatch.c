/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zpool status as a child of the event loop (scanwatch.h). One run at a
 * time; its output is read as it comes, at most ZPOOL_INPUT_MAX bytes (more
 * and it is killed), its time bounded (SCANWATCH_TIMEOUT_USEC: a pool whose
 * disks hang makes zpool hang too). It runs in a session of its own so that
 * a kill reaches what it started, with stdin from /dev/null, its stderr
 * discarded (its message would be the only line read), ZFS_COLOR dropped
 * and LC_ALL=C (the text's numbers and dates in the C locale).
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

struct ScanWatch {
	sd_event *event;
	char *zpool;
	uint64_t interval_usec;
	ScanWatchCallbacks cb;
	char **env;
	sd_event_source *timer;
	sd_event_source *kick_timer;	/* a kick within kick_gap_usec of the last run */
	uint64_t kick_gap_usec;
	/* the run under way */
	ChildRun *run;
	ScanWatchForm running_form;
	uint64_t run_started;		/* CLOCK_MONOTONIC; 0 none yet */
	/* what was learnt */
	ScanWatchForm form;
	bool kicked;		/* polling though not wanted: a scan started and still runs */
	unsigned ok, failed;
	/* logged once until another comes, or a reading succeeds */
	char last_failure[512];
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
			   .kick_gap_usec = SCANWATCH_KICK_GAP_USEC};
	if (cb)
		w->cb = *cb;
	static const char *const drop[] = {"ZFS_COLOR=", "LC_ALL=", NULL}, *const add[] = {"LC_ALL=C", NULL};
	int r = !w->zpool ? -ENOMEM : childrun_env_new(drop, add, &w->env);
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
	w->kick_timer = sd_event_source_disable_unref(w->kick_timer);
	childrun_env_free(w->env);
	free(w->zpool);
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
	char *last = w->last_failure;
	if (streq(msg, last))
		log_debug("rebuild watch: %s", msg);
	else
		log_warning("rebuild watch: %s (said once until it changes)", msg);
	snprintf(last, sizeof w->last_failure, "%s", msg);
	if (w->cb.failed)
		w->cb.failed(msg, w->cb.userdata);
}

static int spawn(ScanWatch *w, ScanWatchForm form);

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
		w->last_failure[0] = 0;
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
	run_done(userdata, res);
}

static int spawn(ScanWatch *w, ScanWatchForm form)
{
	char *json[] = {w->zpool, "status", "-jp", "--json-int", NULL};
	char *text[] = {w->zpool, "status", "-p", NULL};
	w->running_form = form;
	w->run_started = now_usec(CLOCK_MONOTONIC);
	return childrun_start(w->run, form == SCANWATCH_FORM_JSON ? json : text, w->env, ZPOOL_INPUT_MAX,
			      SCANWATCH_TIMEOUT_USEC, on_done, w);
}

/* zpool now, unless one runs: a slow zpool is not piled up */
static void poll_now(ScanWatch *w)
{
	if (childrun_running(w->run))
		return;
	int r = spawn(w, w->form == SCANWATCH_FORM_TEXT ? SCANWATCH_FORM_TEXT : SCANWATCH_FORM_JSON);
	if (r < 0)
		fail(w, "%s could not run: %s", w->zpool, strerror(-r));
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	ScanWatch *w = userdata;
	if (w->cb.interval)
		w->cb.interval(w->cb.userdata);
	if (w->kicked || (w->cb.wanted && w->cb.wanted(w->cb.userdata)))
		poll_now(w);
	sd_event_source_set_time(s, usec + w->interval_usec);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	return 0;
}

static int on_kick_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	poll_now(userdata);
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

void scanwatch_kick(ScanWatch *w)
{
	if (!w)
		return;
	w->kicked = true;
	if (scanwatch_pending(w))
		return;		/* the run under way, or the one due, reads it */
	uint64_t now = now_usec(CLOCK_MONOTONIC), due = w->run_started + w->kick_gap_usec;
	if (!w->run_started || now >= due) {
		poll_now(w);
		return;
	}
	int r = w->kick_timer ? sd_event_source_set_time(w->kick_timer, due)
			      : sd_event_add_time(w->event, &w->kick_timer, CLOCK_MONOTONIC, due, 0, on_kick_timer, w);
	if (r >= 0)
		r = sd_event_source_set_enabled(w->kick_timer, SD_EVENT_ONESHOT);
	if (r < 0)
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

bool scanwatch_pending(const ScanWatch *w)
{
	return childrun_running(w->run) || (w->kick_timer && sd_event_source_get_enabled(w->kick_timer, NULL) > 0);
}

void scanwatch_set_kick_gap(ScanWatch *w, uint64_t usec)
{
	w->kick_gap_usec = usec;
}
