/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one daemon context: it owns the event loop, the configuration and
 * every module's handle, wires the modules' callbacks to each other, and
 * runs the sampling tick. main.c and the views (daemon/views/: the
 * exporter, the pages, the command table, whose reload, reread, forget and
 * ack are the only writes) see it; every other module gets its own handle
 * and what it needs.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "registry.h"
#include "filter.h"
#include "modellist.h"
#include "sysdisk.h"

typedef struct Discovery Discovery;
typedef struct Sampler Sampler;
typedef struct Http Http;
typedef struct HttpBody HttpBody;
typedef struct Control Control;
typedef struct Tracer Tracer;
typedef struct Monitor Monitor;
typedef struct Notifier Notifier;
typedef struct Service Service;

typedef struct CliSetting {
	char *key, *value;
} CliSetting;

typedef struct CliSettings {
	CliSetting *items;		/* flags, re-applied over the file on reload */
	size_t n;
} CliSettings;

typedef struct Models {
	ModelList *list;
	char *origin;			/* its path, or "builtin" */
} Models;

/* The sampling timer's lateness, kept as the worst of each LOOP_LAG_SLOT_USEC
 * slot so that the worst over the last minute needs no reset on scrape
 * (two scrapers must read the same figure). */
#define LOOP_LAG_SLOTS 6
#define LOOP_LAG_SLOT_USEC (10 * UINT64_C(1000000))
typedef struct LoopLag {
	uint64_t worst_usec[LOOP_LAG_SLOTS];
	uint64_t slot[LOOP_LAG_SLOTS];	/* which slot (CLOCK_MONOTONIC / LOOP_LAG_SLOT_USEC) each holds */
	uint64_t from_usec;		/* start-up done: a timer due before waited on start-up, not the loop */
} LoopLag;

/* The steps of one sample, in order: what smrd_sample_cpu_seconds_total
 * counts (the daemon's own CPU, step by step). */
typedef enum TickStep {
	TICK_DISCOVERY,		/* the rescan: every minute, or a captured tree's disks in turn */
	TICK_DISKSTATS,		/* /proc/diskstats and /proc/stat */
	TICK_TRACER,		/* the traced latency histograms and slow I/Os */
	TICK_DETECTOR,		/* the detector and each disk's view */
	TICK_NOTIFIER,
	_TICK_STEP_MAX,
} TickStep;
extern const char *const tick_step_names[_TICK_STEP_MAX];

typedef struct Context {
	sd_event *event;
	Config config;			/* effective: defaults < file < flags */
	char *config_path;
	CliSettings cli;
	bool oneshot;
	uint64_t start_realtime_usec, start_mono_usec;

	DiskSources src;		/* the roots everything is read from */
	DeviceFilter *filter;		/* --include / --exclude */
	Models models;
	DiskRegistry *disks;

	Discovery *discovery;
	Sampler *sampler;
	Tracer *tracer;
	Monitor *monitor;
	struct Recorder *recorder;	/* the one event path (--oneshot: a null sink) */
	struct History *history;	/* the recorder's store, beside the state directory; NULL --oneshot */
	struct StateDir *state;		/* the state directory, locked while smrd runs */
	bool http_passed, control_passed;	/* the service manager's sockets, not listen and socket */
	char restart_needed[160];	/* keys the last reload changed that only a restart applies */
	Notifier *notifier;		/* notify-command, once per incident */
	struct Reaper *reaper;		/* smrd as its children's subreaper: what they leave is swept */
	struct ZfsAnnotate *annotate;	/* zfs-annotate: the class as vdev user properties (the live /sys only) */
	struct RebuildWatch *rebuild;	/* zed's events, the rebuild watcher and guard (rebuildwatch.h) */
	sd_event_source *tick;		/* the sampling timer */
	uint64_t last_rescan_usec;
	TickTime now;		/* of the sample under way: slow I/Os it collects date by it */
	double step_cpu[_TICK_STEP_MAX];	/* CPU seconds each step of the samples took, since start */
	LoopLag lag;			/* how late the loop ran the sampling timer */

	Http *http;
	struct Web *web;
	Control *control;
	Service *service;
} Context;

/* Builds the effective config from defaults, the file and the flags. */
int context_load_config(Context *ctx, Config *ret, char **ret_error);
/* Initialises every module in order; context_done undoes it in reverse. */
int context_init(Context *ctx);
void context_done(Context *ctx);
/* One sample, every step in order: rescan, diskstats, tracer, detector,
 * service status. The timer calls it; --oneshot calls it once. */
void context_tick(Context *ctx, const TickTime *now);
/* Re-reads the config file (and the web configuration), telling the
 * service manager (RELOADING=1, then READY=1 and the status); on error the
 * old configuration stays and *ret_error (if given) says why. SIGHUP and
 * `smrctl reload` both come here. */
int context_reload(Context *ctx, char **ret_error);
/* Records that the sampling timer due at due_usec ran at ran_usec. */
void context_note_lag(Context *ctx, uint64_t due_usec, uint64_t ran_usec);
/* The sampling timer's worst lateness in the last 50-60 s, in seconds: how
 * long the event loop kept its most urgent timer waiting. */
double context_loop_lag(const Context *ctx, uint64_t at_usec);
/* The tracer's slow threshold: slow-io, or lower if a stall threshold is. */
double context_slow_threshold(const Context *ctx);
