/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "latency.h"

static const char *const op_names[TRACE_OPS] = {"read", "write", "discard", "flush"};

const char *trace_op_to_string(int op) { return op >= 0 && op < TRACE_OPS ? op_names[op] : "other"; }

int trace_op_from_string(const char *s)
{
	for (int i = 0; i < TRACE_OPS; i++)
		if (streq(s, op_names[i]))
			return i;
	return -EINVAL;
}

OpLatency *disk_latency_op(DiskLatency **l, int op)
{
	if (op < 0 || op >= TRACE_OPS)
		return NULL;
	if (!*l && !(*l = calloc(1, sizeof **l)))
		return NULL;
	if (!(*l)->op[op] && ((*l)->op[op] = calloc(1, sizeof *(*l)->op[op])))
		lat_window_init(&(*l)->op[op]->window);
	return (*l)->op[op];
}

int disk_latency_push(DiskLatency **l, int op, const Hist *delta, double dt)
{
	if (op < 0 || op >= TRACE_OPS)
		return -EINVAL;
	if (!delta->count && (!*l || !(*l)->op[op]))
		return 0;	/* an op never used stays unallocated */
	OpLatency *o = disk_latency_op(l, op);
	if (!o)
		return -ENOMEM;
	hist_merge(&o->total, delta);
	return lat_window_push(&o->window, delta, dt);
}

void disk_latency_free(DiskLatency *l)
{
	if (!l)
		return;
	for (int i = 0; i < TRACE_OPS; i++)
		if (l->op[i]) {
			lat_window_free(&l->op[i]->window);
			free(l->op[i]);
		}
	free(l);
}
