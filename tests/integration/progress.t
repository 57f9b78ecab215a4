#!/usr/bin/env bash
# Long runs are not silent (issue 23, item 1): on a terminal a status line per
# strategy (its place "[i/n]", percentage, files of the total, rate, elapsed;
# the forecast and comparison ETA with probes), redrawn and cleared, fitted
# to the terminal's width (issue 44: a 60-column pty), and one line per
# finished strategy; before them each probe named as it runs and a line of
# what it measured (issue 44); nothing of it without a terminal or with -q.
# Ctrl-C or SIGTERM during the strategies: cleanup, then the report of the
# strategies that finished (stdout, --json, --html and the CSV and Markdown
# exports), marked partial, exit 130.
# Loopback agent only.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$(mktemp -d /var/tmp/xfercmp-progress.XXXXXX) || exit 1
export XFERCMP_SCRATCH="$work/scratch"
mkdir -p "$XFERCMP_SCRATCH"
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT

"$xfercmp" gen -q -w smallfiles --files 20000 "$work/src" >/dev/null
args=(-w "dir:$work/src" --no-probes)

# ---------------------------------------------------------------- on a terminal
script -qec "stty cols 60; $xfercmp ${args[*]} -s splice,zstd" "$work/tty.log" >/dev/null
ok $? "on a 60-column pty: the comparison runs"
lines=$(tr '\r' '\n' <"$work/tty.log")
check_grep "a status line: its place, percentage, files of the total, rate, elapsed" \
	'\[1/2\] splice  [0-9]+% [0-9,]+/20,000 files  [0-9.]+ MB/s  [0-9.]+ s' "$lines"
check_grep "the tar writer counts its files too (zstd)" '\[2/2\] zstd  [^ ]+( up)? [0-9,]+/20,000 files' "$lines"
check_grep "the line is cleared before the strategy's own line" \
	$'\033\\[K  splice: ok, [0-9.]+ s, [0-9.]+ MB/s, [0-9]+ files/s, verified' "$lines"
check_grep "each strategy gets its line as it finishes" '  zstd: ok, ' "$lines"
# as it finishes: splice's row is out before zstd's first status line, not held to the end
order=$(python3 - "$work/tty.log" <<'EOF2'
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
done, nxt = t.find("  splice: ok, "), re.search(r"\[2/2\] zstd  ", t)
print("before" if 0 <= done and nxt and done < nxt.start() else
      "splice ok at %d, zstd's first status at %s" % (done, nxt.start() if nxt else "none"))
EOF2
)
[ "$order" = before ]
ok $? "splice's ok row comes before zstd's first status line ($order)"
long=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' <<<"$lines" | grep -E '^\[[0-9]+/[0-9]+\] ' | awk 'length > 59')
[ -z "$long" ]
ok $? "no status line reaches the 60-column pty's last column"
[ -z "$long" ] || diag <<<"$long"

# the probes before the strategies: each named as it runs, what it measured as it ends
script -qec "stty cols 60; $xfercmp -w dir:$work/src --probe-seconds 0.1 -s splice" "$work/probes.log" >/dev/null
ok $? "on a 60-column pty with probes: the comparison runs"
plain=$(tr '\r' '\n' <"$work/probes.log" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g')
check_grep "the network probe is named with its place while it runs" '^probing network \(1/[4-6]\)' "$plain"
check_grep "and the destination's" '^probing destination \(2/[4-6]\)' "$plain"
check_grep "and zstd's" '^probing zstd \([3-6]/[4-6]\)' "$plain"
check_grep "the network's result as measured" '^  probe network: [0-9.]+ [GM]bit/s one stream' "$plain"
check_grep "the destination's result as measured" '^  probe destination: write [0-9.]+ [GM]B/s durable' "$plain"
check_grep "zstd's result as measured" '^  probe zstd: ([0-9.]+ [GM]B/s|nothing to compress)' "$plain"
check_grep "then the strategies' status line" '^\[1/1\] splice  ' "$plain"
# the result stays: the network's line is out before the destination probe is named
order=$(python3 - "$work/probes.log" <<'EOF2'
import sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
done, nxt = t.find("  probe network: "), t.find("probing destination (")
print("before" if 0 <= done < nxt else "network result at %d, destination probe at %d" % (done, nxt))
EOF2
)
[ "$order" = before ]
ok $? "the network's result comes before the next probe's line ($order)"
long=$(grep -E '^(probing |  probe |\[[0-9]+/[0-9]+\] )' <<<"$plain" | LC_ALL=C awk 'length > 59')
[ -z "$long" ]
ok $? "no probe line or status line reaches the 60-column pty's last column (in bytes)"
[ -z "$long" ] || diag <<<"$long"
out=$("$xfercmp" probe -w "dir:$work/src" --probe-seconds 0.1 -v 2>&1 >/dev/null)
check_grep "-v without a terminal: each probe named as it begins" '^probing network \(1/[4-6]\)\.\.\.$' "$out"
check_grep "-v without a terminal: and what it measured" '^  probe network: [0-9.]+ [GM]bit/s one stream' "$out"
script -qec "$xfercmp ${args[*]} -q -s splice" "$work/q.log" >/dev/null
! grep -q '\] splice  ' "$work/q.log" && ! grep -q 'splice: ok' "$work/q.log"
ok $? "-q: no status line on a terminal"
out=$("$xfercmp" "${args[@]}" -s splice 2>&1 >/dev/null)
[ -z "$out" ]
ok $? "not a terminal: nothing on stderr"
[ -z "$out" ] || diag <<<"$out"

# ---------------------------------------------------------------- interrupted
for sig in INT TERM; do
	rm -f "$work"/p.*
	"$xfercmp" "${args[@]}" -v -s splice,zstd,parallel --json "$work/p.json" --html "$work/p.html" \
		--export-csv "$work/p.csv" --export-markdown "$work/p.md" >"$work/p.out" 2>"$work/p.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^running zstd' "$work/p.err" && break
		sleep 0.1
	done
	sleep 0.3
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	pid=
	[ "$rc" -eq 130 ]
	ok $? "SIG$sig during zstd: exit 130 (got $rc)"
	check_grep "SIG$sig: the report on stdout is marked partial" '^partial: interrupted' "$(cat "$work/p.out")"
	check_grep "SIG$sig: it holds splice's finished row" '^splice +ok ' "$(cat "$work/p.out")"
	v=$(json_get "$work/p.json" "(d['partial'], [(r['strategy'], r['status'], r['verified']) for r in d['results']])" 2>&1)
	[ "$v" = "(True, [('splice', 'ok', True), ('zstd', 'failed', False), ('parallel', 'skipped', False)])" ]
	ok $? "SIG$sig: the JSON is written, partial, splice verified, zstd interrupted, parallel not run"
	[ "$rc" -eq 130 ] || diag <"$work/p.err"
	diag <<<"$v"
	check_grep "SIG$sig: the HTML page shows a partial banner" \
		'<p class="partial"[^>]*>partial: interrupted' "$(cat "$work/p.html" 2>&1)"
	check_grep "SIG$sig: and still holds splice's row" '<td>splice</td>' "$(cat "$work/p.html" 2>&1)"
	check_grep "SIG$sig: the Markdown export starts with a partial note" \
		'^\*\*partial: interrupted' "$(head -n 1 "$work/p.md" 2>&1)"
	v=$(python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print(rows[0][-1], sorted(set(r[-1] for r in rows[1:])), [r[:2] for r in rows[1:]])' "$work/p.csv" 2>&1)
	[ "$v" = "partial ['yes'] [['splice', 'ok'], ['zstd', 'failed'], ['parallel', 'skipped']]" ]
	ok $? "SIG$sig: the CSV's last column, partial, is yes in every row ($v)"
	left=$(find "$XFERCMP_SCRATCH" -mindepth 1 -maxdepth 1 | wc -l)
	[ "$left" -eq 0 ]
	ok $? "SIG$sig: nothing left in the scratch directory ($left)"
done
finish
