# shellcheck shell=bash
# The forecast section's rows (scripts/bench/forecast.sh; sourced): reading its xfercmp
# --json reports (schema 3: results[].forecast, what_if[].forecasts), judging each forecast
# against the time measured, the markdown rows and the summary lines. Pure: files in,
# text out.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# the targets: probes-only forecast / measured, what-if / measured on the link
readonly FC_A_LO=0.67 FC_A_HI=1.5 FC_B_LO=0.80 FC_B_HI=1.25

# ---------------------------------------------------------------- reading the JSON

# fc_held_records JSON CASE: one tab-separated record per result of an unshaped run:
# case, strategy, own|real, forecast s, low, high, bound, basis, why (there is none),
# status (ok, unverified, failed, skipped), measured s, runs, min s, max s, held out (yes
# when forecast.made_at is before started_at, no when not, "" when either is missing). A run
# without results (none, or no JSON) is one record, strategy "all", status failed.
fc_held_records() {
	perl -MJSON::PP -e '
		local $/; my $d = {};
		if (open(my $f, "<", $ARGV[0])) { $d = eval { decode_json(<$f>) } || {} }
		sub v { my $x = shift; defined $x && !ref $x ? $x : "" }
		sub t { my $x = shift // ""; $x =~ s/[\t\n|]/ /g; $x }
		my @results = @{ $d->{results} || [] };
		@results = ({ strategy => "all", status => "failed" }) unless @results;
		for my $r (@results) {
			my $fc = ref $r->{forecast} eq "HASH" ? $r->{forecast} : {};
			my $st = $r->{status} ne "ok" ? $r->{status} : $r->{verified} ? "ok" : "unverified";
			my ($m, $s) = (v($fc->{made_at}), v($r->{started_at}));
			print join("\t", $ARGV[1], $r->{strategy}, $r->{strategy} =~ /^(real-|cmd:)/ ? "real" : "own",
				v($fc->{seconds}), v($fc->{low}), v($fc->{high}), v($fc->{bound}), v($fc->{basis}),
				t($fc->{why}), $st, $st eq "ok" ? v($r->{seconds}) : "", v($r->{runs}),
				v($r->{min_seconds}), v($r->{max_seconds}), $m eq "" || $s eq "" ? "" : $m lt $s ? "yes" : "no"), "\n";
		}
	' "$@"
}

# fc_judge_held: fc_held_records on stdin, each with two more fields: forecast / measured
# (unrounded; "" without both) and the judgement: "target met" or "target not met" (0.67 -
# 1.5, on the unrounded ratio), "not held out" (a made_at not before started_at, or
# either missing), "basis B" (not a probes-only forecast), "n/a".
fc_judge_held() {
	awk -F'\t' -v OFS='\t' -v lo="$FC_A_LO" -v hi="$FC_A_HI" '
		function num(x) { return x ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
		{
			r = num($4) && num($11) ? $4 / $11 : ""
			if (r == "") v = "n/a"
			else if ($15 != "yes") v = "not held out"
			else if ($8 != "" && $8 != "probes") v = "basis " $8
			else v = r >= lo && r <= hi ? "target met" : "target not met"
			print $0, r, v
		}'
}

# fc_what_if_records SRC SHAPED LINK RATE RTT CASE: one tab-separated record per result of
# the SHAPED run, its forecast from the what_if[] of the unshaped SRC whose rate and rtt
# are RATE and RTT: link, case, strategy, own|real, what-if s, low, high, carried
# wire_bytes, status, measured s, runs, min s, max s, wire_bytes measured on the link,
# why there is no forecast ("" when there is), RATE. A SHAPED run without results is one
# record, strategy "all", status failed.
fc_what_if_records() {
	perl -MJSON::PP -e '
		sub load { local $/; open(my $f, "<", $_[0]) or return undef; eval { decode_json(<$f>) } }
		sub v { my $x = shift; defined $x && !ref $x ? $x : "" }
		my ($src, $run, $link, $rate, $rtt, $case) = @ARGV;
		my ($s, $d) = (load($src), load($run));
		my $w;
		for my $x (@{ ($s && $s->{what_if}) || [] }) {
			my ($xr, $xt) = ($x->{rate_bits_per_s}, $x->{rtt_seconds});
			next unless defined $xr && defined $xt;
			if (abs($xr - $rate) <= 1e-6 * $rate && abs($xt - $rtt) <= 1e-6 * $rtt) { $w = $x; last }
		}
		my @results = @{ ($d && $d->{results}) || [] };
		@results = ({ strategy => "all", status => "failed" }) unless @results;
		for my $r (@results) {
			my $fc = $w && ref $w->{forecasts} eq "HASH" ? $w->{forecasts}{$r->{strategy}} : undef;
			my $why = !$s ? "no unshaped run" : !$w ? "no what-if for this link" :
				ref $fc ne "HASH" ? "no what-if forecast" : "";
			$fc = {} unless ref $fc eq "HASH";
			my $c = ref $fc->{carried} eq "HASH" ? $fc->{carried} : {};
			my $st = $r->{status} ne "ok" ? $r->{status} : $r->{verified} ? "ok" : "unverified";
			print join("\t", $link, $case, $r->{strategy}, $r->{strategy} =~ /^(real-|cmd:)/ ? "real" : "own",
				v($fc->{seconds}), v($fc->{low}), v($fc->{high}), v($c->{wire_bytes}), $st,
				$st eq "ok" ? v($r->{seconds}) : "", v($r->{runs}), v($r->{min_seconds}),
				v($r->{max_seconds}), v($r->{wire_bytes}), $why, $rate), "\n";
		}
	' "$@"
}

# fc_judge_what_if: fc_what_if_records on stdin, each with five more fields: what-if /
# measured (unrounded), the judgement (0.80 - 1.25), the wire floor s (the larger of the
# carried and the measured wire_bytes, x 8 / rate; "" without either), whose bytes set it
# (carried or measured), and "yes" when the forecast is at or above the floor, "no" when
# below, "n/a".
fc_judge_what_if() {
	awk -F'\t' -v OFS='\t' -v lo="$FC_B_LO" -v hi="$FC_B_HI" '
		function num(x) { return x ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
		{
			r = num($5) && num($10) ? $5 / $10 : ""
			v = r == "" ? "n/a" : r >= lo && r <= hi ? "target met" : "target not met"
			b = ""; src = ""
			if (num($8)) { b = $8; src = "carried" }
			if (num($14) && (b == "" || $14 + 0 > b + 0)) { b = $14; src = "measured" }
			fl = b != "" && num($16) ? b * 8 / $16 : ""
			above = fl == "" || !num($5) ? "n/a" : $5 + 0 >= fl ? "yes" : "no"
			print $0, r, v, fl, src, above
		}'
}

# ---------------------------------------------------------------- the tables

# fc_runs_cell STATUS RUNS MIN MAX MEDIAN (awk function text): "3: 2.71-3.46 (27%)" - the
# runs, the spread of their times and that spread over the median; "1" for one run.
readonly FC_AWK_CELLS='
	function num(x) { return x ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
	function s2(x) { return num(x) ? sprintf("%.2f", x) : "n/a" }
	function runs(st, n, lo, hi, med) {
		if (st != "ok") return "n/a"
		if (n + 0 <= 1 || !num(lo) || !num(hi)) return n + 0 ? n : "n/a"
		return sprintf("%d: %.2f-%.2f (%.0f%%)", n, lo, hi, num(med) ? 100 * (hi - lo) / med : 0)
	}
	function range(lo, hi) { return num(lo) && num(hi) ? sprintf("%.2f-%.2f", lo, hi) : "n/a" }'

# fc_held_rows: fc_judge_held's records on stdin as markdown rows: case, strategy,
# forecast s (or why there is none), low - high, bound, measured s (or the status), runs:
# min - max (spread), forecast / measured, judgement.
fc_held_rows() {
	awk -F'\t' "$FC_AWK_CELLS"'
		{
			fc = num($4) ? s2($4) : "n/a" ($9 != "" ? ": " $9 : "")
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, fc, range($5, $6),
				$7 != "" ? $7 : "n/a", $10 == "ok" ? s2($11) : $10, runs($10, $12, $13, $14, $11),
				$16 != "" ? sprintf("%.2f", $16) : "n/a", $17
		}'
}

# fc_what_if_rows: fc_judge_what_if's records on stdin as markdown rows: link, case,
# strategy, what-if s (or why there is none), low - high, measured s, runs: min - max
# (spread), what-if / measured, judgement, wire floor s (whose bytes), at or above it.
fc_what_if_rows() {
	awk -F'\t' "$FC_AWK_CELLS"'
		{
			fc = num($5) ? s2($5) : "n/a" ($15 != "" ? ": " $15 : "")
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, fc,
				range($6, $7), $9 == "ok" ? s2($10) : $9, runs($9, $11, $12, $13, $10),
				$17 != "" ? sprintf("%.2f", $17) : "n/a", $18,
				$19 != "" ? sprintf("%.2f (%s)", $19, $20) : "n/a", $21
		}'
}

# fc_summary PART: the summary line of PART (a or b) from its judged records on stdin:
# how many within the target (of those judged; own strategies and real tools apart), the
# largest error (max of r and 1/r) and its case, the widest spread of the runs, and for
# (a) the forecasts not held out, for (b) those below the wire floor.
fc_summary() {
	awk -F'\t' -v part="$1" -v alo="$FC_A_LO" -v ahi="$FC_A_HI" -v blo="$FC_B_LO" -v bhi="$FC_B_HI" '
		BEGIN { if (part == "a") { f = 0; K = 3; R = 16; V = 17; M = 11; N = 12; L = 13; H = 14; S = 2; C = 1 }
			else { f = 1; K = 4; R = 17; V = 18; M = 10; N = 11; L = 12; H = 13; S = 3; C = 2 } }
		{
			lk = $1; sub(/ \(probed.*/, "", lk)
			name = $S " on " $C (f ? " at " lk : "")
			if ($V ~ /^target/) {
				n[$K]++; if ($V == "target met") met[$K]++
				e = $R >= 1 ? $R : 1 / $R
				if (e > err) { err = e; errname = name; errr = $R }
			} else if ($V == "not held out") nothi++
			else na++
			if ($N + 0 > 1 && $M + 0 > 0) {
				sp = ($H - $L) / $M
				if (sp > spread) { spread = sp; spname = name; splo = $L; sphi = $H }
			}
			if (f && $21 == "no") { below++; belowname = belowname (below > 1 ? ", " : "") name }
			if (f && $21 != "n/a") floored++
		}
		END {
			all = n["own"] + n["real"]
			printf "%s: %d of %d within %s – %s (own strategies %d of %d; real tools %d of %d)",
				f ? "(b) what-if" : "(a) probes-only", met["own"] + met["real"], all,
				f ? blo : alo, f ? bhi : ahi, met["own"], n["own"], met["real"], n["real"]
			if (all) printf "; the largest error: %s, %.2f (%.2fx off)", errname, errr, err
			if (spread > 0) printf "; the widest spread of the runs: %s, %.2f-%.2f s (%.0f%% of the median)", spname, splo, sphi, 100 * spread
			if (na) printf "; %d without a forecast or a measured time", na
			if (!f) printf "; not held out: %d", nothi
			if (f) printf "; below the wire floor: %d of %d%s", below, floored, below ? " (" belowname ")" : ""
			print "."
		}'
}
