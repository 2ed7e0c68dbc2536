#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A minimal Debian 12 root for 82-package to boot systemd in, made once by
# debootstrap and kept as a tarball in /var/cache/smrd-tests with the list of
# what it holds. A debootstrap takes minutes, more than the test's deadline:
# tests/run calls this after the plain build (package-root.sh BUILDDIR), so a
# fresh machine has the root before 82 runs; 82 calls it with the .deb's
# Depends and takes any cached root that holds them all.
#   package-root.sh BUILDDIR | --deps PKG,PKG,...  [--timeout SECS]
# Prints the tarball's path; exits 1 when there is none.
set -u
deps="" secs=900
case ${1:-} in
--deps) deps=$2; shift 2 ;;
"") echo "usage: $0 BUILDDIR | --deps PKG,..." >&2; exit 2 ;;
*)
	# what the package will depend on: the libraries the built binaries
	# link (as dpkg-shlibdeps names them) and debian/control's own list
	src=$(cd "$(dirname "$0")/../.." && pwd)
	bdir=$(cd "$1" && pwd) || exit 1
	w=$(mktemp -d) && mkdir -p "$w/debian" && cp "$src/debian/control" "$w/debian/" || exit 1
	shl=$(cd "$w" && dpkg-shlibdeps -O "$bdir/smrd" "$bdir/smrctl" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
	rm -rf "$w"
	[ -n "$shl" ] || { echo "package-root: dpkg-shlibdeps found nothing in $1" >&2; exit 1; }
	ctl=$(sed -n '/^Package: smrd/,/^$/s/^Depends: *//p' "$src/debian/control" | tr ',' '\n' | grep -v '\${')
	deps=$(printf '%s\n' "$shl" | tr ',' '\n' | cat - <(printf '%s\n' "$ctl") | paste -sd,)
	shift
	;;
esac
[ "${1:-}" = --timeout ] && secs=$2
# names only: versions and alternatives go
deps=$(printf '%s\n' "$deps" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$' | sort -u | paste -sd,)
include=$(printf '%s\n' systemd systemd-sysv dbus curl util-linux ${deps//,/ } | sort -u | paste -sd,)
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
CACHE=/var/cache/smrd-tests
mkdir -p "$CACHE" || exit 1
# a cached root from this mirror that holds every package asked for will do
for list in "$CACHE"/bookworm-*.list; do
	[ -s "$list" ] && [ -s "${list%.list}.tar" ] || continue
	[ "$(head -1 "$list")" = "mirror $mirror" ] || continue
	missing=$(comm -23 <(tr ',' '\n' <<<"$include" | sort -u) <(tail -n +2 "$list" | sort -u))
	[ -z "$missing" ] && { echo "${list%.list}.tar"; exit 0; }
done
root_tar=$CACHE/bookworm-$(echo "$include $mirror" | sha256sum | cut -c1-12).tar
work=$(mktemp -d /var/tmp/smrd-root.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
timeout -k 10 "$secs" debootstrap --variant=minbase --include="$include" bookworm "$work/root" "$mirror" \
	>"$work/debootstrap.log" 2>&1
rc=$?
echo "package-root: debootstrap --include=$include from $mirror exited $rc after $(( $(date +%s) - t0 )) s" >&2
if [ "$rc" -ne 0 ]; then
	tail -20 "$work/debootstrap.log" >&2
	exit 1
fi
tar -C "$work/root" -cf "$root_tar.tmp" . && mv "$root_tar.tmp" "$root_tar" || exit 1
{ echo "mirror $mirror"; tr ',' '\n' <<<"$include"; } >"${root_tar%.tar}.list"
echo "$root_tar"
