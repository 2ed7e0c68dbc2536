/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ack DEVICE [KIND] [for_seconds], unack DEVICE [KIND], acks, and
 * notify-test (started, then asked again by its id until it ended: a hook
 * may take notify-timeout, longer than a caller waits for one reply).
 */
#include "commands-notify.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "classify.h"
#include "commands.h"
#include "events.h"
#include "notifier.h"
#include "util.h"

#define KINDS "storm-start, storm-end, stall, timeout-risk, bands, behaviour, stall-imminent, rebuild-warning or all"
#define ACK_MAX_SECONDS (366.0 * 86400)

/* The "device" (a watched disk) and "kind" (an event kind or "all"; absent: all). */
static Disk *disk_and_kind(Context *ctx, json_object *args, const char *cmd, int *kind, ProtoError *err, char **msg)
{
	json_object *dev, *k;
	*err = PROTO_ERR_BAD_ARGUMENT;
	if (!args || !json_object_object_get_ex(args, "device", &dev) || !json_object_is_type(dev, json_type_string)) {
		set_errorf(msg, 0, "%s needs a string \"device\" argument", cmd);
		return NULL;
	}
	*kind = -1;
	if (json_object_object_get_ex(args, "kind", &k) && k) {
		const char *name = json_object_is_type(k, json_type_string) ? json_object_get_string(k) : "";
		*kind = streq(name, "all") ? -1 : detect_event_kind_from_string(name);
		if (*kind < 0 && !streq(name, "all")) {
			_cleanup_free_ char *safe = str_sanitize(name);
			set_errorf(msg, 0, "'%.40s' is not an event kind: " KINDS, safe ? safe : "?");
			return NULL;
		}
	}
	return commands_disk(ctx, json_object_get_string(dev), err, msg);
}

static json_object *ack_json(const char *device, int kind, const char *cls, uint64_t time_usec, uint64_t until_usec)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "device", json_object_new_string(device));
	json_object_object_add(o, "kind", json_object_new_string(kind < 0 ? "all" : detect_event_kind_to_string(kind)));
	json_object_object_add(o, "class", json_object_new_string(cls));
	json_object_object_add(o, "time", json_number((double)time_usec / 1e6, 6));
	/* null: until it is withdrawn or the disk's class changes */
	json_object_object_add(o, "until", until_usec ? json_number((double)until_usec / 1e6, 6) : NULL);
	return o;
}

/* Silences a disk's notifications of a kind (or all) while its class holds,
 * for for_seconds (0: until withdrawn; absent: ACK_DEFAULT_SECONDS). */
int commands_ack(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	int kind;
	Disk *d = disk_and_kind(ctx, args, "ack", &kind, err, msg);
	if (!d)
		return -EINVAL;
	double secs = ACK_DEFAULT_SECONDS;
	json_object *f;
	if (json_object_object_get_ex(args, "for_seconds", &f) && f) {
		secs = json_object_is_type(f, json_type_int) || json_object_is_type(f, json_type_double)
			       ? json_object_get_double(f) : -1;
		if (!isfinite(secs) || secs < 0 || secs > ACK_MAX_SECONDS) {
			*err = PROTO_ERR_BAD_ARGUMENT;
			set_errorf(msg, 0, "ack's \"for_seconds\" is a number of seconds from 0 (no expiry) to %.0f",
				   ACK_MAX_SECONDS);
			return -EINVAL;
		}
	}
	uint64_t now = now_usec(CLOCK_REALTIME);
	uint64_t until = secs > 0 ? now + (uint64_t)(secs * 1e6) : 0;
	int r = notifier_ack(ctx->notifier, d, kind, until);
	if (r < 0) {
		*err = PROTO_ERR_INTERNAL;
		set_errorf(msg, 0, "could not acknowledge: %s", strerror(-r));
		return r;
	}
	*ret = ack_json(d->name, kind, disk_class_to_string(disk_class(d)), now, until);
	return 0;
}

int commands_unack(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	int kind;
	Disk *d = disk_and_kind(ctx, args, "unack", &kind, err, msg);
	if (!d)
		return -EINVAL;
	int n = notifier_unack(ctx->notifier, d, kind);
	if (n < 0) {
		*err = PROTO_ERR_INTERNAL;
		set_errorf(msg, 0, "could not withdraw: %s", strerror(-n));
		return n;
	}
	*ret = json_object_new_object();
	json_object_object_add(*ret, "device", json_object_new_string(d->name));
	json_object_object_add(*ret, "kind", json_object_new_string(kind < 0 ? "all" : detect_event_kind_to_string(kind)));
	json_object_object_add(*ret, "withdrawn", json_object_new_int(n));
	return 0;
}

static void add_ack(const IncidentAck *a, void *userdata)
{
	json_object_array_add(userdata, ack_json(a->device, a->kind, a->disk_class, a->time_usec, a->until_usec));
}

int commands_acks(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	(void)args, (void)err, (void)msg;
	json_object *list = json_object_new_array();
	notifier_acks(ctx->notifier, add_ack, list);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "acks", list);
	return 0;
}

static json_object *test_json(const NotifyTest *t)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(t->id));
	json_object_object_add(o, "running", json_object_new_boolean(t->running));
	json_object_object_add(o, "command", json_object_new_string(t->command));
	json_object_object_add(o, "result", json_object_new_string(t->result));
	json_object_object_add(o, "exit_status", t->exit_status >= 0 ? json_object_new_int(t->exit_status) : NULL);
	json_object_object_add(o, "output", json_object_new_string(t->output));
	json_object_object_add(o, "output_truncated", json_object_new_boolean(t->truncated));
	return o;
}

/* No "id": runs the hook now and answers with its id; with "id": how it is
 * doing (running, or its result and output). */
int commands_notify_test(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	json_object *id;
	if (args && json_object_object_get_ex(args, "id", &id) && id) {
		const NotifyTest *t = ctx->notifier ? notifier_test(ctx->notifier) : NULL;
		if (!t || !json_object_is_type(id, json_type_int) || json_object_get_int64(id) != (int64_t)t->id || !t->id) {
			*err = PROTO_ERR_BAD_ARGUMENT;
			set_errorf(msg, 0, "no test notification with that id (only the last one is kept)");
			return -ENOENT;
		}
		*ret = test_json(t);
		return 0;
	}
	unsigned n;
	int r = notifier_test_start(ctx->notifier, &n);
	if (r == -ENOENT) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		set_errorf(msg, 0, "no notification is configured: set notify-command in smrd.conf (with notify-mailto "
			   "or notify-webhook-url for the shipped hooks, docs/notify.md), then smrctl reload");
		return r;
	}
	if (r == -EBUSY) {
		*err = PROTO_ERR_INTERNAL;
		set_errorf(msg, 0, "a test notification is running already");
		return r;
	}
	if (r < 0) {
		*err = PROTO_ERR_INTERNAL;
		set_errorf(msg, 0, "notify-command %s could not run: %s", ctx->config.notify_command, strerror(-r));
		return r;
	}
	*ret = test_json(notifier_test(ctx->notifier));
	return 0;
}
