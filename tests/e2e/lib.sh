# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the end-to-end scripts: a private temp dir, the daemon
# started and stopped by PID (never by name), loop devices we attached and
# detach, and checks that print what they measured.
#
# Every wait has a deadline. A wait that expires says what it was waiting
# for and shows the tail of that process's log, kills what the test started
# and counts as a failure; the whole script also has a deadline of its own
# (TEST_DEADLINE, under meson's timeout), so that even a wait nobody
# foresaw ends in a diagnosis and a clean teardown, not in meson's kill.
set -u
: "${SMRD:?run through meson test}" "${SMRCTL:?}" "${SRCDIR:?}"

T=$(mktemp -d /tmp/smrd-e2e.XXXXXX)
SMRD_PID=""
OUR_LOOPS=()
FAILS=0
DOING="setting up"
# SMRD_TEST_DEADLINE overrides meson's figure for a longer replay (several
# draws: FORECAST_DRAWS=3 SMRD_TEST_DEADLINE=900 meson test -t 0 ...)
TEST_DEADLINE=${SMRD_TEST_DEADLINE:-${TEST_DEADLINE:-280}}
# tier_full: `tests/run --full` (SMRD_TIER=full) or the soak, where a script
# may run the longer variant of what the gate runs in short.
tier_full() { [ "${SMRD_TIER:-gate}" = full ] || [ "${SMRD_SOAK:-0}" = 1 ]; }
# The soak runs full-scale variants under meson's --timeout-multiplier 3.
[ "${SMRD_SOAK:-}" = 1 ] && [ -z "${SMRD_TEST_DEADLINE:-}" ] && TEST_DEADLINE=$((TEST_DEADLINE * 3))
CLEANUP_HOOKS=()

# A sanitizer's report fails the test whatever its checks said, from any
# process it started (smrd, smrctl, smr-emu...): at cleanup every file
# under $T and every log named with sanitizer_log is searched for one.
# ASan, LeakSanitizer and UBSan write theirs to files in $T/sanitizer
# wherever the process's stderr went (log_path; world-writable for processes
# run as another user). The sanitized build is clang's: gcc's libubsan
# ignores log_path, so a report from a process whose stderr was dropped
# would be lost (tests/tools/harness-test.sh shows it is not).
SANITIZER_LOGS=()
SANITIZER_FAILED=""
if [ "${SMRD_SANITIZED:-0}" = 1 ]; then
	mkdir -m 1777 "$T/sanitizer"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$T/sanitizer/asan"
	export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$T/sanitizer/ubsan"
fi
# sanitizer_log FILE...: a log outside $T that cleanup searches too.
sanitizer_log() { SANITIZER_LOGS+=("$@"); }
# sanitizer_skip DIR...: a tree under $T that is no process's output (a
# copy of the sources, which quote the reports' headers in their tests).
SANITIZER_SKIP=()
sanitizer_skip() { SANITIZER_SKIP+=("$@"); }
# The reports' own headers, written so that this file does not match them:
# "==PID==ERROR: AddressSanitizer: ...", LeakSanitizer's likewise, their
# SUMMARY lines, and UBSan's "file.c:LINE:COL: runtime error: ...".
SANITIZER_RE='==[0-9]+==ERROR: |SUMMARY: [A-Za-z]+Sanitizer|[0-9>]: runtime error: |[A-Za-z]+Sanitizer:DEADLYSIGNAL'

# settle_jobs: background jobs that cleanup's hooks signalled get up to 5 s
# in all to exit, so that a leak report written at exit is there to read.
settle_jobs() {
	local end=$(( $(now_ms) + 5000 )) p
	for p in $(jobs -p); do
		while kill -0 "$p" 2>/dev/null && [ "$(now_ms)" -lt "$end" ]; do sleep 0.05; done
	done
}

# sanitizer_check: shows the first lines of every sanitizer report in a
# file under $T (mounts below it are not entered; a NUL byte in a log does
# not hide it) or in a sanitizer_log; false if there is one.
sanitizer_check() {
	local f n reports=0 prune=() d
	# a pruned tree, or a source file, quotes reports rather than holding one
	for d in "${SANITIZER_SKIP[@]+"${SANITIZER_SKIP[@]}"}"; do prune+=(-path "$d" -prune -o); done
	while IFS= read -r -d '' f; do
		n=$(grep -a -n -m1 -E "$SANITIZER_RE" "$f" | cut -d: -f1)
		say "FAIL: a sanitizer report in $f:"
		sed -n "${n:-1},$(( ${n:-1} + 14 ))p" "$f" | sed 's/^/    | /'
		reports=$((reports + 1))
	done < <({ find "$T" -xdev "${prune[@]}" -type f -size -64M ! -name '*.sh' ! -name '*.[ch]' ! -name '*.py' \
			-print0 2>/dev/null
		[ ${#SANITIZER_LOGS[@]} -gt 0 ] && printf '%s\0' "${SANITIZER_LOGS[@]}"; } |
		LC_ALL=C xargs -0 -r grep -a -l -Z -E "$SANITIZER_RE" -- 2>/dev/null)
	[ "$reports" -eq 0 ]
}

# at_exit CMD: runs CMD (a string, evaluated) first during cleanup, newest first.
at_exit() { CLEANUP_HOOKS=("$1" "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"); }

# A subshell forked with `&` runs the parent's traps until bash resets them:
# a signal in that moment (the watchdog killed as soon as it starts) would
# have it run cleanup, removing $T under the main shell's feet. Only the
# main shell runs cleanup and the traps.
main_shell() { [ "$BASHPID" = "$$" ]; }

cleanup() {
	main_shell || return 0
	local h
	[ -n "${WATCHDOG_PID:-}" ] && kill "$WATCHDOG_PID" 2>/dev/null
	for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h"; done
	CLEANUP_HOOKS=()
	[ -n "$SMRD_PID" ] && stop_pid "$SMRD_PID" 10 "smrd to exit during cleanup" "$T/smrd.log" >/dev/null
	SMRD_PID=""
	declare -F emu_cleanup >/dev/null && emu_cleanup
	# attach_loop may run in a $(...) subshell: its list is a file, not a variable
	[ -f "$T/our-loops" ] && while read -r l; do losetup -d "$l" 2>/dev/null; done <"$T/our-loops"
	for l in "${OUR_LOOPS[@]+"${OUR_LOOPS[@]}"}"; do losetup -d "$l" 2>/dev/null; done
	settle_jobs
	sanitizer_check || SANITIZER_FAILED=1
	# SMRD_TEST_KEEP=DIR: the logs, fio's and the emulators' too, for a look afterwards
	[ -n "${SMRD_TEST_KEEP:-}" ] && mkdir -p "$SMRD_TEST_KEEP" && cp -a "$T/." "$SMRD_TEST_KEEP/" 2>/dev/null
	rm -rf "$T"
	if [ -n "$SANITIZER_FAILED" ]; then
		say "FAIL: a sanitizer reported an error (above): the test fails"
		exit 1
	fi
}
trap cleanup EXIT
# meson's own timeout sends SIGTERM: tear down all the same.
trap 'main_shell || exit 1; say "FAIL: terminated while: $DOING"; exit 1' TERM INT

say() { printf '%s\n' "$*"; }
# Every check counts (CHECKS): a script that made none proves nothing and
# fails at finish, whatever made its checks vanish (a regeneration mode, a
# loop over an empty list, an early branch).
CHECKS=0
fail() { say "FAIL: $*"; FAILS=$((FAILS + 1)); CHECKS=$((CHECKS + 1)); }
ok() { say "ok: $*"; CHECKS=$((CHECKS + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
# check_by CMD...: a judge that prints its own verdicts (a python script that
# checks many things) is one check: a failure if it exits non-zero.
check_by() { "$@"; local rc=$?; CHECKS=$((CHECKS + 1)); [ "$rc" -eq 0 ] || FAILS=$((FAILS + 1)); return 0; }
finish() {
	if [ "$FAILS" -eq 0 ] && [ "$CHECKS" -gt 0 ]; then say "all $CHECKS checks passed"; exit 0; fi
	[ "$CHECKS" -eq 0 ] && say "FAIL: the script made no check: it proves nothing"
	say "$FAILS of $CHECKS check(s) failed"
	exit 1
}
# skip FEATURE WHY: exit 77 (meson's skip), naming the feature; tests/run
# accepts it only when SMRD_TESTS_ALLOW_MISSING names that feature. Call
# unavailable, which also refuses to skip after a failure.
skip() { say "SKIPPED [$1]: $2"; exit 77; }
# step TEXT: says what the script does next (and when: seconds since the
# start); deadline reports name it.
TEST_START_MS=$(date +%s%3N)
step() { DOING=$*; say "--- $* (+$((($(date +%s%3N) - TEST_START_MS) / 1000)) s)"; }

# seeded_bytes SEED COUNT: COUNT bytes that look random and are the same
# for the same SEED on every run (AES-128-CTR of zeros under a key made
# of SEED): a test's garbage input replays, and a judged count cannot
# depend on which bytes /dev/urandom gave.
seeded_bytes() {
	head -c "$2" /dev/zero | openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$1")" -iv 0 2>/dev/null
}

# now_ms: monotonic-enough wall clock in milliseconds, for measured delays.
now_ms() { date +%s%3N; }
ms_of() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }'; }

# show_tail LOG: the last lines of a log, so a failure explains itself.
show_tail() {
	[ -n "${1:-}" ] && [ -s "$1" ] || return 0
	say "    last lines of $1:"
	tail -n "${2:-20}" "$1" | sed 's/^/    | /'
}

# expired WHAT SECS [LOG]: one deadline that passed, reported as a failure.
expired() { fail "deadline: waited ${2} s for $1"; show_tail "${3:-}"; }

# kill_tree PID SIGNAL: the process and everything it started.
kill_tree() {
	local c
	for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c" "$2"; done
	kill -"$2" "$1" 2>/dev/null
}

# gone_within PID SECS: true once PID has exited (polling, never blocking).
gone_within() {
	local end=$(( $(now_ms) + $(ms_of "$2") ))
	while kill -0 "$1" 2>/dev/null; do
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# wait_pid PID SECS WHAT [LOG]: PID's exit code. Past the deadline: reported,
# PID and its children get SIGTERM, then SIGKILL, and it returns 124. A
# process stuck in uninterruptible I/O is reported and left, never waited on.
wait_pid() {
	local pid=$1 secs=$2 what=$3 log=${4:-}
	if gone_within "$pid" "$secs"; then
		wait "$pid" 2>/dev/null
		return
	fi
	expired "$what" "$secs" "$log"
	kill_tree "$pid" TERM
	gone_within "$pid" 2 || kill_tree "$pid" KILL
	if gone_within "$pid" 5; then
		wait "$pid" 2>/dev/null
	else
		say "    pid $pid survives SIGKILL (uninterruptible I/O?): left behind"
	fi
	return 124
}

# stop_pid PID SECS WHAT [LOG]: SIGTERM, then wait_pid.
stop_pid() { kill -TERM "$1" 2>/dev/null; wait_pid "$@"; }

# within SECS WHAT LOG CMD...: runs CMD (a program or a shell function, in a
# subshell) and waits for it with a deadline; returns its exit code.
within() {
	local secs=$1 what=$2 log=$3
	shift 3
	"$@" &
	wait_pid $! "$secs" "$what" "$log"
}

# wait_until SECS WHAT CMD...: polls CMD until it succeeds; past the deadline
# reports (with the tail of $WAIT_LOG if set) and returns 1.
wait_until() {
	local secs=$1 what=$2
	shift 2
	local end=$(( $(now_ms) + $(ms_of "$secs") ))
	until "$@" >/dev/null 2>&1; do
		if [ "$(now_ms)" -ge "$end" ]; then
			expired "$what" "$secs" "${WAIT_LOG:-}"
			return 1
		fi
		sleep 0.05
	done
}

# The script's own deadline. SIGUSR1 interrupts a `wait` at once and
# anything else as soon as it returns (foreground commands have their own).
on_deadline() {
	main_shell || exit 1
	fail "the test reached its own deadline of ${TEST_DEADLINE} s while: $DOING"
	show_tail "$T/smrd.log"
	exit 1
}
trap on_deadline USR1
# abort_main fail WHY | abort_main unavailable FEATURE WHY: from a subshell
# (attach_loop or unavailable in a $(...)), ends the script as if the main
# shell had said it: the subshell's own exit would only end the subshell.
abort_main() {
	printf '%s\0' "$@" >"$T/.abort"
	kill -USR2 $$
	exit 1
}
on_abort() {
	main_shell || exit 1
	local a=()
	[ -f "$T/.abort" ] && mapfile -d '' -t a <"$T/.abort"
	case "${a[0]:-}" in
	unavailable) unavailable "${a[1]}" "${a[2]}" ;;
	*) fail "${a[1]:-a subshell could not go on}"; finish ;;
	esac
}
trap on_abort USR2
( trap 'kill "$S" 2>/dev/null; exit 0' TERM; sleep "$TEST_DEADLINE" & S=$!; wait "$S" && kill -USR1 $$ ) \
	</dev/null >/dev/null 2>&1 &
WATCHDOG_PID=$!

# need CMD: the command exists, or the test fails naming what installs it
# (tests install nothing themselves: scripts/install-deps.sh --tests does,
# before the run).
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	fail "$1 is missing: scripts/install-deps.sh --tests installs what the tests need"
	finish
}

# tracefs_up: bpftrace finds tracepoints through tracefs, which this
# machine does not mount by default; mounted here (and unmounted at exit)
# when it is not.
tracefs_up() {
	[ -d /sys/kernel/tracing/events ] && return 0
	mount -t tracefs tracefs /sys/kernel/tracing || { say "FAIL: cannot mount tracefs for bpftrace"; return 1; }
	at_exit 'umount /sys/kernel/tracing 2>/dev/null'
}

# unavailable FEATURE WHY: this machine lacks what the test needs. That is a
# failure, unless the user named the feature in SMRD_TESTS_ALLOW_MISSING
# (README: machines without FUSE, BPF or loop devices), then a skip.
# A script that failed a check before it found the feature missing fails:
# the skip would hide what it had already found.
unavailable() {
	main_shell || abort_main unavailable "$1" "$2"
	if [ "$FAILS" -gt 0 ]; then
		say "FAIL: $2; and $FAILS check(s) had already failed: not a skip"
		finish
	fi
	case ",${SMRD_TESTS_ALLOW_MISSING:-}," in
	*",$1,"*) skip "$1" "$2 (allowed by SMRD_TESTS_ALLOW_MISSING)" ;;
	esac
	say "FAIL: $2; on a machine that truly lacks $1, run with SMRD_TESTS_ALLOW_MISSING=$1 (see README)"
	exit 1
}

# use_emu: the emulated-disk helpers (tests/emu/emu.sh), after checking that
# this machine can run them.
use_emu() {
	need fio
	need fusermount3
	[ -c /dev/fuse ] || unavailable fuse "no /dev/fuse: emulated disks need FUSE"
	losetup -f >/dev/null 2>&1 || unavailable loop "no free loop device: emulated disks are loop devices"
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
	# fio ends at --runtime; the last I/Os may wait behind band rewrites.
	# Every fio here reads the kernel's clock (--clocksource=clock_gettime):
	# with its default, the TSC, a corpus run had every job started before
	# one moment end there at once, 30 s early, with runtimes of 8.8e9 s.
	local rt secs
	rt=$(printf '%s\n' "$@" | sed -n 's/^--runtime=//p' | tail -1)
	secs=$(( ${rt:-60} + 60 ))
	timeout -k 10 "$secs" fio --clocksource=clock_gettime --name="$name" --filename="$dev" --direct=1 --ioengine=libaio --time_based \
		--write_lat_log="$T/$name" --log_avg_msec=0 --output-format=json --output="$T/$name.json" "$@" \
		>"$T/$name.out" 2>&1
	local rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		expired "fio $name to finish its ${rt:-?} s run" "$secs" "$T/$name.out"
		return 1
	fi
	[ "$rc" -eq 0 ] || { say "FAIL: fio $name exited $rc:"; cat "$T/$name.out"; return 1; }
	after=$(emu_diskstats "$dev")
	echo "$before $after" | awk '{ for (i = 1; i <= 6; i++) printf "%d ", $(i + 6) - $i; print "" }' >"$T/$name.ds"
}

# wait_bg SECS WHAT: waits for every emu_bg job, all within one deadline;
# a job that fails or is late is a failure.
wait_bg() {
	local end=$(( $(now_ms) + $(ms_of "$1") )) p left
	for p in "${EMU_BG[@]+"${EMU_BG[@]}"}"; do
		left=$(( (end - $(now_ms)) / 1000 ))
		[ "$left" -lt 1 ] && left=1
		wait_pid "$p" "$left" "$2" || fail "$2: job $p failed"
	done
	EMU_BG=()
}

# mem_bound KIB: a memory bound in KiB. It holds the plain build to it; under
# sanitizers (shadow memory, redzones, a quarantine of freed blocks) RSS
# says little about smrd, so there it is only a sanity bound, 8x larger.
mem_bound() { echo $(( $1 * (${SMRD_SANITIZED:-0} == 1 ? 8 : 1) )); }

# private_journal: a systemd-journald of this test's own, with smrd's
# catalog, so that what smrd sends to the journal can be read back without
# touching the host's. The script must run in a mount namespace of its own,
# re-executed before it sources lib.sh:
#   [ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
private_journal() {
	[ -n "${SMRD_TEST_NS:-}" ] || { fail "private_journal needs a private mount namespace"; finish; }
	need journalctl
	[ -x /lib/systemd/systemd-journald ] || { fail "no /lib/systemd/systemd-journald"; finish; }
	mkdir -p /run/systemd /run/log /var/lib/systemd/catalog "$T/catalog"
	mount -t tmpfs tmpfs /run/systemd && mount -t tmpfs tmpfs /run/log || { fail "private /run mounts"; finish; }
	mkdir -p /run/systemd/journal
	cp "$SRCDIR/contrib/systemd/smrd.catalog" "$T/catalog/"
	mount --bind "$T/catalog" /usr/lib/systemd/catalog && mount -t tmpfs tmpfs /var/lib/systemd/catalog ||
		{ fail "private catalog mounts"; finish; }
	journalctl --update-catalog || fail "journalctl --update-catalog"
	/lib/systemd/systemd-journald >"$T/journald.log" 2>&1 &
	JOURNALD_PID=$!
	at_exit 'stop_pid "$JOURNALD_PID" 10 "the private journald to exit" "$T/journald.log"'
	WAIT_LOG=$T/journald.log wait_until 10 "the private journald to listen" test -S /run/systemd/journal/socket
	check "a private journald is listening" [ -S /run/systemd/journal/socket ]
}

# journal_check [EVENTS_JSON]: every smrd entry in the private journal has
# the MESSAGE_ID and priority docs/detection.md gives its kind (which
# test-events ties to core/detect/events.c and the catalog), and every kind in
# EVENTS_JSON (smrctl --json events) reached the journal.
journal_check() {
	journalctl -o json --no-pager >"$T/journal.json" 2>"$T/jc.err" || fail "journalctl: $(head -c 300 "$T/jc.err")"
	python3 "$SRCDIR/tests/e2e/journal_check.py" "$T/journal.json" "$SRCDIR/docs/detection.md" "$@" ||
		FAILS=$((FAILS + 1))
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
	smrd_ready() {
		PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/smrd.log" | head -1)
		[ -n "$PORT" ] && [ -S "$SOCK" ] && return 0
		kill -0 "$SMRD_PID" 2>/dev/null || return 2
		return 1
	}
	local end=$(( $(now_ms) + 20000 )) r
	while :; do
		smrd_ready && return 0
		r=$?
		[ "$r" -eq 2 ] && { say "FAIL: smrd exited during start-up:"; cat "$T/smrd.log"; exit 1; }
		[ "$(now_ms)" -ge "$end" ] && { expired "smrd to listen on its socket and port" 20 "$T/smrd.log"; exit 1; }
		sleep 0.05
	done
}

# stop_smrd: SIGTERM, and the exit code must be 0 (sanitizers report leaks through it).
stop_smrd() {
	local rc=0
	stop_pid "$SMRD_PID" 20 "smrd to exit after SIGTERM" "$T/smrd.log" || rc=$?
	SMRD_PID=""
	if [ "$rc" -ne 0 ]; then fail "smrd exited with $rc"; tail -40 "$T/smrd.log"; else ok "smrd exited cleanly"; fi
}

alive() { kill -0 "$SMRD_PID" 2>/dev/null; }
scrape() { curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics"; }
ctl() { timeout -k 2 60 "$SMRCTL" --socket "$SOCK" "$@"; }

# attach_loop IMAGE [LOSETUP-ARGS...]: prints the loop device. Called in a
# $(...) subshell, its failure still ends the script (USR2 to the main shell).
attach_loop() {
	local img=$1; shift
	local l
	losetup -f >/dev/null 2>&1 || unavailable loop "no free loop device"
	l=$(losetup -f --show "$@" "$img" 2>"$T/losetup.err") || {
		main_shell || abort_main fail "losetup $* $img: $(head -c 300 "$T/losetup.err")"
		fail "losetup $* $img: $(head -c 300 "$T/losetup.err")"
		finish
	}
	OUR_LOOPS+=("$l")
	echo "$l" >>"$T/our-loops"
	echo "$l"
}

detach_loop() {
	losetup -d "$1"
	[ -f "$T/our-loops" ] && sed -i "\|^$1\$|d" "$T/our-loops"
	local keep=()
	for l in "${OUR_LOOPS[@]+"${OUR_LOOPS[@]}"}"; do [ "$l" != "$1" ] && keep+=("$l"); done
	OUR_LOOPS=("${keep[@]+"${keep[@]}"}")
}

# mkfs_raid1 NAME MIB [MOUNT]: a btrfs raid1 on two loop devices (files of
# RAID1_SIZE, 512M unless set, in /dev/shm, the caller's private one),
# mounted on MOUNT ($T/NAME), holding MIB MiB of seeded bytes: in
# MOUNT/data, or in files of RAID1_FILE_KIB each under MOUNT/files (small
# extents, which btrfs moves in writes of their size)
mkfs_raid1() {
	local name=$1 mib=$2 m=${3:-$T/$1} a b
	truncate -s "${RAID1_SIZE:-512M}" "/dev/shm/$name-a.img" "/dev/shm/$name-b.img"
	a=$(attach_loop "/dev/shm/$name-a.img") b=$(attach_loop "/dev/shm/$name-b.img")
	mkfs.btrfs -q -f -d raid1 -m raid1 "$a" "$b" >"$T/mkfs.out" 2>&1 || { fail "mkfs.btrfs: $(cat "$T/mkfs.out")"; finish; }
	mkdir -p "$m"
	mount "$a" "$m" || { fail "mount"; finish; }
	at_exit "umount '$m' 2>/dev/null"
	if [ -n "${RAID1_FILE_KIB:-}" ]; then
		python3 "$SRCDIR/tests/e2e/fill-files.py" "$m/files" "$mib" "$RAID1_FILE_KIB" 81 && sync ||
			{ fail "filling it"; finish; }
	else
		seeded_bytes 81 $((mib << 20)) >"$m/data" && sync || { fail "filling it"; finish; }
	fi
}

# udev_link UDEVROOT /dev/LINK KERNELNAME: the link in udev's index as
# systemd-udevd keeps it (links/, the path under /dev with '/' as \x2f, an
# entry named by device id, a "PRIORITY:DEVNODE" symlink), which smrd reads
# instead of its own /dev (daemon/rebuild/devmap.h)
udev_link() {
	local dir="$1/links/$(printf '%s' "${2#/dev/}" | sed 's|/|\\x2f|g')"
	mkdir -p "$dir" && ln -sfn "0:/dev/$3" "$dir/b$(cat "/sys/class/block/$3/dev")"
}
