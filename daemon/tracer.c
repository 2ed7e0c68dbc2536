/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tracer.h"

#include <time.h>

#include "log.h"
#include "monitor.h"

struct Tracer {
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
	uint64_t round;
	uint64_t last_collect_usec;
};

typedef struct DevDisk {
	uint32_t dev;
	Disk *disk;
} DevDisk;

typedef struct CollectRun {
	Context *ctx;
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

int tracer_start(Context *ctx)
{
	Tracer *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	ctx->tracer = t;
	const char *want = ctx->config.trace_backend;
	const TraceBackendOps *cands[] = {&trace_bpf_ops, &trace_perf_ops};
	uint64_t slow_ns = (uint64_t)(context_slow_threshold(ctx) * 1e9);

	if (!ctx->real_sysfs) {
		add_refusal(t, "all", "the sysfs root is not the live /sys, so its devices are not this kernel's");
	} else if (!streq(want, "none")) {
		for (size_t i = 0; i < ELEMENTSOF(cands); i++) {
			if (!streq(want, "auto") && !streq(want, cands[i]->name))
				continue;
			_cleanup_free_ char *why = NULL;
			int r = cands[i]->open(&t->b, slow_ns, &why);
			if (r >= 0) {
				t->ops = cands[i];
				break;
			}
			add_refusal(t, cands[i]->name, why);
		}
	} else {
		add_refusal(t, "all", "trace-backend = none");
	}
	t->name = t->ops ? t->ops->name : "none";
	if (t->ops && t->refused)
		log_info("per-I/O latency from the %s tracer (not used: %s)", t->name, t->refused);
	else if (t->ops)
		log_info("per-I/O latency from the %s tracer", t->name);
	else
		log_warning("no per-I/O tracing, latency from diskstats averages only: %s", t->refused ? t->refused : "");
	if (!t->ops)
		return 0;
	int fds[256];
	unsigned n = t->ops->fds(t->b, fds, ELEMENTSOF(fds));
	for (unsigned i = 0; i < n; i++)
		if (sd_event_add_io(ctx->event, &t->io[t->n_io], fds[i], EPOLLIN, on_io, ctx) >= 0)
			t->n_io++;
	tracer_sync(ctx);
	return 0;
}

void tracer_stop(Context *ctx)
{
	Tracer *t = ctx->tracer;
	if (!t)
		return;
	for (unsigned i = 0; i < t->n_io; i++)
		sd_event_source_disable_unref(t->io[i]);
	if (t->ops)
		t->ops->close(t->b);
	free(t->devs);
	free(t->refused);
	free(t);
	ctx->tracer = NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void tracer_sync(Context *ctx)
{
	Tracer *t = ctx->tracer;
	if (!t || !t->ops)
		return;
	size_t n = registry_size(ctx->disks);
	uint32_t *want = calloc(n ? n : 1, sizeof *want);
	if (!want)
		return;
	for (size_t i = 0; i < n; i++) {
		const Disk *d = registry_at(ctx->disks, i);
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
		d->lat->op[op]->round = run->ctx->tracer->round;
}

static void on_slow(const struct trace_slow *s, void *userdata)
{
	CollectRun *run = userdata;
	Tracer *t = run->ctx->tracer;
	Disk *d = disk_of(run, s->dev);
	if (!d || s->op >= TRACE_OPS)
		return;
	uint64_t done_us = s->done_ns / 1000;
	SlowRecord *r = &t->slow[(t->slow_head + t->slow_len) % SLOW_QUEUE_LEN];
	if (t->slow_len == SLOW_QUEUE_LEN) {
		r = &t->slow[t->slow_head];
		t->slow_head = (t->slow_head + 1) % SLOW_QUEUE_LEN;	/* the oldest goes: recent history */
	} else {
		t->slow_len++;
	}
	*r = (SlowRecord){.op = (int)s->op, .sector = s->sector, .bytes = s->bytes, .error = (int)s->error,
			  .latency = (double)s->lat_ns / 1e9, .done_mono_usec = done_us,
			  .done_realtime_usec = run->now_real_usec - (run->now_mono_usec > done_us ? run->now_mono_usec - done_us : 0)};
	snprintf(r->device, sizeof r->device, "%s", d->name);
	t->slow_total++;
	OpLatency *o = disk_latency_op(&d->lat, (int)s->op);
	if (o) {
		o->slow++;
		if (r->latency > o->slow_max)
			o->slow_max = r->latency;
	}
	monitor_slow_io(run->ctx, d, r);
}

static int build_run(Context *ctx, CollectRun *run)
{
	struct timespec m, w;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	*run = (CollectRun){.ctx = ctx, .now_mono_usec = (uint64_t)m.tv_sec * 1000000 + (uint64_t)m.tv_nsec / 1000,
			    .now_real_usec = (uint64_t)w.tv_sec * 1000000 + (uint64_t)w.tv_nsec / 1000};
	run->n = registry_size(ctx->disks);
	run->map = calloc(run->n ? run->n : 1, sizeof *run->map);
	if (!run->map)
		return -ENOMEM;
	for (size_t i = 0; i < run->n; i++) {
		Disk *d = registry_at(ctx->disks, i);
		run->map[i] = (DevDisk){trace_dev(d->sys.major, d->sys.minor), d};
	}
	qsort(run->map, run->n, sizeof *run->map, cmp_devdisk);
	return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Context *ctx = userdata;
	CollectRun run;
	(void)s, (void)fd, (void)revents;
	/* A batch is waiting: drain it now so that no ring overflows. Slow
	 * I/Os are taken now; histograms are handed over at the interval. */
	if (build_run(ctx, &run) < 0)
		return 0;
	ctx->tracer->ops->poll(ctx->tracer->b, NULL, on_slow, &run);
	free(run.map);
	return 0;
}

void tracer_collect(Context *ctx)
{
	Tracer *t = ctx->tracer;
	CollectRun run;
	if (!t || !t->ops || build_run(ctx, &run) < 0)
		return;
	run.dt = t->last_collect_usec ? (double)(run.now_mono_usec - t->last_collect_usec) / 1e6 : ctx->config.interval;
	t->last_collect_usec = run.now_mono_usec;
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

void tracer_set_slow(Context *ctx, double seconds)
{
	Tracer *t = ctx->tracer;
	if (t && t->ops)
		t->ops->set_slow(t->b, (uint64_t)(seconds * 1e9));
}

const char *tracer_backend(const Context *ctx) { return ctx->tracer ? ctx->tracer->name : "none"; }
const char *tracer_refused(const Context *ctx)
{
	return ctx->tracer && ctx->tracer->refused ? ctx->tracer->refused : "";
}

void tracer_counters(const Context *ctx, TraceCounters *ret)
{
	*ret = (TraceCounters){0};
	if (ctx->tracer && ctx->tracer->ops)
		ctx->tracer->ops->counters(ctx->tracer->b, ret);
}

uint64_t tracer_slow_total(const Context *ctx) { return ctx->tracer ? ctx->tracer->slow_total : 0; }

const SlowRecord *tracer_slow_at(const Context *ctx, unsigned i)
{
	const Tracer *t = ctx->tracer;
	if (!t || i >= t->slow_len)
		return NULL;
	return &t->slow[(t->slow_head + t->slow_len - 1 - i) % SLOW_QUEUE_LEN];
}
