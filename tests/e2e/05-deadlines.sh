#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The suite's own safety net: every wait in these scripts has a deadline.
# Scripts that hang on purpose (a child that never exits, a wait on it, a
# condition that never holds, a foreground command past the script's own
# deadline) must each end in time with a failure that names what was
# awaited, shows the tail of its log, and leaves no process behind.
. "$(dirname "$0")/lib.sh"

LIB=$SRCDIR/tests/e2e/lib.sh
hang() {	# hang NAME DEADLINE BODY: runs BODY in a script that sources lib.sh
	local name=$1 deadline=$2 body=$3
	printf '#!/bin/bash\n. "%s"\n%s\nfinish\n' "$LIB" "$body" >"$T/$name.sh"
	local t0 rc
	t0=$(now_ms)
	# the script under test keeps the deadline given here, even in a soak
	env -u SMRD_SOAK -u SMRD_TEST_DEADLINE TEST_DEADLINE=$deadline timeout -k 5 60 bash "$T/$name.sh" >"$T/$name.out" 2>&1
	rc=$?
	say "  $name: exit $rc after $(( $(now_ms) - t0 )) ms"
	sed 's/^/    > /' "$T/$name.out" | head -12
	echo "$rc $(( $(now_ms) - t0 ))" >"$T/$name.rc"
}
rc_of() { cut -d' ' -f1 "$T/$1.rc"; }
ms_of_run() { cut -d' ' -f2 "$T/$1.rc"; }
no_process() { ! pgrep -f "$1" >/dev/null; }

step "wait_pid on a child that never exits"
hang child 30 'echo "I am the child log" >"$T/child.log"; sleep 1001 & wait_pid $! 1 "the sleeper to exit" "$T/child.log"; echo "returned $?"'
check "it fails (exit 1)" [ "$(rc_of child)" = 1 ]
check "it names what it waited for" grep -q 'deadline: waited 1 s for the sleeper to exit' "$T/child.out"
check "it shows the tail of the child's log" grep -q '| I am the child log' "$T/child.out"
check "and returns 124 to the caller" grep -q 'returned 124' "$T/child.out"
check "the child was killed" no_process 'sleep 1001'

step "wait_until on a condition that never holds"
hang cond 30 'echo "still starting" >"$T/svc.log"; WAIT_LOG=$T/svc.log wait_until 1 "a socket that never appears" test -S "$T/nothing"; echo "returned $?"'
check "it fails" [ "$(rc_of cond)" = 1 ]
check "it names the condition and shows the log" bash -c "grep -q 'a socket that never appears' '$T/cond.out' && grep -q '| still starting' '$T/cond.out'"

step "a bare wait past the script's own deadline"
hang bare 2 'sleep 1002 & P=$!; at_exit "kill $P 2>/dev/null"; DOING="waiting on a forgotten child"; wait $P'
check "it fails within its deadline plus a little ($(ms_of_run bare) ms)" \
	bash -c "[ $(rc_of bare) = 1 ] && [ $(ms_of_run bare) -lt 10000 ]"
check "it says what the script was doing" grep -q 'own deadline of 2 s while: waiting on a forgotten child' "$T/bare.out"
check "its cleanup ran: the child is gone" no_process 'sleep 1002'

step "a sanitizer's report in a log, all checks passed"
# (the report is printed with a format, so that this script and the one
# hang writes do not hold it themselves)
hang san 30 'printf "==%s==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x1 in main x.c:1\n" 4242 >"$T/other.log"; check "a check that passes" true'
check "it fails (exit 1)" [ "$(rc_of san)" = 1 ]
check "it names the log and shows the report" \
	bash -c "grep -q 'FAIL: a sanitizer report in .*/other.log' '$T/san.out' && grep -q '| ==4242==ERROR: AddressSanitizer' '$T/san.out'"
rm -f "$T/san.out"	# it quotes the report: this test's own cleanup would find it

step "meson's SIGTERM"
# it says when it is in its wait: SIGTERM comes then
printf '#!/bin/bash\n. "%s"\nsleep 1003 & P=$!; at_exit "kill $P 2>/dev/null"; DOING="sleeping"; : >"%s"; wait $P\n' "$LIB" "$T/term.waiting" >"$T/term.sh"
bash "$T/term.sh" >"$T/term.out" 2>&1 &
TP=$!
wait_until 10 "the script to reach its wait" test -e "$T/term.waiting"
kill -TERM "$TP"
wait_pid "$TP" 10 "the script to end on SIGTERM" "$T/term.out"
check "SIGTERM ends the script as a failure that says what it was doing" grep -q 'terminated while: sleeping' "$T/term.out"
check "and its cleanup ran" no_process 'sleep 1003'

finish
