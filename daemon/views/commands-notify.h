/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control commands of the notifier: ack, unack, acks, notify-test.
 */
#pragma once

#include "context.h"
#include "control.h"

#define ACK_DEFAULT_SECONDS 86400	/* an ack without --for: a day, like a silence someone forgets */

int commands_ack(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
int commands_unack(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
int commands_acks(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
int commands_notify_test(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
