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

for t in "$@"; do
	name=$(basename "$t")
	log="$log_dir/$name.log"
	start=$(date +%s)
	if [[ "$t" == *.t ]]; then
		bash "$t" >"$log" 2>&1
	else
		"$t" >"$log" 2>&1
	fi
	rc=$?
	secs=$(( $(date +%s) - start ))
	ok=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
	skip=$(grep -cE '^ok [0-9]+.*# (SKIP|skip)' "$log" | tr -d ' ')
	notok=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
	ok=$((ok - skip))
	if [ "$rc" -eq 0 ] && [ $((ok + skip + notok)) -eq 0 ] && grep -qE '^1\.\.0([^0-9]|$)' "$log"; then
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
	if ! grep -qE '^1\.\.[0-9]+' "$log"; then
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
