#!/usr/bin/env bash
# --explain's limits that need no testbed (issue 21), on the local agent:
# - a tmpfs too small for the workload: the "no durable write" removal is
#   skipped with the reason (what tmpfs has free, what the workload needs) and
#   the rest run. /dev/shm is made 1 MiB in a private mount namespace
#   (unshare -m, root), so nothing outside this test sees it;
# - the JSON's explain fields match docs/report.schema.json;
# - the --html page shows, for the explained strategy, the model's share
#   beside the measured saving as paired bars, then the causal verdict.
# 2,000 small files through splice: a run of about a second, 12 s in all here.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

plan_root 7
tmp=$(mktemp -d /var/tmp/xfercmp-explain-limits.XXXXXX)
cleanup() { rm -rf "$tmp"; }
on_exit cleanup
private_client "$tmp"

json="$tmp/small.json"
html="$tmp/small.html"
run unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$@"' sh \
	"$xf" --probe-seconds 0.5 -w smallfiles --files 2000 -s splice --explain --json "$json" --html "$html" local
ok "$rc" "runs with a 1 MiB /dev/shm (exit $rc)"
[ "$rc" -eq 0 ] || show
st=$(json_get "$json" "[(a['removed'], a['status']) for a in d['results'][0]['explain']]" 2>&1)
why=$(json_get "$json" "[a['reason'] for a in d['results'][0]['explain'] if a['removed'] == 'durable_write'][0]" 2>&1)
[[ $st == *"('durable_write', 'skipped')"* ]] && [[ $why == *"free, the workload needs about"* ]]
ok $? "tmpfs too small: the tmpfs removal skipped with the reason ($why)"
[[ $st == *"('dest_disk', 'ok')"* ]] && [[ $st == *"('source_disk', 'ok')"* ]]
ok $? "the rest ran ($st)"
# one pair of bars a removal that ran: the model's share and the measured saving
pairs=$(grep -c '<title>measured saving' "$html" 2>/dev/null)
model=$(grep -c "<title>the model's share" "$html" 2>/dev/null)
[ "${pairs:-0}" -ge 2 ] && [ "${model:-0}" -ge 2 ]
ok $? "html: paired bars, $model of the model's share and $pairs measured savings"
# the JSON's verdict, or withheld (null, the baseline an outlier against the control), or none
said=$(json_get "$json" "(lambda r: r['causal_verdict'] or ('withheld' if r.get('explain_baseline_outlier') else 'none'))(d['results'][0])")
grep -q "causal verdict: <b>$said</b>" "$html"
ok $? "html: the causal verdict the JSON gives ($said)"
grep -q "skipped: tmpfs /dev/shm on local has" "$html"
ok $? "html: the skipped removal with its reason"
# the explain fields are in the documented schema (docs/report.schema.json)
schema_out=$("$top/build/tests/json_schema_check" "$top/docs/report.schema.json" "$json" 2>&1)
ok $? "the JSON with its explain fields matches the schema${schema_out:+ ($schema_out)}"
finish
