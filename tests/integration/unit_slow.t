#!/usr/bin/env bash
# The unit tests' slow cases: those written slow_unit_test(...) in tests/unit/*/test_*.c
# (tests/unit/testutil.h), which wait on real time or a real disk (a timeout, an age, a
# rate or a budget of seconds, durable writes on /var/tmp). make check-unit leaves them
# out to stay fast; here each program runs only them (XFERCMP_TEST_FILTER=slow_*), and
# each case is a line of this test. No root, no testbed.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for src in $(grep -l 'slow_unit_test' "$top"/tests/unit/*/test_*.c); do
	prog=${src#"$top"/tests/unit/}
	prog=${prog%.c}
	bin=$top/build/tests/unit/$prog
	[ -x "$bin" ] || { echo "Bail out! $bin not built (make unit-tests)"; exit 1; }
	out=$(XFERCMP_TEST_SKIP='' XFERCMP_TEST_FILTER='slow_*' CMOCKA_MESSAGE_OUTPUT=TAP "$bin" 2>&1)
	rc=$?
	cases=0
	while IFS= read -r line; do
		[[ $line =~ ^(not )?ok\ [0-9]+\ (.*)$ ]] || continue
		cases=$((cases + 1))
		rest=${BASH_REMATCH[2]}
		if [[ $rest == *"# SKIP"* ]]; then
			n=$((n + 1))
			echo "ok $n # SKIP $prog: ${rest#*# SKIP}"
		else
			[ -z "${BASH_REMATCH[1]}" ]
			ok $? "$prog: ${rest#- }"
		fi
	done <<<"$out"
	[ "$rc" -eq 0 ] && [ "$cases" -gt 0 ]
	s=$?
	ok $s "$prog: its $cases slow cases ran and it exited 0 (exit $rc)"
	[ $s -eq 0 ] || printf '%s\n' "$out" | grep -v '^ok ' | tail -40 | diag
done
finish
