#!/usr/bin/env bash
# TAP test: the HTML report fits a 1280 px window (issue 44, item 6): a
# headless Chromium lays out a local run's report and reports the page's
# scroll width against its window, and any SVG text that runs past its
# chart's right edge (the "★ fastes" label). Before, the "why" column was a
# 14th column and pushed the table out of the window, clipped. A local run
# (loopback agent): no testbed. Skipped without chromium.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$xfercmp
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "1..0 # SKIP no chromium"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfercmp-html-width.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export XFERCMP_SCRATCH=$tmp

plan 3

run timeout 120 "$bin" -q --files 300 -s splice,scp,zstd --probe-seconds 0.5 --html "$tmp/r.html"
ok "$rc" "a local run writes its HTML report (exit $rc)"
[ "$rc" -eq 0 ] || show
# the page's own measure of itself, into its title
cat >"$tmp/measure.js" <<'JS'
var bad = 0;
document.querySelectorAll("svg").forEach(function (s) {
	var w = s.width.baseVal.value;
	s.querySelectorAll("text").forEach(function (t) {
		var b = t.getBBox();
		if (b.x + b.width > w + 0.5)
			bad++;
	});
});
document.title = "W=" + document.documentElement.scrollWidth + " C=" +
	document.documentElement.clientWidth + " BAD=" + bad;
JS
sed 's|</body>|<script src="measure.js"></script></body>|' "$tmp/r.html" >"$tmp/m.html"
title=$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --window-size=1280,900 \
	--dump-dom "file://$tmp/m.html" 2>/dev/null | grep -o '<title>W=[^<]*</title>')
read -r w c bad < <(sed -E 's|<title>W=([0-9]+) C=([0-9]+) BAD=([0-9]+)</title>|\1 \2 \3|' <<<"$title")
[ -n "${w:-}" ] && [ "$w" -le "$c" ]
ok $? "at 1280 px nothing is wider than the window ($title)"
[ "${bad:-x}" = 0 ]
ok $? "every chart label ends inside its chart ($title)"
