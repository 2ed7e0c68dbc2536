#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The event history under faults: a state directory that fills up, that is
# read-only, that vanishes, an events.db deleted while smrd runs, a
# kill -9 in the middle of a stream of writes, a second smrd on the same
# directory, a damaged page, a link above the directory. Each time: every event is
# still listed by smrctl events, the degraded state is exported, the
# events are written to the database once it works again, and a restart
# finds them all. Events come fast from an emulated disk whose every read
# takes 20 ms, with the stall threshold at 10 ms. The database that could
# not be written is tried again every half second (history-retry), not
# every 10 s: what is proved is that it is written back, not when.
if [ -z "${SMRD_TEST_NS:-}" ]; then
	SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
use_emu

emu_up DEV hist ssd --ssd-us 20000 || exit 1
N=${DEV#/dev/}
S=$T/state
mkdir -p "$S"
ARGS=(--interval 0.5 --include "^$N\$" --exclude '^$' --slow-io 0.005 --detect.stall-threshold 0.01 --state-dir "$S"
	--history-retry 0.5)

samples() { scrape | sed -n 's/^smrd_diskstats_samples_total //p'; }
ticks() {	# ticks N: waits until smrd took N more samples
	local want
	want=$(( $(samples) + $1 ))
	ticked() { [ "$(samples)" -ge "$want" ]; }
	WAIT_LOG=$T/smrd.log wait_until $(($1 + 10)) "$1 more samples" ticked
}
stalls() {	# stalls SECONDS: random reads, each one a stall event
	timeout -k 5 $(($1 + 30)) fio --clocksource=clock_gettime --name=st --filename="$DEV" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=2 --time_based --runtime="$1" --output=/dev/null >/dev/null 2>&1 || fail "fio"
	ticks 2	# the last completions reach the detector
}
# the events listed: the rows, and those their incidents count (a stall past
# an incident's first is counted in it, not a row)
events() { ctl --json events --limit 10000 | python3 -c 'import json,sys; r = json.load(sys.stdin)
print(len(r["events"]) + sum(i["counted"] for i in r.get("incidents") or []))'; }
ids() { ctl --json events --limit 10000 | python3 -c 'import json,sys; print(" ".join(str(e["id"]) for e in json.load(sys.stdin)["events"]))'; }
# every_id_kept IDS: each of IDS is still listed. Events recorded after IDS
# was taken (a stall still under way) may be listed too: nothing is lost.
every_id_kept() {
	local now
	now=$(ids)
	python3 -c 'import sys
had, now = set(sys.argv[1].split()), set(sys.argv[2].split())
lost = sorted(had - now, key=int)
print(f"    {len(had)} listed before, {len(now)} after, {len(now - had)} new, {len(lost)} missing" + (f": {lost[:10]}" if lost else ""))
sys.exit(bool(lost))' "$1" "$now"
}
hstate() { ctl --json status | python3 -c 'import json,sys; h=json.load(sys.stdin)["history"]; print(h["state"], h["pending"], h["persistent"])'; }
stored() { sqlite3 "$S/events.db" 'select count(*) from events' 2>/dev/null || python3 -c '
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from events").fetchone()[0])' "$S/events.db"; }
# start_smrd replaces the log; keep every run's lines for the checks below
start() { start_smrd "${ARGS[@]}"; }

step "a full state directory"
mount -t tmpfs -o size=4m,mode=0750 tmpfs "$S" || { fail "tmpfs"; finish; }
at_exit 'umount -l "$S" 2>/dev/null'
start
stalls 1
before=$(events)
dd if=/dev/zero of="$S/filler" bs=64k status=none 2>/dev/null	# until the disk is full
stalls 2
during=$(events)
read -r st pend pers <<<"$(hstate)"
scrape >"$T/m-full"
say "  events: $before before the disk filled, $during after; history state $st, $pend pending, persistent $pers"
check "events recorded while the disk is full are listed" [ "$during" -gt "$before" ]
check "the degraded state is exported (state pending, smrd_history_persistent 0)" \
	bash -c "[ '$st' = pending ] && [ '$(metrics_py get "$T/m-full" smrd_history_persistent)' = 0 ] && [ '$(metrics_py get "$T/m-full" smrd_history_state state=pending)' = 1 ]"
check "and said once in the log" [ "$(grep -c 'kept in memory (up to' "$T/smrd.log")" = 1 ]
rm -f "$S/filler"
WAIT_LOG=$T/smrd.log wait_until 20 "the pending events to be written once space is free" \
	bash -c "ctl() { timeout 10 '$SMRCTL' --socket '$SOCK' \"\$@\"; }; ctl --json status | grep -q '\"state\": \"ok\"'"
read -r st pend pers <<<"$(hstate)"
say "  after freeing space: state $st, $pend pending; $(grep -o 'wrote [0-9]* event(s) kept in memory' "$T/smrd.log" | head -1)"
check "written back: state ok, nothing pending" bash -c "[ '$st' = ok ] && [ '$pend' = 0 ]"
all=$(ids)
stop_smrd
start
check "after a restart every event is there ($(echo "$all" | wc -w))" every_id_kept "$all"
stop_smrd
umount "$S"

step "a read-only state directory"
mount -t tmpfs -o size=16m,mode=0750 tmpfs "$S"	# a tmpfs is 1777 by default: no state directory
start
stalls 1
stored_before=$(events)
stop_smrd
mount -o remount,ro "$S"
start
check "not called corrupt" bash -c "! grep -qi 'corrupt' '$T/smrd.log'"
check "said to be read-only" grep -q 'read-only, new ones are kept in memory' "$T/smrd.log"
check "the stored events are listed ($stored_before)" [ "$(events)" = "$stored_before" ]
stalls 1
read -r st pend pers <<<"$(hstate)"
say "  read-only: state $st, $pend pending, $(events) listed"
check "new events are listed beside the stored ones, state read-only" \
	bash -c "[ '$st' = read-only ] && [ $(events) -gt $stored_before ] && [ '$pend' -gt 0 ]"
mount -o remount,rw "$S"
WAIT_LOG=$T/smrd.log wait_until 20 "the history to be writable again" \
	bash -c "timeout 10 '$SMRCTL' --socket '$SOCK' --json status | grep -q '\"state\": \"ok\"'"
all=$(ids)
stop_smrd
start
check "after remount and restart every event is there ($(echo "$all" | wc -w))" every_id_kept "$all"

step "events.db deleted while smrd runs"
stalls 1
rm -f "$S"/events.db "$S"/events.db-wal "$S"/events.db-shm
recreated() { test -s "$S/events.db" && grep -q 'was deleted or replaced while in use' "$T/smrd.log"; }
WAIT_LOG=$T/smrd.log wait_until 10 "events.db to be recreated" recreated
check "the file is recreated" test -s "$S/events.db"
check "the deletion is logged" grep -q 'was deleted or replaced while in use' "$T/smrd.log"
stalls 1
all=$(ids)
stop_smrd
check "nothing was lost: the database holds every event listed before the stop" [ "$(stored)" = "$(echo "$all" | wc -w)" ]
start
check "and a restart lists them all ($(echo "$all" | wc -w))" every_id_kept "$all"

step "the state directory vanishes"
stop_smrd
umount "$S"
S=$T/vanishing/state
ARGS=(--interval 0.5 --include "^$N\$" --exclude '^$' --slow-io 0.005 --detect.stall-threshold 0.01 --state-dir "$S"
	--history-retry 0.5)
start
stalls 1
rm -rf "$T/vanishing"
gone_seen() { [ "$(hstate | cut -d' ' -f3)" = False ]; }
WAIT_LOG=$T/smrd.log wait_until 10 "the history to see its directory gone" gone_seen
check "events listed while the directory is gone" [ "$(events)" -gt 0 ]
stalls 1
listed=$(events)
read -r st pend pers <<<"$(hstate)"
say "  gone: state $st, $pend pending, $listed listed"
check "the loss of the directory is seen and exported: not persistent" [ "$pers" = False ]
mkdir -p "$S"
WAIT_LOG=$T/smrd.log wait_until 20 "the history to be recreated in the new directory" \
	bash -c "timeout 10 '$SMRCTL' --socket '$SOCK' --json status | grep -q '\"state\": \"ok\"'"
all=$(ids)
stop_smrd
check "everything listed while it was gone is in the new database ($(stored) of $(echo "$all" | wc -w))" \
	[ "$(stored)" = "$(echo "$all" | wc -w)" ]

step "kill -9 in the middle of a stream of events"
start
timeout -k 5 40 fio --clocksource=clock_gettime --name=st --filename="$DEV" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	--iodepth=4 --time_based --runtime=4 --output=/dev/null >/dev/null 2>&1 &
FIO=$!
at_exit 'kill "$FIO" 2>/dev/null'
# in the middle of the stream: events listed, fio still writing them
streaming() { [ "$(events)" -ge 20 ]; }
WAIT_LOG=$T/smrd.log wait_until 10 "a stream of events" streaming
kill -0 "$FIO" 2>/dev/null || fail "fio ended before the kill: not in the middle of a stream"
listed=$(ids)
kill -KILL "$SMRD_PID"
wait_pid "$SMRD_PID" 10 "smrd to die of SIGKILL"
SMRD_PID=""
stop_pid "$FIO" 40 "fio"	# its stream served its purpose: smrd died in the middle of it
start
check "no corrupt database after kill -9" bash -c "! grep -qi 'corrupt' '$T/smrd.log'"
after=" $(ids) "
missing=0
for id in $listed; do [[ $after == *" $id "* ]] || missing=$((missing + 1)); done
say "  $(echo "$listed" | wc -w) events listed before the kill, $missing of them missing after the restart"
check "every event listed before kill -9 survives it" [ "$missing" = 0 ]
stop_smrd

# A wall clock that is wrong (issue 26): 100 days ahead at the start (an
# RTC before NTP: the first tick pruned every event), then stepped back
# while smrd runs (smrctl status said "up -1h -59m -55s"). A preloaded shim
# moves CLOCK_REALTIME only, as such a clock would.
step "a wall clock 100 days ahead at start, then stepped back"
rm -rf "$S" && mkdir -m 0750 "$S"
sleep 1.1
for i in $(seq 50); do
	printf '%d\tstall\t%s\t-\tread\twarning\t0\t0.02\t0\t1\tread stalled for 20 ms\n' $((i * 3600)) "$N"
done | "$HISTORY_SEED" "$S" >/dev/null || fail "history-seed"
# the 50 seeded ones: logged before smrd starts (it adds stalls of its own)
seeded() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from events where logged_usec < ?", (int(sys.argv[2]),)).fetchone()[0])' "$S/events.db" "$1"; }
t_seed=$(( $(date +%s) * 1000000 + 1000000 ))
check "50 events stored, from the last two days" [ "$(seeded "$t_seed")" = 50 ]
echo $((100 * 86400)) >"$T/shift"
# a sanitizer's runtime must come first: it is told not to mind the shim
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$CLOCKSHIFT CLOCKSHIFT_FILE=$T/shift \
	start
# the first ticks are where a wrong clock pruned them all
ticks 4
check "none pruned in the first seconds, though all are 100 days old by the clock ($(seeded "$t_seed") kept)" [ "$(seeded "$t_seed")" = 50 ]
check "  ... and the log says no prune" bash -c "! grep -q 'pruned' '$T/smrd.log'"
echo 0 >"$T/shift"	# NTP steps it back, 100 days
WAIT_LOG=$T/smrd.log wait_until 10 "the step back to be seen" grep -q 'the wall clock jumped back' "$T/smrd.log"
up=$(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["uptime_seconds"])')
check "the step back is logged as a jump" grep -q 'the wall clock jumped back by 864000[0-9] s' "$T/smrd.log"
check "uptime is still counted on the monotonic clock (${up} s)" python3 -c "import sys; sys.exit(not 0 < $up < 60)"
ctl status | sed -n 1p | sed 's/^/    /'
ctl status >"$T/status.txt" 2>&1
rc=$?
check "  ... and smrctl status (exit $rc) prints an uptime, not a negative one" \
	bash -c "[ $rc -eq 0 ] && grep -q ' up [0-9]' '$T/status.txt' && ! grep -q 'up -' '$T/status.txt'"
check "every seeded event still stored" [ "$(seeded "$t_seed")" = 50 ]

# Audit 4: one smrd per state directory (a second one's events vanished),
# one bad page costs that page (it cost the whole history, and status said
# "ok"), and no link above the state directory that another user made.
step "a second smrd on the same state directory, a damaged page, a link above it"
second() {	# second DIR: another smrd on DIR; its exit code, its stderr in $T/second.err
	timeout 20 "$SMRD" --config /dev/null --listen 127.0.0.1:0 --socket "$T/second.sock" --state-dir "$1" \
		--include "^$N\$" --exclude '^$' >/dev/null 2>"$T/second.err"
}
second "$S"; rc=$?
sed -n 's/^/    /; /tate directory/p' "$T/second.err"
check "a second smrd is refused (exit $rc, 1 expected), told the first one's pid" \
	bash -c "[ $rc = 1 ] && grep -q 'in use by another smrd (pid $SMRD_PID)' '$T/second.err'"
stop_smrd
rm -rf "$S" && mkdir -m 0750 "$S"
long=$(printf '%0250d' 0)
for i in $(seq 300); do
	printf '%d\tstall\t%s\t-\tread\twarning\t0\t0.02\t0\t1\tread stalled %s\n' $((i * 60)) "$N" "$long"
done | "$HISTORY_SEED" "$S" >/dev/null || fail "history-seed"
size=$(stat -c %s "$S/events.db")
# 4 KiB of garbage three quarters in: a page of events (the file is mostly events)
seeded_bytes 32 4096 | dd of="$S/events.db" bs=4096 seek=$((size * 3 / 4 / 4096)) conv=notrunc status=none
# the seeded rows alone: under a stall threshold of 10 ms, smrd's own reads
# of the disk at a start on a busy machine may add a stall of their own
seeded_rows() { ctl --json events --limit 10000 | python3 -c 'import json,sys
print(sum(1 for e in json.load(sys.stdin)["events"] if e["message"].endswith(sys.argv[1])))' "$long"; }
start
sed -n 's/^/    /; /was corrupt/p' "$T/smrd.log"
n=$(seeded_rows)
read -r st pend pers <<<"$(hstate)"
check "what the bad page did not hold is kept ($n of 300 listed)" bash -c "[ $n -ge 250 ] && [ $n -lt 300 ]"
check "the warning has SQLite's own words, not \"not an error\"" \
	bash -c "grep -q 'event(s) and 0 other record(s) recovered from it' '$T/smrd.log' && ! grep -q 'not an error' '$T/smrd.log'"
check "status says recovered, not ok ($st)" bash -c "[ '$st' = recovered ] && '$SMRCTL' --socket '$SOCK' status | grep -q '(recovered): '"
check "  ... and the damaged file is kept" sh -c "ls '$S' | grep -q '^events.db.corrupt-'"
stop_smrd
start
n2=$(seeded_rows) st2=$(hstate | cut -d' ' -f1)
check "a restart finds them all ($n2 of $n), state ok ($st2)" bash -c "[ '$n2' = $n ] && [ '$st2' = ok ]"
stop_smrd
mkdir -p "$T/nob/target" && chown -R nobody "$T/nob"
ln -s "$T/nob/target" "$T/link" && chown -h nobody "$T/link"
second "$T/link/state"; rc=$?
sed -n 's/^/    /; /tate directory/p' "$T/second.err"
check "a link above the state directory that another user made: refused (exit $rc)" \
	bash -c "[ $rc = 1 ] && grep -q '/link is a symbolic link made by uid [0-9]*, neither root nor' '$T/second.err'"
check "  ... and nothing made through it" [ -z "$(ls -A "$T/nob/target")" ]
finish
