#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The kernel's own accounting of a process's BPF programs.

bench/bpf-cost.py PID  prints one line per BPF program the process holds
open: "NAME RUN_TIME_NS RUN_CNT", read from /proc/PID/fdinfo (which carries
bpf_stats' run_time_ns and run_cnt while kernel.bpf_stats_enabled=1) and
named by bpftool. Only the process's own programs: other tracers on the host
(a CI running smrd, a bpftrace) are not counted."""
import json
import os
import subprocess
import sys


def programs(pid):
    fdinfo = f"/proc/{pid}/fdinfo"
    seen = {}
    for fd in os.listdir(fdinfo):
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                fields = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        except OSError:
            continue	# closed while we read
        if "prog_id" in fields and "run_cnt" in fields:
            seen[int(fields["prog_id"])] = (int(fields.get("run_time_ns", 0)), int(fields["run_cnt"]))
    for pid_, (ns, cnt) in sorted(seen.items()):
        out = subprocess.run(["bpftool", "prog", "show", "id", str(pid_), "--json"],
                             capture_output=True, text=True)
        name = json.loads(out.stdout).get("name", f"id{pid_}") if out.returncode == 0 else f"id{pid_}"
        yield name, ns, cnt


if __name__ == "__main__":
    for name, ns, cnt in programs(int(sys.argv[1])):
        print(name, ns, cnt)
