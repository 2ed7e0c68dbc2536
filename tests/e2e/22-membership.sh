#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pool membership from real signatures on real loop devices, while smrd
# runs: an LVM physical volume (pvcreate), a btrfs filesystem on a whole
# disk and one on a partition (mkfs.btrfs), each seen joining within two
# intervals of its uevent (what udev's watch sends when a tool closes the
# device it wrote; this machine has no udevd, so libblkid reads the
# signatures) and leaving after wipefs. ZFS and md cannot be created here
# (no kernel modules): their udev properties and holders are in the
# fixture tree "pools" (10-fixtures.sh).
. "$(dirname "$0")/lib.sh"
need pvcreate
need mkfs.btrfs
need curl
need sfdisk
need promtool
[ "$(id -u)" -eq 0 ] || { say "FAIL: needs root for loop devices"; exit 1; }

for i in 1 2 3; do truncate -s 256M "$T/d$i.img"; done
A=$(attach_loop "$T/d1.img"); B=$(attach_loop "$T/d2.img"); C=$(attach_loop "$T/d3.img")
AN=${A#/dev/} BN=${B#/dev/} CN=${C#/dev/}
start_smrd --interval 1 --include "^($AN|$BN|$CN)\$" --exclude '^$'

member() {	# member DEV TYPE NAME: the series is on the page
	scrape >"$T/m" && metrics_py get "$T/m" smrd_disk_membership_info device="$1" type="$2" name="$3" | grep -qx 1
}
no_member() { scrape >"$T/m" && ! grep -q "^smrd_disk_membership_info{device=\"$1\"" "$T/m"; }
uevent() { echo change >"/sys/class/block/$1/uevent"; }
timed() {	# timed WHAT CMD...: how long until CMD holds (ms), at most 10 s (the sanitizer build is slower)
	local t0 ms
	t0=$(now_ms)
	if wait_until 10 "$1" "${@:2}"; then ms=$(( $(now_ms) - t0 )); say "  measured: $1 after $ms ms"; return 0; fi
	return 1
}

step "nothing on the disks: no membership"
wait_until 5 "$AN on the page" sh -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q 'device=\"$AN\"'"
check "no membership series yet" no_member "$AN"

step "an LVM physical volume appears"
pvcreate -q -y -ff "$A" >"$T/pv.out" 2>&1 || { fail "pvcreate"; cat "$T/pv.out"; }
PVUUID=$(blkid -p -o value -s UUID "$A")
uevent "$AN"
check "$AN is an LVM member named by its PV UUID $PVUUID (no volume group active here)" timed "lvm on $AN" member "$AN" lvm "$PVUUID"

step "btrfs on a whole disk and on a partition"
mkfs.btrfs -q -f -L media "$B" >/dev/null 2>&1 || fail "mkfs.btrfs $B"
uevent "$BN"
check "$BN is a member of btrfs media" timed "btrfs on $BN" member "$BN" btrfs media
printf 'label: gpt\n,64M\n,\n' | sfdisk -q "$C" >/dev/null 2>&1 || fail "sfdisk $C"
# this kernel's loop devices drop what a re-read finds; partx adds them (BLKPG).
# Partitions added so outlive the loop device's detach: the next test to get
# this loop number would find them (qualify refuses a disk with partitions).
at_exit "partx -d '$C' 2>/dev/null"
partx -a "$C" 2>/dev/null
wait_until 5 "${CN}p2 to appear" test -e "/sys/class/block/${CN}p2"
mkfs.btrfs -q -f -L backup "${C}p2" >/dev/null 2>&1 || fail "mkfs.btrfs ${C}p2"
uevent "${CN}p2"
check "$CN is a member of btrfs backup, through ${CN}p2" timed "btrfs on ${CN}p2" member "$CN" btrfs backup
ctl disks | sed 's/^/    /'
check "smrctl disks shows the pools" sh -c "'$SMRCTL' --socket '$SOCK' disks | grep -qE '^$BN +.* btrfs:media '"
ctl show "$CN" | grep 'member of' | sed 's/^/    /'
check "smrctl show says which partition carries it" sh -c "'$SMRCTL' --socket '$SOCK' show '$CN' | grep -q 'member of btrfs backup (on ${CN}p2)'"
check "--json lists it" sh -c "'$SMRCTL' --socket '$SOCK' --json show '$CN' | python3 -c '
import json, sys
m = json.load(sys.stdin)[\"members\"]
sys.exit(m != [{\"type\": \"btrfs\", \"name\": \"backup\", \"via\": \"${CN}p2\", \"detail\": \"\"}])'"
scrape >"$T/all"
check "promtool check metrics is clean" sh -c "promtool check metrics <'$T/all'"

step "wiped: they leave"
wipefs -q -a "$A" && uevent "$AN"
check "$AN is no longer an LVM member" timed "$AN leaves" no_member "$AN"
wipefs -q -a "${C}p2" && uevent "${CN}p2"
check "$CN is no longer a member" timed "$CN leaves" no_member "$CN"
check "$BN still is" member "$BN" btrfs media
grep -E 'member of|no longer a member' "$T/smrd.log" | sed 's/^/    log: /'
check "the journal says when a disk joins and leaves" grep -q "$AN is no longer a member" "$T/smrd.log"
check "daemon still running" alive
stop_smrd
partx -d "$C" 2>/dev/null
check "the partitions it added are gone again" bash -c "! ls /sys/class/block | grep -q '^${CN}p'"
finish
