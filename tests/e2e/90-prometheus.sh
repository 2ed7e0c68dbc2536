#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped dashboards and alerts against a real Prometheus scraping a
# real smrd every second, while an emulated dm-smr disk takes 4 KiB random
# writes (and an emulated cmr disk beside it), and two more smrd instances
# on the same fixture tree of pools (same device names on both hosts):
# every PromQL expression of the three dashboards (variables substituted,
# annotations as range queries) must return data, the storm and
# undeclared-SMR alerts must be pending or firing for the dm-smr disk and
# nothing for the cmr disk, every per-host query keeps the hosts apart, and
# the SMR-in-pool alert fires for the one declared disk, naming its pool.
. "$(dirname "$0")/lib.sh"
use_emu
need prometheus
need promtool

RUNTIME=${PROM_RUNTIME:-20}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PROM_PID=""
at_exit '[ -n "$PROM_PID" ] && stop_pid "$PROM_PID" 20 "Prometheus to exit" "$T/prometheus.log"'

emu_up SMR smr dm-smr --seed 31 || exit 1
emu_up CMR cmr cmr --seed 32 || exit 1
S=${SMR#/dev/} C=${CMR#/dev/}
start_smrd --interval 1 --include "^($S|$C)\$" --exclude '^$'

# Two more hosts' worth: the fixture tree "pools" (a raidz2 pool "tank", an
# md RAID1, an LVM PV) under two smrd instances, so that the same device
# names exist on two instances; on the first, sdc is declared DM-SMR, and
# sda takes a resilver of tank (ZFS cannot run here: zpool is a stand-in
# printing the recorded status of tests/fixtures/zpool/json-resilver.json,
# its leaf sda1's vdev, begun an hour ago), so that the dashboards' rebuild
# panels are asked of real series.
FIXP=$SRCDIR/tests/fixtures/sysfs/pools
printf '#!/bin/sh\n[ "$*" = "status -jp --json-int" ] || exit 2\nsed -e s/1592830709/%s/g -e s/6982750226085199860/9000000000000000000/ -e s/dpool/tank/g %s\n' \
	"$(($(date +%s) - 3600))" "'$SRCDIR/tests/fixtures/zpool/json-resilver.json'" >"$T/zpool-b"
chmod +x "$T/zpool-b"
printf 'disk.WD-POOL0002.expect = dm-smr\nzpool-command = "%s"\nrebuild-interval = 1\n' "$T/zpool-b" >"$T/b.conf"
: >"$T/c.conf"
declare -A XPORT XPID
for h in b c; do
	"$SMRD" --config "$T/$h.conf" --listen 127.0.0.1:0 --socket "$T/$h.sock" --state-dir "$T/$h-state" \
		--sysfs-root "$FIXP/sys" --procfs-root "$FIXP/proc" --udev-root "$FIXP/udev" --exclude '^$' \
		>"$T/$h.log" 2>&1 &
	XPID[$h]=$!
	at_exit "[ -n \"\${XPID[$h]}\" ] && stop_pid \"\${XPID[$h]}\" 10 'smrd $h to exit' '$T/$h.log' >/dev/null"
	WAIT_LOG=$T/$h.log wait_until 20 "smrd $h to listen" grep -q '(port [0-9]*)' "$T/$h.log"
	XPORT[$h]=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/$h.log" | head -1)
done

PPORT=$(free_port)
cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $SRCDIR/contrib/prometheus/smrd-alerts.yml
  - $SRCDIR/contrib/prometheus/smrd-rules.yml
scrape_configs:
  - job_name: smrd
    static_configs:
      - targets: ['127.0.0.1:$PORT', '127.0.0.1:${XPORT[b]}', '127.0.0.1:${XPORT[c]}']
YML
promtool check config "$T/prometheus.yml" >/dev/null || fail "promtool check config"
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prometheus.log" 2>&1 &
PROM_PID=$!
WAIT_LOG=$T/prometheus.log wait_until 30 "Prometheus to be ready on 127.0.0.1:$PPORT" \
	curl -sf --max-time 2 "http://127.0.0.1:$PPORT/-/ready"
check "Prometheus is ready on 127.0.0.1:$PPORT" curl -sf --max-time 5 "http://127.0.0.1:$PPORT/-/ready" -o /dev/null
sleep 3

emu_bg run_fio smr "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=31
emu_bg run_fio cmr "$CMR" --rw=randwrite --bs=4k --iodepth=4 --runtime="$RUNTIME" --randseed=32
wait_bg $(($RUNTIME + 90)) "the fio runs"
run_fio reads "$SMR" --rw=randread --bs=4k --iodepth=1 --runtime=5 --randseed=3 || fail "fio reads"
sleep 3
scrape >"$T/metrics"
promtool check metrics <"$T/metrics" >"$T/promtool.out" 2>&1
check "promtool check metrics accepts the page" [ $? -eq 0 ]

check_by timeout -k 5 120 python3 - "http://127.0.0.1:$PPORT" "127.0.0.1:$PORT" "$S" "$C" "$SRCDIR/contrib/grafana" \
	"127.0.0.1:${XPORT[b]}" "127.0.0.1:${XPORT[c]}" <<'PY'
import json, sys, time, urllib.parse, urllib.request
base, inst, S, C, gdir, B, CC = sys.argv[1:8]
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
def api(path, **params):
    url = f"{base}/api/v1/{path}?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError(d)
    return d["data"]
# The recording rules run every 30 s and increase() needs two of their
# samples: wait for them (the sanitizer build gets here sooner in that cycle).
for _ in range(90):
    if api("query", query="instance:smrd_destage_storms:increase1h")["result"]:
        break
    time.sleep(1)
now = time.time()
# What an emulated disk cannot have, and why; each is still queried and reported.
CANNOT = {"smrd_disk_io_timeout_seconds": "loop devices have no queue/io_timeout (SCSI/ATA/NVMe disks do)",
          "smrd_disk_stall_forecast_seconds": "a forecast exists while a learnt cache refills after the storm (76-forecast)",
          "smrd_disk_membership_info{instance=~\"" + inst: "the emulated disk is in no pool (the fixture hosts' are: overview, fleet)",
          "max by (instance, device) (smrd_disk_idle_": "the idle curve needs rests begun in storms and the fills after them, the budget "
                                                         "an hour of watching (test-idle-virtual, in model time)"}
NO_REBUILD = "no rebuild writes onto the emulated disk: its rebuild panels are asked of sda on the second host below"
def subst(expr, devices, instances):
    for k, v in (("$__rate_interval", "4s"), ("$__interval", "1s"), ("$__range", "2m"),
                 ("$instance", instances), ("$device", devices), ("$pool", ".*")):
        expr = expr.replace(k, v)
    return expr
# the overview and the fleet over all three hosts; one disk of the first
for name, devices, instances in (("smrd-overview.json", f"{S}|{C}|sd[a-i]", ".*"), ("smrd-disk.json", S, inst),
                                 ("smrd-fleet.json", ".*", ".*")):
    d = json.load(open(f"{gdir}/{name}"))
    n = empty = 0
    for p in d["panels"]:
        for t in p.get("targets", []):
            expr = subst(t["expr"], devices, instances)
            try:
                res = api("query", query=expr, time=now)["result"]
            except Exception as e:
                res, err = [], e
            n += 1
            why = [r for m, r in CANNOT.items() if expr.startswith(m)] or \
                ([NO_REBUILD] if "smrd_rebuild_" in expr and name == "smrd-disk.json" else [])
            if not res and why:
                print(f"  no data, as expected: {name} panel '{p['title']}': {expr}: {why[0]}")
            elif not res:
                empty += 1
                print(f"  no data: {name} panel '{p['title']}': {expr}")
    for a in d["annotations"]["list"]:
        if "expr" not in a:
            continue
        expr = subst(a["expr"], devices, instances)
        res = api("query_range", query=expr, start=now - 120, end=now, step="1")["result"]
        n += 1
        if not res:
            empty += 1
            print(f"  no data: {name} annotation '{a['name']}': {expr}")
    for v in d["templating"]["list"]:
        if v["type"] == "datasource":
            check(v["query"] == "prometheus", f"{name}: a data source variable of type prometheus")
            continue
        q = v["query"]["query"]
        label = q[q.index(",") + 1:q.rindex(")")].strip()
        match = subst(q[len("label_values("):q.index(",")], devices, instances)
        vals = api(f"label/{label}/values", **{"match[]": match})
        n += 1
        if not vals:
            empty += 1
            print(f"  no data: {name} variable {v['name']}: {q}")
    print(f"  {name}: {n} expressions, {n - empty} returned data")
    check(empty == 0, f"every expression of {name} returns data")

# the rebuild panels of smrd-disk, of the disk taking a resilver
d = json.load(open(f"{gdir}/smrd-disk.json"))
exprs = [subst(t["expr"], "sda", B) for p in d["panels"] for t in p.get("targets", []) if "smrd_rebuild_" in t["expr"]]
empty = [e for e in exprs if not api("query", query=e, time=now)["result"]]
for e in empty:
    print(f"  no data: smrd-disk.json, sda on {B}: {e}")
check(len(exprs) >= 6 and not empty, f"every rebuild expression of smrd-disk.json ({len(exprs)}) returns data for sda on {B}")

alerts = api("alerts")["alerts"]
for a in alerts:
    print(f"  alert {a['labels']['alertname']} {a['labels'].get('device', '')}: {a['state']}")
def state(name, dev):
    return [a["state"] for a in alerts if a["labels"]["alertname"] == name and a["labels"].get("device") == dev]
# the storm may have ended by now: ask Prometheus whether the alert was ever pending or firing
r = api("query_range", query=f'ALERTS{{alertname="SMRDestageStorm",device="{S}"}}', start=now - 120, end=now, step="1")["result"]
states = sorted({s["metric"]["alertstate"] for s in r})
print(f"  SMRDestageStorm on {S} over the run: {states or 'never'}")
check(bool(states), f"the storm alert was pending or firing for {S}")
check("firing" in state("SMRDiskUndeclaredSMR", S), f"SMRDiskUndeclaredSMR is firing for {S}")
cmr = [a for a in alerts if a["labels"].get("device") == C]
check(not cmr, f"no alert for the cmr disk {C}")
r = api("query", query="instance:smrd_storms_active:sum + instance:smrd_destage_storms:increase1h", time=now)["result"]
check(bool(r), "the recording rules produce series")

# Per host, never summed across hosts: the two fixture instances have the same device names.
def q(expr):
    return api("query", query=expr, time=time.time())["result"]
for d in json.load(open(f"{gdir}/smrd-overview.json"))["panels"]:
    if d["title"].startswith("Pools"):
        rows = q(subst(d["targets"][0]["expr"], ".*", ".*"))
per = {}
for r in rows:
    per.setdefault(r["metric"]["instance"], []).append(r["metric"])
print("  pools panel: " + ", ".join(f"{h}: {len(v)} members" for h, v in sorted(per.items())))
check(len(per.get(B, [])) == 9 and len(per.get(CC, [])) == 9, "the pools panel lists each host's 9 members apart")
sdc = {h: [m for m in v if m["device"] == "sdc"] for h, v in per.items()}
check([m["class"] for m in sdc.get(B, [])] == ["dm-smr"] and [m["class"] for m in sdc.get(CC, [])] == ["cmr"],
      "sdc is dm-smr (declared) on one host and cmr on the other, each with pool tank")
io = q('sum by (instance, device) (rate(smrd_disk_reads_completed_total{device="sda"}[1m]))')
check(sorted(m["metric"]["instance"] for m in io) == sorted([B, CC]), "an IOPS query gives sda once per host")
fleet = [p for p in json.load(open(f"{gdir}/smrd-fleet.json"))["panels"] if p["title"].startswith("SMR disks in pools")][0]
rows = [r["metric"] for r in q(subst(fleet["targets"][0]["expr"], ".*", ".*"))]
print(f"  fleet: SMR disks in pools: {rows}")
check([(m["instance"], m["device"], m["name"], m["type"]) for m in rows] == [(B, "sdc", "tank", "zfs")],
      "the fleet's SMR-in-pool table has exactly the declared disk, on its own host")
pool_alerts = [a["labels"] for a in alerts if a["labels"]["alertname"] == "SMRDiskInRedundantPool"]
print(f"  SMRDiskInRedundantPool: {pool_alerts}")
check(len(pool_alerts) == 1 and pool_alerts[0].get("instance") == B and pool_alerts[0].get("device") == "sdc" and
      pool_alerts[0].get("name") == "tank" and pool_alerts[0].get("serial") == "WD-POOL0002" and
      pool_alerts[0].get("model", "").startswith("WDC WD120EFBX"), "the SMR-in-pool alert fires for it, naming pool, model and serial")
check(not state("SMRDiskUndeclaredSMR", "sdc"), "the declared disk raises no undeclared-SMR alert")
sys.exit(1 if bad else 0)
PY
stop_pid "$PROM_PID" 20 "Prometheus to exit" "$T/prometheus.log"; PROM_PID=""
check "Prometheus logged no rule evaluation errors" bash -c "! grep -qi 'error' '$T/prometheus.log'"
grep -i error "$T/prometheus.log" | head -5
# their exit codes too: a sanitizer's report makes it non-zero
for h in b c; do
	stop_pid "${XPID[$h]}" 20 "smrd $h to exit after SIGTERM" "$T/$h.log"; rc=$?
	XPID[$h]=""
	check "smrd $h exited cleanly after SIGTERM ($rc)" [ "$rc" -eq 0 ]
done
stop_smrd
finish
