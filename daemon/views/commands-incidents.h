/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents over the control socket (core/incidents.h): each as JSON, the
 * `incidents` command, and the incidents `events` shows first.
 */
#pragma once

#include <json-c/json.h>

#include "context.h"
#include "history.h"
#include "incidents.h"
#include "protocol.h"

/* One incident as the protocol gives it (docs/protocol.md). */
json_object *incident_json(const Incident *i);
/* The incidents of f (history.h) as a JSON array; NULL when the history
 * could not be read. */
json_object *commands_incident_list(Context *ctx, const HistoryIncidentFilter *f);
/* {"device", "since", "kind", "open", "limit"}: the incidents, newest last. */
int commands_incidents(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg);
