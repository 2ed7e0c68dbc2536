/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A notify hook's environment: the event, the disk and where to send it
 * (SMRD_EVENT, SMRD_DEVICE, ... docs/notify.md), and nothing of smrd's own
 * environment but a fixed PATH and locale. Each value is as it came, up to
 * its NUL, but for its control bytes, each written \xNN: the hook runs
 * without a shell, so no byte of it is a command, and every value is one
 * line, so none forges another variable in what the hook prints of them.
 */
#pragma once

#include "config.h"
#include "disk.h"
#include "incident.h"

#define HOOKENV_MAX 28
#define HOOKENV_VALUE_MAX 2048	/* bytes of one value, escaped (a message is 320) */

/* Fills env[HOOKENV_MAX + 1] with owned "KEY=value" strings, NULL-terminated;
 * d may be NULL (a disk gone since); served: where the pages are served
 * ("http://ADDR:PORT", http_url()), NULL or "" unknown: notify-url wins
 * over it, listen stands in for it. 0, or -ENOMEM with env freed. */
int hookenv_build(char *env[HOOKENV_MAX + 1], const Disk *d, const IncidentNote *note, const char *disk_class,
		  const char *host, const char *served, const Config *cfg);
/* Frees what hookenv_build() made. */
void hookenv_free(char *env[HOOKENV_MAX + 1]);
