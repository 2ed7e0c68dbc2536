#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input never stops smrd: malformed /proc/diskstats lines, a diskstats
# file that vanishes, disks that vanish mid-run, and every kind of bad
# control-socket client. After each, the next client is answered promptly.
. "$(dirname "$0")/lib.sh"
need curl

ROOT=$T/root
cp -a "$SRCDIR/tests/fixtures/sysfs/mixed" "$ROOT"
{
	cat "$ROOT/proc/diskstats"
	echo "   8  0"
	echo "   8  16 sdb 1 2 three 4 5 6 7 8 9 10 11"
	printf '   8 32 sdc %s\n' "$(head -c 5000 /dev/zero | tr '\0' '9')"
	head -c 300 /dev/urandom | tr -d '\n'; echo
	echo "   8 48 sdd 1 2 3 4 5 6 7 8 9 10 11 12 13"
} >"$T/diskstats.bad"
cp "$T/diskstats.bad" "$ROOT/proc/diskstats"

start_smrd --interval 0.2 --sysfs-root "$ROOT/sys" --procfs-root "$ROOT/proc" --udev-root "$ROOT/udev" --exclude '^$'
sleep 0.6
scrape >"$T/m1"
check "good lines still counted (sda reads)" metrics_py get "$T/m1" smrd_disk_reads_completed_total device=sda
bad=$(metrics_py get "$T/m1" smrd_diskstats_malformed_lines_total)
say "measured: malformed diskstats lines counted: $bad"
check "malformed lines are counted" python3 -c "import sys; sys.exit(not $bad >= 4)"

# The diskstats file disappears: last values stay, the daemon stays.
before=$(metrics_py get "$T/m1" smrd_disk_reads_completed_total device=sda)
mv "$ROOT/proc/diskstats" "$ROOT/proc/diskstats.gone"
sleep 0.6
scrape >"$T/m2"
check "last counter value kept while diskstats is unreadable" \
	[ "$(metrics_py get "$T/m2" smrd_disk_reads_completed_total device=sda)" = "$before" ]
check "read errors are counted" python3 -c "import sys; sys.exit(not $(metrics_py get "$T/m2" smrd_diskstats_read_errors_total) >= 1)"
mv "$ROOT/proc/diskstats.gone" "$ROOT/proc/diskstats"

# A disk vanishes from the tree, then comes back.
mv "$ROOT/sys/block/sdb" "$T/sdb.link"
sleep 0.6
scrape >"$T/m3"
check "a vanished disk leaves the metrics" sh -c "! grep -q 'device=\"sdb\"' '$T/m3'"
mv "$T/sdb.link" "$ROOT/sys/block/sdb"
sleep 0.6
scrape >"$T/m4"
check "it comes back when it reappears" metrics_py get "$T/m4" smrd_disk_info device=sdb
# A malformed size file: the disk is not watched, nothing else changes.
echo "not-a-number" >"$ROOT/sys/block/sda/size"
sleep 0.6
scrape >"$T/m5"
check "a disk with a garbage size file is dropped" sh -c "! grep -q 'smrd_disk_info{device=\"sda\"' '$T/m5'"
check "other disks unaffected" metrics_py get "$T/m5" smrd_disk_info device=nvme0n1

# Control socket abuse, all at once, then a real client must be answered.
timeout -k 5 120 python3 - "$SOCK" <<'PY' >"$T/abuse.out" 2>&1
import json, socket, sys, time
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.settimeout(5); return s
def ask(payload):
    s = conn()
    try:
        s.sendall(payload)
    except BrokenPipeError:
        pass    # a daemon at its client limit answers "busy" and closes before reading
    data = b''
    while not data.endswith(b'\n'):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    s.close()
    return json.loads(data)
results = {}
results['garbage'] = ask(b'hello there\n')['error']['code']
results['not-object'] = ask(b'[1,2,3]\n')['error']['code']
results['version'] = ask(b'{"version":99,"command":"status"}\n')['error']['code']
results['unknown'] = ask(b'{"version":1,"command":"format-disk"}\n')['error']['code']
results['no-device'] = ask(b'{"version":1,"command":"show","args":{"device":"sdzz"}}\n')['error']['code']
results['bad-arg'] = ask(b'{"version":1,"command":"show","args":{"device":5}}\n')['error']['code']
results['binary'] = ask(bytes(range(256)).replace(b'\n', b'') + b'\n')['error']['code']
results['oversize'] = ask(b'{' * 10000)['error']['code']
results['events-bad-since'] = ask(b'{"version":1,"command":"events","args":{"since":"yesterday"}}\n')['error']['code']
results['events-bad-limit'] = ask(b'{"version":1,"command":"events","args":{"limit":-3}}\n')['error']['code']
results['events-bad-after'] = ask(b'{"version":1,"command":"events","args":{"after":1.5}}\n')['error']['code']
results['events-ok'] = ask(b'{"version":1,"command":"events","args":{"device":"nope","since":0}}\n')['status']
# Pipelined requests on one connection each get their answer.
s = conn(); s.sendall(b'{"version":1,"command":"status"}\n{"version":1,"command":"disks"}\n')
buf = b''
while buf.count(b'\n') < 2:
    buf += s.recv(65536)
results['pipelined'] = [json.loads(l)['status'] for l in buf.splitlines()]
s.close()
# Half-sent requests and silent clients, more than the daemon will keep.
half = conn(); half.sendall(b'{"version":1,"comm'); half.close()
silent = [conn() for _ in range(40)]
t = time.time()
ok = ask(b'{"version":1,"command":"status"}\n')
results['status-under-load'] = ok['status'] if ok['status'] == 'ok' else ok['error']['code']
results['status-latency-ms'] = round((time.time() - t) * 1000, 1)
for s in silent: s.close()
print(json.dumps(results, sort_keys=True))
PY
cat "$T/abuse.out" | sed 's/^/    /'
r=$(tail -1 "$T/abuse.out")
expect() { python3 -c "import json,sys; r=json.loads(sys.argv[1]); sys.exit(r.get(sys.argv[2]) != json.loads(sys.argv[3]))" "$r" "$1" "$2"; }
check "garbage line -> bad-request" expect garbage '"bad-request"'
check "JSON array -> bad-request" expect not-object '"bad-request"'
check "wrong version -> unsupported-version" expect version '"unsupported-version"'
check "unknown command -> unknown-command" expect unknown '"unknown-command"'
check "unknown device -> no-such-device" expect no-device '"no-such-device"'
check "wrong argument type -> bad-argument" expect bad-arg '"bad-argument"'
check "binary garbage -> bad-request" expect binary '"bad-request"'
check "oversize request -> request-too-large" expect oversize '"request-too-large"'
check "pipelined requests both answered" expect pipelined '["ok","ok"]'
check "events with a string since -> bad-argument" expect events-bad-since '"bad-argument"'
check "events with a negative limit -> bad-argument" expect events-bad-limit '"bad-argument"'
check "events with a fractional after -> bad-argument" expect events-bad-after '"bad-argument"'
check "events for an unknown device is an empty answer" expect events-ok '"ok"'
# With 40 silent clients held open, the 41st may be refused as busy (the limit
# is 32), but it must be answered, and quickly.
check "a client is answered while 40 silent ones are connected" \
	python3 -c "import json,sys; r=json.loads(sys.argv[1]); sys.exit(r['status-under-load'] not in ('ok','busy') or r['status-latency-ms'] > 2000)" "$r"
t0=$(now_ms)
check "smrctl status answers after the abuse" sh -c "'$SMRCTL' --socket '$SOCK' status >/dev/null"
say "measured: smrctl status took $(($(now_ms) - t0)) ms after the abuse"
check "daemon still running" alive
stop_smrd

# A history database that is garbage: moved aside, a new one used, no crash.
head -c 65536 /dev/urandom >"$T/state/events.db"
start_smrd --interval 0.2 --sysfs-root "$ROOT/sys" --procfs-root "$ROOT/proc" --udev-root "$ROOT/udev" --exclude '^$'
check "a corrupt events.db is reported" grep -q 'was corrupt, moved to' "$T/smrd.log"
check "and kept aside" sh -c "ls '$T/state/' | grep -q 'events.db.corrupt-'"
check "the new history is in use" sh -c "'$SMRCTL' --socket '$SOCK' --json status | grep -q '\"persistent\": true'"
stop_smrd
# A state directory that cannot hold a database: events in memory, loudly.
rm -rf "$T/state"; mkdir -p "$T/state/events.db"	# a directory where the file should be
start_smrd --interval 0.2 --sysfs-root "$ROOT/sys" --procfs-root "$ROOT/proc" --udev-root "$ROOT/udev" --exclude '^$'
check "an unusable history is reported" grep -q 'events are kept in memory only' "$T/smrd.log"
scrape >"$T/m9"
check "smrd_history_persistent says 0" [ "$(metrics_py get "$T/m9" smrd_history_persistent)" = 0 ]
check "events still answers" sh -c "'$SMRCTL' --socket '$SOCK' events >/dev/null"
stop_smrd
finish
