/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents over the control socket (commands-incidents.h): formatted from
 * the history's records, nothing worked out here.
 */
#include "commands-incidents.h"

#include <math.h>

#include "commands.h"
#include "format.h"
#include "recorder.h"
#include "util.h"

static json_object *jdouble(double v) { return json_number(v, 6); }

json_object *incident_json(const Incident *i)
{
	json_object *o = json_object_new_object(), *hist = json_object_new_array(), *steps = json_object_new_array();
	char line[1024];
	json_object_object_add(o, "id", json_object_new_string(i->id));
	json_object_object_add(o, "kind", json_object_new_string(incident_kind_to_string(i->kind)));
	json_object_object_add(o, "device", json_object_new_string(i->device));
	json_object_object_add(o, "disk_id", json_object_new_string(i->disk_id));
	json_object_object_add(o, "start", jdouble((double)i->start_usec / 1e6));
	json_object_object_add(o, "end", i->end_usec ? jdouble((double)i->end_usec / 1e6) : NULL);
	json_object_object_add(o, "last", jdouble((double)i->last_usec / 1e6));
	json_object_object_add(o, "severity", json_object_new_string(incident_severity(i)));
	json_object_object_add(o, "title", json_object_new_string(i->title));
	json_object_object_add(o, "summary", json_object_new_string(incident_summary(i, line, sizeof line)));
	json_object_object_add(o, "events", json_object_new_int64((int64_t)i->events));
	json_object_object_add(o, "counted", json_object_new_int64((int64_t)i->folded));
	json_object_object_add(o, "slow_ios", json_object_new_int64((int64_t)i->slow_ios));
	json_object_object_add(o, "slow_worst_seconds", i->slow_worst > 0 ? jdouble(i->slow_worst) : NULL);
	json_object_object_add(o, "slow_most_per_minute", json_object_new_int64(i->slow_peak));
	for (unsigned b = 0; i->slow_ios && b < INCIDENT_HIST_BUCKETS; b++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "latency", json_object_new_string(incident_hist_label(b)));
		json_object_object_add(x, "count", json_object_new_int64(i->slow_hist[b]));
		json_object_array_add(hist, x);
	}
	json_object_object_add(o, "slow_histogram", hist);
	json_object_object_add(o, "zfs_delays", json_object_new_int64((int64_t)i->zfs_delays));
	json_object_object_add(o, "zfs_worst_seconds", i->zfs_delays ? jdouble(i->zfs_worst) : NULL);
	json_object_object_add(o, "storms", json_object_new_int64(i->storms));
	json_object_object_add(o, "expected_seconds", isfinite(i->expected) ? jdouble(i->expected) : NULL);
	json_object_object_add(o, "duration_seconds", isfinite(i->duration) ? jdouble(i->duration) : NULL);
	json_object_object_add(o, "outcome", json_object_new_string(i->outcome));
	for (unsigned k = 0; k < i->n_steps; k++) {
		json_object *s = json_object_new_object();
		json_object_object_add(s, "time", jdouble((double)i->steps[k].time_usec / 1e6));
		json_object_object_add(s, "kind", json_object_new_string(detect_event_kind_to_string(i->steps[k].kind)));
		json_object_object_add(s, "message", json_object_new_string(i->steps[k].message));
		json_object_array_add(steps, s);
	}
	json_object_object_add(o, "steps", steps);
	return o;
}

typedef struct List {
	json_object *a;
	const IncidentLog *live;
} List;

/* an open one as it is now: its counts reach the history once a sample */
static int add_incident(const Incident *i, void *userdata)
{
	List *l = userdata;
	const Incident *now = i->end_usec ? NULL : incidentlog_find(l->live, i->id);
	json_object_array_add(l->a, incident_json(now ? now : i));
	return 0;
}

json_object *commands_incident_list(Context *ctx, const HistoryIncidentFilter *f)
{
	json_object *a = json_object_new_array();
	List l = {.a = a, .live = recorder_incidents(ctx->recorder)};
	if (history_query_incidents(ctx->history, f, add_incident, &l) < 0) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

int commands_incidents(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	HistoryIncidentFilter f = {.limit = 100};
	json_object *x;
	if (commands_list_args(args, &f.device, &f.since_usec, &f.limit) < 0)
		goto bad;
	if (args && json_object_object_get_ex(args, "kind", &x)) {
		if (!json_object_is_type(x, json_type_string) || incident_kind_from_string(json_object_get_string(x)) < 0)
			goto bad;
		f.kind = json_object_get_string(x);
	}
	if (args && json_object_object_get_ex(args, "open", &x)) {
		if (!json_object_is_type(x, json_type_boolean))
			goto bad;
		f.open_only = json_object_get_boolean(x);
	}
	json_object *a = commands_incident_list(ctx, &f);
	if (!a) {
		*err = PROTO_ERR_INTERNAL;
		*msg = strdup("the history's incidents could not be read (see smrd's log)");
		return -EIO;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "incidents", a);
	*ret = o;
	return 0;
bad:
	*err = PROTO_ERR_BAD_ARGUMENT;
	*msg = strdup("incidents takes \"device\" (string), \"kind\" (stalls, storm or rebuild), \"since\" (seconds "
		      "since the epoch), \"open\" (boolean), \"limit\" (1 to 10000)");
	return -EINVAL;
}
