#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Generates contrib/grafana/smrd-overview.json and smrd-disk.json: importable
# dashboards (datasource as the ${DS_PROMETHEUS} input) built from one list
# of panels each, so that both stay consistent with the metric names.
# Usage: tools/grafana.py OUTDIR
import json
import sys

DS = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
SEL = 'instance=~"$instance",device=~"$device"'


def target(expr, legend="", fmt=None, instant=False, ref="A"):
    t = {"datasource": DS, "expr": expr, "legendFormat": legend, "refId": ref}
    if fmt:
        t["format"] = fmt
    if instant:
        t["instant"] = True
        t["range"] = False
    return t


class Layout:
    def __init__(self):
        self.x = self.y = 0
        self.row_h = 0
        self.next_id = 1

    def place(self, w, h):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        pos = {"x": self.x, "y": self.y, "w": w, "h": h}
        self.x += w
        self.row_h = max(self.row_h, h)
        return pos

    def panel(self, kind, title, targets, w=12, h=8, unit=None, desc="", **extra):
        p = {"id": self.next_id, "type": kind, "title": title, "description": desc, "datasource": DS,
             "gridPos": self.place(w, h), "targets": [dict(t, refId=chr(65 + i)) for i, t in enumerate(targets)],
             "fieldConfig": {"defaults": {}, "overrides": []}, "options": {}}
        if unit:
            p["fieldConfig"]["defaults"]["unit"] = unit
        p.update(extra)
        self.next_id += 1
        return p


def variables(multi_device):
    def var(name, query, multi):
        return {"name": name, "label": name, "type": "query", "datasource": DS, "refresh": 2,
                "query": {"query": query, "refId": name}, "definition": query, "sort": 1,
                "multi": multi, "includeAll": multi, "current": {}, "options": []}
    return {"list": [
        var("instance", "label_values(smrd_disk_info, instance)", True),
        var("device", 'label_values(smrd_disk_info{instance=~"$instance"}, device)', multi_device),
    ]}


def annotations():
    def ann(name, expr, color, title):
        return {"name": name, "datasource": DS, "enable": True, "iconColor": color, "expr": expr,
                "step": "10s", "titleFormat": title, "textFormat": "{{device}} on {{instance}}",
                "useValueForTime": False}
    return {"list": [
        {"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"}, "enable": True, "hide": True,
         "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts", "type": "dashboard"},
        ann("Destage storms", f"smrd_disk_destage_storm_active{{{SEL}}} == 1", "red", "destage storm"),
        ann("Stalls", f"sum by (instance, device) (increase(smrd_disk_stall_events_total{{{SEL}}}[1m])) > 0",
            "orange", "stalled I/Os"),
    ]}


def dashboard(uid, title, panels, multi_device, desc):
    return {
        "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "description": "where smrd is scraped",
                      "type": "datasource", "pluginId": "prometheus", "pluginName": "Prometheus"}],
        "__requires": [{"type": "grafana", "id": "grafana", "name": "Grafana", "version": "9.0.0"},
                       {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"}],
        "uid": uid, "title": title, "description": desc, "tags": ["smrd", "disks", "smr"],
        "editable": True, "schemaVersion": 38, "version": 1, "refresh": "10s",
        "time": {"from": "now-1h", "to": "now"}, "timezone": "",
        "templating": variables(multi_device), "annotations": annotations(), "panels": panels,
        "links": [{"title": "smrd: one disk", "type": "dashboards", "tags": ["smrd"], "asDropdown": False}],
    }


def overview():
    L = Layout()
    q = lambda op: (f'histogram_quantile({op}, sum by (instance, device, op, le) '
                    f'(rate(smrd_disk_io_latency_seconds_bucket{{{SEL}}}[$__rate_interval])))')
    return dashboard("smrd-overview", "smrd: SMR disks overview", [
        L.panel("piechart", "Disks by class", [target('count by (class) (smrd_disk_info{instance=~"$instance"})',
                "{{class}}", instant=True)], w=6, desc="cmr, dm-smr, host-aware, host-managed, ssd, unknown"),
        L.panel("table", "Disks: class, SMR confidence, GC score", [
            target(f"smrd_disk_info{{{SEL}}}", fmt="table", instant=True),
            target(f"smrd_disk_smr_confidence{{{SEL}}}", fmt="table", instant=True),
            target(f"smrd_disk_gc_score{{{SEL}}}", fmt="table", instant=True),
            target(f"smrd_disk_destage_storm_active{{{SEL}}}", fmt="table", instant=True)],
            w=18, desc="One row per disk. SMR confidence combines static evidence and behaviour.",
            transformations=[{"id": "merge", "options": {}}]),
        L.panel("heatmap", "I/O latency heatmap (all selected disks)", [
            target(f"sum by (le) (rate(smrd_disk_io_latency_seconds_bucket{{{SEL}}}[$__rate_interval]))",
                   "{{le}}", fmt="heatmap")], w=12, unit="s",
            desc="Issue-to-complete latency from the block tracepoints. A DM-SMR destage storm shows as a jump from the sub-millisecond rows to hundreds of milliseconds.",
            options={"calculate": False, "yAxis": {"unit": "s"}, "cellGap": 1}),
        L.panel("timeseries", "p50 and p99 latency per disk and op", [
            target(q(0.5), "p50 {{device}} {{op}}"), target(q(0.99), "p99 {{device}} {{op}}")], w=12, unit="s",
            fieldConfig={"defaults": {"unit": "s", "custom": {"scaleDistribution": {"type": "log", "log": 10}}},
                         "overrides": []}),
        L.panel("table", "Stalled I/Os and destage storms in the time range", [
            target(f"sum by (instance, device, op) (increase(smrd_disk_stall_events_total{{{SEL}}}[$__range]))",
                   fmt="table", instant=True),
            target(f"sum by (instance, device) (increase(smrd_disk_destage_storms_total{{{SEL}}}[$__range]))",
                   fmt="table", instant=True),
            target(f"max by (instance, device) (smrd_disk_slowest_io_seconds{{{SEL}}})", fmt="table",
                   instant=True)], w=12,
            desc="smrctl events --device DEV lists each one.", transformations=[{"id": "merge", "options": {}}]),
        L.panel("timeseries", "GC score", [target(f"smrd_disk_gc_score{{{SEL}}}", "{{device}}")], w=12,
                desc="How strongly recent behaviour looks like SMR cleaning (storms, idle cleaning, slow read bands, stalls), decaying with a 24 h half-life.",
                fieldConfig={"defaults": {"min": 0, "max": 1}, "overrides": []}),
        L.panel("timeseries", "Latency bands", [
            target(f"smrd_disk_latency_band_seconds{{{SEL}}}", "{{device}} {{op}} band {{band}}")], w=12, unit="s",
            desc="Centres of the distinct latency modes of the last ten minutes. DM-SMR reads split into a seek band (~8 ms) and bands behind band rewrites (hundreds of ms)."),
        L.panel("timeseries", "IOPS", [
            target(f"sum by (device) (rate(smrd_disk_reads_completed_total{{{SEL}}}[$__rate_interval]))", "{{device}} reads"),
            target(f"sum by (device) (rate(smrd_disk_writes_completed_total{{{SEL}}}[$__rate_interval]))", "{{device}} writes")],
            w=12, unit="iops"),
        L.panel("timeseries", "Throughput", [
            target(f"sum by (device) (rate(smrd_disk_read_bytes_total{{{SEL}}}[$__rate_interval]))", "{{device}} read"),
            target(f"sum by (device) (rate(smrd_disk_written_bytes_total{{{SEL}}}[$__rate_interval]))", "{{device}} written")],
            w=12, unit="Bps"),
    ], True, "Every watched disk: classes, SMR confidence, latency, stalls, destage storms, GC score.")


def disk():
    L = Layout()
    one = SEL
    q = lambda p: (f'histogram_quantile({p}, sum by (op, le) '
                   f'(rate(smrd_disk_io_latency_seconds_bucket{{{one}}}[$__rate_interval])))')
    return dashboard("smrd-disk", "smrd: one disk", [
        L.panel("stat", "Class", [target(f"smrd_disk_info{{{one}}}", "{{class}}", instant=True)], w=4, h=4,
                options={"reduceOptions": {"calcs": ["lastNotNull"], "fields": "/^class$/"}, "textMode": "value"}),
        L.panel("stat", "SMR confidence", [target(f"smrd_disk_smr_confidence{{{one}}}", instant=True)], w=4, h=4),
        L.panel("stat", "GC score", [target(f"smrd_disk_gc_score{{{one}}}", instant=True)], w=4, h=4),
        L.panel("stat", "Destage storm", [target(f"smrd_disk_destage_storm_active{{{one}}}", instant=True)], w=4, h=4,
                fieldConfig={"defaults": {"mappings": [{"type": "value", "options": {
                    "0": {"text": "no"}, "1": {"text": "STORM", "color": "red"}}}]}, "overrides": []}),
        L.panel("stat", "Storms since smrd started", [target(f"smrd_disk_destage_storms_total{{{one}}}", instant=True)],
                w=4, h=4),
        L.panel("stat", "Slowest I/O (10 min) / io_timeout", [
            target(f"smrd_disk_slowest_io_seconds{{{one}}}", "slowest", instant=True),
            target(f"smrd_disk_io_timeout_seconds{{{one}}}", "io_timeout", instant=True)], w=4, h=4, unit="s"),
        L.panel("heatmap", "Read latency", [
            target(f'sum by (le) (rate(smrd_disk_io_latency_seconds_bucket{{{one},op="read"}}[$__rate_interval]))',
                   "{{le}}", fmt="heatmap")], w=12, unit="s", options={"calculate": False, "yAxis": {"unit": "s"}}),
        L.panel("heatmap", "Write latency", [
            target(f'sum by (le) (rate(smrd_disk_io_latency_seconds_bucket{{{one},op="write"}}[$__rate_interval]))',
                   "{{le}}", fmt="heatmap")], w=12, unit="s", options={"calculate": False, "yAxis": {"unit": "s"}}),
        L.panel("timeseries", "Latency percentiles per op", [
            target(q(0.5), "p50 {{op}}"), target(q(0.9), "p90 {{op}}"), target(q(0.99), "p99 {{op}}")], w=12, unit="s",
            fieldConfig={"defaults": {"unit": "s", "custom": {"scaleDistribution": {"type": "log", "log": 10}}},
                         "overrides": []}),
        L.panel("timeseries", "Latency bands", [
            target(f"smrd_disk_latency_band_seconds{{{one}}}", "{{op}} band {{band}}")], w=12, unit="s"),
        L.panel("timeseries", "Stalled I/Os per minute", [
            target(f"sum by (op) (increase(smrd_disk_stall_events_total{{{one}}}[1m]))", "{{op}}")], w=12),
        L.panel("timeseries", "GC score", [target(f"smrd_disk_gc_score{{{one}}}", "score")], w=12,
                fieldConfig={"defaults": {"min": 0, "max": 1}, "overrides": []}),
        L.panel("timeseries", "IOPS", [
            target(f"rate(smrd_disk_reads_completed_total{{{one}}}[$__rate_interval])", "reads"),
            target(f"rate(smrd_disk_writes_completed_total{{{one}}}[$__rate_interval])", "writes")], w=8, unit="iops"),
        L.panel("timeseries", "Throughput", [
            target(f"rate(smrd_disk_read_bytes_total{{{one}}}[$__rate_interval])", "read"),
            target(f"rate(smrd_disk_written_bytes_total{{{one}}}[$__rate_interval])", "written")], w=8, unit="Bps"),
        L.panel("timeseries", "Utilisation and queue", [
            target(f"rate(smrd_disk_io_time_seconds_total{{{one}}}[$__rate_interval])", "busy"),
            target(f"smrd_disk_io_now{{{one}}}", "in flight")], w=8),
    ], False, "One disk in depth: verdict, latency distributions, bands, stalls, storms, GC score, traffic.")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "contrib/grafana"
    for name, d in (("smrd-overview.json", overview()), ("smrd-disk.json", disk())):
        with open(f"{out}/{name}", "w") as f:
            json.dump(d, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
