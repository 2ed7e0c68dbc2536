#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs one libFuzzer harness on a scratch corpus grown from the seeds (the
# repository's seeds are never written): a crash, a leak, a broken
# invariant, an input slower than 5 s or a parser that takes 512 MB fails
# the test and leaves the input that did it in FUZZ_ARTIFACTS (default a
# temporary directory, printed).
# In the gate: FUZZ_RUNS inputs at libFuzzer seed 1, the same inputs on
# every machine whatever its load. With SMRD_SOAK=1 (or no FUZZ_RUNS):
# FUZZ_SECONDS at a fresh seed, printed; FUZZ_SEED=N replays one.
#   run-one.sh HARNESS SEED-DIR
set -u
exe=$1 seeds=$2 secs=${FUZZ_SECONDS:-6} runs=${FUZZ_RUNS:-}
[ "${SMRD_SOAK:-}" = 1 ] && runs=""
if [ -n "${FUZZ_SEED:-}" ]; then
	seed=$FUZZ_SEED
elif [ "${SMRD_SOAK:-}" = 1 ]; then
	seed=$(( (RANDOM << 15 | RANDOM) + 1 ))	# 0 would ask libFuzzer for a random one, unprinted
else
	seed=1
fi
if [ -n "$runs" ]; then
	# a bound on the inputs, not on time; the deadline only ends a hang
	bound=(-runs="$runs") limit=300 what="$runs inputs"
else
	bound=(-max_total_time="$secs") limit=$((secs + 60)) what="${secs} s"
fi
echo "fuzz seed $seed, $what; replay: FUZZ_SEED=$seed FUZZ_RUNS=$runs FUZZ_SECONDS=$secs $(readlink -f "$0") $(readlink -f "$exe") $(readlink -f "$seeds")"
work=$(mktemp -d /tmp/smrd-fuzz.XXXXXX)
art=${FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$work/corpus" "$art"
trap 'rm -rf "$work/corpus"; rmdir "$art" 2>/dev/null; rmdir "$work" 2>/dev/null' EXIT
# ASan's quarantine (256 MB by default) would count against the RSS limit
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16:malloc_context_size=10 \
	timeout -k 10 "$limit" "$exe" -seed="$seed" "${bound[@]}" -rss_limit_mb=512 -timeout=5 -max_len=65536 \
	-artifact_prefix="$art/" -print_final_stats=1 "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|cov:' "$work/log" | tail -3
if [ "$rc" -ne 0 ]; then
	tail -40 "$work/log"
	echo "FAIL: $(basename "$exe") exited $rc at seed $seed; the input is in $art:"
	ls -l "$art"
	trap - EXIT
	exit 1
fi
echo "ok: $(basename "$exe"): $(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log") inputs ($what), corpus $(ls "$work/corpus" | wc -l) files"
