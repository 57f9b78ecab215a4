#!/usr/bin/env bash
# --sample and the answer's end (issue 42): a stratified sample moves instead of
# the whole and is said in the report and the JSON, each result's forecast the
# whole's from the sample's runs, the recommendation naming it and the answer's cost; --check moves the whole
# too; a dir: tree with links goes through --sample untouched; Ctrl-C during a
# sample run gives the partial report and leaves no sample tree; the copies go
# before the report, the status line on a terminal saying so; "timing" adds up;
# each strategy's fixed cost measured on one file before the sample, said on the
# terminal and in each forecast's fixed_seconds.
# The testbed for the SSH strategies (needs root); the interrupt on loopback.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/sample.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cfg="$top/build/testbed/ssh_config"
pid=
own_work sample
tmp=$work
interrupt_cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	own_work_cleanup
}
on_exit interrupt_cleanup

# sample_bad JSON WHOLE_MOVED NAMES: what is wrong with a sampled run's JSON (nothing when well)
sample_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
whole_moved = sys.argv[2] == "yes"
want = sys.argv[3].split(",")
s = d.get("sample")
if not s:
    print("no sample object"); sys.exit()
for k in ("files", "bytes", "fraction", "seed", "method"):
    if s.get(k) is None:
        print("sample has no %s" % k)
if s["whole_moved"] != whole_moved:
    print("whole_moved %s" % s["whole_moved"])
w = d["workload"]
if not (0 < s["files"] < w["files"] and 0 < s["bytes"] < w["bytes"]):
    print("sample %s files %s bytes of %s, %s" % (s["files"], s["bytes"], w["files"], w["bytes"]))
names = [r["strategy"] for r in d["results"]]
if names != want:
    print("results %s, want %s" % (names, want))
for r in d["results"]:
    if r["status"] != "ok" or r["verified"] is not True:
        print("%s: %s verified %s: %s" % (r["strategy"], r["status"], r["verified"], r["error"]))
    if not (r.get("sample_seconds") or 0) > 0:
        print("%s: sample_seconds %s" % (r["strategy"], r.get("sample_seconds")))
    if whole_moved != (r["seconds"] is not None):
        print("%s: seconds %s with the whole %s" % (r["strategy"], r["seconds"],
              "moved" if whole_moved else "not moved"))
    if whole_moved and (r["files"] != w["files"] or r["bytes"] != w["bytes"]):
        print("%s: moved %s files %s bytes, the whole has %s, %s" % (r["strategy"], r["files"],
              r["bytes"], w["files"], w["bytes"]))
    if not whole_moved and r["files"] != s["files"]:
        print("%s: moved %s files, the sample has %s" % (r["strategy"], r["files"], s["files"]))
    if d.get("ceilings") is None:
        continue
    # the whole's forecast from the sample's runs, with its range; a ratio only when the whole moved
    f = r.get("forecast") or {}
    if f.get("basis") != "sample" or not (f.get("seconds") or 0) > 0 or \
       not (f["low"] <= f["seconds"] <= f["high"]):
        print("%s: forecast %s" % (r["strategy"], f))
    # each strategy's fixed cost, measured on one file before the sample, kept out of the scaling
    if not (f.get("fixed_seconds") or 0) > 0 or not f["fixed_seconds"] < f["seconds"]:
        print("%s: fixed_seconds %s of a forecast of %s" % (r["strategy"], f.get("fixed_seconds"), f.get("seconds")))
    if whole_moved != (r["forecast_ratio"] is not None):
        print("%s: forecast_ratio %s with the whole %s" % (r["strategy"], r["forecast_ratio"],
              "moved" if whole_moved else "not moved"))
EOF
}
# timing_bad JSON WALL: "timing" missing, a part negative, the parts more than the answer,
# the answer more than the wall time the test saw, or the cleanup not counted
timing_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
wall = float(sys.argv[2])
t = d.get("timing")
if not t:
    print("no timing"); sys.exit()
parts = ["setup_seconds", "probes_seconds", "strategies_seconds", "cleanup_seconds"]
if any(t.get(k) is None or t[k] < 0 for k in parts + ["answer_seconds"]):
    print("timing %s" % t)
elif sum(t[k] for k in parts) > t["answer_seconds"] + 0.01:
    print("parts %.2f s > answer %.2f s: %s" % (sum(t[k] for k in parts), t["answer_seconds"], t))
elif t["answer_seconds"] > wall:
    print("answer %.2f s > the %.2f s the test saw" % (t["answer_seconds"], wall))
elif not t["host_removed"] or t["host_removed"] < d["workload"]["files"]:
    print("the cleanup removed %s entries on the host" % t["host_removed"])
EOF
}

testbed_part "--sample --check runs" "its JSON" "the sample said" "fixed costs said" "side by side" "timing" \
	"cleanup line on a tty" "answered in" "nothing left on the host" "dir: tree through --sample" \
	"its links" "the recommendation for the whole" "the source untouched" "no sample tree left" "Ctrl-C: 130" "partial report" \
	"partial table" "the interrupt removed the sample" "one file through --sample" "its fixed costs" "the pieces named" \
	"once_seconds"
mkdir -p "$work/remote"

# ---------------------------------------------- 10% with --check, on a terminal
s0=$(date +%s.%N)
script -qec "$xf -F $cfg --remote-dir $work/remote -w smallfiles --files 20000 --source-dir $work/src --probe-seconds 0.5 -s tar-ssh,splice,parallel --sample 10% --check --cleanup wait --json $work/check.json testbed" \
	"$work/tty.log" >/dev/null
rc=$?
wall=$(echo "$(date +%s.%N) - $s0" | bc)
ok $rc "--sample 10% --check on 20,000 files runs (exit $rc, $(printf %.0f "$wall") s)"
bad=$(sample_bad "$work/check.json" yes tar-ssh,splice,parallel 2>&1)
[ -z "$bad" ]
ok $? "the JSON has the sample, its times, and the whole's"
[ -z "$bad" ] || diag <<<"$bad"
lines=$(tr '\r' '\n' <"$work/tty.log" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g')
check_grep "the report says the sample drawn" '^sample: 2,?000 of 20,?000 files \(10\.0%\)' "$lines"
check_grep "the fixed costs are measured first, on one file, and said" \
	'^measuring each strategy.s fixed cost on one file' "$lines"
check_grep "each strategy's sample, the whole's forecast from it, its range, the whole measured" \
	'^  tar-ssh +[0-9.]+ +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.]+ +[0-9.]+x' "$lines"
bad=$(timing_bad "$work/check.json" "$wall" 2>&1)
[ -z "$bad" ]
ok $? "timing: present, the parts add up to no more than the answer"
[ -z "$bad" ] || diag <<<"$bad"
check_grep "the cleanup's line on the terminal" 'removing (about )?[0-9,]+ files on the host: [0-9]+%' "$lines"
check_grep "the report says where the answer's time went" '^answered in [0-9].*cleanup [0-9.]+ s' "$lines"
left=$(find "$work/remote" -mindepth 1 2>&1)
[ -z "$left" ]
ok $? "nothing left on the host (its scratch root went)"
[ -z "$left" ] || diag <<<"$left"

# ---------------------------------------------- a dir: tree with links, sample only
"$xf" gen -q -w realistic --files 3000 --seed 5 "$work/tree" >/dev/null
find "$work/tree" -printf '%p %y %s %n %T@ %C@ %m\n' | sort >"$work/before"
"$xf" -F "$cfg" --remote-dir "$work/remote" -w "dir:$work/tree" --probe-seconds 0.5 --allow-cleartext -s tar-ssh,splice --sample 20% --seed 3 \
	--json "$work/tree.json" testbed >"$work/tree.out" 2>"$work/tree.err"
rc=$?
ok $rc "a dir: tree with links through --sample 20% (exit $rc)"
[ "$rc" -eq 0 ] || diag <"$work/tree.err"
bad=$(sample_bad "$work/tree.json" no tar-ssh,splice 2>&1)
bad+=$(json_get "$work/tree.json" "'' if d['sample']['counts']['symlinks'] > 0 and d['sample']['counts']['hardlinks'] > 0 else 'no links in the sample: %s' % d['sample']['counts']" 2>&1)
[ -z "$bad" ]
ok $? "its sample holds symbolic and hard links, the times are the sample's"
[ -z "$bad" ] || diag <<<"$bad"
check_grep "the recommendation: the whole's forecast from the sample, and what the answer cost" \
	'use (tar-ssh|splice) for the whole workload: about .* for .* [0-9,]+ files, forecast from its runs on the 20% sample.*answered in [0-9].* from a 20% sample' \
	"$(tr '\n' ' ' <"$work/tree.out" | tr -s ' ')"
find "$work/tree" -printf '%p %y %s %n %T@ %C@ %m\n' | sort >"$work/after"
cmp -s "$work/before" "$work/after"
ok $? "the source tree is as it was (names, sizes, links, times, modes)"
left=$(find "$XFERCMP_SCRATCH" -mindepth 1 -maxdepth 1 -name 'xfercmp-sample.*' 2>&1)
[ -z "$left" ]
ok $? "no sample tree left here"
[ -z "$left" ] || diag <<<"$left"

# ---------------------------------------------- one large file, sample only
# its sample's files are pieces of 8 MiB; the fixed costs are measured on a page of one
"$xf" -F "$cfg" --remote-dir "$work/remote" -w largefile --size 256M --source-dir "$work/big" --probe-seconds 0.5 \
	-s tar-ssh,splice,real-tar-ssh --sample 5% --json "$work/big.json" testbed >"$work/big.out" 2>"$work/big.err"
rc=$?
ok $rc "one file of 256 MiB through --sample 5% (exit $rc)"
[ "$rc" -eq 0 ] || diag <"$work/big.err"
v=$(json_get "$work/big.json" "' '.join('%s:%s:%s' % (r['strategy'], (r.get('forecast') or {}).get('basis'), 'fixed' if 0 < ((r.get('forecast') or {}).get('fixed_seconds') or 0) < r['forecast']['seconds'] else 'no fixed cost: %s' % r.get('forecast')) for r in d['results'])" 2>&1)
[ "$v" = "tar-ssh:sample:fixed splice:sample:fixed real-tar-ssh:sample:fixed" ]
ok $? "each strategy's forecast of the one file keeps a fixed cost measured apart"
diag <<<"$v"
# a time paid once a run: only for a real tool over ssh (its own connection), and then part of its forecast
v=$(json_get "$work/big.json" "' '.join('%s:%s' % (r['strategy'], 'none' if r['forecast'].get('once_seconds') is None else 'in it' if r['forecast']['once_seconds'] + r['forecast']['fixed_seconds'] < r['forecast']['seconds'] else 'beyond it: %s' % r['forecast'])  for r in d['results'])" 2>&1)
[[ "$v" =~ ^tar-ssh:none\ splice:none\ real-tar-ssh:(none|in\ it)$ ]]
ok $? "once_seconds: none for our own strategies; the real tool's, if any, within its forecast"
diag <<<"$v"
# its pieces are named as such, not "2 of 1 files (200.0%)"
check_grep "the report names the sample's pieces of the one file" '^sample: 2 pieces of 1 large file, 12\.80 MiB of 256\.00 MiB' "$(cat "$work/big.out")"

# ---------------------------------------------- interrupted during a sample run (loopback)
"$xf" -w "dir:$work/src" --no-probes -v -s splice,zstd,parallel --sample 50% \
	--json "$work/p.json" >"$work/p.out" 2>"$work/p.err" &
pid=$!
wait_grep "$work/p.err" '^running zstd'
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 130 ]
ok $? "Ctrl-C during the sample's zstd: exit 130 (got $rc)"
v=$(json_get "$work/p.json" "(d['partial'], d['sample']['files'] > 0, [(r['strategy'], r['status']) for r in d['results']])" 2>&1)
[ "$v" = "(True, True, [('splice', 'ok'), ('zstd', 'failed'), ('parallel', 'skipped')])" ]
ok $? "the partial report: the sample, splice's run on it, zstd interrupted, parallel not run"
diag <<<"$v"
check_grep "the table is marked partial and says the sample" '^partial: interrupted' "$(cat "$work/p.out")"
left=$(find "$XFERCMP_SCRATCH" -mindepth 1 -maxdepth 1 -name 'xfercmp-sample.*' 2>&1)
[ -z "$left" ]
ok $? "the interrupt removed the sample's tree"
[ -z "$left" ] || diag <<<"$left"
finish
