#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures (once) and builds smrd in DIR (default: build). Extra arguments
# go to `meson setup`, e.g. -Db_sanitize=address,undefined.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir"
