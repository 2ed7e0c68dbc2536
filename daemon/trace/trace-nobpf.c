/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Built without the BPF backend (meson -Dbpf=disabled, or no clang, bpftool,
 * libbpf or kernel BTF on the build host): it says so when asked to run. */
#include "trace.h"
#include "util.h"

static int nobpf_open(TraceBackend **ret, uint64_t slow_ns, char **why)
{
	(void)ret, (void)slow_ns;
	*why = strdup("this smrd was built without the BPF backend (meson -Dbpf)");
	return -EOPNOTSUPP;
}

const TraceBackendOps trace_bpf_ops = {.name = "bpf", .open = nobpf_open};
