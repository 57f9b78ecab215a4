#!/usr/bin/env bash
# TAP test for `xfercmp --list-strategies` through the built binary, the
# format scripts/bench.sh reads the model/real pairs from: one line per
# strategy in --help's order, NAME<TAB>own|reference<TAB>MODELS, exit 0,
# nothing on stderr. Runs only the local binary (./xfercmp, or $XFERCMP):
# no host, no agent, no network.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$xfercmp
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfercmp-cli-list.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

plan 10

run "$bin" --list-strategies
ok $((rc != 0 || ${#err} != 0)) "--list-strategies exits 0 and says nothing on stderr"
[ "$rc" -eq 0 ] && [ -z "$err" ] || show
list=$out

bad=$(awk -F '\t' 'NF != 3 || $1 !~ /^[a-z0-9-]+$/ || ($2 != "own" && $2 != "reference") ||
	($2 == "reference" && $3 != "-") { print NR ": " $0 }' <<<"$list")
ok $((${#bad} != 0)) "every line is NAME<TAB>own|reference<TAB>MODELS, a reference modelling nothing"
[ -z "$bad" ] || diag <<<"$bad"

pairs=$(awk -F '\t' '$3 != "-" { print $1 " " $3 }' <<<"$list")
want=$'scp real-scp\ntar-ssh real-tar-ssh\nzstd-ssh real-tar-zstd-ssh'
[ "$pairs" = "$want" ]
ok $? "the model pairs: scp real-scp, tar-ssh real-tar-ssh, zstd-ssh real-tar-zstd-ssh"
[ "$pairs" = "$want" ] || diag <<<"$pairs"

bad=$(awk -F '\t' 'NR == FNR { if ($2 == "reference") real[$1] = 1; next }
	$3 != "-" && !($3 in real) { print $1 " models " $3 }' <(printf '%s\n' "$list") <(printf '%s\n' "$list"))
ok $((${#bad} != 0)) "each modelled strategy is a reference strategy of the list"
[ -z "$bad" ] || diag <<<"$bad"

# the same strategies, in the same order, as --help lists them
run "$bin" --help
help_names=$(sed -n '/^strategies (-s all runs them in this order):/,$p' <<<"$out" | awk 'NR > 1 && /^  [^ ]/ { print $1 }')  # a wrapped summary's next line is not a name
list_names=$(cut -f1 <<<"$list")
[ -n "$list_names" ] && [ "$help_names" = "$list_names" ]
ok $? "the names are --help's, in its order"
[ "$help_names" = "$list_names" ] || diag <<<"$help_names"

grep -q -- '--list-strategies' <<<"$out"
ok $? "--help mentions --list-strategies"

# --help names every subcommand (issue 23: it did not)
missing=$(for c in gen verify serve probe; do grep -qE "^  $c +[a-z]" <<<"$out" || echo "$c"; done)
[ -z "$missing" ]
ok $? "--help lists the subcommands gen, verify, serve and probe"
[ -z "$missing" ] || diag <<<"missing: $missing"

# probe --help is probe's own text (it printed the comparison's)
run "$bin" probe --help
[ "$rc" -eq 0 ] && grep -q '^usage: xfercmp probe ' <<<"$out" && ! grep -q -- '--strategies' <<<"$out"
ok $? "probe --help is probe's own usage, without the comparison's --strategies"
[ "$rc" -eq 0 ] || show

# bare xfercmp: a short usage and exit 2, not a 120,000-file local comparison
run timeout 10 "$bin"
[ "$rc" -eq 2 ] && [ -z "$out" ] && grep -q '^usage: xfercmp' <<<"$err" &&
	grep -q 'nothing asked' <<<"$err"
ok $? "bare xfercmp prints a usage on stderr and exits 2"
[ "$rc" -eq 2 ] || show
long=$(printf '%s\n' "$err" | awk 'length > 100')
[ -z "$long" ]
ok $? "its lines fit 100 columns"
[ -z "$long" ] || diag <<<"$long"

finish
