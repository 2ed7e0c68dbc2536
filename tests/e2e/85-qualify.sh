#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrctl qualify on emulated disks and on real loop devices:
#   1. destructive on dm-smr with 8, 16 and 32 MiB caches: DM-SMR, with the
#      fast phase within 25% of cache / (fast IOPS x 4 KiB)
#   2. destructive on cmr and on an ssd model: not DM-SMR
#   3. read-only: not one write reaches the disk (diskstats)
#   4. every refusal rule on a real loop device set up to trigger it
#   5. Ctrl-C stops cleanly and still reports what was learned
. "$(dirname "$0")/lib.sh"
use_emu
need sfdisk
need mkfs.ext4

Q=("$SMRCTL" qualify)
wr() { awk -v d="$1" '$3 == d { print $8 }' /proc/diskstats; }	# writes completed
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec("print(" + sys.argv[2] + ")")' "$@"; }

step "1. dm-smr, three cache sizes"
for mib in 8 16 32; do
	emu_up D smr$mib dm-smr --cache-mib $mib --seed $((40 + mib)) >/dev/null || exit 1
	N=${D#/dev/}
	timeout -k 5 150 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 60 --rest 1 --read-seconds 2 \
		--report "$T/smr$mib" >"$T/smr$mib.out" 2>&1
	rc=$?
	sed -n 's/^verdict: /  /p' "$T/smr$mib.out"
	python3 - "$T/smr$mib.json" $mib "$rc" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
r, mib, rc = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3])
c = r["phases"]["write"]["cliff"]
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
check(rc == 0, f"exit code 0 ({rc})")
check(r["verdict"]["smr_like"], f"{mib:.0f} MiB cache: reported as DM-SMR")
if c["found"]:
    pred = mib * 1048576 / (c["fast_iops"] * 4096)
    print(f"  fast phase {c['at']:.2f} s at {c['fast_iops']:.0f} IOPS; cache / (IOPS x 4 KiB) = {pred:.2f} s "
          f"({(c['at'] / pred - 1) * 100:+.0f}%); then {c['slow_iops']:.1f} IOPS at {c['slow_latency'] * 1000:.0f} ms")
    check(0.75 * pred <= c["at"] <= 1.25 * pred, "fast phase within 25% of the cache's prediction")
check(r["trim"] == "done", "the tested range was trimmed")
sys.exit(bad)
PY
	check "the SVG plot is there" grep -q '<polyline' "$T/smr$mib.svg"
done
emu_cleanup

step "2. cmr and ssd"
emu_up C cmr cmr --seed 51 >/dev/null || exit 1
emu_up S ssd ssd --ssd-us 100 >/dev/null || exit 1
for d in "$C" "$S"; do
	N=${d#/dev/}
	timeout -k 5 90 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 12 --rest 0 --read-seconds 2 \
		--report "$T/$N" >"$T/$N.out" 2>&1 || fail "qualify $N exited $?"
	say "  $N: $(sed -n 's/^verdict: //p' "$T/$N.out")"
	check "$N is not reported as DM-SMR" [ "$(jget "$T/$N.json" 'd["verdict"]["smr_like"]')" = False ]
done
check "the ssd model is classified ssd" [ "$(jget "$T/${S#/dev/}.json" 'd["classification"]["class"]')" = ssd ]

step "3. read-only never writes"
N=${C#/dev/}
w0=$(wr "$N")
timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 2 --sizes 4k,1m --no-report >"$T/ro.out" 2>&1 || fail "read-only qualify exited $?"
w1=$(wr "$N")
sed -n '/^read /p; s/^verdict: /  verdict: /p' "$T/ro.out" | sed 's/^/  /'
check "read-only: writes completed on $N before and after: $w0 and $w1" [ "$w0" = "$w1" ]
check "read-only: reads at both sizes" bash -c "grep -q '^read 4 KiB' '$T/ro.out' && grep -q '^read 1.0 MiB' '$T/ro.out'"
check "read-only: the static evidence is listed" grep -q 'queue/rotational' "$T/ro.out"
timeout -k 5 60 "${Q[@]}" "$N" --read-seconds 1 --sizes 4k --no-report --json >"$T/ro.json" 2>"$T/ro.err"
check "--json: stdout is the report alone, stderr is silent" \
	bash -c "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/ro.json' && [ ! -s '$T/ro.err' ]"
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
	grep -E '^  - |not confirmed' "$T/refuse.out" | sed 's/^/    /'
	check "$what: refused (exit $rc), saying so, and nothing written ($w0 -> $w1 writes)" \
		bash -c "[ $rc -eq 1 ] && grep -qE '$pat' '$T/refuse.out' && [ '$w0' = '$w1' ]"
}
img() { truncate -s 256M "$T/$1.img"; echo "$T/$1.img"; }
L=$(attach_loop "$(img part)" -P)
printf 'label: gpt\n,64M\n' | sfdisk -q "$L" >/dev/null 2>&1
partx -u "$L" 2>/dev/null
refused "partition table" "has a partition|gpt partition table" "$L" --yes-destroy "${L#/dev/}"
L=$(attach_loop "$(img fs)")
mkfs.ext4 -q "$L"
refused "filesystem signature (not mounted)" "signature: ext4" "$L" --yes-destroy "${L#/dev/}"
mkdir -p "$T/mnt" && mount "$L" "$T/mnt" && at_exit 'umount "$T/mnt" 2>/dev/null' 
refused "mounted filesystem" "mounted at $T/mnt" "$L" --yes-destroy "${L#/dev/}"
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

step "5. Ctrl-C"
emu_up C2 cmr2 cmr --seed 52 >/dev/null || exit 1
N=${C2#/dev/}
"${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 60 --rest 0 --read-seconds 2 --report "$T/int" \
	>"$T/int.out" 2>&1 &
QP=$!
sleep 3
kill -INT "$QP"
t0=$(now_ms)
wait_pid "$QP" 30 "qualify to stop after SIGINT" "$T/int.out"; rc=$?
say "  stopped $(( $(now_ms) - t0 )) ms after SIGINT, exit $rc: $(sed -n 's/^verdict: //p' "$T/int.out")"
check "Ctrl-C: exit 0 with what was learned" [ "$rc" -eq 0 ]
check "Ctrl-C: the report says interrupted" [ "$(jget "$T/int.json" 'd["interrupted"]')" = True ]
check "Ctrl-C: writes before it are in the report" python3 -c "import json,sys; sys.exit(not json.load(open('$T/int.json'))['phases']['write']['ios'] > 100)"
finish
