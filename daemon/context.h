/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one daemon context: it owns the event loop, the configuration and every
 * module, and is handed to each callback as userdata.
 */
#pragma once

#include <regex.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "disk.h"
#include "modellist.h"

typedef struct Discovery Discovery;
typedef struct Http Http;
typedef struct Control Control;
typedef struct Tracer Tracer;
typedef struct Monitor Monitor;

typedef struct CliSetting {
	char *key, *value;
} CliSetting;

typedef struct Context {
	sd_event *event;
	Config config;			/* effective: defaults < file < flags */
	char *config_path;
	CliSetting *cli;		/* flags, re-applied over the file on reload */
	size_t n_cli;
	bool oneshot;

	int sysfs_fd, procfs_fd, udev_fd;
	bool real_sysfs;		/* sysfs root is /sys: libudev can be used */
	regex_t include_re, exclude_re;
	bool have_include, have_exclude;
	ModelList *models;
	char *models_origin;

	DiskRegistry *disks;
	Discovery *discovery;
	sd_event_source *sample_timer;
	Http *http;
	Control *control;
	Tracer *tracer;
	Monitor *monitor;
	struct Probe *probe_drain;	/* probes of vanished disks, still in flight */

	uint64_t start_realtime_usec;
	uint64_t last_sample_usec;	/* CLOCK_MONOTONIC of the last diskstats sample */
	uint64_t last_rescan_usec;
	uint64_t samples, diskstats_bad_lines, diskstats_read_errors, diskstats_resets, scrapes;
	struct HttpBody *page;		/* the metrics page of this sample */
	uint64_t page_samples, page_usec;
	uint64_t probe_errors;
	bool notified_ready;
	sd_event_source *watchdog_timer;
	uint64_t watchdog_period_usec;
	char last_status[160];
} Context;

/* Builds the effective config from defaults, the file and the flags. */
int context_load_config(Context *ctx, Config *ret, char **ret_error);
/* Initialises every module in order; context_done undoes it in reverse. */
int context_init(Context *ctx);
void context_done(Context *ctx);
/* Re-reads the config file (and the web configuration); on error the old
 * configuration stays and *ret_error (if given) says why. */
int context_reload(Context *ctx, char **ret_error);
/* The tracer's slow threshold: slow-io, or lower if a stall threshold is. */
double context_slow_threshold(const Context *ctx);
/* True when a device name passes --include/--exclude. */
bool context_wants_device(const Context *ctx, const char *name);
