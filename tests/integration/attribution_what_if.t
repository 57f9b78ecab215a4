#!/usr/bin/env bash
# What-if checked against reality (issues 20, 41). From runs on the unshaped
# testbed, xfercmp forecasts each strategy on a 500 Mbit/s, 2 ms link
# (--what-if rate=500mbit,rtt=2ms): the run carried onto that link, what
# belongs to the workload and hosts kept as measured, what belongs to the
# link computed again (docs/MODEL.md, "Another link"). Then the testbed is
# shaped to 500 Mbit/s and delayed by 2 ms (scripts/testbed.sh up --rate
# 500mbit --delay 2ms) and the same runs are measured there. Not 1 Gbit/s:
# there tar-ssh on 512 MiB read 0.73 and 0.749 of the shaped run in two runs
# (parallel 1.06 and 0.94, scp 0.84). The delay is our delayer's (the kernel
# has no netem), a userspace process on the same two cores as ssh, sshd and
# tar, and at 1 Gbit/s tar-ssh is near its CPU ceiling here: the likely
# cause, not measured. A link the testbed does not make CPU-bound checks the
# what-if's mechanism; its accuracy is the bench's (--only forecast). Each forecast must be
# within 25% of what the shaped, delayed run measured: scp on 5,000 small
# files (one request after another: the round trips set its time), tar-ssh
# and parallel on one 512 MiB file (the rate sets theirs). The JSON names
# what each forecast carried and what it computed again. And the delayed scp
# run is the truth case for latency: 5,000 files at 2 ms read latency-bound,
# the latency share at least 0.6.
#
# Needs root (the testbed). About 2.5 minutes; run under the testbed lock:
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/attribution_what_if.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
work=$(mktemp -d /var/tmp/xfercmp-what-if.XXXXXX)
cleanup() {
	"$tb" up >/dev/null 2>&1	# leave the link unshaped and undelayed for whoever comes next
	"$tb" down >/dev/null 2>&1
	if [ -n "${XFERCMP_KEEP_JSON:-}" ]; then cp "$work"/*.json "$XFERCMP_KEEP_JSON"/ 2>/dev/null; fi
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

plan 16

scenario="rate=500mbit,rtt=2ms"
small=(-w smallfiles --files 5000 -s scp)
large=(-w largefile --size 512M -s tar-ssh,parallel)
# the workloads are generated once and kept, so both links move the same bytes
small_src="$work/src-small" large_src="$work/src-large"

# runs NAME ARGS...: one xfercmp run to the testbed, its JSON in $work/NAME.json
runs() {
	local name=$1
	shift
	check "$name: runs and verifies" "$xf" -F "$cfg" --probe-seconds 1 \
		--json "$work/$name.json" "$@" testbed
}

check "testbed up, unshaped" "$tb" up
runs plain-small "${small[@]}" --source-dir "$small_src" --what-if "$scenario"
runs plain-large "${large[@]}" --source-dir "$large_src" --what-if "$scenario"
check "testbed shaped to 500 Mbit/s and delayed 2 ms" "$tb" up --rate 500mbit --delay 2ms
runs delayed-small "${small[@]}" --source-dir "$small_src"
runs delayed-large "${large[@]}" --source-dir "$large_src"

# forecast_vs_measured PLAIN DELAYED STRATEGY: the what-if forecast of the plain run
# for STRATEGY against the delayed run's measured time
forecast_vs_measured() {
	local plain="$work/$1.json" delayed="$work/$2.json" s=$3 forecast measured ratio
	forecast=$(json_get "$plain" "d['what_if'][0]['forecasts']['$s']['seconds']" 2>&1)
	measured=$(json_get "$delayed" "[r for r in d['results'] if r['strategy'] == '$s'][0]['seconds']" 2>&1)
	ratio=$(python3 -c "print(float('$forecast') / float('$measured'))" 2>&1)
	python3 -c "import sys; sys.exit(0 if 0.75 <= float('$ratio') <= 1.25 else 1)" 2>/dev/null
	ok $? "$s: forecast on 500 Mbit/s, 2 ms from the unshaped run $forecast s, measured there $measured s: ratio $ratio within 25%"
}
forecast_vs_measured plain-small delayed-small scp
forecast_vs_measured plain-large delayed-large tar-ssh
forecast_vs_measured plain-large delayed-large parallel
keys=$(json_get "$work/plain-small.json" "sorted(d['what_if'][0]['forecasts']['scp']['carried']) + sorted(d['what_if'][0]['forecasts']['scp']['recomputed'])" 2>&1)
[ "$keys" = "['flush_seconds', 'off_link_seconds', 'request_work_seconds', 'requests', 'wire_bytes', 'latency_seconds', 'link_bytes_per_s', 'network_seconds', 'request_seconds', 'rtt_seconds']" ]
ok $? "the what-if names what it carried and what it computed again: $keys"

# the delayed run's own accounting of scp: latency-bound, most of the time waited
dj="$work/delayed-small.json"
verdict=$(json_get "$dj" "d['results'][0]['verdict']" 2>&1)
[ "$verdict" = latency-bound ]
ok $? "scp, 5,000 files at 2 ms: verdict $verdict (want latency-bound)"
share=$(json_get "$dj" "d['results'][0]['shares']['latency']" 2>&1)
python3 -c "import sys; sys.exit(0 if float('$share') >= 0.6 else 1)" 2>/dev/null
ok $? "scp, 5,000 files at 2 ms: latency share $share >= 0.6"
reason=$(json_get "$dj" "d['results'][0]['reason']" 2>&1)
# "N requests each waited 1.97 ms on the wire beyond their CPU: A s of B s"
[[ $reason == *"requests"*[0-9].[0-9][0-9]" ms "* ]]
ok $? "scp at 2 ms: the reason names the requests and the round trip: $reason"
before=$(json_get "$dj" "d['results'][0]['forecast']['made_at'] < d['results'][0]['started_at'] and 'predicted_seconds' not in d['results'][0]" 2>&1)
[ "$before" = True ]
ok $? "scp at 2 ms: its forecast was made before it ran, and no predicted_* field ($before)"
# the delayed link as the probes saw it: the round trip 2 ms and the rate 500 Mbit/s.
# The delayer (tests/tools/delayer.c) holds its delay within a few percent on a
# quiet machine, but a fresh-clone CI run's probe read a p50 of 1.77 ms: +-25%
rtt=$(json_get "$dj" "d['ceilings']['rtt_p50_seconds']" 2>&1)
python3 -c "import sys; sys.exit(0 if 0.0015 <= float('$rtt') <= 0.0025 else 1)" 2>/dev/null
ok $? "the delayed link's measured round trip $rtt s is 2 ms"
rate=$(json_get "$dj" "d['ceilings']['network_1_stream_bits_per_s']" 2>&1)
python3 -c "import sys; sys.exit(0 if 0.425e9 <= float('$rate') <= 0.525e9 else 1)" 2>/dev/null
ok $? "the delayed link's measured rate $rate bit/s is 500 Mbit/s"
# each strategy's forecast made before it ran, for the record
for f in delayed-small delayed-large plain-small plain-large; do
	json_get "$work/$f.json" "'; '.join('%s %.2f s forecast, %.2f s measured' % (r['strategy'], (r.get('forecast') or {}).get('seconds') or 0, r['seconds']) for r in d['results'])" 2>&1 |
		sed "s/^/$f: /" | diag
done
finish
