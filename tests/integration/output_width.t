#!/usr/bin/env bash
# Output fits 100 columns (issue 23, item 4): no line of any --help, of a local
# comparison with long reasons (a failing cmd: strategy with a long message,
# --repeat, --what-if), of `xfercmp diff`, of `xfercmp probe` and of a
# `-s all,real` run to the testbed host is wider than 100 columns, counted in
# characters (UTF-8: "→", "µ", "±" are one each; colour sequences none). The
# wrapped lines keep what they said: the failure's whole message is still
# there, and the table's rows are still one line each. Needs root for the
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
