# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced helpers: bring emulated disks up as loop devices and take down
# exactly what we brought up, in the right order, whatever failed on the way:
# our background jobs, then our loop devices (they hold the FUSE file open),
# then our FUSE mounts, then our smr-emu processes. Never anything by name.
#
#   emu_up VAR NAME MODEL [smr-emu options]   sets VAR to /dev/loopN
#   emu_bg CMD...                              runs CMD in the background, ours to kill
#   emu_cleanup                                call from the caller's EXIT trap
#
# Needs: SMR_EMU (the smr-emu binary), EMU_WORK (a private directory).
: "${SMR_EMU:?path to the smr-emu binary}" "${EMU_WORK:?private work directory}"

EMU_PIDS=()
EMU_MNTS=()
EMU_LOOPS=()
EMU_BG=()
EMU_STORES=()
EMU_SIZE=${EMU_SIZE:-16G}

# Backing files live in RAM when we can: the model's sleeps must be the only
# latency, not the host's disk. They are sparse; only written blocks cost.
emu_store() {
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		mktemp -d /dev/shm/smr-emu.XXXXXX
	else
		mktemp -d "$EMU_WORK/store.XXXXXX"
	fi
}

emu_up() {
	local var=$1 name=$2 model=$3
	shift 3
	local dir=$EMU_WORK/emu-$name store
	mkdir -p "$dir/mnt" || return 1
	store=$(emu_store) || return 1
	EMU_MNTS+=("$dir/mnt")
	EMU_STORES+=("$store")
	truncate -s "$EMU_SIZE" "$store/backing" || return 1
	"$SMR_EMU" --model "$model" --backing "$store/backing" "$@" "$dir/mnt" >"$dir/emu.log" 2>&1 &
	EMU_PIDS+=($!)
	local i
	for i in $(seq 100); do
		[ -e "$dir/mnt/disk" ] && break
		kill -0 "${EMU_PIDS[-1]}" 2>/dev/null || { echo "smr-emu $name died:" >&2; cat "$dir/emu.log" >&2; return 1; }
		sleep 0.05
	done
	[ -e "$dir/mnt/disk" ] || { echo "smr-emu $name did not mount" >&2; return 1; }
	local loop
	loop=$(losetup --direct-io=on -f --show "$dir/mnt/disk") || return 1
	EMU_LOOPS+=("$loop")
	# Direct I/O through the loop device is what makes the model's delays the
	# block layer's: the page cache would absorb writes and hide the cliff.
	if [ "$(cat "/sys/block/${loop#/dev/}/loop/dio" 2>/dev/null)" != 1 ]; then
		echo "$loop: direct I/O is off; the emulated latencies would be hidden" >&2
		return 1
	fi
	# A loop device says it does not rotate; ours has a head (cmr, dm-smr)
	# and says so, as the modelled disk would (the SSDs keep 0).
	case $model in
	ssd|slc-ssd) echo 0 >"/sys/block/${loop#/dev/}/queue/rotational" 2>/dev/null ;;
	*) echo 1 >"/sys/block/${loop#/dev/}/queue/rotational" 2>/dev/null ;;
	esac
	printf -v "$var" '%s' "$loop"
	echo "emulated $model disk $name: $loop (smr-emu pid ${EMU_PIDS[-1]}, log $dir/emu.log)"
}

emu_bg() {
	"$@" &
	EMU_BG+=($!)
}

# emu_reap PID SECS: waits for PID with a deadline (never blocks longer);
# true when it is gone.
emu_reap() {
	local i
	for i in $(seq $(( $2 * 20 ))); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.05
	done
	! kill -0 "$1" 2>/dev/null
}

# emu_abort MOUNT: ends the FUSE connection, so that whatever waits on the
# emulated disk gets an error instead of waiting for the model.
emu_abort() {
	local dev
	dev=$(mountpoint -d "$1" 2>/dev/null) || return 0
	[ -w "/sys/fs/fuse/connections/${dev#*:}/abort" ] && echo 1 >"/sys/fs/fuse/connections/${dev#*:}/abort"
}

emu_cleanup() {
	local p l m stuck=()
	for p in "${EMU_BG[@]+"${EMU_BG[@]}"}"; do
		kill "$p" 2>/dev/null
		emu_reap "$p" 10 || stuck+=("$p")
	done
	for l in "${EMU_LOOPS[@]+"${EMU_LOOPS[@]}"}"; do losetup -d "$l" 2>/dev/null; done
	# A job still there waits on the disk model: cut the disk away under it.
	if [ ${#stuck[@]} -gt 0 ]; then
		echo "emu: ${stuck[*]} still waiting on an emulated disk after 10 s: aborting the FUSE connections" >&2
		for m in "${EMU_MNTS[@]+"${EMU_MNTS[@]}"}"; do emu_abort "$m"; done
		for p in "${stuck[@]}"; do kill -KILL "$p" 2>/dev/null; emu_reap "$p" 10 || echo "emu: $p survives" >&2; done
	fi
	# losetup -d is lazy: the loop lets go of the file when its last I/O ends.
	for m in "${EMU_MNTS[@]+"${EMU_MNTS[@]}"}"; do
		for _ in $(seq 50); do
			mountpoint -q "$m" || break
			fusermount3 -u "$m" 2>/dev/null && break
			sleep 0.1
		done
		mountpoint -q "$m" && { emu_abort "$m"; fusermount3 -uz "$m" 2>/dev/null; }
	done
	for p in "${EMU_PIDS[@]+"${EMU_PIDS[@]}"}"; do
		kill "$p" 2>/dev/null
		emu_reap "$p" 10 || { kill -KILL "$p" 2>/dev/null; emu_reap "$p" 5; }
	done
	for m in "${EMU_STORES[@]+"${EMU_STORES[@]}"}"; do rm -rf "$m"; done
	EMU_BG=() EMU_LOOPS=() EMU_MNTS=() EMU_PIDS=() EMU_STORES=()
}

# emu_diskstats DEV: "reads read_ms writes write_ms sectors_read sectors_written"
# from /proc/diskstats.
emu_diskstats() {
	awk -v d="${1#/dev/}" '$3 == d { print $4, $7, $8, $11, $6, $10 }' /proc/diskstats
}
