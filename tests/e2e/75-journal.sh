#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Events in the journal: a private systemd-journald (in a mount namespace of
# this test, so the host's journal is untouched) receives smrd's stall
# events with their stable MESSAGE_ID, priority and fields, and journalctl -x
# explains them from smrd's catalog. The disk is an emulated one whose
# every I/O takes 1.3 s.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
use_emu
private_journal

emu_up DEV slow ssd --ssd-us 1300000 || exit 1
N=${DEV#/dev/}
# This machine has no udevd: without an entry in a udev database smrd reads
# the disk's signatures itself when it comes (docs/membership.md), and on a
# disk that takes 1.3 s a read those reads are stalls too. Give it udev's
# entry, so that the only reads are the test's.
mkdir -p "$T/udev/data" && : >"$T/udev/data/b$(cat "/sys/block/$N/dev")"
start_smrd --interval 1 --include "^$N\$" --exclude '^$' --udev-root "$T/udev"
# the disk watched and its tracer set: a sample or two
two_samples() { scrape | grep -q '^smrd_diskstats_samples_total [2-9]'; }
WAIT_LOG=$T/smrd.log wait_until 10 "two samples" two_samples
timeout -k 5 30 dd if="$DEV" of=/dev/null bs=4k count=2 iflag=direct 2>/dev/null
# the stall's MESSAGE_ID as the docs give it (test-events ties them to the code)
ID=$(sed -n 's/^| `stall` | \([0-9a-f]*\) |.*/\1/p' "$SRCDIR/docs/detection.md")
# both reads' stalls in the journal, and in the history as one incident
# (the first a row of it, the second counted in it: then one more sample,
# for anything that would come after them)
slow_ios() { ctl --json incidents --device "$N" | python3 -c 'import json,sys
print(sum(i["slow_ios"] for i in json.load(sys.stdin)["incidents"]))'; }
journaled() {
	[ "$(journalctl MESSAGE_ID=$ID -o cat --no-pager 2>/dev/null | wc -l)" -ge 2 ] && [ "$(slow_ios)" -ge 2 ]
}
WAIT_LOG=$T/smrd.log wait_until 10 "two stall entries in the journal" journaled
s_now=$(scrape | sed -n 's/^smrd_diskstats_samples_total //p')
next_sample() { [ "$(scrape | sed -n 's/^smrd_diskstats_samples_total //p')" -gt "$s_now" ]; }
wait_until 5 "one more sample" next_sample
check "docs/detection.md gives the stall's MESSAGE_ID" [ ${#ID} -eq 32 ]
journalctl MESSAGE_ID=$ID -o json --no-pager >"$T/stalls.json" 2>"$T/jc.err"
check_by python3 - "$T/stalls.json" "$N" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
dev = sys.argv[2]
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
print(f"  {len(rows)} stall entries in the journal" + (f"; the first: {rows[0]['MESSAGE']}" if rows else ""))
check(len(rows) == 2, "one journal entry per stalled read (2)")
for r in rows[:1]:
    check(r.get("DEVICE") == f"/dev/{dev}" and r.get("SMRD_DEVICE") == dev, "DEVICE= and SMRD_DEVICE= name the disk")
    check(r.get("SMRD_EVENT") == "stall" and r.get("SMRD_OP") == "read", "SMRD_EVENT=stall, SMRD_OP=read")
    check(1.2 <= float(r.get("SMRD_LATENCY_SEC", 0)) <= 2.0, f"SMRD_LATENCY_SEC={r.get('SMRD_LATENCY_SEC')} (the emulated 1.3 s)")
    check(r.get("PRIORITY") == "4", "PRIORITY=4 (warning)")
    check(r.get("SMRD_EVENT_ID", "") != "", "SMRD_EVENT_ID ties it to smrctl events")
sys.exit(bad)
PY
journalctl -x MESSAGE_ID=$ID --no-pager -n 1 >"$T/x.txt" 2>&1
sed 's/^/  /' "$T/x.txt" | head -12
check "journalctl -x explains the stall from the catalog" grep -q "An I/O on $N stalled" "$T/x.txt"
check "and says what to do" grep -q "smrctl events --device $N" "$T/x.txt"
ctl --json events >"$T/events.json"
journal_check "$T/events.json"
stop_smrd
finish
