#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrd as a systemd service, without systemd as PID 1:
#   1. sd_notify to a socket of our own: READY=1 only after the first sample,
#      a meaningful STATUS=, WATCHDOG=1 gaps below WATCHDOG_USEC, pings
#      that stop while the process is stopped, RELOADING=1/READY=1 around
#      SIGHUP, STOPPING=1 on SIGTERM
#   2. socket activation with systemd-socket-activate: named fds, then
#      unnamed ones (recognised by family); a scrape and smrctl through them
#   3. SO_PEERCRED: an unprivileged member of the socket's group may read,
#      not reload/probe/forget; root may
#   4. the installed units: exposure from systemd-analyze security, the
#      journal catalog
#   5. as an unprivileged user with CAP_BPF and CAP_PERFMON only: the BPF tracer
# (the Debian package has a test of its own: 82-package.sh)
. "$(dirname "$0")/lib.sh"
need python3
need systemd-socket-activate
need curl

FIX=$SRCDIR/tests/fixtures/sysfs/mixed
FIXARGS=(--config /dev/null --sysfs-root "$FIX/sys" --procfs-root "$FIX/proc" --udev-root "$FIX/udev" --exclude '^$'
	--state-dir "$T/state")

# --- 1. sd_notify and the watchdog
step "sd_notify"
NS=$T/notify.sock
python3 "$SRCDIR/tests/e2e/notify-listener.py" "$NS" "$T/notify.log" &
LISTENER=$!
at_exit 'kill "$LISTENER" 2>/dev/null'
wait_until 10 "the notify listener to bind $NS" test -S "$NS"
T0=$(python3 -c 'import time; print(time.monotonic())')
NOTIFY_SOCKET=$NS WATCHDOG_USEC=2000000 bash -c 'export WATCHDOG_PID=$$; exec "$0" "$@"' "$SMRD" "${FIXARGS[@]}" \
	--interval 1 --listen 127.0.0.1:0 --socket "$T/n.sock" >"$T/n.log" 2>&1 &
SMRD_PID=$!
pings() { grep -c 'WATCHDOG=1$' "$T/notify.log"; }
# READY=1, then enough pings that their gaps mean something
WAIT_LOG=$T/n.log wait_until 15 "READY=1 and 6 watchdog pings" \
	bash -c "grep -q 'READY=1' '$T/notify.log' && [ \$(grep -c 'WATCHDOG=1\$' '$T/notify.log') -ge 6 ]"
kill -STOP "$SMRD_PID"
STOP_AT=$(python3 -c 'import time; print(time.monotonic())')
sleep 3	# longer than WatchdogSec: what systemd would see of a hung loop
n=$(pings)
CONT_AT=$(python3 -c 'import time; print(time.monotonic())')
kill -CONT "$SMRD_PID"
WAIT_LOG=$T/n.log wait_until 10 "a watchdog ping after SIGCONT" bash -c "[ \$(grep -c 'WATCHDOG=1\$' '$T/notify.log') -gt $n ]"
kill -HUP "$SMRD_PID"
WAIT_LOG=$T/n.log wait_until 10 "RELOADING=1, then READY=1, after SIGHUP" \
	awk '/RELOADING=1/ { r = 1; next } r && /READY=1/ { f = 1 } END { exit !f }' "$T/notify.log"
stop_pid "$SMRD_PID" 20 "smrd to exit after SIGTERM" "$T/n.log"; rc=$?
SMRD_PID=""
WAIT_LOG=$T/n.log wait_until 5 "STOPPING=1 to reach the listener" grep -q 'STOPPING=1' "$T/notify.log"
stop_pid "$LISTENER" 10 "the notify listener to exit"
check "smrd exited cleanly after SIGTERM ($rc)" [ "$rc" -eq 0 ]
check_by python3 - "$T/notify.log" "$T0" "$STOP_AT" "$CONT_AT" <<'PY'
import sys
log, t0, stop_at, cont_at = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
msgs = []
for line in open(log):
    t, m = line.rstrip("\n").split("\t", 1)
    if m != "LISTENING":
        msgs.append((float(t), m))
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
ready = [(t, m) for t, m in msgs if "READY=1" in m.split("|")]
check(len(ready) >= 1, "READY=1 sent")
if ready:
    t, m = ready[0]
    print(f"  first READY=1 {t - t0:.2f} s after start: {m}")
    check(t - t0 >= 0.9, "READY=1 only after the first sample (interval 1 s)")
    status = [p for p in m.split("|") if p.startswith("STATUS=")]
    check(status and "Watching" in status[0] and "disk" in status[0], "STATUS= says what smrd watches")
pings = [t for t, m in msgs if m == "WATCHDOG=1"]
before = [t for t in pings if t < stop_at]
gaps = [b - a for a, b in zip(before, before[1:])]
print(f"  {len(pings)} watchdog pings; before SIGSTOP the largest gap is {max(gaps) if gaps else float('nan'):.2f} s")
# the requirement itself, as 36-load judges it: systemd kills at WatchdogSec
check(len(before) >= 3 and max(gaps) < 2.0, "WATCHDOG=1 never further apart than WatchdogSec (2 s), pinged every 0.5 s")
check(not [t for t in pings if stop_at + 0.05 < t < cont_at - 0.05], "no ping while the process is stopped")
check([t for t in pings if cont_at < t < cont_at + 1.5], "pings resume after SIGCONT")
seq = [m for t, m in msgs if m != "WATCHDOG=1"]
rl = [i for i, m in enumerate(seq) if "RELOADING=1" in m]
check(rl and any("READY=1" in m for m in seq[rl[0] + 1:]), "RELOADING=1 then READY=1 around SIGHUP")
check(any("STOPPING=1" in m for m in seq), "STOPPING=1 on SIGTERM")
sys.exit(1 if bad else 0)
PY

# --- 2. socket activation
# quiet CMD...: CMD with its output dropped (a redirect after `check` would drop the verdict too)
quiet() { "$@" >/dev/null; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for naming in named unnamed; do
	step "socket activation ($naming fds)"
	SA_SOCK=$T/sa-$naming.sock
	SA_PORT=$(free_port)
	names=()
	[ $naming = named ] && names=(--fdname=control:http)
	: >"$T/sa.log"
	systemd-socket-activate -l "$SA_SOCK" -l "127.0.0.1:$SA_PORT" "${names[@]}" -- \
		"$SMRD" "${FIXARGS[@]}" --listen 127.0.0.1:1 --socket "$T/not-this.sock" >>"$T/sa.log" 2>&1 &
	SMRD_PID=$!
	WAIT_LOG=$T/sa.log wait_until 10 "systemd-socket-activate to bind $SA_SOCK" test -S "$SA_SOCK"
	# the first connection starts smrd; it must answer through the passed fds
	code=$(curl -s -o "$T/sa-metrics" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$SA_PORT/metrics")
	check "a scrape through the passed HTTP socket works ($code)" [ "$code" = 200 ]
	check "the page has the fixture's disks" grep -q 'smrd_disk_info{device="sda"' "$T/sa-metrics"
	check "smrctl status through the passed control socket" quiet timeout 30 "$SMRCTL" --socket "$SA_SOCK" status
	check "smrd used both passed sockets" bash -c "grep -q 'using the control socket passed' '$T/sa.log' && grep -q 'using the HTTP socket passed' '$T/sa.log'"
	check "and bound neither of its own" [ ! -e "$T/not-this.sock" ]
	check "listen = 127.0.0.1:1, overridden by the passed socket, is warned about" \
		grep -q "listen = 127.0.0.1:1 is not where the socket the service manager passed listens (127.0.0.1:$SA_PORT)" "$T/sa.log"
	stop_pid "$SMRD_PID" 20 "smrd (socket-activated) to exit after SIGTERM" "$T/sa.log"; rc=$?
	SMRD_PID=""
	check "smrd (socket-activated, $naming) exited cleanly after SIGTERM ($rc)" [ "$rc" -eq 0 ]
	mv "$T/sa.log" "$T/sa-$naming.log"	# kept for the sanitizer check at exit
done

# --- 3. SO_PEERCRED
step "peer credentials"
U=smrdtest$$
useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$U" || { fail "useradd"; finish; }
at_exit 'userdel "$U" 2>/dev/null; groupdel "$U" 2>/dev/null' 
mkdir -p "$T/pub" && chmod 755 "$T" "$T/pub"
"$SMRD" "${FIXARGS[@]}" --listen 127.0.0.1:0 --socket "$T/pub/ctl.sock" --socket-group "$U" >"$T/p.log" 2>&1 &
SMRD_PID=$!
WAIT_LOG=$T/p.log wait_until 20 "smrd to create $T/pub/ctl.sock" test -S "$T/pub/ctl.sock"
say "  $(stat -c '%A %U:%G %n' "$T/pub/ctl.sock")"
check "the socket is 0660 and belongs to the group" [ "$(stat -c '%a %G' "$T/pub/ctl.sock")" = "660 $U" ]
as_user() { timeout 30 runuser -u "$U" -- "$SMRCTL" --socket "$T/pub/ctl.sock" "$@"; }
check "a group member may read (status)" quiet as_user status
check "a group member may read (show)" quiet as_user show sda
for cmd in reload "probe sda" "forget sda"; do
	# shellcheck disable=SC2086
	out=$(as_user $cmd 2>&1); rc=$?
	say "  $U: smrctl $cmd -> exit $rc: $out"
	refused() { [ "$rc" -eq 1 ] && [[ $out == *"needs root"* ]]; }
	check "a group member may not $cmd" refused
done
for cmd in reload "probe sda" "forget sda"; do
	# shellcheck disable=SC2086
	out=$(timeout 30 "$SMRCTL" --socket "$T/pub/ctl.sock" $cmd 2>&1); rc=$?
	say "  root: smrctl $cmd -> exit $rc: $out"
	check "root may $cmd" [ "$rc" -eq 0 ]
done
timeout 30 runuser -u nobody -- "$SMRCTL" --socket "$T/pub/ctl.sock" status >/dev/null 2>"$T/nobody.err"
rc=$?
check "someone outside the group cannot connect: exit 1, permission denied, as smrctl(8) says (got $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'permission denied' '$T/nobody.err'"
stop_pid "$SMRD_PID" 20 "smrd to exit after SIGTERM" "$T/p.log"; rc=$?
SMRD_PID=""
check "smrd (group socket) exited cleanly after SIGTERM ($rc)" [ "$rc" -eq 0 ]

# --- 4. the units as meson installs them
step "units"
DESTDIR=$T/root meson install -C "$BUILDDIR" --no-rebuild >"$T/install.log" 2>&1 || { fail "meson install"; cat "$T/install.log"; }
systemd-analyze security --offline=yes --root="$T/root" smrd.service >"$T/security.txt" 2>&1
exposure=$(sed -n 's/.*Overall exposure level for smrd.service: \([0-9.]*\).*/\1/p' "$T/security.txt")
say "  systemd-analyze security --offline=yes: exposure $exposure ($(grep -c '^✗' "$T/security.txt") findings)"
grep '^✗' "$T/security.txt" | sed 's/  */ /g; s/^/    /'
check "exposure $exposure is 2.0 or lower" python3 -c "import sys; sys.exit(not (0 < float('${exposure:-99}') <= 2.0))"
journalctl --root="$T/root" --update-catalog 2>"$T/catalog.err"
journalctl --root="$T/root" --list-catalog >"$T/catalog.txt" 2>>"$T/catalog.err"
n=0 ids=0
for id in $(sed -n 's/.*MESSAGE_IDs*.*//; s/^| `[a-z-]*` | \([0-9a-f]\{32\}\) .*/\1/p' "$SRCDIR/docs/detection.md"); do
	ids=$((ids + 1))
	grep -q "^$id " "$T/catalog.txt" && n=$((n + 1))
done
# every kind in the event table (10 since the media cache and the forecast)
check "journalctl knows all $ids event MESSAGE_IDs from the catalog ($n)" [ "$n" -eq "$ids" -a "$ids" -ge 10 ]

# --- 5. The unit's claim: an unprivileged user with CAP_BPF and CAP_PERFMON
# and nothing else gets the BPF tracer. Last, so that a machine without BTF
# (allowed by SMRD_TESTS_ALLOW_MISSING=bpf) still runs every other check.
step "CAP_BPF and CAP_PERFMON only"
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	[ "$FAILS" -eq 0 ] || finish
	unavailable bpf "no /sys/kernel/btf/vmlinux: the BPF tracer cannot load, its capabilities cannot be tested"
fi
mkdir -p "$T/capstate" && chown "$U:$U" "$T/capstate"
setpriv --reuid="$U" --regid="$U" --init-groups --inh-caps=-all,+bpf,+perfmon \
	--ambient-caps=-all,+bpf,+perfmon --bounding-set=-all,+bpf,+perfmon \
	"$SMRD" --config /dev/null --include '^loop' --exclude '^$' --state-dir "$T/capstate" --listen 127.0.0.1:0 \
	--socket "$T/capstate/s.sock" >"$T/caps.log" 2>&1 &
SMRD_PID=$!
# the tracer is chosen before smrd serves: once it serves, the log says which
WAIT_LOG=$T/caps.log wait_until 20 "smrd as $U to serve" grep -q 'serving metrics on' "$T/caps.log"
stop_pid "$SMRD_PID" 20 "smrd as $U to exit after SIGTERM" "$T/caps.log"; rc=$?
SMRD_PID=""
sed 's/^/    /' "$T/caps.log" | grep -E 'tracer|tracing'
check "as $U with only CAP_BPF and CAP_PERFMON, the BPF tracer loads" grep -q 'per-I/O latency from the bpf tracer' "$T/caps.log"
check "smrd as $U exited cleanly after SIGTERM ($rc)" [ "$rc" -eq 0 ]

finish
