#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# What the shipped notifiers (contrib/notify/mail, webhook) write, read as a
# person or a JSON parser reads it: a storm's mail says "destage storm" as
# the body, the pages and the events do; the webhook's JSON has each key
# once (a parser keeps one of two "message"s, whichever it likes); a test
# notification's title has no double space where no device is named.
# sendmail and curl are stand-ins that write what they are given to a file.
#   notifiers.py CONTRIB_NOTIFY_DIR
import json, os, subprocess, sys, tempfile

hooks = sys.argv[1]
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def run(hook, d, **env):
    out = os.path.join(d, "out")
    if os.path.exists(out):
        os.unlink(out)
    base = {"PATH": d + ":/usr/bin:/bin", "OUT": out, "SENDMAIL": os.path.join(d, "sendmail"),
            "SMRD_WEBHOOK_URL": "http://127.0.0.1:9/hook", "SMRD_HOST": "nas", "SMRD_MAILTO": "root"}
    r = subprocess.run(["/bin/sh", os.path.join(hooks, hook)], env={**base, **env}, capture_output=True)
    return r.returncode, open(out, encoding="utf-8").read() if os.path.exists(out) else ""


def pairs(kv):
    keys = [k for k, _ in kv]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("duplicate key(s) " + ", ".join(dup))
    return dict(kv)


storm = {"SMRD_EVENT": "storm-start", "SMRD_DEVICE": "sdb", "SMRD_SEVERITY": "warning", "SMRD_MODEL": "WDC WD40EFAX",
         "SMRD_SERIAL": "WD-1", "SMRD_INCIDENT": "sdb-storm-1", "SMRD_FOLLOW_UP": "0",
         "SMRD_MESSAGE": "destage storm: writes 2500/s -> 3/s", "SMRD_ADVICE": "Pause the random writes."}
test = {"SMRD_EVENT": "test", "SMRD_DEVICE": "", "SMRD_SEVERITY": "info", "SMRD_MESSAGE": "a test from smrctl notify-test"}
with tempfile.TemporaryDirectory() as d:
    for tool in ("sendmail", "curl"):
        with open(os.path.join(d, tool), "w") as f:
            f.write('#!/bin/sh\ncat >"$OUT"\n')
        os.chmod(os.path.join(d, tool), 0o755)

    for event, follow in (("storm-start", "0"), ("storm-end", "1")):
        rc, mail = run("mail", d, **{**storm, "SMRD_EVENT": event, "SMRD_FOLLOW_UP": follow})
        subject = next((l for l in mail.splitlines() if l.startswith("Subject: ")), "")
        check(rc == 0 and "sdb destage storm (WDC WD40EFAX WD-1)" in subject and "write-cache" not in mail,
              f"mail, {event}: {subject!r} says destage storm, as the body, pages and events do")
    rc, mail = run("mail", d, **test)
    subject = next((l for l in mail.splitlines() if l.startswith("Subject: ")), "")
    check(rc == 0 and subject == "Subject: [smrd] nas: test notification", f"mail, test: {subject!r}")

    for name, env, title in (("storm-start", storm, "smrd nas: sdb storm-start"), ("test", test, "smrd nas: test")):
        rc, body = run("webhook", d, **env)
        try:
            obj = json.loads(body, object_pairs_hook=pairs)
            why = ""
        except ValueError as e:
            obj, why = {}, str(e)
        check(rc == 0 and not why, f"webhook, {name}: every key once{': ' + why if why else ''}")
        check(obj.get("title") == title and "  " not in obj.get("text", "  "),
              f"webhook, {name}: title {obj.get('title')!r}, no double space in it or the text")
        check(obj.get("message") == env["SMRD_MESSAGE"], f"webhook, {name}: the message is SMRD_MESSAGE")
print(f"notifiers: {failed} failed")
sys.exit(1 if failed else 0)
