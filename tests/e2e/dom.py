#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads a DOM that Chromium dumped (--dump-dom) of an smrd status page.

  dom.py rows FILE                 device, data-storm, state text, model text per row of #disks
  dom.py title FILE                the document's title
  dom.py count FILE TAG            how many TAG elements the DOM has
  dom.py state FILE                data-storm of #state, and its text
  dom.py rate FILE                 the writes/s plot: age and rate per bar, oldest first
  dom.py events FILE [TABLE]       the disk page's event table (or #TABLE): time and kind per row
  dom.py why FILE                  each row's "why" cell (list), or the class line's reason (disk page)
  dom.py heat FILE OP              per heatmap column (oldest first): age, I/Os, median and max
                                   cell latency (data-lo, seconds)
  dom.py marks FILE                the timeline's marks: class and title
"""
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.elems = []		# (tag, attrs, text parts), in document order
        self.counts = {}

    def handle_starttag(self, tag, attrs):
        e = (tag, dict(attrs), [])
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.elems.append(e)
        if tag not in ("meta", "link", "br", "img", "input"):
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.elems.append((tag, dict(attrs), []))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for e in self.stack:
            e[2].append(data)


def load(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    return d


def text(e):
    return "".join(e[2]).strip()


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    d = load(path)
    if cmd == "title":
        print(next((text(e) for e in d.elems if e[0] == "title"), ""))
    elif cmd == "count":
        print(d.counts.get(sys.argv[3], 0))
    elif cmd == "rows":
        # each row's elements up to the next row: its state cell (class
        # "storm") and its model cell (class "model", the serial under it in
        # a span of its own, left out)
        rows = []
        for e in d.elems:
            if e[0] == "tr":
                rows.append([e])
            elif rows:
                rows[-1].append(e)
        for r in rows:
            if "data-device" not in r[0][1]:
                continue
            cls = lambda e: e[1].get("class", "").split()
            state = next((text(e) for e in r if e[0] == "td" and "storm" in cls(e)), "")
            model = next((text(e) for e in r if e[0] == "td" and "model" in cls(e)), "")
            serial = next((text(e) for e in r if e[0] == "span" and "serial" in cls(e)), "")
            if serial and model.endswith(serial):
                model = model[:-len(serial)]
            print(r[0][1]["data-device"], r[0][1].get("data-storm"), state, model, sep="\t")
    elif cmd == "state":
        e = next(e for e in d.elems if e[0] == "p" and e[1].get("id") == "state")
        print(e[1].get("data-storm"), text(e), sep="\t")
    elif cmd == "heat":
        op = sys.argv[3]
        inside, cols = False, []
        for e in d.elems:
            if e[0] == "svg":
                inside = e[1].get("class") == "heatmap" and e[1].get("data-op") == op
            elif inside and e[0] == "g" and "data-age" in e[1]:
                cols.append((float(e[1]["data-age"]), []))
            elif inside and e[0] == "rect" and "data-lo" in e[1] and cols:
                cols[-1][1].append((float(e[1]["data-lo"]), int(e[1]["data-n"])))
        for age, cells in cols:
            n = sum(c for _, c in cells)
            acc, median = 0, 0.0
            for lo, c in sorted(cells):
                acc += c
                if acc * 2 >= n:
                    median = lo
                    break
            print(f"{age:.0f}\t{n}\t{median:g}\t{max(lo for lo, _ in cells):g}")
    elif cmd == "why":
        # the list: device and its "why" cell per row; a disk page: its class line's reason
        row = None
        for e in d.elems:
            if e[0] == "tr" and "data-device" in e[1]:
                row = e[1]["data-device"]
            elif row and e[0] == "td" and "why" in e[1].get("class", "").split():
                # the list shortens it: the whole is the title of its span
                whole = [x[1]["title"] for x in d.elems[d.elems.index(e) + 1:][:1] if "title" in x[1]]
                print(row, whole[0] if whole else text(e), sep="\t")
                row = None
            elif e[0] == "p" and e[1].get("id") == "class":
                print("page", text(e).split(": ", 1)[-1], sep="\t")
    elif cmd == "rate":
        # the writes/s plot: age and rate per bar, oldest first
        for e in d.elems:
            if e[0] == "rect" and "bar" in e[1].get("class", "").split() and "data-rate" in e[1]:
                print(e[1]["data-age"], e[1]["data-rate"], sep="\t")
    elif cmd == "events":
        # the disk page's event table (or the one of id TABLE): time and kind per row
        table, inside, row = sys.argv[3] if len(sys.argv) > 3 else "events", False, []
        for e in d.elems:
            if e[0] == "table":
                inside = e[1].get("id") == table
            elif inside and e[0] == "tr":
                if len(row) >= 2:
                    print(*row[:2], sep="\t")
                row = []
            elif inside and e[0] == "td":
                row.append(text(e))
        if len(row) >= 2:
            print(*row[:2], sep="\t")
    elif cmd == "marks":
        for i, e in enumerate(d.elems):
            if e[0] == "rect" and "mark" in e[1].get("class", "").split():
                print(e[1]["class"], text(e), sep="\t")
    else:
        sys.exit(f"dom.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
