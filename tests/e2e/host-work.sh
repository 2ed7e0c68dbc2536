# SPDX-License-Identifier: GPL-2.0-or-later
# Ordinary work on a healthy disk, for the detector's false-alarm checks:
# what a NAS or build host does every day. Each function runs in DIR (a
# directory on the file system under test) for about SECS seconds and
# leaves DIR as it found it; a step that fails (a build cut off at the
# deadline, a full file system) is not an error, so callers under set -e
# call them as `work ... || true`. Sourced by tests/fixtures/real/make.sh, which
# records this traffic, and by tests/e2e/72-healthy-host.sh, which runs it
# live under smrd. Needs fio, python3, tar, rsync-like cp, meson and ninja.

# HOST_WORK_SEED seeds what is random in the work (fio's offsets, the
# database's keys, the payloads' bytes), so that a run replays.
HOST_WORK_SEED=${HOST_WORK_SEED:-1}
# work_bytes MIB: that many MiB of incompressible bytes, the same for the
# same HOST_WORK_SEED (AES-128-CTR of zeros).
work_bytes() {
	head -c "$(( $1 << 20 ))" /dev/zero |
		openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$HOST_WORK_SEED")" -iv 0 2>/dev/null
}

# work_start SECS, then work_left: true until SECS have passed.
work_start() { WORK_END=$(( $(date +%s) + $1 )); }
work_left() { [ "$(date +%s)" -lt "$WORK_END" ]; }
work_secs() { local s=$(( WORK_END - $(date +%s) )); [ "$s" -lt 1 ] && s=1; echo "$s"; }
# the mount point of DIR, for fstrim
work_mount() { findmnt -n -o TARGET --target "$1"; }
# MiB that fit in DIR, keeping a quarter of it free
work_room() { df -Pm "$1" | awk 'NR == 2 { print int($4 * 3 / 4) }'; }

# Big buffered writes, then sync (page-cache writeback, then a flush that
# waits for a volatile cache to drain).
work_writeback() {
	local d=$1 mib
	work_start "$2"
	mib=$(work_room "$d"); [ "$mib" -gt 1500 ] && mib=1500
	while work_left; do
		work_bytes "$mib" | dd of="$d/big" bs=1M iflag=fullblock status=none conv=notrunc
		sync
		sleep 3
		rm -f "$d/big"; sync
		sleep 2
	done
}

# Deletes and discards: files written and removed, then fstrim of the
# whole file system (on a thin or virtual disk a trim of GiBs takes seconds).
work_fstrim() {
	local d=$1 m
	m=$(work_mount "$d")
	work_start "$2"
	while work_left; do
		mkdir -p "$d/trim"
		cp -r /usr/share/doc "$d/trim/" 2>/dev/null
		dd if=/dev/zero of="$d/trim/blob" bs=1M count=300 status=none
		sync
		rm -rf "$d/trim"; sync
		fstrim "$m" 2>/dev/null
		sleep 4
	done
}

# A database: small random writes each followed by fsync, from fio and from
# SQLite with synchronous=FULL.
work_fsync() {
	local d=$1 half
	work_start "$2"
	half=$(( $2 / 2 ))
	fio --name=db --directory="$d" --size=256M --rw=randwrite --bs=4k --fsync=1 --ioengine=psync --numjobs=2 \
		--randseed="$HOST_WORK_SEED" --time_based --runtime="$half" --output=/dev/null >/dev/null 2>&1
	rm -f "$d"/db.*
	python3 - "$d/t.db" "$(work_secs)" "$HOST_WORK_SEED" <<'PY'
import os, random, sqlite3, sys, time
random.seed(int(sys.argv[3]))
db = sqlite3.connect(sys.argv[1])
db.execute("pragma journal_mode=wal")
db.execute("pragma synchronous=full")
db.execute("create table if not exists t (k integer primary key, v blob)")
end = time.time() + float(sys.argv[2])
while time.time() < end:
    with db:
        for _ in range(20):
            db.execute("insert or replace into t values (?, ?)", (random.randrange(200000), random.randbytes(200)))
db.close()
PY
	rm -f "$d"/t.db*
}

# A parallel build from scratch, again and again (smrd itself).
work_build() {
	local d=$1 src=$2
	work_start "$3"
	while work_left; do
		rm -rf "$d/build-src" "$d/build-out"
		cp -r "$src" "$d/build-src" 2>/dev/null
		rm -rf "$d/build-src"/build*
		(cd "$d/build-src" && meson setup "$d/build-out" >/dev/null 2>&1 &&
			timeout "$(work_secs)" ninja -C "$d/build-out" -j4 >/dev/null 2>&1)
		sync
	done
	rm -rf "$d/build-src" "$d/build-out"
}

# Package installs and tar extraction: Debian packages from apt's cache
# unpacked with dpkg-deb (many files, the way dpkg lays them down), a
# tarball extracted, then synced.
work_unpack() {
	local d=$1 n=0 deb
	work_start "$2"
	tar cf "$d/pkgs.tar" -C /usr/share locale 2>/dev/null
	while work_left; do
		mkdir -p "$d/root"
		for deb in /var/cache/apt/archives/*.deb; do
			work_left || break
			dpkg-deb -x "$deb" "$d/root" 2>/dev/null
			n=$((n + 1))
			[ $((n % 40)) -eq 0 ] && { sync; [ "$(work_room "$d")" -gt 300 ] || break; }
		done
		work_left && timeout "$(work_secs)" tar xf "$d/pkgs.tar" -C "$d/root" 2>/dev/null
		sync
		rm -rf "$d/root"; sync
	done
	rm -f "$d/pkgs.tar"
}

# Backups: tar of a tree, a copy of it, and a large sequential copy.
work_backup() {
	local d=$1
	work_start "$2"
	while work_left; do
		timeout "$(work_secs)" tar cf "$d/backup.tar" -C /usr lib/python3 share/doc 2>/dev/null
		mkdir -p "$d/copy"; work_left && timeout "$(work_secs)" cp -a /usr/include "$d/copy/" 2>/dev/null
		work_left && dd if="$d/backup.tar" of="$d/backup2.tar" bs=4M status=none
		sync
		rm -rf "$d/backup.tar" "$d/backup2.tar" "$d/copy"; sync
	done
}

# Mixed reads and writes: buffered and direct random I/O at a few depths
# and sizes, with sequential reads of a large file between.
work_mixed() {
	local d=$1 third
	work_start "$2"
	third=$(( $2 / 3 ))
	fio --name=mix --directory="$d" --size=512M --rw=randrw --rwmixread=70 --bsrange=4k-64k --ioengine=libaio \
		--iodepth=8 --direct=1 --randseed="$HOST_WORK_SEED" --time_based --runtime="$third" --output=/dev/null >/dev/null 2>&1
	fio --name=buf --directory="$d" --size=512M --rw=randrw --rwmixread=50 --bs=16k --ioengine=psync \
		--numjobs=2 --randseed="$HOST_WORK_SEED" --time_based --runtime="$third" --output=/dev/null >/dev/null 2>&1
	while work_left; do
		cat "$d"/mix.* "$d"/buf.* >/dev/null 2>&1
		fio --name=seq --directory="$d" --size=256M --rw=write --bs=1M --ioengine=psync --end_fsync=1 \
			--output=/dev/null >/dev/null 2>&1
		sleep 1
	done
	rm -f "$d"/mix.* "$d"/buf.* "$d"/seq.*
}

WORKLOADS="writeback fstrim fsync build unpack backup mixed"

# work NAME DIR SECS [SRC]: one of WORKLOADS.
work() {
	case $1 in
	build) work_build "$2" "${4:-$SRCDIR}" "$3" ;;
	*) "work_$1" "$2" "$3" ;;
	esac
}
