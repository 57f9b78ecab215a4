#!/usr/bin/env bash
# Runs one libFuzzer target for a while and says whether it found anything.
# Usage: tests/fuzz/run.sh TARGET SECONDS [libFuzzer options...]
#   (from the repository root, after `make fuzz-build`)
# The target starts from a fresh copy of tests/fuzz/corpus/TARGET in
# build/fuzz/corpus/TARGET (what it adds stays there for a look; the
# committed seeds are never touched). A crash, sanitizer report, leak,
# timeout or broken invariant is saved under build/fuzz/crashes/TARGET/;
# the script prints its path and the command that reproduces it, and exits
# 1. Exit 0: nothing found; 2: usage or missing binary. The run's log is
# build/fuzz/logs/TARGET.log.
set -u

if [ $# -lt 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
	echo "usage: $0 TARGET SECONDS [libFuzzer options...]" >&2
	exit 2
fi
target=$1
seconds=$2
shift 2
build=${BUILD:-build}
bin=$build/fuzz/$target
seeds=tests/fuzz/corpus/$target
if [ ! -x "$bin" ]; then
	echo "$bin not built: run 'make fuzz-build'" >&2
	exit 2
fi
if [ ! -d "$seeds" ]; then
	echo "no seed corpus $seeds" >&2
	exit 2
fi

# Inputs no bigger than the receivers need: the socket holds them whole.
# The receivers run a few hundred inputs a second: libFuzzer's slow growth
# of the length limit would keep them to a few hundred bytes for minutes.
case $target in
fuzz_frames_receiver | fuzz_tar_extract) sizes=(-max_len=65536 -len_control=0) ;;
*) sizes=(-max_len=8192) ;;
esac

corpus=$build/fuzz/corpus/$target
crashes=$build/fuzz/crashes/$target
log=$build/fuzz/logs/$target.log
rm -rf "$corpus"
mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
cp "$seeds"/* "$corpus"/
# where the receivers make their destinations; tmpfs keeps runs fast
scratch=$(mktemp -d /dev/shm/xfercmp-fuzz.XXXXXX) || exit 2
trap 'rm -rf "$scratch"' EXIT

before=$(find "$crashes" -type f | wc -l)
XFERCMP_FUZZ_SCRATCH=$scratch \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$seconds" "${sizes[@]}" -timeout=10 -rss_limit_mb=2048 -handle_xfsz=0 \
	-print_final_stats=1 -artifact_prefix="$crashes/" "$@" "$corpus" >"$log" 2>&1
rc=$?

stats=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
echo "$target: ${execs:-?} runs, ${speed:-?}/s; ${stats:-no stats}"

if [ "$rc" -ne 0 ]; then
	input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|INVARIANT VIOLATED|harness:' \
		"$log" >&2
	echo "$target: FAILED (exit $rc), log $log" >&2
	if [ -n "$input" ]; then
		echo "crashing input: $input" >&2
		echo "reproduce: $bin $input" >&2
	fi
	exit 1
fi
if [ "$(find "$crashes" -type f | wc -l)" -ne "$before" ]; then
	echo "$target: new files in $crashes although the run passed" >&2
	exit 1
fi
exit 0
