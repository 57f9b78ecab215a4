#!/usr/bin/env bash
# Checks the pure helpers of the cost, limits, pairs and scale parts of the bench
# (scripts/bench/{cost,limits,pairs,scale}.sh): the cost medians and table, fio's
# JSON, the best strategy and reference, the fastest of a pair's trio, the peaks and
# the targets; and bench.sh's refusal of bad values for the options they add. Needs
# bash, awk and perl (JSON::PP); no root, no testbed, no xfercmp. Prints "ok N - ..."
# per check; exits 1 if any failed.
set -Eeuo pipefail

here=$(dirname "$0")
# shellcheck source=scripts/bench/lib.sh
. "$here/lib.sh"
# shellcheck source=scripts/bench/cost.sh
. "$here/cost.sh"
# shellcheck source=scripts/bench/limits.sh
. "$here/limits.sh"
# shellcheck source=scripts/bench/pairs.sh
. "$here/pairs.sh"
# shellcheck source=scripts/bench/scale.sh
. "$here/scale.sh"

# shellcheck source=scripts/bench/tap.sh
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/a.json" <<'EOF2'
{"peak_rss": {"client_bytes": 90000000, "agent_bytes": 70000000},
 "results": [
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 2.0,
   "client_cpu_seconds_per_gib": 1.0, "agent_cpu_seconds_per_gib": 2.0,
   "client_peak_rss_bytes": 40000000, "agent_peak_rss_bytes": 30000000},
  {"strategy": "real-tar-nc", "status": "ok", "verified": true, "seconds": 9.0,
   "client_cpu_seconds_per_gib": null, "agent_cpu_seconds_per_gib": 3.0,
   "client_peak_rss_bytes": 20000000, "agent_peak_rss_bytes": null},
  {"strategy": "parallel", "status": "failed", "verified": false, "seconds": 0, "error": "lost",
   "client_cpu_seconds_per_gib": 9.0}
 ]}
EOF2
cat >"$tmp/b.json" <<'EOF2'
{"peak_rss": {"client_bytes": 95000000, "agent_bytes": null},
 "results": [
  {"strategy": "splice", "status": "ok", "verified": true, "seconds": 3.0,
   "client_cpu_seconds_per_gib": 2.0, "agent_cpu_seconds_per_gib": 4.0,
   "client_peak_rss_bytes": 50000000, "agent_peak_rss_bytes": 110000000},
  {"strategy": "parallel", "status": "ok", "verified": true, "seconds": 1.5,
   "client_cpu_seconds_per_gib": 5.0, "agent_cpu_seconds_per_gib": 6.0,
   "client_peak_rss_bytes": 60000000, "agent_peak_rss_bytes": 40000000},
  {"strategy": "real-fpsync", "status": "ok", "verified": true, "seconds": 4.0}
 ]}
EOF2

is "strategy_costs: medians of verified rounds; n/a for none; failed rounds left out" \
	"$(strategy_costs "$tmp/a.json" "$tmp/b.json")" \
	$'splice\t1.5\t3\t45000000\t70000000\nreal-tar-nc\tn/a\t3\t20000000\tn/a\nparallel\t5\t6\t60000000\t40000000\nreal-fpsync\tn/a\tn/a\tn/a\tn/a'
is "cost_table" "$(cost_table "N files" "$tmp/a.json" "$tmp/b.json" | sed -n '3p;4p')" \
	$'| splice | 1.50 | 3.00 | 4.50 | 45 | 70 |\n| real-tar-nc | n/a | 3.00 | n/a | 20 | n/a |'

cost_out=$(FILES=120000 SIZE=4G cost_section "$tmp/a.json" -- "$tmp/b.json")
is "cost_section: the small files' table, then the large file's" \
	"$(grep -c '^| strategy\|^| 120000 small files\|^| one 4G file' <<<"$cost_out") $(grep '^| splice' <<<"$cost_out" | tr '\n' '/')" \
	"2 | splice | 1.00 | 2.00 | 3.00 | 40 | 30 |/| splice | 2.00 | 4.00 | 6.00 | 50 | 110 |/"
is "limits_best: best own strategy, then best reference" "$(limits_best "$tmp/a.json" "$tmp/b.json")" \
	$'1.5 parallel\n4 real-fpsync'
is "limits_best, nothing ran" "$(limits_best "$tmp/none.json")" $'n/a none\nn/a none'

cat >"$tmp/fio.json" <<'EOF2'
{"jobs": [{"jobname": "read", "error": 0, "job_runtime": 903, "read": {"io_bytes": 1073741824}, "write": {"io_bytes": 0}},
          {"jobname": "write", "error": 0, "job_runtime": 1790, "read": {"io_bytes": 0}, "write": {"io_bytes": 1073741824}}]}
EOF2
is "fio_both_seconds: the later job's end" "$(fio_both_seconds "$tmp/fio.json" 1073741824)" 1.790
is "fio_both_seconds: a job short of its size failed" "$(fio_both_seconds "$tmp/fio.json" 2147483648)" failed
sed 's/"error": 0, "job_runtime": 903/"error": 5, "job_runtime": 903/' "$tmp/fio.json" >"$tmp/fio2.json"
is "fio_both_seconds: a job's error failed" "$(fio_both_seconds "$tmp/fio2.json" 1073741824)" failed
is "fio_both_seconds: no file" "$(fio_both_seconds "$tmp/none.json" 1)" failed

is "pairs_fastest" "$(pairs_fastest 2.0 1.5 n/a)" real-rclone
is "pairs_fastest, parallel" "$(pairs_fastest 1.0 1.5 3)" parallel
is "pairs_fastest, none ran" "$(pairs_fastest n/a n/a n/a)" none
is "pairs_cell" "$(pairs_cell 1.234 x) $(pairs_cell n/a 'skipped: no rclone') $(pairs_cell n/a '')" "1.23 skipped: no rclone n/a"

is "scale_json_peaks: highest of the runs and the lifetimes" "$(scale_json_peaks "$tmp/a.json" "$tmp/b.json")" "95000000 110000000"
is "scale_json_peaks, none" "$(scale_json_peaks "$tmp/none.json")" "n/a n/a"
is "scale_at_most" "$(scale_at_most 1.20 1.2) / $(scale_at_most 1.21 1.2) / $(scale_at_most n/a 1.2)" \
	"target met / target not met / n/a"
is "scale_below" "$(scale_below 299999999 300000000) / $(scale_below 300000000 300000000)" \
	"target met / target not met"
is "scale_cell" "$(scale_cell 2.345) $(scale_cell 'failed: x')" "2.35 failed: x"

# bench.sh refuses bad values of the options these sections add, before anything runs
for bad in "--only limits,bogus" "--scale-files 0" "--scale-files x" "--pair-streams 8,,4" "--pair-streams 0"; do
	rc=0
	# shellcheck disable=SC2086 # the words of $bad are the arguments
	bash "$here/../bench.sh" $bad >/dev/null 2>"$tmp/err" || rc=$?
	is "bench.sh $bad: exit 2 with one line" "$rc $(wc -l <"$tmp/err")" "2 1"
done

echo "1..$n"
exit "$failed"
