#!/usr/bin/env bash
# The truth tests: on the testbed, where the answer is known, the verdict must
# be right. A link shaped to 1 Gbit/s is network-bound; a large file to durable
# ext4 is disk-bound; many small files through scp are metadata-bound; zstd at a
# high level on a fast link is cpu-bound. Each asserts the verdict and a share
# bound, and fails if the attribution is wrong.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
work=$(mktemp -d /var/tmp/xfercmp-truth.XXXXXX)
cleanup() {
	"$tb" up >/dev/null 2>&1	# leave the link unshaped for whoever comes next
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

result() { # result JSON FIELD: that field of the first result
	json_get "$1" "d['results'][0]$2"
}

truth() { # truth NAME VERDICT SHARE_KEY MIN_SHARE XFERCMP-ARGS...
	local name=$1 want=$2 key=$3 min=$4 json="$work/$1.json"
	shift 4
	check "$name: runs and verifies" "$xfercmp" -F "$cfg" --probe-seconds 1 --json "$json" "$@" testbed
	local verdict share
	verdict=$(result "$json" "['verdict']" 2>&1)
	share=$(result "$json" "['shares']['$key']" 2>&1)
	[ "$verdict" = "$want" ]
	ok $? "$name: verdict $verdict (want $want)"
	python3 -c "import sys; sys.exit(0 if float('$share') >= $min else 1)" 2>/dev/null
	ok $? "$name: $key share $share >= $min"
	if [ "$verdict" != "$want" ]; then
		json_get "$json" "d['results'][0].get('reason')" | diag
		json_get "$json" "d['ceilings']" | diag
	fi
}

check "testbed up, shaped to 1 Gbit/s" "$tb" up --rate 1gbit
truth shaped network-bound network 0.6 -w largefile --size 1G -s splice
check "testbed unshaped" "$tb" up
# the other verdicts: the largest share, and at least 0.4 of the wall time
# (the rest is overlap with the other resources, scaled by the attribution)
truth disk disk-bound disk 0.4 -w largefile --size 2G -s splice
truth scp metadata-bound metadata 0.4 -w smallfiles --files 20000 -s scp
truth zstd19 cpu-bound cpu 0.4 -w largefile --size 48M --zstd-level 19 --zstd-threads 1 -s zstd
finish
