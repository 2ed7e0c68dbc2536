/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket: accepts smrctl connections on a UNIX stream socket,
 * frames requests by newline, bounds every buffer and every wait, and hands
 * each decoded request to a handler. One bad client, or many, never keeps
 * another out.
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

#define CONTROL_MAX_CLIENTS 64		/* in all */
#define CONTROL_MAX_PER_UID 16		/* of one peer uid */
#define CONTROL_REQUEST_USEC (10 * UINT64_C(1000000))	/* for a whole request */
#define CONTROL_OUTPUT_USEC (10 * UINT64_C(1000000))	/* for a whole reply to be read */
#define CONTROL_STALLED_USEC (1 * UINT64_C(1000000))	/* a reply unread this long may give way */
#define CONTROL_GRACE_USEC (500 * UINT64_C(1000))	/* a new connection's time to send before it may */
#define CONTROL_MAX_OUTPUT (32u << 20)	/* bytes of replies held for all clients */

typedef struct ControlStats {
	uint64_t accepted, requests;
	uint64_t evicted;		/* made room for a newer connection */
	uint64_t refused;		/* no room at all: "busy" */
	uint64_t expired;		/* missed a deadline */
	uint64_t refused_output;	/* a reply too large to hold */
	unsigned connections;
	size_t output_bytes;
} ControlStats;

/* Binds path (or uses fd if fd >= 0, e.g. from socket activation) and
 * serves it on the loop. A socket it binds is mode 0660, and group `group`
 * when that group exists (NULL or "": the process's group); -EADDRINUSE
 * when a live socket is at path (another smrd answers there). */
int control_new(sd_event *e, const char *path, int fd, const char *group, ControlHandler handler,
		void *userdata, Control **ret);
Control *control_free(Control *c);
/* Counters for the metrics page. */
void control_stats(const Control *c, ControlStats *ret);
/* The time a request has to arrive whole (CONTROL_REQUEST_USEC by default),
 * for connections armed from now on: a unit test waits it out in less. */
void control_set_request_deadline(Control *c, uint64_t usec);
