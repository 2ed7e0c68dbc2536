#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs every Debian 12 package that building, running and testing smrd
# needs. It is the only place packages are installed: tests that need a
# package call this script rather than apt-get directly.
set -eu

PKGS="build-essential meson ninja-build pkg-config
libsystemd-dev libudev-dev libmicrohttpd-dev libaio-dev libjson-c-dev
libsqlite3-dev libblkid-dev libfuse3-dev libyaml-dev libcrypt-dev libgnutls28-dev libdeflate-dev libpcre2-dev fuse3 clang llvm libbpf-dev bpftool
udev util-linux curl fio prometheus bpftrace prometheus-node-exporter
systemd python3 valgrind bc debhelper fakeroot dpkg-dev wrk fdisk e2fsprogs openssl apache2-utils
lvm2 btrfs-progs chromium lintian zsh fish debootstrap msmtp python3-aiosmtpd smartmontools cmark"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
		|| missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
