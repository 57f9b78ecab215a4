#!/usr/bin/env bash
# Each libFuzzer target (make fuzz-build) for FUZZ_SECONDS on a copy of its
# seed corpus: the agent's frame parser, the received-path checks, the record
# receiver (its end step over two streams too) and the tar extractor, the
# manifest, both sides of the handshake with the gate and the sealed frame
# reader, and the agent's request handling. A crash, a hang or a broken
# invariant fails.
# The targets run as many at a time as the machine has cores (each fuzzer is
# one process on one core): every target still gets its FUZZ_SECONDS, and the
# seven of them take four rounds instead of seven on a 2-core CI machine
# (306 s one at a time for the first five in a fresh-clone CI run of
# 2026-12-02; the two of issue 43 add one round, FUZZ_SECONDS).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

seconds=${FUZZ_SECONDS:-10}
at_once=$(nproc 2>/dev/null || echo 1)
outs=$(mktemp -d)
targets=()
for bin in "$top"/build/fuzz/fuzz_*; do
	[ -x "$bin" ] && targets+=("$(basename "$bin")")
done
# run_round FIRST: targets FIRST .. FIRST+at_once-1 side by side, each
# writing its output and exit status to $outs/TARGET.{out,rc}
run_round() {
	local i t
	for ((i = $1; i < $1 + at_once && i < ${#targets[@]}; i++)); do
		t=${targets[i]}
		(cd "$top" && tests/fuzz/run.sh "$t" "$seconds" >"$outs/$t.out" 2>&1; echo $? >"$outs/$t.rc") &
	done
	wait
}
for ((first = 0; first < ${#targets[@]}; first += at_once)); do
	run_round "$first"
done
for t in "${targets[@]}"; do
	rc=$(cat "$outs/$t.rc" 2>/dev/null || echo 1)
	ok "$rc" "$t for $seconds s"
	[ "$rc" -eq 0 ] || tail -15 "$outs/$t.out" | diag
done
rm -rf "$outs"
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
ran=${#targets[@]}
[ "$ran" -ge 7 ]
ok $? "all seven fuzz targets were built ($ran)"
finish
