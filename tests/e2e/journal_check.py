#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks smrd's journal entries against the event table in
docs/detection.md: journal_check.py JOURNAL_JSON DETECTION_MD [EVENTS_JSON]."""
import json
import re
import sys

PRIORITY = {"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warning": 4, "notice": 5, "info": 6, "debug": 7}

journal, docs = sys.argv[1], sys.argv[2]
table = {}
for line in open(docs):
    m = re.match(r"\| `([a-z-]+)` \| ([0-9a-f]{32}) \| ([a-z]+) \|", line)
    if m:
        table[m.group(1)] = (m.group(2), PRIORITY[m.group(3)])
rows = [json.loads(l) for l in open(journal) if l.strip()]
rows = [r for r in rows if "SMRD_EVENT" in r]
bad = 0


def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad += not ok


seen = {}
wrong = []
for r in rows:
    kind = r["SMRD_EVENT"]
    seen[kind] = seen.get(kind, 0) + 1
    want = table.get(kind)
    if not want or r.get("MESSAGE_ID") != want[0] or int(r.get("PRIORITY", -1)) != want[1]:
        wrong.append(f"{kind}: MESSAGE_ID={r.get('MESSAGE_ID')} PRIORITY={r.get('PRIORITY')}, "
                     f"docs say {want if want else 'no such kind'}")
print(f"  journal: {len(rows)} smrd event entries: " + ", ".join(f"{k} {n}" for k, n in sorted(seen.items())))
for w in wrong[:5]:
    print("    " + w)
check(rows and not wrong, "every journal entry has its kind's MESSAGE_ID and priority from docs/detection.md")
if len(sys.argv) > 3:
    kinds = {e["kind"] for e in json.load(open(sys.argv[3]))["events"]}
    missing = sorted(kinds - set(seen))
    check(not missing, f"every kind in the history reached the journal ({', '.join(sorted(kinds))})"
          + (f"; missing: {', '.join(missing)}" if missing else ""))
sys.exit(1 if bad else 0)
