#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The status pages in a real browser (Debian's chromium, headless), and the
# endpoint's conventions:
#   A fixture tree whose disk has <script> and an onerror image in its model
#   and serial: the pages show them as text, the browser runs nothing, the
#   JSON API gives them back byte for byte.
#   /metrics: gzip when asked, keep-alive, HEAD, OpenMetrics negotiation as
#   the Prometheus client libraries do, numbers with the precision they
#   carry; the landing page lists the version and the endpoints; /api/v1
#   answers what smrctl --json answers; sizes printed against their budget.
#   The fixture's sda takes a resilver (a zpool stand-in printing a recorded
#   status): at 1400 px the list of three disks does not scroll sideways and
#   the rebuild is on screen.
#   An emulated DM-SMR disk in a destage storm, the writes a resilver's
#   onto it (zpool-replay.py): the list shows it storming (problems first),
#   its page says so and the write heatmap has the cliff (the oldest column
#   fast, later ones with writes of 100 ms and more), the timeline marks the
#   storm; at 400 and 1400 px what to do (the advice notifications carry:
#   about the resilver under way) and the rebuild's line are on screen on
#   both pages (laid out in view, not only in the HTML), no notification's
#   date wraps.
#   Screenshots are kept in $BUILDDIR/screenshots for a person to look at,
#   the storm and rebuild at 400 and 1400 px (the dark one in the soak).
# Chromium runs where the browser is what is judged: that no script runs,
# the runbook anchors, the phone layout, the screenshots. The storm's pages
# run no script, so curl and dom.py read them as served.
[ -n "${SMRD_TEST_NS:-}" ] || SMRD_TEST_NS=1 exec unshare -m --propagation private "$0" "$@"
. "$(dirname "$0")/lib.sh"
need chromium
need curl
need promtool
use_emu

SHOTS=${BUILDDIR:-$T}/screenshots
mkdir -p "$SHOTS"
export HOME=$T/home
mkdir -p "$HOME"
dom() { python3 "$SRCDIR/tests/e2e/dom.py" "$@"; }
SOAK=${SMRD_SOAK:-0}
# browse OUT URL: the DOM after Chromium loaded the page (scripts, if any, run)
browse() {
	timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
		--virtual-time-budget=2000 --dump-dom "$2" >"$1" 2>>"$T/chromium.log"
}
# shot FILE URL [light|dark] [WIDTH]: a screenshot WIDTH px wide (1500;
# at 400 Chromium lays the page out 400 px wide, as a phone would)
shot() {
	local scheme=()
	[ "${3:-light}" = dark ] && scheme=(--force-dark-mode --blink-settings=preferredColorScheme=0)
	timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
		--hide-scrollbars --window-size="${4:-1500}",1100 "${scheme[@]}" --screenshot="$1" "$2" >>"$T/chromium.log" 2>&1
	[ -s "$1" ] && say "  screenshot: $1"
}

# narrow NAME URL [WIDTH]: the page as served, laid out 400 px wide (a
# phone; or WIDTH) in Chromium, from a copy with a script added (the page
# itself runs none). Headless Chromium's window is 500 px at the least: the
# page's phone rules (max-width 640 px) apply there, and the script narrows
# the document to 400 px. Prints the width, the rightmost edge of any
# element (and which; a table scrolling in its .wide box counts by the
# box), the right edges of the first storm cell and heatmap (-1: none), of
# the list's first write-latency and throughput cells, how many words
# are broken inside (a text node on two lines with no space there), and
# then: whether the advice (#todo) and the rebuild line (the disk page's
# #rebuild, the list's state cell's) are on screen (1: laid out within the
# first 900 px and the width, and within every box that clips them; 0:
# not; -1: none), how many dates (<time>) wrap, and how far the list's table
# overflows its box sideways (0: it fits; -1: no list).
narrow() {
	local w=${3:-400}
	curl -sf "$2" >"$T/$1.narrow.html" || return 1
	cat >>"$T/$1.narrow.html" <<'JS'
<script>
addEventListener("load", () => {
  const de = document.documentElement, right = e => e ? Math.round(e.getBoundingClientRect().right) : -1;
  const W = WIDTH;
  de.style.width = W + "px";
  let widest = null, edge = 0, broken = 0;
  for (const e of document.querySelectorAll("body *"))
    if (!e.closest(".wide > *") && right(e) > edge) { edge = right(e); widest = e; }
  // a word or number split across lines: a text node's line boxes meeting
  // where there is no space
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    const s = n.textContent, r = document.createRange();
    let top = null;
    for (let i = 0; i < s.length; i++) {
      r.setStart(n, i); r.setEnd(n, i + 1);
      const b = r.getClientRects()[0];
      if (!b || b.width === 0) continue;
      if (top !== null && b.top > top + 2 && i && /[\w.,%µ]/.test(s[i - 1]) && /[\w.,%µ]/.test(s[i])) broken++;
      top = b.top;
    }
  }
  const wcell = document.querySelector("#disks td.write"), tput = wcell ? wcell.parentElement.lastElementChild : null;
  const onscreen = sel => {
    const e = document.querySelector(sel);
    if (!e) return -1;
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0) || r.left < 0 || r.right > W + 1 || r.top < 0 || r.bottom > innerHeight) return 0;
    for (let a = e.parentElement; a; a = a.parentElement) {
      const b = a.getBoundingClientRect();
      if (getComputedStyle(a).overflowX !== "visible" && (r.left < b.left - 1 || r.right > b.right + 1)) return 0;
    }
    return 1;
  };
  const times = [...document.querySelectorAll("time")].filter(t => t.getClientRects().length > 1).length;
  const box = document.querySelector("#disks") ? document.querySelector("#disks").closest(".wide") : null;
  document.title = ["width", W, "right", edge, "storm", right(document.querySelector("td.storm")),
                    "heatmap", right(document.querySelector("svg.heatmap")), "write", right(wcell), "tput", right(tput),
                    "broken", broken, "widest", widest ? widest.tagName + (widest.id ? "#" + widest.id : "") : "-",
                    "todo", onscreen("#todo"), "rebuild", onscreen("#rebuild, #disks .rebuild"), "times", times,
                    "sideways", box ? box.scrollWidth - box.clientWidth : -1].join(" ");
});
</script>
JS
	sed -i "s/WIDTH;/$w;/" "$T/$1.narrow.html"
	timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
		--hide-scrollbars --window-size=$((w < 500 ? 500 : w)),900 --virtual-time-budget=2000 --dump-dom "file://$T/$1.narrow.html" \
		2>>"$T/chromium.log" | python3 "$SRCDIR/tests/e2e/dom.py" title /dev/stdin
}
# field NAME "MEASURES": the figure after NAME in what narrow printed
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"; }

step "a disk whose model and serial are markup"
# a model is at most 40 characters on ATA: this one fits, and would run if it were markup
HOSTILE='<img src=x onerror=document.title=1><script>x</script>'
cp -a "$SRCDIR/tests/fixtures/sysfs/mixed" "$T/hostile"
printf '%s\n' "$HOSTILE" >"$T/hostile/sys/block/sda/device/model"
python3 - "$T/hostile/udev/data/b8:0" "$HOSTILE" <<'PY'
import sys
path, model = sys.argv[1:]
lines = open(path).read().splitlines()
out = ["E:ID_MODEL=" + model if l.startswith("E:ID_MODEL=") else
       "E:ID_SERIAL_SHORT=\"'><b>bold</b>" if l.startswith("E:ID_SERIAL_SHORT=") else l for l in lines]
open(path, "w").write("\n".join(out) + "\n")
PY
# and sda takes a resilver of pool dpool (ZFS cannot run here): its udev
# record labels it a member by its vdev GUID, and zpool is a stand-in that
# prints the recorded status of a resilver onto that vdev
# (tests/fixtures/zpool/json-resilver.json), begun an hour and a half ago
printf 'E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=dpool\nE:ID_FS_UUID=10863469153346124447\nE:ID_FS_UUID_SUB=6982750226085199860\n' \
	>>"$T/hostile/udev/data/b8:0"
mkdir -p "$T/bin"
printf '#!/bin/sh\n[ "$*" = "status -jp --json-int" ] || exit 2\nsed s/1592830709/%s/g %s\n' "$(($(date +%s) - 5400))" \
	"'$SRCDIR/tests/fixtures/zpool/json-resilver.json'" >"$T/bin/zpool"
chmod +x "$T/bin/zpool"
start_smrd --sysfs-root "$T/hostile/sys" --procfs-root "$T/hostile/proc" --udev-root "$T/hostile/udev" \
	--exclude '^$' --interval 0.5 --zpool-command "$T/bin/zpool" --rebuild-interval 1
URL=http://127.0.0.1:$PORT
two_samples() { scrape | grep -q '^smrd_diskstats_samples_total [2-9]'; }
wait_until 10 "two samples" two_samples
wait_until 10 "the resilver onto sda followed" bash -c "curl -sf '$URL/metrics' | grep -q '^smrd_rebuild_info{device=\"sda\"'"
browse "$T/list.dom" "$URL/"
browse "$T/sda.dom" "$URL/disk/sda"
check "the browser loaded the list" [ -s "$T/list.dom" ]
check "no script ran on the list: the title is smrd's" bash -c "[[ \"\$(python3 '$SRCDIR/tests/e2e/dom.py' title '$T/list.dom')\" == smrd:* ]]"
check "no script ran on the disk page" bash -c "[[ \"\$(python3 '$SRCDIR/tests/e2e/dom.py' title '$T/sda.dom')\" == 'smrd: sda' ]]"
for f in list sda; do
	check "$f: the DOM has no <script> and no <img> element" \
		[ "$(dom count "$T/$f.dom" script)$(dom count "$T/$f.dom" img)" = 00 ]
	check "$f: nor a <b> from the serial" [ "$(dom count "$T/$f.dom" b | tr -d '\n')" -le 1 ]
done
model=$(dom rows "$T/list.dom" | awk -F'\t' '$1 == "sda" { print $4 }')
say "  the list shows the model as: $model"
check "the model is shown as the text it is" [ "$model" = "$HOSTILE" ]
check "the disk page shows it as text too" grep -qF '&lt;img src=x onerror=document.title=1&gt;&lt;script&gt;x&lt;/script&gt;' "$T/sda.dom"
curl -sf "$URL/api/v1/disks/sda" >"$T/api-sda.json"
check "/api/v1 gives the model and serial back byte for byte" \
	python3 -c "import json,sys; d = json.load(open('$T/api-sda.json')); sys.exit(d['model'] != sys.argv[1] or d['serial'] != sys.argv[2])" "$HOSTILE" "\"'><b>bold</b>"
shot "$SHOTS/status-hostile.png" "$URL/"
# a phone and a desktop: no word or number split mid-token, tables scroll
# in their box, and at 1400 px the list's latency and throughput show
# (within the table's box, not scrolled out of it)
m=$(narrow disk400 "$URL/disk/sda" 400)
say "  at 400 px, the disk page: $m"
read -r _ w _ edge _ _ _ _ _ _ _ _ _ broken _ <<<"$m"
check "at 400 px the disk page fits the screen and breaks no word or number" \
	bash -c "[ -n '$w' ] && [ '$edge' -le '$w' ] && [ '$broken' = 0 ]"
m=$(narrow list1400 "$URL/" 1400)
say "  at 1400 px, the list: $m"
read -r _ w _ edge _ _ _ _ _ write _ tput _ broken _ <<<"$m"
check "at 1400 px the list's write latency and throughput are on screen, no word broken" \
	bash -c "[ -n '$w' ] && [ '$write' -gt 0 ] && [ '$tput' -le '$edge' ] && [ '$edge' -le '$w' ] && [ '$broken' = 0 ]"
check "at 1400 px, three disks, one taking a resilver: the list does not scroll sideways, the rebuild is on screen" \
	[ "$(field sideways "$m") $(field rebuild "$m")" = "0 1" ]

step "the endpoint's conventions"
curl -sf -D "$T/h-gz" -H 'Accept-Encoding: gzip' -o "$T/m.gz" "$URL/metrics"
check "gzip when the client takes it" grep -qi '^Content-Encoding: gzip' "$T/h-gz"
check "and it is a gzip of the page" bash -c "gzip -dc '$T/m.gz' | promtool check metrics"
curl -sf -D "$T/h-plain" -o "$T/m.txt" "$URL/metrics"
check "no gzip when not asked" bash -c "! grep -qi '^Content-Encoding' '$T/h-plain'"
check "text format 0.0.4 by default" grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$T/h-plain"
say "  page: $(wc -c <"$T/m.txt") bytes, gzip $(wc -c <"$T/m.gz") bytes"
PROM_ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
curl -sf -D "$T/h-om" -H "Accept: $PROM_ACCEPT" -o "$T/m.om" "$URL/metrics"
check "OpenMetrics for Prometheus's Accept header" grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$T/h-om"
check "an OpenMetrics page ends with # EOF" [ "$(tail -1 "$T/m.om")" = "# EOF" ]
check "OpenMetrics names counter families without _total" \
	bash -c "grep -q '^# TYPE smrd_disk_reads_completed counter' '$T/m.om' && grep -q '^smrd_disk_reads_completed_total{' '$T/m.om'"
curl -sf -D "$T/h-q" -H 'Accept: application/openmetrics-text;q=0.2, text/plain;q=0.9' -o /dev/null "$URL/metrics"
check "the higher q wins" grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/h-q"
curl -sf -I "$URL/metrics" >"$T/h-head"
check "HEAD: 200, the headers and no body" bash -c "head -1 '$T/h-head' | grep -q ' 200' && grep -qi '^Content-Length: [1-9]' '$T/h-head'"
curl -sv -o /dev/null -o /dev/null "$URL/metrics" "$URL/" 2>"$T/keepalive"
check "keep-alive: the second request reuses the connection" grep -q 'Re-using existing connection' "$T/keepalive"
check "no number with more than nine decimals on the page (0.09999999999999998)" \
	bash -c "! grep -v '^#' '$T/m.txt' | grep -E ' -?[0-9]+\.[0-9]{10,}(e[-+][0-9]+)?\$'"
check "confidences as they are meant: 0.1, not 0.10000000000000001" \
	grep -qx 'smrd_disk_smr_confidence{device="sdb"} 0.1' "$T/m.txt"
curl -sf "$URL/api/v1/disks" >"$T/api-disks.json"
check "no \\/ and no 0.80000000000000004 in the JSON" \
	bash -c "! grep -qF '\\/' '$T/api-disks.json' && ! grep -qE '[0-9]\.[0-9]{10,}' '$T/api-disks.json'"
curl -sf "$URL/" >"$T/list.html"
check "the landing page lists the version and the endpoints" \
	bash -c "grep -q 'smrd $("$SMRD" --version | awk '{ print $2 }')' '$T/list.html' && grep -q 'href=\"/metrics\"' '$T/list.html' && grep -q '/api/v1/status' '$T/list.html' && grep -q '/api/v1/events' '$T/list.html'"
ctl --json status >"$T/ctl-status.json"
curl -sf "$URL/api/v1/status" >"$T/api-status.json"
check "/api/v1/status has what smrctl --json status has" python3 - "$T/ctl-status.json" "$T/api-status.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(not (a.keys() == b.keys() and a["disks_watched"] == b["disks_watched"] and a["version"] == b["version"]))
PY
ctl --json show sdb >"$T/ctl-sdb.json"
curl -sf "$URL/api/v1/disks/sdb" >"$T/api-sdb.json"
check "/api/v1/disks/NAME is smrctl --json show NAME" python3 - "$T/ctl-sdb.json" "$T/api-sdb.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(not (a.keys() == b.keys() and a["verdict"] == b["verdict"] and a["serial"] == b["serial"]))
PY
code=$(curl -s -o "$T/api-404.json" -w '%{http_code}' "$URL/api/v1/disks/nosuch")
check "an unknown disk: 404 and the protocol's error code" \
	bash -c "[ $code = 404 ] && grep -q '\"code\":\"no-such-device\"' '$T/api-404.json'"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/api/v1/events?since=yesterday")
check "a bad argument: 400" [ "$code" = 400 ]
code=$(curl -s -o "$T/nosuch.html" -w '%{http_code}' "$URL/disk/%3Cb%3Enosuch")
check "an unknown disk page: 404, its name escaped" bash -c "[ $code = 404 ] && grep -qF '&lt;b&gt;nosuch' '$T/nosuch.html'"
curl -sf "$URL/?sort=device&dir=desc" >"$T/sorted.html"
check "sortable: by device, descending" bash -c "[ \"\$(python3 '$SRCDIR/tests/e2e/dom.py' rows '$T/sorted.html' | cut -f1 | tr '\n' ' ')\" = 'sdb sda nvme0n1 ' ]"
list_bytes=$(wc -c <"$T/list.html")
disk_bytes=$(curl -sf "$URL/disk/sda" | wc -c)
say "  size: the list of 3 disks $list_bytes bytes (budget 16384), a disk page $disk_bytes bytes (budget 65536)"
check "the pages keep to their size budget" bash -c "[ $list_bytes -le 16384 ] && [ $disk_bytes -le 65536 ]"

step "every alert's runbook_url opens on smrd itself"
# the rules link to http://INSTANCE/docs/alerts#NAME: with this smrd as the
# instance, each must answer and land on its alert's section, in a browser
python3 - "$SRCDIR/contrib/prometheus/smrd-alerts.yml" "127.0.0.1:$PORT" >"$T/runbooks" <<'PY'
import re, sys
rules = open(sys.argv[1]).read()
for alert, url in re.findall(r"- alert: (\S+)(?:.|\n)*?runbook_url: \"([^\"]+)\"", rules):
    print(alert, url.replace("{{ $labels.instance }}", sys.argv[2]))
PY
# the links differ only in their anchor: one page for the browser to load
cut -d' ' -f2 "$T/runbooks" | sed 's/#.*//' | sort -u >"$T/runbook-pages"
check "the runbook links all open one document" [ "$(wc -l <"$T/runbook-pages")" -eq 1 ]
browse "$T/runbook.dom" "$(head -1 "$T/runbooks" | cut -d' ' -f2)"
n=0 bad=0
while read -r alert url; do
	n=$((n + 1))
	page=$T/runbook-$n.html
	code=$(curl -s -o "$page" -w '%{http_code}' "${url%%#*}")
	if [ "$code" != 200 ] || ! grep -q "id=\"${url##*#}\"" "$T/runbook.dom" ||
		! grep -q "id=\"${url##*#}\">$alert " "$page"; then
		say "    $alert: $url answered $code, or without its section"
		bad=$((bad + 1))
	fi
done <"$T/runbooks"
say "  $n runbook links, $bad broken"
alerts=$(grep -c '^ *- alert:' "$SRCDIR/contrib/prometheus/smrd-alerts.yml")
check "each of the alerts' runbook links opens its section ($alerts alerts)" bash -c "[ $n -eq $alerts ] && [ $alerts -ge 9 ] && [ $bad -eq 0 ]"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/docs/nosuch")
check "an unknown document: 404" [ "$code" = 404 ]
stop_smrd

step "an emulated DM-SMR disk in a destage storm, taking a resilver"
emu_up SMR smr dm-smr --seed 21 || exit 1
S=${SMR#/dev/}
# the writes are a resilver's onto it: a member of pool dpool by its udev
# label, and zpool a stand-in (zpool-replay.py, as in 79-zfs-rebuild) that
# replays a recorded resilver's status scaled to the bytes written onto the
# disk since the writes began, 512 MiB to write in all
mkdir -p "$T/udev/data" "$T/zr"
printf 'E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=dpool\nE:ID_FS_UUID=%d\nE:ID_FS_UUID_SUB=%d\n' 0x16C2C1B5E3B5E39F \
	0x06F2E3F1A1B2C3D4 >"$T/udev/data/b$(cat "/sys/block/$S/dev")"
printf '#!/bin/sh\nZR_FIXTURES=%s ZR_DEV=%s ZR_PATH=/dev/disk/by-id/ata-EMU_SMR ZR_GUID=0x06F2E3F1A1B2C3D4 ZR_TOTAL=%d ZR_STATE=%s exec python3 %s "$@"\n' \
	"'$SRCDIR/tests/fixtures/zpool'" "$S" $((512 << 20)) "'$T/zr'" "'$SRCDIR/tests/e2e/zpool-replay.py'" >"$T/bin/zpool-replay"
chmod +x "$T/bin/zpool-replay"
# what smrd notified is listed with its dates: a phone must not wrap them
start_smrd --interval 1 --include "^$S\$" --exclude '^$' --udev-root "$T/udev" --zpool-command "$T/bin/zpool-replay" \
	--rebuild-interval 1 --notify-command /bin/true --notify-coalesce 0
URL=http://127.0.0.1:$PORT
# a quiet second or two before the writes: the heatmap's oldest column is fast
wait_until 10 "two samples" two_samples
START_MS=$(now_ms)
# the writes outlast the wait for a column after the cliff and the browser's
# looks at the storm (the soak: the full 30 s)
[ "$SOAK" = 1 ] && RT=30 || RT=24
echo "$((START_MS / 1000)) $(awk -v d="$S" '$3 == d { print $10 }' /proc/diskstats)" >"$T/zr/start"
emu_bg run_fio storm "$SMR" --rw=randwrite --bs=4k --iodepth=4 --runtime=$RT --randseed=21
storming() { ctl --json disks | python3 -c 'import json,sys; sys.exit(not json.load(sys.stdin)["disks"][0]["storm"])'; }
if wait_until 40 "smrd to report the destage storm on $S" storming; then
	say "  storm reported $(( ($(now_ms) - START_MS) / 1000 )) s after the writes began"
	# a slot boundary after the cliff, so that a later column has the
	# storm's writes: the pages as served once the heatmap shows the cliff
	cliff_shown() {
		curl -sf "$URL/" >"$T/storm-list.html" && curl -sf "$URL/disk/$S" >"$T/storm-disk.html" &&
			dom heat "$T/storm-disk.html" write >"$T/heat" &&
			awk -F'\t' 'NR == 1 { fast = $3 < 0.01 } NR > 1 && $4 >= 0.1 { slow = 1 } END { exit !(fast && slow) }' "$T/heat"
	}
	wait_until 30 "the write heatmap to show the cliff in a column of its own" cliff_shown
	say "  pages taken $(( ($(now_ms) - START_MS) / 1000 )) s after the writes began"
	# a phone: nothing wider than the screen, the storm and "now" in view;
	# on a phone and a desktop, the rebuild's line on screen, no date wrapped
	for page in list disk; do
		[ $page = list ] && u=$URL/ || u=$URL/disk/$S
		m=$(narrow "$page" "$u" 1400)
		say "  at 1400 px, $page page: $m"
		check "at 1400 px the $page page has what to do and the rebuild on screen" \
			[ "$(field todo "$m") $(field rebuild "$m")" = "1 1" ]
		[ $page = disk ] || check "at 1400 px the list does not scroll sideways" [ "$(field sideways "$m")" = 0 ]
		m=$(narrow "$page" "$u")
		say "  at 400 px, $page page: $m"
		read -r _ w _ edge _ storm _ heat _ _ _ _ _ broken _ <<<"$m"
		check "at 400 px the $page page splits no word or number" [ "$broken" = 0 ]
		check "at 400 px the $page page has what to do and the rebuild on screen, and no date on two lines" \
			[ "$(field todo "$m") $(field rebuild "$m") $(field times "$m")" = "1 1 0" ]
		if [ $page = list ]; then
			check "at 400 px nothing on the list is wider than the screen, and the storm column shows" \
				bash -c "[ -n '$w' ] && [ '$edge' -le '$w' ] && [ '$storm' -gt 0 ] && [ '$storm' -le '$w' ]"
		else
			check "at 400 px nothing on the disk page is wider, and its heatmap ends on screen (now, where the storm is)" \
				bash -c "[ -n '$w' ] && [ '$edge' -le '$w' ] && [ '$heat' -gt 0 ] && [ '$heat' -le '$w' ]"
		fi
	done
	# for a person to look at: the storm and the rebuild on a desktop and a phone
	for w in 1400 400; do
		shot "$SHOTS/status-rebuild-storm-$w.png" "$URL/" light $w
		shot "$SHOTS/disk-rebuild-storm-$w.png" "$URL/disk/$S" light $w
	done
	[ "$SOAK" = 1 ] && shot "$SHOTS/disk-storm-dark.png" "$URL/disk/$S" dark
	row=$(dom rows "$T/storm-list.html" | head -1)
	say "  first row: $row"
	# the storm cell: "storm", then the rate and latency of its slow seconds
	check "the list shows $S storming, first" bash -c "[[ \"\$(echo '$row' | cut -f1-3)\" == '$S	1	storm'* ]]"
	check "the summary counts it" grep -q '1 in a destage storm' "$T/storm-list.html"
	check "... and the rebuild" grep -q '1 rebuild running' "$T/storm-list.html"
	# the advice is the one notifications carry (core/advice.c): about the rebuild under way, with its runbook
	todo=$(grep -o "<li class=\"bad\" data-todo=\"$S\">.*</li>" "$T/storm-list.html")
	say "  what to do, on the list: $(sed 's/<[^>]*>//g' <<<"$todo" | cut -c1-160)..."
	check "what to do about $S names the resilver under way and links its runbook" \
		bash -c '[[ "$1" == *"resilver of dpool onto '"$S"' is under way"* && "$1" == *"/docs/alerts#smrrebuildslow"* ]]' _ "$todo"
	check "... on its page too, under its name" grep -q "<p id=\"todo\" class=\"bad\"><strong>What to do now:</strong> The resilver of dpool onto $S" "$T/storm-disk.html"
	check "the notifications are listed, dated" grep -Pzq '(?s)id="notifications".*<time>' "$T/storm-list.html"
	# the cache meter, where the cache is known: red in the storm, on both pages
	lm=$(grep -o '<meter [^>]*>' "$T/storm-list.html" | head -1)
	dm=$(grep -o '<meter [^>]*>' "$T/storm-disk.html" | head -1)
	say "  cache meter: list ${lm:-none}, disk page ${dm:-none}"
	check "the cache meter is red in the storm, on the list as on the disk page" \
		bash -c '[ -z "$1$2" ] || [[ "$1" == "<meter class=\"bad\""* && "$2" == "<meter class=\"bad\""* ]]' _ "$lm" "$dm"
	list_why=$(dom why "$T/storm-list.html" | awk -F'\t' -v d="$S" '$1 == d { print $2 }')
	page_why=$(dom why "$T/storm-disk.html" | awk -F'\t' '$1 == "page" { print $2 }')
	say "  why, in the list: $list_why; on its page: $page_why"
	check "the list and the disk page give one reason for the class" bash -c "[ -n '$list_why' ] && [ '$list_why' = '$page_why' ]"
	state=$(dom state "$T/storm-disk.html")
	say "  disk page: $state"
	check "its page says a storm is under way" bash -c "[[ '$state' == 1*'Destage storm under way'* ]]"
	say "  write heatmap, per column: age s, I/Os, median and max latency (s):"
	sed 's/^/    /' "$T/heat"
	check "the heatmap has the cliff: the oldest column fast (median < 10 ms), a later one with writes >= 100 ms" \
		awk -F'\t' 'NR == 1 { fast = $3 < 0.01 } NR > 1 && $4 >= 0.1 { slow = 1 } END { exit !(fast && slow) }' "$T/heat"
	dom rate "$T/storm-disk.html" >"$T/rate"
	say "  writes/s per column (age s, rate): $(tr '\t\n' ': ' <"$T/rate")"
	check "the writes/s plot has the cliff: a column 10x or more below the fastest one before it" python3 - "$T/rate" <<'PY'
import sys
rates = [float(l.split()[1]) for l in open(sys.argv[1]) if l.strip()]
sys.exit(not any(r * 10 <= max(rates[:i]) for i, r in enumerate(rates) if i and r > 0))
PY
	dom marks "$T/storm-disk.html" >"$T/marks"
	check "the timeline marks the storm" grep -q '^mark storm' "$T/marks"
	check "the percentile table is there" grep -q 'id="percentiles"' "$T/storm-disk.html"
	dom events "$T/storm-disk.html" storms >"$T/storms"
	dom events "$T/storm-disk.html" >"$T/events"
	sed 's/^/    storm: /' "$T/storms" | head -3
	sed 's/^/    event: /' "$T/events" | head -3
	check "the disk page lists its storm from the history, dated" grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}	storm-start$' "$T/storms"
	check "... and its last events" grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}	' "$T/events"
fi
wait_bg 120 "the fio run"
stop_smrd
finish
