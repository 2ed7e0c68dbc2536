#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole story on a machine with no SMR disk: an emulated drive-managed
# SMR disk (tests/emu/smr-emu on a loop device), smrd watching it, a
# sustained 4 KiB random-write workload, and what smrd reports as the media
# cache fills and the disk falls off its cliff. Run as root from a build:
#
#   ./scripts/build.sh && contrib/demo/smr-demo.sh [SECONDS] [BUILD_DIR]
#
# The status page's address is printed as soon as smrd listens: open it
# then, to watch the cliff as it comes. DEMO_LISTEN=ADDR:PORT serves it
# beyond this host (default 127.0.0.1, a free port). Run from a terminal,
# the demo waits for Enter before it tears down, so that the page can be
# read at leisure.
#
# Everything it starts (smr-emu, loop device, smrd, fio) is torn down on exit.
set -u
RUNTIME=${1:-40}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${2:-$SRC/build}
SMRD=$BUILD/smrd SMRCTL=$BUILD/smrctl SMR_EMU=$BUILD/tests/smr-emu
for f in "$SMRD" "$SMRCTL" "$SMR_EMU"; do
	[ -x "$f" ] || { echo "missing $f: run ./scripts/build.sh first" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "run as root: loop devices and FUSE mounts need it" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: apt-get install fio" >&2; exit 1; }

EMU_WORK=$(mktemp -d /tmp/smr-demo.XXXXXX)
. "$SRC/tests/emu/emu.sh"
SMRD_PID=""
demo_cleanup() {
	[ -n "$SMRD_PID" ] && kill "$SMRD_PID" 2>/dev/null && wait "$SMRD_PID" 2>/dev/null
	emu_cleanup
	rm -rf "$EMU_WORK"
}
trap demo_cleanup EXIT
trap 'exit 130' INT TERM

echo "== 1. An emulated DM-SMR disk: 32 MiB media cache, 4 MiB bands cleaned at 10 MiB/s"
emu_up DEV demo dm-smr --seed 1 || exit 1
NAME=${DEV#/dev/}

echo "== 2. smrd watching only $NAME (1 s interval)"
SOCK=$EMU_WORK/smrd.sock
"$SMRD" --config /dev/null --interval 1 --include "^$NAME\$" --exclude "^$" --listen "${DEMO_LISTEN:-127.0.0.1:0}" \
	--socket "$SOCK" --state-dir "$EMU_WORK/state" >"$EMU_WORK/smrd.log" 2>&1 &
SMRD_PID=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$EMU_WORK/smrd.log" | head -1)
HOST=${DEMO_LISTEN:-}
HOST=${HOST%:*}
[ -n "$HOST" ] || HOST=127.0.0.1
echo "   the status page, live: http://$HOST:$PORT/ (open it now; the disk's own page: http://$HOST:$PORT/disk/$NAME)"
"$SMRCTL" --socket "$SOCK" show "$NAME"

echo
echo "== 3. ${RUNTIME} s of 4 KiB random writes at QD1 (fio), what smrd sees each second"
emu_bg fio --name=demo --filename="$DEV" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
	--iodepth=1 --time_based --runtime="$RUNTIME" --output="$EMU_WORK/fio.out"
FIO=${EMU_BG[-1]}
# One row a second on the clock (not a second after the last row: asking
# smrctl takes time, and the rows would drift behind fio), until fio is done.
# A row is labelled with the second it was taken in: on a machine too busy
# to ask every second, a second is missing rather than every later row late.
# writes/s and the average are the last second's diskstats; p99 is traced;
# a second with no completed write during a storm is what a storm is.
printf '%6s %5s %9s %13s %11s %6s %8s\n' second fio "writes/s" "avg latency" "p99 traced" storm "GC score"
t0=$(date +%s%N) behind=0
for ((s = 1; ; s = s + 1 > behind ? s + 1 : behind)); do
	left=$(( t0 + s * 1000000000 - $(date +%s%N) ))
	[ "$left" -gt 0 ] && sleep "$(printf '0.%09d' "$left")"
	state=running
	kill -0 "$FIO" 2>/dev/null || state=done
	"$SMRCTL" --socket "$SOCK" --json show "$NAME" | python3 -c '
import json, sys
r = json.load(sys.stdin)
lat = r.get("write_latency_seconds")
w = (r.get("latency_last_interval") or {}).get("write") or {}
p99 = w.get("p99")
ms = lambda v: "-" if v is None else "%.1f ms" % (v * 1000)
print("%6s %5s %9.0f %13s %11s %6s %8.2f" % (sys.argv[1], sys.argv[2], r.get("writes_per_second") or 0, ms(lat),
      ms(p99), "STORM" if r.get("storm") else "-", r.get("gc_score") or 0))' "$s" "$state"
	[ "$state" = done ] && break
	behind=$(( ($(date +%s%N) - t0) / 1000000000 + 1 ))
done
wait "${EMU_BG[@]}" 2>/dev/null
EMU_BG=()

# a storm ends after some seconds without a slow write: wait for its end
for _ in $(seq 20); do
	"$SMRCTL" --socket "$SOCK" --json show "$NAME" | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["storm"])' && break
	sleep 1
done

echo
echo "== 4. The storm as smrctl events tells it, and the verdict"
"$SMRCTL" --socket "$SOCK" events --device "$NAME"
echo
"$SMRCTL" --socket "$SOCK" show "$NAME" | sed -n '1,/^evidence/p'

echo
echo "== 5. What smrd exports for $NAME (http://127.0.0.1:$PORT/metrics; the status page is http://127.0.0.1:$PORT/)"
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E "^smrd_disk_(info|smr_confidence|gc_score|destage_storms_total|stall_events_total)\{.*\"$NAME\""
echo
echo "fio's own summary:"
grep -E "^\s+(write:|clat \(|lat \()" "$EMU_WORK/fio.out" | head -3
if [ -t 0 ]; then
	echo
	read -r -p "smrd is still serving http://$HOST:$PORT/ - press Enter to stop it and tear the demo down " _
fi
