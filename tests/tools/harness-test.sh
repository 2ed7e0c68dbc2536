#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test harness's own rules, each shown on a case built to break it:
# tests/tools/tally.py (what the runner counts) on synthetic meson logs,
# and tests/e2e/lib.sh on small scripts that source it. Each case would pass
# a run that it must fail if the rule were gone:
#   - a skip whose feature SMRD_TESTS_ALLOW_MISSING does not name, a skip
#     that names none, a misspelt feature, meson failing with no failed test
#   - a script that made no check; a check that cannot fail, as the old
#     GOLDEN_REGEN made every comparison (12-golden)
#   - a feature found missing after a failed check (the skip hid it)
#   - a loop attach failing inside $(...) (the script went on with a device
#     named "FAIL: losetup")
#   - a UBSan report from a secondary process whose stderr was dropped and
#     whose failure a check took for a refusal
set -u
: "${SRCDIR:?run through meson test}"
W=$(mktemp -d /tmp/smrd-harness.XXXXXX)
trap '[ -n "${HARNESS_KEEP:-}" ] || rm -rf "$W"' EXIT
FAILS=0 CHECKS=0
ok() { echo "ok: $*"; CHECKS=$((CHECKS + 1)); }
bad() { echo "FAIL: $*"; CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); }
expect() {	# expect WHAT WANT GOT
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}
TALLY=$SRCDIR/tests/tools/tally.py

# --- tally.py ------------------------------------------------------------
row() {	# row NAME RESULT STDOUT: one line of meson's JSON log
	python3 -c 'import json, sys; print(json.dumps({"name": "smrd:e2e / " + sys.argv[1], "result": sys.argv[2],
		"duration": 1.5, "stdout": sys.argv[3]}))' "$@"
}
tally() {	# tally RC ALLOW: the results of $W/log.json for the tests in $W/list
	SMRD_TESTS_ALLOW_MISSING=$2 python3 "$TALLY" results plain "$W/log.json" "$1" "$W/list"
}
result_of() { awk -F'\t' -v n="$1" '$2 == n { print $3 }'; }
printf 'smrd:e2e / a.sh\nsmrd:e2e / b.sh\nsmrd:e2e / c.sh\n' >"$W/list"
{ row a.sh OK 'all checks passed'; row b.sh SKIP $'--- x\nSKIPPED [fuse]: no /dev/fuse (allowed)'
  row c.sh SKIP 'SKIPPED: something'; } >"$W/log.json"
expect "a skip whose feature is allowed counts as a skip" SKIP "$(tally 0 fuse,loop | result_of b.sh)"
expect "a skip whose feature is not allowed fails" SKIP-NOT-ALLOWED "$(tally 0 loop,bpf | result_of b.sh)"
expect "a skip without SMRD_TESTS_ALLOW_MISSING fails" SKIP-NOT-ALLOWED "$(tally 0 '' | result_of b.sh)"
expect "a skip that names no feature fails, whatever is allowed" SKIP-UNNAMED "$(tally 0 fuse,loop,bpf,rootdisk,root | result_of c.sh)"
{ row a.sh OK ''; row b.sh OK ''; } >"$W/log.json"
expect "a test missing from the log is a failure" 1 "$(tally 0 '' | grep -c 'partial test log (1 of 3 tests missing: c.sh')"
{ row a.sh OK ''; row b.sh OK ''; row c.sh OK ''; } >"$W/log.json"
expect "meson exiting 1 with every test passed is a failure" 1 "$(tally 1 '' | grep -c 'exited 1 with no failed test')"
expect "a full, passing log is three passes" "OK OK OK" "$(tally 0 '' | cut -f3 | tr '\n' ' ' | sed 's/ $//')"
SMRD_TESTS_ALLOW_MISSING=fuse,lopo python3 "$TALLY" features >"$W/features.out"
rc=$?
expect "a misspelt feature in SMRD_TESTS_ALLOW_MISSING fails the run" "1 1" "$rc $(grep -c "'lopo', which no test can lack" "$W/features.out")"
SMRD_TESTS_ALLOW_MISSING=fuse,loop,bpf,rootdisk,root python3 "$TALLY" features >/dev/null
expect "every feature the README names is one" 0 $?

# --- lib.sh ----------------------------------------------------------------
# script NAME BODY: a test script that sources lib.sh, run as meson runs
# one (with dummy programs: these cases never start smrd)
script() {
	printf '#!/bin/bash\n. "%s/tests/e2e/lib.sh"\n%s\n' "$SRCDIR" "$2" >"$W/$1.sh"
	chmod +x "$W/$1.sh"
	SMRD=/bin/false SMRCTL=/bin/false SRCDIR=$SRCDIR TEST_DEADLINE=60 SMRD_TESTS_ALLOW_MISSING=${ALLOW:-} \
		SMRD_SANITIZED=${SANITIZED:-0} "$W/$1.sh" >"$W/$1.out" 2>&1
}
script nocheck 'say "did nothing"; finish'
expect "a script that made no check fails at finish" "1 1" "$? $(grep -c 'made no check' "$W/nocheck.out")"
script onecheck 'check "true is true" true; finish'
expect "a script with a passing check passes" 0 $?
script regen 'GOLDEN_REGEN=1; [ "$GOLDEN_REGEN" = 1 ] || check "compared" false; finish'
expect "checks a regeneration mode skipped all of leave a failing script" 1 $?
ALLOW=fuse script lateskip 'check "first" false; unavailable fuse "no /dev/fuse"'
expect "a feature missing after a failed check is no skip" "1 0" "$? $(grep -c '^SKIPPED' "$W/lateskip.out")"
ALLOW=fuse script skip 'check "first" true; unavailable fuse "no /dev/fuse"'
expect "an allowed feature missing is a skip (77) that names it" "77 1" "$? $(grep -c '^SKIPPED \[fuse\]: no /dev/fuse' "$W/skip.out")"
ALLOW=loop script skip2 'check "first" true; unavailable fuse "no /dev/fuse"'
expect "a feature missing and not allowed fails" 1 $?
# losetup that fails, as on a machine without free loop devices left
mkdir -p "$W/bin"
printf '#!/bin/sh\n[ "$1" = -f ] && [ $# = 1 ] && exit 0\necho "losetup: cannot find an unused loop device" >&2\nexit 1\n' >"$W/bin/losetup"
chmod +x "$W/bin/losetup"
PATH=$W/bin:$PATH script loop 'L=$(attach_loop /nonexistent.img); check "reached after the attach" true; finish'
expect "a failed attach_loop in \$(...) stops the script, as a failure" "1 0 1" \
	"$? $(grep -c 'reached after the attach' "$W/loop.out") $(grep -c 'FAIL: losetup' "$W/loop.out")"
printf '#!/bin/sh\nexit 1\n' >"$W/bin/losetup"
ALLOW=loop PATH=$W/bin:$PATH script noloop 'check "first" true; L=$(attach_loop /nonexistent.img); check "after" true; finish'
expect "no free loop device in \$(...), allowed: a skip naming loop" "77 1" "$? $(grep -c '^SKIPPED \[loop\]' "$W/noloop.out")"

# A UBSan report from a process whose stderr went nowhere, in a check that
# takes any non-zero exit for a refusal: the check passes, the report in
# $T/sanitizer fails the script. The sanitized build is clang's for this:
# gcc's UBSan ignores log_path.
if command -v clang >/dev/null; then
	printf 'int main(int c, char **v) { (void)v; int x = 0x7fffffff; return x + c > 0 ? 0 : 1; }\n' >"$W/ub.c"
	clang -fsanitize=undefined -fno-sanitize-recover=undefined -o "$W/ub" "$W/ub.c"
	SANITIZED=1 UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
		script ubsan "check \"a refusal (any non-zero exit)\" bash -c '! $W/ub 2>/dev/null'; finish"
	expect "a UBSan report with its stderr dropped fails the script" "1 1 1" \
		"$? $(grep -c '^ok: a refusal' "$W/ubsan.out") $(grep -c 'a sanitizer report in .*/sanitizer/ubsan' "$W/ubsan.out")"
else
	bad "no clang: the sanitized build needs it (scripts/install-deps.sh)"
fi

# --- what the e2e scripts may not do ----------------------------------------
# a check's failure counted by hand is invisible to finish's count (check_by);
# bytes from /dev/urandom make a run that cannot be replayed (seeded_bytes)
hand=$(grep -n 'FAILS=' "$SRCDIR"/tests/e2e/*.sh | grep -v '/lib.sh:')
expect "no e2e script counts a failure by hand (check_by, check)" "" "$hand"
rnd=$(grep -n -E '/dev/urandom|os\.urandom' "$SRCDIR"/tests/e2e/*.sh | grep -v '/lib.sh:')
expect "no e2e script reads /dev/urandom (seeded_bytes)" "" "$rnd"

# a unit test's skip names its feature (test.h's test_unavailable)
bare=$(grep -n -E 'return 77|exit\(77\)' "$SRCDIR"/tests/unit/*.c)
expect "no unit test skips without naming the feature it lacks (test_unavailable)" "" "$bare"

echo "harness: $CHECKS checks, $FAILS failed"
[ "$FAILS" -eq 0 ] && [ "$CHECKS" -gt 0 ]
