/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "procstat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool present(const ProcStatSteal *s, unsigned cpu) { return s->present[cpu / 64] >> (cpu % 64) & 1; }

/* "cpuN user nice system idle iowait irq softirq steal ..." up to the line's end */
static int parse_cpu_line(const char *p, const char *end, unsigned *cpu, uint64_t *steal)
{
	char *e;
	if (p >= end || *p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	unsigned long n = strtoul(p, &e, 10);
	if (errno || e > end || n >= PROCSTAT_CPUS_MAX || (*e != ' ' && *e != '\t'))
		return -EINVAL;
	p = e;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			return -ENODATA;	/* before 2.6.11: no steal figure */
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &e, 10);
		if (errno || e > end)
			return -EINVAL;
		p = e;
	}
	*cpu = (unsigned)n;
	*steal = v;
	return 0;
}

int procstat_steal_parse(const char *text, ProcStatSteal *ret, unsigned *bad)
{
	memset(ret, 0, sizeof *ret);
	unsigned nbad = 0;
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		/* "cpu " is the sum of them all: the most-robbed CPU is what stalls */
		if (end - p > 3 && strncmp(p, "cpu", 3) == 0 && p[3] != ' ') {
			unsigned cpu;
			uint64_t steal;
			int r = parse_cpu_line(p + 3, end, &cpu, &steal);
			if (r == 0 && !present(ret, cpu)) {
				ret->ticks[cpu] = steal;
				ret->present[cpu / 64] |= UINT64_C(1) << (cpu % 64);
				ret->n++;
			} else if (r != -ENODATA) {
				nbad++;
			}
		}
		p = *end ? end + 1 : end;
	}
	if (bad)
		*bad = nbad;
	return ret->n ? 0 : -ENODATA;
}

void host_steal_init(HostSteal *h, double hz)
{
	memset(h, 0, sizeof *h);
	h->hz = hz > 0 ? hz : 100;
}

double host_steal_update(HostSteal *h, const ProcStatSteal *now)
{
	double most = 0;
	if (h->primed)
		for (unsigned cpu = 0; cpu < PROCSTAT_CPUS_MAX; cpu++) {
			if (!present(now, cpu) || !present(&h->prev, cpu) || now->ticks[cpu] < h->prev.ticks[cpu])
				continue;
			double s = (double)(now->ticks[cpu] - h->prev.ticks[cpu]) / h->hz;
			h->total += s;
			if (s > most)
				most = s;
		}
	h->prev = *now;
	h->primed = true;
	h->last_max = most;
	return most;
}
