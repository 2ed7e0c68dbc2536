#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# An HTTP server on 127.0.0.1 that keeps each POST's body as DIR/N.body
# (and its headers as DIR/N.headers) and answers 200. Prints its port.
import http.server, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 0


class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global n
        n += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(f"{out}/{n}.body", "wb") as f:
            f.write(body)
        with open(f"{out}/{n}.headers", "w") as f:
            f.write(f"{self.path}\n{self.headers}")
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, *a):
        pass


s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
