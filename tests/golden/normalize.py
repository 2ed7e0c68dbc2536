#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Masks what changes from run to run in smrctl's output, so that golden
files compare everything else exactly. Usage: normalize.py txt|json < in.
The input is a header (command, exit code, stderr), '--', then stdout."""
import json
import re
import sys

# Values that differ between runs however correct the output is.
VOLATILE_KEYS = {
    "pid", "uptime_seconds", "listen", "samples", "path", "time", "time_usec", "logged",
    "logged_usec", "added", "added_usec", "id", "seconds_ago", "since", "started",
    "interval_seconds",     # a disk's is measured between samples
}
# Volatile even when 0: a timer's lateness can be 0 in one run only.
ALWAYS_VOLATILE = {"event_loop_lag_seconds"}
TEXT_RULES = [
    (r"pid \d+", "pid <pid>"),
    (r"up \d+h \d\dm \d\ds", "up <uptime>"),
    (r"http://127\.0\.0\.1:\d+/", "http://127.0.0.1:<port>/"),
    (r"/tmp/smrd-e2e\.[A-Za-z0-9]+", "<tmp>"),
    (r"\d+ samples", "<n> samples"),
    (r"at most \d+ ms late", "at most <n> ms late"),
    (r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?", "<date>"),
    (r"\b\d\d:\d\d:\d\d\b", "<clock>"),
    (r"smrd \d+\.\d+\.\d+", "smrd <version>"),
    (r"#\d+\b", "#<id>"),
    (r"last \d+\.\ds:", "last <interval>:"),
]


def mask(v, key=None):
    if isinstance(v, dict):
        return {k: mask(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x) for x in v]
    if key in ALWAYS_VOLATILE or (key in VOLATILE_KEYS and v not in (None, "", 0)):
        return "<%s>" % key
    if isinstance(v, str):
        for pat, rep in TEXT_RULES:
            v = re.sub(pat, rep, v)
    if isinstance(v, float):
        # three significant digits: scores decay by the second (half-life
        # 24 h), and smrctl prints them with two
        return float("%.3g" % v)
    return v


def main():
    kind = sys.argv[1]
    text = sys.stdin.read()
    head, sep, body = text.partition("\n--\n")
    for pat, rep in TEXT_RULES:
        head = re.sub(pat, rep, head)
    if kind == "json" and body.strip():
        try:
            body = json.dumps(mask(json.loads(body)), indent=2, sort_keys=True) + "\n"
        except json.JSONDecodeError:
            body = "(not JSON)\n" + body
    else:
        for pat, rep in TEXT_RULES:
            body = re.sub(pat, rep, body)
    sys.stdout.write(head + sep + body)


main()
