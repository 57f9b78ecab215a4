# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section explain of scripts/bench.sh (sourced), issue 21: does the accounting's verdict
# name what the time was spent on? FILES small files and one SIZE file on the unshaped
# testbed, cold source, durable destination, with --explain=EXPLAIN_STRATEGIES: each
# strategy rerun with one resource taken away at a time; per strategy the accounting's
# verdict (and the resource close behind it, when one is), the causal one (the removal
# that saved most), each removal's measured saving, and whether the two verdicts agree.
# (The truth section ran these as its explain-small and explain-big cases; the forecast
# section that replaced it judges forecasts, and the accounting is no forecast.)
# BENCH_KEEP_JSON=DIR keeps each case's --json output in DIR.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# the strategies explained: scp is left out (at 120,000 files each of its runs takes
# minutes, and it has four of them); BENCH_EXPLAIN_STRATEGIES overrides
readonly EXPLAIN_STRATEGIES=${BENCH_EXPLAIN_STRATEGIES:-tar-ssh,splice,parallel}

# explain_rows JSON CASE: one markdown row per explained result: case, strategy, measured
# s, the accounting's verdict ("; R close behind" when the JSON names one), the causal
# verdict, each removal (its saving, or why it did not run), agree.
explain_rows() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 0;
		my $d = eval { decode_json(<$f>) } or exit 0;
		for my $r (@{ $d->{results} || [] }) {
			next unless $r->{explain};
			my @ab;
			for my $a (@{ $r->{explain} }) {
				push @ab, $a->{status} eq "ok"
					? sprintf("%s %.2f s (%+.0f%%)", $a->{removed}, $a->{seconds}, -100 * $a->{saved_fraction})
					: "$a->{removed} $a->{status}";
			}
			my $agree = $r->{causal_agrees};
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", $ARGV[1], $r->{strategy},
				$r->{status} eq "ok" ? sprintf("%.2f", $r->{seconds}) : $r->{status},
				($r->{verdict} // "n/a") . ($r->{close_behind} ? "; $r->{close_behind} close behind" : ""),
				$r->{causal_verdict} // "n/a", join("; ", @ab),
				!defined $agree ? "n/a" : $agree ? "agree" : "disagree";
		}
	' "$@"
}

# explain_case CASE: FILES small files (small) or one SIZE file (big), unshaped, with
# --explain.
explain_case() {
	local name=$1 work=() json="$WORK/explain-$1.json"
	case $name in
	small) work=(-w smallfiles --files "$FILES" --source-dir "$WORK/explain-small") ;;
	big) work=(-w largefile --size "$SIZE" --source-dir "$WORK/explain-big") ;;
	esac
	say "explain: $name (${work[*]}, --explain=$EXPLAIN_STRATEGIES)"
	# shellcheck disable=SC2119 # no arguments: unshaped
	testbed_shape || { FAILED=1; return 0; }
	drop_caches
	attempt compare_all "$json" "${work[@]}" -s "$EXPLAIN_STRATEGIES" --explain="$EXPLAIN_STRATEGIES"
	[ "$RESULT" != failed ] || FAILED=1
	keep_json "$json"
	EXPLAIN_ROWS+=("$(explain_rows "$json" "$name")")
}

section_explain() {
	local load c
	EXPLAIN_ROWS=()
	load=$(loadavg)
	for c in small big; do
		explain_case "$c"
	done
	echo
	echo "## explain: the accounting's verdict against the causal one (load average $load)"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config -s $EXPLAIN_STRATEGIES --explain=$EXPLAIN_STRATEGIES\` against the"
	echo "unshaped testbed, $FILES small files and one $SIZE file, cold source, durable destination:"
	echo "each strategy rerun with one resource taken away at a time (dest_disk: the agent's null"
	echo "sink; durable_write: tmpfs; source_disk: a warm source; network: the agent on loopback;"
	echo "cipher: the cheapest cipher); the causal verdict is the removal that saved most. Target:"
	echo "the two verdicts agree."
	echo
	md_head llrllll case strategy "measured s" "accounting verdict" "causal verdict" "each removal: time (saving)" agree
	for c in "${EXPLAIN_ROWS[@]}"; do
		[ -z "$c" ] || printf '%s\n' "$c"
	done
}
