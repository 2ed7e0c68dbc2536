#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# fill-files.py DIR MIB KIB SEED: MIB MiB of seeded random bytes in files of
# KIB KiB, named 0, 1, ... in DIR (made here). btrfs moves each extent in a
# write of its size, so small files make a move of many small writes, and
# the same seed the same file system each run (87-btrfs-move and its
# recorder, tests/fixtures/btrfs/record-move.sh).
import os
import random
import sys

d, mib, kib, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(d)
r = random.Random(seed)
for i in range(mib * 1024 // kib):
    with open(f"{d}/{i}", "wb") as f:
        f.write(r.randbytes(kib * 1024))
