#!/usr/bin/env bash
# --repeat statistics (issue 23, item 6): mean ± σ, min, max and every run's
# time in the table and the JSON, and "fastest" / "N× faster" only when the
# difference is beyond the runs' noise; `xfercmp diff` of two reports and the
# CSV and Markdown exports (item 8). The timings are made certain with
# cmd: strategies that sleep: two whose runs alternate 0.2 s and 0.6 s in
# opposite phase (the same distribution: no winner), and two that always
# take 0.1 s and 0.7 s (disjoint ranges: a winner). Loopback agent only.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$(mktemp -d /var/tmp/xfercmp-repeat.XXXXXX) || exit 1
export XFERCMP_SCRATCH="$work/scratch"
mkdir -p "$XFERCMP_SCRATCH"
trap 'rm -rf "$work"' EXIT

# alt NAME FIRST SECOND: a cmd: strategy whose runs sleep FIRST, SECOND, FIRST, ...
alt() {
	printf 'cmd:%s=n=$(cat %s/%s.n 2>/dev/null || echo 0); echo $((n + 1)) >%s/%s.n; ' \
		"$1" "$work" "$1" "$work" "$1"
	printf 'if [ $((n %% 2)) -eq 0 ]; then sleep %s; else sleep %s; fi; cp -r {src}/. {dst}' "$2" "$3"
}
common=(-w smallfiles --files 20 --no-probes --repeat 4)

json="$work/even.json"
check_rc 0 "two strategies of one distribution, 4 runs each" \
	"$xfercmp" "${common[@]}" -s "$(alt a 0.2 0.6),$(alt b 0.6 0.2)" --json "$json"
table=$LAST_OUT
nruns=$(json_get "$json" "len(d['results'][0]['run_seconds'])")
[ "$nruns" = 4 ]
ok $? "the JSON holds every run's time (4, got $nruns)"
bad=$(json_get "$json" "[x for r in d['results'] for x in r['run_seconds'] if not (0.15 < x < 1.5)]")
[ "$bad" = "[]" ]
ok $? "each run's time is what the command slept ($bad out of range)"
sd=$(json_get "$json" "round(d['results'][0]['stddev_seconds'], 3)")
json_get "$json" "0.15 < d['results'][0]['stddev_seconds'] < 0.45" | grep -q True
ok $? "σ of 0.2, 0.6, 0.2, 0.6 (0.23, and what the machine adds) is in 0.15-0.45 (got $sd)"
clear=$(json_get "$json" "d['fastest']['clear']")
[ "$clear" = False ]
ok $? "the JSON says there is no clear winner (clear: $clear)"
! grep -q 'fastest' <<<"$table"
ok $? "the table marks no strategy fastest"
check_grep "the table says there is no clear winner" "^no clear winner between (a|b) .* and (a|b) " "$table"
check_grep "the table shows mean ± σ, min, max" "4 runs: mean [0-9.]+ ± [0-9.]+ s, median [0-9.]+, min [0-9.]+, max [0-9.]+" "$table"
check_grep "and each run's time" "each: [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+" "$table"
rec=$(json_get "$json" "d['recommendation']")
check_grep "the recommendation claims no winner" "^no clear winner" "$rec"

json="$work/apart.json"
check_rc 0 "two strategies 0.6 s apart, 3 runs each" \
	"$xfercmp" -w smallfiles --files 20 --no-probes --repeat 3 \
	-s "$(alt fast 0.1 0.1),$(alt slow 0.7 0.7)" --json "$json"
table=$LAST_OUT
v=$(json_get "$json" "(d['fastest']['strategy'], d['fastest']['clear'])")
[ "$v" = "('fast', True)" ]
ok $? "the JSON names the clear winner ($v)"
check_grep "the table marks it fastest" "^fast .*← fastest" "$table"
rec=$(json_get "$json" "d['recommendation']")
check_grep "the recommendation names it, and how much faster" "^use fast .*x faster than slow" "$rec"

# ---------------------------------------------------------------- diff
# one strategy named t, 0.1 s in A and 0.6 s in B
check_rc 0 "report A: t takes 0.1 s" "$xfercmp" -w smallfiles --files 20 --no-probes --repeat 3 \
	-s "$(alt t 0.1 0.1)" --json "$work/A.json"
rm -f "$work"/t.n
check_rc 0 "report B: t takes 0.6 s" "$xfercmp" -w smallfiles --files 20 --no-probes --repeat 3 \
	-s "$(alt t 0.6 0.6)" --json "$work/B.json"
run_out=$("$xfercmp" diff "$work/A.json" "$work/B.json" 2>&1)
check_grep "diff: t is slower in B, beyond the noise" "^t +0\.[0-9]+ +0\.[0-9]+ +\+[0-9.]+% +yes, slower$" "$run_out"
run_out=$("$xfercmp" diff "$work/A.json" "$work/A.json" 2>&1)
check_grep "diff of a report with itself: no change beyond the noise" "^t .* \+0\.0% +no$" "$run_out"
check_rc 2 "diff with one report is a usage error" "$xfercmp" diff "$work/A.json"
check_rc 1 "diff of a file that is not a report fails" "$xfercmp" diff "$work/A.json" /etc/hostname
check_grep "naming the file" "^xfercmp diff: cannot read '/etc/hostname' as JSON" "$LAST_OUT"

# ---------------------------------------------------------------- exports
check_rc 1 "exports of a run with a failed strategy" "$xfercmp" -w smallfiles --files 20 --no-probes \
	-s "splice,cmd:bad=echo {src} {dst} 'a,b|c' >&2; false" \
	--export-csv "$work/r.csv" --export-markdown "$work/r.md"
rows=$(python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1], newline=""))); e=r[0].index("error"); print(len(r), r[0][0], r[1][0], r[1][1], r[2][1], "a,b|c" in r[2][e], r[0][-1], r[1][-1], r[2][-1])' "$work/r.csv")
[ "$rows" = "3 strategy splice ok failed True partial no no" ]
ok $? "CSV: a header and a row a strategy; the error with a comma stays one field; not partial ($rows)"
lines=$(wc -l <"$work/r.md")
[ "$lines" -eq 4 ] && sed -n 2p "$work/r.md" | grep -q '^| --- |' && grep -q '^| bad | failed .*a,b\\|c' "$work/r.md"
ok $? "Markdown: header, separator and a row a strategy, a pipe escaped ($lines lines)"
check_rc 2 "an export into a missing directory fails before the run, a usage error" "$xfercmp" -w smallfiles \
	--files 20 --no-probes -s splice --export-csv "$work/missing/r.csv"
check_grep "naming the file and its missing directory" \
	"cannot write $work/missing/r.csv: the directory $work/missing does not exist" "$LAST_OUT"
finish
