#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A `zpool` stand-in for 79-zfs-rebuild.sh (ZFS cannot run here: no kernel
module). It answers only what smrd's rebuild watcher runs,
`zpool status -jp --json-int`, by replaying a recorded resilver's status
sequence from tests/fixtures/zpool (json-resilver.json while it runs,
json-resilvered.json once it ended; their .source files say where each
figure comes from) with the figures rescaled to the emulated rebuild:

  - what is REAL: the bytes written onto the new disk so far, read from
    /proc/diskstats (sectors written by the emulated loop device since the
    rebuild began: what fio wrote), the rebuild's start and end times (the
    test writes them when fio starts and ends), the leaf's path (a by-id
    link to the emulated disk) and its vdev GUID;
  - what is REPLAYED: the document's shape, the pool and its other vdevs,
    and the recorded ratios between the scan's figures (examined, issued and
    processed against the bytes resilvered onto the leaf), applied to the
    bytes written; the total to examine is what the rebuild writes in all.

Everything else the fixture says (txg, space, errors) is printed unchanged.

It also answers what smrd asks of a pool's vdevs (daemon/rebuild/slowio.h:
after its rebuild guard warned about a disk in the pool, and for smrctl
rebuild-check): `zpool status -P POOL` and `zpool get -H -p -o
name,property,value,source allocated,numchildren,slow_io_n,slow_io_t POOL
all-vdevs`. For ZR_POOL (dpool): status-P-replacing.txt and the fixture
ZR_SLOWIO names (get-slowio-mirror.txt: slow_io_n=5 slow_io_t=60 on
mirror-0), the leaf being resilvered renamed ZR_PATH; for rzpool, a
degraded four-disk RAIDZ1 before its replacement (status-P-raidz-degraded.txt,
get-raidz-degraded.txt). The allocated figures are rescaled so that a new
disk's share of the first top-level vdev (a mirror's allocated bytes, a
raidz's over its children) is ZR_TOTAL, what the emulated rebuild writes;
their ratios stay as recorded. Any other pool: zpool's "no such pool",
exit 1. Without ZR_SLOWIO, the get is refused as
OpenZFS 2.1 refuses it (no vdev properties: a usage error, exit 2).

Configuration comes from the environment the test's wrapper sets:
ZR_FIXTURES, ZR_DEV (loopN), ZR_PATH, ZR_GUID, ZR_TOTAL (bytes), ZR_STATE
(a directory holding `start`: "epoch_s sectors_written_before" and, once
fio ended, `end`: "epoch_s"), ZR_POOL, ZR_SLOWIO. Anything else: zpool's
usage error, exit 2, as an OpenZFS without -j answers (smrd then tries
`zpool status -p`, which this stand-in refuses the same way: a failed
reading, not a wrong one).
"""
import json
import os
import sys

RUNNING_LEAF = "ata-ST5000LM000-2AN170_WCJ13R2Q"  # the leaf being resilvered in the fixtures
NEW_PATH = "/dev/disk/by-id/" + RUNNING_LEAF + "-part1"  # its path in the -P fixtures
GET = ["get", "-H", "-p", "-o", "name,property,value,source", "allocated,numchildren,slow_io_n,slow_io_t"]


RAIDZ_POOL = "rzpool"  # the pool of the raidz fixtures


def scaled(text):
    """The get's allocated figures times ZR_TOTAL over a new disk's share of the first top-level vdev."""
    if "ZR_TOTAL" not in os.environ:
        return text
    rows = [line.split("\t") for line in text.splitlines()]
    value = {(r[0], r[1]): r[2] for r in rows if len(r) == 4}
    top = next(r[0] for r in rows if r[0].startswith(("mirror-", "raidz")))
    share = int(value[top, "allocated"])
    if top.startswith("raidz"):
        share /= int(value[top, "numchildren"])
    ratio = int(os.environ["ZR_TOTAL"]) / share
    out = []
    for r in rows:
        if len(r) == 4 and r[1] == "allocated":
            r[2] = str(round(int(r[2]) * ratio))
        out.append("\t".join(r))
    return "\n".join(out) + "\n"


def slow_io(args):
    """zpool status -P POOL, zpool get ... POOL all-vdevs: 0 answered, None not asked."""
    e = os.environ
    pool = e.get("ZR_POOL", "dpool")
    if args == ["status", "-P", pool]:
        name = "status-P-replacing.txt"
    elif args == GET + [pool, "all-vdevs"]:
        name = e.get("ZR_SLOWIO")
        if not name:
            sys.stderr.write("bad property list: invalid property 'slow_io_n'\n")
            return 2
    elif args == ["status", "-P", RAIDZ_POOL]:
        name, pool = "status-P-raidz-degraded.txt", RAIDZ_POOL
    elif args == GET + [RAIDZ_POOL, "all-vdevs"]:
        name, pool = "get-raidz-degraded.txt", RAIDZ_POOL
    elif len(args) == 3 and args[:2] == ["status", "-P"]:
        # zpool_open_canfail()'s words (lib/libzfs/libzfs_pool.c), zpool's exit 1
        sys.stderr.write(f"cannot open '{args[2]}': no such pool\n")
        return 1
    else:
        return None
    if e.get("ZPOOL_VDEV_NAME_PATH") != "1":
        sys.stderr.write("zpool-replay: leaves are named by path only with ZPOOL_VDEV_NAME_PATH=1\n")
        return 3
    with open(os.path.join(e["ZR_FIXTURES"], name)) as f:
        text = f.read()
    if args[0] == "get":
        text = scaled(text)
    if pool == RAIDZ_POOL:
        sys.stdout.write(text)
        return 0
    text = text.replace(NEW_PATH, e["ZR_PATH"]).replace("pool: dpool", "pool: " + pool)
    sys.stdout.write(text.replace("\tdpool ", "\t" + pool + " "))
    return 0


def sectors_written(dev):
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == dev:
                return int(p[9])
    raise SystemExit(f"zpool-replay: no {dev} in /proc/diskstats")


def leaf_and_pool(doc):
    pool = next(iter(doc["pools"].values()))
    mirror = pool["vdevs"][pool["name"]]["vdevs"]["mirror-0"]
    return pool, mirror["vdevs"]


def main():
    answered = slow_io(sys.argv[1:])
    if answered is not None:
        return answered
    if sys.argv[1:] != ["status", "-jp", "--json-int"] or "ZR_STATE" not in os.environ:
        sys.stderr.write("invalid option: zpool-replay answers only 'status -jp --json-int'\n")
        return 2
    e = os.environ
    state = e["ZR_STATE"]
    try:
        with open(os.path.join(state, "start")) as f:
            start_s, base = f.read().split()
    except FileNotFoundError:
        sys.stderr.write("no pools available\n")  # before the attach: zpool's answer with no pool
        return 1
    total = int(e["ZR_TOTAL"])
    written = (sectors_written(e["ZR_DEV"]) - int(base)) * 512
    end = None
    if os.path.exists(os.path.join(state, "end")):
        with open(os.path.join(state, "end")) as f:
            end = int(float(f.read().split()[0]))
    name = "json-resilvered.json" if end is not None else "json-resilver.json"
    with open(os.path.join(e["ZR_FIXTURES"], name)) as f:
        doc = json.load(f)
    pool, leaves = leaf_and_pool(doc)
    scan = pool["scan_stats"]
    leaf = leaves[RUNNING_LEAF]
    # the recorded ratios, taken from the fixture before it is rewritten
    rec = leaf["scan_processed"]
    ratio = {k: scan[k] / rec for k in ("examined", "issued", "processed", "issued_bytes_per_scan")}
    done = total if end is not None else min(written, total)
    for k in ("to_examine", "bytes_per_scan"):
        scan[k] = total
    for k, r in ratio.items():
        scan[k] = min(total, int(done * r)) if end is None else total
    scan["start_time"] = scan["pass_start"] = int(float(start_s))
    scan["end_time"] = end if end is not None else 0
    leaf["scan_processed"] = done
    leaf["path"] = e["ZR_PATH"]
    leaf["guid"] = int(e["ZR_GUID"], 0)
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
