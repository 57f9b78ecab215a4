#!/usr/bin/env bash
# Runs every test program given (unit-test binaries and integration *.t files),
# each speaking TAP, and ends with one line: "N passed, N failed, N skipped".
# A test program that exits non-zero, or prints no plan, counts as a failure
# even if its TAP lines said ok. A program that skips itself whole (a plan of
# zero, "1..0 # SKIP why", and exit 0) counts as one skipped. Under CI=true
# every skip counts as a failure too: CI has every prerequisite.
set -u
export CMOCKA_MESSAGE_OUTPUT=TAP

passed=0
failed=0
skipped=0
log_dir=${TEST_LOG_DIR:-build/test-logs}
mkdir -p "$log_dir"

# One awk over a log: "OK SKIP NOTOK PLAN ZERO" (ok lines but skips, skips,
# not ok lines, 1 if it printed a plan, 1 if that plan is zero). Counted in one
# process, not a grep each: forks were a second of check-unit's time on a busy machine.
tap_counts() {
	awk '/^ok [0-9]+/ { ok++; if (/# (SKIP|skip)/) skip++ }
	     /^not ok [0-9]+/ { notok++ }
	     /^1\.\.[0-9]+/ { plan = 1 }
	     /^1\.\.0([^0-9]|$)/ { zero = 1 }
	     END { print ok - skip, skip + 0, notok + 0, plan + 0, zero + 0 }' "$1"
}

for t in "$@"; do
	name=${t##*/}
	log="$log_dir/$name.log"
	start=$EPOCHSECONDS
	if [[ "$t" == *.t ]]; then
		bash "$t" >"$log" 2>&1
	else
		"$t" >"$log" 2>&1
	fi
	rc=$?
	secs=$((EPOCHSECONDS - start))
	read -r ok skip notok plan zero < <(tap_counts "$log")
	if [ "$rc" -eq 0 ] && [ $((ok + skip + notok)) -eq 0 ] && [ "$zero" -eq 1 ]; then
		skip=1	# the whole program skipped itself: one skip, so the summary shows it
	fi
	passed=$((passed + ok))
	failed=$((failed + notok))
	skipped=$((skipped + skip))
	if [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
		# the program died or failed outside any test: count it
		failed=$((failed + 1))
		notok=1
		echo "not ok - $name exited with status $rc outside any test" >>"$log"
	fi
	if [ "$plan" -eq 0 ]; then
		failed=$((failed + 1))
		notok=$((notok + 1))
		echo "not ok - $name printed no TAP plan" >>"$log"
	fi
	status=ok
	[ "$notok" -gt 0 ] && status=FAIL
	ci_skip=
	[ "${CI:-}" = "true" ] && [ "$skip" -gt 0 ] && status=FAIL && ci_skip=1
	printf '%-28s %4s  %3d ok  %2d failed  %2d skipped  %3ds\n' "$name" "$status" "$ok" "$notok" "$skip" "$secs"
	if [ -n "$ci_skip" ]; then
		grep -E '# (SKIP|skip)' "$log" | head -10 | sed 's/^/    skipped in CI: /'
	fi
	if [ "$notok" -gt 0 ]; then
		grep -E '^not ok|^#' "$log" | head -40 | sed 's/^/    /'
		echo "    (full log: $log)"
	fi
done

if [ "${CI:-}" = "true" ] && [ "$skipped" -gt 0 ]; then
	echo "$skipped skipped in CI: every prerequisite must be present there"
	failed=$((failed + skipped))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
