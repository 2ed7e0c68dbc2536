#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/notify/webhook's JSON, for hostile bytes in a field: the body must
# be strict UTF-8 that json.loads takes, with each field's valid UTF-8 kept
# and every other byte (overlong forms, UTF-16 surrogates, past U+10FFFF,
# cut short, stray continuation bytes) turned into U+FFFD, one per byte.
# curl is a stand-in here that writes the body it is given to a file.
#   webhook-json.py PATH-TO-WEBHOOK
import json, os, subprocess, sys, tempfile

hook = sys.argv[1]
cases = {
    "ascii, quotes, controls": b'a "q" \\ \x01\x1f\x7f\ttab',
    "valid 2, 3 and 4 bytes": "é € 😀".encode(),
    "edges that are valid": b"\xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf",
    "overlong 2 bytes": b"x\xc0\x80\xc1\xbfy",
    "overlong 3 bytes": b"x\xe0\x80\x80 \xe0\x9f\xbfy",
    "overlong 4 bytes": b"x\xf0\x80\x80\x80 \xf0\x8f\xbf\xbfy",
    "surrogates": b"x\xed\xa0\x80 \xed\xbf\xbfy",
    "past U+10FFFF": b"x\xf4\x90\x80\x80 \xf5\x80\x80\x80 \xffy",
    "cut short and stray": b"x\xe2\x82 \x80\xbf \xe2",
}

def per_byte(raw):
    """The expected text: valid sequences kept, any other byte U+FFFD."""
    out, i = [], 0
    while i < len(raw):
        b = raw[i]
        n = 1 if b < 0x80 else 2 if 0xc2 <= b <= 0xdf else 3 if 0xe0 <= b <= 0xef else 4 if 0xf0 <= b <= 0xf4 else 0
        try:
            out.append(raw[i:i + n].decode("utf-8") if n and i + n <= len(raw) else None)
        except UnicodeDecodeError:
            out.append(None)
        if out[-1] is None:
            out[-1] = "\ufffd"
            n = 1
        i += n
    return "".join(out)

failed = 0
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "curl"), "w") as f:
        f.write('#!/bin/sh\ncat >"$WEBHOOK_OUT"\n')
    os.chmod(os.path.join(d, "curl"), 0o755)
    for name, raw in cases.items():
        out = os.path.join(d, "body")
        env = {b"PATH": (d + ":/usr/bin:/bin").encode(), b"WEBHOOK_OUT": out.encode(),
               b"SMRD_WEBHOOK_URL": b"http://127.0.0.1:9/hook", b"SMRD_MESSAGE": raw, b"SMRD_MODEL": raw,
               b"SMRD_DEVICE": b"sda", b"SMRD_EVENT": b"stall", b"SMRD_HOST": b"h"}
        r = subprocess.run(["/bin/sh", hook], env=env, capture_output=True)
        body = open(out, "rb").read() if os.path.exists(out) else b""
        try:
            obj = json.loads(body.decode("utf-8"))	# strict: json.loads(bytes) would let surrogates pass
            ok = obj["message"] == per_byte(raw) and obj["model"] == per_byte(raw)
            why = "" if ok else f"message {obj['message']!r}, expected {per_byte(raw)!r}"
        except (UnicodeDecodeError, ValueError, KeyError) as e:
            ok, why = False, f"{type(e).__name__}: {e}; body {body[:120]!r}"
        ok = ok and r.returncode == 0
        print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok else ': exit %d %s' % (r.returncode, why)}")
        failed += not ok
print(f"webhook-json: {len(cases)} cases, {failed} failed")
sys.exit(1 if failed else 0)
