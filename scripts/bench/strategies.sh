# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section strategies of scripts/bench.sh (sourced): on the
# testbed host, cold source, durable destination: iperf3 with 1 and N streams, then every
# xfercmp strategy and every reference tool (the system's scp, rsync, tar | ssh,
# tar | nc; `xfercmp --list-strategies` names them), run by xfercmp itself so that all
# get the same cold source, fresh destination, flush to durable and verification.
# REPEAT rounds of all of them, one run each, so round k of every strategy runs before
# round k + 1 of any: a machine that gets busier halfway shifts all of them. The best
# xfercmp strategy against the best reference tool (small files: target >= 2x; large
# file: >= 0.95 of the durable-write ceiling and faster than every reference), and each
# model against the real tool it models (within 15%).

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"
# shellcheck source=scripts/bench/cost.sh
. "${BASH_SOURCE[0]%/*}/cost.sh"

# iperf3_streams_bps STREAMS: as iperf3_bps, with -P STREAMS.
iperf3_streams_bps() {
	IPERF_STREAMS=$1 iperf3_bps
}

# strategy_rounds NAME ARGS...: REPEAT rounds of xfercmp ARGS -s (round_list K) against
# the testbed into $WORK/NAME.K.json.
strategy_rounds() {
	local name=$1 k
	shift
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		say "strategies: $name round $k of $REPEAT"
		attempt compare_all "$WORK/$name.$k.json" "$@" -s "$(round_list "$k")"
		[ "$RESULT" != failed ] || FAILED=1
	done
}

section_strategies() {
	local k load s1=() sn=() m1 mn disk=() m_disk line name med runs err
	local model real note target v1 v2 cells
	local -A small_m=() small_runs=() small_err=() big_m=() big_runs=() big_err=() seen=()
	local names=() best_x_s=n/a best_x_sn="" best_r_s=n/a best_r_sn="" best_x_b=n/a best_x_bn=""
	local best_r_b=n/a best_r_bn="" streams
	streams=$(nproc)
	load=$(loadavg)
	say "strategies: iperf3, 1 and $streams streams, $REPEAT runs each"
	for ((k = 1; k <= REPEAT; k++)); do
		attempt iperf3_streams_bps 1
		s1+=("$RESULT")
		attempt iperf3_streams_bps "$streams"
		sn+=("$RESULT")
	done
	strategy_rounds small -w smallfiles --files "$FILES" --source-dir "$SRC_SMALL" --no-probes
	strategy_rounds big -w largefile --size "$SIZE" --source-dir "$SRC_BIG" --disk-probe-size "$SIZE"
	for ((k = 1; k <= REPEAT; k++)); do
		disk+=("$(json_get "$WORK/big.$k.json" ceilings.disk_write_bytes_per_s)")
	done
	m1=$(median "${s1[@]}")
	mn=$(median "${sn[@]}")
	m_disk=$(median "${disk[@]}")

	while IFS=$'\t' read -r name med runs err; do
		names+=("$name")
		seen[$name]=1
		small_m[$name]=$med
		small_runs[$name]=$runs
		small_err[$name]=$err
	done < <(strategy_medians "$WORK"/small.*.json)
	while IFS=$'\t' read -r name med runs err; do
		[ -n "${seen[$name]:-}" ] || names+=("$name")
		seen[$name]=1
		big_m[$name]=$med
		big_runs[$name]=$runs
		big_err[$name]=$err
	done < <(strategy_medians "$WORK"/big.*.json)
	for name in "${names[@]}"; do
		if [ "${STRATEGY_KIND[$name]:-}" = xfercmp ]; then
			keep_best best_x_s best_x_sn "${small_m[$name]:-n/a}" "$name"
			keep_best best_x_b best_x_bn "${big_m[$name]:-n/a}" "$name"
		else
			keep_best best_r_s best_r_sn "${small_m[$name]:-n/a}" "$name"
			keep_best best_r_b best_r_bn "${big_m[$name]:-n/a}" "$name"
		fi
	done

	echo
	echo "## strategies: every xfercmp strategy and every reference tool (load average $load)"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config -s LIST\` against the testbed, cold source,"
	echo "durable destination, every run verified; $REPEAT rounds (round k of every strategy"
	echo "before round k + 1 of any), medians. LIST is every strategy of \`-s all,real\`, each"
	echo "model next to the real tool it models, forwards in odd rounds and backwards in even"
	echo "ones: \`$(round_list 1)\`. The small files run with \`--no-probes\`; the"
	echo "large file's runs include the probes, whose \`disk_write_bytes_per_s\` (sequential writes with"
	echo "write-behind and drop-behind, then fsync, on the destination's file system; \`--disk-probe-size $SIZE\`:"
	echo "as much as the file) is the durable-write ceiling. \"× best ref\" is the best reference"
	echo "tool's median time / this strategy's."
	echo
	md_head lrl "network ceiling (iperf3 into the testbed, ${IPERF_SECONDS} s runs)" "median Gbit/s" runs
	md_row "1 stream" "$(calc "%.2f" "a / 1e9" "$m1" 1)" "$(calc_list "%.2f" "a / 1e9" "${s1[@]}")"
	md_row "$streams streams" "$(calc "%.2f" "a / 1e9" "$mn" 1)" "$(calc_list "%.2f" "a / 1e9" "${sn[@]}")"
	md_row "durable write ceiling (probe, MB/s)" "$(calc "%.0f" "a / 1e6" "$m_disk" 1) MB/s" "$(calc_list "%.0f" "a / 1e6" "${disk[@]}")"
	echo
	md_head llrlrrrlr strategy kind "$FILES small files: median s" "runs s" "× best ref" \
		"one $SIZE file: median s" MB/s "runs s" "× best ref"
	for name in "${names[@]}"; do
		cells=()
		med=${small_m[$name]:-n/a}
		if [[ $med =~ ^[0-9] ]]; then
			cells+=("$(secs "$med")" "${small_runs[$name]}" "$(calc "%.2f" "b / a" "$med" "$best_r_s")")
		else
			cells+=("${small_err[$name]:-not run}" "${small_runs[$name]:-}" "")
		fi
		med=${big_m[$name]:-n/a}
		if [[ $med =~ ^[0-9] ]]; then
			cells+=("$(secs "$med")" "$(calc "%.1f" "b / a / 1e6" "$med" "$BIG_BYTES")" "${big_runs[$name]}" \
				"$(calc "%.2f" "b / a" "$med" "$best_r_b")")
		else
			cells+=("${big_err[$name]:-not run}" "" "${big_runs[$name]:-}" "")
		fi
		md_row "$name" "${STRATEGY_KIND[$name]:-unknown}" "${cells[@]}"
	done
	echo
	md_ratios
	line=$(calc "%.2f" "b / a" "$best_x_s" "$best_r_s")
	md_row "small files: best reference ($best_r_sn) time / best xfercmp ($best_x_sn) time" "$line" "≥ 2" "$(verdict "$line" 2)"
	line=$(awk -v s="$best_x_b" -v n="$BIG_BYTES" -v d="$m_disk" 'BEGIN {
		if (s !~ /^[0-9.]/ || d !~ /^[0-9.]/ || s <= 0 || d <= 0) print "n/a"; else printf "%.2f", n / s / d }')
	md_row "large file: best xfercmp ($best_x_bn) MB/s / durable write ceiling MB/s" "$line" "≥ 0.95" "$(verdict "$line" 0.95)"
	line=$(calc "%.2f" "b / a" "$best_x_b" "$best_r_b")
	md_row "large file: fastest reference ($best_r_bn) time / best xfercmp ($best_x_bn) time" "$line" \
		"> 1 (faster than every reference)" "$(exceeds "$line" 1)"
	# the pairs --list-strategies gives, with the bench's information rows (INFO_PAIRS)
	for line in "${PAIRS[@]}"; do
		IFS=$'\t' read -r model real note <<<"$line" || true
		v1=$(calc "%.2f" "a / b" "${small_m[$model]:-n/a}" "${small_m[$real]:-n/a}")
		v2=$(calc "%.2f" "a / b" "${big_m[$model]:-n/a}" "${big_m[$real]:-n/a}")
		if [ -n "$note" ]; then
			target="information ($note)"
			md_row "fidelity, small files: $model time / $real time" "$v1" "$target" ""
			md_row "fidelity, large file: $model time / $real time" "$v2" "$target" ""
		else
			target="0.85 – 1.15"
			md_row "fidelity, small files: $model time / $real time" "$v1" "$target" "$(within "$v1" 0.85 1.15)"
			md_row "fidelity, large file: $model time / $real time" "$v2" "$target" "$(within "$v2" 0.85 1.15)"
		fi
	done
	cost_section "$WORK"/small.*.json -- "$WORK"/big.*.json
}
