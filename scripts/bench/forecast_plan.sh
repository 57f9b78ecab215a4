# shellcheck shell=bash
# The forecast section's plan (scripts/bench/forecast.sh; sourced): its cases and links, the
# options that pick them (--cases, --links), and how long each part takes (fc_plan, printed
# in the header and by --plan).

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

readonly FORECAST_CASES_ALL=small,big,realistic
readonly FORECAST_LINKS_ALL=2ms,20ms,200m

# fc_link ID: "SHAPE|WHAT_IF|RATE_BITS_PER_S|RTT_S|LABEL" of a link of FORECAST_LINKS_ALL.
fc_link() {
	case $1 in
	2ms) echo "--rate 1gbit --delay 2ms|rate=1gbit,rtt=2ms|1e9|0.002|1 Gbit/s, 2 ms" ;;
	20ms) echo "--rate 1gbit --delay 20ms|rate=1gbit,rtt=20ms|1e9|0.020|1 Gbit/s, 20 ms" ;;
	200m) echo "--rate 200mbit --delay 10ms|rate=200mbit,rtt=10ms|2e8|0.010|200 Mbit/s, 10 ms" ;;
	*) return 1 ;;
	esac
}

# fc_parse_list OPTION GIVEN ALL [none]: GIVEN (names from the comma-separated ALL, or "all";
# or "none", when the fourth argument allows it) in ALL's order without repeats. Exits 2
# naming OPTION on anything else: call it as x=$(fc_parse_list ...) || exit 2.
fc_parse_list() {
	local opt=$1 given=$2 all=$3 none=${4:-} name names=() out=()
	local -A want=()
	if [ "$given" = all ]; then
		echo "$all"
		return 0
	fi
	if [ -n "$none" ] && [ "$given" = none ]; then
		echo ""
		return 0
	fi
	IFS=, read -r -a names <<<"$given,"
	[ "${#names[@]}" -gt 0 ] || names=("")
	for name in "${names[@]}"; do
		case ",$all," in
		*",$name,"*) [ -n "$name" ] && want[$name]=1 ;;
		*) false ;;
		esac || die 2 "$opt: expected some of $all (comma-separated)${none:+, none} or all, got '$given'"
	done
	IFS=, read -r -a names <<<"$all"
	for name in "${names[@]}"; do
		[ -z "${want[$name]:-}" ] || out+=("$name")
	done
	(IFS=,; echo "${out[*]}")
}

# ---------------------------------------------------------------- the estimate

# What the estimate assumes (s): each strategy's time on 120,000 files and on 4 GiB in
# docs/BENCHMARKS.md (the strategies pass of b2daef5; rclone and fpsync from the pairs pass
# of 50aeb9c), summed and scaled to the section's sizes, and scp's round trips a file at
# 20 ms from the truth passes (2,000 files in 164 s: 4.1). Rough by design: it tells which
# parts fit in a quarter hour of the testbed's lock, and judges nothing.
readonly FC_EST_PROBES=25	# the probes of one invocation
readonly FC_EST_RUN=3	# one run's set-up, cold source, verification and removal
readonly FC_EST_GEN=15	# generating one tree (once, untimed)
readonly FC_EST_N_ALL=14 FC_EST_N_SERIAL=4	# strategies of -s all,real, of FORECAST_SERIAL
readonly FC_EST_FILE_FAST=0.00165	# a file, one run each of all but FORECAST_SERIAL, unshaped (197.6 s / 120,000)
readonly FC_EST_FILE_SERIAL=0.0047	# a file, one run each of FORECAST_SERIAL, unshaped (568.7 s / 120,000)
readonly FC_EST_GIB=83	# a GiB, one run each of all 14, unshaped (332.4 s / 4 GiB)
readonly FC_EST_RTTS_SERIAL=11	# round trips a file, one run each of FORECAST_SERIAL (scp 4, real-scp 4, legacy 2, rclone 1)
readonly FC_EST_FILE_BYTES=4096	# smallfiles' mean file
readonly FC_EST_REALISTIC=1.1	# realistic's entries over smallfiles' (links, directories)
# the tree's bytes on the wire in one run each, counted in trees (three strategies compress 2:1)
readonly FC_EST_WIRE_ALL=12.5 FC_EST_WIRE_FAST=8.5 FC_EST_WIRE_SERIAL=4

# size_bytes SIZE: bytes of a K/M/G/T size (powers of 1024, as xfercmp reads it).
size_bytes() {
	awk -v s="$1" 'BEGIN {
		n = s + 0; u = toupper(substr(s, length(n "") + 1, 1))
		m = u == "K" ? 1024 : u == "M" ? 1024 ^ 2 : u == "G" ? 1024 ^ 3 : u == "T" ? 1024 ^ 4 : 1
		printf "%.0f", n * m }'
}

# fc_est_invocation GROUP FILES BYTES RATE RTT: the seconds of one invocation of GROUP
# (all, fast: all but FORECAST_SERIAL, serial) on a tree of FILES files (0: one file) of
# BYTES, REPEAT runs each, on a link of RATE bit/s and RTT s (0 0: unshaped).
fc_est_invocation() {
	awk -v g="$1" -v files="$2" -v bytes="$3" -v rate="$4" -v rtt="$5" -v k="$REPEAT" \
		-v probes="$FC_EST_PROBES" -v run="$FC_EST_RUN" -v nall="$FC_EST_N_ALL" -v nser="$FC_EST_N_SERIAL" \
		-v ffast="$FC_EST_FILE_FAST" -v fser="$FC_EST_FILE_SERIAL" -v gib="$FC_EST_GIB" \
		-v rtts="$FC_EST_RTTS_SERIAL" -v wall="$FC_EST_WIRE_ALL" -v wfast="$FC_EST_WIRE_FAST" \
		-v wser="$FC_EST_WIRE_SERIAL" 'BEGIN {
		n = g == "all" ? nall : g == "serial" ? nser : nall - nser
		if (files > 0)
			t = files * (g == "all" ? ffast + fser : g == "serial" ? fser : ffast)
		else
			t = bytes / 1024 ^ 3 * gib * (g == "all" ? 1 : g == "serial" ? nser / nall : 1 - nser / nall)
		w = rate > 0 ? bytes * 8 / rate * (g == "all" ? wall : g == "serial" ? wser : wfast) : 0
		if (w > t) t = w
		if (files > 0 && g != "fast") t += rtts * files * rtt
		printf "%.0f", probes + k * (t + n * run) }'
}

# fc_estimate CASE LINK LINKS: the seconds of one part of a run on LINKS (comma-separated):
# CASE unshaped (part (a); with its serial tree's unshaped run when LINKS names any), or
# CASE on LINK (part (b)). Reads FORECAST_FILES, FORECAST_SIZE, SERIAL_FILES and REPEAT.
fc_estimate() {
	local c=$1 l=$2 links=$3 files=$FORECAST_FILES serial=$SERIAL_FILES bytes rate=0 rtt=0 f t=0
	if [ "$c" = realistic ]; then
		files=$(calc "%.0f" "a * b" "$files" "$FC_EST_REALISTIC")
		serial=$(calc "%.0f" "a * b" "$serial" "$FC_EST_REALISTIC")
	fi
	[ "$l" = unshaped ] || IFS='|' read -r _ _ rate rtt _ <<<"$(fc_link "$l")"
	if [ "$c" = big ]; then
		bytes=$(size_bytes "$FORECAST_SIZE")
		t=$(fc_est_invocation all 0 "$bytes" "$rate" "$rtt")
		[ "$l" != unshaped ] || t=$((t + FC_EST_GEN))
		echo "$t"
		return 0
	fi
	if [ "$l" = unshaped ]; then
		t=$(($(fc_est_invocation all "$files" $((files * FC_EST_FILE_BYTES)) 0 0) + FC_EST_GEN))
		[ -z "$links" ] ||
			t=$((t + FC_EST_GEN + $(fc_est_invocation serial "$serial" $((serial * FC_EST_FILE_BYTES)) 0 0)))
	else
		f=$(fc_est_invocation fast "$files" $((files * FC_EST_FILE_BYTES)) "$rate" "$rtt")
		t=$((f + $(fc_est_invocation serial "$serial" $((serial * FC_EST_FILE_BYTES)) "$rate" "$rtt")))
	fi
	echo "$t"
}

# fc_duration SECONDS: "about 9 min", "about 2 h 15 min", "under a minute".
fc_duration() {
	awk -v s="$1" 'BEGIN {
		m = int(s / 60 + 0.5)
		if (m < 1) print "under a minute"
		else if (m < 60) printf "about %d min\n", m
		else printf "about %d h %d min\n", int(m / 60), m % 60 }'
}

# fc_plan: the parts of this run (FORECAST_CASES x unshaped and FORECAST_LINKS), each with
# its estimated duration, as a markdown table, then this run's total and a full pass's.
fc_plan() {
	local c l cases=() links=() cells total=0 t full=0 row
	IFS=, read -r -a cases <<<"$FORECAST_CASES"
	IFS=, read -r -a links <<<"$FORECAST_LINKS"
	md_head "l$(printf 'r%.0s' unshaped "${links[@]}")r" case "unshaped (a)" "${links[@]}" total
	for c in "${cases[@]}"; do
		cells=()
		row=0
		for l in unshaped "${links[@]}"; do
			t=$(fc_estimate "$c" "$l" "$FORECAST_LINKS")
			row=$((row + t))
			cells+=("$(fc_duration "$t")")
		done
		total=$((total + row))
		md_row "$c" "${cells[@]}" "$(fc_duration "$row")"
	done
	# a full pass: every case on every link, at these sizes and REPEAT
	for c in ${FORECAST_CASES_ALL//,/ }; do
		for l in unshaped ${FORECAST_LINKS_ALL//,/ }; do
			t=$(fc_estimate "$c" "$l" "$FORECAST_LINKS_ALL")
			full=$((full + t))
		done
	done
	echo
	echo "Estimated duration: this run $(fc_duration "$total"); a full pass (every case and link, at these"
	echo "sizes and runs) $(fc_duration "$full")."
}
