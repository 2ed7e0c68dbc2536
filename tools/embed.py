#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Turns a text file into a C string constant, so that smrd carries a copy of
# the model list and still classifies when the installed file is missing.
import sys

src, dst, symbol = sys.argv[1:4]
data = open(src, 'rb').read()
with open(dst, 'w') as out:
    out.write('/* generated from %s by tools/embed.py; do not edit */\n' % src.split('/')[-1])
    out.write('const char %s[] =\n' % symbol)
    for line in data.decode('utf-8').splitlines(True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\t', '\\t').replace('\n', '\\n')
        out.write('\t"%s"\n' % esc)
    out.write(';\n')
