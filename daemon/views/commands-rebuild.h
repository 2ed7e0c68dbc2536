/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control commands of the rebuild guard: zevent (an event from zed,
 * root only) and rebuild-check (the guard on demand, before zpool replace).
 */
#pragma once

#include "context.h"
#include "protocol.h"

/* {"env":{"ZEVENT_CLASS":...,...}}: parsed as zed's environment, recorded. */
int commands_zevent(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
/* {"device":"sdb" or "/dev/disk/by-id/..."}: the guard's verdict. */
int commands_rebuild_check(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
