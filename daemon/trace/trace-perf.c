/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fallback backend: perf_event_open on the block:block_rq_issue and
 * block:block_rq_complete tracepoints, one ring per CPU (complete redirected
 * into issue's ring), an in-kernel filter on the watched devices, field
 * offsets from the events' format files, pairing by (device, sector, op).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "log.h"
#include "pairing.h"
#include "tpformat.h"
#include "trace.h"
#include "util.h"

#define RING_PAGES 64			/* 256 KiB a CPU, plus the header page */
#define PAIR_CAPACITY 65536
#define PAIR_MAX_AGE_NS (15 * 60 * UINT64_C(1000000000))	/* longer than any sane I/O timeout */
#define PERF_MAX_DEVS 256		/* beyond this, filter in user space */

typedef struct Ring {
	int fd_issue, fd_complete;
	struct perf_event_mmap_page *meta;
	size_t len;
} Ring;

typedef struct DevHist {
	uint32_t dev;
	Hist h[TRACE_OPS];
	bool dirty;
	struct trace_still still;	/* as the kernel half keeps it */
} DevHist;

typedef struct Event {
	uint64_t ts;
	uint64_t sector;
	uint32_t dev, bytes;
	int8_t op;
	bool complete;
} Event;

struct TraceBackend {
	BlockRqLayout issue, complete;
	Ring *rings;
	unsigned nrings;
	Pairing pair;
	DevHist *devs;
	unsigned ndevs, cap_devs;
	bool filter_dirty;
	uint64_t slow_ns;
	Event *ev;
	size_t nev, cap_ev;
	TraceCounters c;
	TraceSlowFn slow_fn;
	void *slow_ud;
	/* the completing device's still state before the completion being
	 * paired: every completion counts, paired or not, as in the kernel half */
	struct trace_still still_before;
	bool still_known;
};

static const char *tracefs_dir(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/events/block", dirs[i]);
		if (access(p, R_OK) == 0)
			return dirs[i];
	}
	/* Not mounted by default on every system: mount it where it belongs. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    access("/sys/kernel/tracing/events/block", R_OK) == 0)
		return "/sys/kernel/tracing";
	return NULL;
}

static int read_layout(const char *dir, const char *event, BlockRqLayout *l, char **why)
{
	char path[256];
	_cleanup_free_ char *text = NULL;
	TpFormat f;
	snprintf(path, sizeof path, "%s/events/block/%s/format", dir, event);
	int r = read_file_at(AT_FDCWD, path, 64 * 1024, &text, NULL);
	if (r < 0) {
		if (asprintf(why, "cannot read %s: %s", path, strerror(-r)) < 0)
			*why = NULL;
		return r;
	}
	r = tpformat_parse(text, &f);
	if (r >= 0)
		r = block_rq_layout(&f, l);
	if (r < 0 && asprintf(why, "%s has a format smrd does not understand", path) < 0)
		*why = NULL;
	return r;
}

static void perf_close(TraceBackend *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < b->nrings; i++) {
		Ring *g = &b->rings[i];
		if (g->meta)
			munmap(g->meta, g->len);
		if (g->fd_complete >= 0)
			close(g->fd_complete);
		if (g->fd_issue >= 0)
			close(g->fd_issue);
	}
	free(b->rings);
	pairing_free(&b->pair);
	free(b->devs);
	free(b->ev);
	free(b);
}

static int open_event(unsigned id, int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof a, .config = id,
		.sample_period = 1, .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
		.disabled = 1, .watermark = 1, .wakeup_watermark = RING_PAGES * 4096 / 2,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int perf_open(TraceBackend **ret, uint64_t slow_ns, char **why)
{
	const char *dir = tracefs_dir();
	if (!dir) {
		if (asprintf(why, "tracefs is not available (tried /sys/kernel/tracing, /sys/kernel/debug/tracing)") < 0)
			*why = NULL;
		return -ENOENT;
	}
	TraceBackend *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	b->slow_ns = slow_ns;
	int r = read_layout(dir, "block_rq_issue", &b->issue, why);
	if (r >= 0)
		r = read_layout(dir, "block_rq_complete", &b->complete, why);
	if (r >= 0)
		r = pairing_init(&b->pair, PAIR_CAPACITY, PAIR_MAX_AGE_NS);
	if (r < 0) {
		perf_close(b);
		return r;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	b->rings = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof *b->rings);
	if (!b->rings) {
		perf_close(b);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		Ring *g = &b->rings[b->nrings];
		g->fd_issue = open_event(b->issue.id, cpu);
		g->fd_complete = -1;
		if (g->fd_issue < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* an offline CPU */
			r = -errno;
			if (asprintf(why, "perf_event_open(block:block_rq_issue): %s%s", strerror(errno),
				     errno == EACCES || errno == EPERM ? " (needs CAP_PERFMON)" : "") < 0)
				*why = NULL;
			perf_close(b);
			return r;
		}
		b->nrings++;
		g->fd_complete = open_event(b->complete.id, cpu);
		g->len = (RING_PAGES + 1) * 4096;
		g->meta = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd_issue, 0);
		if (g->meta == MAP_FAILED)
			g->meta = NULL;
		if (g->fd_complete < 0 || !g->meta ||
		    ioctl(g->fd_complete, PERF_EVENT_IOC_SET_OUTPUT, g->fd_issue) < 0) {
			r = -errno;
			if (asprintf(why, "cannot set up the perf ring of CPU %d: %s", cpu, strerror(errno)) < 0)
				*why = NULL;
			perf_close(b);
			return r ? r : -EIO;
		}
	}
	b->filter_dirty = true;
	*ret = b;
	return 0;
}

static int cmp_devhist(const void *x, const void *y)
{
	uint32_t a = ((const DevHist *)x)->dev, c = ((const DevHist *)y)->dev;
	return a < c ? -1 : a > c;
}

/* Called for every event: the table is kept sorted (by perf_commit). */
static DevHist *find_dev(TraceBackend *b, uint32_t dev)
{
	DevHist key = {.dev = dev};
	if (!b->filter_dirty)
		return b->ndevs ? bsearch(&key, b->devs, b->ndevs, sizeof key, cmp_devhist) : NULL;
	for (unsigned i = 0; i < b->ndevs; i++)	/* between watch() and commit() */
		if (b->devs[i].dev == dev)
			return &b->devs[i];
	return NULL;
}

static int perf_watch(TraceBackend *b, uint32_t dev, bool on)
{
	DevHist *d = find_dev(b, dev);
	if (on == (d != NULL))
		return 0;
	b->filter_dirty = true;
	if (!on) {
		pairing_forget_dev(&b->pair, dev);
		*d = b->devs[--b->ndevs];
		return 0;
	}
	if (b->ndevs == b->cap_devs) {
		unsigned n = b->cap_devs ? 2 * b->cap_devs : 16;
		DevHist *x = realloc(b->devs, n * sizeof *x);
		if (!x)
			return -ENOMEM;
		b->devs = x;
		b->cap_devs = n;
	}
	b->devs[b->ndevs++] = (DevHist){.dev = dev};
	return 0;
}

/* "dev == 7340032 || dev == ..." in the kernel's dev_t encoding; over
 * PERF_MAX_DEVS devices no filter (the kernel caps its length) and user
 * space drops the rest. */
static int perf_commit(TraceBackend *b)
{
	if (!b->filter_dirty)
		return 0;
	if (b->ndevs > 1)
		qsort(b->devs, b->ndevs, sizeof *b->devs, cmp_devhist);
	Buf f = {0};
	for (unsigned i = 0; i < b->ndevs && b->ndevs <= PERF_MAX_DEVS; i++)
		buf_printf(&f, "%sdev == %u", i ? " || " : "", b->devs[i].dev);
	if (f.oom) {
		buf_free(&f);
		return -ENOMEM;
	}
	int r = 0;
	for (unsigned i = 0; i < b->nrings; i++) {
		Ring *g = &b->rings[i];
		int fds[2] = {g->fd_issue, g->fd_complete};
		for (int k = 0; k < 2; k++) {
			if (!b->ndevs) {
				ioctl(fds[k], PERF_EVENT_IOC_DISABLE, 0);	/* nothing to watch: cost nothing */
				continue;
			}
			if (f.data && ioctl(fds[k], PERF_EVENT_IOC_SET_FILTER, f.data) < 0 && !r)
				r = -errno;
			ioctl(fds[k], PERF_EVENT_IOC_ENABLE, 0);
		}
	}
	buf_free(&f);
	if (r < 0)
		log_warning_errno(r, "perf tracer: the kernel refused the device filter, filtering in smrd instead: %m");
	b->filter_dirty = false;
	return 0;
}

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static void parse_raw(TraceBackend *b, uint64_t ts, const uint8_t *raw, uint32_t size)
{
	if (size < 2)
		return;
	uint16_t type = rd16(raw);
	const BlockRqLayout *l = type == b->issue.id ? &b->issue : type == b->complete.id ? &b->complete : NULL;
	if (!l || size < l->min_size)
		return;
	uint32_t dev = rd32(raw + l->dev);
	if (!find_dev(b, dev))
		return;
	int op = rwbs_op((const char *)raw + l->rwbs, l->rwbs_size);
	if (op < 0)
		return;
	if (b->nev == b->cap_ev) {
		size_t n = b->cap_ev ? 2 * b->cap_ev : 4096;
		Event *x = realloc(b->ev, n * sizeof *x);
		if (!x) {
			b->c.lost_samples++;
			return;
		}
		b->ev = x;
		b->cap_ev = n;
	}
	Event *e = &b->ev[b->nev++];
	*e = (Event){.ts = ts, .sector = rd64(raw + l->sector), .dev = dev, .op = (int8_t)op,
		     .complete = l == &b->complete};
	e->bytes = l->bytes >= 0 ? rd32(raw + l->bytes) : rd32(raw + l->nr_sector) * 512;
}

static void drain_ring(TraceBackend *b, Ring *g)
{
	if (!g->meta)
		return;
	const size_t size = RING_PAGES * 4096;
	const uint8_t *data = (const uint8_t *)g->meta + 4096;
	uint64_t head = __atomic_load_n(&g->meta->data_head, __ATOMIC_ACQUIRE), tail = g->meta->data_tail;
	uint8_t rec[4096 + 64];
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof h; i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof h || h.size > sizeof rec || tail + h.size > head)
			break;
		for (size_t i = 0; i < h.size; i++)	/* a record may wrap around the ring's end */
			rec[i] = data[(tail + i) % size];
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 12) {
			uint64_t ts = rd64(rec + sizeof h);
			uint32_t raw_size = rd32(rec + sizeof h + 8);
			if (sizeof h + 12 + raw_size <= h.size)
				parse_raw(b, ts, rec + sizeof h + 12, raw_size);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
			b->c.lost_samples += rd64(rec + sizeof h + 8);
		}
		tail += h.size;
	}
	__atomic_store_n(&g->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_event(const void *x, const void *y)
{
	const Event *a = x, *c = y;
	if (a->ts != c->ts)
		return a->ts < c->ts ? -1 : 1;
	return (int)a->complete - (int)c->complete;	/* an issue before a completion at the same ns */
}

static void on_pair(uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t lat_ns, uint64_t done_ns,
		    void *userdata)
{
	TraceBackend *b = userdata;
	DevHist *d = find_dev(b, dev);
	if (!d)
		return;
	hist_add(&d->h[op], lat_ns);
	d->dirty = true;
	b->c.completed++;
	if (lat_ns < b->slow_ns)
		return;
	b->c.slow_sent++;
	if (b->slow_fn) {
		/* an orphan paired later by its issue: when the disk last
		 * completed then is not known, and a wait is never made up */
		uint64_t still = b->still_known ? trace_still_of(&b->still_before, done_ns, lat_ns) : 0;
		struct trace_slow s = {.done_ns = done_ns, .lat_ns = lat_ns, .sector = sector, .dev = dev,
				       .bytes = bytes, .op = (uint32_t)op, .still_ns = still};
		b->slow_fn(&s, b->slow_ud);
	}
}

static int perf_poll(TraceBackend *b, TraceHistFn hist, TraceSlowFn slow, void *userdata)
{
	b->nev = 0;
	for (unsigned i = 0; i < b->nrings; i++)
		drain_ring(b, &b->rings[i]);
	/* Rings are per CPU: order the events by time before pairing them. */
	if (b->nev > 1)
		qsort(b->ev, b->nev, sizeof *b->ev, cmp_event);
	b->slow_fn = slow;
	b->slow_ud = userdata;
	for (size_t i = 0; i < b->nev; i++) {
		const Event *e = &b->ev[i];
		if (e->complete) {
			DevHist *d = find_dev(b, e->dev);
			if (d) {
				b->still_before = d->still;
				trace_still_done(&d->still, e->ts, b->slow_ns);
			}
			b->still_known = d != NULL;
			pairing_complete(&b->pair, e->dev, e->op, e->sector, e->ts, on_pair, b);
			b->still_known = false;
		} else {
			pairing_issue(&b->pair, e->dev, e->op, e->sector, e->bytes, e->ts, on_pair, b);
		}
	}
	b->slow_fn = NULL;
	pairing_expire(&b->pair, now_usec(CLOCK_MONOTONIC) * 1000);
	if (b->cap_ev > 65536 && b->nev < b->cap_ev / 8) {	/* give back a burst's memory */
		free(b->ev);
		b->ev = NULL;
		b->cap_ev = 0;
	}
	for (unsigned i = 0; hist && i < b->ndevs; i++) {
		DevHist *d = &b->devs[i];
		if (!d->dirty)
			continue;
		for (int op = 0; op < TRACE_OPS; op++)
			if (d->h[op].count) {
				hist(d->dev, op, &d->h[op], userdata);
				d->h[op] = (Hist){0};
			}
		d->dirty = false;
	}
	return 0;
}

static unsigned perf_fds(TraceBackend *b, int *fds, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < b->nrings && n < max; i++)
		fds[n++] = b->rings[i].fd_issue;
	return n;
}

static void perf_counters(TraceBackend *b, TraceCounters *ret)
{
	*ret = b->c;
	ret->inflight_full = b->pair.st.table_full;
	ret->unmatched = b->pair.st.unmatched;
	ret->expired = b->pair.st.expired;
	ret->reissued = b->pair.st.reissued;
}

static void perf_set_slow(TraceBackend *b, uint64_t slow_ns) { b->slow_ns = slow_ns; }

const TraceBackendOps trace_perf_ops = {
	.name = "perf", .open = perf_open, .watch = perf_watch, .commit = perf_commit, .poll = perf_poll,
	.fds = perf_fds, .counters = perf_counters, .set_slow = perf_set_slow, .close = perf_close,
};
