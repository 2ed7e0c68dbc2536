#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Reads Prometheus text pages for the end-to-end tests:
#   metrics.py get PAGE NAME [label=value ...]     print the value (exit 1 if absent)
#   metrics.py compare-node NODE_PAGE SMRD_PAGE    node_disk_* == smrd_disk_* per device
import re
import sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(path):
    out = []
    for line in open(path):
        m = LINE.match(line.strip())
        if not m or line.startswith('#'):
            continue
        labels = dict(LABEL.findall(m.group(3) or ''))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def value(samples, name, **want):
    """The value of the first sample named name with these labels, or None."""
    for n, labels, v in samples:
        if n == name and all(labels.get(k) == x for k, x in want.items()):
            return v
    return None


def get(path, name, want):
    for n, labels, v in parse(path):
        if n == name and all(labels.get(k) == x for k, x in want.items()):
            print('%.17g' % v)
            return 0
    return 1


def compare_node(node_path, smrd_path):
    smrd = {(n, l.get('device')): v for n, l, v in parse(smrd_path) if n.startswith('smrd_disk_')}
    devices = {d for (_, d) in smrd}
    compared = bad = 0
    for n, labels, v in parse(node_path):
        # the diskstats counters; node_exporter's udev-derived *_info series
        # (node_disk_info, filesystem_info, device_mapper_info) say what
        # smrd_disk_info and smrd_disk_membership_info say in their own form
        if not n.startswith('node_disk_') or n.endswith('_info') or n.startswith('node_disk_ata_'):
            continue
        dev = labels.get('device')
        if dev not in devices:
            continue
        key = ('smrd_' + n[len('node_'):], dev)
        if key not in smrd:
            print('missing in smrd: %s{device="%s"}' % key)
            bad += 1
        elif abs(smrd[key] - v) > 1e-9 * max(1.0, abs(v)):
            print('differs: %s{device="%s"} smrd=%r node=%r' % (key[0], dev, smrd[key], v))
            bad += 1
        compared += 1
    print('compared %d series on %d devices, %d differ' % (compared, len(devices), bad))
    return 1 if bad or compared == 0 else 0


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'get':
        sys.exit(get(sys.argv[2], sys.argv[3], dict(a.split('=', 1) for a in sys.argv[4:])))
    if cmd == 'compare-node':
        sys.exit(compare_node(sys.argv[2], sys.argv[3]))
    sys.exit(2)
