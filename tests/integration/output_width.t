#!/usr/bin/env bash
# Output fits 100 columns (issue 23, item 4): no line of any --help, of a local
# comparison with long reasons (a failing cmd: strategy with a long message,
# --repeat, --what-if), of `xfercmp diff`, of `xfercmp probe` and of a
# `-s all,real` run to the testbed host is wider than 100 columns, counted in
# characters (UTF-8: "→", "µ", "±" are one each; colour sequences none). The
# wrapped lines keep what they said: the failure's whole message is still
# there, and the table's rows are still one line each. On a pty (issue 44) the
# report follows a terminal under 100 columns, never under 60: at 60 no line is
# wider and a row is two lines; at 120 the 100-column report; at 40 the 60-column
# one; `diff` too. Needs root for the
# testbed part. Only talks to loopback and 198.18.0.2.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
width=100

own_work width

# too_wide FILE: each line of FILE wider than $width characters, "N: COLS: LINE"
too_wide() {
	python3 - "$1" "$width" <<'EOF'
import re, sys
limit = int(sys.argv[2])
for i, line in enumerate(open(sys.argv[1], encoding="utf-8", errors="strict"), 1):
    line = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line.rstrip("\n"))
    if len(line) > limit:
        print("%d: %d: %s" % (i, len(line), line))
EOF
}
# fits DESCRIPTION FILE: passes when no line of FILE is wider than $width
fits() {
	local bad
	bad=$(too_wide "$2" 2>&1)
	[ -z "$bad" ] && [ -s "$2" ]
	ok $? "$1"
	[ -z "$bad" ] || head -10 <<<"$bad" | diag
}

# ---------------------------------------------------------------- --help
for c in "" gen verify serve probe diff; do
	# shellcheck disable=SC2086 # "" is no argument: the comparison's own help
	"$xf" $c --help >"$work/help.txt" 2>&1
	fits "xfercmp ${c:+$c }--help fits $width columns" "$work/help.txt"
done

# ---------------------------------------------------------------- a local run
long='and then a long tail of words so that the reason runs past the hundredth column'
"$xf" -w smallfiles --files 200 -s "splice,cmd:bad=echo {src} {dst} $long >&2; false" \
	--probe-seconds 0.3 --what-if rate=1gbit,rtt=20ms --repeat 2 --json "$work/local.json" \
	>"$work/local.txt" 2>&1
rc=$?
[ $rc -eq 1 ]
ok $? "local run with a failing cmd: strategy (exit $rc, want 1)"
fits "local run: every line fits $width columns" "$work/local.txt"
# the failure's message is wrapped, not cut: every word of it is in the text
got=$(tr -s ' \n' '  ' <"$work/local.txt")
grep -qF "$long" <<<"$got"
ok $? "the wrapped failure still says all of it"
check_grep "the failed row starts its message on its own line" "^bad +FAILED +bad failed \(exit 1\)" \
	"$(cat "$work/local.txt")"
check_grep "splice's row is one line: status, times, rates, forecast and its ratio" \
	"^splice +ok +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +([0-9.]+x|fit)" "$(cat "$work/local.txt")"
check_grep "the repeat line is there" "^ +2 runs: mean [0-9.]+ ± [0-9.]+ s" "$(cat "$work/local.txt")"

# diff of that report with itself
"$xf" diff "$work/local.json" "$work/local.json" >"$work/diff.txt" 2>&1
fits "xfercmp diff: every line fits $width columns" "$work/diff.txt"

# ---------------------------------------------------------------- on a terminal (issue 44)
# The report follows a terminal under 100 columns, never under 60; over 100 it stays at 100.
# on_pty COLS OUT ARGS...: xfercmp ARGS on a pty of COLS columns, what the pty showed in OUT
# (-q: no status line, the report alone; without its colours)
on_pty() {
	local cols=$1 out=$2
	shift 2
	script -qec "stty cols $cols; $(printf '%q ' "$xf" "$@")" /dev/null 2>&1 |
		sed 's/\r$//; s/\x1b\[[0-9;]*[A-Za-z]//g' >"$out"
}
tty_args=(-q -w smallfiles --files 200 -s splice,zstd --probe-seconds 0.3 --what-if rtt=2ms)
on_pty 60 "$work/tty60.txt" "${tty_args[@]}" --json "$work/tty.json" local
width=60 fits "a 60-column terminal: every line of the report fits 60 columns" "$work/tty60.txt"
check_grep "... and a row is two lines there: the times, then wire MB and the forecast" \
	"^splice +ok +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\$" "$(cat "$work/tty60.txt")"
on_pty 120 "$work/tty120.txt" "${tty_args[@]}" local
width=100 fits "a 120-column terminal: every line fits 100" "$work/tty120.txt"
check_grep "... and a row is one line there" \
	"^splice +ok +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x" "$(cat "$work/tty120.txt")"
on_pty 40 "$work/tty40.txt" "${tty_args[@]}" local
width=60 fits "a 40-column terminal: the report is the 60-column one" "$work/tty40.txt"
got=$(awk 'length > 40' "$work/tty40.txt" | wc -l)
[ "$got" -gt 0 ]
ok $? "... not squeezed under 60 ($got lines past 40 columns)"
on_pty 60 "$work/diff60.txt" diff "$work/tty.json" "$work/local.json"
width=60 fits "xfercmp diff on a 60-column terminal fits it" "$work/diff60.txt"

# ---------------------------------------------------------------- the testbed
testbed_part "testbed -s all,real" "its lines fit" "its rows" "its JSON validates" "probe" \
	"its lines fit"
"$xf" -F "$cfg" --allow-cleartext -w smallfiles --files 2000 -s all,real --probe-seconds 0.3 \
	--json "$work/all.json" testbed >"$work/all.txt" 2>&1
rc=$?
[ $rc -eq 0 ]
ok $? "testbed -s all,real, 2000 files (exit $rc)"
[ $rc -eq 0 ] || tail -20 "$work/all.txt" | diag
fits "testbed -s all,real: every line fits $width columns" "$work/all.txt"
rows=$(json_get "$work/all.json" "len(d['results'])")
got=$(grep -cE '^[a-z][a-z0-9-]* +(ok|FAILED|skipped) ' "$work/all.txt")
[ "$got" -ge "$rows" ]
ok $? "every strategy has its row ($got rows for $rows results)"
# every strategy of the list, reference tools skipped or failed among them: json_schema.t's
# schema holds for them all
"$top/build/tests/json_schema_check" "$top/docs/report.schema.json" "$work/all.json" \
	>"$work/all.check" 2>&1
ok $? "testbed -s all,real: its JSON validates against docs/report.schema.json"
head -20 "$work/all.check" | grep -v ': valid$' | diag

"$xf" probe -F "$cfg" -w smallfiles --files 200 --probe-seconds 0.3 testbed >"$work/probe.txt" 2>&1
rc=$?
ok $rc "xfercmp probe testbed (exit $rc)"
fits "xfercmp probe: every line fits $width columns" "$work/probe.txt"

finish
