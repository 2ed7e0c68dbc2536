#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A captured-style tree of N disks (sys/, proc/diskstats, udev/data) for the
# scrape benchmark, built with the fixture generator's helpers: a third are
# WD Red EFAX (on the DM-SMR list), the rest CMR, all with VPD pages.
#   bench/make-fleet.py OUT N
import importlib.util
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("mk", os.path.join(here, "..", "tests", "fixtures", "make-sysfs.py"))
mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)


def name(i):
    # sda..sdz, sdaa..sdzz, sdaaa..: the kernel's own scheme
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return "sd" + s


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "proc"))
    for i in range(n):
        smr = i % 3 == 0
        model = "WDC WD40EFAX-68JH4N0" if smr else "WDC WD140EMFZ-11A0WA0"
        serial = "WD-FLEET%06d" % i
        mk.disk(out, name(i), 8 + i // 16, (i % 16) * 16, 7814037168, mk.hdd_queue(),
                mk.ata_dev(model[4:20], vendor="WDC"),
                vpd={"b1": mk.vpd_b1(5400), "89": mk.vpd_89(model, serial, rpm=5400)},
                hctl="%d:0:0:0" % i, host=i, port=i + 1, seed=i + 1,
                udev={"ID_MODEL": model.replace(" ", "_"), "ID_SERIAL": model.replace(" ", "_") + "_" + serial,
                      "ID_SERIAL_SHORT": serial, "ID_WWN": "0x5000c500%08x" % i, "ID_ATA_ROTATION_RATE_RPM": "5400"})


main()
