# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section forecast of scripts/bench.sh (sourced), issue 41 item 5: held-out cross-validation
# of the model. Every figure judged here is a forecast made before the run it is compared
# with (results[].forecast, its made_at before the result's started_at; what_if[] of
# another invocation), never one computed from that run (JSON schema 3,
# docs/report.schema.json). The output starts with the commit the model is frozen at
# (forecast_frozen), then:
#   (a) per case, one invocation of every own and real strategy (-s all,real, REPEAT runs
#       each) on the unshaped testbed, cold source, durable destination, with the probes:
#       per strategy the probes-only forecast (seconds, low - high, bound), the measured
#       median, the runs' min - max, forecast / measured; target 0.67 - 1.5 (the issue's, for
#       the own strategies; the real tools' rows are judged alike, for information);
#   (b) the same invocation carries a --what-if for each link of FORECAST_LINKS, and the
#       case runs again on the testbed shaped to that link: per strategy the what-if
#       forecast against the time measured on the link, target 0.80 - 1.25; and the
#       forecast against the least time the link needs for the strategy's bytes on the
#       wire (the larger of the what-if's carried wire_bytes and those measured on the
#       link, x 8 / the link's rate): a forecast below that floor is wrong whatever the run.
# Cases (FORECAST_CASES):
#   small      -w smallfiles --files FORECAST_FILES (default 20,000)
#   big        -w largefile --size FORECAST_SIZE (default 1 GiB)
#   realistic  -w realistic --files FORECAST_FILES: the small files with what real trees
#              hold (symbolic and hard links, empty and read-only directories, modes, mtimes)
# Links (FORECAST_LINKS; fc_link). scripts/testbed.sh holds what the host sends for D, so a
# round trip grows by D once: --delay D is the what-if's rtt=D, plus the veth's own 20-60 µs.
#   2ms    testbed.sh up --rate 1gbit --delay 2ms      --what-if rate=1gbit,rtt=2ms
#   20ms   testbed.sh up --rate 1gbit --delay 20ms     --what-if rate=1gbit,rtt=20ms
#   200m   testbed.sh up --rate 200mbit --delay 10ms   --what-if rate=200mbit,rtt=10ms
# The strategies that wait a round trip or more per file (FORECAST_SERIAL) would take 10 to
# 30 min a run on 20,000 files at 20 ms (scp: 2,000 files in 164 s, docs/BENCHMARKS.md): on
# the links, in the small and realistic cases, they move a tree of the same kind of
# SERIAL_FILES files (default 1,000) in a run of their own, and their what-if comes from an
# unshaped run of that same tree, made beside (a) and not judged in it. The shaped runs take
# the unshaped run's -P (its "streams"), so that parallel, real-rclone and real-fpsync run
# the command that was forecast. BENCH_KEEP_JSON=DIR keeps every invocation's JSON
# (forecast-CASE[-serial]-LINK.json). The link is left unshaped at the end.

# The cases, links and estimate live in forecast_plan.sh, the reading, judging and tables of
# the JSON in forecast_rows.sh.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"
# shellcheck source=scripts/bench/forecast_plan.sh
. "${BASH_SOURCE[0]%/*}/forecast_plan.sh"
# shellcheck source=scripts/bench/forecast_rows.sh
. "${BASH_SOURCE[0]%/*}/forecast_rows.sh"

# the strategies that wait a round trip or more per file: on the links, a tree of their own
readonly FORECAST_SERIAL=scp,real-scp,real-scp-legacy,real-rclone
# the files that make the model: a change in them since the commit is a model not frozen
readonly FC_MODEL_PATHS="transfer/model transfer/strategy docs/MODEL.md"

# forecast_frozen TOP XFERCMP: the line the section starts with: the commit the model is
# frozen at; ", dirty: PATHS" when FC_MODEL_PATHS differ from it (untracked files too), and
# a warning when XFERCMP is missing or older than a file there (it would not run the model
# that commit names).
forecast_frozen() {
	local top=$1 bin=$2 commit paths=() changed newer line
	# shellcheck disable=SC2206 # the paths are single words
	paths=($FC_MODEL_PATHS)
	if ! commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null); then
		echo "model frozen at: unknown ($top is not a git checkout)"
		return 0
	fi
	line="model frozen at commit $commit"
	changed=$(git -C "$top" status --porcelain --untracked-files=all -- "${paths[@]}" 2>/dev/null |
		cut -c4- | awk '{ n++; if (n <= 3) s = s (n > 1 ? ", " : "") $0 } END { if (n > 3) s = s " and " n - 3 " more"; print s }') || true
	[ -z "$changed" ] || line+=", dirty: $changed"
	if [ ! -e "$bin" ]; then
		line+="; ${bin#"$top"/} not built"
	else
		newer=$(cd "$top" && find "${paths[@]}" -type f -newer "$bin" 2>/dev/null | sort | head -n 1) || true
		[ -z "$newer" ] || line+="; ${bin#"$top"/} is older than $newer: run make"
	fi
	echo "$line"
}

# ---------------------------------------------------------------- the runs

# fc_tree CASE [serial]: the workload options of CASE's tree (serial: SERIAL_FILES files),
# one word each, generated once into its --source-dir under WORK.
fc_tree() {
	local files=$FORECAST_FILES dir=$WORK/forecast-$1
	if [ "${2:-}" = serial ]; then
		files=$SERIAL_FILES
		dir+=-serial
	fi
	case $1 in
	small) echo "-w smallfiles --files $files --source-dir $dir" ;;
	realistic) echo "-w realistic --files $files --source-dir $dir" ;;
	big) echo "-w largefile --size $FORECAST_SIZE --source-dir $dir" ;;
	esac
}

# fc_compare JSON ARGS...: compare_all on the link FC_SHAPE names (testbed.sh up arguments;
# none: unshaped), set again before each attempt: a testbed brought back up by attempt
# after someone took it down is unshaped.
fc_compare() {
	local json=$1
	shift
	if ! testbed_shape "${FC_SHAPE[@]}"; then
		say "forecast: cannot shape the testbed (${FC_SHAPE[*]:-unshaped})"
		RESULT=failed
		FAILED=1
		return 0
	fi
	compare_all "$json" "$@"
}

# fc_invoke NAME LINK ARGS...: one xfercmp invocation of ARGS, REPEAT runs each, on LINK
# (unshaped or an id of FORECAST_LINKS_ALL), into $WORK/forecast-NAME.json.
fc_invoke() {
	local name=$1 link=$2 shape=""
	shift 2
	FC_SHAPE=()
	if [ "$link" != unshaped ]; then
		IFS='|' read -r shape _ <<<"$(fc_link "$link")"
		read -r -a FC_SHAPE <<<"$shape"
	fi
	say "forecast: $name ($*)"
	drop_caches
	attempt fc_compare "$WORK/forecast-$name.json" "$@" --repeat "$REPEAT"
	[ "$RESULT" != failed ] || FAILED=1
	keep_json "$WORK/forecast-$name.json"
}

# fc_streams JSON: "-P N" with the streams the run in JSON used ("" when it names none).
fc_streams() {
	local p
	p=$(json_get "$1" streams)
	[[ ! $p =~ ^[1-9][0-9]*$ ]] || echo "-P $p"
}

# fc_link_cell LINK JSON: "1 Gbit/s, 2 ms (probed 0.96 Gbit/s, 2006 µs)", and "not as asked"
# when the probed round trip is under 3/4 or over 3/2 of the link's (the testbed reset under
# the run).
fc_link_cell() {
	local label rtt r cell
	IFS='|' read -r _ _ _ rtt label <<<"$(fc_link "$1")"
	r=$(calc "%.4f" "a / b" "$(json_get "$2" ceilings.rtt_p50_seconds)" "$rtt")
	cell="$label (probed $(probed_link "$2")"
	if [ "$r" != n/a ] && awk -v r="$r" 'BEGIN { exit !(r < 0.75 || r > 1.5) }'; then
		cell+=", not as asked"
	fi
	echo "$cell)"
}

# fc_strategy_lists: FC_FAST and FC_SERIAL, comma-separated, from ROUND_ORDER
# (strategies_load): every listed strategy not in FORECAST_SERIAL, and those in it.
fc_strategy_lists() {
	local s fast=() serial=()
	for s in "${ROUND_ORDER[@]}"; do
		case ",$FORECAST_SERIAL," in *",$s,"*) serial+=("$s") ;; *) fast+=("$s") ;; esac
	done
	FC_FAST=$(IFS=,; echo "${fast[*]}")
	FC_SERIAL=$(IFS=,; echo "${serial[*]}")
}

section_forecast() {
	local c l load t0 links=() cases=() what_if=() work=() serial_work=() p=() scenario label rate rtt
	local -A streams=()
	FC_A=()
	FC_B=()
	FC_P=()
	t0=$(now)
	load=$(loadavg)
	say "forecast: $(forecast_frozen "$TOP" "$XFERCMP")"
	fc_strategy_lists
	IFS=, read -r -a cases <<<"$FORECAST_CASES"
	IFS=, read -r -a links <<<"$FORECAST_LINKS"
	for l in "${links[@]}"; do
		IFS='|' read -r _ scenario _ <<<"$(fc_link "$l")"
		what_if+=(--what-if "$scenario")
	done
	# (a), and the what-ifs of (b): every case unshaped first
	for c in "${cases[@]}"; do
		read -r -a work <<<"$(fc_tree "$c")"
		fc_invoke "$c-unshaped" unshaped "${work[@]}" -s all,real "${what_if[@]}"
		FC_A+=("$(fc_held_records "$WORK/forecast-$c-unshaped.json" "$c" | fc_judge_held)")
		streams[$c]=$(fc_streams "$WORK/forecast-$c-unshaped.json")
		FC_P+=("$c ${streams[$c]:-(none)}")
		if [ "${#links[@]}" -gt 0 ] && [ "$c" != big ] && [ -n "$FC_SERIAL" ]; then
			read -r -a serial_work <<<"$(fc_tree "$c" serial)"
			fc_invoke "$c-serial-unshaped" unshaped "${serial_work[@]}" -s "$FC_SERIAL" "${what_if[@]}"
			streams[$c-serial]=$(fc_streams "$WORK/forecast-$c-serial-unshaped.json")
			FC_P+=("$c's $SERIAL_FILES files ${streams[$c-serial]:-(none)}")
		fi
	done
	# (b): each link, every case on it
	for l in "${links[@]}"; do
		IFS='|' read -r _ _ rate rtt _ <<<"$(fc_link "$l")"
		for c in "${cases[@]}"; do
			read -r -a work <<<"$(fc_tree "$c")"
			read -r -a p <<<"${streams[$c]}"
			if [ "$c" = big ] || [ -z "$FC_SERIAL" ]; then
				fc_invoke "$c-$l" "$l" "${work[@]}" -s all,real "${p[@]}"
			else
				fc_invoke "$c-$l" "$l" "${work[@]}" -s "$FC_FAST" "${p[@]}"
			fi
			label=$(fc_link_cell "$l" "$WORK/forecast-$c-$l.json")
			FC_B+=("$(fc_what_if_records "$WORK/forecast-$c-unshaped.json" "$WORK/forecast-$c-$l.json" \
				"$label" "$rate" "$rtt" "$c" | fc_judge_what_if)")
			if [ "$c" = big ] || [ -z "$FC_SERIAL" ]; then
				continue
			fi
			read -r -a serial_work <<<"$(fc_tree "$c" serial)"
			read -r -a p <<<"${streams[$c-serial]}"
			fc_invoke "$c-serial-$l" "$l" "${serial_work[@]}" -s "$FC_SERIAL" "${p[@]}"
			label=$(fc_link_cell "$l" "$WORK/forecast-$c-serial-$l.json")
			FC_B+=("$(fc_what_if_records "$WORK/forecast-$c-serial-unshaped.json" \
				"$WORK/forecast-$c-serial-$l.json" "$label" "$rate" "$rtt" \
				"$c, $SERIAL_FILES files, own run" | fc_judge_what_if)")
		done
	done
	[ "${#links[@]}" -eq 0 ] || "$TESTBED_SH" up >&2 || true	# unshaped for whoever comes next
	forecast_report "$load" "$(elapsed "$t0" "$(now)")"
}

# fc_join SEP ITEM...: the ITEMs with SEP between them.
fc_join() {
	local sep=$1 joined="" item
	shift
	[ $# -eq 0 ] || { joined=$1; shift; }
	for item; do joined+=$sep$item; done
	echo "$joined"
}

# forecast_report LOAD SECONDS: the section's tables and summaries from FC_A and FC_B.
forecast_report() {
	local est=0 c l line=()
	for c in ${FORECAST_CASES//,/ }; do
		for l in unshaped ${FORECAST_LINKS//,/ }; do
			est=$((est + $(fc_estimate "$c" "$l" "$FORECAST_LINKS")))
		done
	done
	echo
	echo "## forecast: held-out cross-validation of the model (issue 41; load average $1)"
	echo
	echo "$(forecast_frozen "$TOP" "$XFERCMP")."
	echo
	for c in ${FORECAST_CASES//,/ }; do
		case $c in
		small) line+=("small ($FORECAST_FILES files, \`-w smallfiles\`)") ;;
		big) line+=("big (one $FORECAST_SIZE file)") ;;
		realistic) line+=("realistic ($FORECAST_FILES files, \`-w realistic\`: symbolic and hard links, empty and read-only directories, modes, mtimes)") ;;
		esac
	done
	echo "Cases: $(fc_join "; " "${line[@]}"). \`xfercmp -F build/testbed/ssh_config"
	echo "--repeat $REPEAT\` against the testbed, cold source, durable destination, every run verified;"
	echo "measured is the median run's transfer + flush, \"runs\" the spread of the $REPEAT runs (and that"
	echo "spread over the median)."
	echo "The section took $(fc_duration "$2") (estimated $(fc_duration "$est"))."
	echo
	echo "### (a) probes-only forecast against measured, unshaped"
	echo
	echo "\`-s all,real\`: each result's \`forecast\` (made from the probes and the workload's counts"
	echo "before the strategy moved a byte: made_at before started_at, else \"not held out\") against"
	echo "the time measured. Target: forecast / measured within $FC_A_LO – $FC_A_HI (the issue's, for the"
	echo "own strategies; the real tools judged alike for information)."
	echo
	md_head llrrlrlrl case strategy "forecast s" "low – high s" bound "measured s" "runs: min – max s" \
		"forecast / measured" "$FC_A_LO – $FC_A_HI"
	for c in "${FC_A[@]}"; do
		[ -z "$c" ] || printf '%s\n' "$c"
	done | tee "$WORK/forecast-a.tsv" | fc_held_rows
	echo
	fc_summary a <"$WORK/forecast-a.tsv"
	[ -n "$FORECAST_LINKS" ] || return 0
	echo
	echo "### (b) --what-if from the unshaped run against the run on each link"
	echo
	echo "The unshaped run of (a) carried \`--what-if\` for each link; the same tree then ran on the"
	echo "testbed shaped so (\`scripts/testbed.sh up --rate R --delay D\`: D is added to each round"
	echo "trip once), with the unshaped run's -P ($(fc_join "; " "${FC_P[@]}")). The link column is"
	echo "what that run's probes measured."
	echo "${FORECAST_SERIAL//,/, } wait a round trip or more per file: in the"
	echo "small and realistic cases they move $SERIAL_FILES files in a run of their own (\"own run\"), their"
	echo "what-if made from an unshaped run of that same tree. Target: what-if / measured within"
	echo "$FC_B_LO – $FC_B_HI; and no forecast below the wire floor, the link's time for the strategy's"
	echo "bytes on the wire (the larger of the what-if's carried \`wire_bytes\` and those measured on"
	echo "the link, x 8 / the link's rate)."
	echo
	md_head lllrrrlrlrl link case strategy "what-if s" "low – high s" "measured s" "runs: min – max s" \
		"what-if / measured" "$FC_B_LO – $FC_B_HI" "wire floor s" "at or above the floor"
	for c in "${FC_B[@]}"; do
		[ -z "$c" ] || printf '%s\n' "$c"
	done | tee "$WORK/forecast-b.tsv" | fc_what_if_rows
	echo
	fc_summary b <"$WORK/forecast-b.tsv"
}
