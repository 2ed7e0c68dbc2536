#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian 12 packages smrd needs, and nothing that listens.
#   scripts/install-deps.sh           what building and running smrd needs
#                                     (debian/control's Build-Depends and Depends)
#   scripts/install-deps.sh --tests   that, and what the test suite drives as
#                                     real peers (Prometheus, node_exporter, fio,
#                                     Chromium, msmtp, ...): the README's test
#                                     command runs this before tests/run
#   scripts/install-deps.sh --check [--tests]
#                                     installs nothing: prints the version of
#                                     each package, and fails naming what is
#                                     missing (tests/run starts with this)
# It is the only place packages are installed: the gate and the tests only
# check (a package that changes on the archive's day never changes a run
# half-way through), and say which command installs what is missing. Packages are
# installed with their services held back (policy-rc.d): Prometheus' and
# node_exporter's packages would otherwise start servers on every interface,
# and the tests start their own instances on loopback.
set -eu

BUILD="build-essential meson ninja-build pkg-config python3 cmark
libsystemd-dev libudev-dev libmicrohttpd-dev libaio-dev libjson-c-dev libsqlite3-dev libblkid-dev
libfuse3-dev libyaml-dev libcrypt-dev libgnutls28-dev libdeflate-dev libpcre2-dev
clang llvm libbpf-dev bpftool systemd udev util-linux procps adduser"
TESTS="fuse3 curl fio prometheus bpftrace prometheus-node-exporter smartmontools
valgrind bc debhelper fakeroot dpkg-dev wrk fdisk e2fsprogs openssl apache2-utils
lvm2 btrfs-progs chromium lintian zsh fish debootstrap msmtp python3-aiosmtpd"

check=""
[ "${1:-}" = --check ] && { check=1; shift; }
case "${1:-}" in
"") PKGS=$BUILD ;;
--tests) PKGS="$BUILD $TESTS" ;;
*) echo "usage: scripts/install-deps.sh [--check] [--tests]" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
		|| missing="$missing $p"
done
if [ -n "$check" ]; then
	# the versions a run used, for its log: a new lintian or promtool that
	# turns a run red is then visible as such
	# shellcheck disable=SC2086
	dpkg-query -W -f='${Package}=${Version} ' $PKGS 2>/dev/null | fold -s -w 110 | sed 's/^/  /'
	echo
	[ -z "$missing" ] && exit 0
	echo "install-deps: missing:$missing; install them with: scripts/install-deps.sh${1:+ $1}" >&2
	exit 1
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
# invoke-rc.d asks /usr/sbin/policy-rc.d; 101 is "action forbidden". An
# existing policy (a container's, an admin's) is kept and put back.
policy=/usr/sbin/policy-rc.d
saved=""
if [ -e "$policy" ]; then
	saved=$(mktemp)
	cp -p "$policy" "$saved"
fi
restore() {
	if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
}
trap restore EXIT
trap 'exit 1' INT TERM
printf '#!/bin/sh\nexit 101\n' >"$policy"
chmod 755 "$policy"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
