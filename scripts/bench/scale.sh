# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section scale of scripts/bench.sh (sourced): a million files (issue 24, item 3).
# `xfercmp gen -w smallfiles` of FILES and of SCALE_FILES files (timed, with its peak
# RSS from GNU time), then xfercmp -s splice,parallel,tar-ssh --no-probes on each tree
# against the testbed (cold source, durable destination, verified), REPEAT rounds.
# Targets: time per file at SCALE_FILES within 1.2x of that at FILES, for gen and for
# every strategy; client and agent peak RSS each < 300 MB (the JSON's
# client_/agent_peak_rss_bytes per result and peak_rss over each process's life).

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"
# shellcheck source=scripts/bench/cost.sh
. "${BASH_SOURCE[0]%/*}/cost.sh"

readonly SCALE_STRATEGIES=splice,parallel,tar-ssh
readonly SCALE_RSS_MAX=300000000

# scale_gen N DIR: a timed `xfercmp gen` of N files into DIR, then sync -f; sets RESULT
# to "SECONDS MAXRSS_BYTES" or "failed".
scale_gen() {
	local t0 rss
	drop_caches
	t0=$(now)
	if /usr/bin/time -f '%M' -o "$WORK/gen-time.$1" timeout "$LIMIT" "$XFERCMP" gen -q -w smallfiles \
		--files "$1" "$2" >"$WORK/gen-scale.$1.log" 2>&1 && sync -f "$2"; then
		rss=$(tail -n 1 "$WORK/gen-time.$1")
		RESULT="$(elapsed "$t0" "$(now)") $((rss * 1024))"
	else
		say "xfercmp gen --files $1 failed: $(tail -n 1 "$WORK/gen-scale.$1.log")"
		RESULT=failed
		FAILED=1
	fi
}

# scale_json_peaks FILE...: the highest client and agent peak RSS (bytes) over the
# results and the document's lifetime peaks of the xfercmp --json FILEs: "client agent".
scale_json_peaks() {
	perl -MJSON::PP -e '
		my ($c, $a) = (0, 0);
		for my $file (@ARGV) {
			local $/; open(my $f, "<", $file) or next;
			my $d = eval { decode_json(<$f>) } or next;
			for my $r (@{ $d->{results} || [] }, { client_peak_rss_bytes => $d->{peak_rss}{client_bytes},
								  agent_peak_rss_bytes => $d->{peak_rss}{agent_bytes} }) {
				$c = $r->{client_peak_rss_bytes} if ($r->{client_peak_rss_bytes} // 0) > $c;
				$a = $r->{agent_peak_rss_bytes} if ($r->{agent_peak_rss_bytes} // 0) > $a;
			}
		}
		printf "%s %s\n", $c || "n/a", $a || "n/a";
	' "$@"
}

# scale_rounds TAG N DIR: REPEAT rounds of the strategies on the N-file tree DIR into
# $WORK/scale-TAG.K.json; the invocations' wall times (setup, every strategy, its
# verification) into SCALE_WALL.
scale_rounds() {
	local tag=$1 n=$2 dir=$3 k t0 order
	SCALE_WALL=()
	for ((k = 1; k <= REPEAT; k++)); do
		order=$SCALE_STRATEGIES
		((k % 2)) || order=$(tr , '\n' <<<"$SCALE_STRATEGIES" | tac | paste -sd,)
		drop_caches
		say "scale: $n files, round $k of $REPEAT ($order)"
		t0=$(now)
		attempt compare_all "$WORK/scale-$tag.$k.json" -w smallfiles --files "$n" --source-dir "$dir" \
			--no-probes -s "$order"
		SCALE_WALL+=("$(elapsed "$t0" "$(now)")")
	done
}

section_scale() {
	local load g_small g_big t_small t_big w_small=() w_big=() name med err r
	local -A m_small=() m_big=()
	local names=() peaks_small peaks_big
	load=$(loadavg)
	mkdir -p "$WORK/scale"
	scale_gen "$FILES" "$WORK/scale/small"
	g_small=$RESULT
	scale_gen "$SCALE_FILES" "$WORK/scale/big"
	g_big=$RESULT
	[ "$g_small" != failed ] && [ "$g_big" != failed ] || return 0
	scale_rounds small "$FILES" "$WORK/scale/small"
	w_small=("${SCALE_WALL[@]}")
	scale_rounds big "$SCALE_FILES" "$WORK/scale/big"
	w_big=("${SCALE_WALL[@]}")
	while IFS=$'\t' read -r name med _ err; do
		names+=("$name")
		m_small[$name]=$med
	done < <(strategy_medians "$WORK"/scale-small.*.json)
	while IFS=$'\t' read -r name med _ err; do
		m_big[$name]=${med}
		[[ $med =~ ^[0-9] ]] || m_big[$name]="${err:-n/a}"
	done < <(strategy_medians "$WORK"/scale-big.*.json)
	peaks_small=$(scale_json_peaks "$WORK"/scale-small.*.json)
	peaks_big=$(scale_json_peaks "$WORK"/scale-big.*.json)

	echo
	echo "## scale: $FILES and $SCALE_FILES small files (load average $load)"
	echo
	echo "\`xfercmp gen -q -w smallfiles --files N DIR && sync -f DIR\` (peak RSS from GNU time), then"
	echo "\`xfercmp -F build/testbed/ssh_config -w smallfiles --files N --source-dir DIR --no-probes"
	echo "-s $SCALE_STRATEGIES\` against the testbed ($REPEAT rounds, order reversed in even ones), cold"
	echo "source, durable destination, every run verified. \"µs/file\" is the median time / N. The"
	echo "whole invocation (the manifest read, every strategy, each verification) is its wall time."
	echo "The kernel's dentry cache hash table: $(scale_dhash) buckets (every path component a run"
	echo "opens, creates or stats is looked up in it; a million files on each side fill chains"
	echo "that many times longer than $FILES do); dentries in use after the runs: $(cut -f1 /proc/sys/fs/dentry-state)."
	echo
	md_head lrrrrr what "$FILES: s" "$FILES: µs/file" "$SCALE_FILES: s" "$SCALE_FILES: µs/file" "per-file ratio"
	t_small=${g_small%% *}
	t_big=${g_big%% *}
	md_row "xfercmp gen + sync -f" "$(secs "$t_small")" "$(calc "%.1f" "a / b * 1e6" "$t_small" "$FILES")" \
		"$(secs "$t_big")" "$(calc "%.1f" "a / b * 1e6" "$t_big" "$SCALE_FILES")" \
		"$(calc "%.2f" "(b / $SCALE_FILES) / (a / $FILES)" "$t_small" "$t_big")"
	for name in "${names[@]}"; do
		md_row "$name (median)" "$(secs "${m_small[$name]}")" "$(calc "%.1f" "a / b * 1e6" "${m_small[$name]}" "$FILES")" \
			"$(scale_cell "${m_big[$name]:-n/a}")" \
			"$(calc "%.1f" "a / b * 1e6" "${m_big[$name]:-n/a}" "$SCALE_FILES")" \
			"$(calc "%.2f" "(b / $SCALE_FILES) / (a / $FILES)" "${m_small[$name]}" "${m_big[$name]:-n/a}")"
	done
	md_row "whole invocation, wall (median)" "$(secs "$(median "${w_small[@]}")")" "" "$(secs "$(median "${w_big[@]}")")" "" \
		"$(calc "%.2f" "(b / $SCALE_FILES) / (a / $FILES)" "$(median "${w_small[@]}")" "$(median "${w_big[@]}")")"
	echo
	md_head lrr "peak resident memory, MB" "$FILES" "$SCALE_FILES"
	md_row "xfercmp gen (GNU time)" "$(calc "%.0f" "a / 1e6" "${g_small#* }" 1)" "$(calc "%.0f" "a / 1e6" "${g_big#* }" 1)"
	md_row "client (highest run, and over its life)" "$(calc "%.0f" "a / 1e6" "${peaks_small% *}" 1)" "$(calc "%.0f" "a / 1e6" "${peaks_big% *}" 1)"
	md_row "agent (highest run, and over its life)" "$(calc "%.0f" "a / 1e6" "${peaks_small#* }" 1)" "$(calc "%.0f" "a / 1e6" "${peaks_big#* }" 1)"
	echo
	cost_table "$SCALE_FILES files" "$WORK"/scale-big.*.json
	echo
	md_ratios
	r=$(calc "%.2f" "(b / $SCALE_FILES) / (a / $FILES)" "$t_small" "$t_big")
	md_row "gen: time per file at $SCALE_FILES / at $FILES" "$r" "≤ 1.2" "$(scale_at_most "$r" 1.2)"
	for name in "${names[@]}"; do
		r=$(calc "%.2f" "(b / $SCALE_FILES) / (a / $FILES)" "${m_small[$name]}" "${m_big[$name]:-n/a}")
		md_row "$name: time per file at $SCALE_FILES / at $FILES" "$r" "≤ 1.2" "$(scale_at_most "$r" 1.2)"
	done
	r=$(calc "%.0f" "a / 1e6" "${peaks_big% *}" 1)
	md_row "client peak RSS at $SCALE_FILES files, MB" "$r" "< 300" "$(scale_below "${peaks_big% *}" "$SCALE_RSS_MAX")"
	r=$(calc "%.0f" "a / 1e6" "${peaks_big#* }" 1)
	md_row "agent peak RSS at $SCALE_FILES files, MB" "$r" "< 300" "$(scale_below "${peaks_big#* }" "$SCALE_RSS_MAX")"
}

# scale_dhash: the dentry cache hash table's size, from the kernel's boot messages (or
# its dhash_entries= boot parameter), "unknown" when neither says.
scale_dhash() {
	local n
	n=$(dmesg 2>/dev/null | sed -n 's/.*Dentry cache hash table entries: \([0-9]*\).*/\1/p' | head -n 1)
	[ -n "$n" ] || n=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^dhash_entries=//p')
	echo "${n:-unknown}"
}

# scale_cell V: V as seconds when it is a number, else as it is (a failure's reason).
scale_cell() {
	if [[ $1 =~ ^[0-9] ]]; then secs "$1"; else printf '%s\n' "$1"; fi
}
# scale_at_most RATIO TARGET: "target met" when RATIO <= TARGET.
scale_at_most() {
	awk -v r="$1" -v t="$2" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 <= t + 0) print "target met"; else print "target not met" }'
}
# scale_below VALUE LIMIT: "target met" when VALUE < LIMIT.
scale_below() {
	awk -v r="$1" -v t="$2" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 < t + 0) print "target met"; else print "target not met" }'
}
