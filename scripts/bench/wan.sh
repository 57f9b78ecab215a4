# shellcheck shell=bash
# The wan section of scripts/bench.sh: `parallel` with -P auto against fixed -P 1, 2 and
# 8 on a long link, at 0.5 ms and 20 ms of added round trip (scripts/testbed.sh up
# --delay, unshaped), one file of SIZE (1-2 GiB keeps the section under ~10 min), cold
# source, durable destination. The four runs at one delay alternate, REPEAT rounds; each
# xfercmp run measures its own probes (auto's sweep), so every variant pays the same
# probe phase and only the strategy's median time is compared. Target: auto within 10% of
# the best fixed N, auto <= 1.1 x best (best fixed / auto >= 1/1.1 = 0.909, decided on the
# unrounded ratio: wan_target). Prints what auto chose and its sweep.
# Sourced by scripts/bench.sh; needs lib.sh.

readonly WAN_DELAYS="0.5ms 20ms"
readonly WAN_FIXED="1 2 8"
# strategy runs in each xfercmp invocation (its --repeat; the median is compared): the
# probes, most of an invocation's time, run once
readonly WAN_INNER_REPEAT=3

# wan_target BEST AUTO: "target met" when AUTO (seconds) is within 10% of BEST, AUTO <=
# 1.1 x BEST; n/a when either is not a time. On the ratio itself, not the table's two
# decimals: 10 s against 11.05 s is 0.905, printed 0.90 or 0.91, and not met.
wan_target() {
	verdict "$(calc "%.9f" "a / b" "$1" "$2")" "$(awk 'BEGIN { printf "%.9f", 1 / 1.1 }')"
}

# wan_order K: the variants of round K (from 1), rotated by K - 1, so that each takes
# each place in a round once in as many rounds as there are variants. In a fixed order
# (auto first) auto ran slowest at 0.5 ms in both rounds of two runs (1.16 s and 1.13 s)
# while -P 8, the very N it chose, ran 1.13 s and 1.01 s: the first run after the
# previous round's removal paid for it.
wan_order() {
	local -a v=(auto $WAN_FIXED)
	local i n=${#v[@]} out=()
	for ((i = 0; i < n; i++)); do
		out+=("${v[(i + $1 - 1) % n]}")
	done
	echo "${out[*]}"
}

# wan_run DELAY P K: one xfercmp run of parallel at -P P into $WORK/wan.DELAY.P.K.json;
# prints its median seconds, or "failed" (run in $(...): the caller sets FAILED).
wan_run() {
	local json="$WORK/wan.$1.$2.$3.json" t
	drop_caches
	if ! timeout "$LIMIT" "$XFERCMP" -F "$SSH_CONFIG" -q -w largefile --size "$SIZE" -s parallel \
		--repeat "$WAN_INNER_REPEAT" -P "$2" --json "$json" testbed >"$WORK/wan.$1.$2.$3.out" 2>&1; then
		say "wan: parallel -P $2 at $1 failed: $(tail -n 1 "$WORK/wan.$1.$2.$3.out")"
		echo failed
		return 0
	fi
	t=$(json_get "$json" results.0.seconds)
	echo "${t:-failed}"
}

section_wan() {
	local delay p k best best_name ratio auto_n auto_t sweep t
	local -A times=()
	echo
	echo "## wan: parallel -P auto against fixed -P on a long link"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config -w largefile --size $SIZE -s parallel -P N\` against the"
	echo "testbed with a delay and no rate limit, cold source, durable destination; $REPEAT rounds, the"
	echo "variants alternating, each round starting one further along, each run the median of"
	echo "$WAN_INNER_REPEAT (xfercmp --repeat); seconds of the"
	echo "strategy (each run's own probes not counted)."
	for delay in $WAN_DELAYS; do
		"$TOP/scripts/testbed.sh" down >/dev/null 2>&1 || true
		"$TOP/scripts/testbed.sh" up --delay "$delay" >&2 || die 1 "cannot bring the testbed up with --delay $delay"
		# shellcheck disable=SC2034 # lib.sh's cleanup takes the testbed down
		BROUGHT_UP=1
		for ((k = 1; k <= REPEAT; k++)); do
			for p in $(wan_order "$k"); do
				say "wan: $delay, -P $p, round $k"
				t=$(wan_run "$delay" "$p" "$k")
				# shellcheck disable=SC2034 # bench.sh's exit status reads it
				[ "$t" != failed ] || FAILED=1
				times[$delay.$p]+="$t "
			done
		done
	done
	"$TOP/scripts/testbed.sh" up >&2 || true
	echo
	md_head lrrrrrll delay "auto (chose N)" "-P 1" "-P 2" "-P 8" "best fixed / auto" target sweep
	for delay in $WAN_DELAYS; do
		best=n/a
		best_name=""
		for p in $WAN_FIXED; do
			# shellcheck disable=SC2086 # the runs' times, one word each
			keep_best best best_name "$(median ${times[$delay.$p]})" "$p"
		done
		# shellcheck disable=SC2086
		auto_t=$(median ${times[$delay.auto]})
		ratio=$(calc "%.2f" "a / b" "$best" "$auto_t")
		auto_n=$(json_get "$WORK/wan.$delay.auto.1.json" streams)
		sweep=$(perl -MJSON::PP -e 'local $/; open(my $f, "<", $ARGV[0]) or exit 0; my $d = eval { decode_json(<$f>) } or exit 0;
			print join(" ", map { sprintf "%d:%.1f", $_->{streams}, $_->{bits_per_s} / 1e9 } @{$d->{ceilings}{network}{sweep}}), " Gbit/s (", $d->{ceilings}{network}{sweep_stopped} // "?", ")"' \
			"$WORK/wan.$delay.auto.1.json")
		# shellcheck disable=SC2086
		md_row "$delay" "$(secs "$auto_t") ($auto_n)" "$(secs "$(median ${times[$delay.1]})")" \
			"$(secs "$(median ${times[$delay.2]})")" "$(secs "$(median ${times[$delay.8]})")" \
			"$ratio (best: -P $best_name)" ">= 0.909: $(wan_target "$best" "$auto_t")" "$sweep"
	done
}
