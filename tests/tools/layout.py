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
VIEWS = ["daemon/views/exporter.c", "daemon/views/commands.c", "daemon/views/web.c", "daemon/views/pages.c", "cli/output.c"]

breaches = []


def sources(ext=(".c", ".h")):
    for folder in FOLDERS:
        for root, dirs, names in sorted(os.walk(os.path.join(SRC, folder))):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(ext):
                    path = os.path.relpath(os.path.join(root, name), SRC)
                    yield path, open(os.path.join(root, name), encoding="utf-8").read()


def functions(text):
    """(name, lines) of every function whose body opens with '{' alone at
    column 0 and closes with '}' at column 0: the house style."""
    lines = text.split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            start = i
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            name = m.group(1) if m else lines[j].strip()
        elif line.startswith("}") and start is not None:
            yield name, i - start + 1
            start = None


total_files = total_funcs = 0
for path, text in sources():
    total_files += 1
    n = text.count("\n")
    if n > MAX_FILE:
        breaches.append(f"{path}: {n} lines (at most {MAX_FILE})")
    for name, length in functions(text):
        total_funcs += 1
        if length > MAX_FUNC:
            breaches.append(f"{path}: {name}() is {length} lines (at most {MAX_FUNC})")
    includes = re.findall(r'#include "([^"]+)"', text)
    if path == "daemon/views/web.c" and "commands.h" in includes:
        breaches.append("daemon/views/web.c includes commands.h: it gets its API handler from context.c")
    if path.startswith("core/") and path.endswith(".h") and "sysfs.h" in includes:
        breaches.append(f"{path} includes sysfs.h: core headers do not depend on the io library")
    if path.startswith("common/") and os.path.basename(path).startswith("sysfs"):
        breaches.append(f"{path}: the io library lives in io/, not common/")
    if path in VIEWS:
        code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for pat, what in ((r"->det\b|\.det\b", "the detector's state"), (r"\bdet_ready\b", "det_ready"),
                          (r"\bdetect_score\s*\(", "detect_score()"), (r"\bDiskDetect\b", "DiskDetect")):
            for m in re.finditer(pat, code):
                line = code[:m.start()].count("\n") + 1
                breaches.append(f"{path}:{line}: a view reads {what}; it reads d->view")
    if not path.startswith("core/detect") and not path.startswith("core/diskview"):
        code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        if re.search(r"\bdetect_score\s*\(", code):
            breaches.append(f"{path} calls detect_score(): the score is computed once per sample, in the detector")

for b in breaches:
    print("layout: " + b)
print(f"layout: {total_files} files, {total_funcs} functions checked, {len(breaches)} breach(es)")
sys.exit(1 if breaches else 0)
