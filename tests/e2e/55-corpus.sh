#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The behaviour corpus, scaled for the suite: one disk of every published
# shape (tests/emu/README.md), parameters drawn at random within published
# ranges (queue depth 1/4/16, block size 4k/16k/64k, cache, band, stall,
# stalled share...), the seed printed for a replay. For each: a daemon that
# watches from before the writes and one started in the slow phase, and
# `smrctl qualify --destructive` on a fresh twin. tests/emu/corpus.py
# says what must hold and prints the confusion matrix; bench/corpus runs
# more rounds at a longer scale.
# The gate runs a lite set at a fixed seed: the shapes whose truth lies in
# the kernel's path (ext4 and the page cache, FLUSH, DISCARD, a capped
# virtual disk) and serial; every shape's storm delay is judged in model
# time by tests/unit/test-virtual.c. SMRD_SOAK=1: every shape, a fresh seed.
#   CORPUS_SEED=N      replay a run
#   CORPUS_SHAPES=a,b  only these shapes
#   CORPUS_SCALE=bench longer phases (bench/corpus)
#   CORPUS_KEEP=DIR    keep the cases, fio logs, events and reports there
. "$(dirname "$0")/lib.sh"
use_emu
need fio

CORPUS=$SRCDIR/tests/emu/corpus.py
if [ "${SMRD_SOAK:-0}" = 1 ]; then
	SEED=${CORPUS_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
else
	# the first of the checked-in seeds (none is a failure, never a guess)
	SEED=${CORPUS_SEED:-$(sed -n 's/^\([0-9][0-9]*\).*/\1/p' "$SRCDIR/tests/seeds/corpus.txt" 2>/dev/null | head -1)}
	[ -n "$SEED" ] || { fail "no seed in tests/seeds/corpus.txt"; finish; }
	CORPUS_SHAPES=${CORPUS_SHAPES:-serial,fs,cmr-flush,ssd-trim,vdisk}
	export CORPUS_LATE_WINDOW=${CORPUS_LATE_WINDOW:-30}
fi
step "drawing the corpus (seed $SEED)"
python3 "$CORPUS" draw --seed "$SEED" --scale "${CORPUS_SCALE:-suite}" --rounds "${CORPUS_ROUNDS:-1}" \
	${CORPUS_SHAPES:+--shapes "$CORPUS_SHAPES"} >"$T/cases.json" || { fail "drawing the corpus"; finish; }
say "  replay with CORPUS_SEED=$SEED"
mapfile -t CASES < <(python3 -c '
import json, shlex, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    print(c["name"], c["model"], shlex.join(c["emu"]))' "$T/cases.json")

step "${#CASES[@]} cases, two emulated disks each (one watched, one qualified)"
echo '{' >"$T/devs.json"
first=1
for line in "${CASES[@]}"; do
	read -r name model args <<<"$line"
	eval "set -- $args"
	say "  $name: $model $*"
	emu_up DD "$name-d" "$model" "$@" >/dev/null || { fail "bringing up $name"; finish; }
	emu_up DQ "$name-q" "$model" "$@" >/dev/null || { fail "bringing up $name's twin"; finish; }
	[ $first = 1 ] || echo ',' >>"$T/devs.json"
	first=0
	printf '"%s": {"daemon": "%s", "qualify": "%s", "daemon_log": "%s", "qualify_log": "%s"}\n' "$name" "$DD" "$DQ" \
		"$EMU_WORK/emu-$name-d/emu.log" "$EMU_WORK/emu-$name-q/emu.log" >>"$T/devs.json"
	WATCHED+=("${DD#/dev/}")
done
echo '}' >>"$T/devs.json"

INCLUDE="^($(IFS='|'; echo "${WATCHED[*]}"))\$"
start_smrd --interval 1 --include "$INCLUDE" --exclude '^$'
say "  smrd watches $INCLUDE with the $(ctl --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace_backend"])') tracer"

step "the workloads, a second smrd in their slow phases, then qualify on the twins"
mkdir -p "$T/corpus"
SOCK=$SOCK SMRD=$SMRD SMRCTL=$SMRCTL timeout -k 10 "$([ "${CORPUS_SCALE:-suite}" = bench ] && echo 1200 || echo 330)" python3 "$CORPUS" run "$T/cases.json" "$T/devs.json" "$T/corpus" \
	>"$T/run.log" 2>&1 || { fail "the corpus run (exit $?)"; sed 's/^/  /' "$T/run.log" | tail -20; }
check "the late smrd exited cleanly" python3 -c "import json,sys; sys.exit(json.load(open('$T/corpus/run.json'))['late_rc'] != 0)"
stop_smrd

step "judging"
python3 "$CORPUS" judge "$T/cases.json" "$T/corpus" | sed 's/^/  /; s/^  \(ok\|FAIL\): /\1: /' | tee "$T/judge.out"
check_by test "${PIPESTATUS[0]}" -eq 0
if [ -n "${CORPUS_KEEP:-}" ]; then
	mkdir -p "$CORPUS_KEEP/emu" && cp -a "$T/cases.json" "$T/devs.json" "$T/corpus" "$T/smrd.log" "$CORPUS_KEEP/" &&
		for d in "$EMU_WORK"/emu-*; do cp "$d/emu.log" "$CORPUS_KEEP/emu/${d##*/}.log"; done &&
		say "  kept in $CORPUS_KEEP"
fi
finish
