/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrd as its descendants' subreaper (reaper.h). A sweep runs after an
 * owner released a group: when waitid() says smrd has a child at all, the
 * children are found in /proc (the kernel's per-task children list needs
 * CONFIG_PROC_CHILDREN, which not every kernel has), those of owned
 * groups left alone, a zombie reaped at once, a living one killed and
 * watched until it is reaped, which sweeps again: its own children are
 * smrd's by then.
 */
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "procgroup.h"
#include "util.h"

/* A killed process being waited for. */
typedef struct Orphan {
	pid_t pid;
	sd_event_source *src;
	struct Reaper *r;
} Orphan;

struct Reaper {
	sd_event *event;
	sd_event_source *sweep;		/* deferred, one-shot when due */
	pid_t *owned;
	size_t n_owned, cap_owned;
	Orphan **orphans;
	size_t n_orphans, cap_orphans;
	uint64_t swept;
};

static int on_sweep(sd_event_source *s, void *userdata);

int reaper_new(sd_event *e, Reaper **ret)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	Reaper *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->event = sd_event_ref(e);
	int k = sd_event_add_defer(e, &r->sweep, on_sweep, r);
	if (k >= 0)
		k = sd_event_source_set_enabled(r->sweep, SD_EVENT_OFF);
	if (k < 0) {
		reaper_free(r);
		return k;
	}
	*ret = r;
	return 0;
}

Reaper *reaper_free(Reaper *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n_orphans; i++) {
		sd_event_source_disable_unref(r->orphans[i]->src);
		free(r->orphans[i]);
	}
	free(r->orphans);
	free(r->owned);
	sd_event_source_disable_unref(r->sweep);
	sd_event_unref(r->event);
	free(r);
	return NULL;
}

int reaper_own(Reaper *r, pid_t pgid)
{
	if (!r)
		return 0;
	if (r->n_owned == r->cap_owned) {
		size_t cap = r->cap_owned ? r->cap_owned * 2 : 8;
		pid_t *p = realloc(r->owned, cap * sizeof *p);
		if (!p)
			return -ENOMEM;
		r->owned = p, r->cap_owned = cap;
	}
	r->owned[r->n_owned++] = pgid;
	return 0;
}

void reaper_release(Reaper *r, pid_t pgid)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_owned; i++)
		if (r->owned[i] == pgid) {
			r->owned[i] = r->owned[--r->n_owned];
			break;
		}
	(void)sd_event_source_set_enabled(r->sweep, SD_EVENT_ONESHOT);
}

uint64_t reaper_swept(const Reaper *r)
{
	return r ? r->swept : 0;
}

static bool owned(const Reaper *r, pid_t pgid)
{
	for (size_t i = 0; i < r->n_owned; i++)
		if (r->owned[i] == pgid)
			return true;
	return false;
}

static bool watched(const Reaper *r, pid_t pid)
{
	for (size_t i = 0; i < r->n_orphans; i++)
		if (r->orphans[i]->pid == pid)
			return true;
	return false;
}

static int on_orphan_gone(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	(void)s, (void)si;
	Orphan *o = userdata;
	Reaper *r = o->r;
	for (size_t i = 0; i < r->n_orphans; i++)
		if (r->orphans[i] == o) {
			r->orphans[i] = r->orphans[--r->n_orphans];
			break;
		}
	/* sd-event reaps it after this callback; what it left is smrd's now */
	sd_event_source_unref(o->src);
	free(o);
	(void)sd_event_source_set_enabled(r->sweep, SD_EVENT_ONESHOT);
	return 0;
}

/* Killed: watched until it can be reaped (without a watch, reaped blocking). */
static void watch(Reaper *r, pid_t pid)
{
	Orphan *o = calloc(1, sizeof *o);
	if (o && r->n_orphans == r->cap_orphans) {
		size_t cap = r->cap_orphans ? r->cap_orphans * 2 : 8;
		Orphan **p = realloc(r->orphans, cap * sizeof *p);
		if (p)
			r->orphans = p, r->cap_orphans = cap;
	}
	if (!o || r->n_orphans == r->cap_orphans ||
	    sd_event_add_child(r->event, &o->src, pid, WEXITED, on_orphan_gone, o) < 0) {
		free(o);
		(void)waitpid(pid, NULL, 0);	/* SIGKILLed: it goes soon */
		return;
	}
	*o = (Orphan){.pid = pid, .src = o->src, .r = r};
	r->orphans[r->n_orphans++] = o;
}

static int on_sweep(sd_event_source *s, void *userdata)
{
	(void)s;
	Reaper *r = userdata;
	siginfo_t si = {0};
	/* no child at all: nothing to look for (the common case) */
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t self = getpid();
	struct dirent *de;
	unsigned killed = 0;
	while ((de = readdir(d))) {
		char state;
		pid_t ppid, pgrp;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || !procgroup_stat(de->d_name, &state, &ppid, &pgrp) ||
		    ppid != self || owned(r, pgrp))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (watched(r, pid))
			continue;
		r->swept++;
		if (state == 'Z') {
			(void)waitpid(pid, NULL, WNOHANG);
			continue;
		}
		(void)kill(pid, SIGKILL);
		killed++;
		watch(r, pid);
	}
	closedir(d);
	if (killed)
		log_debug("killed %u process(es) a child of smrd left behind", killed);
	return 0;
}
