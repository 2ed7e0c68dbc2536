#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The emulated DM-SMR disks qualify's disk model is judged on, drawn from
a seed: the one source of the draw for tests/e2e/86-qualify-model.sh (on
the kernel path) and tests/unit/test-qualify-virtual.c (in model time).

  qmodel.py draw SEED I        one draw: 'SMR-EMU OPTIONS|QUEUE DEPTH|BACK'
  qmodel.py table SEEDFILE     every draw a seed file names, one a line:
                               'SEED I|OPTIONS|QD|BACK'
  qmodel.py table --seed S --draws N   draws 1..N of seed S
  qmodel.py live SEEDFILE      the draws marked 'live', as 'SEED I' lines

A seed file line is 'SEED DRAWS [live]  # why', DRAWS like 3, 1-8 or 2,5.
BACK is the idle, in seconds, the drawn disk needs from where writes wait
before it takes writes fast again."""
import random
import sys

# The disk: few bands, so that each band rewrite frees enough for idle
# recovery to show within a minute; 86 creates it at this size.
DISK_MIB = 512
HIGH, LOW = 0.9, 0.8


def draw(seed, i):
    rng = random.Random(seed * 1000 + i)
    cache = rng.uniform(12, 40)
    band = rng.choice([2, 4, 8])
    # One band rewrite takes 0.21-0.6 s (published: 0.29-2 s): a wait
    # qualify must see. Its wait floor is 0.1 s (cliff.c's stall; half a
    # rewrite once the rewrite time is known), and the draw keeps clear of
    # it by 2x: nearer, a host's hiccup on top of a rewrite decides whether
    # it counts. The range once went down to 0.15 s; lifting only what fell
    # under keeps every other draw of a seed as it was drawn then. Draw
    # 1054011591 once cleaned 2 MiB bands at 29.8 MiB/s, 67 ms: no waits.
    clean = min(max(band / max(rng.uniform(0.15, 0.6), 0.21), 3), 30)
    idle = rng.randint(200, 1000)
    slow = rng.choice(["serial", "mixed"])
    qd = rng.choice([1, 4])
    clean = round(clean, 1)
    back = idle / 1000 + ((HIGH - LOW) * DISK_MIB / clean if slow == "serial" else 0)
    opts = (f"--seed {rng.randint(1, 1 << 30)} --cache-mib {cache:.2f} --band-mib {band} --clean-mibs {clean:.1f} "
            f"--idle-ms {idle} --slow {slow} --high-water {HIGH} --low-water {LOW} --stats")
    return f"{opts}|{qd}|{back:.1f}"


def draws_of(spec):
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def seed_lines(path):
    """(seed, draw, live) of every draw the seed file names."""
    for line in open(path, encoding="utf-8"):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) < 2 or len(words) > 3 or (len(words) == 3 and words[2] != "live"):
            sys.exit(f"qmodel.py: {path}: bad line: {line.strip()}")
        for i in draws_of(words[1]):
            yield int(words[0]), i, len(words) == 3


def main(argv):
    if len(argv) == 4 and argv[1] == "draw":
        print(draw(int(argv[2]), int(argv[3])))
    elif len(argv) == 6 and argv[1:3] == ["table", "--seed"] and argv[4] == "--draws":
        for i in range(1, int(argv[5]) + 1):
            print(f"{argv[3]} {i}|{draw(int(argv[3]), i)}")
    elif len(argv) == 3 and argv[1] == "table":
        for seed, i, _ in seed_lines(argv[2]):
            print(f"{seed} {i}|{draw(seed, i)}")
    elif len(argv) == 3 and argv[1] == "live":
        for seed, i, live in seed_lines(argv[2]):
            if live:
                print(f"{seed} {i}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
