/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's slow I/Os (pure): writes that waited, kept until the
 * interval that completed them judges them (detect.c's take_waits); the
 * flushes and discards and the hypervisor's stolen time that explain
 * some; and the stall and timeout-risk events. docs/detection.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "detect-internal.h"
#include "format.h"
#include "trace-abi.h"

/* A write that waited collapse-stall or longer, from a slow-I/O record: kept
 * until the interval that completed it. Writes that end together (behind
 * one band rewrite, one flush) share an entry; a full list merges the
 * nearest, widening its span (more likely explained by a flush, never less). */
static void wait_add(DiskDetect *d, double start, double end, bool stall)
{
	if (!d->waits.n)
		d->waits.base = end;
	float s0 = (float)(start - d->waits.base), s1 = (float)(end - d->waits.base);
	unsigned best = 0;
	float gap = INFINITY;
	for (unsigned i = 0; i < d->waits.n; i++) {
		float g = fabsf(d->waits.list[i].end - s1);
		if (g < gap)
			gap = g, best = i;
	}
	if (d->waits.n < DETECT_WAITS && gap > 0.005f) {
		d->waits.list[d->waits.n++] = (DetectWait){s0, s1, s1 - s0, 1, stall};
		return;
	}
	DetectWait *w = &d->waits.list[best];
	w->start = fminf(w->start, s0);
	w->end = fmaxf(w->end, s1);
	w->lat = fmaxf(w->lat, s1 - s0);
	w->n++;
	w->stall |= stall;
}

bool detect_shadowed(const DiskDetect *d, double start, double end)
{
	for (unsigned i = 0; i < DETECT_SHADOWS; i++)
		if (d->waits.shadows[i].end > d->waits.shadows[i].start && start < d->waits.shadows[i].end && end > d->waits.shadows[i].start)
			return true;
	return false;
}

bool detect_host_stalled(const DetectParams *p, const DetectSample *s)
{
	double dt = s->dt > 0 ? s->dt : 1;
	return s->host_steal > 0 && s->host_steal >= p->host_steal * dt;
}

/* What the hypervisor took from the CPUs while something waited from
 * start to end: that much of the wait is the host's, whichever disk. */
double detect_stolen_during(const DiskDetect *d, double start, double end)
{
	double x = 0;
	for (unsigned i = 0; d->waits.steals && i < DETECT_STEALS; i++) {
		const DetectSteal *h = &d->waits.steals[i];
		/* no more of an interval than the wait covered: a freeze that
		 * straddles a sample is all in the wait, whatever its share of
		 * each interval */
		if (h->stolen > 0 && start < h->end && end > h->start)
			x += fmin(h->stolen, fmin(end, h->end) - fmax(start, h->start));
	}
	return x;
}

void detect_steal_add(DiskDetect *d, double start, double end, double stolen)
{
	/* out of memory: the host's time is taken as the disk's */
	if (!d->waits.steals && !(d->waits.steals = calloc(DETECT_STEALS, sizeof *d->waits.steals)))
		return;
	d->waits.steals[d->waits.steal_next] = (DetectSteal){start, end, (float)stolen};
	d->waits.steal_next = (d->waits.steal_next + 1) % DETECT_STEALS;
}

void detect_waits_done(DiskDetect *d)
{
	free(d->waits.steals);
	d->waits.steals = NULL;
	d->waits.steal_next = 0;
}

/* A flush or discard in flight from start to end: what waited with it
 * waited for it. Intervals in which nothing but it was in flight were never
 * slow: nothing of theirs says a write waited. */
void detect_shadow_add(DiskDetect *d, double start, double end)
{
	d->waits.shadows[d->waits.shadow_next] = (DetectShadow){start, end};
	d->waits.shadow_next = (d->waits.shadow_next + 1) % DETECT_SHADOWS;
	DetectInterval *h = detect_ring(d);
	for (unsigned i = 0; i < d->ring.len; i++) {
		DetectInterval *x = &h[(d->ring.head + d->ring.cap - 1 - i) % d->ring.cap];
		if (x->stuck && x->t - x->dt < end && x->t > start)
			x->slow = x->waiting = false, x->part = x->wait = 0;
	}
}

void detect_slow_io(DiskDetect *d, const DetectParams *p, const char *device, double stall_threshold,
		    const DetectSlowIo *io, double io_timeout, DetectEmit emit, void *userdata)
{
	int op = io->op;
	double latency = io->latency, done = io->done;
	uint64_t sector = io->sector;
	uint32_t bytes = io->bytes;
	if (op < 0 || op >= TRACE_OPS)
		return;
	/* What a write waited for is known only with what else was in flight:
	 * the interval that completed it judges it (take_waits). A write the
	 * disk kept completing others around waited in the queue, whatever
	 * its length: a band rewrite stands the disk still (a capped virtual
	 * disk at QD16 makes each write wait 137 ms, completing one every
	 * 8.6 ms; an SSD past its SLC cache, 115 ms every 6 ms). */
	d->waits.stall_threshold = stall_threshold;
	if (op == TRACE_WRITE && latency >= p->collapse_stall && !(io->still < p->collapse_stall))
		wait_add(d, done - latency, done, latency >= stall_threshold);
	else if ((op == TRACE_FLUSH || op == TRACE_DISCARD) && latency >= p->collapse_stall)
		detect_shadow_add(d, done - latency, done);
	int32_t minute = (int32_t)floor(done / 60);	/* a clock in seconds: minutes fit for 4000 years */
	unsigned slot = (unsigned)(((minute % 10) + 10) % 10);
	if (d->stalls.minute_of[slot] != minute) {
		d->stalls.minute_of[slot] = minute;
		d->stalls.minute_max[slot] = 0;
	}
	d->stalls.minute_max[slot] = (float)fmax(d->stalls.minute_max[slot], latency);
	if (latency < stall_threshold)
		return;
	char a[FORMAT_MAX];
	d->stalls.count[op]++;
	detect_stall_minute(d, done);
	d->stalls.max = fmax(d->stalls.max, latency);
	/* A slow flush or discard is a stall of that op, and no sign of a
	 * shingled disk: flushes wait for volatile caches to drain, discards
	 * for thin provisioning (fstrim of 232 GiB took 5 s here). A write
	 * counts once its interval says no flush explains it (take_waits),
	 * and only if the disk stood still while it waited: one that waited
	 * in a queue the disk kept serving is a stall event, not evidence. */
	if (op == TRACE_READ && !detect_shadowed(d, done - latency, done))
		d->ev.stall = fmax(d->ev.stall, done);
	DetectEvent e = {.kind = EVENT_STALL, .op = op, .time = done - latency, .latency = latency, .count = 1,
			 .bytes = bytes, .sector = sector};
	/* a flush has no sector (the kernel's is all ones) and no bytes */
	if (sector == UINT64_MAX)
		snprintf(e.message, sizeof e.message, "%s stalled for %s", detect_op_name(op), format_duration(a, latency));
	else
		snprintf(e.message, sizeof e.message, "%s stalled for %s (sector %" PRIu64 ", %u bytes)",
			 detect_op_name(op), format_duration(a, latency), sector, bytes);
	detect_emit(emit, userdata, &e);

	/* Once per ten minutes: the advice does not change with every stall. */
	if (io_timeout > 0 && latency >= p->timeout_share * io_timeout && done - d->stalls.risk_last >= 600) {
		char b[FORMAT_MAX];
		d->stalls.risk_last = done;
		double advise = fmax(240, ceil(latency * 2 / 10) * 10);	/* twice the worst seen */
		DetectEvent r = e;
		r.kind = EVENT_TIMEOUT_RISK;
		r.value = io_timeout;
		snprintf(r.message, sizeof r.message,
			 "%s took %s, %.0f%% of the kernel's I/O timeout (queue/io_timeout = %s): past it the kernel "
			 "resets the disk and ZFS or md may fault it; to avoid that, echo %.0f > "
			 "/sys/block/%s/queue/io_timeout",
			 detect_op_name(op), format_duration(a, latency), latency / io_timeout * 100, format_duration(b, io_timeout),
			 advise * 1000, device ? device : "DEVICE");
		detect_emit(emit, userdata, &r);
	}
}
