#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Configuration and lifecycle: --check-config, flags over the file, SIGHUP
# with a good and a bad file, smrctl's exit codes, SIGTERM, --oneshot on this host.
. "$(dirname "$0")/lib.sh"
need promtool

# --check-config prints the effective config; flags override the file.
cat >"$T/smrd.conf" <<CONF
# a comment
interval = 3
include = ^sd
CONF
"$SMRD" --config "$T/smrd.conf" --check-config --interval 2 >"$T/eff" 2>&1
check "--check-config exits 0" [ $? -eq 0 ]
check "flag overrides file (interval = 2)" grep -qx 'interval = 2' "$T/eff"
check "file value kept (include)" grep -qx 'include = "^sd"' "$T/eff"
"$SMRD" --config "$T/eff" --check-config >"$T/eff2" 2>&1
check "--check-config output reads back as a config" diff <(grep -v '^# effective' "$T/eff") <(grep -v '^# effective' "$T/eff2")
echo "interval = soon" >"$T/bad.conf"
"$SMRD" --config "$T/bad.conf" --check-config >"$T/bad.out" 2>&1
rc=$?
check "a bad config is refused with exit 1 (got $rc)" [ $rc -eq 1 ]
check "the error names the file and line" grep -q "$T/bad.conf:1: interval" "$T/bad.out"
# Each refusal is exact (exit 1 and its own words): an abort (a sanitizer's,
# 134) is no refusal, whatever happened to its report.
"$SMRD" --config "$T/nonexistent.conf" --check-config >/dev/null 2>"$T/missing.err"
rc=$?
check "an explicit missing config is refused with exit 1 (got $rc), naming it" \
	bash -c "[ $rc -eq 1 ] && grep -q 'nonexistent.conf: No such file' '$T/missing.err'"
"$SMRD" --no-such-flag >/dev/null 2>"$T/flag.err"
rc=$?
check "an unknown flag is refused with exit 1 (got $rc), as unknown" \
	bash -c "[ $rc -eq 1 ] && grep -q 'unknown option --no-such-flag' '$T/flag.err'"
printf 'dm-smr\tWDC(\tsomewhere\n' >"$T/bad-models.tsv"
"$SMRD" --config /dev/null --model-list "$T/bad-models.tsv" --oneshot >/dev/null 2>"$T/models.err"
rc=$?
check "a bad model list is refused with exit 1 (got $rc)" [ $rc -eq 1 ]
check "naming the line and the pattern" grep -q "line 1: bad pattern 'WDC('" "$T/models.err"
# A bad value names where it came from: the flag, or the file and its line.
"$SMRD" --config /dev/null --interval 0 --check-config >/dev/null 2>"$T/flag.err"
check "a bad flag is named as the flag: $(cat "$T/flag.err")" grep -q "Bad configuration: --interval: '0' is not" "$T/flag.err"
printf '# smrd.conf\ninterval = 0\n' >"$T/bad.conf"
"$SMRD" --config "$T/bad.conf" --check-config >/dev/null 2>"$T/file.err"
check "a bad line is named as file:line: $(cat "$T/file.err")" grep -q "Bad configuration: $T/bad.conf:2: interval: '0' is not" "$T/file.err"
# A relative --sysfs-root is the working directory's, as node_exporter's --path.sysfs.
F=$SRCDIR/tests/fixtures/sysfs/dmsmr-vpd-b1
(cd "$F" && "$SMRD" --config /dev/null --sysfs-root sys --procfs-root ./proc --udev-root "$T/no-udev" --state-dir "$T/rel-state" \
	--oneshot) >"$T/rel.prom" 2>"$T/rel.err"
check "a relative --sysfs-root is resolved and read" grep -q '^smrd_disk_info{device="sdb".*class="dm-smr"' "$T/rel.prom"
(cd "$F" && "$SMRD" --config /dev/null --sysfs-root sys --check-config) 2>"$T/check-config-relative.err" | grep -q "^sysfs-root = \"$F/sys\"$"
check "and shown absolute by --check-config" [ $? -eq 0 ]

# smrctl without a daemon.
"$SMRCTL" --socket "$T/none.sock" status >/dev/null 2>"$T/ctl.err"
rc=$?
check "smrctl without a daemon exits 3 (got $rc)" [ $rc -eq 3 ]
check "and says so" grep -q 'is smrd running' "$T/ctl.err"
"$SMRCTL" frobnicate >/dev/null 2>&1
check "smrctl usage error exits 2" [ $? -eq 2 ]

# Reload: a good file changes the interval; a bad one is refused and the old kept.
ROOT=$SRCDIR/tests/fixtures/sysfs/mixed
echo "interval = 0.5" >"$T/run.conf"
SOCK=$T/smrd.sock
"$SMRD" --config "$T/run.conf" --listen 127.0.0.1:0 --socket "$SOCK" --state-dir "$T/state" \
	--sysfs-root "$ROOT/sys" --procfs-root "$ROOT/proc" --udev-root "$ROOT/udev" --exclude '^$' \
	>"$T/smrd.log" 2>&1 &
SMRD_PID=$!
WAIT_LOG=$T/smrd.log wait_until 20 "smrd to create $SOCK" test -S "$SOCK"
check "state directory created" [ -d "$T/state" ]
interval() { "$SMRCTL" --socket "$SOCK" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["interval_seconds"])'; }
check "interval 0.5 from the file" [ "$(interval)" = 0.5 ]
echo "interval = 0.25" >"$T/run.conf"
kill -HUP "$SMRD_PID"
interval_is() { [ "$(interval)" = "$1" ]; }
WAIT_LOG=$T/smrd.log wait_until 5 "SIGHUP to apply interval 0.25" interval_is 0.25
check "SIGHUP applies a good file (0.25)" [ "$(interval)" = 0.25 ]
echo "interval = -1" >"$T/run.conf"
kill -HUP "$SMRD_PID"
WAIT_LOG=$T/smrd.log wait_until 5 "SIGHUP to refuse the bad file" grep -q 'keeping the old configuration' "$T/smrd.log"
check "SIGHUP with a bad file keeps the old config" [ "$(interval)" = 0.25 ]
check "and logs why" grep -q 'keeping the old configuration' "$T/smrd.log"
printf 'interval = 0.25\ninclude = ^nvme\n' >"$T/run.conf"
kill -HUP "$SMRD_PID"
n_disks() { "$SMRCTL" --socket "$SOCK" --json disks | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["disks"]))'; }
one_left() { [ "$(n_disks)" = 1 ]; }
WAIT_LOG=$T/smrd.log wait_until 5 "the reloaded --include to leave one disk" one_left
n=$("$SMRCTL" --socket "$SOCK" --json disks | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["disks"]))')
check "a reloaded --include applies to watched disks (1 left, got $n)" [ "$n" = 1 ]
# An option only a restart applies: reload says so, and exits 4 (smrctl(8)).
printf 'interval = 0.25\ninclude = ^nvme\ntrace-backend = none\n' >"$T/run.conf"
"$SMRCTL" --socket "$SOCK" reload >"$T/reload.out" 2>&1
rc=$?
check "reload of an option that needs a restart exits 4 (got $rc): $(tr '\n' ' ' <"$T/reload.out")" \
	bash -c "[ $rc -eq 4 ] && grep -q 'applied only by a restart.*trace-backend' '$T/reload.out'"
printf 'interval = 0.25\ninclude = ^nvme\n' >"$T/run.conf"
"$SMRCTL" --socket "$SOCK" reload >/dev/null 2>&1
check "and 0 once the file is back (got $?)" [ $? -eq 0 ]
"$SMRCTL" --socket "$SOCK" status | sed 's/^/    /'
"$SMRCTL" --socket "$SOCK" show sdz >/dev/null 2>&1
check "smrctl show of an unknown disk exits 1" [ $? -eq 1 ]
# A second smrd on the same control socket (issue 26: it unlinked the live
# socket, and once it exited the first was unreachable).
timeout 20 "$SMRD" --config /dev/null --listen 127.0.0.1:0 --socket "$SOCK" --state-dir "$T/state2" \
	--sysfs-root "$SRCDIR/tests/fixtures/sysfs/mixed/sys" --procfs-root "$SRCDIR/tests/fixtures/sysfs/mixed/proc" \
	>"$T/second.log" 2>&1
rc=$?
check "a second smrd on a live control socket refuses to start (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'Another smrd answers on' '$T/second.log'"
check "  ... and the first still answers on it" sh -c "'$SMRCTL' --socket '$SOCK' status >/dev/null"
stop_smrd
check "control socket removed on exit" [ ! -e "$SOCK" ]

# --oneshot on this very host.
"$SMRD" --oneshot --config /dev/null --exclude '^$' >"$T/host.prom" 2>"$T/host.log"
check "--oneshot on this host exits 0" [ $? -eq 0 ]
check "and its page passes promtool" sh -c "promtool check metrics <'$T/host.prom'"
grep '^smrd_disk_info' "$T/host.prom" | sed 's/^/    /'
finish
