# shellcheck shell=bash
# Section builds of scripts/bench.sh (sourced): this build against another one
# (--old DIR: that build's xfercmp and xfercmp-agent) on the raw-TCP strategies,
# splice, zstd and parallel, on the testbed host, cold source, durable destination,
# --no-probes: FILES small files and the one SIZE file, REPEAT rounds, each round both
# builds one after the other (which goes first alternates), the same sources for both.
# Per strategy and workload: the median seconds and the spread of each build, and this
# build's throughput over the old one's; target >= 0.95 (issue 43: authenticating every
# data byte may cost the raw strategies at most 5%).

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

readonly BUILDS_STRATEGIES=splice,zstd,parallel

# builds_run BIN JSON ARGS...: BIN (an xfercmp) ARGS against the testbed, as compare_all
# runs this build; JSON its report; RESULT ok, or failed when it gave no result.
builds_run() {
	local bin=$1 json=$2 pid
	shift 2
	REMOTE_N=$((REMOTE_N + 1))
	rm -f "$json"
	RESULT=failed
	bg_start "$json.log" "$bin" -F "$SSH_CONFIG" --remote-dir "$WORK/remote.$REMOTE_N" "$@" \
		--json "$json" testbed
	pid=$BG_PID
	watch "$pid" || { bg_wait "$pid" || true; rm -f "$json"; return 0; }
	bg_wait "$pid" || true
	if [ -z "$(json_results "$json")" ]; then
		say "$bin $*: no result: $(tail -n 1 "$json.log" 2>/dev/null)"
		FAILED=1
		return 0
	fi
	RESULT=ok
}

# builds_round K WORKLOAD ARGS...: round K of both builds on WORKLOAD (small, big)
builds_round() {
	local k=$1 w=$2 b order=(old new)
	shift 2
	[ $((k % 2)) -eq 1 ] || order=(new old)
	for b in "${order[@]}"; do
		drop_caches
		say "builds: $w, round $k of $REPEAT, the $b build"
		attempt builds_run "${BUILD_BIN[$b]}" "$WORK/builds-$w-$b.$k.json" "$@" -s "$BUILDS_STRATEGIES"
	done
}

section_builds() {
	local k w name med runs err bytes ratio spread
	local -a runs_list
	local -A BUILD_BIN=([old]="$OLD_BUILD/xfercmp" [new]="$XFERCMP") old_m=() old_runs=() new_m=() new_runs=()
	generate_sources
	for ((k = 1; k <= REPEAT; k++)); do
		builds_round "$k" small -w smallfiles --files "$FILES" --source-dir "$SRC_SMALL" --no-probes
		builds_round "$k" big -w largefile --size "$SIZE" --source-dir "$SRC_BIG" --no-probes
	done
	echo
	echo "## This build against $OLD_BUILD ($("${BUILD_BIN[old]}" --version 2>/dev/null || echo unknown))"
	echo
	echo "Raw-TCP strategies on the testbed host, cold source, durable destination; $REPEAT rounds,"
	echo "the builds one after the other in each (alternating which first). Seconds: median (runs)."
	echo
	md_head lllllll strategy workload "old s" "new s" "new/old throughput" "new: fastest-slowest" ">= 0.95"
	for w in small big; do
		old_m=() old_runs=() new_m=() new_runs=()
		while IFS=$'\t' read -r name med runs err; do
			old_m[$name]=$med old_runs[$name]=$runs
		done < <(strategy_medians "$WORK"/builds-$w-old.*.json)
		while IFS=$'\t' read -r name med runs err; do
			new_m[$name]=$med new_runs[$name]=$runs
		done < <(strategy_medians "$WORK"/builds-$w-new.*.json)
		bytes=$SMALL_BYTES
		[ "$w" = small ] || bytes=$BIG_BYTES
		for name in ${BUILDS_STRATEGIES//,/ }; do
			ratio=n/a
			if [[ ${old_m[$name]:-n/a} =~ ^[0-9.]+$ && ${new_m[$name]:-n/a} =~ ^[0-9.]+$ ]]; then
				ratio=$(calc "%.3f" "a / b" "${old_m[$name]}" "${new_m[$name]}")
			fi
			IFS=, read -r -a runs_list <<<"${new_runs[$name]:-}"
			spread="$(minimum "${runs_list[@]}")-$(maximum "${runs_list[@]}") s"
			md_row "$name" "$w ($(calc "%.0f" "a / 1e6" "$bytes" 1) MB)" \
				"$(secs "${old_m[$name]:-n/a}") (${old_runs[$name]:-none})" \
				"$(secs "${new_m[$name]:-n/a}") (${new_runs[$name]:-none})" "$ratio" "${spread:-n/a}" \
				"$(verdict "$ratio" 0.95)"
		done
	done
}
