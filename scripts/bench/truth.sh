# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section truth of scripts/bench.sh (sourced): does the model predict? The six own
# strategies (scp, tar-ssh, zstd-ssh, splice, zstd, parallel) on the testbed, cold
# source, durable destination, with the probes, on each case of TRUTH_CASES:
#   small       FILES small files, the link as it is (veth, about 20 µs)
#   big         one SIZE file, the link as it is
#   small-2ms   FILES small files, the link shaped to 1 Gbit/s and delayed 2 ms
#   big-2ms     one SIZE file, 1 Gbit/s and 2 ms
#   small-20ms  FILES_20MS small files (default 20,000), 1 Gbit/s and 20 ms
#   big-20ms    one SIZE file, 1 Gbit/s and 20 ms
# (scripts/testbed.sh up --rate 1gbit --delay D). For each strategy: the time the
# model predicted from that run's own ceilings, the measured time, and their ratio;
# target 0.85 - 1.15. One run each (no rounds: a per-file strategy at 20 ms takes
# half an hour). The link is left unshaped at the end.
#
# The whole section is long (scp alone: about 120,000 x 4 requests x 2 ms = 16 min at
# 2 ms): --cases picks the cases, and --files, --files-20ms and --size shrink them, so
# that it runs in parts. BENCH_KEEP_JSON=DIR keeps each case's --json output in DIR.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

readonly TRUTH_STRATEGIES=scp,tar-ssh,zstd-ssh,splice,zstd,parallel
# shellcheck disable=SC2034 # read by bench.sh
readonly TRUTH_ALL=small,big,small-2ms,big-2ms,small-20ms,big-20ms

# truth_rows JSON CASE LINK: one markdown row per result: case, link, strategy,
# predicted s, measured s, ratio, verdict, the target's verdict.
truth_rows() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 0;
		my $d = eval { decode_json(<$f>) } or exit 0;
		for my $r (@{ $d->{results} || [] }) {
			my $ok = $r->{status} eq "ok" && $r->{verified};
			my ($p, $m) = ($r->{predicted_seconds}, $r->{seconds});
			my $ratio = $ok && $p && $m ? $p / $m : undef;
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $ARGV[1], $ARGV[2], $r->{strategy},
				$ok && $p ? sprintf("%.2f", $p) : "n/a", $ok ? sprintf("%.2f", $m) : $r->{status},
				defined $ratio ? sprintf("%.2f", $ratio) : "n/a", $r->{verdict} // "n/a",
				!defined $ratio ? "n/a" : $ratio >= 0.85 && $ratio <= 1.15 ? "target met" : "target not met";
		}
	' "$@"
}

# truth_link JSON: the link the probes measured, "0.93 Gbit/s, 2017 µs".
truth_link() {
	local bps rtt
	bps=$(json_get "$1" ceilings.network_1_stream_bits_per_s)
	rtt=$(json_get "$1" ceilings.rtt_p50_seconds)
	echo "$(calc "%.2f" "a / 1e9" "$bps" 1) Gbit/s, $(calc "%.0f" "a * 1e6" "$rtt" 1) µs"
}

# truth_case CASE: sets the link, runs the six strategies, prints the rows.
truth_case() {
	local name=$1 delay="" work=() json="$WORK/truth-$1.json" link
	case $name in
	small | small-2ms) work=(-w smallfiles --files "$FILES" --source-dir "$WORK/truth-small") ;;
	small-20ms) work=(-w smallfiles --files "$FILES_20MS" --source-dir "$WORK/truth-small-20ms") ;;
	big | big-2ms | big-20ms) work=(-w largefile --size "$SIZE" --source-dir "$WORK/truth-big") ;;
	esac
	case $name in *-2ms) delay=2ms ;; *-20ms) delay=20ms ;; esac
	say "truth: $name (${work[*]}${delay:+, 1 Gbit/s and $delay})"
	if [ -n "$delay" ]; then
		"$TOP/scripts/testbed.sh" up --rate 1gbit --delay "$delay" >&2 || { FAILED=1; return 0; }
	else
		"$TOP/scripts/testbed.sh" up >&2 || { FAILED=1; return 0; }
	fi
	drop_caches
	attempt compare_all "$json" "${work[@]}" -s "$TRUTH_STRATEGIES"
	[ "$RESULT" != failed ] || FAILED=1
	link="${delay:+1 Gbit/s + $delay: }$(truth_link "$json")"
	# BENCH_KEEP_JSON=DIR keeps each case's JSON (the ceilings behind a ratio) past the run
	[ -z "${BENCH_KEEP_JSON:-}" ] || cp "$json" "$BENCH_KEEP_JSON/" 2>/dev/null || true
	TRUTH_ROWS+=("$(truth_rows "$json" "$name" "$link")")
}

section_truth() {
	local load c cases=()
	TRUTH_ROWS=()
	load=$(loadavg)
	IFS=, read -r -a cases <<<"${TRUTH_CASES:?}"
	for c in "${cases[@]}"; do
		truth_case "$c"
	done
	"$TOP/scripts/testbed.sh" up >&2 || true	# unshaped, undelayed for whoever comes next
	echo
	echo "## truth: predicted against measured (load average $load)"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config -s $TRUTH_STRATEGIES\` against the testbed,"
	echo "cold source, durable destination, every run verified, one run each; \"predicted\" is"
	echo "the model's time from that run's own ceilings (\`predicted_seconds\`); the link column"
	echo "is what the probes measured. Target: predicted / measured within 0.85 – 1.15."
	echo
	md_head lllrrrll case link strategy "predicted s" "measured s" "predicted / measured" verdict "0.85 – 1.15"
	for c in "${TRUTH_ROWS[@]}"; do
		[ -z "$c" ] || printf '%s\n' "$c"
	done
}
