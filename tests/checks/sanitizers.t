#!/usr/bin/env bash
# Integration tests with the AddressSanitizer + UBSan build (make asan:
# build/asan/xfercmp), the Makefile's ASAN_SUITES (make check runs them only
# here): the two that need no testbed, and compare_ssh.t,
# which runs every SSH strategy (libssh, the scp pump, the tar pipes) against
# the testbed. The agent runs from the same binary, so both ends are checked.
# Any sanitizer report of a process started here lands in build/asan/reports/
# and fails this test; the agent compare_ssh.t uploads to the testbed runs
# under sshd, without our ASAN_OPTIONS: an error there ends the agent, which
# fails the test's run, but a leak report at its exit goes unread.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

asan_bin="$top/build/asan/xfercmp"
reports="$top/build/asan/reports"
[ -x "$asan_bin" ]
ok $? "the sanitizer build exists ($asan_bin; make asan)"
rm -rf "$reports"
mkdir -p "$reports"
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"

# the suites: the Makefile's ASAN_SUITES (make check runs them only here)
suites=$(sed -n 's/^ASAN_SUITES *:= *//p' "$top/Makefile")
[ -n "$suites" ]
ok $? "the suites to run under ASan, from the Makefile's ASAN_SUITES ($suites)"
for t in $suites; do
	out=$(XFERCMP="$asan_bin" bash "$top/tests/integration/$t" 2>&1)
	rc=$?
	notok=$(grep -c '^not ok' <<<"$out")
	[ "$rc" -eq 0 ] && [ "$notok" -eq 0 ]
	ok $? "$t under ASan/UBSan ($notok failed)"
	[ "$rc" -eq 0 ] || grep '^not ok' <<<"$out" | head -10 | diag
done
found=$(find "$reports" -type f | head -20)
[ -z "$found" ]
ok $? "no sanitizer reports"
for f in $found; do head -30 "$f" | diag; done
finish
