/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl notify-test (smartd's -M test): one notification through
 * notify-command now, whatever the incident book says, recorded nowhere
 * but the log and the page's recent lines; the hook's exit and its output
 * (bounded) are kept for the caller, who asks again until it ended.
 */
#include "notifier.h"
#include "notifier-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util.h"

#define TEST_MESSAGE "A test notification from smrd (smrctl notify-test): if this reached you, smrd's " \
	"notifications work. No disk is affected."

const NotifyTest *notifier_test(const Notifier *n)
{
	return &n->test;
}

void notifier_test_capture(Notifier *n, const char *line)
{
	NotifyTest *t = &n->test;
	size_t have = strlen(t->output), len = strlen(line);
	if (have + len + 2 > sizeof t->output) {
		t->truncated = true;
		return;
	}
	memcpy(t->output + have, line, len);
	t->output[have + len] = '\n';
	t->output[have + len + 1] = 0;
}

void notifier_test_done(Notifier *n, Job *j, const siginfo_t *si, double secs)
{
	NotifyTest *t = &n->test;
	int code = si->si_code == CLD_EXITED ? si->si_status : -1;
	if (j->termed || j->killed)
		snprintf(t->result, sizeof t->result, "killed after %.1f s", secs);
	else if (code >= 0)
		snprintf(t->result, sizeof t->result, "exit %d", code);
	else
		snprintf(t->result, sizeof t->result, "signal %d", si->si_status);
	t->exit_status = code;
	t->running = false;
	for (unsigned i = n->recent_n; i-- > 0;)
		if (streq(n->recent[i].what, "test") && streq(n->recent[i].incident, j->incident)) {
			snprintf(n->recent[i].result, sizeof n->recent[i].result, "%s", t->result);
			break;
		}
	if (code == 0)
		log_info("notify-test: %s exited 0 in %.1f s", t->command, secs);
	else
		log_warning("notify-test: %s failed: %s", t->command, t->result);
}

int notifier_test_start(Notifier *n, unsigned *ret_id)
{
	if (!n || !n->cfg->notify_command || !n->cfg->notify_command[0])
		return -ENOENT;
	if (n->test.running)
		return -EBUSY;
	Job *j = calloc(1, sizeof *j);
	if (!j)
		return -ENOMEM;
	uint64_t now = now_usec(CLOCK_REALTIME);
	*j = (Job){.n = n, .out_fd = -1, .test = true};
	n->test = (NotifyTest){.id = ++n->test_seq, .running = true, .exit_status = -1};
	snprintf(n->test.command, sizeof n->test.command, "%s", n->cfg->notify_command);
	IncidentNote note = {.test = true, .count = 1, .first_usec = now, .time_usec = now};
	snprintf(note.incident, sizeof note.incident, "test-%u", n->test.id);
	snprintf(note.message, sizeof note.message, "%s", TEST_MESSAGE);
	snprintf(j->what, sizeof j->what, "test");
	snprintf(j->device, sizeof j->device, "-");
	snprintf(j->incident, sizeof j->incident, "%s", note.incident);
	j->note = note;
	int r = hookenv_build(j->env, NULL, &note, "", n->host, n->url, n->cfg);
	if (r >= 0)
		r = notifier_job_spawn(n, j);
	if (r < 0) {
		n->test.running = false;
		snprintf(n->test.result, sizeof n->test.result, "not run: %s", strerror(-r));
		log_warning("notify-test: %s could not run: %s", n->test.command, strerror(-r));
		notifier_job_free(j);
		return r;
	}
	/* beside the running ones, not queued behind them: not rate-limited */
	j->next = n->running;
	n->running = j;
	n->n_running++;
	notifier_remember(n, "-", "test", "running", j->incident);
	log_info("notify-test: running %s", n->test.command);
	*ret_id = n->test.id;
	return 0;
}
