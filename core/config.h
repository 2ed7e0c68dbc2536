/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrd's configuration: one table of keys with defaults, read from
 * /etc/smrd/smrd.conf ("key = value" lines) and overridden by --key flags.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "detect.h"
#include "diskrule.h"

typedef struct Config {
	char *listen;		/* HTTP address:port */
	char *web_config;	/* node_exporter's web configuration file (TLS, basic auth), or "" */
	char *socket_path;	/* control socket */
	char *socket_group;	/* group given the control socket when smrd binds it */
	char *state_dir;
	double interval;	/* seconds between diskstats samples */
	char *include;		/* regex over device names; empty = all */
	char *exclude;		/* regex over device names */
	double watch_stacked;	/* 0/1: stacked devices watched without an include naming them */
	char *sysfs_root, *procfs_root, *udev_root;
	char *model_list;	/* path, or "builtin" */
	char *drivedb;		/* path, "auto" or "none" */
	char *log_level;
	char *trace_backend;	/* auto, bpf, perf or none */
	double slow_io;		/* seconds: I/Os this slow are recorded one by one */
	double history_days;	/* events older than this are pruned */
	double history_max_events;
	double history_retry;	/* seconds between attempts at a database that could not be written */
	double probe;		/* 0/1: confirm idle cleaning with a small read probe */
	double probe_interval;	/* seconds between probe reads of one disk */
	char *notify_command;	/* run once per incident; "" none */
	char *notify_min_severity;	/* crit, warning, notice, info */
	double notify_interval;	/* seconds between one disk's aggregated notifications */
	double notify_timeout;	/* seconds a notify-command may run */
	char *notify_mailto, *notify_webhook_url;	/* for the shipped notifiers */
	char *notify_url;	/* the pages' base URL for notifications' links; "" from listen */
	double notify_coalesce;	/* seconds a storm's first notification waits to fold in its verdict */
	char *zpool_command;	/* zpool, for a scan's progress: a name looked up in PATH, or a path */
	char *smartctl_command;	/* smartctl, for Seagate's FARM recording type; "" never */
	double zfs_annotate;	/* 0/1: each classified pool member's class as vdev user properties */
	double rebuild_interval;	/* seconds between readings while a rebuild may run */
	DetectParams detect;	/* detect.* keys */
	DiskRules disks;	/* disk.<ID>.* keys */
	char *warnings;		/* lines for the log: settings accepted but ignored; NULL none */
} Config;

#define CONFIG_DEFAULT_LISTEN ":9863"
#define CONFIG_DEFAULT_INTERVAL 1.0
/* node_exporter's --collector.diskstats.device-exclude default */
#define CONFIG_DEFAULT_EXCLUDE "^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\\d+n\\d+p)\\d+$"

/* Fills c with built-in defaults. */
int config_init(Config *c);
void config_done(Config *c);
int config_copy(const Config *from, Config *to);
/* Whether a key takes effect only at the next start (smrd.conf(5): "(restart)"). */
bool config_key_needs_restart(const char *key);
typedef void (*ConfigChangeFn)(const char *key, const char *was, const char *now, void *userdata);
/* What a reload applies: n with old's values of the keys that need a
 * restart, each one that differed told to changed (before it is put back). */
int config_keep_restart_keys(Config *n, const Config *old, ConfigChangeFn changed, void *userdata);
/* Applies "key = value" text; *ret_error names the line and the problem. */
int config_parse_text(Config *c, const char *text, char **ret_error);
/* Applies a file; a missing file is not an error when missing_ok. */
int config_load(Config *c, const char *path, bool missing_ok, char **ret_error);
/* Sets one key (used for --key VALUE flags too); 0 with *ret_error set when
 * the key is accepted but ignored (a retired one), for the caller to warn. */
int config_set(Config *c, const char *key, const char *value, char **ret_error);
/* Adds a line to c->warnings. */
int config_warn(Config *c, const char *where, const char *what);
/* True if key names a config setting. */
bool config_has_key(const char *key);
/* True if key's value is a path (a flag's relative one is resolved against
 * the working directory, as node_exporter's --path.* are). */
bool config_key_is_path(const char *key);
/* Every setting as a flag (--KEY VALUE), its help and default. */
void config_print_help(FILE *f);
/* Prints the effective config in the file's own syntax. */
void config_print(const Config *c, FILE *f);
