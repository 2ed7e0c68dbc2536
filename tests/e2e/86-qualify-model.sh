#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# smrctl qualify's disk model (issue 29) on emulated DM-SMR disks drawn by
# tests/emu/qmodel.py (cache, band, cleaning rate, idle delay, slow shape),
# each figure against the emulator's own counters (smr-emu --stats): the
# media cache within 15% of the bytes at its cliff, the sustained rate
# within 25% of what it took into the cache over its slow phase, the
# rewrite time within 25% of the band rewrites writes waited for, each
# point of the idle-recovery curve (and its fit there) within 30% of the
# fast space the emulator had after that rest; every error is printed. No media_cache_bytes for a CMR disk, a
# fast fixed-latency disk or an SSD with an SLC cache.
#
# The gate runs the draw tests/seeds/qmodel.txt marks 'live': the kernel
# path (loop device, FUSE, libaio, the wall clock). Every seeded draw, the
# look-alikes, and idle recovery on every shape run in model time in
# unit/test-qualify-virtual.c. SMRD_SOAK=1 draws afresh: QMODEL_DRAWS (3)
# draws of a random seed, printed; QMODEL_SEED replays a seed,
# QMODEL_DRAW='OPTS|QD|BACK' one draw as its step line printed it.
. "$(dirname "$0")/lib.sh"
use_emu
# qmodel.py's disk: few bands, so that each rewrite frees enough for idle
# recovery to show within a minute.
EMU_SIZE=512M
QMODEL=$SRCDIR/tests/emu/qmodel.py
Q=("$SMRCTL" qualify)

if [ -n "${QMODEL_SEED:-}" ] || [ "${SMRD_SOAK:-0}" = 1 ]; then
	SEED=${QMODEL_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
	mapfile -t DRAWS < <(for i in $(seq 1 "${QMODEL_DRAWS:-3}"); do echo "$SEED $i"; done)
	say "disk model draws: ${#DRAWS[@]} of seed $SEED (replay: QMODEL_SEED=$SEED)"
else
	mapfile -t DRAWS < <(python3 "$QMODEL" live "$SRCDIR/tests/seeds/qmodel.txt")
	say "disk model draws: ${DRAWS[*]} (tests/seeds/qmodel.txt, live)"
fi
[ "${#DRAWS[@]}" -gt 0 ] || fail "no draws"

: >"$T/errors"
for sd in "${DRAWS[@]}"; do
	read -r seed i <<<"$sd"
	IFS='|' read -r opts qd back <<<"${QMODEL_DRAW:-$(python3 "$QMODEL" draw "$seed" "$i")}"
	step "draw $i of seed $seed: dm-smr $opts, queue depth $qd, fast again after ${back} s of idle"
	tag=m$seed-$i t0=$SECONDS
	# shellcheck disable=SC2086
	emu_up D "$tag" dm-smr $opts >/dev/null || exit 1
	N=${D#/dev/}
	timeout -k 5 400 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --iodepth "$qd" --time-limit 300 --hold 8 \
		--seq-seconds 2 --recovery-rest 50 --rest 0 --read-seconds 1 --report "$T/$tag" >"$T/$tag.out" 2>&1
	rc=$?
	sed -n '/^disk model:/,/^smrd/p' "$T/$tag.out" | sed 's/^/  /'
	[ "$rc" -eq 0 ] || { say "  qualify exited $rc:"; tail -20 "$T/$tag.out" | sed 's/^/    /'; }
	check_by python3 - "$T/$tag.json" "$EMU_WORK/emu-$tag/emu.log" "$rc" "$T/errors" <<'PY'
import json, re, sys
r, log, rc = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), int(sys.argv[3])
m = r.get("disk_model", {})
bad = 0
def check(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what); bad += not ok
def val(k):
    return m.get(k, {}).get("value")
check(rc == 0 and r["verdict"]["smr_like"], f"exit 0 and DM-SMR ({rc})")
cliff = int(re.search(r"cliff at [0-9.]+ after (\d+) bytes", log).group(1))
slow = re.search(r"slow phase ([0-9.]+) s: (\d+) bytes into the cache, (\d+) waits for band rewrites of ([0-9.]+) us", log)
idles = [(float(a), int(b), int(c)) for a, b, c in
         re.findall(r"idle ([0-9.]+) s: cleaned (\d+) bytes, then (\d+) bytes fast", log)]
errs = {}
def near(name, got, want, tol):
    if got is None or not want:
        check(False, f"{name}: measured {got}, emulator {want}")
        return
    e = got / want - 1
    errs[name] = max(abs(e), abs(errs.get(name, 0)))
    check(abs(e) <= tol, f"{name}: {got:.6g} against the emulator's {want:.6g} ({e * 100:+.1f}%, within {tol * 100:.0f}%)")
near("media cache", val("media_cache_bytes"), cliff, 0.15)
check(slow is not None, "the emulator's slow phase is on record")
if slow:
    near("sustained rate", val("slow_write_bytes_per_second"), int(slow.group(2)) / float(slow.group(1)), 0.25)
    near("rewrite time", val("rewrite_seconds"), float(slow.group(4)) / 1e6, 0.25)
def curve_at(fit, t):
    """The fitted form (docs/qualify.md) at a rest of t seconds."""
    if t < fit["delay_seconds"]:
        return 0
    s = min((t - fit["delay_seconds"]) / fit["clean_seconds"], 1)
    return fit["room_bytes"] + (fit["cache_bytes"] - fit["room_bytes"]) * (1 - (1 - s) ** fit["shape"])
# each rest qualify took, in order, and the emulator's idle period for it
curve = m.get("idle_recovery_curve") or {}
points = {(p["rest_seconds"], p["bytes"]) for p in curve.get("points", [])}
fit, j, seen = curve.get("fit"), 0, 0
for f in r["phases"].get("refills", []):
    if not f["rest_seconds"] > 0:
        continue
    while j < len(idles) and abs(idles[j][0] - f["rest_seconds"]) > 0.5:
        j += 1
    if j == len(idles) or (f["rest_seconds"], f["bytes_before_wait"]) not in points:
        j += j < len(idles)
        continue
    d, cleaned, room = idles[j]
    j += 1
    seen += 1
    print(f"  rest {f['rest_seconds']:.1f} s: the emulator idle {d:.2f} s, cleaned {cleaned} bytes, then {room} fast; "
          f"qualify took {f['bytes_before_wait']}")
    if not f["waited"]:
        check(f["bytes_before_wait"] >= 0.7 * room, "idle curve: a lower bound, not below the truth")
        continue
    near("idle curve, points", f["bytes_before_wait"], room, 0.30)
    if fit:
        near("idle curve, fit", curve_at(fit, f["rest_seconds"]), room, 0.30)
    if f["rest_seconds"] == m.get("idle_recovery_rest_seconds"):
        near("idle recovery", val("idle_recovery_bytes_per_second"), room / d, 0.30)
# Every draw measures it: a draw that cannot is no draw for this test
# (test-qualify-virtual tells which in model time, where it is exact)
check(seen >= 2 and fit is not None, f"idle recovery measured after {seen} rest(s) (emulator idles {idles}); "
      f"skipped: {m.get('skipped')}")
# a rebuild of any kind (resilver, btrfs replace), in large ordered writes
check("a rebuild writing" in m.get("meaning", ""), "the meaning for a pool is said: " + m.get("meaning", "-"))
with open(sys.argv[4], "a") as f:
    f.write(" ".join(f"{k.replace(' ', '_')}={v:+.4f}" for k, v in errs.items()) + "\n")
sys.exit(bad)
PY
	check "the SVG carries the disk model" grep -q '>disk model<' "$T/$tag.svg"
	check "the text report says how to seed smrd" grep -q "^smrd's stall forecast can start from it: disk\..*\.media-cache = " "$T/$tag.out"
	emu_cleanup
	say "  draw took $((SECONDS - t0)) s"
done
python3 - "$T/errors" <<'PY'
import sys
rows = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1]) if l.strip()]
for k in ["media_cache", "sustained_rate", "rewrite_time", "idle_curve,_points", "idle_curve,_fit", "idle_recovery"]:
    v = sorted(abs(float(r[k])) for r in rows if k in r)
    if v:
        print(f"  {k}: {len(v)} draw(s), error median {v[len(v) // 2] * 100:.1f}%, worst {v[-1] * 100:.1f}%")
PY

step "no media cache for the look-alikes (all three at once)"
t0=$SECONDS
emu_up C cmr cmr --seed 61 >/dev/null || exit 1
emu_up S fast ssd --ssd-us 40 >/dev/null || exit 1
emu_up L slc slc-ssd --seed 62 --slc-mib 48 --slc-mibs 200 --slow-mibs 8 >/dev/null || exit 1
pids=()
for d in "$C" "$S" "$L"; do
	N=${d#/dev/}
	emu_bg timeout -k 5 120 "${Q[@]}" "$N" --destructive --yes-destroy "$N" --time-limit 20 --hold 4 --seq-seconds 2 \
		--recovery-rest 8 --rest 0 --read-seconds 1 --write-budget 256M --report "$T/$N" >"$T/$N.out" 2>&1
	pids+=("${EMU_BG[-1]}")
done
for k in 0 1 2; do
	wait "${pids[$k]}" || fail "qualify of look-alike $k exited $?"
done
say "  the look-alikes took $((SECONDS - t0)) s"
for d in "$C" "$S" "$L"; do
	N=${d#/dev/}
	say "  $N: $(sed -n 's/^verdict: //p' "$T/$N.out")"
	check "$N: no media_cache_bytes, no model figures" python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["disk_model"]
sys.exit(any(k in m for k in ["media_cache_bytes", "slow_write_bytes_per_second", "rewrite_seconds", "idle_recovery_bytes_per_second"]))' "$T/$N.json"
done
emu_cleanup
finish
