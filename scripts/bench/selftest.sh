#!/usr/bin/env bash
# Checks the pure helpers of scripts/bench/lib.sh: statistics, ratios, verdicts, the
# markdown rows, the JSON readers, and the round order and fidelity pairs derived from a
# canned `xfercmp --list-strategies`. Needs bash, awk and perl (JSON::PP); no root, no
# testbed, no xfercmp. Prints "ok N - ..." per check; exits 1 if any failed.
set -Eeuo pipefail

# shellcheck source=scripts/bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/bench/truth.sh
. "$(dirname "$0")/truth.sh"
# shellcheck source=scripts/bench/link.sh
. "$(dirname "$0")/link.sh"
# shellcheck source=scripts/bench/wan.sh
. "$(dirname "$0")/wan.sh"

# shellcheck source=scripts/bench/tap.sh
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# the truth section's rows: predicted / measured and the target, from a canned --json
cat >"$tmp/truth.json" <<'EOF'
{"ceilings": {"network_1_stream_bits_per_s": 9.6e8, "rtt_p50_seconds": 0.002017},
 "results": [{"strategy": "scp", "status": "ok", "verified": true, "seconds": 53.95, "predicted_seconds": 49.73, "verdict": "latency-bound",
   "samples": {"source": {"seconds": 50, "cpu": {"cpus": 2, "busy": 0.9}, "processes_cpu_seconds": 20, "boot_id": "b"},
               "destination": {"processes_cpu_seconds": 15, "boot_id": "b"}}},
  {"strategy": "tar-ssh", "status": "ok", "verified": true, "seconds": 2.9, "predicted_seconds": 1.29, "verdict": "network-bound",
   "runs": 3, "min_seconds": 2.71, "max_seconds": 3.456},
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 12.1, "predicted_seconds": 12.1, "verdict": "metadata-bound", "prediction_fitted": true},
  {"strategy": "zstd", "status": "failed", "verified": false, "seconds": 0, "predicted_seconds": null}]}
EOF
is "truth_rows: ratio, verdict, target" "$(truth_rows "$tmp/truth.json" small-2ms L)" \
"| small-2ms | L | scp | 49.73 | 53.95 | 1 | 0.92 | latency-bound | target met | 1.10 |
| small-2ms | L | tar-ssh | 1.29 | 2.90 | 3: 2.71-3.46 | 0.44 | network-bound | target not met | n/a |
| small-2ms | L | splice | 12.10 | 12.10 | 1 | 1.00 | metadata-bound | fitted: no check | n/a |
| small-2ms | L | zstd | n/a | failed | n/a | n/a | n/a | n/a | n/a |"
# runs per truth case: three in the big case by default, --truth-repeat everywhere
is "truth_repeat: default" "$(TRUTH_REPEAT=default; truth_repeat big; truth_repeat small-2ms)" "3
1"
is "truth_repeat: --truth-repeat 2" "$(TRUTH_REPEAT=2; truth_repeat big; truth_repeat small)" "2
2"
is "truth_link" "$(truth_link "$tmp/truth.json")" "0.96 Gbit/s, 2017 µs"
# BENCH_KEEP_JSON: a directory not there yet is made (a missing one once lost a pass's JSON)
BENCH_KEEP_JSON=$tmp/kept/pass keep_json "$tmp/truth.json"
is "keep_json: into a new directory" "$(cmp "$tmp/truth.json" "$tmp/kept/pass/truth.json" && echo same)" "same"
: >"$tmp/a-file"
is "keep_json: one that cannot be made is said" \
	"$(BENCH_KEEP_JSON=$tmp/a-file/pass keep_json "$tmp/truth.json" 2>&1 | tail -n 1)" \
	"bench: BENCH_KEEP_JSON: cannot keep $tmp/truth.json in $tmp/a-file/pass"

# the link section: a run's share of the 1 Gbit/s link, the fastest verified result
is "link_rate: 4 GiB in 40 s of 1 Gbit/s" "$(link_rate 40 4294967296)" "0.86"
is "link_rate: a failed run" "$(link_rate failed 4294967296)" "n/a"
is "link_best: the fastest verified result" "$(link_best "$tmp/truth.json")" "tar-ssh 2.9"
echo '{"results": [{"strategy": "splice", "status": "failed", "verified": false}]}' >"$tmp/none.json"
is "link_best: none verified" "$(link_best "$tmp/none.json")" "none failed"
cat >"$tmp/explain.json" <<'EOF'
{"results": [
  {"strategy": "splice", "status": "ok", "seconds": 5.69, "verdict": "metadata-bound", "causal_verdict": "metadata", "causal_agrees": true, "prediction_fitted": true,
   "explain": [{"removed": "dest_disk", "status": "ok", "seconds": 0.32, "saved_fraction": 0.9438},
               {"removed": "network", "status": "skipped", "seconds": null, "saved_fraction": null}]},
  {"strategy": "tar-ssh", "status": "ok", "seconds": 9.0, "verdict": "cpu-bound", "causal_verdict": "metadata", "causal_agrees": false,
   "explain": [{"removed": "durable_write", "status": "ok", "seconds": 3.0, "saved_fraction": 0.6667}]},
  {"strategy": "zstd", "status": "ok", "seconds": 1.0, "verdict": "cpu-bound"}]}
EOF
is "explain_rows: verdicts, savings, agreement" "$(explain_rows "$tmp/explain.json" explain-small)" \
"| explain-small | splice | 5.69 | metadata-bound (fitted) | metadata | dest_disk 0.32 s (-94%); network skipped | agree |
| explain-small | tar-ssh | 9.00 | cpu-bound | metadata | durable_write 3.00 s (-67%) | disagree |"

echo "1..$n"
exit "$failed"
