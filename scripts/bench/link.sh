# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section link of scripts/bench.sh (sourced), issue 24 item 2: across a delayed link. The
# testbed shaped to 1 Gbit/s (tc tbf) with LINK_DELAYS of added round trip (scripts/
# testbed.sh up --rate 1gbit --delay D), cold source, durable destination, each delay in
# turn:
#   - the link itself: iperf3 with 1 and 8 streams (what TCP gets through the shaper);
#   - one SIZE file: parallel (-P auto, the default) and splice, each as a fraction of the
#     link: bytes x 8 / seconds against the nominal 1 Gbit/s and against iperf3's 8
#     streams; target >= 0.85 of the nominal rate;
#   - FILES small files: the best of splice, parallel and tar-ssh, against scp on a tree
#     of LINK_SCP_FILES files scaled to FILES by its time per file (scp waits about four
#     round trips a file: 120,000 of them at 20 ms would take over two hours); target:
#     best >= 20x faster than scp. The scaling leaves out scp's fixed set-up, which only
#     flatters scp.
# REPEAT rounds, the variants alternating; medians. The link is left unshaped at the end.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

readonly LINK_DELAYS="0.5ms 20ms"
readonly LINK_RATE_BPS=1000000000
readonly LINK_SCP_FILES=1000
readonly LINK_SMALL_BEST=splice,parallel,tar-ssh

# link_rate SECONDS BYTES: the bits per second a run moved, as a fraction of the nominal rate.
link_rate() { calc "%.2f" "a * 8 / b / $LINK_RATE_BPS" "$2" "$1"; }

# link_best JSON: "NAME SECONDS" of the fastest verified result in an xfercmp --json file.
link_best() {
	json_results "$1" | awk -F'\t' '$2 == "ok" && (best == "" || $3 < best) { best = $3; name = $1 }
		END { if (best != "") print name, best; else print "none failed" }'
}

section_link() {
	local delay k name secs scp_src load
	local -A big=() small=() best_of=() scp=() iperf1=() iperf8=()
	generate_sources
	scp_src=$WORK/link-scp
	"$XFERCMP" gen -q -w smallfiles --files "$LINK_SCP_FILES" "$scp_src" >"$WORK/gen-link.log" 2>&1 ||
		die 1 "xfercmp gen failed: $(tail -n 1 "$WORK/gen-link.log")"
	load=$(loadavg)
	for delay in $LINK_DELAYS; do
		"$TOP/scripts/testbed.sh" up --rate 1gbit --delay "$delay" >&2 ||
			die 1 "cannot bring the testbed up with --rate 1gbit --delay $delay"
		# shellcheck disable=SC2034 # lib.sh's cleanup takes the testbed down
		BROUGHT_UP=1
		IPERF_STREAMS=1 iperf3_bps
		iperf1[$delay]=$RESULT
		IPERF_STREAMS=8 iperf3_bps
		iperf8[$delay]=$RESULT
		for ((k = 1; k <= REPEAT; k++)); do
			for name in $( ((k % 2)) && echo "parallel splice" || echo "splice parallel"); do
				say "link: $delay, $SIZE through $name, round $k"
				drop_caches
				attempt compare_testbed "$WORK/link-big.$delay.$name.$k.json" -w largefile --size "$SIZE" \
					--source-dir "$SRC_BIG" -s "$name"
				big[$delay.$name]+="$RESULT "
			done
			say "link: $delay, $FILES files through $LINK_SMALL_BEST, round $k"
			drop_caches
			attempt compare_all "$WORK/link-small.$delay.$k.json" -w smallfiles --files "$FILES" \
				--source-dir "$SRC_SMALL" -s "$LINK_SMALL_BEST"
			read -r name secs <<<"$(link_best "$WORK/link-small.$delay.$k.json")"
			small[$delay]+="$secs "
			best_of[$delay]+="$name "
			say "link: $delay, scp on $LINK_SCP_FILES files, round $k"
			drop_caches
			attempt compare_testbed "$WORK/link-scp.$delay.$k.json" -w "dir:$scp_src" -s scp
			scp[$delay]+="$RESULT "
		done
	done
	"$TOP/scripts/testbed.sh" up >&2 || true
	echo
	echo "## link: 1 Gbit/s with a delay (issue 24)"
	echo
	echo "The testbed shaped to 1 Gbit/s (\`scripts/testbed.sh up --rate 1gbit --delay D\`), cold source,"
	echo "durable destination; $REPEAT rounds alternating, medians (each run's probes not counted)."
	echo "Load average at start: $load. Link fraction: bytes x 8 / seconds / 1 Gbit/s, and in"
	echo "brackets against iperf3's 8 streams through the same shaper."
	echo
	md_head lrrrrrl delay "iperf3 1 / 8 streams" "$SIZE parallel" "$SIZE splice" "parallel of link" "splice of link" target
	for delay in $LINK_DELAYS; do
		local pt st pr sr
		# shellcheck disable=SC2086 # the runs' times, one word each
		pt=$(median ${big[$delay.parallel]})
		# shellcheck disable=SC2086
		st=$(median ${big[$delay.splice]})
		pr=$(link_rate "$pt" "$BIG_BYTES")
		sr=$(link_rate "$st" "$BIG_BYTES")
		md_row "$delay" "$(calc "%.3f" "a / 1e9" "${iperf1[$delay]}" 1) / $(calc "%.3f" "a / 1e9" "${iperf8[$delay]}" 1) Gbit/s" \
			"$(secs "$pt") s" "$(secs "$st") s" \
			"$pr ($(calc "%.2f" "a * $LINK_RATE_BPS / b" "$pr" "${iperf8[$delay]}"))" \
			"$sr ($(calc "%.2f" "a * $LINK_RATE_BPS / b" "$sr" "${iperf8[$delay]}"))" \
			">= 0.85: parallel $(verdict "$pr" 0.85), splice $(verdict "$sr" 0.85)"
	done
	echo
	md_head lrlrrrl delay "best, $FILES files" "which" "scp, $LINK_SCP_FILES files" "scp scaled to $FILES" "best / scp" target
	for delay in $LINK_DELAYS; do
		local bt sc scaled ratio
		# shellcheck disable=SC2086
		bt=$(median ${small[$delay]})
		# shellcheck disable=SC2086
		sc=$(median ${scp[$delay]})
		scaled=$(calc "%.2f" "a * b / $LINK_SCP_FILES" "$sc" "$FILES")
		ratio=$(calc "%.1f" "a / b" "$scaled" "$bt")
		md_row "$delay" "$(secs "$bt") s" "${best_of[$delay]% }" "$(secs "$sc") s" "$scaled s" "${ratio}x" \
			">= 20x: $(verdict "$ratio" 20)"
	done
}
