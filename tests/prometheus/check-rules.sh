#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool on the shipped rules: syntax (check rules) and behaviour (test
# rules: every alert fires on SMR-like series, stays silent on CMR-like ones).
set -u
: "${SRCDIR:?run through meson test}"
command -v promtool >/dev/null || "$SRCDIR/scripts/install-deps.sh" >&2
command -v promtool >/dev/null || { echo "FAIL: promtool is missing and could not be installed"; exit 1; }
rc=0
promtool check rules "$SRCDIR/contrib/prometheus/smrd-alerts.yml" "$SRCDIR/contrib/prometheus/smrd-rules.yml" || rc=1
(cd "$SRCDIR/tests/prometheus" && promtool test rules smrd-alerts-test.yml) || rc=1
# A fleet is many hosts with the same device names: every aggregation in the
# rules and dashboards keeps instance (or aggregates to it), every alert has
# a runbook, and the dashboards take their data source from a variable.
python3 - "$SRCDIR" <<'PY' || rc=1
import json, re, sys, glob
src = sys.argv[1]
exprs = []
for f in glob.glob(f"{src}/contrib/prometheus/*.yml"):
    text = open(f).read()
    exprs += [(f, m) for m in re.findall(r"expr: \|?\s*\n?((?:.+\n?)+?)(?=\s+(?:for|labels|record|- alert|- record)\b|\Z)", text)]
    for block in re.split(r"\n\s+- alert: ", text)[1:]:
        if "runbook_url:" not in block:
            print(f"FAIL: {f}: alert {block.split()[0]} has no runbook_url"); sys.exit(1)
for f in glob.glob(f"{src}/contrib/grafana/*.json"):
    d = json.load(open(f))
    if "${DS_PROMETHEUS}" in open(f).read() or not any(v["type"] == "datasource" for v in d["templating"]["list"]):
        print(f"FAIL: {f}: the data source must come from a datasource variable"); sys.exit(1)
    for p in d["panels"]:
        exprs += [(f, t["expr"]) for t in p.get("targets", [])]
    exprs += [(f, a["expr"]) for a in d["annotations"]["list"] if "expr" in a]
bad = 0
for f, e in exprs:
    for by in re.findall(r"\bby \(([^)]*)\)", e):
        labels = {x.strip() for x in by.split(",")}
        if "instance" not in labels and labels != {"le"}:
            print(f"FAIL: {f}: 'by ({by})' drops instance: {e.strip()[:120]}"); bad += 1
print(f"{len(exprs)} expressions checked: every aggregation keeps instance" if not bad else f"{bad} aggregation(s) drop instance")
sys.exit(1 if bad else 0)
PY
exit $rc
