#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for the service manager's notification socket: binds a datagram
# socket at PATH and appends "monotonic-seconds<TAB>message" lines to LOG
# (newlines in a message become '|') until killed.
import socket, sys, time
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(log, "a", buffering=1) as out:
    print(f"{time.monotonic():.3f}\tLISTENING", file=out)
    while True:
        data = s.recv(4096).decode(errors="replace")
        print(f"{time.monotonic():.3f}\t{data.replace(chr(10), '|')}", file=out)
