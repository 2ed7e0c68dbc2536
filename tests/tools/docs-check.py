#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The documents the man pages and the README cite are in the repository and
installed by the package; the README's exit codes are every one smrctl has;
contrib/smrd.conf shows every configuration key.

  docs-check.py SRCDIR
"""
import os
import re
import sys

src = sys.argv[1]
read = lambda p: open(os.path.join(src, p), encoding="utf-8").read()
meson = read("meson.build")
installed = set(re.findall(r"'((?:docs|contrib)/[^']+\.md)'", meson))
bad = []
for page in ["man/smrctl.8", "man/smrd.8", "man/smrd.conf.5", "README.md"]:
    for doc in sorted(set(re.findall(r"\bdocs/[a-z-]+\.md", read(page)))):
        if not os.path.exists(os.path.join(src, doc)):
            bad.append(f"{page} cites {doc}, which is not in the repository")
        elif page.startswith("man/") and doc not in installed:
            bad.append(f"{page} cites {doc}, which the package does not install (meson.build install_data)")
for doc in ["docs/qualify.md", "contrib/grafana/README.md", "contrib/prometheus/README.md"]:
    if doc not in installed:
        bad.append(f"{doc} is not installed")
# smrctl's exit codes, each in the README's list
codes = set(re.findall(r"#define EXIT_\w+ (\d+)", read("cli/smrctl.c")))
codes |= set(re.findall(r"interrupted \? (\d+) :", read("cli/qualify.c")))
m = re.search(r"Exit codes:(.*?)\n\n", read("README.md"), re.S)
listed = set(re.findall(r"\b(\d+) ", m.group(1))) if m else set()
for c in sorted(codes - listed, key=int):
    bad.append(f"README.md's exit codes leave out {c}")
# contrib/smrd.conf shows every key smrd takes (commented out, at its
# default) and no key it does not; the roots of a captured tree are for
# tests (README.md's flags), detect.* and disk.<ID>.* are shown by example
keys = set(re.findall(r'(?:ITEM|NUMBER)\("([a-z.-]+)"', read("core/config.c")))
shown = set(re.findall(r"^#([a-z][a-z.-]*) = ", read("contrib/smrd.conf"), re.M))
shown = {k for k in shown if not k.startswith(("detect.", "disk."))}
for k in sorted(keys - shown - {"sysfs-root", "procfs-root", "udev-root"}):
    bad.append(f"contrib/smrd.conf does not show the key {k} (core/config.c)")
for k in sorted(shown - keys):
    bad.append(f"contrib/smrd.conf shows {k}, which core/config.c does not take")
for b in bad:
    print("FAIL:", b)
print(f"{len(codes)} exit codes, {len(installed)} installed documents, {len(keys)} configuration keys checked")
sys.exit(1 if bad else 0)
