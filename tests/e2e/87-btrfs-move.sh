#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two other ways btrfs moves data onto a disk, long enough to judge
# smrd's foresight (the full tier; 81 follows the same paths briefly in
# the gate, test-daemon-balance in model time): a full balance onto an
# emulated DM-SMR disk added to a raid1, and a device remove of a raid1's
# device whose chunks land on such a disk added beforehand (docs/zfs.md,
# "btrfs balance" and "btrfs device remove"). Everything is real: btrfs on
# loop devices over files in a private /dev/shm, the emulated disks (smr-emu
# as 81 has them: a 32 MiB media cache, sequential writes under 256 KiB
# sent to it, so the cliff comes early and most of the move is written at
# the band rewrite rate), smrd as the unit runs it (no CAP_SYS_ADMIN: the
# move followed from /sys/fs/btrfs and the target's own writes). Checked,
# for each: a rebuild-warning on the disk within 20 s of the start; every
# ETA smrctl rebuilds gives in the second half of the move, as the end it
# foresees, within 25% of the move's length from the real end; never done
# before it is (running at every reading while btrfs runs, its
# rebuild-done dated at the real end or after).
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
need btrfs
need mkfs.btrfs
mount -t tmpfs tmpfs /dev/shm || { fail "a private /dev/shm"; finish; }
use_emu
EMU_SIZE=1G
RAID1_SIZE=1G	# room for a full balance to move chunks of this size
DATA_MIB=${DATA_MIB:-192}	# six times the cache: most of each move past the cliff
# in files of 32 KiB: btrfs moves each extent in a write of its size,
# which a DM-SMR disk takes into its media cache (a big file's extents
# would go in large sequential writes, which it takes at full speed)
RAID1_FILE_KIB=32

step "two emulated DM-SMR disks (WD40EFAX by udev), smrd without CAP_SYS_ADMIN"
emu_up SMR1 bal dm-smr --seq-min-kib 256 --seed 87 || { fail "emu_up"; finish; }
emu_up SMR2 rem dm-smr --seq-min-kib 256 --seed 88 || { fail "emu_up"; finish; }
B=${SMR1#/dev/} R=${SMR2#/dev/}
mkdir -p "$T/udev/data"
printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-B\n' >"$T/udev/data/b$(cat "/sys/block/$B/dev")"
printf 'E:ID_MODEL=WDC_WD40EFAX-68JH4N0\nE:ID_SERIAL_SHORT=WD-R\n' >"$T/udev/data/b$(cat "/sys/block/$R/dev")"
printf '#!/bin/sh\nexec setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- "$SMRD_ROOT" "$@"\n' >"$T/smrd-noadmin"
chmod +x "$T/smrd-noadmin"
export SMRD_ROOT=$SMRD
SMRD=$T/smrd-noadmin
start_smrd --interval 1 --include "^($B|$R)\$" --exclude '^$' --udev-root "$T/udev" --rebuild-interval 1
check "smrd follows btrfs from sysfs" grep -q 'no CAP_SYS_ADMIN, btrfs replace and balance followed from' "$T/smrd.log"

# move NAME CMD...: runs the btrfs command CMD, polling smrctl rebuilds
# meanwhile into $T/NAME.log ("ms running|ended json"); T0 and T1 its
# start and end (ms)
move() {
	local name=$1 pid r alive
	shift
	: >"$T/$name.log"
	T0=$(now_ms)
	"$@" >"$T/$name.out" 2>&1 &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	while :; do
		alive=ended
		kill -0 "$pid" 2>/dev/null && alive=running
		r=$(ctl --json rebuilds 2>/dev/null | tr -d '\n') && echo "$(now_ms) $alive $r" >>"$T/$name.log"
		[ "$alive" = ended ] && break
		sleep 0.5
	done
	wait "$pid" || fail "$*: $(cat "$T/$name.out")"
	T1=$(now_ms)
	say "  $* took $(( (T1 - T0) / 1000 )) s"
}
done_on() { ctl --json events --limit 1000 | python3 -c 'import json,sys
sys.exit(not any(e["kind"] == "rebuild-done" and e["device"] == sys.argv[1] for e in json.load(sys.stdin)["events"]))' "$1"; }

# judge NAME DEVICE KIND: the claims above, from $T/NAME.log and the events
judge() {
	ctl --json events --limit 1000 >"$T/events.json"
	check_by python3 - "$T/$1.log" "$2" "$3" "$T0" "$T1" "$T/events.json" <<'PY'
import json, sys
log, dev, kind, t0, t1, events = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) / 1000, int(sys.argv[5]) / 1000, sys.argv[6]
real = t1 - t0
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
ev = json.load(open(events))["events"]
warn = [e for e in ev if e["kind"] == "rebuild-warning" and e["device"] == dev and e["logged"] >= t0 - 1]
check(warn and warn[0]["logged"] - t0 <= 20,
      f"a rebuild-warning on {dev} {warn[0]['logged'] - t0:.1f} s after the start (20 s at most)" if warn else
      f"a rebuild-warning on {dev}")
if warn:
    print(f"  {warn[0]['message']}")
early, late, seen, last_cliff = [], [], 0, None
for line in open(log):
    ms, alive, doc = line.split(" ", 2)
    t = int(ms) / 1000
    try:
        rs = [r for r in json.loads(doc)["rebuilds"] if r.get("device") == dev and r.get("kind") == kind]
    except (ValueError, KeyError):
        continue
    seen += bool(rs)
    for r in rs:
        last_cliff = r.get("cliff_seen")
        if alive == "running" and r.get("state") != "running":
            early.append((t - t0, r.get("state")))
        if alive == "running" and t >= t0 + real / 2 and r.get("eta_seconds") is not None:
            late.append((t - t0, t + r["eta_seconds"] - t1, r))
check(seen > 0, f"smrctl rebuilds followed the {kind} onto {dev} ({seen} readings)")
storms = [e for e in ev if e["kind"] == "storm-start" and e["device"] == dev and e["time"] >= t0]
print(f"  {len(storms)} storm(s) flagged on {dev} during it; the cliff seen by the rebuild: {last_cliff}")
check(not early, f"never done while btrfs runs ({early[:3] or 'running at every reading'})")
for at, off, r in late:
    print(f"  at {at:5.1f} s: {r['written_bytes'] / 2**20:6.1f} of {r['to_write_bytes'] / 2**20:6.1f} MiB, eta "
          f"{r['eta_seconds']:5.1f} s: the end {off:+5.1f} s from the real one ({off / real:+.0%} of {real:.1f} s)")
check(len(late) >= 2 and all(abs(off) <= 0.25 * real for _, off, _ in late),
      f"every ETA in the second half foresees the end within 25% of the move ({len(late)} readings)")
done = [e for e in ev if e["kind"] == "rebuild-done" and e["device"] == dev and e["time"] >= t0]
check(done and done[0]["time"] >= t1 - 1.0,
      f"its rebuild-done dated at the end or after ({done[0]['time'] - t1:+.1f} s): {done[0]['message']}" if done else
      "a rebuild-done")
sys.exit(1 if fails else 0)
PY
}

step "a full balance onto $SMR1, added to a raid1 holding $DATA_MIB MiB"
mkfs_raid1 fsb "$DATA_MIB"
btrfs device add -f -K "$SMR1" "$T/fsb" >"$T/add.out" 2>&1 || { fail "btrfs device add: $(cat "$T/add.out")"; finish; }
sleep 2	# a reading of the file system with the disk in it, before the move
move bal btrfs balance start --full-balance "$T/fsb"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the balance's end on $B" done_on "$B"
judge bal "$B" balance

step "a device remove from a raid1 holding $DATA_MIB MiB, onto $SMR2 added before it"
mkfs_raid1 fsr "$DATA_MIB"
btrfs device add -f -K "$SMR2" "$T/fsr" >"$T/add.out" 2>&1 || { fail "btrfs device add: $(cat "$T/add.out")"; finish; }
gone=$(btrfs filesystem show --raw "$T/fsr" | awk '/devid +2 / { print $NF }')
sleep 2
move rem btrfs device remove "$gone" "$T/fsr"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to record the remove's end on $R" done_on "$R"
judge rem "$R" device-remove
check "smrd is alive" alive
stop_smrd
finish
