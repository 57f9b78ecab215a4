#!/usr/bin/env bash
# JSON schema 3 (issues 23 and 41): real --json output validates against
# docs/report.schema.json (with tests/tools/json_schema_check, a validator of
# the subset the file uses: its rejections are unit-tested in
# tests/unit/tools/test_json_schema.c); what was not measured is null; the
# network ceilings are bits per second (the table's Gbit/s); `xfercmp diff`
# reads a schema-1 report (tests/fixtures/report-schema1.json, written by the
# xfercmp before schema 2) beside a schema-3 one; every forecast was made
# before its strategy ran (made_at before started_at) and no in-sample
# prediction (predicted_*) is left. A local run, a --no-probes
# run, and a small run to the testbed host with an SSH strategy (the SSH
# probes). Needs root for the testbed part. Only talks to loopback and 198.18.0.2.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
schema="$top/docs/report.schema.json"
check_json="$top/build/tests/json_schema_check"
fixture1="$top/tests/fixtures/report-schema1.json"

[ -x "$check_json" ] || { echo "Bail out! no $check_json (make unit-tests builds it)"; exit 1; }
own_work schema

# valid JSON: passes when the validator says the file is valid, shows why not otherwise
valid() {
	local desc=$1 out rc
	out=$("$check_json" "$schema" "$2" 2>&1)
	rc=$?
	ok $rc "$desc"
	[ $rc -eq 0 ] || head -20 <<<"$out" | diag
}

# ---------------------------------------------------------------- a local run
bad='cmd:bad=echo {src} {dst} >&2; false'
json="$work/local.json"
check_rc 1 "local run: splice and a failing cmd: strategy, probes, a what-if (exit 1: one failed)" \
	"$xf" -w smallfiles --files 300 -s "splice,$bad" --probe-seconds 0.3 \
	--what-if rate=1gbit --json "$json"
valid "local run: the JSON validates against docs/report.schema.json" "$json"
got=$(json_get "$json" "d['schema']")
[ "$got" = 3 ]
ok $? "it says schema 3 ($got)"
got=$(json_get "$json" "(d['results'][0]['forecast']['made_at'] < d['results'][0]['started_at'], d['results'][0]['forecast']['basis'], [k for r in d['results'] for k in r if k.startswith('predicted') or k in ('misfit', 'prediction_fitted')])")
[ "$got" = "(True, 'probes', [])" ]
ok $? "splice's forecast was made before it ran, from the probes; no predicted_* field anywhere ($got)"
got=$(json_get "$json" "[k for k in ('seconds', 'phases', 'min_seconds', 'bytes', 'files', 'bytes_per_s', 'files_per_s', 'shares', 'verdict') if d['results'][1][k] is not None]")
[ "$got" = "[]" ]
ok $? "the failed strategy's times, counts, rates and attribution are null (not null: $got)"
got=$(json_get "$json" "[d['ceilings'][k] for k in ('ssh_bytes_per_s', 'sftp_rtt_seconds', 'ssh_cipher')]")
[ "$got" = "[None, None, None]" ]
ok $? "the SSH probes that did not run (no SSH strategy) are null ($got)"
got=$(json_get "$json" "(d['what_if'][0]['rate_bits_per_s'], d['what_if'][0]['rtt_seconds'])")
[ "$got" = "(1000000000.0, None)" ]
ok $? "--what-if rate only: the round trip kept as measured is null ($got)"
got=$(json_get "$json" "(lambda r: abs(r['bytes_per_s'] * r['seconds'] - r['bytes']) < 1 and abs(r['files_per_s'] * r['seconds'] - r['files']) < 0.01 and r['files'] == 300)(d['results'][0])")
[ "$got" = True ]
ok $? "splice's bytes_per_s and files_per_s are its bytes and files over its seconds"
got=$(json_get "$json" "[k for k in d['ceilings'] if k.endswith(('_bps', '_s')) and not k.endswith(('_per_s', '_seconds'))]")
[ "$got" = "[]" ]
ok $? "no ceiling is named in schema 1's units (_bps, _s) any more ($got)"

# the sweep and -P are in the schema (issue 26): a real sweep was there for it to check
got=$(json_get "$json" "(len(d['ceilings']['network']['sweep']) > 0, d['ceilings']['network']['sweep_stopped'] is not None, type(d['streams']).__name__, d['streams_auto'])")
[ "$got" = "(True, True, 'int', True)" ]
ok $? "the local run's sweep, its stop and -P auto's streams are in the JSON the schema checked ($got)"

json="$work/noprobes.json"
check "local run, --no-probes" "$xf" -w smallfiles --files 100 -s splice,zstd --no-probes --json "$json"
valid "--no-probes: the JSON validates" "$json"
got=$(json_get "$json" "(d['ceilings'], d['results'][0]['shares'], d['results'][0]['forecast'])")
[ "$got" = "(None, None, None)" ]
ok $? "--no-probes: ceilings, the accounting and the forecast are null ($got)"
# the tar stream's one sending thread measures its own stage; splice's senders do not
got=$(json_get "$json" "(d['results'][0]['sender_own_seconds'], 0 < d['results'][1]['sender_own_seconds'] <= d['results'][1]['phases']['transfer'])")
[ "$got" = "(None, True)" ]
ok $? "sender_own_seconds: null for splice, within zstd's transfer ($got)"

# ---------------------------------------------------------------- the validator says no
python3 - "$work/local.json" "$work/broken.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["results"][0]["seconds"] = "fast"
del d["results"][0]["files_per_s"]
d["results"][0]["status"] = "done"
d["ceilings"]["network"]["sweep"][0]["streams"] = "one"
del d["ceilings"]["network"]["window"]["limited"]
d["streams_auto"] = "yes"
del d["streams_reason"]
json.dump(d, open(sys.argv[2], "w"))
EOF
run_out=$("$check_json" "$schema" "$work/broken.json" 2>&1)
rc=$?
[ $rc -eq 1 ]
ok $? "a real report with a string for seconds, a field missing and a bad status fails (exit $rc)"
check_grep "naming the string" "^/results/0/seconds: is a string, want number or null" "$run_out"
check_grep "naming the field missing" "^/results/0: \"files_per_s\" is missing" "$run_out"
check_grep "naming the bad status" "^/results/0/status: \"done\" is not one of" "$run_out"
check_grep "naming a sweep step's streams as a string" "^/ceilings/network/sweep/0/streams: is a string, want integer" "$run_out"
check_grep "naming the window's missing limited" "^/ceilings/network/window: \"limited\" is missing" "$run_out"
check_grep "naming streams_auto as a string" "^/streams_auto: is a string, want boolean" "$run_out"
check_grep "naming streams_reason missing" "^/: \"streams_reason\" is missing" "$run_out"
run_out=$("$check_json" "$schema" "$fixture1" 2>&1)
check_grep "the schema-1 fixture is not schema 3" "^/schema: 1 is not one of \[3\]" "$run_out"

# ---------------------------------------------------------------- diff reads schema 1 and 2
run_out=$("$xf" diff "$fixture1" "$work/local.json" 2>&1)
rc=$?
[ $rc -eq 0 ]
ok $? "diff of a schema-1 and a schema-3 report: exit 0 ($rc)"
[ $rc -eq 0 ] || diag <<<"$run_out"
check_grep "diff: splice in both, with both times" "^splice +0\.[0-9]+ +0\.[0-9]+ +[-+][0-9.]+% " "$run_out"
check_grep "diff: the failed strategy is not compared" "^bad +not ok +not ok " "$run_out"
# schema 1's network_bps_1 was bytes/s: read as schema 2, it is bits, 8 times the number
python3 - "$fixture1" "$work/v1-half.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["ceilings"]["network_bps_1"] /= 2
json.dump(d, open(sys.argv[2], "w"))
EOF
run_out=$("$xf" diff "$fixture1" "$work/v1-half.json" 2>&1)
check_grep "diff of two schema-1 reports: the network in bits under its schema-2 name" \
	"^  network 1 stream +2\.29 Gbit/s → 1\.14 Gbit/s +-50%" "$run_out"
! grep -q "network_bps" <<<"$run_out"
ok $? "and not under its schema-1 name"
printf '{"schema": 4, "results": []}\n' >"$work/v4.json"
check_rc 1 "diff of a schema-4 report fails" "$xf" diff "$fixture1" "$work/v4.json"
check_grep "naming the file and the schemas it reads" "'$work/v4.json' is schema 4; this xfercmp reads schemas 1 to 3" "$LAST_OUT"

# ---------------------------------------------------------------- the testbed
testbed_part "testbed run" "testbed JSON validates" "network ceilings in bits"
json="$work/testbed.json"
check_rc 0 "testbed run: splice and scp, 2000 files, probes" \
	"$xf" -F "$cfg" -w smallfiles --files 2000 -s splice,scp --probe-seconds 0.3 --json "$json" testbed
table=$LAST_OUT
valid "testbed run: the JSON validates against docs/report.schema.json" "$json"
# the table prints "network  X.XX Gbit/s one stream": the JSON's bits, over 10^9
want=$(sed -n 's/^ *network *\([0-9.]*\) Gbit\/s one stream.*/\1/p' <<<"$table")
got=$(json_get "$json" "'%.2f' % (d['ceilings']['network_1_stream_bits_per_s'] / 1e9)")
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "network_1_stream_bits_per_s is bits: the table's $want Gbit/s (JSON $got)"

finish
