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
/* The ControlHandler for the daemon: dispatches on the command table. */
int commands_dispatch(void *userdata, const char *command, json_object *args, const struct ucred *peer,
		      json_object **ret_result, ProtoError *ret_err, char **ret_message);
