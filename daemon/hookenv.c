/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The environment a notify hook runs with (hookenv.h): built from the note
 * and the disk's record at the moment the hook is queued.
 */
#include "hookenv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>

#include "events.h"
#include "util.h"

static int env_add(char *env[], unsigned *k, const char *key, const char *value)
{
	if (*k >= HOOKENV_MAX)
		return -E2BIG;
	/* one line each: a newline or escape sequence in a model, a mount
	 * point or a pool forges no variable and reaches no terminal */
	char clean[HOOKENV_VALUE_MAX];
	str_escape_control(value, clean, sizeof clean);
	if (asprintf(&env[*k], "%s=%s", key, clean) < 0) {
		env[*k] = NULL;
		return -ENOMEM;
	}
	(*k)++;
	return 0;
}

static void format_time(char out[40], uint64_t usec)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 40, "%" PRIu64, usec / 1000000);
}

/* What to do first, and the runbook's section (docs/alerts.md, served at
 * /docs/alerts): what the alert descriptions and the journal catalog say. */
static const char *advice(const IncidentNote *note, const char **anchor)
{
	*anchor = "";
	if (note->test)
		return "";
	switch (note->kind) {
	case EVENT_STORM_START:
	case EVENT_STORM_END:
		*anchor = "smrdestagestorm";
		return "Pause or throttle the random writes to this disk (a scrub of a pool being written, a backup, a "
		       "torrent) and give it idle time to clean. Do not start a resilver or rebuild onto it now.";
	case EVENT_BEHAVIOUR:
	case EVENT_BANDS:
		*anchor = "smrdiskundeclaredsmr";
		return "Treat this disk as drive-managed SMR: never resilver or rebuild onto it, keep it out of ZFS pools "
		       "and md arrays that resilver, or plan its replacement with a CMR disk.";
	case EVENT_STALL:
		*anchor = "smrdiskstalls";
		return "Writes to this disk wait for seconds at a time: reduce the random writes to it and give it idle "
		       "time; do not resilver onto it.";
	case EVENT_TIMEOUT_RISK:
		*anchor = "smrstallneariotimeout";
		return "Raise this disk's I/O timeout above its longest stall (a udev rule setting queue/io_timeout) and "
		       "avoid heavy random writes to it, or the kernel may fail its I/O.";
	case EVENT_STALL_IMMINENT:
		*anchor = "smrdiskstallimminent";
		return "Pause or slow what writes to this disk (a backup, a resilver, a restore) if its latency matters, "
		       "or let it finish and expect a stall.";
	case EVENT_REBUILD_WARNING:
		*anchor = "smrrebuildslow";
		return "A rebuild onto this disk will be slow and may fault it: replace onto a CMR disk if you can.";
	default:
		return "";
	}
}

/* Where admins reach this smrd's pages: notify-url, else listen's port on
 * this host's name (an address that listens everywhere names no host). */
static void base_url(char *out, size_t n, const Config *cfg, const char *host)
{
	if (cfg->notify_url && cfg->notify_url[0]) {
		size_t len = strlen(cfg->notify_url);
		while (len > 0 && cfg->notify_url[len - 1] == '/')
			len--;
		snprintf(out, n, "%.*s", (int)len, cfg->notify_url);
		return;
	}
	const char *listen = cfg->listen ? cfg->listen : "";
	const char *colon = strrchr(listen, ':');
	/* port 0 is the kernel's choice, not an address anyone can reach */
	if (!colon || streq(colon + 1, "0") || !colon[1]) {
		out[0] = 0;
		return;
	}
	int hl = (int)(colon - listen);
	bool any = hl == 0 || (hl == 7 && !strncmp(listen, "0.0.0.0", 7)) || (hl == 4 && !strncmp(listen, "[::]", 4));
	snprintf(out, n, "http://%.*s:%s", any ? (int)strlen(host) : hl, any ? host : listen, colon + 1);
}

void hookenv_free(char *env[HOOKENV_MAX + 1])
{
	for (unsigned i = 0; i <= HOOKENV_MAX && env[i]; i++) {
		free(env[i]);
		env[i] = NULL;
	}
}

int hookenv_build(char *env[HOOKENV_MAX + 1], const Disk *d, const IncidentNote *note, const char *disk_class,
		  const char *host, const Config *cfg)
{
	memset(env, 0, (HOOKENV_MAX + 1) * sizeof env[0]);
	const EventKindInfo *k = event_kind_info(note->kind);
	const SysfsDisk *sd = d ? &d->sys : &(SysfsDisk){0};
	char when[40], first[40], count[24], pool[512], base[300], disk_url[400], runbook[400];
	const char *anchor, *todo = advice(note, &anchor);
	base_url(base, sizeof base, cfg, host);
	snprintf(disk_url, sizeof disk_url, "%s%s%.31s", base, note->device[0] ? "/disk/" : "/", note->device);
	snprintf(runbook, sizeof runbook, "%s/docs/alerts%s%s", base, anchor[0] ? "#" : "", anchor);
	format_time(when, note->time_usec);
	format_time(first, note->first_usec);
	snprintf(count, sizeof count, "%" PRIu64, note->count);
	snprintf(pool, sizeof pool, "%s", d ? diskview_pool_str(&d->view) : "");	/* "zfs:tank md:md0", as every view has it */
	unsigned i = 0;
	int r = 0;
	r |= env_add(env, &i, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	r |= env_add(env, &i, "LC_ALL", "C.UTF-8");
	r |= env_add(env, &i, "SMRD_EVENT", note->test ? "test" : k->name);
	r |= env_add(env, &i, "SMRD_SEVERITY", note->test ? "info" : k->severity);
	r |= env_add(env, &i, "SMRD_INCIDENT", note->incident);
	r |= env_add(env, &i, "SMRD_FOLLOW_UP", note->follow_up ? "1" : "0");
	r |= env_add(env, &i, "SMRD_COUNT", count);
	r |= env_add(env, &i, "SMRD_DEVICE", note->device);
	r |= env_add(env, &i, "SMRD_DISK_ID", note->identity);
	r |= env_add(env, &i, "SMRD_MODEL", sd->model);
	r |= env_add(env, &i, "SMRD_SERIAL", sd->serial);
	r |= env_add(env, &i, "SMRD_WWN", sd->wwn);
	r |= env_add(env, &i, "SMRD_POOL", pool);
	r |= env_add(env, &i, "SMRD_CLASS", disk_class);
	r |= env_add(env, &i, "SMRD_MESSAGE", note->message);
	r |= env_add(env, &i, "SMRD_TIME", when);
	r |= env_add(env, &i, "SMRD_FIRST_TIME", first);
	r |= env_add(env, &i, "SMRD_HOST", host);
	r |= env_add(env, &i, "SMRD_MAILTO", cfg->notify_mailto);
	r |= env_add(env, &i, "SMRD_WEBHOOK_URL", cfg->notify_webhook_url);
	r |= env_add(env, &i, "SMRD_ADVICE", todo);
	r |= env_add(env, &i, "SMRD_DISK_URL", base[0] ? disk_url : "");
	r |= env_add(env, &i, "SMRD_RUNBOOK_URL", base[0] ? runbook : "");
	if (r) {
		hookenv_free(env);
		return -ENOMEM;
	}
	return 0;
}
