#!/usr/bin/env bash
# Each libFuzzer target (make fuzz-build) for FUZZ_SECONDS on a copy of its
# seed corpus: the agent's frame parser, the received-path checks, the record
# receiver and the tar extractor. A crash, a hang or a broken invariant fails.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

seconds=${FUZZ_SECONDS:-10}
for bin in "$top"/build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	t=$(basename "$bin")
	out=$(cd "$top" && tests/fuzz/run.sh "$t" "$seconds" 2>&1)
	rc=$?
	ok $rc "$t for $seconds s"
	[ $rc -eq 0 ] || tail -15 <<<"$out" | diag
done
# inputs that once broke an invariant stay fixed: crashes/TARGET/NAME
scratch=$(mktemp -d /dev/shm/xfercmp-fuzz-regress.XXXXXX)
for input in "$top"/tests/fuzz/crashes/*/*; do
	[ -f "$input" ] || continue
	t=$(basename "$(dirname "$input")")
	out=$(XFERCMP_FUZZ_SCRATCH="$scratch" "$top/build/fuzz/$t" "$input" 2>&1)
	rc=$?
	ok $rc "regression ($t): $(basename "$input")"
	[ $rc -eq 0 ] || tail -10 <<<"$out" | diag
done
rm -rf "$scratch"
ran=$(ls "$top"/build/fuzz/fuzz_* 2>/dev/null | wc -l)
[ "$ran" -ge 4 ]
ok $? "all four fuzz targets were built ($ran)"
finish
