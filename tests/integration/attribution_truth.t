#!/usr/bin/env bash
# The truth tests: on the testbed, where the answer is known, the verdict must
# be right. A link shaped to 1 Gbit/s is network-bound; a large file to durable
# ext4 is disk-bound; many small files through scp are metadata- or
# latency-bound (per-file work, and the requests it waits on); zstd at a high
# level on a fast link is cpu-bound. Each asserts the verdict, a share bound,
# and the predicted time within 25% of the measured one (issue 20), and fails
# if the attribution is wrong. The what-if cases and scp at 2 ms are in
# attribution_what_if.t.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
work=$(mktemp -d /var/tmp/xfercmp-truth.XXXXXX)
cleanup() {
	"$tb" up >/dev/null 2>&1	# leave the link unshaped for whoever comes next
	"$tb" down >/dev/null 2>&1
	# XFERCMP_KEEP_JSON=DIR keeps each case's JSON there (to read a ratio's parts)
	if [ -n "${XFERCMP_KEEP_JSON:-}" ]; then cp "$work"/*.json "$XFERCMP_KEEP_JSON"/ 2>/dev/null; fi
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

result() { # result JSON FIELD: that field of the first result
	json_get "$1" "d['results'][0]$2"
}

# truth NAME VERDICT[|VERDICT] SHARE_KEY[+SHARE_KEY] MIN_SHARE RATIO_CHECK XFERCMP-ARGS...
# RATIO_CHECK: "ratio" asserts predicted/measured within 0.75-1.25, "-" only prints it.
# Seen on the shared 2-core testbed: shaped 0.97-0.99; disk 0.55-0.60 while
# the model took the max of the reads and the writes, 1.04 since it adds them
# on one device (source and destination are one disk here: read and written
# at 0.77 GB/s each at once, where each alone probed 1.41-1.44 GB/s); scp
# 0.78-0.95 (the same 20,000 files took 17.2 s and 28.8 s in two runs an hour
# apart: the VM's CPU, which the request path waits on), then 1.11-1.21 here
# and 1.24 and 1.45 in fresh-clone CI runs while the path added whole round
# trips to the CPU they already held, 0.90-0.96 since it adds only what a
# round trip waits beyond the rtt probe's CPU, and 1.03 once the creates were
# no longer added beside the path that holds them (2026-12-05); zstd at 19 0.73-1.04
# (the zstd probe and the run meet other jobs' CPU at different moments).
# The disk case's ratio is printed, not asserted: it was 0.99 and 1.04 in two
# runs and 0.69 in a fresh-clone CI run of 2026-12-02 (the disk share 0.69,
# the rest explained by no ceiling), so on this VM it is not yet a property of
# the model but of the disk's state; the bench's truth section holds it to
# 0.85-1.15 side by side (docs/BENCHMARKS.md). Its verdict and share are asserted.
truth() {
	local name=$1 want=$2 key=$3 min=$4 ratio_check=$5 json="$work/$1.json"
	shift 5
	check "$name: runs and verifies" "$xf" -F "$cfg" --probe-seconds 1 --json "$json" "$@" testbed
	local verdict share ratio
	verdict=$(result "$json" "['verdict']" 2>&1)
	share=$(json_get "$json" "sum(d['results'][0]['shares'][k] for k in '$key'.split('+'))" 2>&1)
	ratio=$(result "$json" "['predicted_ratio']" 2>&1)
	local right=1
	case "|$want|" in *"|$verdict|"*) right=0 ;; esac
	ok $right "$name: verdict $verdict (want $want)"
	python3 -c "import sys; sys.exit(0 if float('$share') >= $min else 1)" 2>/dev/null
	ok $? "$name: $key share $share >= $min"
	echo "predicted/measured $ratio" | diag
	if [ "$ratio_check" = ratio ]; then
		python3 -c "import sys; sys.exit(0 if 0.75 <= float('$ratio') <= 1.25 else 1)" 2>/dev/null
		local within=$?
		ok $within "$name: predicted/measured $ratio within 25%"
		# what the prediction was made of, for the log (a run that missed, or the
		# serial path, whose parts vary the most from run to run)
		if [ "$within" != 0 ] || [ "$name" = scp ]; then
			json_get "$json" "d['results'][0].get('reason')" | diag
			json_get "$json" "d['results'][0].get('need_seconds')" | diag
			json_get "$json" "[(e, p['name'], p['cpu_seconds']) for e in ('source', 'destination') for p in d['results'][0]['samples'][e]['processes']]" | diag
			json_get "$json" "(d['ceilings']['rtt_p50_seconds'], d['ceilings'].get('rtt_cpu_seconds'))" | diag
			json_get "$json" "'measured %.2f s, predicted %.2f s; opens %s/s (CPU %s s), creates %s/s' % (d['results'][0]['seconds'], d['results'][0]['predicted_seconds'], d['ceilings'].get('source_open_files_per_s'), d['ceilings'].get('source_open_cpu_seconds'), d['ceilings'].get('create_files_per_s'))" | diag
		fi
	fi
	if [ "$right" != 0 ]; then
		json_get "$json" "d['results'][0].get('reason')" | diag
		json_get "$json" "d['ceilings']" | diag
	fi
}

check "testbed up, shaped to 1 Gbit/s" "$tb" up --rate 1gbit
truth shaped network-bound network 0.6 ratio -w largefile --size 1G -s splice
check "testbed unshaped" "$tb" up
# the other verdicts: the largest share, and at least 0.4 of the wall time
# (the rest overlaps the stage that sets the time, or is what no ceiling explains)
truth disk disk-bound disk 0.4 - -w largefile --size 2G -s splice
truth scp 'metadata-bound|latency-bound' metadata+latency 0.4 ratio -w smallfiles --files 20000 -s scp
truth zstd19 cpu-bound cpu 0.4 ratio -w largefile --size 48M --zstd-level 19 --zstd-threads 1 -s zstd
finish
