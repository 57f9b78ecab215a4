# shellcheck shell=bash
# What each strategy cost the two machines, beside its time (issue 24): CPU seconds per
# GiB moved on each end and the peak resident memory of xfercmp and of its agent, from
# the xfercmp --json files of a section's rounds (results[].client_cpu_seconds_per_gib,
# agent_cpu_seconds_per_gib, client_peak_rss_bytes, agent_peak_rss_bytes). Sourced by the
# sections that print it (strategies, scale); only defines things.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# strategy_costs FILE...: one line per strategy over the rounds in the xfercmp --json
# FILEs, in the order of first appearance: strategy, then the medians over its verified
# rounds of client CPU s/GiB, agent CPU s/GiB, client peak RSS bytes and agent peak RSS
# bytes ("n/a" for a value no round measured), tab-separated.
strategy_costs() {
	perl -MJSON::PP -e '
		my @keys = qw(client_cpu_seconds_per_gib agent_cpu_seconds_per_gib client_peak_rss_bytes agent_peak_rss_bytes);
		my (%v, @order, %seen);
		for my $file (@ARGV) {
			local $/; open(my $f, "<", $file) or next;
			my $d = eval { decode_json(<$f>) } or next;
			for my $r (@{ $d->{results} || [] }) {
				my $n = $r->{strategy};
				push @order, $n unless $seen{$n}++;
				next unless $r->{status} eq "ok" && $r->{verified};
				for my $k (@keys) { push @{ $v{$n}{$k} }, $r->{$k} if defined $r->{$k} && $r->{$k} > 0 }
			}
		}
		for my $n (@order) {
			my @out = ($n);
			for my $k (@keys) {
				my @s = sort { $a <=> $b } @{ $v{$n}{$k} || [] };
				push @out, !@s ? "n/a" : @s % 2 ? $s[$#s / 2] : ($s[@s / 2 - 1] + $s[@s / 2]) / 2;
			}
			print join("\t", @out), "\n";
		}
	' "$@"
}

# cost_table TITLE FILE...: a markdown table of strategy_costs over FILEs: CPU s/GiB
# (client, agent, both) and peak RSS MB (client, agent).
cost_table() {
	local title=$1 name c a rc ra
	shift
	md_head lrrrrr "$title" "client CPU s/GiB" "agent CPU s/GiB" "both CPU s/GiB" "client peak RSS MB" "agent peak RSS MB"
	while IFS=$'\t' read -r name c a rc ra; do
		md_row "$name" "$(calc "%.2f" a "$c" 1)" "$(calc "%.2f" a "$a" 1)" \
			"$(awk -v a="$c" -v b="$a" 'BEGIN { if (a !~ /^[0-9.]/ || b !~ /^[0-9.]/) print "n/a"; else printf "%.2f", a + b }')" \
			"$(calc "%.0f" "a / 1e6" "$rc" 1)" "$(calc "%.0f" "a / 1e6" "$ra" 1)"
	done < <(strategy_costs "$@")
}

# cost_section SMALL_GLOB_FILES... -- BIG_FILES...: the cost tables of the strategies
# section, small files then the large file.
cost_section() {
	local small=() big=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do small+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	big=("$@")
	echo
	echo "What each strategy cost, medians over its verified rounds: CPU seconds per GiB of the"
	echo "workload on each end (our process and those it watched there: ssh, tar, sshd, rsync...;"
	echo "on this 2-core machine both ends share the two cores), and the peak resident memory of"
	echo "xfercmp and of its agent from each run's prepare to its verify (VmHWM, reset per run)."
	echo
	cost_table "$FILES small files" "${small[@]}"
	echo
	cost_table "one $SIZE file" "${big[@]}"
}
