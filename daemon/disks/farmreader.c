/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A queue of disks and one child at a time (farmreader.h). The disk is
 * remembered by name and device number, not by pointer: it may be gone,
 * or another device of the same name, when smartctl answers; and smartctl
 * is given the device node only after its st_rdev was checked to be that
 * number, so that a rename in between never has it read another disk.
 */
#include "farmreader.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "childrun.h"
#include "log.h"
#include "sysfs.h"
#include "util.h"

typedef struct Request {
	char name[32];
	unsigned major, minor;
} Request;

struct FarmReader {
	sd_event *event;
	char *const *smartctl;
	char *dev_dir;
	FarmReaderCallbacks cb;
	char **env;
	ChildRun *run;
	Request *queue;			/* queue[0] is under way while running */
	unsigned n_queue, cap_queue;
	bool running;
	bool unable;			/* smartctl-command cannot read FARM: said, not asked again until reset */
	uint64_t runs;
};

int farmreader_new(sd_event *e, Reaper *reaper, char *const *smartctl, const char *dev_dir,
		   const FarmReaderCallbacks *cb, FarmReader **ret)
{
	FarmReader *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	*r = (FarmReader){.event = sd_event_ref(e), .smartctl = smartctl, .dev_dir = strdup(dev_dir ? dev_dir : "/dev")};
	if (cb)
		r->cb = *cb;
	/* its messages in English, as farm_parse() reads them */
	static const char *const drop[] = {"LC_ALL=", "LANG=", "LANGUAGE=", NULL};
	static const char *const add[] = {"LC_ALL=C", NULL};
	int k = r->dev_dir ? childrun_env_new(drop, add, &r->env) : -ENOMEM;
	if (k >= 0)
		k = childrun_new(e, reaper, &r->run);
	if (k < 0)
		return farmreader_free(r), k;
	*ret = r;
	return 0;
}

FarmReader *farmreader_free(FarmReader *r)
{
	if (!r)
		return NULL;
	r->run = childrun_free(r->run);
	childrun_env_free(r->env);
	free(r->queue);
	free(r->dev_dir);
	sd_event_unref(r->event);
	free(r);
	return NULL;
}

static const char *command(const FarmReader *r)
{
	return r->smartctl && *r->smartctl ? *r->smartctl : "";
}

uint64_t farmreader_runs(const FarmReader *r) { return r->runs; }

unsigned farmreader_waiting(const FarmReader *r) { return r->n_queue; }

void farmreader_reset(FarmReader *r) { r->unable = false; }

/* smartctl cannot read FARM: said once; what waits is dropped. */
static void give_up(FarmReader *r, const char *why)
{
	r->unable = true;
	log_notice("smartctl-command %s %s: the vendor's recording type (Seagate FARM) is not read "
		   "(smartmontools 7.4 or later reads it)", command(r), why);
	r->n_queue = r->running ? 1 : 0;
}

static void start_next(FarmReader *r);

/* queue[0] is done: told (reading NULL: nothing to tell), dropped. */
static void pop(FarmReader *r, const FarmReading *reading)
{
	Request q = r->queue[0];
	r->running = false;
	memmove(&r->queue[0], &r->queue[1], (r->n_queue - 1) * sizeof *r->queue);
	r->n_queue--;
	if (reading && r->cb.read)
		r->cb.read(q.name, q.major, q.minor, reading, r->cb.userdata);
}

static void finish(FarmReader *r, const FarmReading *reading)
{
	pop(r, reading);
	start_next(r);
}

static void on_done(const ChildRunResult *res, void *userdata)
{
	FarmReader *r = userdata;
	FarmReading reading;
	if (res->timed_out) {
		reading = (FarmReading){.state = FARM_FAILED};
		snprintf(reading.detail, sizeof reading.detail, "smartctl ran past %llu s: killed",
			 FARMREADER_TIMEOUT_USEC / 1000000ULL);
	} else if (res->too_big) {
		reading = (FarmReading){.state = FARM_FAILED};
		snprintf(reading.detail, sizeof reading.detail, "smartctl printed more than %d bytes: killed",
			 FARMREADER_OUTPUT_MAX);
	} else
		farm_parse(res->out, res->out_len, res->exited ? res->status : -1, &reading);
	if (reading.state == FARM_NO_OPTION) {
		give_up(r, "refuses -l farm");
		return finish(r, NULL);
	}
	finish(r, &reading);
}

/* Runs smartctl for queue[0]; false when it could not start (dropped then). */
static bool spawn(FarmReader *r)
{
	Request *q = &r->queue[0];
	char node[PATH_MAX];
	struct stat st;
	FarmReading failed = {.state = FARM_FAILED};
	snprintf(node, sizeof node, "%s/%s", r->dev_dir, q->name);
	if (stat(node, &st) < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != q->major || minor(st.st_rdev) != q->minor) {
		snprintf(failed.detail, sizeof failed.detail, "%.40s is not device %u:%u", node, q->major, q->minor);
		pop(r, &failed);
		return false;
	}
	char *argv[] = {(char *)command(r), "-n", "standby", "-l", "farm", "--json", node, NULL};
	r->running = true;
	r->runs++;
	int k = childrun_start(r->run, argv, r->env, FARMREADER_OUTPUT_MAX, FARMREADER_TIMEOUT_USEC, on_done, r);
	if (k == -ENOENT || k == -EACCES) {
		give_up(r, k == -ENOENT ? "is not there" : "cannot be run");
		pop(r, NULL);
		return false;
	}
	if (k < 0) {
		snprintf(failed.detail, sizeof failed.detail, "smartctl could not run: %s", strerror(-k));
		pop(r, &failed);
		return false;
	}
	return true;
}

static void start_next(FarmReader *r)
{
	while (!r->running && r->n_queue > 0 && !spawn(r))
		;
}

int farmreader_ask(FarmReader *r, const char *name, unsigned major, unsigned minor)
{
	if (!r || !*command(r) || r->unable)
		return -ENOTSUP;
	if (!sysfs_valid_name(name))
		return -EINVAL;
	for (unsigned i = 0; i < r->n_queue; i++)
		if (r->queue[i].major == major && r->queue[i].minor == minor && streq(r->queue[i].name, name))
			return 0;	/* its answer, under way or to come, is the one asked for */
	if (r->n_queue >= FARMREADER_QUEUE_MAX) {
		log_warning("%s: its FARM log is not read: %d disks wait already", name, FARMREADER_QUEUE_MAX);
		return -E2BIG;
	}
	if (r->n_queue == r->cap_queue) {
		unsigned cap = r->cap_queue ? 2 * r->cap_queue : 16;
		Request *q = realloc(r->queue, cap * sizeof *q);
		if (!q)
			return -ENOMEM;
		r->queue = q;
		r->cap_queue = cap;
	}
	Request *q = &r->queue[r->n_queue++];
	*q = (Request){.major = major, .minor = minor};
	snprintf(q->name, sizeof q->name, "%s", name);
	start_next(r);
	return 0;
}
