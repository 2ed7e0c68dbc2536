#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool on the shipped rules: syntax (check rules) and behaviour (test
# rules: every alert fires on SMR-like series, stays silent on CMR-like ones).
set -u
: "${SRCDIR:?run through meson test}"
command -v promtool >/dev/null || { echo "FAIL: promtool is missing: scripts/install-deps.sh --tests installs it"; exit 1; }
rc=0
promtool check rules "$SRCDIR/contrib/prometheus/smrd-alerts.yml" "$SRCDIR/contrib/prometheus/smrd-rules.yml" || rc=1
(cd "$SRCDIR/tests/prometheus" && promtool test rules smrd-alerts-test.yml) || rc=1
# Every dashboard expression parses as PromQL (Grafana's variables
# substituted): promtool parses a recording rule's without a server.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
python3 - "$SRCDIR" >"$tmp/dashboards.yml" <<'PY' || rc=1
import glob, json, sys
print("groups:\n  - name: dashboards\n    rules:")
for f in sorted(glob.glob(f"{sys.argv[1]}/contrib/grafana/*.json")):
    d = json.load(open(f))
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    exprs += [a["expr"] for a in d["annotations"]["list"] if "expr" in a]
    for i, e in enumerate(exprs):
        for k, v in (("$__rate_interval", "1m"), ("$__interval", "1m"), ("$__range", "1h"), ("$instance", ".*"),
                     ("$device", ".*"), ("$pool", ".*")):
            e = e.replace(k, v)
        print(f"      - record: dashboard:{f.split('/')[-1].split('.')[0].replace('-', '_')}:{i}\n        expr: {json.dumps(e)}")
PY
promtool check rules "$tmp/dashboards.yml" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: a dashboard expression does not parse"; rc=1; }
grep -h 'SUCCESS' "$tmp/out" | sed 's/rules found/dashboard expressions parse as PromQL/'
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
# contrib/prometheus/README.md's table lists every alert the rules have
alerts = re.findall(r"- alert: (\S+)", open(f"{src}/contrib/prometheus/smrd-alerts.yml").read())
listed = re.findall(r"^\| `(\w+)` \|", open(f"{src}/contrib/prometheus/README.md").read(), re.M)
for a in sorted(set(alerts) ^ set(listed)):
    print(f"FAIL: alert {a} is {'not ' if a in alerts else 'listed but not '}in {'README.md' if a in alerts else 'the rules'}"); bad += 1
# a state or a limit reads at a glance: state timelines map their states to
# words and colours, a panel against io_timeout has thresholds
for f in glob.glob(f"{src}/contrib/grafana/*.json"):
    for p in json.load(open(f))["panels"]:
        dflt = p.get("fieldConfig", {}).get("defaults", {})
        where = f"{f.split('/')[-1]}: '{p.get('title')}'"
        if p["type"] == "state-timeline" and not any(
                all(o.get("text") and o.get("color") for o in m.get("options", {}).values()) and m.get("options")
                for m in dflt.get("mappings", [])):
            print(f"FAIL: {where}: a state timeline without value mappings and colours"); bad += 1
        if any("io_timeout" in t["expr"] for t in p.get("targets", [])) and \
                len(dflt.get("thresholds", {}).get("steps", [])) < 2:
            print(f"FAIL: {where}: no thresholds"); bad += 1
multi, one_disk = {}, {}  # dashboard -> its instance takes several; its device only one
for f in glob.glob(f"{src}/contrib/grafana/*.json"):
    d = json.load(open(f))
    several = lambda name: any(v["name"] == name and (v.get("multi") or v.get("includeAll")) for v in d["templating"]["list"])
    multi[f] = several("instance")
    one_disk[f] = any(v["name"] == "device" for v in d["templating"]["list"]) and not several("device")
for f, e in exprs:
    for by in re.findall(r"\bby \(([^)]*)\)", e):
        labels = {x.strip() for x in by.split(",")}
        # by (le) sums the chosen disks' buckets: on a one-disk dashboard
        # that is one host's disk, not sdc of every host
        if "instance" not in labels and (labels != {"le"} or (multi.get(f) and one_disk.get(f))):
            print(f"FAIL: {f}: 'by ({by})' drops instance: {e.strip()[:120]}"); bad += 1
# Tables ready to read: no raw columns (Time, __name__, job, "Value #A"),
# the storm flag mapped to words, 0-1 scores with 0-1 thresholds, and a row
# that links to the disk (smrd-disk and smrd's own /disk/NAME).
for f in glob.glob(f"{src}/contrib/grafana/*.json"):
    d = json.load(open(f))
    for p in d["panels"]:
        if p.get("type") != "table":
            continue
        where = f"{f.split('/')[-1]}: table '{p['title']}'"
        org = [t for t in p.get("transformations", []) if t["id"] == "organize"]
        if not org:
            print(f"FAIL: {where}: no organize transformation"); bad += 1; continue
        o = org[0]["options"]
        hidden, renamed = {k for k, v in o.get("excludeByName", {}).items() if v}, o.get("renameByName", {})
        refs = [t["refId"] for t in p["targets"]]
        values = ["Value"] if len(refs) == 1 else [f"Value #{r}" for r in refs]
        for col in ["Time", "__name__", "job"] + values:
            if col not in hidden and col not in renamed:
                print(f"FAIL: {where}: column '{col}' shown as it is"); bad += 1
        ov = {x["matcher"]["options"]: {q["id"]: q["value"] for q in x["properties"]}
              for x in p.get("fieldConfig", {}).get("overrides", [])}
        for t, col in zip(p["targets"], values):
            name = renamed.get(col, col)
            if col in hidden:
                continue
            props = ov.get(name, {})
            if "destage_storm_active" in t["expr"] and not any(
                    m.get("options", {}).get("1", {}).get("text") for m in props.get("mappings", [])):
                print(f"FAIL: {where}: storm column '{name}' shows 0/1"); bad += 1
            if re.search(r"gc_score|smr_confidence", t["expr"]):
                steps = props.get("thresholds", {}).get("steps", [])
                if props.get("max") != 1 or not steps or not all(s["value"] is None or 0 < s["value"] <= 1 for s in steps):
                    print(f"FAIL: {where}: '{name}' is 0-1 and needs 0-1 thresholds"); bad += 1
        if multi[f] and "device" not in hidden:
            links = ov.get("device", {}).get("links", [])
            if not (any("/d/smrd-disk" in l["url"] for l in links) and any("/disk/" in l["url"] for l in links)):
                print(f"FAIL: {where}: a row does not link to smrd-disk and smrd's /disk/ page"); bad += 1
    if d["uid"] == "smrd-disk" and multi[f]:
        print(f"FAIL: {f}: one disk is on one host: instance must be single-valued"); bad += 1
# Every series the rules and dashboards ask for is one smrd exports: the
# names its exporters declare (a histogram's with _bucket, _sum, _count), so
# that a renamed or misspelt metric is an error here, not an empty panel.
exported = set()
for f in glob.glob(f"{src}/daemon/**/*.c", recursive=True) + glob.glob(f"{src}/core/**/*.c", recursive=True):
    exported |= set(re.findall(r'"(smrd_[a-z0-9_]+)"', open(f).read()))
used = {}
for f in glob.glob(f"{src}/contrib/grafana/*.json") + glob.glob(f"{src}/contrib/prometheus/*.yml"):
    for name in re.findall(r"(?<![\w:])(smrd_[a-z0-9_]+)(?![\w:])", open(f).read()):
        used.setdefault(name, set()).add(f.split("/")[-1])
for name, where in sorted(used.items()):
    if name not in exported and re.sub(r"_(bucket|sum|count)$", "", name) not in exported:
        print(f"FAIL: {', '.join(sorted(where))}: {name} is no metric smrd exports"); bad += 1
print(f"{len(used)} metric names the rules and dashboards use, each exported")
print(f"{len(exprs)} expressions checked: every aggregation keeps instance" if not bad else f"{bad} problem(s) in the rules and dashboards")
sys.exit(1 if bad else 0)
PY
exit $rc
