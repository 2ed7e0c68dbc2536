#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrctl qualify on emulated disks and on real loop devices:
#   1. destructive on dm-smr with an 8 MiB cache (--full adds 32, the soak 16):
#      DM-SMR, with the fast phase's bytes within 10% of what the emulated
#      cache took (the emulator says how much: "cliff at T after N bytes")
#   2. destructive on cmr and on an ssd model: not DM-SMR
#   3. read-only: not one write reaches the disk (diskstats)
#   4. every refusal rule on a real loop device set up to trigger it, each
#      writing nothing: partition table, backup GPT alone (ext4 inside),
#      filesystem, mount, holder, a process writing to it, data where a new
#      disk has none, a disk that cannot be probed, no or wrong confirmation
#   4b. around a loop device (audit 4): a partition's whole disk mounted or
#      written by another process, swap on a sibling loop switched on
#      through a node outside /dev, a sparse file its file system cannot hold,
#      loop devices set up over the target itself (mounted, or over a node
#      since unlinked)
#   5. what changes while the user reads the prompt (a filesystem written,
#      another file attached to the node, the loop's offset) is seen, and
#      nothing is written
#   6. Ctrl-C well into the writes: it stops, reports, and discards nothing;
#      --discard after a whole run touches only the blocks it wrote
. "$(dirname "$0")/lib.sh"
use_emu
need sfdisk
need mkfs.ext4
need mkswap

Q=("$SMRCTL" qualify)
wr() { awk -v d="$1" '$3 == d { print $8 }' /proc/diskstats; }	# writes completed
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec("print(" + sys.argv[2] + ")")' "$@"; }

# the gate the smallest cache, --full the largest too, the soak the one
# between as well (test-qualify-virtual judges 61 draws in model time)
if [ "${SMRD_SOAK:-0}" = 1 ]; then CACHES="8 16 32"; elif tier_full; then CACHES="8 32"; else CACHES=8; fi
step "1. dm-smr, cache sizes $CACHES MiB"
for mib in $CACHES; do
	emu_up D smr$mib dm-smr --cache-mib $mib --seed $((40 + mib)) >/dev/null || exit 1
	N=${D#/dev/}
	timeout -k 5 150 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --discard --time-limit 60 --hold 4 --seq-seconds 3 --rest 1 --recovery-rest 0 \
		--read-seconds 2 --report "$T/smr$mib" >"$T/smr$mib.out" 2>&1
	rc=$?
	sed -n 's/^verdict: /  /p' "$T/smr$mib.out"
	[ "$rc" -eq 0 ] && [ -s "$T/smr$mib.json" ] || { say "  qualify exited $rc; its output:"; tail -15 "$T/smr$mib.out" | sed 's/^/    /'; }
	check_by python3 - "$T/smr$mib.json" $mib "$rc" "$T/emu-smr$mib/emu.log" <<'PY'
import json, re, sys
r, mib, rc = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3])
c = r["phases"]["write"]["cliff"]
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
check(rc == 0, f"exit code 0 ({rc})")
check(r["verdict"]["smr_like"], f"{mib:.0f} MiB cache: reported as DM-SMR")
# what the emulated cache took before its cliff, in the emulator's own words
said = re.search(r"cliff at [0-9.]+ after (\d+) bytes", open(sys.argv[4]).read())
check(said is not None, "the emulator logged its cliff")
took = int(said.group(1)) if said else 0.9 * mib * 1048576
print(f"  fast phase {c['at'] or 0:.2f} s at {c['fast_iops']:.0f} IOPS: {c['fast_bytes'] / 1048576:.2f} MiB; the cache took "
      f"{took / 1048576:.2f} MiB ({(c['fast_bytes'] / took - 1) * 100:+.1f}%); then {c['slow_iops'] or 0:.1f} IOPS")
check(c["found"] and abs(c["fast_bytes"] / took - 1) <= 0.10, "fast phase's bytes within 10% of what the cache took")
m = r.get("disk_model", {})
check(m.get("media_cache_bytes", {}).get("value") == c["fast_bytes"] and "idle_recovery_bytes_per_second" not in m
      and any("--recovery-rest 0" in x for x in m.get("skipped", [])),
      "disk_model: the cache is the fast phase's bytes; idle recovery absent and said why (--recovery-rest 0)")
# a rebuild's rate: the sequential writes' own, which ran past the cache, not the random rate
seq_rate = r["phases"].get("sequential", {}).get("bytes_per_second")
rate = m.get("rebuild_bytes_per_second")
check(rate is not None and seq_rate is not None and abs(rate / seq_rate - 1) < 1e-6
      and rate > 3 * m.get("slow_write_bytes_per_second", {}).get("value", rate),
      f"disk_model: a rebuild's rate is the sequential phase's ({rate} B/s), not the random writes' after the cliff")
# the random writes, then the sequential ones (--seq-seconds): both discarded, nothing else
wrote = r["phases"]["write"]["bytes"] + r["phases"].get("sequential", {}).get("bytes", 0)
check(r["discard"]["result"] == "done" and 0 < r["discard"]["bytes"] <= wrote,
      f"--discard: only the written blocks ({r['discard']['bytes']} of {wrote} bytes written)")
sys.exit(bad)
PY
	check "the SVG plot is there" grep -q '<polyline' "$T/smr$mib.svg"
	check "the text report gives the rebuild-rate line for smrd.conf" \
		grep -q "^and its rebuild forecast (smrctl rebuild-check): disk\..*\.rebuild-rate = [0-9.]*[KMG]\$" "$T/smr$mib.out"
done
emu_cleanup

step "2. cmr and ssd, both at once (two disks, two emulators)"
emu_up C cmr cmr --seed 51 >/dev/null || exit 1
emu_up S ssd ssd --ssd-us 100 >/dev/null || exit 1
# each waits on its own emulated disk, not on the CPU: run side by side
declare -A QPID
for d in "$C" "$S"; do
	N=${d#/dev/}
	timeout -k 5 90 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 8 --seq-seconds 2 --rest 0 --read-seconds 2 \
		--report "$T/$N" >"$T/$N.out" 2>&1 &
	QPID[$N]=$!
done
at_exit 'kill "${QPID[@]}" 2>/dev/null'
for d in "$C" "$S"; do
	N=${d#/dev/}
	wait_pid "${QPID[$N]}" 100 "qualify $N to finish" "$T/$N.out"
	rc=$?
	[ "$rc" -eq 0 ] || fail "qualify $N exited $rc"
	say "  $N: $(sed -n 's/^verdict: //p' "$T/$N.out")"
	check "$N is not reported as DM-SMR" [ "$(jget "$T/$N.json" 'd["verdict"]["smr_like"]')" = False ]
	check "$N: no media cache in its disk model" [ "$(jget "$T/$N.json" '"media_cache_bytes" in d["disk_model"]')" = False ]
done
# issue 29: a device far faster than a platter is not "consistent with CMR"
check "the ssd model is called solid-state, not CMR" bash -c "grep -q '^verdict: .*solid-state storage' '$T/${S#/dev/}.out' &&
	! grep -q 'consistent with CMR' '$T/${S#/dev/}.out'"
check "the cmr model is consistent with CMR" grep -q '^verdict: .*consistent with CMR' "$T/${C#/dev/}.out"
check "the ssd model is classified ssd" [ "$(jget "$T/${S#/dev/}.json" 'd["classification"]["class"]')" = ssd ]
check "without --discard nothing is discarded" [ "$(jget "$T/${S#/dev/}.json" 'd["discard"]["result"]')" = "not asked for (--discard)" ]

step "3. read-only never writes"
N=${C#/dev/}
w0=$(wr "$N")
timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k,1m --no-report >"$T/ro.out" 2>&1 || fail "read-only qualify exited $?"
w1=$(wr "$N")
sed -n '/^read /p; s/^verdict: /  verdict: /p' "$T/ro.out" | sed 's/^/  /'
check "read-only: writes completed on $N before and after: $w0 and $w1" [ "$w0" = "$w1" ]
check "read-only: reads at both sizes" bash -c "grep -q '^read 4K ' '$T/ro.out' && grep -q '^read 1M ' '$T/ro.out'"
check "read-only: the static evidence is listed" grep -q 'queue/rotational' "$T/ro.out"
timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k --no-report --json >"$T/ro.json" 2>"$T/ro.err"
check "--json: stdout is the report alone, stderr is silent" \
	bash -c "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/ro.json' && [ ! -s '$T/ro.err' ]"
# The report files (issue 26): run in a directory anyone can write, where
# someone planted links at the names a run this second would take, one to a
# root-only file; the disk says its serial is a path out of the directory.
P=$T/public
mkdir -p "$P" "$T/victimdir" && chmod 1777 "$P"
printf 'secret\n' >"$T/victim" && chmod 600 "$T/victim"
V=$T/cview/block/$N
mkdir -p "$V/queue" "$V/device"
for f in dev size removable ro; do cat "/sys/block/$N/$f" >"$V/$f"; done
for f in /sys/block/$N/queue/*; do [ -f "$f" ] && cat "$f" >"$V/queue/${f##*/}" 2>/dev/null; done
printf 'x/../../victimdir/pwned\n' >"$V/device/serial"
# (every second the run may end in: it names the report when it ends,
# seconds later under a sanitizer on a loaded machine)
for s in $(seq 0 30); do
	stamp=$(date -d "+$s sec" +%Y%m%d-%H%M%S)
	ln -s "$T/victim" "$P/qualify-x_.__.__victimdir_pwned-$stamp.json"
	ln -s "$T/victim" "$P/qualify-x_.__.__victimdir_pwned-$stamp.svg"
done
(cd "$P" && timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k --sysfs-root "$T/cview" >"$T/pub.out" 2>&1)
sed -n 's/^report: /  report: /p' "$T/pub.out"
check "a planted link is never followed: the root-only file is as it was" \
	bash -c "[ \"\$(cat '$T/victim')\" = secret ] && [ \"\$(stat -c %a '$T/victim')\" = 600 ]"
check "the report went to a new name beside the links" bash -c "grep -Eq '^report: qualify-x_.__.__victimdir_pwned-[0-9]{8}-[0-9]{6}-[0-9]+\.json' '$T/pub.out' && ls '$P'/qualify-*-[0-9]*-[0-9]*-[0-9].json >/dev/null"
check "a serial with slashes names no file outside the directory" bash -c "[ -z \"\$(ls -A '$T/victimdir')\" ]"
(cd "$P" && timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k --report "$P/mine" >"$T/first.out" 2>&1)
rc=$?
check "--report PATH writes its report (exit $rc)" bash -c "[ $rc -eq 0 ] && [ -s '$P/mine.json' ]"
(cd "$P" && timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k --report "$P/mine" >"$T/again.out" 2>&1)
rc=$?
check "--report never overwrites an existing file (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'cannot create .*mine.json.*never overwritten' '$T/again.out'"
emu_cleanup

step "4. refusals, on real loop devices"
refused() {	# refused WHAT PATTERN DEV [qualify args]: exit 1, the reason printed, no write
	local what=$1 pat=$2 dev=$3
	shift 3
	local n=${dev#/dev/} w0 w1 rc
	w0=$(wr "$n")
	timeout -k 5 60 "${Q[@]}" "$n" --destructive "$@" --time-limit 5 --rest 0 --read-seconds 1 --no-report >"$T/refuse.out" 2>&1
	rc=$?
	w1=$(wr "$n")
	grep -E '^  - |not confirmed|not the disk' "$T/refuse.out" | sed 's/^/    /'
	check "$what: refused (exit $rc), saying so, and nothing written ($w0 -> $w1 writes)" \
		bash -c "[ $rc -eq 1 ] && grep -qE '$pat' '$T/refuse.out' && [ '$w0' = '$w1' ]"
}
img() { truncate -s 256M "$T/$1.img"; echo "$T/$1.img"; }
L=$(attach_loop "$(img part)" -P)
printf 'label: gpt\n,64M\n' | sfdisk -q "$L" >/dev/null 2>&1
partx -u "$L" 2>/dev/null
refused "partition table" "has a partition|gpt partition table" "$L" --yes-destroy "${L#/dev/}"

# The audit's case: the protective MBR and the primary GPT overwritten, the
# backup header at the last sector intact, ext4 inside the partition.
I=$(img backup)
L=$(attach_loop "$I" -P)
printf 'label: gpt\n,64M\n' | sfdisk -q "$L" >/dev/null 2>&1
partx -u "$L" 2>/dev/null
wait_until 10 "partition ${L}p1 to appear" test -b "${L}p1"
mkfs.ext4 -q "${L}p1"
detach_loop "$L"
dd if=/dev/zero of="$I" bs=512 count=34 conv=notrunc status=none
L=$(attach_loop "$I")
check "libblkid alone sees nothing on it now (the audit's blind spot)" bash -c "! blkid -p '$L' >/dev/null 2>&1"
refused "backup GPT only, ext4 in its partition" "backup GPT header.*listing 1 partition" "$L" --yes-destroy "${L#/dev/}"
check "  ... naming the ext4 in partition 1" grep -q 'partition 1 of the backup GPT.*ext4' "$T/refuse.out"

L=$(attach_loop "$(img fs)")
# inode tables and journal written now: a lazy init would go on writing
# after the mount, which the write count below would take for qualify's
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$L"
refused "filesystem signature (not mounted)" "signature: ext4" "$L" --yes-destroy "${L#/dev/}"
mkdir -p "$T/mnt" && mount "$L" "$T/mnt" && at_exit 'umount "$T/mnt" 2>/dev/null'
refused "mounted filesystem" "in use|mounted at $T/mnt" "$L" --yes-destroy "${L#/dev/}"
# What lies beneath a loop device (issue 26): a loop over that mounted loop
# at an offset where the sampled MiB are zero and no signature is, and a
# second loop over the same image file.
seeded_bytes 85 $((8 << 20)) >"$T/mnt/file" && sync
S=$(attach_loop "$L" -o 15M --sizelimit 20M)
refused "a loop over a mounted loop device" "beneath it, ${L#/dev/} .*mounted at $T/mnt" "$S" --yes-destroy "${S#/dev/}"
S2=$(attach_loop "$T/fs.img")
refused "a second loop over a mounted image" "beneath it, ${L#/dev/} is another loop device over $T/fs.img: .*mounted at" \
	"$S2" --yes-destroy "${S2#/dev/}" --force-nonzero
sum=$(sha256sum <"$T/mnt/file")
detach_loop "$S"
detach_loop "$S2"
umount "$T/mnt"
# an image another process has open for writing, under a loop device
python3 -c 'import sys, time; f = open(sys.argv[1], "r+b"); time.sleep(60)' "$(img busy)" &
IMGW=$!
at_exit 'kill "$IMGW" 2>/dev/null'
wait_until 30 "the writer to open busy.img" bash -c "ls -l /proc/$IMGW/fd 2>/dev/null | grep -q 'busy.img\$'"
S=$(attach_loop "$T/busy.img")
refused "a loop over an image a process writes" "beneath it, its backing file $T/busy.img: process $IMGW" "$S" \
	--yes-destroy "${S#/dev/}"
stop_pid "$IMGW" 5 "the image's writer to exit"
detach_loop "$S"
mount "$L" "$T/mnt"
check "the file on the mounted file system is as it was" bash -c "[ \"\$(sha256sum <'$T/mnt/file')\" = '$sum' ]"
umount "$T/mnt"
L=$(attach_loop "$(img held)")
N=${L#/dev/}
# No device-mapper, md or bcache on this kernel: the holder is added to a
# copy of this loop device's sysfs directory, read through --sysfs-root.
V=$T/sysview/block/$N
mkdir -p "$V/queue" "$V/holders/dm-0"
for f in dev size removable ro; do cat "/sys/block/$N/$f" >"$V/$f"; done
for f in /sys/block/$N/queue/*; do [ -f "$f" ] && cat "$f" >"$V/queue/${f##*/}" 2>/dev/null; done
refused "holder" "held by dm-0" "$L" --yes-destroy "$N" --sysfs-root "$T/sysview"
refused "wrong confirmation" "not confirmed" "$L" --yes-destroy not-the-name
refused "no confirmation on a non-terminal" "not confirmed" "$L" </dev/null

# Another process has it open for writing (no O_EXCL: the kernel would let us).
python3 -c 'import sys, time; f = open(sys.argv[1], "r+b"); time.sleep(60)' "$L" &
WRITER=$!
at_exit 'kill "$WRITER" 2>/dev/null'
# until it holds the device open (python starts slowly on a loaded machine)
wait_until 30 "the writer to open $L" bash -c "ls -l /proc/$WRITER/fd 2>/dev/null | grep -q ' -> $L\$'"
refused "a process writing to it" "process $WRITER \\(python3\\) has $N open for writing" "$L" --yes-destroy "$N"
stop_pid "$WRITER" 5 "the writer to exit"

# Data where a new disk has none.
seeded_bytes 86 4096 | dd of="$L" bs=4096 seek=$((128 << 20 >> 12)) conv=notrunc status=none
refused "data in the middle MiB" "holds data: .* in its middle MiB" "$L" --yes-destroy "$N"
# the advice after it must work: wipefs does not remove data, so it names
# --force-nonzero and the dd that zeroes exactly the sampled region
check "  ... the advice names --force-nonzero and not wipefs alone" bash -c "grep -q 'add --force-nonzero' '$T/refuse.out' &&
	! grep -q '^Empty the disk first' '$T/refuse.out'"
grep '^  dd if=/dev/zero' "$T/refuse.out" >"$T/zero.sh"
say "  advice: $(cat "$T/zero.sh")"
bash "$T/zero.sh"
timeout -k 5 60 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 1 --seq-seconds 0 --rest 0 --read-seconds 1 \
	--no-report >"$T/zeroed.out" 2>&1
rc=$?
check "  ... and after running its dd the disk is accepted (exit $rc)" bash -c "[ $rc -eq 0 ] && grep -q '^verdict' '$T/zeroed.out'"
check "  ... the refusal says an earlier qualify's own writes are the likely data" \
	grep -q 'earlier smrctl qualify --destructive ran on this disk without --discard' "$T/refuse.out"
check "  ... and the run says first how long it takes in all, every phase" \
	grep -q '^the run, at most 2 s in all: random writes .* sequential writes, idle-recovery .* rest and 1 s of random reads' "$T/zeroed.out"
seeded_bytes 86 4096 | dd of="$L" bs=4096 seek=$((128 << 20 >> 12)) conv=notrunc status=none
w0=$(wr "$N")
timeout -k 5 60 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --force-nonzero --time-limit 1 --seq-seconds 1 --rest 0 --read-seconds 1 \
	--no-report >"$T/force.out" 2>&1
rc=$?
check "--force-nonzero overrides that rule alone (exit $rc, $w0 -> $(wr "$N") writes)" \
	bash -c "[ $rc -eq 0 ] && [ $(wr "$N") -gt $w0 ] && grep -q '^verdict' '$T/force.out'"

# A disk that cannot be probed: an emulated one whose first sector fails.
emu_up B bad ssd --bad-range 0:4096 >/dev/null || exit 1
refused "a disk libblkid cannot probe" "could not be probed|first MiB could not be read" "$B" --yes-destroy "${B#/dev/}"
emu_cleanup
# A write that fails mid-run (issue 26: a device that shrank): no verdict,
# exit 1, the error in the report. Half of it cannot be written.
emu_up B badw ssd --bad-write-range $((128 << 20)):$((128 << 20)) >/dev/null || exit 1
timeout -k 5 60 "${Q[@]}" "${B#/dev/}" --destructive --yes-destroy "${B#/dev/}" --time-limit 10 --rest 0 --read-seconds 1 \
	--json --no-report >"$T/ioerr.json" 2>"$T/ioerr.err"
rc=$?
sed 's/^/    /' "$T/ioerr.err" | tail -2
check "an I/O error: exit 1, no verdict, the error in the report (exit $rc)" bash -c "[ $rc -eq 1 ] &&
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(not (d[\"verdict\"] is None and
	\"a write at offset\" in d[\"error\"] and \"Input/output error\" in d[\"error\"]))' '$T/ioerr.json'"
emu_cleanup

step "4b. what lies around a loop device: the partition's disk, swap, room (audit 4)"
# A loop over partition 1 of a disk whose whole device holds a mounted
# ext4 (an MBR written into its unused sector 0, added while mounted; 9-15
# MiB, clear of the superblock copies): the partition alone is clean, its
# disk is not.
I=$T/whole.img
truncate -s 32M "$I"
A=$(attach_loop "$I")
mkfs.ext4 -q -F -b 1024 "$A"
mkdir -p "$T/wmnt" && mount "$A" "$T/wmnt" && at_exit 'umount "$T/wmnt" 2>/dev/null'
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b", buffering=0) as f:
    f.seek(446); f.write(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 18432, 12288) + b"\0" * 48 + b"\x55\xaa")' "$A"
partx -a "$A" 2>/dev/null
wait_until 10 "partition ${A}p1 to appear" test -b "${A}p1"
B=$(attach_loop "${A}p1")
refused "a loop over a partition of a mounted disk" "beneath it, ${A#/dev/}p1 .*a partition of ${A#/dev/}\\): ${A#/dev/} is mounted at $T/wmnt" \
	"$B" --yes-destroy "${B#/dev/}" --force-nonzero
umount "$T/wmnt"
# the same disk, not mounted, open for writing by another process (a VM's disk)
python3 -c 'import sys, time; f = open(sys.argv[1], "r+b"); time.sleep(60)' "$A" &
AW=$!
at_exit 'kill "$AW" 2>/dev/null'
wait_until 30 "the writer to open $A" bash -c "ls -l /proc/$AW/fd 2>/dev/null | grep -q ' -> $A\$'"
refused "a loop over a partition of a disk a process writes" "a partition of ${A#/dev/}\\): process $AW \\(python3\\) has ${A#/dev/} open" \
	"$B" --yes-destroy "${B#/dev/}" --force-nonzero
stop_pid "$AW" 5 "the disk's writer to exit"
detach_loop "$B"
partx -d "$A" 2>/dev/null
detach_loop "$A"
# Swap on a second loop over the same file, switched on through a node
# outside /dev whose name /proc/swaps escapes: matched by device number.
truncate -s 16M "$T/swap.img"
S=$(attach_loop "$T/swap.img")
mkswap -q "$S" >/dev/null
read -r smaj smin < <(stat -c '%t %T' "$S")
mknod -m 0600 "$T/sw node" b $((0x$smaj)) $((0x$smin))
swapon -p -100 "$T/sw node" && at_exit 'swapoff "$T/sw node" 2>/dev/null'
S2=$(attach_loop "$T/swap.img" -o 1M)
refused "a loop over a file that another loop swaps on (swapon through a node outside /dev)" \
	"beneath it, ${S#/dev/} is another loop device over $T/swap.img: ${S#/dev/} is in use as swap \\($T/sw node\\)" \
	"$S2" --yes-destroy "${S2#/dev/}" --force-nonzero
swapoff "$T/sw node"
detach_loop "$S2"
detach_loop "$S"
# A sparse file larger than the free space of the file system it is on.
truncate -s 16M "$T/small.img"
mkfs.ext4 -q -F "$T/small.img"
M=$(attach_loop "$T/small.img")
mkdir -p "$T/smnt" && mount "$M" "$T/smnt" &&
	at_exit 'losetup -d "$NL" 2>/dev/null; umount "$T/smnt" 2>/dev/null || umount -l "$T/smnt"'
truncate -s 256M "$T/smnt/disk.img"
free0=$(df -k --output=avail "$T/smnt" | tail -1)
NL=$(attach_loop "$T/smnt/disk.img")
refused "a sparse file larger than its file system's free space" "beneath it, its backing file $T/smnt/disk.img: it is sparse" \
	"$NL" --yes-destroy "${NL#/dev/}"
check "  ... its file system's free space is as it was" [ "$(df -k --output=avail "$T/smnt" | tail -1)" = "$free0" ]
detach_loop "$NL"
umount "$T/smnt"
detach_loop "$M"
# A loop device set up over the target itself is a user, mounted or not:
# the loop driver is neither a holder nor a process. Over it at 1 MiB (clear
# of the probes at its start) with an ext4 mounted read-only, so that
# nothing that ext4 writes is counted; then one set up through a node
# outside /dev since unlinked, whose backing_file no longer resolves.
truncate -s 8M "$T/under.img"
U=$(attach_loop "$T/under.img")
O=$(attach_loop "$U" -o 1M)
mkfs.ext4 -q -F "$O"
mkdir -p "$T/umnt" && mount -o ro "$O" "$T/umnt" && at_exit 'umount "$T/umnt" 2>/dev/null'
refused "a loop device over it, mounted" "above it, ${O#/dev/}, in use: ${O#/dev/} is mounted at $T/umnt" \
	"$U" --yes-destroy "${U#/dev/}" --force-nonzero
umount "$T/umnt"
detach_loop "$O"
read -r umaj umin < <(stat -c '%t %T' "$U")
mknod -m 0600 "$T/u node" b $((0x$umaj)) $((0x$umin))
O=$(attach_loop "$T/u node" -o 1M)
rm "$T/u node"
refused "a loop device over it through a node since unlinked" "^  - ${O#/dev/} is set up over it " \
	"$U" --yes-destroy "${U#/dev/}" --force-nonzero
detach_loop "$O"
detach_loop "$U"

step "5. what changes while the prompt waits"
# a wrong answer at the prompt is told about the prompt, not --yes-destroy
L=$(attach_loop "$(img wrong)")
N=${L#/dev/}
w0=$(wr "$N")
timeout -k 5 90 python3 "$SRCDIR/tests/e2e/pty-answer.py" "Type its" "true" "not-$N" -- \
	"$SMRCTL" qualify "$N" --destructive --time-limit 2 --seq-seconds 1 --rest 0 --read-seconds 1 --no-report >"$T/wrong.out" 2>&1
rc=$?
sed 's/^/    /' "$T/wrong.out" | grep 'not confirmed'
check "a wrong answer at the prompt: exit 1, a message about the answer, nothing written" bash -c "[ $rc -eq 1 ] &&
	grep -q 'the answer was not the disk' '$T/wrong.out' && ! grep -q -- '--yes-destroy must' '$T/wrong.out' && [ '$w0' = '$(wr "$N")' ]"
# The audit's case: mkfs.ext4 while the prompt waits. It cannot open the
# disk (we hold it O_EXCL) and writes nothing; if it could, the second
# check would find its filesystem.
L=$(attach_loop "$(img race0)")
N=${L#/dev/}
timeout -k 5 90 python3 "$SRCDIR/tests/e2e/pty-answer.py" "Type its" "mkfs.ext4 -q -F '$L' && echo mkfs wrote" "$N" -- \
	"$SMRCTL" qualify "$N" --destructive --time-limit 1 --seq-seconds 1 --rest 0 --read-seconds 1 --no-report >"$T/race0.out" 2>&1
rc=$?
sed 's/^/    /' "$T/race0.out" | grep -E 'mischief|mkfs|apparently|changed|verdict' | head -5
check "mkfs.ext4 during the prompt: it wrote nothing and the test ran, or it wrote and was refused (exit $rc)" \
	bash -c "{ ! grep -q '^mkfs wrote' '$T/race0.out' && [ $rc -eq 0 ]; } || { [ $rc -eq 1 ] && grep -q 'signature: ext4' '$T/race0.out'; }"
ext4img=$T/ext4.img
truncate -s 8M "$ext4img" && mkfs.ext4 -q "$ext4img"
L=$(attach_loop "$(img race1)")
N=${L#/dev/}
w0=$(wr "$N")
timeout -k 5 90 python3 "$SRCDIR/tests/e2e/pty-answer.py" "Type its" \
	"dd if='$ext4img' of='$L' bs=1M oflag=direct conv=notrunc status=none" "$N" -- \
	"$SMRCTL" qualify "$N" --destructive --time-limit 5 --seq-seconds 1 --rest 0 --read-seconds 1 --no-report >"$T/race1.out" 2>&1
rc=$?
w1=$(wr "$N")
sed 's/^/    /' "$T/race1.out" | grep -E 'mischief|changed|  - ' | head -5
# the dd is the only writer: its 8 MiB arrive as writes of up to 1 MiB
check "a filesystem written during the prompt is found after it (exit $rc), nothing of ours written" \
	bash -c "[ $rc -eq 1 ] && grep -q 'changed while waiting' '$T/race1.out' && grep -q 'signature: ext4' '$T/race1.out' && [ $((w1 - w0)) -le 64 ]"
I2=$T/race2.img
L=$(attach_loop "$(img race2a)")
N=${L#/dev/}
truncate -s 256M "$I2"
python3 -c 'import sys; open(sys.argv[1], "r+b").write(b"precious" * 512)' "$I2"
sum0=$(sha256sum <"$I2")
timeout -k 5 90 python3 "$SRCDIR/tests/e2e/pty-answer.py" "Type its" \
	"losetup -d '$L'; losetup '$L' '$I2' && echo attached $I2" "$N" -- \
	"$SMRCTL" qualify "$N" --destructive --time-limit 1 --seq-seconds 1 --rest 0 --read-seconds 1 --no-report >"$T/race2.out" 2>&1
rc=$?
sed 's/^/    /' "$T/race2.out" | grep -E 'mischief|attached|refusing|not the disk|busy' | head -5
losetup -d "$L" 2>/dev/null
check "another file on the same loop node during the prompt: refused or never attached, and that file untouched (exit $rc)" \
	bash -c "[ '$(sha256sum <"$I2")' = '$sum0' ] && { [ $rc -eq 1 ] || ! grep -q '^attached' '$T/race2.out'; }"

# The loop's offset moved (LOOP_SET_STATUS64) while the prompt waits: the
# confirmed range is part of what must not change. Data only at 18-19 MiB,
# where the checks' samples at the new offset (16, 20, 23 MiB) do not look.
I=$T/off.img
truncate -s 32M "$I"
seeded_bytes 87 $((1 << 20)) | dd of="$I" bs=1M seek=18 conv=notrunc status=none
sum0=$(dd if="$I" bs=1M skip=18 count=1 status=none | sha256sum)
cat >"$T/setoff.py" <<'PY'
import fcntl, struct, sys
buf = bytearray(232)	# struct loop_info64; lo_offset at 24
with open(sys.argv[1], "rb") as f:
    fcntl.ioctl(f, 0x4C05, buf)	# LOOP_GET_STATUS64
    struct.pack_into("Q", buf, 24, int(sys.argv[2]))
    fcntl.ioctl(f, 0x4C04, bytes(buf))	# LOOP_SET_STATUS64
print("offset moved")
PY
L=$(attach_loop "$I" --sizelimit 8M)
N=${L#/dev/}
timeout -k 5 90 python3 "$SRCDIR/tests/e2e/pty-answer.py" "Type its" "python3 '$T/setoff.py' '$L' $((16 << 20))" "$N" -- \
	"$SMRCTL" qualify "$N" --destructive --time-limit 2 --seq-seconds 0 --rest 0 --read-seconds 1 --no-report >"$T/off.out" 2>&1
rc=$?
sed 's/^/    /' "$T/off.out" | grep -E 'mischief|moved|refusing|verdict' | head -5
check "the loop's offset moved during the prompt: refused (exit $rc), the data beyond the confirmed range untouched" \
	bash -c "[ $rc -eq 1 ] && grep -q 'loop offset or size limit changed' '$T/off.out' &&
	[ \"\$(dd if='$I' bs=1M skip=18 count=1 status=none | sha256sum)\" = '$sum0' ]"
detach_loop "$L"

step "6. Ctrl-C, and --discard"
pattern() { python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes([0xab]) * (64 << 20))' "$1"; }
changed() { python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
blk = bytes([0xab]) * 4096
print(sum(1 for i in range(0, len(d), 4096) if d[i:i + 4096] != blk))' "$1"; }
I=$T/int.img
pattern "$I"
L=$(attach_loop "$I" --direct-io=on)
N=${L#/dev/}
d0=$(awk -v d="$N" '$3 == d { print $15 }' /proc/diskstats)
"${Q[@]}" "$N" --destructive --yes-destroy "$N" --force-nonzero --discard --time-limit 60 --rest 0 \
	--read-seconds 2 --report "$T/int" >"$T/int.out" 2>&1 &
QP=$!
at_exit 'kill "$QP" 2>/dev/null' 
# well into the writes (a thousand done), whenever they start: the checks
# before them take longer on a loaded machine
w0=$(wr "$N")
wait_until 60 "qualify's writes to start" bash -c "[ \$(awk -v d='$N' '\$3 == d { print \$8 }' /proc/diskstats) -gt $((w0 + 1000)) ]"
kill -INT "$QP"
t0=$(now_ms)
wait_pid "$QP" 30 "qualify to stop after SIGINT" "$T/int.out"; rc=$?
d1=$(awk -v d="$N" '$3 == d { print $15 }' /proc/diskstats)
detach_loop "$L"
ios=$(jget "$T/int.json" 'd["phases"]["write"]["ios"]')
n=$(changed "$I")
say "  stopped $(( $(now_ms) - t0 )) ms after SIGINT, exit $rc; $ios writes, $n blocks changed, discards $d0 -> $d1"
# an interrupted run is no verdict, whatever it measured: a pass it is not
check "Ctrl-C: exit 130, as for an interrupted command" [ "$rc" -eq 130 ]
said=$(jget "$T/int.json" 'd["interrupted"], d["verdict"]')
check "Ctrl-C: the report says interrupted, and no verdict ($said)" \
	bash -c "[ '$said' = 'True None' ] && grep -q '^no verdict: the run was interrupted' '$T/int.out' && ! grep -q '^verdict:' '$T/int.out'"
check "Ctrl-C: writes before it are in the report" [ "${ios:-0}" -gt 100 ]
check "Ctrl-C: no discard at all ($d0 -> $d1), as the report says" \
	bash -c "[ '$d0' = '$d1' ] && grep -q 'skipped: the run was interrupted' '$T/int.out'"
check "Ctrl-C: no block changed but those written ($n <= $ios)" [ "$n" -le "${ios:-0}" ]
I=$T/disc.img
pattern "$I"
L=$(attach_loop "$I" --direct-io=on)
N=${L#/dev/}
# random writes alone (--seq-seconds 0): a sequential phase on a disk this
# small would cover all of it, and the check would prove nothing
timeout -k 5 90 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --force-nonzero --discard --write-budget 4M \
	--seq-seconds 0 --rest 0 --read-seconds 1 --report "$T/disc" >"$T/disc.out" 2>&1
rc=$?
detach_loop "$L"
ios=$(jget "$T/disc.json" 'd["phases"]["write"]["ios"]')
n=$(changed "$I")
say "  $(grep '^discard' "$T/disc.out"); $ios writes, $n blocks changed"
check "--discard: done (exit $rc)" grep -q 'discard of the blocks this run wrote: done' "$T/disc.out"
check "--discard: only the blocks written changed ($n <= $ios), the rest of the disk is as it was" \
	bash -c "[ '$n' -gt 0 ] && [ '$n' -le '${ios:-0}' ]"
finish
