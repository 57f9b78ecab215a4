#!/usr/bin/env bash
# The --html page renders in a real browser (Debian's headless Chromium) with
# its chart and tables, with no network, and the JSON and table agree with it.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$(mktemp -d /var/tmp/xfercmp-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XFERCMP_SCRATCH="$work"

check "comparison with --html and --json" "$xfercmp" -w smallfiles --files 1500 -s splice,zstd \
	--probe-seconds 0.5 --html "$work/r.html" --json "$work/r.json"
html=$(cat "$work/r.html" 2>/dev/null)
check_grep "page has an SVG chart" "<svg" "$html"
check_grep "chart has a bar per strategy" "<title>(network|disk|metadata|cpu|other) [0-9]+%</title>" "$html"
check_grep "page names both strategies" "<td>splice</td>.*|<td>zstd</td>" "$html"
check_grep "page shows the ceilings" "<h2>Ceilings</h2>" "$html"
! grep -qE "(src|href)=\"(https?:)?//" "$work/r.html"
ok $? "page loads nothing from the network"

chromium_run() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile" "$@" 2>/dev/null
}
chromium_run --window-size=1100,800 --screenshot="$work/r.png" "file://$work/r.html"
[ -s "$work/r.png" ] && [ "$(stat -c %s "$work/r.png")" -gt 20000 ]
ok $? "Chromium renders a screenshot ($(stat -c %s "$work/r.png" 2>/dev/null || echo 0) bytes)"
dom=$(chromium_run --dump-dom "file://$work/r.html")
check_grep "the rendered DOM holds the chart rectangles" "<rect" "$dom"
verdict=$(json_get "$work/r.json" "d['results'][0]['verdict']")
check_grep "the page shows the JSON's verdict ($verdict)" "$verdict" "$dom"

# colour only on a terminal, never with NO_COLOR
out=$("$xfercmp" -w smallfiles --files 200 -s splice --no-probes 2>/dev/null)
! grep -q $'\033\[' <<<"$out"
ok $? "no colour escapes when stdout is not a terminal"
# on a terminal: colour, unless NO_COLOR is set and not empty (no-color.org)
on_tty() { script -qec "$*" /dev/null 2>/dev/null | grep -c $'\033\['; }
tty_cmd="$xfercmp -w smallfiles --files 50 -s splice --no-probes"
[ "$(on_tty env -u NO_COLOR "$tty_cmd")" -gt 0 ]
ok $? "colour on a terminal"
[ "$(on_tty env NO_COLOR= "$tty_cmd")" -gt 0 ]
ok $? "colour on a terminal with an empty NO_COLOR (only a non-empty one turns it off)"
[ "$(on_tty env NO_COLOR=1 "$tty_cmd")" -eq 0 ]
ok $? "no colour on a terminal with NO_COLOR=1"
finish
