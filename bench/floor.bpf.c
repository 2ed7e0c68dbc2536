// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor of bench/trace-overhead: programs that do nothing, on the same
 * tp_btf tracepoints as bpf/trace.bpf.c. What the kernel spends to run any
 * program there (trampoline, bpf_stats' own clock reads) is in their figure;
 * what smrd adds is the difference.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/block_rq_issue")
int BPF_PROG(floor_issue, struct request *rq) { return 0; }

SEC("tp_btf/block_rq_complete")
int BPF_PROG(floor_complete, struct request *rq, int error, unsigned int nr_bytes) { return 0; }
