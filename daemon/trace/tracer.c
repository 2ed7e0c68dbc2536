/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The backends (trace.h) know device numbers; the tracer maps them to the
 * registry's disks with a sorted table built per batch, keeps the last
 * slow I/Os in a ring for `smrctl show`, and hands each one to its
 * callback (the detector) the moment the kernel delivers it.
 */
#include "tracer.h"

#include <assert.h>
#include <math.h>

#include "log.h"

struct Tracer {
	sd_event *event;
	DiskRegistry *disks;
	TracerCallbacks cb;
	const TraceBackendOps *ops;
	TraceBackend *b;
	const char *name;
	char *refused;
	sd_event_source *io[256];
	unsigned n_io;
	uint32_t *devs;			/* traced now */
	unsigned ndevs;
	SlowRecord slow[SLOW_QUEUE_LEN];
	unsigned slow_head, slow_len;
	uint64_t slow_total;
	double keep;			/* seconds: slower ones are kept and counted */
	uint64_t round;
	uint64_t last_collect_usec;	/* the first interval counts from the start */
};

typedef struct DevDisk {
	uint32_t dev;
	Disk *disk;
} DevDisk;

typedef struct CollectRun {
	Tracer *t;
	DevDisk *map;
	size_t n;
	double dt;
	uint64_t now_mono_usec, now_real_usec;
} CollectRun;

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata);

static void add_refusal(Tracer *t, const char *backend, const char *why)
{
	_cleanup_free_ char *old = t->refused;
	if (asprintf(&t->refused, "%s%s%s: %s", old ? old : "", old ? "; " : "", backend, why ? why : "failed") < 0)
		t->refused = TAKE_PTR(old);
}

static void open_backend(Tracer *t, const TraceBackendOps *const *backends, const char *want, bool live,
			 uint64_t slow_ns)
{
	if (!live) {
		add_refusal(t, "all", "the sysfs root is not the live /sys, so its devices are not this kernel's");
		return;
	}
	if (streq(want, "none")) {
		add_refusal(t, "all", "trace-backend = none");
		return;
	}
	for (size_t i = 0; backends && backends[i]; i++) {
		if (!streq(want, "auto") && !streq(want, backends[i]->name))
			continue;
		_cleanup_free_ char *why = NULL;
		int r = backends[i]->open(&t->b, slow_ns, &why);
		if (r >= 0) {
			t->ops = backends[i];
			return;
		}
		add_refusal(t, backends[i]->name, why);
	}
}

int tracer_new(sd_event *e, const TraceBackendOps *const *backends, const char *want, bool live, double slow_seconds,
	       DiskRegistry *disks, const TracerCallbacks *cb, Tracer **ret)
{
	Tracer *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->event = sd_event_ref(e);
	t->disks = disks;
	t->last_collect_usec = now_usec(CLOCK_MONOTONIC);
	t->cb = cb ? *cb : (TracerCallbacks){0};
	t->keep = slow_seconds;
	open_backend(t, backends, want, live, (uint64_t)(slow_seconds * 1e9));
	t->name = t->ops ? t->ops->name : "none";
	if (t->ops && t->refused)
		log_info("per-I/O latency from the %s tracer (not used: %s)", t->name, t->refused);
	else if (t->ops)
		log_info("per-I/O latency from the %s tracer", t->name);
	else
		log_warning("no per-I/O tracing, latency from diskstats averages only: %s", t->refused ? t->refused : "");
	if (t->ops) {
		int fds[256];
		unsigned n = t->ops->fds(t->b, fds, ELEMENTSOF(fds));
		for (unsigned i = 0; i < n; i++)
			if (sd_event_add_io(e, &t->io[t->n_io], fds[i], EPOLLIN, on_io, t) >= 0)
				t->n_io++;
	}
	*ret = t;
	tracer_sync(t);
	return 0;
}

Tracer *tracer_free(Tracer *t)
{
	if (!t)
		return NULL;
	for (unsigned i = 0; i < t->n_io; i++)
		sd_event_source_disable_unref(t->io[i]);
	if (t->ops)
		t->ops->close(t->b);
	free(t->devs);
	free(t->refused);
	sd_event_unref(t->event);
	free(t);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void tracer_sync(Tracer *t)
{
	if (!t || !t->ops)
		return;
	size_t n = registry_size(t->disks);
	uint32_t *want = calloc(n ? n : 1, sizeof *want);
	if (!want)
		return;
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(t->disks, i);
		want[i] = trace_dev(d->sys.major, d->sys.minor);
	}
	qsort(want, n, sizeof *want, cmp_u32);
	bool changed = false;
	for (unsigned i = 0; i < t->ndevs; i++)
		if (!bsearch(&t->devs[i], want, n, sizeof *want, cmp_u32)) {
			t->ops->watch(t->b, t->devs[i], false);
			changed = true;
		}
	for (size_t i = 0; i < n; i++)
		if (!t->devs || !bsearch(&want[i], t->devs, t->ndevs, sizeof *want, cmp_u32)) {
			int r = t->ops->watch(t->b, want[i], true);
			if (r < 0)
				log_warning_errno(r, "Cannot trace device %u:%u: %m", want[i] >> 20, want[i] & 0xfffff);
			changed = true;
		}
	if (changed)
		t->ops->commit(t->b);
	free(t->devs);
	t->devs = want;
	t->ndevs = (unsigned)n;
}

static int cmp_devdisk(const void *a, const void *b)
{
	return cmp_u32(&((const DevDisk *)a)->dev, &((const DevDisk *)b)->dev);
}

static Disk *disk_of(CollectRun *run, uint32_t dev)
{
	DevDisk key = {.dev = dev}, *m = bsearch(&key, run->map, run->n, sizeof key, cmp_devdisk);
	return m ? m->disk : NULL;
}

static void on_hist(uint32_t dev, int op, const Hist *delta, void *userdata)
{
	CollectRun *run = userdata;
	Disk *d = disk_of(run, dev);
	if (!d || disk_latency_push(&d->lat, op, delta, run->dt) < 0)
		return;
	if (d->lat && d->lat->op[op])
		d->lat->op[op]->round = run->t->round;
}

static void on_slow(const struct trace_slow *s, void *userdata)
{
	CollectRun *run = userdata;
	Tracer *t = run->t;
	Disk *d = disk_of(run, s->dev);
	if (!d || s->op >= TRACE_OPS)
		return;
	uint64_t done_us = s->done_ns / 1000;
	if ((double)s->lat_ns / 1e9 < t->keep) {
		/* the detector's, not the record's: a write that waited a little */
		SlowRecord quick = {.op = (int)s->op, .sector = s->sector, .bytes = s->bytes, .error = (int)s->error,
				    .latency = (double)s->lat_ns / 1e9, .still = (double)s->still_ns / 1e9,
				    .done_mono_usec = done_us};
		if (t->cb.slow_io)
			t->cb.slow_io(d, &quick, t->cb.userdata);
		return;
	}
	SlowRecord *r = &t->slow[(t->slow_head + t->slow_len) % SLOW_QUEUE_LEN];
	if (t->slow_len == SLOW_QUEUE_LEN) {
		r = &t->slow[t->slow_head];
		t->slow_head = (t->slow_head + 1) % SLOW_QUEUE_LEN;	/* the oldest goes: recent history */
	} else {
		t->slow_len++;
	}
	*r = (SlowRecord){.op = (int)s->op, .sector = s->sector, .bytes = s->bytes, .error = (int)s->error,
			  .latency = (double)s->lat_ns / 1e9, .still = (double)s->still_ns / 1e9, .done_mono_usec = done_us,
			  .done_realtime_usec = run->now_real_usec - (run->now_mono_usec > done_us ? run->now_mono_usec - done_us : 0)};
	snprintf(r->device, sizeof r->device, "%s", d->name);
	t->slow_total++;
	OpLatency *o = disk_latency_op(&d->lat, (int)s->op);
	if (o) {
		o->slow++;
		if (r->latency > o->slow_max)
			o->slow_max = r->latency;
	}
	if (t->cb.slow_io)
		t->cb.slow_io(d, r, t->cb.userdata);
}

static int build_run(Tracer *t, uint64_t now_mono, uint64_t now_real, CollectRun *run)
{
	*run = (CollectRun){.t = t, .now_mono_usec = now_mono, .now_real_usec = now_real};
	run->n = registry_size(t->disks);
	run->map = calloc(run->n ? run->n : 1, sizeof *run->map);
	if (!run->map)
		return -ENOMEM;
	for (size_t i = 0; i < run->n; i++) {
		Disk *d = registry_at(t->disks, i);
		run->map[i] = (DevDisk){trace_dev(d->sys.major, d->sys.minor), d};
	}
	qsort(run->map, run->n, sizeof *run->map, cmp_devdisk);
	return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Tracer *t = userdata;
	CollectRun run;
	(void)s, (void)fd, (void)revents;
	/* A batch is waiting: drain it now so that no ring overflows. Slow
	 * I/Os are taken now; histograms are handed over at the interval. */
	if (build_run(t, now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME), &run) < 0)
		return 0;
	t->ops->poll(t->b, NULL, on_slow, &run);
	free(run.map);
	return 0;
}

void tracer_collect(Tracer *t, uint64_t now_mono_usec, uint64_t now_real_usec)
{
	CollectRun run;
	assert(t);
	if (!t->ops || build_run(t, now_mono_usec, now_real_usec, &run) < 0)
		return;
	run.dt = now_mono_usec > t->last_collect_usec ? (double)(now_mono_usec - t->last_collect_usec) / 1e6 : 1e-3;
	t->last_collect_usec = now_mono_usec;
	t->round++;
	t->ops->poll(t->b, on_hist, on_slow, &run);
	/* Ops that were quiet this interval still move their windows on. */
	static const Hist zero;
	for (size_t i = 0; i < run.n; i++) {
		Disk *d = run.map[i].disk;
		for (int op = 0; d->lat && op < TRACE_OPS; op++)
			if (d->lat->op[op] && d->lat->op[op]->round != t->round)
				disk_latency_push(&d->lat, op, &zero, run.dt);
	}
	free(run.map);
}

void tracer_set_slow(Tracer *t, double deliver, double keep)
{
	assert(t);
	t->keep = fmax(keep, deliver);
	if (t->ops)
		t->ops->set_slow(t->b, (uint64_t)(deliver * 1e9));
}

const char *tracer_backend(const Tracer *t)
{
	assert(t);
	return t->name;
}

const char *tracer_refused(const Tracer *t)
{
	assert(t);
	return t->refused ? t->refused : "";
}

void tracer_counters(const Tracer *t, TraceCounters *ret)
{
	assert(t);
	*ret = (TraceCounters){0};
	if (t->ops)
		t->ops->counters(t->b, ret);
}

uint64_t tracer_slow_total(const Tracer *t)
{
	assert(t);
	return t->slow_total;
}

const SlowRecord *tracer_slow_at(const Tracer *t, unsigned i)
{
	if (!t || i >= t->slow_len)
		return NULL;
	return &t->slow[(t->slow_head + t->slow_len - 1 - i) % SLOW_QUEUE_LEN];
}
