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

/* dev_t of each watched disk -> its slot in `hists` (slot * TRACE_OPS + op). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024 * TRACE_OPS);	/* resized by user space before load */
	__type(key, __u32);
	__type(value, struct trace_hist);
} hists SEC(".maps");

/*
 * In-flight requests in an array indexed by a hash of the request's key,
 * 4 slots probed, claimed with one compare-and-swap. A BPF hash map here
 * (lock, insert and delete per I/O) cost ~0.7 us an I/O and ~20% of the
 * IOPS of a CPU-bound fio at 320k IOPS; the array costs nothing measurable.
 */
struct inflight {
	__u64 rq;		/* rq_key(); 0 when free */
	__u64 issue_ns;
	__u64 sector;
	__u32 slot, dev, bytes, op;
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

static const volatile __u64 le_ns[HIST_LE] = HIST_LE_NS_INIT;

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
static __always_inline __u32 dev_of(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;
	if (!disk)
		return 0;
	__u32 major = disk->major, minor = disk->first_minor;
	return major << 20 | minor;
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
	__u32 dev = dev_of(rq);
	__u32 *slot = bpf_map_lookup_elem(&watched, &dev);
	if (!slot)
		return 0;
	int op = op_of(rq);
	if (op < 0)
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
		f->sector = rq->__sector;
		f->slot = *slot;
		f->dev = dev;
		f->op = (__u32)op;
		f->bytes = rq->__data_len;
		stat_inc(TRACE_STAT_ISSUED);
		return 0;
	}
	stat_inc(TRACE_STAT_INFLIGHT_FULL);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u32 dev = dev_of(rq);
	__u64 key = rq_key(rq, dev);
	struct inflight *f = rq_find(key);
	if (!f) {
		/* Only count misses on watched disks. */
		if (bpf_map_lookup_elem(&watched, &dev))
			stat_inc(TRACE_STAT_UNMATCHED);
		return 0;
	}
	__u64 now = bpf_ktime_get_ns(), lat = now - f->issue_ns;
	struct inflight done = *f;
	rq_done(f, key, now);

	__u32 idx = done.slot * TRACE_OPS + done.op;
	struct trace_hist *h = bpf_map_lookup_elem(&hists, &idx);
	if (h) {
		unsigned int b = hist_bucket(lat / 1000);
		/* The compiler knows b is in range and would drop the check the
		 * verifier needs to see: hide b from it. */
		asm volatile("" : "+r"(b));
		if (b < HIST_BUCKETS)
			__sync_fetch_and_add(&h->bucket[b], 1);
		unsigned int i = 0;
		for (; i < HIST_LE; i++)
			if (lat <= le_ns[i])
				break;
		asm volatile("" : "+r"(i));
		if (i <= HIST_LE)
			__sync_fetch_and_add(&h->le[i], 1);
		__sync_fetch_and_add(&h->count, 1);
		__sync_fetch_and_add(&h->sum_ns, lat);
	}
	stat_inc(TRACE_STAT_COMPLETED);

	if (lat < slow_ns)
		return 0;
	struct trace_slow *r = bpf_ringbuf_reserve(&slow, sizeof(*r), 0);
	if (!r) {
		stat_inc(TRACE_STAT_SLOW_DROPPED);
		return 0;
	}
	r->done_ns = now;
	r->lat_ns = lat;
	r->sector = done.sector;
	r->dev = done.dev;
	r->bytes = done.bytes;
	r->op = done.op;
	r->error = (__u32)error;
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
	__u64 key = rq_key(rq, dev_of(rq));
	struct inflight *f = rq_find(key);
	if (!f)
		return 0;
	rq_done(f, key, bpf_ktime_get_ns());
	stat_inc(TRACE_STAT_REQUEUED);
	return 0;
}
