#!/usr/bin/env bash
# Checks the pure helpers of scripts/bench/lib.sh: statistics, ratios, verdicts, the
# markdown rows, the JSON readers, and the round order and fidelity pairs derived from a
# canned `xfercmp --list-strategies`; the forecast section's (scripts/bench/forecast.sh)
# frozen-commit line, its options, its estimate, its rows, judgements and summaries from
# fabricated reports of JSON schema 3 (issue 41: results[].forecast, what_if[].forecasts),
# and its runs with a stand-in xfercmp and testbed; the explain section's rows; the sample
# section's rows and answer times. Needs bash, awk, git and
# perl (JSON::PP); no root, no testbed, no xfercmp. Prints "ok N - ..." per check; exits 1
# if any failed.
set -Eeuo pipefail

# shellcheck source=scripts/bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/bench/forecast.sh
. "$(dirname "$0")/forecast.sh"
# shellcheck source=scripts/bench/explain.sh
. "$(dirname "$0")/explain.sh"
# shellcheck source=scripts/bench/link.sh
. "$(dirname "$0")/link.sh"
# shellcheck source=scripts/bench/wan.sh
. "$(dirname "$0")/wan.sh"
# shellcheck source=scripts/bench/sample.sh
. "$(dirname "$0")/sample.sh"

# shellcheck source=scripts/bench/tap.sh
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

is "median, odd count" "$(median 3 1 2)" 2
is "median, even count" "$(median 4 1 3 2)" 2.5
is "median skips failed runs" "$(median failed 5 1 skipped)" 3
is "median of nothing numeric" "$(median failed "")" n/a
is "median, exponent" "$(median 1e3 2)" 501
is "minimum" "$(minimum 3 failed 1.5 2)" 1.5
is "minimum of nothing numeric" "$(minimum failed)" n/a
is "maximum" "$(maximum 3 failed 10 2)" 10
is "maximum of nothing numeric" "$(maximum failed)" n/a
is "calc" "$(calc "%.2f" "a / b" 3 2)" 1.50
is "calc, non-number" "$(calc "%.2f" "a / b" failed 2)" n/a
is "calc, zero" "$(calc "%.2f" "a / b" 3 0)" n/a
is "calc_list" "$(calc_list "%.0f" "a / 1e6" 1500000 "" 2e6)" "2 n/a 2"
is "secs" "$(secs 1.234)" 1.23
is "secs_list keeps failed" "$(secs_list 1 failed 2.345)" "1.00 failed 2.35"
is "elapsed" "$(elapsed 1.5 3.75)" 2.250
is "verdict met" "$(verdict 2.00 2)" "target met"
is "verdict not met" "$(verdict 1.99 2)" "target not met"
is "verdict n/a" "$(verdict n/a 2)" n/a
is "exceeds at the target" "$(exceeds 1.00 1)" "target not met"
is "exceeds above" "$(exceeds 1.01 1)" "target met"
is "within" "$(within 1.15 0.85 1.15)" "target met"
is "within, below" "$(within 0.84 0.85 1.15)" "target not met"
# wan: auto within 10% of the best fixed N is auto <= 1.1 x best (best / auto >= 0.909...)
is "wan_target: auto 10% slower" "$(wan_target 10 11)" "target met"
is "wan_target: auto 10.5% slower (0.905, 0.90 at two decimals)" "$(wan_target 10 11.05)" "target not met"
is "wan_target: auto faster" "$(wan_target 10 9)" "target met"
is "wan_order: round 1 as listed" "$(wan_order 1)" "auto 1 2 8"
is "wan_order: round 2 one further" "$(wan_order 2)" "1 2 8 auto"
is "wan_order: round 5 as round 1" "$(wan_order 5)" "auto 1 2 8"
is "wan_target: a failed run" "$(wan_target n/a 9)" n/a
# testbed_shape: the testbed found down is this run's to take down at the end, one found up
# is not; the arguments reach testbed.sh up (a stand-in script that logs them)
cat >"$tmp/testbed.sh" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"${0%/*}/testbed.log"
[ "$1" != status ] || [ -e "${0%/*}/testbed.is-up" ]
STUB
chmod +x "$tmp/testbed.sh"
saved_testbed_sh=$TESTBED_SH
TESTBED_SH=$tmp/testbed.sh
BROUGHT_UP=0
testbed_shape --rate 1gbit --delay 2ms 2>/dev/null
is "testbed_shape: found down, ours to take down" "$BROUGHT_UP $(tail -n 1 "$tmp/testbed.log")" "1 up --rate 1gbit --delay 2ms"
BROUGHT_UP=0
touch "$tmp/testbed.is-up"
testbed_shape 2>/dev/null
is "testbed_shape: found up, left to whoever brought it up" "$BROUGHT_UP $(tail -n 1 "$tmp/testbed.log")" "0 up"
TESTBED_SH=$saved_testbed_sh
BROUGHT_UP=0
best=n/a best_name=""
keep_best best best_name failed a
keep_best best best_name 3 b
keep_best best best_name 4 c
keep_best best best_name 2.5 d
is "keep_best" "$best $best_name" "2.5 d"

is "md_row, empty cells" "$(md_row a "" "b \\| c" "")" '| a | | b \| c | |'
is "md_head" "$(md_head lrl x "y z" "")" $'| x | y z | |\n|---|---:|---|'
is "md_ratios" "$(md_ratios)" $'| ratio | value | target | |\n|---|---:|---|---|'

cat >"$tmp/r1.json" <<'EOF'
{"ceilings": {"disk_write_bytes_per_s": 1.5e9, "ok": true},
 "results": [
  {"strategy": "scp", "status": "ok", "verified": true, "seconds": 2.0},
  {"strategy": "real-scp", "status": "failed", "verified": false, "seconds": 0, "error": "lost\tit|x"},
  {"strategy": "splice", "status": "ok", "verified": false, "seconds": 1.0}
 ]}
EOF
cat >"$tmp/r2.json" <<'EOF'
{"results": [
  {"strategy": "real-scp", "status": "ok", "verified": true, "seconds": 4.0},
  {"strategy": "scp", "status": "ok", "verified": true, "seconds": 3.0},
  {"strategy": "zstd", "status": "skipped", "verified": false, "seconds": 0}
 ]}
EOF
is "json_get number" "$(json_get "$tmp/r1.json" ceilings.disk_write_bytes_per_s)" 1500000000
is "json_get boolean" "$(json_get "$tmp/r1.json" ceilings.ok)" true
is "json_get array index" "$(json_get "$tmp/r1.json" results.1.strategy)" real-scp
is "json_get absent" "$(json_get "$tmp/r1.json" results.7.strategy)" ""
is "json_get missing file" "$(json_get "$tmp/none.json" results)" ""
is "json_results" "$(json_results "$tmp/r1.json" | head -n 2)" \
	$'scp\tok\t2\t\nreal-scp\tfailed\t-\tlost it x'
is "strategy_medians" "$(strategy_medians "$tmp/r1.json" "$tmp/r2.json")" \
	$'scp\t2.5\t2.00,3.00\t\nreal-scp\t4\tfailed,4.00\tlost it x\nsplice\tn/a\tok\tok\nzstd\tn/a\tskipped\tskipped'

# the list xfercmp prints, as its strategy table stands
canned='scp	own	real-scp
tar-ssh	own	real-tar-ssh
zstd-ssh	own	real-tar-zstd-ssh
splice	own	-
zstd	own	-
parallel	own	-
real-scp	reference	-
real-scp-legacy	reference	-
real-rsync	reference	-
real-tar-ssh	reference	-
real-tar-zstd-ssh	reference	-
real-tar-nc	reference	-'
strategies_parse <<<"$canned"
is "round order: each model next to its real tool" "${ROUND_ORDER[*]}" \
	"scp real-scp real-scp-legacy tar-ssh real-tar-ssh zstd-ssh real-tar-zstd-ssh splice zstd parallel real-rsync real-tar-nc"
is "round 1 forwards" "$(round_list 1)" \
	"scp,real-scp,real-scp-legacy,tar-ssh,real-tar-ssh,zstd-ssh,real-tar-zstd-ssh,splice,zstd,parallel,real-rsync,real-tar-nc"
is "round 2 backwards" "$(round_list 2)" \
	"real-tar-nc,real-rsync,parallel,zstd,splice,real-tar-zstd-ssh,zstd-ssh,real-tar-ssh,tar-ssh,real-scp-legacy,real-scp,scp"
is "pairs: fidelity rows, then scp's information row" "$(printf '%s\n' "${PAIRS[@]}")" \
	$'scp\treal-scp\t\nscp\treal-scp-legacy\tscp models SFTP scp\ntar-ssh\treal-tar-ssh\t\nzstd-ssh\treal-tar-zstd-ssh\t'
is "kinds" "${STRATEGY_KIND[scp]} ${STRATEGY_KIND[real-tar-nc]} ${STRATEGY_KIND[parallel]}" "xfercmp reference xfercmp"

# without real-scp-legacy the information row goes; a reference no one models still runs
strategies_parse <<<'splice	own	-
scp	own	real-scp
real-rsync	reference	-
real-scp	reference	-'
is "round order, other table" "${ROUND_ORDER[*]}" "splice scp real-scp real-rsync"
is "pairs, other table" "$(printf '%s\n' "${PAIRS[@]}")" $'scp\treal-scp\t'

# text it does not understand stops it with exit 2
for bad in 'scp	own' 'scp	mine	-' 'scp	own	real-scp' 'scp	own	-	extra' \
	$'scp\town\t-\nscp\town\t-' 'real-scp	reference	-' 'xfercmp: unknown option'; do
	rc=0
	(strategies_parse <<<"$bad") 2>"$tmp/err" || rc=$?
	is "rejects $(printf '%q' "$bad")" "$rc $(wc -l <"$tmp/err")" "2 1"
done

# server_start, with a stand-in `ip` that runs `ip netns exec NS CMD...` as CMD, here
mkdir "$tmp/bin"
# shellcheck disable=SC2016 # the stand-in's own variables
printf '%s\n' '#!/bin/sh' '[ "$1 $2" = "netns exec" ] || exit 1' 'shift 3' 'exec "$@"' >"$tmp/bin/ip"
chmod +x "$tmp/bin/ip"
PATH=$tmp/bin:$PATH
rc=0
server_start "never shown" "$tmp/s1.log" "log:^server listening" 100 \
	sh -c 'sleep 0.2; echo "server listening"; exec sleep 30' 2>"$tmp/err" || rc=$?
is "server_start, log: ready" "$rc ${BG[$SERVER_PID]:-} $(wc -c <"$tmp/err")" "0 1 0"
stop_group "$SERVER_PID"
bg_wait "$SERVER_PID" || true
is "stop_group and bg_wait: stopped and reaped" "$(proc_running "$SERVER_PID" && echo running) ${#BG[@]}" " 0"

port=$(free_port)
# shellcheck disable=SC2016 # perl's variables
listener='use IO::Socket::INET; my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 1, ReuseAddr => 1) or die "cannot listen: $!\n"; sleep 30'
rc=0
server_start "never shown" "$tmp/s2.log" "port:$port" 200 perl -e "$listener" "$port" 2>"$tmp/err" || rc=$?
is "server_start, port: listening on 127.0.0.1:$port" "$rc $(listening "$port" && echo yes)" "0 yes"
is "free_port skips a port in use" "$(free_port)" "$((port == PORT_FIRST ? PORT_FIRST + 1 : PORT_FIRST))"
stop_group "$SERVER_PID"
bg_wait "$SERVER_PID" || true

FAILED=0
rc=0
server_start "the server did not start" "$tmp/s3.log" "log:^server listening" 100 \
	sh -c 'echo "bad flag"; exit 3' 2>"$tmp/err" || rc=$?
is "server_start, exits first: fails, reaped" "$rc $FAILED ${#BG[@]}" "1 1 0"
is "server_start, exits first: says why" "$(cat "$tmp/err")" "bench: the server did not start: bad flag"

FAILED=0
rc=0
server_start "too slow" "$tmp/s4.log" "log:^server listening" 4 sleep 30 2>"$tmp/err" || rc=$?
pid=$BG_PID
is "server_start, never ready: fails, stopped, reaped" \
	"$rc $FAILED ${#BG[@]} $(proc_running "$pid" && echo running)" "1 1 0 "

# the link section's JSON: the fastest verified result; probed_link reads its ceilings
cat >"$tmp/link.json" <<'EOF'
{"ceilings": {"network_1_stream_bits_per_s": 9.6e8, "rtt_p50_seconds": 0.002017},
 "results": [{"strategy": "scp", "status": "ok", "verified": true, "seconds": 53.95},
  {"strategy": "tar-ssh", "status": "ok", "verified": true, "seconds": 2.9},
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 12.1},
  {"strategy": "zstd", "status": "failed", "verified": false, "seconds": null}]}
EOF
is "probed_link" "$(probed_link "$tmp/link.json")" "0.96 Gbit/s, 2017 µs"
# BENCH_KEEP_JSON: a directory not there yet is made (a missing one once lost a pass's JSON)
BENCH_KEEP_JSON=$tmp/kept/pass keep_json "$tmp/link.json"
is "keep_json: into a new directory" "$(cmp "$tmp/link.json" "$tmp/kept/pass/link.json" && echo same)" "same"
: >"$tmp/a-file"
is "keep_json: one that cannot be made is said" \
	"$(BENCH_KEEP_JSON=$tmp/a-file/pass keep_json "$tmp/link.json" 2>&1 | tail -n 1)" \
	"bench: BENCH_KEEP_JSON: cannot keep $tmp/link.json in $tmp/a-file/pass"
is "keep_json: a run that left no JSON, nothing to keep" \
	"$(BENCH_KEEP_JSON=$tmp/kept/pass keep_json "$tmp/never.json" 2>&1; ls "$tmp/kept/pass")" "link.json"

# ---- the forecast section (scripts/bench/forecast.sh)

# --cases and --links: in the section's order, without repeats; anything else exits 2
is "fc_parse_list: order and repeats" "$(fc_parse_list --cases realistic,small,realistic "$FORECAST_CASES_ALL")" "small,realistic"
is "fc_parse_list: all" "$(fc_parse_list --links all "$FORECAST_LINKS_ALL" none)" "2ms,20ms,200m"
is "fc_parse_list: none, where allowed" "$(fc_parse_list --links none "$FORECAST_LINKS_ALL" none)" ""
for bad in "--cases|none|" "--cases|bogus|" "--cases||" "--cases|small,,big|" "--links|none,2ms|none" "--links|2ms,|none" "--links|5ms|none"; do
	IFS='|' read -r opt list none <<<"$bad"
	rc=0
	(fc_parse_list "$opt" "$list" "$([ "$opt" = --cases ] && echo "$FORECAST_CASES_ALL" || echo "$FORECAST_LINKS_ALL")" "$none") \
		>/dev/null 2>"$tmp/err" || rc=$?
	is "fc_parse_list refuses $opt '$list'" "$rc $(wc -l <"$tmp/err") $(grep -c "^bench: $opt: expected" "$tmp/err")" "2 1 1"
done
# ... and so does bench.sh, before anything runs; --only names no truth section any more
for bad in "--cases bogus" "--links 5ms" "--links none,20ms" "--serial-files 0" "--serial-files x" "--only truth" "--truth-repeat 3"; do
	rc=0
	# shellcheck disable=SC2086 # the words of $bad are the arguments
	bash "$(dirname "$0")/../bench.sh" $bad >/dev/null 2>"$tmp/err" || rc=$?
	is "bench.sh $bad: exit 2 with one line" "$rc $(wc -l <"$tmp/err")" "2 1"
done
# --plan: the frozen line first, the parts asked for, nothing run (no root needed)
rc=0
bash "$(dirname "$0")/../bench.sh" --plan --cases big,small --links 20ms >"$tmp/plan" 2>&1 || rc=$?
is "bench.sh --plan: exit 0, the frozen line first" "$rc $(head -n 1 "$tmp/plan" | cut -d' ' -f1-4)" "0 model frozen at commit"
is "bench.sh --plan: a row per case asked for, a column per link" \
	"$(grep -E '^\| (case|small|big|realistic) ' "$tmp/plan" | cut -d'|' -f2,4,5 | tr -s ' ')" \
	"$(printf '%s\n' ' case | 20ms | total '  ' small | about 16 min | about 26 min ' ' big | about 8 min | about 15 min ')"

# forecast_frozen: a repository of its own, the model's paths in it
repo=$tmp/repo
mkdir -p "$repo/transfer/model" "$repo/transfer/strategy" "$repo/docs" "$repo/cmd"
for f in transfer/model/forecast.c transfer/strategy/scp.c docs/MODEL.md cmd/main.c; do echo one >"$repo/$f"; done
git -C "$repo" init -q && git -C "$repo" add -A &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m one
head=$(git -C "$repo" rev-parse --short HEAD)
touch -d '1 hour ago' "$repo"/transfer/*/*.c "$repo/docs/MODEL.md"
: >"$repo/xfercmp"
is "forecast_frozen: clean, built after" "$(forecast_frozen "$repo" "$repo/xfercmp")" "model frozen at commit $head"
echo "a change" >"$repo/cmd/main.c"
is "forecast_frozen: a change outside the model is not dirty" "$(forecast_frozen "$repo" "$repo/xfercmp")" "model frozen at commit $head"
echo "a change" >"$repo/docs/MODEL.md"
touch -d '1 hour ago' "$repo/docs/MODEL.md"
is "forecast_frozen: MODEL.md changed" "$(forecast_frozen "$repo" "$repo/xfercmp")" "model frozen at commit $head, dirty: docs/MODEL.md"
echo "a change" >"$repo/transfer/model/forecast.c"
echo new >"$repo/transfer/model/new.c"
echo "a change" >"$repo/transfer/strategy/scp.c"
is "forecast_frozen: four changed (one new), the binary older" "$(forecast_frozen "$repo" "$repo/xfercmp")" \
	"model frozen at commit $head, dirty: docs/MODEL.md, transfer/model/forecast.c, transfer/strategy/scp.c and 1 more; xfercmp is older than transfer/model/forecast.c: run make"
is "forecast_frozen: no binary" "$(forecast_frozen "$repo" "$repo/none")" \
	"model frozen at commit $head, dirty: docs/MODEL.md, transfer/model/forecast.c, transfer/strategy/scp.c and 1 more; none not built"
mkdir "$tmp/not-git"
is "forecast_frozen: not a checkout" "$(forecast_frozen "$tmp/not-git" "$tmp/not-git/xfercmp")" \
	"model frozen at: unknown ($tmp/not-git is not a git checkout)"

# the estimate: its figures at the issue's sizes, and how it grows
FORECAST_FILES=20000 FORECAST_SIZE=1G SERIAL_FILES=1000 REPEAT=3
is "size_bytes" "$(size_bytes 1G) $(size_bytes 512M) $(size_bytes 3) $(size_bytes 2KiB)" "1073741824 536870912 3 2048"
is "fc_estimate: small unshaped, alone and with a link (its serial tree too)" \
	"$(fc_estimate small unshaped "") $(fc_estimate small unshaped 2ms)" "547 637"
is "fc_estimate: small on each link" "$(fc_estimate small 2ms x) $(fc_estimate small 20ms x) $(fc_estimate small 200m x)" "355 949 619"
# 1 GiB at 200 Mbit/s: every strategy waits on the link (12.5 trees' worth of bytes a round)
is "fc_estimate: big unshaped and at 200 Mbit/s" "$(fc_estimate big unshaped x) $(fc_estimate big 200m x)" "415 1762"
is "fc_estimate: realistic has 10% more entries" "$(fc_estimate realistic 20ms x)" "1027"
is "fc_estimate: one run each" "$(REPEAT=1 fc_estimate big 2ms x)" "174"
is "fc_duration" "$(fc_duration 20) / $(fc_duration 547) / $(fc_duration 8280)" "under a minute / about 9 min / about 2 h 18 min"

# (a): probes-only forecasts against the unshaped run, from a fabricated schema-3 report
cat >"$tmp/fc-a.json" <<'EOF'
{"schema": 3, "streams": 2,
 "ceilings": {"network_1_stream_bits_per_s": 1.6e10, "rtt_p50_seconds": 0.000059},
 "results": [
  {"strategy": "scp", "status": "ok", "verified": true, "seconds": 12.0, "runs": 3, "min_seconds": 11.5, "max_seconds": 13.0,
   "started_at": "2026-12-06T09:41:07.123Z", "wire_bytes": 91000000, "forecast_ratio": 0.8333,
   "forecast": {"seconds": 10.0, "low": 8.0, "high": 12.5, "basis": "probes", "made_at": "2026-12-06T09:41:06.900Z",
     "bound": "latency", "wire_bytes": 90000000, "requests": 80000, "flush_seconds": 0.2, "why": null,
     "need_seconds": {"network": 0.1, "latency": 9.5, "disk": 0.5, "metadata": 3.0, "cpu": 4.0}}},
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 1.0, "runs": 3, "min_seconds": 0.9, "max_seconds": 1.6,
   "started_at": "2026-12-06T09:42:00.000Z",
   "forecast": {"seconds": 2.0, "low": 1.5, "high": 2.5, "basis": "probes", "made_at": "2026-12-06T09:41:06.901Z", "bound": "metadata", "why": null}},
  {"strategy": "zstd", "status": "ok", "verified": true, "seconds": 3.0, "runs": 3, "min_seconds": 2.9, "max_seconds": 3.1,
   "started_at": "2026-12-06T09:42:10.000Z",
   "forecast": {"seconds": 3.0, "low": 2.0, "high": 4.0, "basis": "probes", "made_at": "2026-12-06T09:42:10.000Z", "bound": "cpu", "why": null}},
  {"strategy": "parallel", "status": "ok", "verified": true, "seconds": 1.0, "runs": 3, "min_seconds": 1.0, "max_seconds": 1.0,
   "started_at": "2026-12-06T09:42:20.000Z",
   "forecast": {"seconds": 1.1, "low": 1.0, "high": 1.2, "basis": "sample", "made_at": "2026-12-06T09:41:06.902Z", "bound": "disk", "why": null}},
  {"strategy": "real-tar-ssh", "status": "ok", "verified": true, "seconds": 4.0, "runs": 1, "min_seconds": 4.0, "max_seconds": 4.0,
   "started_at": "2026-12-06T09:42:30.000Z",
   "forecast": {"seconds": 3.0, "low": 2.5, "high": 3.5, "basis": "probes", "made_at": "2026-12-06T09:41:06.903Z", "bound": "network", "why": null}},
  {"strategy": "cmd:mine", "status": "ok", "verified": true, "seconds": 5.0, "runs": 3, "min_seconds": 5.0, "max_seconds": 5.5,
   "started_at": "2026-12-06T09:42:40.000Z",
   "forecast": {"seconds": null, "low": null, "high": null, "basis": "probes", "made_at": "2026-12-06T09:41:06.904Z", "bound": null,
     "why": "a cmd: strategy has no model"}},
  {"strategy": "real-rclone", "status": "skipped", "verified": false, "seconds": null, "runs": 0, "started_at": null,
   "forecast": {"seconds": 30.0, "low": 20.0, "high": 40.0, "basis": "probes", "made_at": "2026-12-06T09:41:06.905Z", "bound": "latency", "why": null}},
  {"strategy": "tar-ssh", "status": "ok", "verified": false, "seconds": 2.0, "runs": 3, "min_seconds": 1.9, "max_seconds": 2.2,
   "started_at": "2026-12-06T09:42:50.000Z", "forecast": null}]}
EOF
fc_held_records "$tmp/fc-a.json" small | fc_judge_held >"$tmp/fc-a.tsv"
is "fc_held_rows: each judgement" "$(fc_held_rows <"$tmp/fc-a.tsv")" \
"| small | scp | 10.00 | 8.00-12.50 | latency | 12.00 | 3: 11.50-13.00 (12%) | 0.83 | target met |
| small | splice | 2.00 | 1.50-2.50 | metadata | 1.00 | 3: 0.90-1.60 (70%) | 2.00 | target not met |
| small | zstd | 3.00 | 2.00-4.00 | cpu | 3.00 | 3: 2.90-3.10 (7%) | 1.00 | not held out |
| small | parallel | 1.10 | 1.00-1.20 | disk | 1.00 | 3: 1.00-1.00 (0%) | 1.10 | basis sample |
| small | real-tar-ssh | 3.00 | 2.50-3.50 | network | 4.00 | 1 | 0.75 | target met |
| small | cmd:mine | n/a: a cmd: strategy has no model | n/a | n/a | 5.00 | 3: 5.00-5.50 (10%) | n/a | n/a |
| small | real-rclone | 30.00 | 20.00-40.00 | latency | skipped | n/a | n/a | n/a |
| small | tar-ssh | n/a | n/a | n/a | unverified | n/a | n/a | n/a |"
# the target is judged on the unrounded ratio: 1.504 shows 1.50 and is outside
printf 'big\tzstd\town\t1.504\t\t\t\tprobes\t\tok\t1\t1\t1\t1\tyes\n' | fc_judge_held >"$tmp/edge.tsv"
is "fc_judge_held: 1.504 is outside 0.67 - 1.5" "$(fc_held_rows <"$tmp/edge.tsv" | cut -d'|' -f9,10)" " 1.50 | target not met "
is "fc_summary a: counts, the largest error, the widest spread" "$(fc_summary a <"$tmp/fc-a.tsv")" \
	"(a) probes-only: 2 of 3 within 0.67 – 1.5 (own strategies 1 of 2; real tools 1 of 1); the largest error: splice on small, 2.00 (2.00x off); the widest spread of the runs: splice on small, 0.90-1.60 s (70% of the median); 4 without a forecast or a measured time; not held out: 1."
is "fc_held_records: a run that left no JSON is one failed row" \
	"$(fc_held_records "$tmp/never.json" big | fc_judge_held | fc_held_rows)" "| big | all | n/a | n/a | n/a | failed | n/a | n/a | n/a |"

# (b): the unshaped run's what-ifs against the run on the link
cat >"$tmp/fc-src.json" <<'EOF'
{"schema": 3, "streams": 2, "what_if": [
  {"rate_bits_per_s": 1000000000, "rtt_seconds": 0.002, "label": "on a 1 Gbit/s, 2 ms link",
   "forecasts": {
    "scp": {"seconds": 50.0, "low": 40.0, "high": 60.0,
      "carried": {"wire_bytes": 100000000, "requests": 80000, "request_work_seconds": 5.0, "off_link_seconds": 3.0, "flush_seconds": 0.2},
      "recomputed": {"link_bytes_per_s": 1.25e8, "rtt_seconds": 0.002, "request_seconds": 42.0, "network_seconds": 0.8, "latency_seconds": 40.0}},
    "splice": {"seconds": 0.5, "low": 0.4, "high": 0.6, "carried": {"wire_bytes": 125000000}, "recomputed": {}},
    "real-tar-ssh": {"seconds": 9.0, "low": 8.0, "high": 10.0, "carried": {"wire_bytes": null}, "recomputed": {}},
    "parallel": {"seconds": null, "low": null, "high": null, "carried": {"wire_bytes": 125000000}}}},
  {"rate_bits_per_s": 200000000, "rtt_seconds": 0.01, "label": "on a 200 Mbit/s, 10 ms link",
   "forecasts": {"scp": {"seconds": 250.0, "low": 200.0, "high": 300.0, "carried": {"wire_bytes": 100000000}}}}]}
EOF
cat >"$tmp/fc-2ms.json" <<'EOF'
{"schema": 3, "ceilings": {"network_1_stream_bits_per_s": 9.6e8, "rtt_p50_seconds": 0.002006},
 "results": [
  {"strategy": "scp", "status": "ok", "verified": true, "seconds": 52.0, "runs": 3, "min_seconds": 51.0, "max_seconds": 55.0, "wire_bytes": 101000000},
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 1.2, "runs": 3, "min_seconds": 1.1, "max_seconds": 1.3, "wire_bytes": null},
  {"strategy": "real-tar-ssh", "status": "ok", "verified": true, "seconds": 10.0, "runs": 3, "min_seconds": 9.8, "max_seconds": 10.4, "wire_bytes": 1200000000},
  {"strategy": "zstd", "status": "ok", "verified": true, "seconds": 5.0, "runs": 3, "min_seconds": 4.9, "max_seconds": 5.2, "wire_bytes": 60000000},
  {"strategy": "parallel", "status": "failed", "verified": false, "seconds": null, "runs": 0}]}
EOF
fc_what_if_records "$tmp/fc-src.json" "$tmp/fc-2ms.json" L2 1e9 0.002 small | fc_judge_what_if >"$tmp/fc-b.tsv"
is "fc_what_if_rows: ratio, target, the wire floor" "$(fc_what_if_rows <"$tmp/fc-b.tsv")" \
"| L2 | small | scp | 50.00 | 40.00-60.00 | 52.00 | 3: 51.00-55.00 (8%) | 0.96 | target met | 0.81 (measured) | yes |
| L2 | small | splice | 0.50 | 0.40-0.60 | 1.20 | 3: 1.10-1.30 (17%) | 0.42 | target not met | 1.00 (carried) | no |
| L2 | small | real-tar-ssh | 9.00 | 8.00-10.00 | 10.00 | 3: 9.80-10.40 (6%) | 0.90 | target met | 9.60 (measured) | no |
| L2 | small | zstd | n/a: no what-if forecast | n/a | 5.00 | 3: 4.90-5.20 (6%) | n/a | n/a | 0.48 (measured) | n/a |
| L2 | small | parallel | n/a | n/a | failed | n/a | n/a | n/a | 1.00 (carried) | n/a |"
is "fc_summary b: counts, the largest error, the forecasts below the floor" "$(fc_summary b <"$tmp/fc-b.tsv")" \
	"(b) what-if: 2 of 3 within 0.80 – 1.25 (own strategies 1 of 2; real tools 1 of 1); the largest error: splice on small at L2, 0.42 (2.40x off); the widest spread of the runs: splice on small at L2, 1.10-1.30 s (17% of the median); 2 without a forecast or a measured time; below the wire floor: 2 of 3 (splice on small at L2, real-tar-ssh on small at L2)."
is "fc_what_if_records: the 200 Mbit/s what-if read for that link" \
	"$(fc_what_if_records "$tmp/fc-src.json" "$tmp/fc-2ms.json" L200 2e8 0.010 small | fc_judge_what_if | fc_what_if_rows | head -n 1)" \
	"| L200 | small | scp | 250.00 | 200.00-300.00 | 52.00 | 3: 51.00-55.00 (8%) | 4.81 | target not met | 4.04 (measured) | yes |"
is "fc_what_if_records: no what-if for a link the unshaped run was not asked about" \
	"$(fc_what_if_records "$tmp/fc-src.json" "$tmp/fc-2ms.json" L20 1e9 0.020 small | cut -f3,15 | head -n 1)" $'scp\tno what-if for this link'
is "fc_what_if_records: no run on the link is one failed row" \
	"$(fc_what_if_records "$tmp/fc-src.json" "$tmp/never.json" L2 1e9 0.002 big | fc_judge_what_if | fc_what_if_rows)" \
	"| L2 | big | all | n/a: no what-if forecast | n/a | failed | n/a | n/a | n/a | n/a | n/a |"
is "fc_link_cell: the link and what was probed" "$(fc_link_cell 2ms "$tmp/fc-2ms.json")" "1 Gbit/s, 2 ms (probed 0.96 Gbit/s, 2006 µs)"
is "fc_link_cell: a round trip far from the link's" "$(fc_link_cell 20ms "$tmp/fc-2ms.json")" \
	"1 Gbit/s, 20 ms (probed 0.96 Gbit/s, 2006 µs, not as asked)"
is "fc_streams" "$(fc_streams "$tmp/fc-src.json")|$(fc_streams "$tmp/link.json")" "-P 2|"
ROUND_ORDER=(scp real-scp real-scp-legacy tar-ssh splice parallel real-rsync real-rclone real-fpsync)
fc_strategy_lists
is "fc_strategy_lists: the strategies that wait per file apart" "$FC_FAST / $FC_SERIAL" \
	"tar-ssh,splice,parallel,real-rsync,real-fpsync / scp,real-scp,real-scp-legacy,real-rclone"

# the section's runs, with a stand-in xfercmp (it logs its arguments and writes a schema-3
# report: every forecast 2 s, every run 2 s; its probed round trip the stand-in testbed's
# last --delay) and the stand-in testbed: which invocation runs on which link, with which
# strategies, -P and what-ifs; the tables they make; what BENCH_KEEP_JSON keeps
cat >"$tmp/bin/xfercmp-stub" <<'STUB'
#!/usr/bin/perl
use strict; use warnings; use JSON::PP;
my @a = @ARGV;
open(my $log, ">>", $ENV{FC_STUB_LOG}) or die; print $log "@a\n"; close $log;
my (@s, @w, %o, $json);
while (@a) {
	my $x = shift @a;
	if ($x eq "-s") { @s = map { $_ eq "all" ? ("scp", "splice") : $_ eq "real" ? ("real-scp", "real-tar-ssh") : $_ } split /,/, shift @a }
	elsif ($x eq "--json") { $json = shift @a }
	elsif ($x eq "--what-if") {
		my ($r, $u, $t) = (shift @a) =~ /^rate=(\d+)([mg])bit,rtt=(\d+)ms$/ or die "what-if?";
		push @w, { rate_bits_per_s => $r * ($u eq "g" ? 1e9 : 1e6), rtt_seconds => $t / 1000,
			forecasts => { map { $_ => { seconds => 2.0, low => 1.5, high => 2.5, carried => { wire_bytes => 1000 } } } @s } };
	} elsif ($x =~ /^(-P|--repeat|-w|--files|--size|--source-dir|-F|--remote-dir)$/) { $o{$x} = shift @a }
}
my $rtt = 0.00005;
if (open(my $t, "<", $ENV{FC_STUB_TESTBED_LOG})) {
	my @up = grep { /^up/ } <$t>;
	$rtt = $1 / 1000 if @up && $up[-1] =~ /--delay (\d+)ms/;
}
my @r = map { { strategy => $_, status => "ok", verified => JSON::PP::true, seconds => 2.0, runs => 0 + $o{"--repeat"},
	min_seconds => 1.9, max_seconds => 2.1, started_at => "2026-12-06T09:41:10.000Z", wire_bytes => 1000,
	forecast => { seconds => 2.0, low => 1.5, high => 2.5, basis => "probes", made_at => "2026-12-06T09:41:09.000Z", bound => "network" } } } @s;
open(my $f, ">", $json) or die;
print $f encode_json({ schema => 3, streams => 0 + ($o{"-P"} // 3), results => \@r, what_if => \@w,
	ceilings => { network_1_stream_bits_per_s => 9.5e8, rtt_p50_seconds => $rtt } });
STUB
chmod +x "$tmp/bin/xfercmp-stub"
mkdir "$tmp/work"
: >"$tmp/testbed.log"
rc=0
(
	export FC_STUB_LOG=$tmp/xfercmp.log FC_STUB_TESTBED_LOG=$tmp/testbed.log BENCH_KEEP_JSON=$tmp/kept-fc
	XFERCMP=$tmp/bin/xfercmp-stub TESTBED_SH=$tmp/testbed.sh WORK=$tmp/work
	# shellcheck disable=SC2317 # called by the section
	drop_caches() { :; }
	# shellcheck disable=SC2317 # called by watch
	testbed_sshd() { echo stand-in; }
	FORECAST_CASES=small,big FORECAST_LINKS=2ms,200m FORECAST_FILES=20 SERIAL_FILES=5 REPEAT=3 FAILED=0
	ROUND_ORDER=(scp splice real-scp real-tar-ssh)
	section_forecast
	exit "$FAILED"
) >"$tmp/fc.md" 2>"$tmp/fc.err" || rc=$?
is "section_forecast: runs, exit 0" "$rc" 0
is "section_forecast: each invocation's workload, strategies, -P and what-ifs, in order" \
	"$(sed -E 's/^-F [^ ]+ --remote-dir [^ ]+ //; s/ --source-dir [^ ]+//; s/ --json .*//; s/ testbed$//; s/--what-if rate=/wi /g' "$tmp/xfercmp.log")" \
	"-w smallfiles --files 20 -s all,real wi 1gbit,rtt=2ms wi 200mbit,rtt=10ms --repeat 3
-w smallfiles --files 5 -s scp,real-scp wi 1gbit,rtt=2ms wi 200mbit,rtt=10ms --repeat 3
-w largefile --size 1G -s all,real wi 1gbit,rtt=2ms wi 200mbit,rtt=10ms --repeat 3
-w smallfiles --files 20 -s splice,real-tar-ssh -P 3 --repeat 3
-w smallfiles --files 5 -s scp,real-scp -P 3 --repeat 3
-w largefile --size 1G -s all,real -P 3 --repeat 3
-w smallfiles --files 20 -s splice,real-tar-ssh -P 3 --repeat 3
-w smallfiles --files 5 -s scp,real-scp -P 3 --repeat 3
-w largefile --size 1G -s all,real -P 3 --repeat 3"
is "section_forecast: the link set before each run, unshaped at the end" "$(grep -v status "$tmp/testbed.log" | uniq)" \
	"up
up --rate 1gbit --delay 2ms
up --rate 200mbit --delay 10ms
up"
is "section_forecast: the frozen line under the heading" "$(sed -n 4p "$tmp/fc.md" | cut -d' ' -f1-4)" "model frozen at commit"
is "section_forecast: (a) a row per strategy and case, each judged" \
	"$(sed -n '/^### (a)/,/^### (b)/p' "$tmp/fc.md" | grep -c '| 1.00 | target met |$')" 8
is "section_forecast: (b) a row per strategy, case and link, each judged, on the link asked for" \
	"$(sed -n '/^### (b)/,$p' "$tmp/fc.md" | grep '| 1.00 | target met | 0.00 (carried) | yes |$' | grep -vc 'not as asked')" 16
is "section_forecast: (b) the serial strategies' own tree, named" \
	"$(grep -c '^| 200 Mbit/s, 10 ms (probed 0.95 Gbit/s, 10000 µs) | small, 5 files, own run | scp |' "$tmp/fc.md")" 1
is "section_forecast: the shaped runs' -P, from the unshaped runs" \
	"$(grep -o "unshaped run's -P ([^)]*)" "$tmp/fc.md")" "unshaped run's -P (small -P 3; small's 5 files -P 3; big -P 3)"
is "section_forecast: the summaries" "$(grep -c '^(a) probes-only: 8 of 8 within\|^(b) what-if: 16 of 16 within' "$tmp/fc.md")" 2
is "section_forecast: BENCH_KEEP_JSON keeps every invocation's JSON" "$(cd "$tmp/kept-fc" && printf '%s ' *)" \
	"forecast-big-200m.json forecast-big-2ms.json forecast-big-unshaped.json forecast-small-200m.json forecast-small-2ms.json forecast-small-serial-200m.json forecast-small-serial-2ms.json forecast-small-serial-unshaped.json forecast-small-unshaped.json "

# the link section: a run's share of the 1 Gbit/s link, the fastest verified result
is "link_rate: 4 GiB in 40 s of 1 Gbit/s" "$(link_rate 40 4294967296)" "0.86"
is "link_rate: a failed run" "$(link_rate failed 4294967296)" "n/a"
is "link_best: the fastest verified result" "$(link_best "$tmp/link.json")" "tar-ssh 2.9"
echo '{"results": [{"strategy": "splice", "status": "failed", "verified": false}]}' >"$tmp/none.json"
is "link_best: none verified" "$(link_best "$tmp/none.json")" "none failed"
cat >"$tmp/explain.json" <<'EOF'
{"results": [
  {"strategy": "splice", "status": "ok", "seconds": 5.69, "verdict": "metadata-bound", "close_behind": "network", "causal_verdict": "metadata", "causal_agrees": true,
   "explain": [{"removed": "dest_disk", "status": "ok", "seconds": 0.32, "saved_fraction": 0.9438},
               {"removed": "network", "status": "skipped", "seconds": null, "saved_fraction": null}]},
  {"strategy": "tar-ssh", "status": "ok", "seconds": 9.0, "verdict": "cpu-bound", "causal_verdict": "metadata", "causal_agrees": false,
   "explain": [{"removed": "durable_write", "status": "ok", "seconds": 3.0, "saved_fraction": 0.6667}]},
  {"strategy": "zstd", "status": "ok", "seconds": 1.0, "verdict": "cpu-bound"}]}
EOF
is "explain_rows: verdicts, savings, agreement" "$(explain_rows "$tmp/explain.json" explain-small)" \
"| explain-small | splice | 5.69 | metadata-bound; network close behind | metadata | dest_disk 0.32 s (-94%); network skipped | agree |
| explain-small | tar-ssh | 9.00 | cpu-bound | metadata | durable_write 3.00 s (-67%) | disagree |"

cat >"$tmp/sampled.json" <<'EOF'
{"timing": {"answer_seconds": 12.5}, "results": [
  {"strategy": "splice", "status": "ok", "sample_seconds": 0.61, "forecast": {"seconds": 11.0, "low": 10.0, "high": 12.5, "basis": "sample"}},
  {"strategy": "scp", "status": "ok", "sample_seconds": 3.2, "forecast": {"seconds": 90.0, "low": 80.0, "high": 95.0, "basis": "sample"}},
  {"strategy": "real-rsync", "status": "ok", "sample_seconds": 0.9, "forecast": {"seconds": null, "why": "no probes"}}]}
EOF
cat >"$tmp/whole.json" <<'EOF'
{"timing": {"answer_seconds": 150.0}, "results": [
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 10.0, "run_seconds": [10.0]},
  {"strategy": "scp", "status": "ok", "verified": true, "seconds": 60.0, "run_seconds": [60.0]},
  {"strategy": "real-rsync", "status": "failed", "verified": false, "seconds": null, "run_seconds": []}]}
EOF
is "sample_rows: forecast of the whole against the whole's run" "$(sample_rows "$tmp/sampled.json" "$tmp/whole.json" small)" \
"| small | splice | 0.61 | 11.00 (10.00 - 12.50) | 10.00 | 1.10 | target met |
| small | scp | 3.20 | 90.00 (80.00 - 95.00) | 60.00 | 1.50 | target not met |
| small | real-rsync | 0.90 | none: no probes | failed | n/a | n/a |"
is "sample_answer: the answer and the sum of the verified runs" "$(sample_answer "$tmp/whole.json")" "150 70"
is "sample_answer: no file" "$(sample_answer "$tmp/missing.json")" "n/a n/a"

# sample_generate: a generated case's workload is written before its invocations, once
mkdir "$tmp/gen"
cat >"$tmp/bin/xfercmp-gen" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$GEN_LOG"
: >"${*: -1}.manifest"
STUB
chmod +x "$tmp/bin/xfercmp-gen"
gen_calls=$(
	export GEN_LOG=$tmp/gen.log
	XFERCMP=$tmp/bin/xfercmp-gen WORK=$tmp/gen FILES=7 SIZE=3M SAMPLE_TREE=/usr
	sample_generate small
	sample_generate small
	sample_generate big
	sample_generate tree
	cat "$GEN_LOG"
)
is "sample_generate: each generated case once, with its workload's options; not a tree" "$gen_calls" \
"gen -q -w smallfiles --files 7 $tmp/gen/sample-small
gen -q -w largefile --size 3M $tmp/gen/sample-big"

echo "1..$n"
exit "$failed"
