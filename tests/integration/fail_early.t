#!/usr/bin/env bash
# TAP test: what can be checked before the first byte moves is checked
# before it (issue 44, item 2): a report file whose directory is missing, a
# directory given as the report file, a dir: workload that is a file or is
# missing. Each fails at once with exit 2 and one line naming the option,
# and nothing is made: no scratch root, no temporary source. Runs only the
# local binary with a local destination: no host, no network.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$xfercmp
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfercmp-fail-early.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export XFERCMP_SCRATCH=$tmp/scratch
mkdir -p "$XFERCMP_SCRATCH"
touch "$tmp/afile"

plan 6

# refused DESCRIPTION PATTERN ARGS...: exit 2 within a second, one stderr line matching PATTERN, nothing made
refused() {
	local desc=$1 pat=$2 t0 ms
	shift 2
	t0=$(date +%s%N)
	run timeout 20 "$bin" -q "$@"
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -Eq "$pat" <<<"$err" &&
		[ "$ms" -lt 1000 ] && [ -z "$(ls -A "$XFERCMP_SCRATCH")" ]
	ok $? "$desc (exit $rc, ${ms} ms)"
	[ "$rc" -eq 2 ] && [ "$ms" -lt 1000 ] && grep -Eq "$pat" <<<"$err" || show
}

refused "--json into a missing directory" \
	"^xfercmp: --json: cannot write $tmp/missing/r.json: the directory $tmp/missing does not exist" \
	--json "$tmp/missing/r.json"
refused "--html given a directory" "^xfercmp: --html: $tmp is a directory" --html "$tmp"
refused "--export-csv under a file" "^xfercmp: --export-csv: .*$tmp/afile is not a directory" \
	--export-csv "$tmp/afile/t.csv"
refused "--export-markdown into a missing directory" "^xfercmp: --export-markdown: .*does not exist" \
	--export-markdown "$tmp/nope/t.md"
refused "-w dir: of a file says not a directory" "^xfercmp: -w dir:$tmp/afile: not a directory" \
	-w "dir:$tmp/afile"
refused "-w dir: of nothing says no such directory" "^xfercmp: -w dir:$tmp/none: no such directory" \
	-w "dir:$tmp/none"
