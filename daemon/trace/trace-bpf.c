/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The primary backend: bpf/trace.bpf.c on the tp_btf block tracepoints.
 * Histograms live in an mmapped BPF array (no syscall to read them), slow
 * I/Os arrive through a ring buffer with batched wake-ups, and the watched
 * disks are a table in the program's .bss that this side writes through the
 * skeleton's mmap.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>

#include "issuegate.h"
#include "log.h"
#include "trace.h"
#include "trace.skel.h"
#include "util.h"

#define BPF_MAX_DISKS TRACE_MAX_DISKS

struct TraceBackend {
	struct trace *skel;
	struct ring_buffer *rb;
	struct trace_hist *hists;	/* mmapped, BPF_MAX_DISKS * TRACE_OPS */
	size_t hists_len;
	uint32_t slot_dev[BPF_MAX_DISKS];
	IssueGateSlot gate[BPF_MAX_DISKS];	/* which slots are used, and what the kernel side learned */
	bool attach_failed;			/* said once */
	bool said_detached;			/* at info once, then at debug */
	Hist *last;			/* what each slot's histograms held at the last poll */
	TraceSlowFn slow_fn;
	void *slow_ud;
	int ncpus;
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap) _printf_(2, 0);
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's warnings explain a refused load; smrd logs the reason once. */
	if (level == LIBBPF_WARN && log_get_max_level() >= LOG_DEBUG)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static void bpf_close(TraceBackend *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	if (b->hists)
		munmap(b->hists, b->hists_len);
	trace__destroy(b->skel);
	free(b->last);
	free(b);
}

static int on_slow(void *ctx, void *data, size_t len)
{
	TraceBackend *b = ctx;
	if (len >= sizeof(struct trace_slow) && b->slow_fn)
		b->slow_fn(data, b->slow_ud);
	return 0;
}

static int bpf_open(TraceBackend **ret, uint64_t slow_ns, char **why)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
		return set_errorf(why, -errno, "no kernel BTF (/sys/kernel/btf/vmlinux): %s", strerror(errno));
	libbpf_set_print(libbpf_quiet);
	TraceBackend *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	b->ncpus = libbpf_num_possible_cpus();
	b->skel = trace__open();
	if (!b->skel) {
		int r = -errno;
		bpf_close(b);
		return set_errorf(why, r, "cannot open the BPF object: %s", strerror(-r));
	}
	bpf_map__set_max_entries(b->skel->maps.hists, BPF_MAX_DISKS * TRACE_OPS);
	bpf_map__set_map_flags(b->skel->maps.hists, bpf_map__map_flags(b->skel->maps.hists) | BPF_F_MMAPABLE);
	b->skel->data->slow_ns = slow_ns;
	/* tests of the path a queue that keeps no I/O statistics takes */
	const char *e = getenv("SMRD_TRACE_KERNEL_STAMPS");
	b->skel->rodata->use_kernel_stamps = !(e && strcmp(e, "0") == 0);
	int r = trace__load(b->skel);
	if (r < 0) {
		r = -errno;
		bpf_close(b);
		return set_errorf(why, r, "%s: %s",
				  r == -EPERM ? "loading the BPF program was refused (needs CAP_BPF and CAP_PERFMON)"
					      : "the kernel refused the BPF program",
				  strerror(-r));
	}
	b->hists_len = (size_t)BPF_MAX_DISKS * TRACE_OPS * sizeof(struct trace_hist);
	b->hists = mmap(NULL, b->hists_len, PROT_READ, MAP_SHARED, bpf_map__fd(b->skel->maps.hists), 0);
	if (b->hists == MAP_FAILED) {
		b->hists = NULL;
		r = -errno;
		bpf_close(b);
		return set_errorf(why, r, "cannot map the histogram array: %s", strerror(-r));
	}
	b->last = calloc((size_t)BPF_MAX_DISKS * TRACE_OPS, sizeof *b->last);
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.slow), on_slow, b, NULL);
	if (!b->last || !b->rb) {
		bpf_close(b);
		return set_errorf(why, -ENOMEM, "cannot set up the ring buffer: %s", strerror(ENOMEM));
	}
	r = trace__attach(b->skel);
	if (r < 0) {
		r = -errno;
		bpf_close(b);
		return set_errorf(why, r, "cannot attach to tp_btf/block_rq_issue, block_rq_complete and block_rq_requeue: %s",
				  strerror(-r));
	}
	*ret = b;
	return 0;
}

/* The kernel side keeps no count: every completion is in exactly one le[]. */
static uint64_t le_total(const struct trace_hist *k)
{
	uint64_t n = 0;
	for (int i = 0; i <= HIST_LE; i++)
		n += __atomic_load_n(&k->le[i], __ATOMIC_RELAXED);
	return n;
}

/* A slot's histogram as the kernel holds it, with its count. */
static Hist read_hist(const struct trace_hist *k)
{
	Hist h = *k;
	h.count = le_total(&h);
	return h;
}

/* Finds DEV's entry in the kernel's table, or (want_free) where it would go. */
static int watch_find(const __u64 *tab, uint32_t dev, bool want_free)
{
	uint32_t home = watch_home(dev);
	int free_at = -1;
	for (uint32_t k = 0; k < WATCH_PROBES; k++) {
		uint32_t i = (home + k) & (WATCH_TAB - 1);
		__u64 e = __atomic_load_n(&tab[i], __ATOMIC_RELAXED);
		if (e && (uint32_t)e && (uint32_t)(e >> 32) == dev)
			return (int)i;
		if ((!e || e == WATCH_TOMB) && free_at < 0)
			free_at = (int)i;
		if (!e)
			break;
	}
	return want_free ? free_at : -1;
}

/* block_rq_issue's program runs only while a watched disk needs it
 * (core/trace/issuegate.h): on a disk the kernel stamps it would only return,
 * and detached it costs every I/O on the host nothing. */
static void issue_gate(TraceBackend *b, uint64_t now)
{
	for (uint32_t s = 0; s < BPF_MAX_DISKS; s++) {
		IssueGateSlot *g = &b->gate[s];
		if (!g->used)
			continue;
		g->stamped = __atomic_load_n(&b->skel->bss->kernel_stamps[s], __ATOMIC_RELAXED) != 0;
		g->unstamped = __atomic_load_n(&b->skel->bss->unstamped[s], __ATOMIC_RELAXED) != 0;
	}
	int need = issue_gate_needed(b->gate, BPF_MAX_DISKS, now);
	struct bpf_link **l = &b->skel->links.rq_issue;
	if (need >= 0 && !*l) {
		*l = bpf_program__attach(b->skel->progs.rq_issue);
		if (!*l) {
			/* the completions of that disk go on being counted as unmatched */
			if (!b->attach_failed)
				log_warning("cannot attach to tp_btf/block_rq_issue (%s): disk %u:%u goes untimed",
					    strerror(errno), b->slot_dev[need] >> 20, b->slot_dev[need] & 0xfffff);
			b->attach_failed = true;
			return;
		}
		b->attach_failed = false;
		if (b->gate[need].unstamped)
			log_info("timing requests from block_rq_issue again: the kernel does not stamp those of disk %u:%u",
				 b->slot_dev[need] >> 20, b->slot_dev[need] & 0xfffff);
	} else if (need < 0 && *l) {
		bpf_link__destroy(*l);
		*l = NULL;
		log_full(b->said_detached ? LOG_DEBUG : LOG_INFO,
			 "block_rq_issue not traced: the kernel stamps the requests of every watched disk, "
			 "block_rq_complete reads the stamp");
		b->said_detached = true;
	}
}

static int bpf_watch(TraceBackend *b, uint32_t dev, bool on)
{
	__u64 *tab = b->skel->bss->watch_tab;
	for (uint32_t s = 0; s < BPF_MAX_DISKS; s++)
		if (b->gate[s].used && b->slot_dev[s] == dev) {
			if (on)
				return 0;
			int i = watch_find(tab, dev, false);
			if (i >= 0)
				__atomic_store_n(&tab[i], WATCH_TOMB, __ATOMIC_RELEASE);
			b->gate[s].used = false;
			return 0;
		}
	if (!on)
		return 0;
	for (uint32_t s = 0; s < BPF_MAX_DISKS; s++)
		if (!b->gate[s].used) {
			int i = watch_find(tab, dev, true);
			if (i < 0)
				return -E2BIG;
			/* A reused slot may still collect completions of the disk that
			 * had it: start from what it holds now, never from zero. */
			for (int op = 0; op < TRACE_OPS; op++)
				b->last[s * TRACE_OPS + op] = read_hist(&b->hists[s * TRACE_OPS + op]);
			/* Whether the kernel stamps requests was learned for the disk that
			 * had the slot: this one learns it afresh, or its first I/Os
			 * would go untimed. */
			__atomic_store_n(&b->skel->bss->kernel_stamps[s], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&b->skel->bss->unstamped[s], 0, __ATOMIC_RELAXED);
			/* One aligned store: the kernel side sees the whole entry or none. */
			__atomic_store_n(&tab[i], (uint64_t)dev << 32 | (s + 1), __ATOMIC_RELEASE);
			b->gate[s].used = true;
			b->slot_dev[s] = dev;
			/* until its first completion says whether the kernel
			 * stamps its requests, time them at issue too */
			b->gate[s].watched_usec = now_usec(CLOCK_MONOTONIC);
			issue_gate(b, b->gate[s].watched_usec);
			return 0;
		}
	return -E2BIG;
}

static int bpf_commit(TraceBackend *b) { (void)b; return 0; }	/* the map is the filter */

static int bpf_poll(TraceBackend *b, TraceHistFn hist, TraceSlowFn slow, void *userdata)
{
	b->slow_fn = slow;
	b->slow_ud = userdata;
	int r = ring_buffer__consume(b->rb);
	b->slow_fn = NULL;
	if (!hist)
		return r < 0 ? r : 0;
	issue_gate(b, now_usec(CLOCK_MONOTONIC));
	for (uint32_t s = 0; s < BPF_MAX_DISKS; s++) {
		if (!b->gate[s].used)
			continue;
		for (int op = 0; op < TRACE_OPS; op++) {
			Hist now = read_hist(&b->hists[s * TRACE_OPS + op]), delta;
			Hist *last = &b->last[s * TRACE_OPS + op];
			if (now.count == last->count)
				continue;
			hist_delta(&delta, &now, last);
			*last = now;
			hist(b->slot_dev[s], op, &delta, userdata);
		}
	}
	return r < 0 ? r : 0;
}

static unsigned bpf_fds(TraceBackend *b, int *fds, unsigned max)
{
	if (!max)
		return 0;
	fds[0] = ring_buffer__epoll_fd(b->rb);
	return 1;
}

static void bpf_counters(TraceBackend *b, TraceCounters *ret)
{
	uint64_t v[TRACE_STATS] = {0};
	_cleanup_free_ uint64_t *percpu = calloc((size_t)b->ncpus, sizeof *percpu);
	*ret = (TraceCounters){0};
	if (!percpu)
		return;
	for (uint32_t k = 0; k < TRACE_STATS; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stats), &k, percpu) == 0)
			for (int c = 0; c < b->ncpus; c++)
				v[k] += percpu[c];
	/* every completion timed is in one histogram, whose counts only grow
	 * (a reused slot keeps what it held) */
	for (size_t i = 0; i < (size_t)BPF_MAX_DISKS * TRACE_OPS; i++)
		ret->completed += le_total(&b->hists[i]);
	ret->inflight_full = v[TRACE_STAT_INFLIGHT_FULL];
	ret->unmatched = v[TRACE_STAT_UNMATCHED];
	ret->slow_sent = v[TRACE_STAT_SLOW_SENT];
	ret->slow_dropped = v[TRACE_STAT_SLOW_DROPPED];
	ret->expired = v[TRACE_STAT_EXPIRED];
	ret->reissued = v[TRACE_STAT_REQUEUED];
}

static void bpf_set_slow(TraceBackend *b, uint64_t slow_ns) { b->skel->data->slow_ns = slow_ns; }

const TraceBackendOps trace_bpf_ops = {
	.name = "bpf", .open = bpf_open, .watch = bpf_watch, .commit = bpf_commit, .poll = bpf_poll,
	.fds = bpf_fds, .counters = bpf_counters, .set_slow = bpf_set_slow, .close = bpf_close,
};
