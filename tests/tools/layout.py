#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The house's rooms, checked (issue 27): files and functions of a size one
can read, folders that match the layers, and views that only format the
disk's view. Prints every breach; exits 1 if there is one."""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
FOLDERS = ["common", "core", "io", "daemon", "cli"]
MAX_FILE, MAX_FUNC = 700, 100
# what shows a disk: they read d->view (and the disk's identity, counters,
# latency histograms), never the detector's state
VIEWS = ["daemon/views/exporter.c", "daemon/views/commands.c", "daemon/views/web.c", "daemon/views/pages.c",
         "daemon/views/pages-disk.c", "daemon/views/idle-views.c", "cli/output.c"]
# what shows a per-disk figure takes it from the view (issue 41): no detector
# or media-cache function, no stall threshold, no re-summed latency window
# (diskview_latency sums it once a sample), no suspect or stall-imminent
# rule of its own; the history only for listing events and for its health
DERIVING = ["daemon/views/exporter.c", "daemon/views/commands.c", "daemon/views/pages.c", "daemon/views/pages-disk.c",
            "daemon/views/idle-views.c", "core/output/idle-out.c"]
DERIVES = [
    (r"\bdetect_(?!event_kind_)\w+\s*\(", "calls the detector"),
    (r"\b(cache_(init|seed|restore|interval|storm_start|wait|storm_end|rate|fill_ratio|forecast)"
     r"|disk_model_(add_cache|add_recovery|write_seconds))\s*\(", "works the media cache out"),
    (r"\bdisk_stall_threshold\s*\(", "works the stall threshold out (the view's stall_threshold)"),
    (r"\b(lat_window_sum|hist_(quantile|mean|max|count_under|count_over))\s*\(",
     "sums a latency window (diskview_latency)"),
    (r"\bSMR_CONF_TRIM_HINT\b", "counts suspects (the view's suspect, registry_count)"),
    (r"forecast_warn\s*[<>]|(?<!-)[<>]=?\s*[\w.]*(->)?[\w.]*forecast_warn", "decides stall imminent (the view's imminent)"),
]
HISTORY_HEALTH = {"history_query", "history_query_incidents", "history_path", "history_persistent", "history_state", "history_state_to_string",
                  "history_pending", "history_dropped", "history_errors", "history_last_error"}

breaches = []


def sources(ext=(".c", ".h")):
    for folder in FOLDERS:
        for root, dirs, names in sorted(os.walk(os.path.join(SRC, folder))):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(ext):
                    path = os.path.relpath(os.path.join(root, name), SRC)
                    yield path, open(os.path.join(root, name), encoding="utf-8").read()


def strip_comments(text):
    """The code without its comments, on the same lines."""
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def functions_with_bodies(text):
    """(name, body) of every function whose body opens with '{' alone at
    column 0 and closes with '}' at column 0: the house style."""
    lines = text.split("\n")
    start = name = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            start = i
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            name = m.group(1) if m else lines[j].strip()
        elif line.startswith("}") and start is not None:
            yield name, "\n".join(lines[start:i + 1])
            start = None


total_files = total_funcs = 0
for path, text in sources():
    total_files += 1
    n = text.count("\n")
    if n > MAX_FILE:
        breaches.append(f"{path}: {n} lines (at most {MAX_FILE})")
    for name, body in functions_with_bodies(text):
        length = body.count("\n") + 1
        total_funcs += 1
        if length > MAX_FUNC:
            breaches.append(f"{path}: {name}() is {length} lines (at most {MAX_FUNC})")
    includes = re.findall(r'#include "([^"]+)"', text)
    if path == "daemon/views/web.c" and "commands.h" in includes:
        breaches.append("daemon/views/web.c includes commands.h: it gets its API handler from context.c")
    if path.startswith("core/") and path.endswith(".h") and "sysfs.h" in includes:
        breaches.append(f"{path} includes sysfs.h: core headers do not depend on the io library")
    if re.search(r"_INVALID\s*=\s*-22\b", text):
        breaches.append(f"{path}: an enum's invalid value is -EINVAL, not -22")
    if path.startswith("core/") and re.search(r"#include <(yaml|crypt|gnutls/)", text):
        breaches.append(f"{path}: the core links none of libyaml, libcrypt, gnutls (the web server's, daemon/http)")
    if path.startswith("common/") and os.path.basename(path).startswith("sysfs"):
        breaches.append(f"{path}: the io library lives in io/, not common/")
    if path in VIEWS:
        code = strip_comments(text)
        for pat, what in ((r"->det\b|\.det\b", "the detector's state"), (r"\bdet_ready\b", "det_ready"),
                          (r"\bdetect_score\s*\(", "detect_score()"), (r"\bDiskDetect\b", "DiskDetect")):
            for m in re.finditer(pat, code):
                line = code[:m.start()].count("\n") + 1
                breaches.append(f"{path}:{line}: a view reads {what}; it reads d->view")
    if path in DERIVING:
        code = strip_comments(text)
        for pat, what in DERIVES:
            for m in re.finditer(pat, code):
                line = code[:m.start()].count("\n") + 1
                breaches.append(f"{path}:{line}: a view {what}; the figure is in d->view")
        for m in re.finditer(r"\b(history_\w+)\s*\(", code):
            if m.group(1) not in HISTORY_HEALTH:
                line = code[:m.start()].count("\n") + 1
                breaches.append(f"{path}:{line}: a view calls {m.group(1)}(): it lists events, it changes nothing")
        # a history_query callback lists events: one that adds up is a per-disk figure of its own
        bodies = dict(functions_with_bodies(code))
        for m in re.finditer(r"\bhistory_query\s*\([^;]*?,\s*(\w+)\s*,\s*[^,;]+\)", code):
            body = bodies.get(m.group(1), "")
            if re.search(r"\+=|-=", body):
                line = code[:m.start()].count("\n") + 1
                breaches.append(f"{path}:{line}: {m.group(1)}() adds events up: a per-disk figure belongs in d->view")
    if not path.startswith("core/detect") and not path.startswith("core/diskview"):
        code = strip_comments(text)
        if re.search(r"\bdetect_score\s*\(", code):
            breaches.append(f"{path} calls detect_score(): the score is computed once per sample, in the detector")

for b in breaches:
    print("layout: " + b)
print(f"layout: {total_files} files, {total_funcs} functions checked, {len(breaches)} breach(es)")
sys.exit(1 if breaches else 0)
