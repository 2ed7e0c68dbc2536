/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the control socket's commands answer, built from the daemon context.
 */
#pragma once

#include "context.h"
#include "control.h"

/* The watched disk named device (a name or a /dev path); NULL with
 * PROTO_ERR_NO_SUCH_DEVICE and a message when there is none. */
Disk *commands_disk(Context *ctx, const char *device, ProtoError *err, char **msg);
/* The "device", "since" (seconds since the epoch) and "limit" (1-10000)
 * arguments the listing commands share, each set only when given: 0, or
 * -EINVAL for one of the wrong type or out of range. */
int commands_list_args(json_object *args, const char **device, uint64_t *since_usec, unsigned *limit);
/* The ControlHandler for the daemon: dispatches on the command table. */
int commands_dispatch(void *userdata, const char *command, json_object *args, const struct ucred *peer,
		      json_object **ret_result, ProtoError *ret_err, char **ret_message);
