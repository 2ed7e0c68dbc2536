/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Talking to the service manager: sockets passed by socket activation,
 * READY/RELOADING/STOPPING/STATUS notifications and the watchdog. All of it
 * is a no-op outside systemd (no LISTEN_FDS, no NOTIFY_SOCKET).
 */
#pragma once

#include "context.h"

/* The inherited control and HTTP sockets, recognised by their
 * FileDescriptorName= ("control", "http"), else by address family; -1 when
 * none was passed. Unknown extra fds are closed with a warning. */
int service_listen_fds(int *ret_control, int *ret_http);
/* Pings the watchdog from the event loop when WATCHDOG_USEC is set. */
int service_watchdog(Context *ctx);
/* After every sample: READY=1 the first time, STATUS= when it changes. */
void service_sampled(Context *ctx);
void service_reloading(Context *ctx);
void service_reloaded(Context *ctx);
void service_stopping(void);
/* Gives up CAP_BPF and CAP_PERFMON (effective, permitted, inheritable,
 * ambient) once the tracer is attached: its maps, rings and perf events are
 * open file descriptors that need no capability to use. Returns 1 when it
 * dropped something, 0 when there was nothing to drop. */
int service_drop_tracing_caps(void);
