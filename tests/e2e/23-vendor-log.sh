#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seagate's FARM recording type on the real /sys, and a disk in standby not
# woken. A loop device that udev's database (a copy smrd reads) names a
# Seagate IronWolf no model list names, so that smrd asks smartctl-command for its FARM log: a
# stand-in that logs its arguments and answers with the recordings of
# tests/fixtures/smartctl (no Seagate disk here) - and, asked without
# -n standby, reads the disk as a real smartctl would to answer, which
# shows on its counters. The drive first "spun down": smartctl says so, the
# disk's reads and writes in /proc/diskstats do not move during discovery,
# and the class stays what sysfs says; awake, `smrctl reread` reads the
# log: SMR, the decisive evidence, in the metric. The disk is a member of
# pool "tank" (udev's record says so) and zfs-annotate is on: a zpool
# stand-in that logs its arguments and keeps vdev user properties as
# OpenZFS 2.2 does is told the class once smrd knows it, and smrctl show
# says what was written. Debian's own smartctl 7.3, which has no -l farm:
# said once, asked no more, nothing shown.
. "$(dirname "$0")/lib.sh"
need curl
need smartctl
[ "$(id -u)" -eq 0 ] || { say "FAIL: needs root for loop devices"; exit 1; }

FIX=$SRCDIR/tests/fixtures/smartctl
truncate -s 64M "$T/disk.img"
LOOP=$(attach_loop "$T/disk.img" --direct-io=on)
N=${LOOP#/dev/}
MM=$(cat "/sys/class/block/$N/dev")
mkdir -p "$T/udev/data" "$T/bin"
GUID=9000000000000000000
printf 'E:ID_MODEL=ST4000VN006-3CW104\nE:ID_SERIAL_SHORT=ZCT0SMR1\nE:ID_BUS=ata\nE:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=tank\nE:ID_FS_UUID=13376641094713441734\nE:ID_FS_UUID_SUB=%s\nE:ID_FS_USAGE=raid\n' \
	"$GUID" >"$T/udev/data/b$MM"
# zpool get -H -o value PROPS POOL VDEV: each value on a line, "-" unset;
# zpool set PROP=VALUE POOL VDEV stores one (vdevprops(7)); nothing else here
cat >"$T/bin/zpool" <<EOF
#!/bin/sh
case "\$1" in get|set) echo "\$*" >>'$T/zcalls';; *) exit 9;; esac
if [ "\$1 \$3 \$4" = "set tank $GUID" ]; then echo "\${2#*=}" >"$T/prop-\${2%%=*}"; exit 0; fi
[ "\$*" = "get -H -o value org.smrd:class,org.smrd:smr_confidence tank $GUID" ] || exit 9
cat '$T/prop-org.smrd:class' 2>/dev/null || echo -
cat '$T/prop-org.smrd:smr_confidence' 2>/dev/null || echo -
EOF
chmod 755 "$T/bin/zpool"
cat >"$T/bin/smartctl" <<EOF
#!/bin/sh
echo "\$*" >>'$T/calls'
for dev; do :; done
case "\$*" in *"-n standby"*) ;; *) dd if="\$dev" of=/dev/null bs=4096 count=8 iflag=direct 2>/dev/null;; esac
case "\$(cat '$T/mode')" in
standby) cat '$FIX/farm-standby.json'; exit 2;;
smr) exec cat '$FIX/farm-ata-smr.json';;
esac
exit 7
EOF
chmod 755 "$T/bin/smartctl"
echo standby >"$T/mode"
io_of() { awk -v d="$N" '$3 == d { print $4 + $8 }' /proc/diskstats; }	# reads + writes completed
calls() { [ -f "$T/calls" ] && wc -l <"$T/calls" || echo 0; }
evidence() {	# evidence KEY: the FARM evidence's KEY in smrctl show --json, "" when none
	ctl --json show "$N" | python3 -c "import json, sys
ev = [e for e in json.load(sys.stdin)['verdict']['evidence'] if e['source'] == 'Seagate FARM log']
print(ev[0]['$1'] if ev else '')"
}
class_of() { ctl --json show "$N" | python3 -c 'import json, sys; print(json.load(sys.stdin)["class"])'; }

step "the drive spun down: asked with -n standby, not woken"
io0=$(io_of)
start_smrd --interval 1 --include "^$N\$" --exclude '^$' --udev-root "$T/udev" --smartctl-command "$T/bin/smartctl" \
	--zfs-annotate yes --zpool-command "$T/bin/zpool"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to hear that $N is spun down" grep -q "$N is spun down" "$T/smrd.log"
check "smartctl was asked once, as -n standby -l farm --json $LOOP ($(calls) calls: $(cat "$T/calls" 2>/dev/null))" \
	[ "$(calls)" = 1 -a "$(cat "$T/calls")" = "-n standby -l farm --json $LOOP" ]
sleep 1.2	# a sample past the answer
io1=$(io_of)
say "measured: $N completed $((io1 - io0)) reads and writes from before smrd started until after its FARM answer"
check "no I/O on $N during discovery and the FARM read ($io0 -> $io1)" [ "$io1" = "$io0" ]
check "the evidence says it was not read (spun down)" sh -c "'$SMRCTL' --socket '$SOCK' show '$N' | grep -q 'Seagate FARM log .*STANDBY'"
c=$(class_of)
check "its class stays the one sysfs gives a loop device (unknown; got $c)" [ "$c" = unknown ]
check "zfs-annotate writes nothing of a disk it has not classified" [ ! -e "$T/zcalls" ]

step "awake: smrctl reread reads the log"
echo smr >"$T/mode"
ctl reread "$N" >/dev/null
WAIT_LOG=$T/smrd.log wait_until 10 "the FARM log's answer" sh -c "[ \"\$('$SMRCTL' --socket '$SOCK' --json show '$N' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"class\"])')\" = dm-smr ]"
check "the vendor's log decided: dm-smr, rank 6 (vendor-log)" [ "$(evidence decisive)" = True -a "$(evidence kind)" = vendor-log ]
scrape >"$T/m"
check "smrd_disk_class_evidence{source=vendor-log,class=dm-smr} is 1" \
	[ "$(metrics_py get "$T/m" smrd_disk_class_evidence device="$N" source=vendor-log class=dm-smr)" = 1 ]
check "smrd_disk_class_evidence{source=virtual,class=unknown} is 0" \
	[ "$(metrics_py get "$T/m" smrd_disk_class_evidence device="$N" source=virtual class=unknown)" = 0 ]
check "two smartctl runs in all ($(calls))" [ "$(calls)" = 2 ]
WAIT_LOG=$T/smrd.log wait_until 10 "zfs-annotate to write the class" grep -qx "set org.smrd:smr_confidence=0.95 tank $GUID" "$T/zcalls"
check "zpool was asked, then told the class and the confidence: $(tr '\n' ';' <"$T/zcalls")" \
	[ "$(tr '\n' ';' <"$T/zcalls")" = "get -H -o value org.smrd:class,org.smrd:smr_confidence tank $GUID;set org.smrd:class=dm-smr tank $GUID;set org.smrd:smr_confidence=0.95 tank $GUID;" ]
check "each zpool set is in smrd's log" grep -q "zfs-annotate: $T/bin/zpool set org.smrd:class=dm-smr tank $GUID" "$T/smrd.log"
check "smrctl show says what was written" sh -c "'$SMRCTL' --socket '$SOCK' show '$N' | grep -q 'zfs-annotate: pool tank vdev $GUID: org.smrd:class=dm-smr org.smrd:smr_confidence=0.95 (written by smrd'"
sleep 2.5	# a sync more: nothing changed, nothing written
check "written once ($(wc -l <"$T/zcalls") zpool runs)" [ "$(wc -l <"$T/zcalls")" = 3 ]
stop_smrd

step "Debian 12's smartctl 7.3: no -l farm, said once"
io0=$(io_of)
start_smrd --interval 1 --include "^$N\$" --exclude '^$' --udev-root "$T/udev" --smartctl-command "$(command -v smartctl)"
WAIT_LOG=$T/smrd.log wait_until 10 "smrd to say that smartctl cannot read FARM" grep -q "refuses -l farm" "$T/smrd.log"
ctl reread "$N" >/dev/null
ctl reread "$N" >/dev/null
sleep 1.2
n=$(grep -c "refuses -l farm" "$T/smrd.log")
check "said once, after two rereads ($n)" [ "$n" = 1 ]
check "no FARM evidence at all" [ -z "$(evidence source)" ]
check "no I/O on $N ($io0 -> $(io_of))" [ "$(io_of)" = "$io0" ]
check "daemon still running" alive
stop_smrd
finish
