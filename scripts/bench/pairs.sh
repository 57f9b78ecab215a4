# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section pairs of scripts/bench.sh (sourced): the fidelity pairs of issue 25, xfercmp's
# parallel beside the parallel tools people pick for big migrations, real-rclone
# (rclone copy --transfers N over SFTP) and real-fpsync (fpart's partitions, N rsync
# workers over ssh), at the same -P N for each N of PAIR_STREAMS, on the FILES small
# files and on the SIZE file; REPEAT rounds (order reversed in even rounds), medians;
# which is fastest where, and what xfercmp's recommendation says (it names the closest
# real tool when parallel wins).

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"
# shellcheck source=scripts/bench/cost.sh
. "${BASH_SOURCE[0]%/*}/cost.sh"

readonly PAIR_TRIO=parallel,real-rclone,real-fpsync

# pairs_cell V ERR: V as seconds when it is a number, else ERR (or n/a).
pairs_cell() {
	if [[ $1 =~ ^[0-9] ]]; then secs "$1"; else printf '%s\n' "${2:-n/a}"; fi
}

# pairs_fastest P R F: the name of the fastest of parallel (P), real-rclone (R) and
# real-fpsync (F) seconds ("n/a" values left out), "none" when none ran.
pairs_fastest() {
	# shellcheck disable=SC2034 # set through keep_best's namerefs
	local best=n/a name=none
	keep_best best name "$1" parallel
	keep_best best name "$2" real-rclone
	keep_best best name "$3" real-fpsync
	echo "$name"
}

# pairs_rows TAG WHAT N: one table row for the rounds in $WORK/pairs-TAG-N.*.json.
pairs_rows() {
	local tag=$1 what=$2 n=$3 name med runs err
	local -A m=() e=() r=()
	while IFS=$'\t' read -r name med runs err; do
		m[$name]=$med
		e[$name]=$err
		r[$name]=$runs
	done < <(strategy_medians "$WORK"/pairs-"$tag"-"$n".*.json)
	md_row "$what" "$n" \
		"$(pairs_cell "${m[parallel]:-n/a}" "${e[parallel]:-}")" "${r[parallel]:-}" \
		"$(pairs_cell "${m[real-rclone]:-n/a}" "${e[real-rclone]:-}")" "${r[real-rclone]:-}" \
		"$(pairs_cell "${m[real-fpsync]:-n/a}" "${e[real-fpsync]:-}")" "${r[real-fpsync]:-}" \
		"$(calc "%.2f" "a / b" "${m[real-rclone]:-n/a}" "${m[parallel]:-n/a}")" \
		"$(calc "%.2f" "a / b" "${m[real-fpsync]:-n/a}" "${m[parallel]:-n/a}")" \
		"$(pairs_fastest "${m[parallel]:-n/a}" "${m[real-rclone]:-n/a}" "${m[real-fpsync]:-n/a}")"
}

section_pairs() {
	local k n load order streams=()
	generate_sources
	IFS=, read -r -a streams <<<"$PAIR_STREAMS"
	load=$(loadavg)
	for n in "${streams[@]}"; do
		for ((k = 1; k <= REPEAT; k++)); do
			order=$PAIR_TRIO
			((k % 2)) || order="real-fpsync,real-rclone,parallel"
			drop_caches
			say "pairs: -P $n, $FILES small files, round $k of $REPEAT"
			attempt compare_all "$WORK/pairs-small-$n.$k.json" -w smallfiles --files "$FILES" \
				--source-dir "$SRC_SMALL" --no-probes -P "$n" -s "$order"
			drop_caches
			say "pairs: -P $n, one $SIZE file, round $k of $REPEAT"
			attempt compare_all "$WORK/pairs-big-$n.$k.json" -w largefile --size "$SIZE" \
				--source-dir "$SRC_BIG" --no-probes -P "$n" -s "$order"
		done
	done

	echo
	echo "## pairs: parallel beside rclone and fpsync at the same -P (load average $load)"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config --no-probes -P N -s $PAIR_TRIO\` against the testbed,"
	echo "cold source, durable destination, every run verified; $REPEAT rounds (the order reversed in"
	echo "even ones), medians. real-rclone is \`rclone copy --transfers N --create-empty-src-dirs"
	echo "--sftp-disable-hashcheck\` over rclone's SFTP client (rclone 1.60 splits no upload, so one"
	echo "large file is one SFTP session), real-fpsync \`fpsync -n N SRC/ HOST:DST/\`"
	echo "(fpart's partitions, N rsync workers over ssh): see \`xfercmp --list-strategies\`. \"× parallel\""
	echo "is the tool's median time / parallel's."
	echo
	md_head lrrlrlrlrrl workload "-P" "parallel s" runs "real-rclone s" runs "real-fpsync s" runs \
		"rclone × parallel" "fpsync × parallel" fastest
	for n in "${streams[@]}"; do
		pairs_rows small "$FILES small files" "$n"
		pairs_rows big "one $SIZE file" "$n"
	done
	for n in "${streams[@]}"; do
		echo
		cost_table "-P $n, $FILES small files: cost" "$WORK"/pairs-small-"$n".*.json
		echo
		cost_table "-P $n, one $SIZE file: cost" "$WORK"/pairs-big-"$n".*.json
	done
	echo
	echo "xfercmp's recommendation in round 1 of each (it names the closest real tool when parallel wins):"
	echo
	for n in "${streams[@]}"; do
		echo "- $FILES small files, -P $n: $(json_get "$WORK/pairs-small-$n.1.json" recommendation | sed 's/|/\\|/g')"
		echo "- one $SIZE file, -P $n: $(json_get "$WORK/pairs-big-$n.1.json" recommendation | sed 's/|/\\|/g')"
	done
}
