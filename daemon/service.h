/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Talking to the service manager: sockets passed by socket activation,
 * READY/RELOADING/STOPPING/STATUS notifications and the watchdog, behind a
 * handle that owns what they need. All of it is a no-op outside systemd
 * (no LISTEN_FDS, no NOTIFY_SOCKET, no WATCHDOG_USEC).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

typedef struct Service Service;

/* Arms the watchdog when WATCHDOG_USEC asks for it: a timer on the loop
 * itself, so a loop stuck anywhere stops the pings. */
int service_new(sd_event *e, Service **ret);
Service *service_free(Service *s);
/* True when a service manager reads STATUS= (so that the counts for it are
 * worth computing). */
bool service_wants_status(const Service *s);
/* After every sample: READY=1 the first time, STATUS= when it changes. */
void service_sampled(Service *s, unsigned disks, unsigned suspects, unsigned storms);
void service_reloading(Service *s);
/* error: why the reload failed (shown in STATUS= until a good one), or NULL. */
void service_reloaded(Service *s, unsigned disks, unsigned suspects, unsigned storms, const char *error);
void service_stopping(Service *s);
/* The inherited control and HTTP sockets, recognised by their
 * FileDescriptorName= ("control", "http"), else by address family; -1 when
 * none was passed. Unknown extra fds are closed with a warning. */
int service_listen_fds(int *ret_control, int *ret_http);
/* Gives up CAP_BPF and CAP_PERFMON (effective, permitted, inheritable,
 * ambient) once the tracer is attached: its maps, rings and perf events are
 * open file descriptors that need no capability to use. Returns 1 when it
 * dropped something, 0 when there was nothing to drop. */
int service_drop_tracing_caps(void);
