#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An SMTP server on 127.0.0.1 (aiosmtpd, as Debian packages it) that keeps
# every message it is given: DIR/N.eml (the data as received) and
# DIR/N.json (the envelope: sender and recipients). Prints its port, then
# serves until killed.
import json, os, socket, sys, time
from aiosmtpd.controller import Controller

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class Keep:
    n = 0

    async def handle_DATA(self, server, session, envelope):
        Keep.n += 1
        with open(f"{out}/{Keep.n}.eml", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        with open(f"{out}/{Keep.n}.json", "w") as f:
            json.dump({"from": envelope.mail_from, "to": envelope.rcpt_tos, "t": time.time()}, f)
        return "250 kept"


# aiosmtpd 1.4 checks its server by connecting to the port it was given:
# not 0, so a free one is picked first
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
c = Controller(Keep(), hostname="127.0.0.1", port=port)
c.start()
print(port, flush=True)
while True:
    time.sleep(3600)
