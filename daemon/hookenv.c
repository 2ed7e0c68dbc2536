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

#include "advice.h"
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

/* What to do now, and the runbook's section (docs/alerts.md, served at
 * /docs/alerts): core/advice.c, by the disk's state (a rebuild onto it
 * first) and what happened. */
static void advice(const Disk *d, const IncidentNote *note, Advice *ret)
{
	*ret = (Advice){.anchor = ""};
	if (note->test)
		return;
	AdviceFacts f = {.disk_class = d ? disk_class(d) : DISK_CLASS_UNKNOWN, .storm = d && d->view.storm,
			 .rebuild = d ? disk_rebuild(d) : NULL, .kind = note->kind, .device = note->device};
	advice_for(&f, ret);
}

/* Where admins reach this smrd's pages: notify-url, else where the pages
 * are served (the socket smrd listens on, the service manager's included),
 * else listen's port on this host's name (an address that listens
 * everywhere names no host). */
static void base_url(char *out, size_t n, const Config *cfg, const char *served, const char *host)
{
	if (cfg->notify_url && cfg->notify_url[0]) {
		size_t len = strlen(cfg->notify_url);
		while (len > 0 && cfg->notify_url[len - 1] == '/')
			len--;
		snprintf(out, n, "%.*s", (int)len, cfg->notify_url);
		return;
	}
	if (served && served[0]) {
		snprintf(out, n, "%s", served);
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
		  const char *host, const char *served, const Config *cfg)
{
	memset(env, 0, (HOOKENV_MAX + 1) * sizeof env[0]);
	const EventKindInfo *k = event_kind_info(note->kind);
	const SysfsDisk *sd = d ? &d->sys : &(SysfsDisk){0};
	char when[40], first[40], count[24], pool[512], base[300], disk_url[400], runbook[400];
	Advice todo;
	advice(d, note, &todo);
	const char *anchor = todo.anchor;
	base_url(base, sizeof base, cfg, served, host);
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
	r |= env_add(env, &i, "SMRD_INCIDENT_KIND", note->thread_kind);
	r |= env_add(env, &i, "SMRD_STAGE", note->test ? "" : incident_stage_to_string(note->stage));
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
	r |= env_add(env, &i, "SMRD_SUMMARY", note->summary);
	r |= env_add(env, &i, "SMRD_TIME", when);
	r |= env_add(env, &i, "SMRD_FIRST_TIME", first);
	r |= env_add(env, &i, "SMRD_HOST", host);
	r |= env_add(env, &i, "SMRD_MAILTO", cfg->notify_mailto);
	r |= env_add(env, &i, "SMRD_WEBHOOK_URL", cfg->notify_webhook_url);
	r |= env_add(env, &i, "SMRD_ADVICE", todo.text);
	r |= env_add(env, &i, "SMRD_DISK_URL", base[0] ? disk_url : "");
	r |= env_add(env, &i, "SMRD_RUNBOOK_URL", base[0] ? runbook : "");
	if (r) {
		hookenv_free(env);
		return -ENOMEM;
	}
	return 0;
}
