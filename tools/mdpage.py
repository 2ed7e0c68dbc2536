#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Renders a Markdown document with cmark (CommonMark; raw HTML in it is
# dropped) into a C string constant, each heading given the id GitHub
# would give it, so that a runbook link like /docs/alerts#smrdestagestorm
# lands on its section when smrd serves the page.
import html
import re
import subprocess
import sys

cmark, src, dst, symbol = sys.argv[1:5]
body = subprocess.run([cmark, "--safe", src], check=True, capture_output=True, text=True).stdout


def slug(inner):
    text = html.unescape(re.sub(r"<[^>]+>", "", inner)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


seen = {}


def heading(m):
    level, inner = m.group(1), m.group(2)
    s = slug(inner)
    n = seen.get(s, 0)
    seen[s] = n + 1
    anchor = s if n == 0 else f"{s}-{n}"
    return f'<h{level} id="{anchor}">{inner} <a class="anchor" href="#{anchor}">#</a></h{level}>'


body = re.sub(r"<h([1-6])>(.*?)</h\1>", heading, body, flags=re.S)
with open(dst, "w") as out:
    out.write("/* generated from %s by tools/mdpage.py; do not edit */\n" % src.split("/")[-1])
    out.write("const char %s[] =\n" % symbol)
    for line in body.splitlines(True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
        out.write('\t"%s"\n' % esc)
    out.write(";\n")
