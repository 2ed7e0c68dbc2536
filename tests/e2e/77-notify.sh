#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# notify-command end to end (issue 30): an emulated DM-SMR disk storms
# while smrd watches it, with the shipped mail notifier delivering through
# msmtp (a real MTA) to an SMTP server on 127.0.0.1 (aiosmtpd) and the
# webhook notifier posting to an HTTP server, behind a wrapper that keeps
# each run's environment. The disk's udev identity is hostile: quotes,
# $(...), backticks and a "Bcc:" header in its model and serial. Then:
#   - within 10 s of the storm: one storm-start notification with the
#     behaviour verdict folded in (notify-coalesce), the end as the start's
#     follow-up, threaded (Message-ID, In-Reply-To, one subject), leading
#     with what to do and linking the disk page and runbook; the stalls
#     before it aggregated, those in it counted in its thread (its end says
#     how many)
#     (notify-interval 2 s in the gate, 5 s in the soak), every variable
#     set; none for the CMR twin;
#   - the mail has exactly one recipient and no header the identity
#     brought; the webhook JSON parses with the strings intact; nothing ran;
#   - a restart on the same state directory sends nothing again;
#   - smrctl ack silences the disk (the ack survives a restart), smrctl acks
#     lists it with its expiry, smrctl unack withdraws it;
#   - smrctl notify-test: a test mail through the same path, the hook's
#     exit and output told; a clear refusal with no notify-command;
#   - the notifiers alone, with newlines in every value: still one
#     recipient, no extra header, intact JSON;
#   - a hook that hangs, fails or floods: killed at notify-timeout,
#     counted, its output cut, and sampling goes on at its pace.
. "$(dirname "$0")/lib.sh"
use_emu
need msmtp
need curl
PY=/usr/bin/python3
$PY -c 'import aiosmtpd' 2>/dev/null || { fail "python3-aiosmtpd is missing: scripts/install-deps.sh --tests installs it"; finish; }
NOTIFY=$SRCDIR/contrib/notify
# The gate writes for as long as a storm, its stalls and its end take to
# come; the soak (SMRD_SOAK=1) at the full scale, with notify-interval 5.
if [ "${SMRD_SOAK:-0}" = 1 ]; then
	NI=5 RT1=20 RT2=25 RT3=12 RT4=25
else
	NI=2 RT1=10 RT2=12 RT3=8 RT4=10
fi

rm -f /tmp/pwned-smrd /tmp/pwned-smrd2
step "an SMTP server, an HTTP server, msmtp"
$PY "$SRCDIR/tests/e2e/smtp-sink.py" "$T/mail" >"$T/smtp.port" 2>"$T/smtp.log" &
SMTP_PID=$!
$PY "$SRCDIR/tests/e2e/http-sink.py" "$T/hook" >"$T/http.port" 2>"$T/http.log" &
HTTP_PID=$!
at_exit "kill $SMTP_PID $HTTP_PID 2>/dev/null; rm -f /tmp/pwned-smrd /tmp/pwned-smrd2"
wait_until 20 "the SMTP server" test -s "$T/smtp.port"
wait_until 20 "the HTTP server" test -s "$T/http.port"
SMTP_PORT=$(cat "$T/smtp.port") HTTP_PORT=$(cat "$T/http.port")
cat >"$T/msmtprc" <<EOF
account default
host 127.0.0.1
port $SMTP_PORT
auth off
tls off
from smrd@test.invalid
EOF
chmod 600 "$T/msmtprc"
# the MTA as sendmail -t sees it: msmtp with the test's configuration
printf '#!/bin/sh\nexec msmtp -C %s "$@"\n' "$T/msmtprc" >"$T/sendmail"
chmod +x "$T/sendmail"
# the hook: keeps its environment (NUL-separated: values may hold newlines),
# then the two shipped notifiers
mkdir -p "$T/env"
cat >"$T/hook.sh" <<EOF
#!/bin/sh
f=$T/env/\$(date +%s%N).\$\$
env -0 >"\$f.tmp" && mv "\$f.tmp" "\$f"
SENDMAIL=$T/sendmail $NOTIFY/mail || exit \$?
exec $NOTIFY/webhook
EOF
chmod +x "$T/hook.sh"

step "two emulated disks; the DM-SMR one with a hostile identity from a udev database"
emu_up SMR smr dm-smr --seed 41 || exit 1
emu_up CMR cmr cmr --seed 42 || exit 1
S=${SMR#/dev/} C=${CMR#/dev/}
MODEL='ACME 6000 "x" $(touch /tmp/pwned-smrd) `id` Bcc: e@x.org'
SERIAL='WD-$(touch /tmp/pwned-smrd2)`id`;Bcc:e@x.org'
mkdir -p "$T/udev/data"
printf 'E:ID_MODEL=%s\nE:ID_SERIAL_SHORT=%s\nE:ID_WWN=0x50014ee2b1c2d3e4\n' "$MODEL" "$SERIAL" \
	>"$T/udev/data/b$(cat "/sys/block/$S/dev")"
printf 'E:ID_MODEL=CMR twin\nE:ID_SERIAL_SHORT=CMR-0001\n' >"$T/udev/data/b$(cat "/sys/block/$C/dev")"
SMRD_ARGS=(--interval 1 --include "^($S|$C)\$" --exclude '^$' --udev-root "$T/udev"
	--notify-command "$T/hook.sh" --notify-interval "$NI" --notify-timeout 20 --notify-mailto admin@example.com
	--notify-webhook-url "http://127.0.0.1:$HTTP_PORT/smrd" --notify-coalesce 4 --notify-url http://nas.example:9184/)
start_smrd "${SMRD_ARGS[@]}"
check "smrd shows the hostile model as udev gave it" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "--socket", sys.argv[2], "--json", "show", sys.argv[3]],
                              capture_output=True, check=True).stdout)
print("  model:", d.get("model"), " serial:", d.get("serial"))
sys.exit(d.get("model") != sys.argv[4])' "$SMRCTL" "$SOCK" "$S" "$MODEL"

# What each hook run saw: one JSON object per line, in the order they ran.
envs() {
	python3 - "$T/env" <<'PY'
import json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    if f.endswith(".tmp"):
        continue
    raw = open(os.path.join(d, f), "rb").read().split(b"\0")
    e = dict(x.decode("utf-8", "surrogateescape").split("=", 1) for x in raw if b"=" in x)
    e["_t"] = int(f.split(".")[0]) / 1e9
    print(json.dumps(e))
PY
}

step "random writes through the cliff on both"
emu_bg run_fio smr "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT1 --randseed=41
emu_bg run_fio cmr "$CMR" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT1 --randseed=42
wait_bg 120 "the writers"
wait_until 30 "the storm's end" sh -c "'$SMRCTL' --socket '$SOCK' --json events --device $S | grep -q storm-end"
# Settled once the storm's end was sent (the stalls are in its incident's
# thread: its end counts them, or in notes of their own before it) and
# each run's mail and POST arrived.
settled() {
	envs >"$T/envs.now" && ctl --json events --limit 1000 >"$T/events.now" || return 1
	python3 - "$T" "$S" <<'PY'
import glob, json, sys
T, S = sys.argv[1:3]
runs = [json.loads(l) for l in open(f"{T}/envs.now")]
mine = [r for r in runs if r["SMRD_DEVICE"] == S]
sys.exit(not (any(r["SMRD_EVENT"] == "storm-end" for r in mine)
              and len(glob.glob(f"{T}/mail/*.json")) == len(runs) == len(glob.glob(f"{T}/hook/*.body"))))
PY
}
WAIT_LOG=$T/smrd.log wait_until $((3 * NI + 20)) "the storm's end notified and every mail and POST delivered" settled
ctl --json events --limit 1000 >"$T/events.json"
envs >"$T/envs.jsonl"
check_by python3 - "$T" "$S" "$C" "$MODEL" "$SERIAL" "$NI" <<'PY'
import email, email.policy, glob, json, os, sys
T, S, C, MODEL, SERIAL = sys.argv[1:6]
NI = float(sys.argv[6])
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad += not ok
runs = [json.loads(l) for l in open(f"{T}/envs.jsonl")]
ev = json.load(open(f"{T}/events.json"))["events"]
mine = [r for r in runs if r["SMRD_DEVICE"] == S]
by = lambda k: [r for r in mine if r["SMRD_EVENT"] == k]
print(f"  {len(runs)} notification(s): " + ", ".join(f"{r['SMRD_EVENT']}x{r['SMRD_COUNT']}" for r in runs))
starts = [e for e in ev if e["device"] == S and e["kind"] == "storm-start"]
incs = [i for i in json.load(open(f"{T}/events.json"))["incidents"] if i["device"] == S]
n_stalls = sum(i["slow_ios"] for i in incs)
check(len(starts) >= 1, f"the disk stormed ({len(starts)} storm(s), {n_stalls} stall event(s))")
check(len(by("storm-start")) == len(starts) == 1, "exactly one storm-start notification, for the one storm")
rs = by("storm-start")
check(not by("behaviour") and rs and rs[0]["SMRD_CLASS"] == "dm-smr" and "behav" in rs[0]["SMRD_MESSAGE"].lower(),
      "the behaviour verdict folded into the storm's one notification, its class dm-smr: "
      + repr(rs[0]["SMRD_MESSAGE"][:160] if rs else None))
if starts and by("storm-start"):
    delay = by("storm-start")[0]["_t"] - starts[0]["logged"]
    print(f"  the hook ran {delay:.1f} s after the storm was flagged")
    check(0 <= delay <= 10, "... within 10 s")
ends = by("storm-end")
check(len(ends) == 1 and ends[0]["SMRD_FOLLOW_UP"] == "1" and by("storm-start") and
      ends[0]["SMRD_INCIDENT"] == by("storm-start")[0]["SMRD_INCIDENT"],
      "the storm's end is one follow-up with the start's incident id")
sent = sum(int(r["SMRD_COUNT"]) for r in by("stall"))
slow = [i for i in incs if i["slow_ios"]]
span = (max(i["last"] for i in slow) - min(i["start"] for i in slow)) if slow else 0
in_storm = sum(i["slow_ios"] for i in incs if i["kind"] == "storm")
told = ends[0].get("SMRD_SUMMARY", "") if ends else ""
check(len(by("stall")) <= span / NI + 2 and sent <= n_stalls and (not in_storm or f"{in_storm} slow I/O" in told),
      f"stalls aggregated: {len(by('stall'))} notification(s) standing for {sent} of {n_stalls} over {span:.0f} s; "
      f"the storm's end counts its {in_storm}: {told!r}")
check(not [r for r in runs if r["SMRD_DEVICE"] == C], "none for the CMR twin")
need = ["SMRD_EVENT", "SMRD_DEVICE", "SMRD_MODEL", "SMRD_SERIAL", "SMRD_WWN", "SMRD_POOL", "SMRD_CLASS",
        "SMRD_SEVERITY", "SMRD_MESSAGE", "SMRD_TIME", "SMRD_HOST", "SMRD_INCIDENT"]
r0 = by("storm-start")[0] if by("storm-start") else {}
check(all(k in r0 for k in need) and all(r0.get(k) for k in need if k != "SMRD_POOL"),
      "every variable set: " + " ".join(f"{k[5:]}={r0.get(k, '<unset>')[:24]!r}" for k in need))
check(r0.get("SMRD_MODEL") == MODEL and r0.get("SMRD_SERIAL") == SERIAL, "model and serial exactly as udev has them")
check(r0.get("SMRD_WWN") == "0x50014ee2b1c2d3e4", "the WWN")
check(not os.path.exists("/tmp/pwned-smrd") and not os.path.exists("/tmp/pwned-smrd2"), "nothing in the identity ran")
mails = sorted(glob.glob(f"{T}/mail/*.json"), key=lambda p: int(os.path.basename(p).split(".")[0]))
check(len(mails) == len(runs), f"{len(mails)} mail(s) delivered through msmtp, one per notification")
for m in mails:
    env = json.load(open(m))
    msg = email.message_from_bytes(open(m[:-5] + ".eml", "rb").read(), policy=email.policy.default)
    if env["to"] != ["admin@example.com"] or "Bcc" in msg or "\n" in str(msg["Subject"]):
        check(False, f"mail {m}: recipients {env['to']}, headers {list(msg.keys())}")
        break
else:
    check(bool(mails), "each mail: exactly one recipient (admin@example.com), no Bcc header, a one-line subject")
m1 = email.message_from_bytes(open(mails[0][:-5] + ".eml", "rb").read(), policy=email.policy.default) if mails else None
if m1:
    body = m1.get_content()
    check(S in m1["Subject"] and "ACME 6000" in m1["Subject"] and MODEL in body and SERIAL in body,
          f"the mail names device, model and serial: {m1['Subject']!r}")
hooks = sorted(glob.glob(f"{T}/hook/*.body"), key=lambda p: int(os.path.basename(p).split(".")[0]))
js = [json.load(open(h)) for h in hooks]
check(len(js) == len(runs) and all(j["model"] == MODEL and j["serial"] == SERIAL for j in js),
      f"{len(js)} webhook POST(s), each JSON with model and serial intact")
# the storm's two mails, as a mail client sees them (and as the report shows them)
ms = [email.message_from_bytes(open(m[:-5] + ".eml", "rb").read(), policy=email.policy.default) for m in mails]
ss = [m for m in ms if m["X-smrd-Incident"] == (rs[0]["SMRD_INCIDENT"] if rs else "?")]
for m in ss:
    print("  ---- mail as received ----\n" + "\n".join("  | " + l for l in m.as_string().splitlines()))
if len(ss) == 2:
    a, b = ss
    base = lambda s: str(s).removeprefix("Re: ")
    check(a["Message-ID"] and b["In-Reply-To"] == a["Message-ID"] and a["Message-ID"] in str(b["References"])
          and b["Message-ID"] != a["Message-ID"] and base(a["Subject"]) == base(b["Subject"]),
          f"start and end thread: {a['Message-ID']} <- {b['In-Reply-To']}, one subject {base(a['Subject'])!r}")
    body = a.get_content()
    check(body.startswith("What to do: Pause or throttle the random writes") and "Do not start a resilver" in body,
          "the first mail leads with what to do")
    check(f"http://nas.example:9184/disk/{S}" in body and "http://nas.example:9184/docs/alerts#smrdestagestorm" in body,
          "it links the disk page and the runbook on this smrd (notify-url)")
    check(f"sudo smrctl ack {S}" in body and f"/dev/{S} (dm-smr)" in body and "(unknown)" not in body,
          "its ack line has sudo; the class is stated once, dm-smr")
else:
    check(False, f"the storm's start and end: {len(ss)} mail(s)")
sys.exit(bad)
PY
N1=$(envs | wc -l)

step "a restart on the same state directory sends nothing again"
stop_smrd
start_smrd "${SMRD_ARGS[@]}"
# what a restart could repeat would go out at its first samples, or at the
# latest notify-interval later: a few samples past that
samples_past() { [ "$(scrape | sed -n 's/^smrd_diskstats_samples_total //p')" -ge "$1" ]; }
wait_until 30 "smrd to take $((NI + 4)) samples after the restart" samples_past $((NI + 4))
check "no notification after the restart ($(envs | wc -l) against $N1)" test "$(envs | wc -l)" = "$N1"

step "smrctl ack silences the disk, and the ack survives a restart"
check "smrctl ack $S" ctl ack "$S"
ctl ack "$S" | sed 's/^/  /'
check "smrctl ack --for 2h (a kind of its own)" ctl ack "$S" stall --for 2h
check "a bad --for is a usage error (exit 2)" bash -c "'$SMRCTL' --socket '$SOCK' ack '$S' --for soon 2>/dev/null; test \$? = 2" 
check "an unknown kind is a usage error (exit 2), naming the kinds" \
	bash -c "'$SMRCTL' --socket '$SOCK' ack '$S' nonsense 2>'$T/kind.err'; test \$? = 2 && grep -q \"'nonsense' is not an event kind\" '$T/kind.err'"
stop_smrd
start_smrd "${SMRD_ARGS[@]}"
run_fio smr2 "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT2 --randseed=43 >/dev/null || fail "fio after the ack"
# what the writes brought was judged, and what a summary would have sent
# is due notify-interval after the writes
suppressed() { scrape | grep -q '^smrd_notifications_suppressed_total [1-9]'; }
wait_until $((NI + 10)) "a suppressed notification to be counted" suppressed
s_end=$(scrape | sed -n 's/^smrd_diskstats_samples_total //p')
ctl acks | sed 's/^/  /'
check "smrctl acks lists both after the restart, with their expiry" python3 -c '
import json, subprocess, sys
a = json.loads(subprocess.run([sys.argv[1], "--socket", sys.argv[2], "--json", "acks"], capture_output=True,
                              check=True).stdout)["acks"]
print("  ", [(x["device"], x["kind"], x["until"] and round(x["until"] - x["time"])) for x in a])
sys.exit(sorted((x["kind"], round(x["until"] - x["time"])) for x in a if x["device"] == sys.argv[3])
         != [("all", 86400), ("stall", 7200)])' "$SMRCTL" "$SOCK" "$S" 
wait_until $((NI + 10)) "notify-interval past the writes" samples_past $((s_end + NI + 1))
N2=$(envs | wc -l)
scrape >"$T/metrics2" || fail "scraping /metrics"
check "no notification for the acknowledged disk ($N2 against $N1)" test "$N2" = "$N1"
check "what it did instead is counted as suppressed" python3 -c '
import sys
v = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("smrd_notifications_suppressed_total ")]
print(f"  suppressed: {v}"); sys.exit(not v or v[0] < 1)' "$T/metrics2"
check "the history database holds the notifications, their results and the ack" python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
sends = db.execute("SELECT kind, result FROM notify_sends WHERE device = ?", (sys.argv[2],)).fetchall()
acks = db.execute("SELECT kind FROM notify_acks WHERE device = ?", (sys.argv[2],)).fetchall()
print(f"  {len(sends)} send(s), results {sorted(set(r for _, r in sends))}; acks {acks}")
sys.exit(not (("storm-start", "exit 0") in sends and ("all",) in acks))' "$T/state/events.db" "$S"
check "smrctl events lists what the disk did, not the notifier's records" sh -c "'$SMRCTL' --socket '$SOCK' events --device $S | grep -q 'storm-start' && ! '$SMRCTL' --socket '$SOCK' events --device $S | grep -q 'notify:\|ack:'"
check "the status page lists them" sh -c "curl -sf http://127.0.0.1:$PORT/ | grep -q 'id=\"notifications\"'"

check "smrctl unack $S withdraws them" sh -c "'$SMRCTL' --socket '$SOCK' unack $S | tee /dev/stderr | grep -q withdrawn"
check "smrctl acks: none left" sh -c "'$SMRCTL' --socket '$SOCK' acks | grep -q 'No acknowledgements'"

step "smrctl forget: the disk's acks and sent notifications go with its history"
check "smrctl forget $S" ctl forget "$S"
run_fio smr3 "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT3 --randseed=44 >/dev/null || fail "fio after forget"
news() { [ "$(envs | wc -l)" -gt "$N2" ]; }
wait_until $((NI + 15)) "a notification for the forgotten disk" news
N3=$(envs | wc -l)
check "the forgotten disk is news again ($N3 against $N2)" test "$N3" -gt "$N2"
stop_smrd

step "the notifiers alone, with newlines in every value"
rm -rf "$T/mail" "$T/hook"
mkdir -p "$T/mail" "$T/hook"
NL_MODEL=$(printf 'ST8000AS0002\nBcc: evil@example.com\nX-Evil: 1')
NL_SERIAL=$(printf 'Z84\r\nSubject: fake\n\n$(id)')
env -i PATH=/usr/bin:/bin SENDMAIL="$T/sendmail" SMRD_MAILTO=admin@example.com SMRD_EVENT=storm-start SMRD_DEVICE=sdz \
	SMRD_MODEL="$NL_MODEL" SMRD_SERIAL="$NL_SERIAL" SMRD_MESSAGE="$NL_MODEL" SMRD_HOST=h SMRD_INCIDENT=storm-1 \
	SMRD_SEVERITY=warning SMRD_WEBHOOK_URL="http://127.0.0.1:$HTTP_PORT/x" \
	sh -c "'$NOTIFY/mail' && '$NOTIFY/webhook'" || fail "the notifiers failed on newlines"
check "one recipient, no header from the values, intact JSON" python3 - "$T" "$NL_MODEL" "$NL_SERIAL" <<'PY'
import email, email.policy, json, sys
T, model, serial = sys.argv[1:4]
import glob
m = glob.glob(f"{T}/mail/*.json")
w = glob.glob(f"{T}/hook/*.body")
print(f"  {len(m)} mail(s), {len(w)} POST(s)")
env = json.load(open(m[0]))
msg = email.message_from_bytes(open(m[0][:-5] + ".eml", "rb").read(), policy=email.policy.default)
j = json.load(open(w[0]))
print(f"  to {env['to']}; headers {sorted(set(msg.keys()))}")
sys.exit(not (len(m) == len(w) == 1 and env["to"] == ["admin@example.com"] and "Bcc" not in msg and "X-Evil" not in msg
              and msg.get_all("Subject") and len(msg.get_all("Subject")) == 1
              and j["model"] == model and j["serial"] == serial))
PY
check "a bad recipient is refused" bash -c "! env -i SMRD_MAILTO='a@b.c
Bcc: x@y' SENDMAIL='$T/sendmail' '$NOTIFY/mail' 2>/dev/null"

step "smrctl notify-test: one test mail through the configured path"
start_smrd --interval 1 --include "^$S\$" --exclude '^$'
ctl notify-test >"$T/nt0" 2>&1; rc=$?
sed 's/^/  /' "$T/nt0"
check "with no notify-command: refused (exit 1), saying what to set" sh -c "test $rc = 1 && grep -q 'no notification is configured: set notify-command' '$T/nt0'"
stop_smrd
start_smrd --interval 1 --include "^$S\$" --exclude '^$' --notify-command "$T/hook.sh" \
	--notify-mailto admin@example.com --notify-webhook-url "http://127.0.0.1:$HTTP_PORT/smrd"
ctl notify-test >"$T/nt1" 2>&1; rc=$?
sed 's/^/  /' "$T/nt1"
check "it ran the hook and told its exit (0)" sh -c "test $rc = 0 && grep -q ': exit 0' '$T/nt1'"
check "the test mail arrived" python3 - "$T" <<'PY'
import email, email.policy, glob, sys
ms = [email.message_from_bytes(open(p, "rb").read(), policy=email.policy.default) for p in glob.glob(f"{sys.argv[1]}/mail/*.eml")]
t = [m for m in ms if "test notification" in str(m["Subject"])]
for m in t:
    print("  ---- test mail as received ----\n" + "\n".join("  | " + l for l in m.as_string().splitlines()))
sys.exit(len(t) != 1)
PY
stop_smrd

step "a hook that hangs, fails or floods"
# the storm's start hangs and is killed: not delivered, the verdict folded
# into it is due on its own, and its run floods, then fails
cat >"$T/bad.sh" <<'EOF'
#!/bin/sh
case $SMRD_EVENT in
storm-start) sleep 1000 ;;
behaviour) head -c 2000000 /dev/zero | tr '\0' 'x'; echo; echo "refusing"; exit 3 ;;
test) echo "sendmail: cannot connect to 127.0.0.1:25"; exit 75 ;;
*) head -c 2000000 /dev/zero | tr '\0' 'x'; echo ;;
esac
EOF
chmod +x "$T/bad.sh"
# a fresh disk: its cliff comes a few seconds into the writes
emu_up SMR3 smr3 dm-smr --seed 45 || exit 1
S3=${SMR3#/dev/}
rm -rf "$T/state"
# (the storm's start goes out notify-coalesce after the storm, 4 s as
# above rather than the default 10, and hangs for notify-timeout: both
# only set how long this takes)
start_smrd --interval 1 --include "^$S3\$" --exclude '^$' --notify-command "$T/bad.sh" \
	--notify-timeout 2 --notify-interval "$NI" --notify-coalesce 4
s0=$(scrape | sed -n 's/^smrd_diskstats_samples_total //p')
t0=$(now_ms)
run_fio smr3 "$SMR3" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT4 --randseed=44 >/dev/null || fail "fio with the bad hook"
# the hanging hook is reaped (and counted) once its session was killed
bad_done() {
	scrape >"$T/metrics3" && grep -q 'smrd_notifications_total{result="timeout"} [1-9]' "$T/metrics3" &&
		grep -q 'smrd_notifications_total{result="failed"} [1-9]' "$T/metrics3" &&
		grep -q "output past 4096 bytes not logged" "$T/smrd.log"
}
WAIT_LOG=$T/smrd.log wait_until 30 "the bad hook's runs to end, killed, failed and flooding" bad_done
scrape >"$T/metrics3" || fail "scraping /metrics"
s1=$(sed -n 's/^smrd_diskstats_samples_total //p' "$T/metrics3")
secs=$(( ($(now_ms) - t0) / 1000 ))
say "  $((s1 - s0)) samples in $secs s with the hook hanging, failing and flooding"
check "sampling kept its pace (at least 80% of a sample a second)" test $(( (s1 - s0) * 100 )) -ge $(( secs * 80 ))
grep '^smrd_notifications_total' "$T/metrics3" | sed 's/^/  /'
check "the hanging hook was killed at notify-timeout and counted" grep -q 'smrd_notifications_total{result="timeout"} [1-9]' "$T/metrics3"
check "the failing one counted as failed" grep -q 'smrd_notifications_total{result="failed"} [1-9]' "$T/metrics3"
check "its session went with it (no sleep 1000 left)" bash -c '! pgrep -f "^sleep 1000" >/dev/null'
check "the killing is logged" grep -q "ran past notify-timeout" "$T/smrd.log"
ctl notify-test >"$T/nt2" 2>&1; rc=$?
sed 's/^/  /' "$T/nt2"
check "a failing hook: notify-test exits 1 with the hook's exit and output" sh -c "test $rc = 1 && grep -q 'exit 75' '$T/nt2' && grep -q 'cannot connect' '$T/nt2'"
check "the flood's output is cut" grep -q "output past 4096 bytes not logged" "$T/smrd.log"
check "smrd's log holds at most 4 KiB of any one run's output" python3 -c '
import re, sys
per = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"notify-command \(\S+ \S+, pid (\d+)\): (x+)$", l.rstrip("\n"))
    if m:
        per[m.group(1)] = per.get(m.group(1), 0) + len(m.group(2))
print(f"  hook output logged per run: {sorted(per.values())} bytes"); sys.exit(not per or max(per.values()) > 4096)' "$T/smrd.log"
stop_smrd
finish
