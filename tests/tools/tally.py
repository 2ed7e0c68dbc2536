#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What tests/run (and tests/soak) make of a `meson test` log, apart from
the runner so that its rules are tested on synthetic logs
(tests/tools/test-tally.py):

  tally.py features
      checks SMRD_TESTS_ALLOW_MISSING: every name in it must be a feature
      some test can lack (FEATURES); a misspelt one would let nothing skip,
      a wrong one would let the wrong tests skip.
  tally.py results VARIANT LOG RC EXPECTED-FILE
      one line per test in meson's JSON log LOG (variant, name, result,
      seconds), then one line per failure that is no test's own: meson's
      exit status RC with no failed test, a test of EXPECTED-FILE (meson
      test --list) missing from the log, unreadable lines.
  tally.py budget RESULTS
      a budget file from a quiet run's RESULTS (tests/run keeps its last in
      BUILD/last-run.tsv): each test's seconds with a quarter more, at
      least 2, e2e scripts to 5 s; review it before it replaces the lines.
  tally.py report RESULTS BUDGET WALL_SECONDS TIER
      the run against tests/budget.tsv: each step's time against its
      tests' lines, every test over its line by more than 20% (and a
      second), every test without a line, and a gate over GATE_LIMIT.

A skip counts only when the test named the feature it lacks (a line
"SKIPPED [feature]: why", as lib.sh's unavailable() and test.h's
test_unavailable() print it) and SMRD_TESTS_ALLOW_MISSING names that
feature; any other skip is a failure: SKIP-UNNAMED or SKIP-NOT-ALLOWED.
"""
import json
import os
import re
import sys

# what a machine may truly lack (README): FUSE for the emulated disks, loop
# devices, BPF with the kernel's BTF, a root file system on a block device
# of its own (72-healthy-host), root itself (unit tests that mknod)
FEATURES = ('fuse', 'loop', 'bpf', 'rootdisk', 'root')
SKIP_RE = re.compile(r'^SKIPPED \[([a-z0-9-]+)\]: ', re.M)
GATE_LIMIT = 18 * 60          # the gate's line; tests/budget.tsv adds up to less
OVER = 1.2                    # a test is flagged over 120% of its line...
OVER_MIN = 1.0                # ...and a second over it (noise on tiny tests)


def allowed_features():
    raw = os.environ.get('SMRD_TESTS_ALLOW_MISSING', '')
    return [f.strip() for f in raw.split(',') if f.strip()]


def cmd_features():
    bad = [f for f in allowed_features() if f not in FEATURES]
    if bad:
        print(f"SMRD_TESTS_ALLOW_MISSING names {', '.join(repr(b) for b in bad)}, which no test can lack "
              f"(the features are {', '.join(FEATURES)})")
        return 1
    return 0


def short(name):
    return name.split(' / ', 1)[-1]


def judge(result, stdout, allowed):
    """A test's result as the run counts it."""
    if result in ('OK', 'EXPECTEDFAIL'):
        return 'OK'
    if result != 'SKIP':
        return result
    named = SKIP_RE.findall(stdout or '')
    if not named:
        return 'SKIP-UNNAMED'
    return 'SKIP' if all(f in allowed for f in named) else 'SKIP-NOT-ALLOWED'


def cmd_results(variant, log, rc, expected_file):
    rc = int(rc)
    allowed = allowed_features()
    try:
        want = [short(n) for n in open(expected_file).read().splitlines() if n.strip()]
    except OSError as e:
        want = []
        print(f"{variant}\tmeson test --list: {e.strerror}\tFAIL\t0")
    rows, broken = [], 0
    try:
        lines = open(log).readlines()
    except OSError as e:
        print(f"{variant}\tmeson test {os.path.basename(log)}: no test log ({e.strerror})\tFAIL\t0")
        return 0
    for line in lines:
        try:
            r = json.loads(line)
            rows.append((short(r['name']), judge(r['result'], r.get('stdout'), allowed),
                         float(r.get('duration') or 0)))
        except (ValueError, KeyError, TypeError):
            broken += 1
    failed = 0
    for name, res, secs in rows:
        failed += res not in ('OK', 'SKIP')
        print(f"{variant}\t{name}\t{res}\t{secs:.2f}")
    seen = {r[0] for r in rows}
    missing = [n for n in want if n not in seen]
    if missing or broken:
        print(f"{variant}\tmeson test {os.path.basename(log)}: partial test log ({len(missing)} of {len(want)} tests "
              f"missing: {' '.join(missing[:8])}; {broken} unreadable lines)\tFAIL\t0")
    elif rc != 0 and failed == 0:
        print(f"{variant}\tmeson test {os.path.basename(log)} exited {rc} with no failed test in its log\tFAIL\t0")
    return 0


def read_budget(path):
    """tests/budget.tsv: 'variant<TAB>test<TAB>seconds', # comments."""
    budget = {}
    for n, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].rstrip('\n')
        if not line.strip():
            continue
        parts = line.split('\t')
        if len(parts) != 3:
            raise ValueError(f"{path}:{n}: want variant, test and seconds, tab-separated")
        budget[(parts[0], parts[1])] = float(parts[2])
    return budget


def cmd_report(results, budget_path, wall, tier):
    wall = float(wall)
    try:
        budget = read_budget(budget_path)
    except (OSError, ValueError) as e:
        print(f"budget: cannot read it: {e}")
        return 0
    rows = []
    for line in open(results):
        p = line.rstrip('\n').split('\t')
        if len(p) == 4:
            rows.append((p[0], p[1], p[2], float(p[3])))
    steps = {}
    over, unbudgeted = [], []
    for variant, name, res, secs in rows:
        if name.startswith('meson test'):
            continue
        line = budget.get((variant, name))
        s = steps.setdefault(variant, [0.0, 0.0])
        s[0] += secs
        if line is None:
            unbudgeted.append(f"{variant} {name} ({secs:.1f} s)")
            continue
        s[1] += line
        if secs > line * OVER and secs - line > OVER_MIN:
            over.append(f"{variant} {name}: {secs:.1f} s against {line:g} s (+{(secs / line - 1) * 100:.0f}%)")
    print(f"budget ({os.path.basename(budget_path)}): seconds taken against the lines of the tests that ran")
    for variant, (took, line) in steps.items():
        print(f"  {variant:6s} {took:8.1f} s against {line:8.1f} s")
    for o in over:
        print(f"  OVER BUDGET: {o}")
    for u in unbudgeted:
        print(f"  NO BUDGET LINE: {u}")
    limit = GATE_LIMIT if tier == 'gate' else None
    if limit and wall > limit:
        print(f"  OVER BUDGET: the gate took {wall:.0f} s, past its line of {limit} s: move a test to --full or buy the time back")
    elif limit:
        print(f"  the gate took {wall:.0f} s of its {limit} s line")
    if not over and not unbudgeted and (not limit or wall <= limit):
        print("  every test within its line")
    return 0


def cmd_budget(results):
    import math
    print("# The gate's time budget, a line per test: variant, test, seconds (tests/run")
    print("# flags a test 20% over its line, and a gate past 18 minutes). Made by")
    print("# tests/tools/tally.py budget from a quiet run, then read: a line that grows")
    print("# is a decision, taken in the commit that grows it.")
    for line in open(results):
        p = line.rstrip('\n').split('\t')
        if len(p) != 4 or p[1].startswith('meson test'):
            continue
        secs = float(p[3]) * 1.25
        secs = max(5, 5 * math.ceil(secs / 5)) if p[1].endswith('.sh') else max(2, math.ceil(secs))
        print(f"{p[0]}\t{p[1]}\t{secs:g}")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == 'features':
        return cmd_features()
    if len(argv) == 6 and argv[1] == 'results':
        return cmd_results(*argv[2:])
    if len(argv) == 3 and argv[1] == 'budget':
        return cmd_budget(argv[2])
    if len(argv) == 6 and argv[1] == 'report':
        return cmd_report(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
