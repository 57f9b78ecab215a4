#!/usr/bin/env bash
# tests/run.sh's summary counts what was skipped: a test skipped inside a program,
# and a program that skips itself whole (a plan of zero, as lib.sh's
# skip_all_unless_root prints when not root); under CI=true each skip is a failure.
# Planted programs in a temporary folder; no root, no testbed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/whole.t" <<EOF
. "$top/tests/integration/lib.sh"
id() { echo 1000; }	# not root, whoever runs this
skip_all_unless_root
echo "ok 1 - ran although not root"
EOF
printf 'echo 1..2; echo "ok 1 - a"; echo "ok 2 # SKIP b"\n' >"$tmp/one_skip.t"
printf 'echo 1..3; for i in 1 2 3; do echo "ok $i - x"; done\n' >"$tmp/three.t"
printf 'echo "1..0 # SKIP planted"; exit 3\n' >"$tmp/zero_fails.t"

summary() { # summary [VAR=VALUE...] PROGRAM...: run.sh's output in $out, its status in $rc
	run env TEST_LOG_DIR="$tmp/logs" "$@"
}

run bash "$tmp/whole.t"
[ "$rc" -eq 0 ] && [ "$out" = "1..0 # SKIP needs root (the testbed makes a network namespace)" ]
s=$?; ok $s "skip_all_unless_root, not root: a plan of zero with the reason, exit 0, nothing after it"
[ $s -eq 0 ] || show

summary CI= "$top/tests/run.sh" "$tmp/whole.t" "$tmp/three.t"
[ "$rc" -eq 0 ] && [[ $out == *$'\n3 passed, 0 failed, 1 skipped' ]] \
	&& grep -qE '^whole\.t +ok +0 ok +0 failed +1 skipped' <<<"$out"
s=$?; ok $s "a program skipped whole counts as one skipped, not as nothing"
[ $s -eq 0 ] || show

summary CI=true "$top/tests/run.sh" "$tmp/whole.t" "$tmp/three.t"
[ "$rc" -ne 0 ] && [[ $out == *$'\n3 passed, 1 failed, 1 skipped' ]] \
	&& grep -qE '^whole\.t +FAIL ' <<<"$out" && grep -q 'skipped in CI: 1\.\.0 # SKIP needs root' <<<"$out"
s=$?; ok $s "CI=true: the program skipped whole fails the run, its reason shown"
[ $s -eq 0 ] || show

summary CI=true "$top/tests/run.sh" "$tmp/one_skip.t"
[ "$rc" -ne 0 ] && [[ $out == *$'\n1 passed, 1 failed, 1 skipped' ]]
s=$?; ok $s "CI=true: one test skipped inside a program fails the run"
[ $s -eq 0 ] || show

summary CI= "$top/tests/run.sh" "$tmp/zero_fails.t"
[ "$rc" -ne 0 ] && [[ $out == *$'\n0 passed, 1 failed, 0 skipped' ]]
s=$?; ok $s "a plan of zero with a non-zero exit is a failure, not a skip"
[ $s -eq 0 ] || show

finish
