#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A live btrfs rebuild onto an emulated DM-SMR disk (issue 42, docs/zfs.md:
# btrfs has no zed, so smrd finds the replace itself, through the
# configured `btrfs replace status -1`). Everything here is real: two
# btrfs raid1, each on two loop devices over files in a private /dev/shm,
# `btrfs replace` of a device of the first onto an emulated DM-SMR disk
# (smr-emu, a 32 MiB media cache; udev's model a WD40EFAX) and of the
# second onto an emulated CMR one (a Toshiba P300), smrd and smrctl. A
# replace copies the chunks in LBA order in 64 KiB writes (smr-emu --trace
# shows them); the emulated DM-SMR disk sends sequential writes under
# 256 KiB to its media cache (--seq-min-kib), as the WD40EFAX did with
# rebuilds (nine-day resilvers, ServeTheHome 2020), so the cliff comes
# within the replace's first second and the rest is written at the band
# rewrite rate. Checked:
#   - onto the DM-SMR disk: a rebuild-warning on it logged in the first half
#     of the copy; the storm seen (storm-start on it during the replace);
#     the replace followed (smrctl rebuilds --json: kind btrfs-replace) with
#     an ETA, taken between 30% and 80% of the bytes once the cliff was seen,
#     within 25% of the real duration (from polls of `btrfs replace status
#     -1`, cross-checked with the Started/finished times btrfs prints); a
#     rebuild-done event with the real duration;
#   - onto the CMR disk: followed, no warning, no storm.
# smrd runs without CAP_SYS_ADMIN, as the shipped unit runs it, for all
# but the replace onto the CMR disk: the kernel refuses it `btrfs replace
# status` and `btrfs balance status` (checked first: the test cannot pass
# through them by accident), and it follows both from /sys/fs/btrfs and
# the target's own writes (docs/zfs.md); the CMR replace is followed as
# root, through the kernel's own status of it (the ioctl the tool asks).
# Then a balance onto a disk added to a file system (docs/zfs.md): each
# file system above unmounted, its disk taken by `btrfs device add` into a
# third raid1 and `btrfs balance start --full-balance` run: onto the DM-SMR
# disk a rebuild-warning (one), followed as kind balance, a rebuild-done;
# onto the CMR one, added next, the same but no warning (and none more on
# the DM-SMR disk, already at its share).
# The replace onto the DM-SMR disk is one rebuild incident: at most 40
# rows for the disk (its stalls counted in it), its warning in the default
# `smrctl events` and on the disk page, its end with the real duration; one
# thread of at most 5 notifications, each naming the rebuild, its advice
# about that rebuild (never "do not start" one), the last its end, the
# links where smrd serves its pages.
# Through it all, every event reaches the journal with its kind's
# MESSAGE_ID and smrd_events_total; the rebuild-done is recorded at the
# rebuild's end; the second file system's mount point holds a newline, a
# journald priority prefix and an escape sequence, and no log line or
# journal entry of smrd's carries them raw.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
private_journal
need btrfs
need mkfs.btrfs
mount -t tmpfs tmpfs /dev/shm || { fail "a private /dev/shm"; finish; }
use_emu
EMU_SIZE=512M
DATA_MIB=${DATA_MIB:-128}	# 4x the cache: most of the copy past the cliff, in seconds
CMR_MIB=64
BAL_MIB=${BAL_MIB:-96}	# the third raid1's data, balanced onto each disk added to it

# whoever names a mount point names what smrd says of its file system
FS2=$T/fs2$'\n''<2>smrd: forged'$'\e''[31m'
step "two btrfs raid1 file systems on loop devices, $DATA_MIB and $CMR_MIB MiB of data"
mkfs_raid1 fs1 "$DATA_MIB"
mkfs_raid1 fs2 "$CMR_MIB" "$FS2"

step "an emulated DM-SMR disk (WD40EFAX by udev) and a CMR one (Toshiba P300)"
emu_up SMR smr dm-smr --seq-min-kib 256 --seed 52 --stats || { fail "emu_up"; finish; }
emu_up CMR cmr cmr --seed 53 || { fail "emu_up"; finish; }
S=${SMR#/dev/} C=${CMR#/dev/}
mkdir -p "$T/udev/data"
printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-WX12D3456789\n' >"$T/udev/data/b$(cat "/sys/block/$S/dev")"
printf 'E:ID_MODEL=TOSHIBA_HDWD120\nE:ID_SERIAL_SHORT=CMR-0001\n' >"$T/udev/data/b$(cat "/sys/block/$C/dev")"
classes() { ctl --json disks | python3 -c 'import json,sys; print(" ".join(d["device"]+"="+d["class"] for d in json.load(sys.stdin)["disks"]))'; }
classified() { local c; c=" $(classes) "; [[ $c == *" $S=dm-smr "* && $c == *" $C=cmr "* ]]; }
# smrd_as admin|noadmin: (re)starts smrd with or without CAP_SYS_ADMIN
# (setpriv drops it from the bounding set: root keeps its other capabilities)
SMRD_ROOT=$SMRD
printf '#!/bin/sh\nexec setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- "$SMRD_ROOT" "$@"\n' >"$T/smrd-noadmin"
chmod +x "$T/smrd-noadmin"
export SMRD_ROOT
smrd_as() {
	[ -n "${SMRD_PID:-}" ] && stop_smrd
	if [ "$1" = noadmin ]; then SMRD=$T/smrd-noadmin; else SMRD=$SMRD_ROOT; fi
	start_smrd --interval 1 --include "^($S|$C)\$" --exclude '^$' --udev-root "$T/udev" --rebuild-interval 1 \
		--notify-command "$T/hook.sh"
	local capeff
	capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$SMRD_PID/status")
	if [ "$1" = noadmin ]; then
		check "smrd runs without CAP_SYS_ADMIN (CapEff $capeff)" [ $(( 0x$capeff >> 21 & 1 )) = 0 ]
	else
		check "smrd runs with CAP_SYS_ADMIN (CapEff $capeff)" [ $(( 0x$capeff >> 21 & 1 )) = 1 ]
	fi
	WAIT_LOG=$T/smrd.log wait_until 10 "smrd to classify $S dm-smr and $C cmr" classified
}
step "smrd without CAP_SYS_ADMIN: btrfs's status ioctls are refused it"
setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin btrfs replace status -1 -- "$T/fs1" >"$T/refused.out" 2>&1
check "btrfs replace status is refused without CAP_SYS_ADMIN" grep -q 'Operation not permitted' "$T/refused.out"
setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin btrfs balance status -- "$T/fs1" >"$T/refused.out" 2>&1
check "btrfs balance status is refused without CAP_SYS_ADMIN" grep -q 'Operation not permitted' "$T/refused.out"
smrd_as noadmin
check "smrd says it follows btrfs from sysfs" grep -q 'no CAP_SYS_ADMIN, btrfs replace and balance followed from /sys/fs/btrfs' "$T/smrd.log"
# watching for a while before the replace, as a daemon is: a reading taken
# (each takes every disk's write counter), what the target writes before
# the next one counts for the replace
sleep 2

# replace MOUNT DEVID TARGET NAME: btrfs replace start -B, polled until it ends:
# $T/NAME.status ("ms line" of every btrfs replace status -1), $T/NAME.rebuilds
# ("ms json" of every smrctl --json rebuilds); sets T0 and T1 (ms): the
# launch and the first poll that says finished
replace() {
	local M=$1 devid=$2 target=$3 name=$4 pid st before
	: >"$T/$name.status"; : >"$T/$name.rebuilds"
	# the last replace's line stays until this one has started
	before=$(btrfs replace status -1 "$M" 2>&1 | tail -1)
	T0=$(now_ms)
	btrfs replace start -B "$devid" "$target" "$M" >"$T/$name.out" 2>&1 &
	pid=$!
	at_exit "btrfs replace cancel '$M' 2>/dev/null; kill $pid 2>/dev/null"
	T1=""
	while :; do
		st=$(btrfs replace status -1 "$M" 2>&1 | tail -1)
		echo "$(now_ms) $st" >>"$T/$name.status"
		[ -z "$T1" ] && [[ $st == *finished* && $st != "$before" ]] && T1=$(now_ms)
		r=$(ctl --json rebuilds 2>/dev/null | tr -d '\n') && echo "$(now_ms) $r" >>"$T/$name.rebuilds"
		kill -0 "$pid" 2>/dev/null || break
		[ $(( $(now_ms) - T0 )) -gt 120000 ] && { fail "btrfs replace onto $target still runs after 120 s"; break; }
		sleep 0.25
	done
	wait "$pid" || fail "btrfs replace onto $target: $(cat "$T/$name.out")"
	[ -n "$T1" ] || T1=$(now_ms)
	say "  replace onto $target: $(tail -1 "$T/$name.status" | cut -d' ' -f2-)"
	say "  real duration $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", (b - a) / 1000 }') s by the polls"
}
events_json() { ctl --json events --limit 1000 >"$T/events.json"; }
# done_on DEVICE: smrd recorded a rebuild-done on DEVICE
done_on() { ctl --json events --limit 1000 | python3 -c 'import json,sys
sys.exit(not any(e["kind"] == "rebuild-done" and e["device"] == sys.argv[1] for e in json.load(sys.stdin)["events"]))' "$1"; }
# kinds KIND DEVICE FROM_MS TO_MS: events of KIND on DEVICE logged between
kinds() { python3 -c 'import json,sys
k, d, a, b = sys.argv[2], sys.argv[3], int(sys.argv[4]) / 1000, int(sys.argv[5]) / 1000
print(sum(1 for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == k and e["device"] == d and a <= e["logged"] <= b))' \
	"$T/events.json" "$@"; }

# judge NAME DEVICE: the readings of smrctl rebuilds against the real duration
judge() {
	check_by python3 - "$T/$1.rebuilds" "$2" "$T0" "$T1" "$T/$1.status" "${@:3}" <<'PY'
import json, re, sys, time
log, dev, t0, t1, status = sys.argv[1], sys.argv[2], int(sys.argv[3]) / 1000, int(sys.argv[4]) / 1000, sys.argv[5]
real = t1 - t0
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
# btrfs's own figures: "Started on  5.Dec 06:07:01, finished on  5.Dec 06:07:08"
m = re.search(r"Started on +(\S+ [0-9:]+), finished on +(\S+ [0-9:]+)", open(status).read().splitlines()[-1])
if m:
    y = time.localtime().tm_year
    a, b = (time.mktime(time.strptime(f"{y}.{s}", "%Y.%d.%b %H:%M:%S")) for s in m.groups())
    check(abs((b - a) - real) <= 2, f"btrfs says it took {b - a:.0f} s, the polls {real:.1f} s")
else:
    check(False, "btrfs replace status said when it started and finished")
mine, window = [], []
for line in open(log):
    _, _, doc = line.partition(" ")
    try:
        rs = json.loads(doc)["rebuilds"]
    except (ValueError, KeyError):
        continue
    for r in rs:
        if r.get("device") != dev:
            continue
        mine.append(r)
        if r.get("state") != "running" or r.get("eta_seconds") is None or not r.get("to_write_bytes"):
            continue
        share = r["written_bytes"] / r["to_write_bytes"]
        if r.get("cliff_seen") and 0.3 <= share <= 0.8:
            window.append((share, r["started"] + r["elapsed"] + r["eta_seconds"] - t0, r))
check(len(mine) > 0 and all(r.get("kind") == "btrfs-replace" for r in mine),
      f"smrctl rebuilds followed the btrfs replace onto {dev} ({len(mine)} readings)")
if "--no-eta" in sys.argv:
    sys.exit(1 if fails else 0)
check(len(window) >= 2, f"ETAs between 30% and 80% of the bytes, past the cliff: {len(window)}")
for share, foreseen, r in window:
    print(f"  {share:4.0%}: elapsed {r['elapsed']:.1f} s, eta {r['eta_seconds']:.1f} s -> {foreseen:.1f} s "
          f"(real {real:.1f} s, {(foreseen - real) / real:+.0%})")
if window:
    foreseen = sorted(f for _, f, _ in window)[len(window) // 2]
    check(abs(foreseen - real) <= 0.25 * real,
          f"the median foreseen duration {foreseen:.1f} s is within 25% of the real {real:.1f} s")
sys.exit(1 if fails else 0)
PY
}

# done_took DEVICE REAL_MS: the rebuild-done event on DEVICE gives the real duration
done_took() {
	check_by python3 - "$T/events.json" "$1" "$2" <<'PY'
import json, re, sys
evs = [e for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "rebuild-done" and e["device"] == sys.argv[2]]
real = int(sys.argv[3]) / 1000
msg = evs[-1]["message"] if evs else ""
print(f"  rebuild-done: {msg}")
m = re.search(r"finished in ([0-9.]+) (s|min|h)\b", msg)
took = float(m.group(1)) * {"s": 1, "min": 60, "h": 3600}[m.group(2)] if m else None
ok = took is not None and abs(took - real) <= max(0.25 * real, 2)
print(("ok: " if ok else "FAIL: ") + f"a rebuild-done on {sys.argv[2]} gives the real duration ({took} s against {real:.1f} s)")
sys.exit(0 if ok else 1)
PY
}

step "rebuild-check onto the live raid1 before the replace"
# rcheck DEVICE [TARGET]: smrctl rebuild-check's exit code; its answer in $T/rc.json
rcheck() { local rc=0; ctl --json rebuild-check "$@" >"$T/rc.json" 2>"$T/rc.err" || rc=$?; echo "$rc"; }
answer() { python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/rc.json" "$1"; }
ctl rebuild-check "$S" "$T/fs1" | sed 's/^/    /'
check "DM-SMR: exit 1 (a warning)" [ "$(rcheck "$S" "$T/fs1")" = 1 ]
cp "$T/rc.json" "$T/rc-before.json"
check "  advice: btrfs replace, cancelled with btrfs replace cancel" \
	grep -q "btrfs replace cancel $T/fs1 stops it" "$T/rc.json"
check "CMR: exit 0 (fine)" [ "$(rcheck "$C" "$T/fs1")" = 0 ]
check "a path on no btrfs smrd reads: exit 2" [ "$(rcheck "$S" /proc)" = 2 ]

# the hook keeps each notification's environment, one file each
mkdir -p "$T/notes"
printf '#!/bin/sh\nenv >"%s/notes/$(date +%%s%%N).env"\n' "$T" >"$T/hook.sh" && chmod +x "$T/hook.sh"
step "btrfs replace of the first file system's devid 2 onto the DM-SMR disk $SMR"
replace "$T/fs1" 2 "$SMR" smr
grep -m1 'cliff at' "$T/emu-smr/emu.log" | sed 's/^/  /'
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the replace's end on $S" done_on "$S"
events_json
check "a rebuild-warning on $S in the first half of the copy" \
	[ "$(kinds rebuild-warning "$S" "$T0" $(( (T0 + T1) / 2 )))" = 1 ]
check "the storm seen: storm-start on $S during the replace" [ "$(kinds storm-start "$S" "$T0" "$T1")" -ge 1 ]
judge smr "$S"
done_took "$S" $((T1 - T0))
check "the rebuild-done is dated at the replace's end, after its warning" python3 - "$T/events.json" "$S" "$T0" "$T1" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
dev, t0, t1 = sys.argv[2], int(sys.argv[3]) / 1000, int(sys.argv[4]) / 1000
done = [e for e in ev if e["kind"] == "rebuild-done" and e["device"] == dev]
warn = [e for e in ev if e["kind"] == "rebuild-warning" and e["device"] == dev]
print(f"  replace {t0:.1f}-{t1:.1f}; warning at {warn[0]['time'] if warn else None}, done at {done[0]['time'] if done else None}")
sys.exit(not (done and warn and t1 - 5 <= done[0]["time"] <= t1 + 10 and done[0]["time"] > warn[0]["time"]))
PY
ctl --json events --all --device "$S" --limit 10000 >"$T/rows.json"
ctl --json incidents --device "$S" --kind rebuild >"$T/incidents.json"
check "the replace is one rebuild incident of at most 40 rows, its stalls counted in it" python3 - "$T/rows.json" "$T/incidents.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["events"]
inc = json.load(open(sys.argv[2]))["incidents"]
i = inc[-1] if inc else {}
print(f"  {len(rows)} rows for the disk; {len(inc)} rebuild incident(s): {i.get('summary')}")
print(f"  its {i.get('events')} events, {i.get('counted')} of them counted; slow I/Os by latency: "
      + ", ".join(f"{h['latency']} {h['count']}" for h in i.get("slow_histogram", []) if h["count"]))
sys.exit(not (len(rows) <= 40 and len(inc) == 1 and i["end"] and i["storms"] >= 1
              and i["duration_seconds"] and [s["kind"] for s in i["steps"]].count("rebuild-warning") == 1
              and i["steps"][-1]["kind"] == "rebuild-done"))
PY
notes_done() { grep -qs "^SMRD_STAGE=end" "$T"/notes/*.env; }
WAIT_LOG=$T/smrd.log wait_until 10 "the rebuild's end notified" notes_done
check "one thread of at most 5 notifications, each naming the rebuild, the last its end" \
	python3 - "$T/notes" "$S" "$(sed -n 's/.*serving metrics on .* (port \([0-9]*\)).*/\1/p' "$T/smrd.log" | tail -1)" <<'PY'
import glob, sys
notes = [dict(l.rstrip("\n").split("=", 1) for l in open(f) if "=" in l) for f in sorted(glob.glob(sys.argv[1] + "/*.env"))]
dev, port = sys.argv[2], sys.argv[3]
mine = [n for n in notes if n.get("SMRD_DEVICE") == dev]
for n in mine:
    print(f"  {n['SMRD_STAGE']:6} {n['SMRD_EVENT']:16} {n['SMRD_MESSAGE'][:110]}")
    print(f"         advice: {n['SMRD_ADVICE'][:150]}")
ok = 1 <= len(mine) <= 5 and len({n["SMRD_INCIDENT"] for n in mine}) == 1
ok &= all(n["SMRD_INCIDENT_KIND"] == "rebuild" and f"rebuild onto {dev}" in n["SMRD_MESSAGE"] for n in mine)
ok &= mine[-1]["SMRD_STAGE"] == "end" and mine[-1]["SMRD_EVENT"] == "rebuild-done" and mine[0]["SMRD_STAGE"] == "start"
ok &= not any("not start" in n["SMRD_ADVICE"].lower() for n in mine)
ok &= all("under way" in n["SMRD_ADVICE"] and "btrfs replace cancel" in n["SMRD_ADVICE"] for n in mine[:-1])
ok &= all(n["SMRD_DISK_URL"] == f"http://127.0.0.1:{port}/disk/{dev}" for n in mine)
sys.exit(not ok)
PY
ctl events --device "$S" >"$T/events.txt"
check "its warning is in the default smrctl events" grep -q "rebuild-warning .*rebuilding onto $S" "$T/events.txt"
curl -sf --max-time 5 "http://127.0.0.1:$PORT/disk/$S" >"$T/disk.html"
check "and on the disk page" grep -q "rebuilding onto $S" "$T/disk.html"

# rebuild-check again: the figures smrd learnt from the storm, against the replace's real duration
learnt() { rcheck "$S" "$T/fs1" >/dev/null; [ "$(answer "a['forecast']['figures']")" = learnt ]; }
WAIT_LOG=$T/smrd.log wait_until 15 "rebuild-check to give learnt figures (the storm's end)" learnt
check_by python3 - "$T/rc-before.json" "$T/rc.json" "$T0" "$T1" "$T/events.json" "$S" <<'PY'
import json, re, sys
before, after = (json.load(open(p))["forecast"] for p in sys.argv[1:3])
real = (int(sys.argv[4]) - int(sys.argv[3])) / 1000
done = [e for e in json.load(open(sys.argv[5]))["events"] if e["kind"] == "rebuild-done" and e["device"] == sys.argv[6]]
copied = done[-1]["bytes"] if done else None
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
check(copied and abs(before["bytes"] - copied) <= 0.1 * copied,
      f"before it: {before['bytes'] / 2**20:.1f} MiB to write ({before['bytes_from']}), the replace copied "
      f"{(copied or 0) / 2**20:.1f} MiB")
check(before["low_seconds"] <= real <= before["high_seconds"],
      f"before it, from {before['figures']} figures: {before['low_seconds']:.1f} s to {before['high_seconds']:.1f} s, "
      f"which holds the real {real:.1f} s")
e = after["expected_seconds"]
check(after["figures"] == "learnt" and e is not None and abs(e - real) <= 0.3 * real,
      f"after it, from {after['figures']} figures ({after['figures_text']}): expected {e} s, within 30% of the "
      f"real {real:.1f} s")
sys.exit(1 if fails else 0)
PY

step "smrd restarted as root (with CAP_SYS_ADMIN): the kernel's own status"
smrd_as admin
check "smrd asks the kernel for the replace's status" bash -c "! grep -q 'no CAP_SYS_ADMIN\|refuses this process' '$T/smrd.log'"
step "btrfs replace of the second one's devid 2 onto the CMR disk $CMR"
replace "$FS2" 2 "$CMR" cmr
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the replace's end on $C" done_on "$C"
events_json
check "no rebuild-warning and no storm on $C" \
	[ "$(kinds rebuild-warning "$C" 0 "$(now_ms)") $(kinds storm-start "$C" 0 "$(now_ms)")" = "0 0" ]
judge cmr "$C" --no-eta
done_took "$C" $((T1 - T0))
check "the hostile mount point is in its events, escaped" grep -q 'fs2\\\\x0a<2>smrd: forged\\\\x1b\[31m' "$T/events.json"
check "no line of smrd's log is forged by it, nor carries its escape" \
	bash -c "! grep -q '^<2>smrd: forged' '$T/smrd.log' && ! grep -q \$'\\e' '$T/smrd.log'"
# balance MOUNT NAME DEVICE: btrfs balance start --full-balance, paused at
# once (a balance this small takes about a second: smrd, reading every
# second, could miss it) until smrd follows it onto DEVICE, then resumed to
# its end, smrctl rebuilds polled meanwhile into $T/NAME.rebuilds
balance() {
	local M=$1 name=$2 dev=$3 pid r i
	: >"$T/$name.rebuilds"
	btrfs balance start --full-balance "$M" >"$T/$name.out" 2>&1 &
	pid=$!
	at_exit "btrfs balance cancel '$M' 2>/dev/null; kill $pid 2>/dev/null"
	for i in $(seq 100); do btrfs balance pause "$M" >/dev/null 2>&1 && break; sleep 0.01; done
	wait "$pid"
	grep -q 'paused' "$T/$name.out" || { fail "btrfs balance of $M not paused: $(cat "$T/$name.out")"; return; }
	say "  $(btrfs balance status "$M" | tail -1)"
	WAIT_LOG=$T/smrd.log wait_until 10 "smrd to follow the paused balance onto $dev" balance_running "$dev"
	btrfs balance resume "$M" >"$T/$name.out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		r=$(ctl --json rebuilds 2>/dev/null | tr -d '\n') && echo "$(now_ms) $r" >>"$T/$name.rebuilds"
		sleep 0.25
	done
	wait "$pid" || fail "btrfs balance resume of $M: $(cat "$T/$name.out")"
	say "  $(tail -1 "$T/$name.out")"
	btrfs filesystem show --raw "$M" | grep devid | sed 's/^\s*/  /'
}
# balance_running DEVICE: smrctl rebuilds follows a balance onto DEVICE
balance_running() { ctl --json rebuilds | python3 -c 'import json,sys
sys.exit(not any(r["device"] == sys.argv[1] and r["kind"] == "balance" and r["state"] == "running"
                 for r in json.load(sys.stdin)["rebuilds"]))' "$1"; }
# balance_dones DEVICE: rebuild-done events of a balance on DEVICE
balance_dones() { ctl --json events --limit 1000 | python3 -c 'import json,sys
print(sum(1 for e in json.load(sys.stdin)["events"] if e["kind"] == "rebuild-done" and e["device"] == sys.argv[1]
          and e["message"].startswith("balance of ")))' "$1"; }
balance_done_on() { [ "$(balance_dones "$1")" -ge 1 ]; }
# followed_as_balance NAME DEVICE: smrctl rebuilds says the balance onto
# DEVICE finished
followed_as_balance() {
	check_by python3 - "$T/$1.rebuilds" "$2" "$(ctl --json rebuilds | tr -d '\n')" "$T/events.json" <<'PY'
import json, sys
log, dev, last = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])["rebuilds"]
running = 0
for line in open(log):
    try:
        rs = json.loads(line.partition(" ")[2])["rebuilds"]
    except (ValueError, KeyError):
        continue
    running += any(r.get("device") == dev and r.get("kind") == "balance" and r.get("state") == "running" for r in rs)
end = [r for r in last if r.get("device") == dev]
state = (end[0].get("kind"), end[0].get("state")) if end else None
ok = state == ("balance", "finished")
done = [e["message"] for e in json.load(open(sys.argv[4]))["events"] if e["kind"] == "rebuild-done" and e["device"] == dev]
print(f"  rebuild-done: {done[-1] if done else None}")
print(("ok: " if ok else "FAIL: ") + f"smrctl rebuilds says the balance onto {dev} finished ({state}; "
      f"{running} readings running after the resume)")
sys.exit(0 if ok else 1)
PY
}

step "smrd restarted without CAP_SYS_ADMIN"
smrd_as noadmin
step "btrfs device add of the DM-SMR disk $SMR to a third raid1, then a full balance"
umount "$T/fs1" || fail "umount fs1"
mkfs_raid1 fs3 "$BAL_MIB"
btrfs device add -f -K "$SMR" "$T/fs3" >"$T/add.out" 2>&1 || { fail "btrfs device add $SMR: $(cat "$T/add.out")"; finish; }
T0=$(now_ms)
balance "$T/fs3" bal-smr "$S"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the balance's end on $S" balance_done_on "$S"
check "one rebuild-done of a balance on $S" [ "$(balance_dones "$S")" = 1 ]
events_json
check "one rebuild-warning on $S for the balance" [ "$(kinds rebuild-warning "$S" "$T0" "$(now_ms)")" = 1 ]
followed_as_balance bal-smr "$S"

step "btrfs device add of the CMR disk $CMR to it, then a full balance"
umount "$FS2" || fail "umount fs2"
btrfs device add -f -K "$CMR" "$T/fs3" >"$T/add.out" 2>&1 || { fail "btrfs device add $CMR: $(cat "$T/add.out")"; finish; }
B0=$(now_ms)
balance "$T/fs3" bal-cmr "$C"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the balance's end on $C" balance_done_on "$C"
check "one rebuild-done of a balance on $C" [ "$(balance_dones "$C")" = 1 ]
events_json
check "no rebuild-warning on $C, and none more on $S" \
	[ "$(kinds rebuild-warning "$C" 0 "$(now_ms)") $(kinds rebuild-warning "$S" "$B0" "$(now_ms)")" = "0 0" ]
followed_as_balance bal-cmr "$C"
check "smrd is alive" alive
events_json
scrape >"$T/metrics.txt"
check "smrd_events_total counts every kind recorded" python3 - "$T/events.json" "$T/metrics.txt" <<'PY'
import collections, json, re, sys
recorded = collections.Counter(e["kind"] for e in json.load(open(sys.argv[1]))["events"])
counted = {m.group(1): float(m.group(2)) for m in re.finditer(r'^smrd_events_total\{kind="([a-z-]+)"\} (\S+)$',
                                                            open(sys.argv[2]).read(), re.M)}
# smrd restarted twice: what the last one recorded is at most what it counts
print(f"  recorded {dict(recorded)}; counted {dict((k, v) for k, v in counted.items() if v)}")
sys.exit(not all(counted.get(k, 0) >= 1 for k in ("rebuild-warning", "rebuild-done")))
PY
journal_check "$T/events.json"
check "no journal entry of smrd's carries a newline or an escape" python3 - "$T/journal.json" <<'PY'
import json, sys
bad = [r["MESSAGE"] for r in map(json.loads, open(sys.argv[1])) if "SMRD_EVENT" in r and isinstance(r.get("MESSAGE"), str)
       and any(c in r["MESSAGE"] for c in "\n\x1b")]
print(f"  {len(bad)} bad" + (f": {bad[0]!r}" if bad else ""))
sys.exit(1 if bad else 0)
PY
stop_smrd
umount "$T/fs3" || fail "umount"
finish
