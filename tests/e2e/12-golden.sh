#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden outputs: every smrctl command, as text and as JSON, against a
# daemon on a fixture tree with a known past (events seeded through the
# history module), compared with tests/golden/. What changes from run to
# run (pid, port, paths, clocks, dates) is masked by tests/golden/normalize.py;
# everything else must match byte for byte, so a renamed key or a broken
# column shows up here. After an intended change: tests/golden/regen.
. "$(dirname "$0")/lib.sh"
: "${HISTORY_SEED:?run through meson test}"

GOLDEN=$SRCDIR/tests/golden
FIX=$SRCDIR/tests/fixtures/sysfs/mixed
NORM="python3 $GOLDEN/normalize.py"
export TZ=UTC LC_ALL=C

# A known past: sdb (CMR by its model) had destage storms an hour ago,
# which makes it dm-smr by behaviour; sda had read bands and a stall.
mkdir -p "$T/state"
"$HISTORY_SEED" "$T/state" <"$GOLDEN/history.tsv" >/dev/null || { fail "seeding the history"; finish; }

# The fixture's diskstats is copied so that the daemon reads a file nobody changes.
cp -a "$FIX" "$T/tree"
# smartmontools' database as Debian 12 ships it, not whichever copy this
# machine has (update-smart-drivedb changes its lines)
cp "$SRCDIR/tests/fixtures/drivedb.h" "$T/drivedb.h"
start_smrd --sysfs-root "$T/tree/sys" --procfs-root "$T/tree/proc" --udev-root "$T/tree/udev" --interval 0.2 \
	--drivedb "$T/drivedb.h"
WAIT_LOG=$T/smrd.log wait_until 20 "two samples" bash -c "'$SMRCTL' --socket '$SOCK' --json status | grep -q '\"samples\": [2-9]'"

# golden NAME ARGS...: runs smrctl ARGS (text) and --json ARGS, compares
# both (with the exit code and stderr) to tests/golden/NAME.{txt,json}.
# GOLDEN_KINDS=txt for what has no JSON form (help texts).
golden() {
	local name=$1; shift
	local kind
	for kind in ${GOLDEN_KINDS:-txt json}; do
		local out=$T/$name.$kind rc
		if [ "$kind" = json ]; then
			timeout -k 2 30 "$SMRCTL" --socket "$SOCK" --json "$@" >"$out.raw" 2>"$out.err"; rc=$?
		else
			timeout -k 2 30 "$SMRCTL" --socket "$SOCK" "$@" >"$out.raw" 2>"$out.err"; rc=$?
		fi
		{ echo "\$ smrctl $([ "$kind" = json ] && echo '--json ')$*"; echo "exit $rc"; cat "$out.err"; echo '--'; cat "$out.raw"; } |
			$NORM "$kind" >"$out"
		if [ "${GOLDEN_REGEN:-0}" = 1 ]; then
			cp "$out" "$GOLDEN/$name.$kind"
			say "  wrote tests/golden/$name.$kind"
		elif diff -u "$GOLDEN/$name.$kind" "$out" >"$out.diff"; then
			ok "smrctl $([ "$kind" = json ] && echo '--json ')$* matches tests/golden/$name.$kind"
		else
			fail "smrctl $([ "$kind" = json ] && echo '--json ')$* differs from tests/golden/$name.$kind:"
			sed 's/^/    /' "$out.diff" | head -60
		fi
	done
}

step "read-only commands"
golden status status
golden disks disks
golden show-sda show sda
golden show-sdb show sdb
golden show-nvme0n1 show nvme0n1
golden events events
golden events-sdb events --device sdb --limit 2
golden top top --count 1
golden show-missing show sdz
golden events-missing events --device sdz
# the rebuild guard: sdb is CMR by its model but dm-smr by its storms; sda is dm-smr by the model list (a WD40EFAX)
golden rebuild-check-sdb rebuild-check sdb
golden rebuild-check-sda rebuild-check sda
# no zpool, no btrfs replace here: none followed (the list's own form)
golden rebuilds rebuilds

step "usage"
GOLDEN_KINDS=txt golden help --help
GOLDEN_KINDS=txt golden help-events events --help
GOLDEN_KINDS=txt golden usage-bad-option top --limit 3
GOLDEN_KINDS=txt golden usage-no-device show
# qualify parses its own options after smrctl's (a second getopt scan)
GOLDEN_KINDS=txt golden qualify-no-disk qualify sdz --destructive --time-limit 5 --rest 0
GOLDEN_KINDS=txt golden qualify-bad-option --count 2 qualify sdz
GOLDEN_KINDS=txt golden qualify-bad-value qualify sdz --hold x
# a kind that is not one is a usage error (2), said before the daemon is asked
GOLDEN_KINDS=txt golden ack-bad-kind ack sda bogus

step "a user who may not use the socket"
chmod 755 "$T"	# the directory is open; the socket itself (0660, root's group) is not
out=$(su nobody -s /bin/sh -c "'$SMRCTL' --socket '$SOCK' status" 2>&1)
rc=$?
say "  as nobody: exit $rc: $out"
check "is told it is a permission (and which group may), exit 1 as smrctl(8) says, not \"is smrd running?\"" \
	bash -c "[ $rc = 1 ] && [[ \"\$1\" == *'permission denied on'*'group'* ]] && [[ \"\$1\" != *running* ]]" _ "$out"

step "commands that change things (root)"
golden reread reread sda
# the old name, kept for a release: the same reply (its note is on stderr)
golden probe probe sda
golden reload reload
golden forget forget sdb
golden events-after-forget events

stop_smrd
# Rewriting is no test: a run with GOLDEN_REGEN=1 compared nothing, so it
# never passes (exit 4, which tests/golden/regen alone takes as done).
if [ "${GOLDEN_REGEN:-0}" = 1 ]; then
	say "GOLDEN_REGEN=1: tests/golden/ rewritten, nothing compared: not a pass ($FAILS other check(s) failed)"
	[ "$FAILS" -eq 0 ] && exit 4
	exit 1
fi
finish
