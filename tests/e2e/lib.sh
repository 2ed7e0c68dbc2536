# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the end-to-end scripts: a private temp dir, the daemon
# started and stopped by PID (never by name), loop devices we attached and
# detach, and checks that print what they measured.
set -u
: "${SMRD:?run through meson test}" "${SMRCTL:?}" "${SRCDIR:?}"

T=$(mktemp -d /tmp/smrd-e2e.XXXXXX)
SMRD_PID=""
OUR_LOOPS=()
FAILS=0

cleanup() {
	[ -n "$SMRD_PID" ] && kill "$SMRD_PID" 2>/dev/null && wait "$SMRD_PID" 2>/dev/null
	declare -F emu_cleanup >/dev/null && emu_cleanup
	# attach_loop may run in a $(...) subshell: its list is a file, not a variable
	[ -f "$T/our-loops" ] && while read -r l; do losetup -d "$l" 2>/dev/null; done <"$T/our-loops"
	for l in "${OUR_LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

say() { printf '%s\n' "$*"; }
fail() { say "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { say "ok: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
finish() { [ "$FAILS" -eq 0 ] && { say "all checks passed"; exit 0; }; say "$FAILS check(s) failed"; exit 1; }
skip() { say "SKIPPED: $*"; exit 77; }

# Makes sure a command exists, installing the project's dependencies if not.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	"$SRCDIR/scripts/install-deps.sh" >&2 || true
	command -v "$1" >/dev/null 2>&1 || { say "FAIL: $1 is missing and could not be installed"; exit 1; }
}

# use_emu: the emulated-disk helpers (tests/emu/emu.sh), after checking that
# this machine can run them.
use_emu() {
	need fio
	need fusermount3
	[ -c /dev/fuse ] || skip "no /dev/fuse: emulated disks need FUSE"
	: "${SMR_EMU:?run through meson test}"
	EMU_WORK=$T
	. "$SRCDIR/tests/emu/emu.sh"
}

# run_fio NAME DEV FIO-ARGS...: fio with a per-I/O latency log; leaves
# $T/NAME.json, $T/NAME_clat.1.log and $T/NAME.ds (the emu_diskstats delta
# over the run).
run_fio() {
	local name=$1 dev=$2
	shift 2
	local before after
	before=$(emu_diskstats "$dev")
	fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio --time_based \
		--write_lat_log="$T/$name" --log_avg_msec=0 --output-format=json --output="$T/$name.json" "$@" \
		>"$T/$name.out" 2>&1 || { say "FAIL: fio $name:"; cat "$T/$name.out"; return 1; }
	after=$(emu_diskstats "$dev")
	echo "$before $after" | awk '{ for (i = 1; i <= 6; i++) printf "%d ", $(i + 6) - $i; print "" }' >"$T/$name.ds"
}

metrics_py() { python3 "$SRCDIR/tests/e2e/metrics.py" "$@"; }

# start_smrd ARGS...: runs the daemon in the background, waits for its socket
# and HTTP port; sets SMRD_PID, PORT, SOCK.
start_smrd() {
	SOCK=$T/smrd.sock
	: >"$T/smrd.log"
	"$SMRD" --config /dev/null --listen 127.0.0.1:0 --socket "$SOCK" --state-dir "$T/state" "$@" \
		>>"$T/smrd.log" 2>&1 &
	SMRD_PID=$!
	for _ in $(seq 100); do
		PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/smrd.log" | head -1)
		[ -n "$PORT" ] && [ -S "$SOCK" ] && return 0
		kill -0 "$SMRD_PID" 2>/dev/null || break
		sleep 0.05
	done
	say "smrd did not start:"; cat "$T/smrd.log"; exit 1
}

# stop_smrd: SIGTERM, and the exit code must be 0 (sanitizers report leaks through it).
stop_smrd() {
	kill -TERM "$SMRD_PID"
	local rc=0
	wait "$SMRD_PID" || rc=$?
	SMRD_PID=""
	if [ "$rc" -ne 0 ]; then fail "smrd exited with $rc"; tail -40 "$T/smrd.log"; else ok "smrd exited cleanly"; fi
}

alive() { kill -0 "$SMRD_PID" 2>/dev/null; }
scrape() { curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics"; }
ctl() { "$SMRCTL" --socket "$SOCK" "$@"; }

# now_ms: monotonic-enough wall clock in milliseconds, for measured delays.
now_ms() { date +%s%3N; }

attach_loop() {
	local img=$1; shift
	local l
	l=$(losetup -f --show "$@" "$img") || { say "FAIL: losetup"; exit 1; }
	OUR_LOOPS+=("$l")
	echo "$l" >>"$T/our-loops"
	echo "$l"
}

detach_loop() {
	losetup -d "$1"
	[ -f "$T/our-loops" ] && sed -i "\|^$1\$|d" "$T/our-loops"
	local keep=()
	for l in "${OUR_LOOPS[@]}"; do [ "$l" != "$1" ] && keep+=("$l"); done
	OUR_LOOPS=("${keep[@]+"${keep[@]}"}")
}
