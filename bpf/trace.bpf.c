// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smrd's kernel half: issue-to-complete latency of every request on the
 * watched disks, from the block_rq_issue/block_rq_complete BTF tracepoints.
 * Histograms stay in maps (user space reads them each interval); only I/Os
 * slower than a threshold leave the kernel, through a ring buffer whose
 * consumer is woken in batches, never once per record.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace-abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space through the mmapped .data, changeable while loaded. */
__u64 slow_ns = 100000000;
__u64 wakeup_bytes = 64 * 1024;

/*
 * The watched disks: dev_t -> slot, an open-addressed table in .bss that
 * user space writes through the skeleton's mmap (common/trace-abi.h). Every
 * I/O on the host asks it first, so it is plain loads: a BPF hash map's
 * lookup is a call and a jhash, most of what an unwatched disk's I/O cost.
 */
__u64 watch_tab[WATCH_TAB];

/*
 * Disks whose requests the kernel stamps itself: where a queue keeps I/O
 * statistics (writeback throttling, on by default for most disks, or
 * io.latency), blk_mq_start_request() sets io_start_time_ns and RQF_STATS
 * right after block_rq_issue, from the same CLOCK_MONOTONIC. Its clock read
 * is then the only one at issue: smrd's own bpf_ktime_get_ns() call was
 * half of what the tracer cost per I/O. Learned from each disk's first
 * completion (0: stamp at issue; else the time smrd started trusting the
 * kernel's), undone by a completion without the stamp.
 */
__u64 kernel_stamps[TRACE_MAX_DISKS];
/* Set at a completion without the kernel's stamp, cleared at the next one
 * with it: user space attaches block_rq_issue's program only while some
 * watched disk needs it (core/trace/issuegate.h); on stamped disks it would only
 * return. Written on the switch alone, never per I/O. */
__u8 unstamped[TRACE_MAX_DISKS];
/* Each disk's last completion and stand-still, for a slow I/O's still_ns:
 * a store per I/O, on a line shared by the disk's CPUs as the histograms'
 * adds are. Two CPUs completing at once may each keep its own: still_ns
 * then reads a gap shorter, never longer. */
struct trace_still still[TRACE_MAX_DISKS];
/* False (set before load): the kernel's stamps are never read, so every
 * disk is timed from block_rq_issue, the path a queue without I/O
 * statistics takes (tests; no kernel here has such a queue). */
const volatile bool use_kernel_stamps = true;
/* Requests the kernel stamped before the switch, or this soon after it
 * (an issue on another CPU may not have seen it yet), may hold an
 * in-flight slot smrd took at issue: freed at their completion. Later
 * ones cannot, and skip the search: judged by the request's own start,
 * so a request in flight for a minute across the switch is still found,
 * and the steady state begins a second after the switch, not a minute. */
#define STAMP_SWITCH_NS (1000000000ULL)

static __always_inline __u32 rqf_stats(void)
{
	/* Before 6.9 the request flags were macros: no name to relocate. */
	if (!bpf_core_enum_value_exists(enum rqf_flags, __RQF_STATS))
		return 0;
	return 1U << bpf_core_enum_value(enum rqf_flags, __RQF_STATS);
}

static __always_inline int watched_slot(__u32 dev)
{
	__u32 home = watch_home(dev);
	for (int k = 0; k < WATCH_PROBES; k++) {
		__u64 e = watch_tab[(home + k) & (WATCH_TAB - 1)];
		if (!e)
			return -1;
		if ((__u32)(e >> 32) == dev && (__u32)e)
			return (int)((__u32)e - 1);
	}
	return -1;
}

/* Shared and mmapped, not per CPU: one copy for 1024 disks whatever the
 * CPU count (per CPU it would be that much per CPU), and the atomic adds
 * cost less than a benchmark's noise (docs/tracing.md). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024 * TRACE_OPS);	/* resized by user space before load */
	__type(key, __u32);
	__type(value, struct trace_hist);
} hists SEC(".maps");

/*
 * In-flight requests in an array indexed by a hash of the request's key,
 * 4 slots probed, claimed with one compare-and-swap. A BPF hash map here
 * (lock, insert and delete per I/O) cost a CPU-bound fio a large share of
 * its IOPS (docs/tracing.md); the array costs nothing measurable.
 */
struct inflight {
	__u64 rq;		/* rq_key(); 0 when free */
	__u64 issue_ns;		/* the rest, complete reads from the request */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

#define INFLIGHT_PROBES 4
/* An entry this old was never completed (a lost event): its slot may be taken. */
#define INFLIGHT_STALE_NS (15 * 60 * 1000000000ULL)

/* A request in flight is known by its device, hardware queue and tag:
 * unique while it is in flight, and plain numbers (the verifier allows no
 * arithmetic on the request's address). Under an I/O scheduler the
 * scheduler's tag, which the request keeps from allocation to its end: the
 * driver tag is given back before block_rq_requeue fires. Tags stay under
 * 0x8000 (BLK_MQ_MAX_DEPTH), so the top bit keeps the two apart. Never 0:
 * dev is not. */
static __always_inline __u64 rq_key(struct request *rq, __u32 dev)
{
	struct blk_mq_hw_ctx *h = rq->mq_hctx;
	__u32 hctx = h ? h->queue_num : 0;
	int sched = rq->internal_tag;
	__u32 tag = sched >= 0 ? ((__u32)sched & 0x7fff) | 0x8000 : (__u32)rq->tag & 0x7fff;
	return (__u64)dev << 32 | (__u64)(hctx & 0xffff) << 16 | tag;
}

static __always_inline __u32 inflight_home(__u64 key)
{
	return (__u32)((key * 0x9e3779b97f4a7c15ULL) >> 40);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} slow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);
	if (v)
		(*v)++;
}

/* REQ_OP_* from the low bits of cmd_flags; other ops (zone management,
 * driver-private) are not counted. */
static __always_inline int op_of(struct request *rq)
{
	__u32 flags = rq->cmd_flags;
	switch (flags & 0xff) {
	case 0: return TRACE_READ;		/* REQ_OP_READ */
	case 1: return TRACE_WRITE;		/* REQ_OP_WRITE */
	case 9: return TRACE_WRITE;		/* REQ_OP_WRITE_ZEROES */
	case 3: return TRACE_DISCARD;		/* REQ_OP_DISCARD */
	case 5: return TRACE_DISCARD;		/* REQ_OP_SECURE_ERASE */
	case 2: return TRACE_FLUSH;		/* REQ_OP_FLUSH */
	default: return -1;
	}
}

/* tp_btf arguments are BTF pointers: fields are read with direct, CO-RE
 * relocated loads. BPF_CORE_READ would make each one a bpf_probe_read_kernel
 * call, ~17 of them per I/O: that was most of the tracer's cost. */
static __always_inline __u32 disk_dev(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;
	if (!disk)
		return 0;
	__u32 major = disk->major, minor = disk->first_minor;
	return major << 20 | minor;
}

/* The watched slot of a request's disk (-1: not watched), and its dev_t.
 * Every I/O on the host comes here first. rq->part's dev_t (a hot line)
 * measured no cheaper within a benchmark's noise, and would need a partition's
 * I/O led back to its disk: the gendisk's is the disk's. */
static __always_inline int rq_slot(struct request *rq, __u32 *devp)
{
	*devp = disk_dev(rq);
	return watched_slot(*devp);
}

/* Frees a slot this CPU owns, stamped with the time: another CPU that sees
 * it claimed again before its new owner writes the issue time must not take
 * it for a stale one. */
static __always_inline void rq_done(struct inflight *f, __u64 key, __u64 now)
{
	f->issue_ns = now;
	__sync_val_compare_and_swap(&f->rq, key, 0);
}

static __always_inline struct inflight *rq_find(__u64 key)
{
	__u32 home = inflight_home(key);
	for (int k = 0; k < INFLIGHT_PROBES; k++) {
		__u32 idx = (home + k) & (TRACE_MAX_INFLIGHT - 1);
		struct inflight *x = bpf_map_lookup_elem(&inflight, &idx);
		if (x && x->rq == key)
			return x;
	}
	return NULL;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(rq_issue, struct request *rq)
{
	__u32 dev;
	int slot = rq_slot(rq, &dev);
	if (slot < 0 || op_of(rq) < 0)
		return 0;
	if (kernel_stamps[slot & (TRACE_MAX_DISKS - 1)])
		return 0;
	__u64 key = rq_key(rq, dev), now = bpf_ktime_get_ns();
	__u32 home = inflight_home(key);
	for (int k = 0; k < INFLIGHT_PROBES; k++) {
		__u32 idx = (home + k) & (TRACE_MAX_INFLIGHT - 1);
		struct inflight *f = bpf_map_lookup_elem(&inflight, &idx);
		if (!f)
			return 0;
		__u64 old = __sync_val_compare_and_swap(&f->rq, 0, key);
		/* old == key: this tag was issued and its completion never came
		 * (a requeue frees its slot): the kernel ended that request
		 * without block_rq_complete, which loop devices do now and then.
		 * Count it lost and time this one. A slot another CPU has just
		 * claimed may still hold 0 or its last user's time: 0 is never
		 * stale, and slots are stamped when freed (rq_done). */
		if (old == key) {
			stat_inc(TRACE_STAT_EXPIRED);
		} else if (old) {
			__u64 t = f->issue_ns;
			if (!t || now - t < INFLIGHT_STALE_NS || __sync_val_compare_and_swap(&f->rq, old, key) != old)
				continue;
			stat_inc(TRACE_STAT_EXPIRED);
		}
		f->issue_ns = now;
		return 0;
	}
	stat_inc(TRACE_STAT_INFLIGHT_FULL);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u32 dev;
	int slot = rq_slot(rq, &dev);
	if (slot < 0)
		return 0;
	/* The issue let only these ops in, and a request keeps its op. */
	int op = op_of(rq);
	if (op < 0)
		return 0;
	__u64 now = bpf_ktime_get_ns(), lat;
	struct trace_still *st = &still[slot & (TRACE_MAX_DISKS - 1)], before = *st;
	trace_still_done(st, now, slow_ns);
	__u64 *since = &kernel_stamps[slot & (TRACE_MAX_DISKS - 1)];
	__u8 *unst = &unstamped[slot & (TRACE_MAX_DISKS - 1)];
	__u32 stats = rqf_stats();
	if (use_kernel_stamps && stats && (rq->rq_flags & stats) && bpf_core_field_exists(rq->io_start_time_ns)) {
		__u64 t = rq->io_start_time_ns;
		if (!*since) {
			*since = now;
			*unst = 0;
		}
		if (t < *since + STAMP_SWITCH_NS) {
			__u64 key = rq_key(rq, dev);
			struct inflight *f = rq_find(key);
			if (f)
				rq_done(f, key, now);
		}
		/* Two readers of one clock: the kernel's may be a hair ahead. */
		lat = now > t ? now - t : 0;
	} else {
		__u64 key = rq_key(rq, dev);
		struct inflight *f = rq_find(key);
		if (*since)
			*since = 0;	/* the queue stopped stamping: stamp at issue again */
		if (!*unst)
			*unst = 1;	/* and user space attaches the issue program */
		if (!f) {
			stat_inc(TRACE_STAT_UNMATCHED);
			return 0;
		}
		lat = now - f->issue_ns;
		rq_done(f, key, now);
	}

	__u32 idx = (__u32)slot * TRACE_OPS + (__u32)op;
	struct trace_hist *h = bpf_map_lookup_elem(&hists, &idx);
	if (h) {
		unsigned int b = hist_bucket(ns_to_us(lat));
		/* The compiler knows b is in range and would drop the check the
		 * verifier needs to see: hide b from it. */
		asm volatile("" : "+r"(b));
		if (b < HIST_BUCKETS)
			__sync_fetch_and_add(&h->bucket[b], 1);
		unsigned int i = hist_le_index(lat);
		asm volatile("" : "+r"(i));
		if (i <= HIST_LE)
			__sync_fetch_and_add(&h->le[i], 1);
		/* no count: each completion adds one to exactly one le[], whose
		 * sum user space reads as the count (an atomic add less) */
		__sync_fetch_and_add(&h->sum_ns, lat);
	}

	if (lat < slow_ns)
		return 0;
	struct trace_slow *r = bpf_ringbuf_reserve(&slow, sizeof(*r), 0);
	if (!r) {
		stat_inc(TRACE_STAT_SLOW_DROPPED);
		return 0;
	}
	r->done_ns = now;
	r->lat_ns = lat;
	/* block_rq_complete fires before the request advances: still the
	 * request's own start and size. */
	r->sector = rq->__sector;
	r->dev = dev;
	r->bytes = rq->__data_len;
	r->op = (__u32)op;
	r->error = (__u32)error;
	r->still_ns = trace_still_of(&before, now, lat);
	/* Wake the reader only when a batch is waiting; otherwise it drains
	 * the buffer on its own timer. */
	__u64 flags = bpf_ringbuf_query(&slow, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(r, flags);
	stat_inc(TRACE_STAT_SLOW_SENT);
	return 0;
}

/* A requeued request is issued again and timed from that issue: its slot is
 * freed here, so that an issue finding its own tag still in flight means a
 * completion that never came. */
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(rq_requeue, struct request *rq)
{
	__u32 dev;
	if (rq_slot(rq, &dev) < 0)
		return 0;
	/* The kernel stamps a requeued request again when it reissues it. */
	stat_inc(TRACE_STAT_REQUEUED);
	__u64 key = rq_key(rq, dev);
	struct inflight *f = rq_find(key);
	if (f)
		rq_done(f, key, bpf_ktime_get_ns());
	return 0;
}
