#!/usr/bin/env bash
# The --html page renders in a real browser (Debian's headless Chromium) with
# its chart and tables, with no network, and the JSON and table agree with it.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$(mktemp -d /var/tmp/xfercmp-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XFERCMP_SCRATCH="$work"

check "comparison with --html and --json" "$xfercmp" -w smallfiles --files 1500 -s splice,zstd \
	--repeat 2 --probe-seconds 0.5 --html "$work/r.html" --json "$work/r.json"
html=$(cat "$work/r.html" 2>/dev/null)
check_grep "page has an SVG chart" "<svg" "$html"
check_grep "chart has a bar per strategy" "<title>(network|disk|metadata|cpu|other) [0-9]+%</title>" "$html"
check_grep "page names both strategies" "<td>splice</td>.*|<td>zstd</td>" "$html"
check_grep "page shows the ceilings" "<h2>Ceilings</h2>" "$html"
# issue 26: the network probe's stream sweep as a chart, a bar a step, the saturation point named
check_grep "the ceilings have the stream sweep's chart" "<h3>Network: streams swept</h3>" "$html"
sat=$(json_get "$work/r.json" "d['ceilings']['network']['saturation_streams']" 2>&1)
check_grep "the chart says where the link saturates, as the JSON does ($sat)" \
	"<p>The link saturates at $sat streams? \(red\)\." "$html"
steps=$(json_get "$work/r.json" "len(d['ceilings']['network']['sweep'])" 2>&1)
bars=$(grep -cE '<title>[0-9]+ streams?: [0-9.]+ Gbit/s</title>' "$work/r.html")
[ "$steps" -gt 0 ] 2>/dev/null && [ "$bars" = "$steps" ]
ok $? "a bar for each of the sweep's steps ($bars bars, $steps steps)"
# issue 23, item 7: axis and scale, the runs' ranges, timelines, environment, "other"
check_grep "the chart has a time axis with ticks in seconds" 'class="tick">[0-9.]+ s</text>' "$html"
check_grep "and says what its bars are" "seconds per strategy \(transfer \+ flush" "$html"
check_grep "each repeated strategy has its range, min to max" "<title>2 runs: [0-9.]+ to [0-9.]+ s</title>" "$html"
tl=$(grep -c '<svg[^>]*class="timeline"' "$work/r.html")
[ "$tl" -eq 4 ]
ok $? "a timeline per strategy and end, from the samples ($tl of 4)"
check_grep "timelines draw the series" "<polyline fill=\"none\"" "$html"
for series in 'network \(peak [0-9.]+ MB/s\)' 'disk busy' 'cpu busy'; do
	check_grep "the timelines' legend names the series '${series//\\/}'" \
		"class=\"legend\">$series</text>" "$html"
done
check_grep "the environment names the version" "<td>version</td><td>$("$xfercmp" --version | cut -d' ' -f2)</td>" "$html"
check_grep "the date the run started" "<td>started</td><td>20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T" "$html"
check_grep "and its command line" "<td>command</td><td><code>xfercmp -w smallfiles --files 1500" "$html"
# A run with a certain winner (cmd: strategies that sleep 0.1 s and 0.7 s, disjoint
# ranges over 3 runs), and an "other" share certain too: sleeping is no ceiling's
check "a run with a clear winner, --html" "$xfercmp" -w smallfiles --files 20 --repeat 3 \
	--probe-seconds 0.5 -s "cmd:fast=sleep 0.1; cp -r {src}/. {dst},cmd:slow=sleep 0.7; cp -r {src}/. {dst}" \
	--html "$work/w.html" --json "$work/w.json"
v=$(python3 - "$work/w.html" <<'EOF2'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
marks = [m.start() for m in re.finditer("\u2605 fastest", page)]
labels = [(m.start(), m.group(1)) for m in re.finditer(r'class="label">([a-z]+)</text>', page)]
print(len(marks), [name for at, name in labels if at < marks[0]][-1] if marks else "none")
EOF2
)
[ "$v" = "1 fast" ] && [ "$(json_get "$work/w.json" "(d['fastest']['strategy'], d['fastest']['clear'])")" = "('fast', True)" ]
ok $? "the chart marks the clear winner '★ fastest', once, on its bar (marks, bar: $v)"
check_grep "the page explains what 'Other' is" "<p><b>Other</b> \(grey\) is the time no measured ceiling" \
	"$(cat "$work/w.html")"
v=$(json_get "$work/r.json" "(d['xfercmp_version'] is not None, d['started_at'][:2], d['command'][1:3])")
[ "$v" = "(True, '20', ['-w', 'smallfiles'])" ]
ok $? "the JSON has them too: xfercmp_version, started_at, command ($v)"
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
# not blank: the decoded screenshot's pixels vary (a blank page is one colour)
spread=$(python3 - "$work/r.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w, h, bpp = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, prev, rows = zlib.decompress(idat), bytearray(w * bpp), []
stride = w * bpp
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours = set()
for y in range(0, h, 7):
    for x in range(0, w, 7):
        colours.add(rows[y][x * bpp:x * bpp + 3])
print(len(colours))
PY
)
[ "${spread:-0}" -gt 20 ]
ok $? "the screenshot is not blank ($spread distinct colours sampled)"
dom=$(chromium_run --dump-dom "file://$work/r.html")
for st in splice zstd; do
	check_grep "the rendered page names $st" ">$st<" "$dom"
done
check_grep "the rendered DOM holds the chart rectangles" "<rect" "$dom"
verdict=$(json_get "$work/r.json" "d['results'][0]['verdict']")
check_grep "the page shows the JSON's verdict ($verdict)" "$verdict" "$dom"

# colour only on a terminal, never with NO_COLOR
out=$("$xfercmp" -w smallfiles --files 200 -s splice --no-probes 2>/dev/null)
! grep -q $'\033\[' <<<"$out"
ok $? "no colour escapes when stdout is not a terminal"
# on a terminal: colour, unless NO_COLOR is set and not empty (no-color.org)
# colour is SGR (ESC [ ... m); the live line's own ESC [ K on a terminal is none
on_tty() { script -qec "$*" /dev/null 2>/dev/null | grep -c $'\033\[[0-9;]*m'; }
tty_cmd="$xfercmp -w smallfiles --files 50 -s splice --no-probes"
[ "$(on_tty env -u NO_COLOR "$tty_cmd")" -gt 0 ]
ok $? "colour on a terminal"
[ "$(on_tty env NO_COLOR= "$tty_cmd")" -gt 0 ]
ok $? "colour on a terminal with an empty NO_COLOR (only a non-empty one turns it off)"
[ "$(on_tty env NO_COLOR=1 "$tty_cmd")" -eq 0 ]
ok $? "no colour on a terminal with NO_COLOR=1"
finish
