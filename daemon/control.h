/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket: accepts smrctl connections on a UNIX stream socket,
 * frames requests by newline, bounds every buffer, and hands each decoded
 * request to a handler. One bad client never affects another.
 */
#pragma once

#include <json-c/json.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "protocol.h"

typedef struct Control Control;

/* Fills *ret_result (0) or *ret_err and *ret_message (-errno). */
typedef int (*ControlHandler)(void *userdata, const char *command, json_object *args,
			      const struct ucred *peer, json_object **ret_result, ProtoError *ret_err,
			      char **ret_message);

#define CONTROL_MAX_CLIENTS 32
#define CONTROL_IDLE_TIMEOUT_USEC (10 * UINT64_C(1000000))

/* Binds path (or uses fd if fd >= 0, e.g. from socket activation) and
 * serves it on the loop. A socket it binds is mode 0660, and group `group`
 * when that group exists (NULL or "": the process's group). */
int control_new(sd_event *e, const char *path, int fd, const char *group, ControlHandler handler,
		void *userdata, Control **ret);
Control *control_free(Control *c);
