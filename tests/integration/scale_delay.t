#!/usr/bin/env bash
# 20,000 files of a real-looking tree (-w realistic: symbolic links, hard links,
# empty and read-only directories, odd names) across a link with 2 ms of delay
# (scripts/testbed.sh up --delay 2ms): splice, parallel and tar-ssh complete and
# verify, and every result reports what it cost both ends: CPU seconds per GiB
# and peak resident memory of the client and of the agent (VmHWM, from /proc),
# present and positive; the document's lifetime peaks too. No timed assertion:
# the speed targets live in scripts/bench.sh (scale, wan).
# Needs root (the testbed). Only ever talks to 198.18.0.2 and loopback.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/scale_delay.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
want=splice,parallel,tar-ssh

plan_root 7
work=$(mktemp -d /var/tmp/xfercmp-scale.XXXXXX) || exit 1
tmp=$work
cleanup() {
	# the delay is ours: the next user of the testbed gets it without
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

check "testbed up with 2 ms of delay" "$tb" up --delay 2ms
check_grep "the testbed says it delays by 2 ms" '^delay: 2ms' "$("$tb" status 2>&1)"

run "$xf" gen -q -w realistic --files 20000 "$work/src"
ok "$rc" "gen -w realistic --files 20000"
[ "$rc" -eq 0 ] || show

ensure_testbed "the run at 2 ms"
run timeout 900 "$xf" -F "$cfg" -w realistic --files 20000 --source-dir "$work/src" \
	--remote-dir "$work/remote" -s "$want" --no-probes --json "$work/r.json" testbed
ok "$rc" "$want across 2 ms exits 0 ($(seconds "$work/r.json"))"
[ "$rc" -eq 0 ] || show
ok_results "each ok and verified, every byte and file" "$work/r.json" "$want"

# cost_bad JSON: what is missing or not positive among the cost fields
cost_bad() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
for r in d["results"]:
    for k in ("client_peak_rss_bytes", "agent_peak_rss_bytes",
              "client_cpu_seconds_per_gib", "agent_cpu_seconds_per_gib"):
        if not positive(r.get(k)):
            print("%s: %s is %r" % (r["strategy"], k, r.get(k)))
    # a resident size below 1 MiB is no process's: a parse gone wrong (kB taken as bytes)
    for k in ("client_peak_rss_bytes", "agent_peak_rss_bytes"):
        if positive(r.get(k)) and r[k] < 1 << 20:
            print("%s: %s is %r, under 1 MiB" % (r["strategy"], k, r[k]))
p = d.get("peak_rss") or {}
for k in ("client_bytes", "agent_bytes"):
    if not positive(p.get(k)):
        print("peak_rss.%s is %r" % (k, p.get(k)))
# the lifetime peaks hold every run's
for r in d["results"]:
    if positive(p.get("client_bytes")) and positive(r.get("client_peak_rss_bytes")) and \
       r["client_peak_rss_bytes"] > p["client_bytes"] + (1 << 20):
        print("%s: client peak %d above the lifetime peak %d" % (r["strategy"], r["client_peak_rss_bytes"], p["client_bytes"]))
PY
}
bad=$(cost_bad "$work/r.json" 2>&1)
[ -z "$bad" ]
ok $? "every result's CPU per GiB and peak RSS, both ends, present and positive; lifetime peaks too"
[ -z "$bad" ] || printf '%s\n' "$bad" | diag

check_grep "the table shows the cost lines" 'cost \(median run.*' "$out"
finish
