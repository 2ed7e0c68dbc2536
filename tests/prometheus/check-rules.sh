#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool on the shipped rules: syntax (check rules) and behaviour (test
# rules: every alert fires on SMR-like series, stays silent on CMR-like ones).
set -u
: "${SRCDIR:?run through meson test}"
command -v promtool >/dev/null || "$SRCDIR/scripts/install-deps.sh" >&2
command -v promtool >/dev/null || { echo "FAIL: promtool is missing and could not be installed"; exit 1; }
rc=0
promtool check rules "$SRCDIR/contrib/prometheus/smrd-alerts.yml" "$SRCDIR/contrib/prometheus/smrd-rules.yml" || rc=1
cd "$SRCDIR/tests/prometheus" && promtool test rules smrd-alerts-test.yml || rc=1
exit $rc
