# SPDX-License-Identifier: GPL-2.0-or-later
# fish completion for smrctl: commands, their options, watched devices
# (asked from the running daemon; nothing if it is not there).
function __smrctl_devices
    smrctl --json disks 2>/dev/null | string match -r -g '"device": *"([^"]*)"'
end

set -l commands status disks show top events incidents reload reread forget ack unack acks notify-test qualify rebuild-check rebuilds
complete -c smrctl -f
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -l socket -r -F -d 'smrd control socket'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -l json -d 'print the reply as JSON'
complete -c smrctl -l help -d 'help'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -l version -d 'version'

complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'daemon state, sampling, disks by class'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a disks -d 'one line per watched disk'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a show -d 'one disk in depth'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a top -d 'a line per disk every second, like iostat'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a events -d 'what happened: incidents with their steps, and the other events'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a incidents -d 'storms, rebuilds and slow I/Os, each as one incident'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a reload -d 're-read smrd.conf (root)'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a reread -d 're-read a disk and classify it again (root)'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a forget -d "reset a disk's detector state (root)"
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a ack -d "stop notifying of a disk's events for a while (root)"
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a unack -d 'withdraw an ack (root)'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a acks -d 'the acks in force and when they expire'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a notify-test -d 'send one test notification (root)'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a qualify -d 'test a disk for hidden SMR'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a rebuild-check -d 'would a rebuild onto a disk be slow'
complete -c smrctl -n "not __fish_seen_subcommand_from $commands" -a rebuilds -d 'rebuilds onto watched disks and their ETA'

complete -c smrctl -n "__fish_seen_subcommand_from show reread probe forget ack unack rebuild-check" -a '(__smrctl_devices)'
complete -c smrctl -n "__fish_seen_subcommand_from ack" -l for -x -a '1h 8h 24h 7d forever' -d 'how long (default 24h)'
complete -c smrctl -n "__fish_seen_subcommand_from ack unack" -a 'storm-start storm-end stall timeout-risk bands behaviour stall-imminent rebuild-warning all'
complete -c smrctl -n "__fish_seen_subcommand_from top" -l count -x -d 'print N screens, then exit'
complete -c smrctl -n "__fish_seen_subcommand_from events incidents" -l device -x -a '(__smrctl_devices)' -d "only this disk's"
complete -c smrctl -n "__fish_seen_subcommand_from events incidents" -l since -x -a 'now today yesterday -1h -30m "2 hours ago"' -d 'as journalctl takes it'
complete -c smrctl -n "__fish_seen_subcommand_from events" -l follow -d 'keep printing new ones'
complete -c smrctl -n "__fish_seen_subcommand_from events incidents" -l limit -x -d 'the newest N'
complete -c smrctl -n "__fish_seen_subcommand_from events incidents" -l kind -x -a 'storm-start storm-end stall timeout-risk bands idle-cleaning-start idle-cleaning-end behaviour media-cache stall-imminent rebuild-warning rebuild-start rebuild-end rebuild-done zfs-delay zfs-deadman zfs-sitout zfs-statechange idle-recovery stalls storm rebuild' -d 'only these kinds'
complete -c smrctl -n "__fish_seen_subcommand_from events" -l all -d 'every row as stored, no incident lines'

complete -c smrctl -n "__fish_seen_subcommand_from qualify" -a '(lsblk -dno NAME 2>/dev/null)'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l destructive -d 'write to the disk (asks for its serial)'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l yes-destroy -x -d 'confirm without asking (the serial)'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l force-nonzero -d 'write even though the sampled regions hold data'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l discard -d 'afterwards, discard exactly the blocks this run wrote'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l iodepth -x -d 'queue depth'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l bs -x -d 'write size'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l write-budget -x -d 'stop writing after this much'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l time-limit -x -d 'stop writing after this long'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l hold -x -d 'how long the slow phase must last after the cliff'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l seq-seconds -x -d 'sequential 1 MiB writes for this long'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l recovery-rest -x -d 'longest rest of the idle-recovery measurement'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l rest -x -d 'idle time between writes and reads'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l read-seconds -x -d 'reads per transfer size'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l sizes -x -d 'read transfer sizes'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l report -r -F -d 'report file prefix'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l no-report -d 'write no report files'
complete -c smrctl -n "__fish_seen_subcommand_from qualify" -l json -d 'print the report as JSON'
