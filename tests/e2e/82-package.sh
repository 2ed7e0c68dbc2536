#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: builds, installs, smrd --check-config from the
# installed paths, systemd-analyze verify on the installed units, purges
# clean. It tests the package, not a build's sanitizers: it runs once.
. "$(dirname "$0")/lib.sh"
need dpkg-buildpackage
need systemd-analyze
need promtool
need lintian
FIX=$SRCDIR/tests/fixtures/sysfs/mixed

step ".deb"
if dpkg-query -W -f='${Status}' smrd 2>/dev/null | grep -q 'install ok installed'; then
	fail "an smrd package is already installed on this machine: not touching it"
	finish
fi
had_user=0; getent passwd smrd >/dev/null && had_user=1
mkdir -p "$T/deb/smrd"
(cd "$SRCDIR" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$T/deb/smrd"
t0=$(date +%s)
(cd "$T/deb/smrd" && timeout -k 10 600 dpkg-buildpackage -us -uc -b) >"$T/deb.log" 2>&1
rc=$?
deb=$(ls "$T"/deb/smrd_*.deb 2>/dev/null | head -1)
say "  dpkg-buildpackage exited $rc after $(( $(date +%s) - t0 )) s: ${deb:-no .deb}"
[ "$rc" -eq 0 ] || tail -30 "$T/deb.log"
check "the .deb builds" [ -n "$deb" ]
if [ -n "$deb" ]; then
	# as root lintian warns that it runs as root: that line is not about the package
	lintian -I --pedantic "$deb" 2>&1 | grep -v 'running with root privileges' >"$T/lintian.txt"
	sed 's/^/    lintian: /' "$T/lintian.txt" | head -20
	check "lintian --pedantic -I: nothing (each override in debian/smrd.lintian-overrides says why)" [ ! -s "$T/lintian.txt" ]
fi
if [ -n "$deb" ]; then
	dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -E 'sbin/smrd$|bin/smrctl$|smrd.service$|smrd.socket$|sysusers.d/smrd.conf$|man8/smrd.8|smrd.catalog$|completions/smrctl$|vendor-completions/_smrctl$|vendor_completions.d/smrctl.fish$|etc/smrd/smrd.conf$' | sed 's/^/    /'
	at_exit 'dpkg --purge smrd >/dev/null 2>&1; [ $had_user = 0 ] && { userdel smrd 2>/dev/null; groupdel smrd 2>/dev/null; }' 
	dpkg -i "$deb" >"$T/dpkg-i.log" 2>&1 || { cat "$T/dpkg-i.log"; }
	check "the .deb installs" bash -c "dpkg-query -W -f='\${Status}' smrd | grep -q 'install ok installed'"
	check "postinst created the smrd user" bash -c "getent passwd smrd >/dev/null"
	check "smrd --check-config runs from the installed paths" bash -c "/usr/sbin/smrd --check-config >'$T/check.txt'"
	check "it reads the installed config and model list" bash -c "grep -q 'config file: /etc/smrd/smrd.conf' '$T/check.txt' && /usr/sbin/smrd --oneshot --sysfs-root '$FIX/sys' --procfs-root '$FIX/proc' --udev-root '$FIX/udev' --exclude '^\$' | grep -q 'class=\"dm-smr\"'"
	check "smrctl --help runs" bash -c "/usr/bin/smrctl --help >/dev/null"
	check "man smrd.conf is installed" test -e /usr/share/man/man5/smrd.conf.5.gz
	check "completion for bash, zsh and fish is installed where the shells look" bash -c "test -e /usr/share/bash-completion/completions/smrctl && test -e /usr/share/zsh/vendor-completions/_smrctl && test -e /usr/share/fish/vendor_completions.d/smrctl.fish"
	# every path the docs tell a user to put in a config file exists, uncompressed
	grep -ohE '/usr/share/(smrd|doc/smrd)/[A-Za-z0-9_./-]+\.(yml|json|md)' "$SRCDIR/contrib/prometheus/README.md" \
		"$SRCDIR/contrib/grafana/README.md" "$SRCDIR/docs/alerts.md" "$SRCDIR/README.md" \
		"$SRCDIR/contrib/prometheus/smrd-alerts.yml" | sort -u >"$T/doc-paths"
	say "  paths the docs give: $(tr '\n' ' ' <"$T/doc-paths")"
	missing=$(while read -r p; do [ -f "$p" ] || echo "$p"; done <"$T/doc-paths")
	check "every one is installed as it is named (not .gz)" bash -c "[ -s '$T/doc-paths' ] && [ -z '$missing' ]"
	[ -n "$missing" ] && say "    missing: $missing"
	check "the installed rules pass promtool" promtool check rules /usr/share/smrd/prometheus/smrd-alerts.yml \
		/usr/share/smrd/prometheus/smrd-rules.yml
	check "the three dashboards are installed as JSON" bash -c "for d in overview disk fleet; do python3 -m json.tool /usr/share/smrd/grafana/smrd-\$d.json >/dev/null || exit 1; done"
	check "each runbook_url names a section of the installed alerts.md" python3 - <<'PY'
import re, sys
alerts = open("/usr/share/smrd/prometheus/smrd-alerts.yml").read()
doc = open("/usr/share/doc/smrd/alerts.md").read()
anchors = {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", doc, re.M)}
urls = re.findall(r'runbook_url: "file:///usr/share/doc/smrd/alerts.md#([^"]+)"', alerts)
sys.exit(not urls or any(u not in anchors for u in urls))
PY
	systemd-analyze verify --man=no /lib/systemd/system/smrd.service /lib/systemd/system/smrd.socket \
		/lib/systemd/system/smrd-metrics.socket >"$T/verify.txt" 2>&1
	vrc=$?
	sed 's/^/    verify: /' "$T/verify.txt" | head -10
	check "systemd-analyze verify accepts the installed units" [ "$vrc" -eq 0 ]
	dpkg --purge smrd >"$T/purge.log" 2>&1
	check "it purges clean" bash -c "! dpkg-query -W -f='\${Status}' smrd 2>/dev/null | grep -q installed && [ ! -e /usr/sbin/smrd ] && [ ! -e /etc/smrd/smrd.conf ] && [ ! -e /lib/systemd/system/smrd.service ]"
fi
finish
