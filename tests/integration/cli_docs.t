#!/usr/bin/env bash
# The man page and the shell completions (issue 23, item 4), generated from
# the commands' --help texts by scripts/gen-docs.sh and installed by
# `make install`: the page renders and names every subcommand; bash
# completes each command's own options, the subcommands, strategy names;
# the zsh file parses. Local only: no host, no network.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfercmp-docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

check "make install into a staging directory" make -C "$top" --no-print-directory install \
	DESTDIR="$tmp/stage" PREFIX=/usr
root=$tmp/stage/usr
for f in bin/xfercmp bin/xfercmp-agent share/man/man1/xfercmp.1 \
	share/bash-completion/completions/xfercmp share/zsh/vendor-completions/_xfercmp; do
	[ -s "$root/$f" ]
	ok $? "installed: $f"
done

page=$(MANWIDTH=100 man -l "$root/share/man/man1/xfercmp.1" 2>&1)
check_grep "the man page renders with its NAME" "^NAME" "$page"
missing=$(for c in gen verify serve probe diff clean; do grep -q "^XFERCMP ${c^^}" <<<"$page" || echo "$c"; done)
[ -z "$missing" ]
ok $? "it has a section per subcommand (missing: ${missing:-none})"
check_grep "and the comparison's options" -- "--strategies LIST" "$page"
# written as a man page (issue 44, item 7): its sections, prose where --help was pasted
missing=$(for sec in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" FILES "SEE ALSO"; do
	grep -qx "$sec" <<<"$page" || echo "$sec"; done)
[ -z "$missing" ]
ok $? "the man page has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXAMPLES, EXIT STATUS, FILES, SEE ALSO (missing: ${missing:-none})"
desc=$(sed -n '/^DESCRIPTION$/,/^OPTIONS$/p' <<<"$page")
! grep -q "usage:" <<<"$desc" && grep -q "moves one tree to HOST" <<<"$desc"
ok $? "its DESCRIPTION is prose, not the usage line"
see=$(sed -n '/^SEE ALSO$/,$p' <<<"$page")
grep -q "ssh_config(5)" <<<"$see" && grep -q "iperf3(1)" <<<"$see" && ! grep -q "README" <<<"$see"
ok $? "SEE ALSO names ssh_config(5) ... iperf3(1), not a README that is not installed"
check_grep "each option is an entry of its own" "^       -s, --strategies LIST$" "$page"

# complete WORDS...: what bash completion offers for the last word
complete_words() {
	bash -c '
		PATH="$1:$PATH"; shift
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_xfercmp
		printf "%s\n" "${COMPREPLY[@]}"' _ "$top" "$root/share/bash-completion/completions/xfercmp" "$@"
}
check_grep "bash: xfercmp --str completes --strategies=" "^--strategies=$" "$(complete_words xfercmp --str)"
check_grep "bash: xfercmp gen --th completes gen's --threads=" "^--threads=$" "$(complete_words xfercmp gen --th)"
! grep -q -- '--strategies' <<<"$(complete_words xfercmp verify --)"
ok $? "bash: verify offers its own options, not the comparison's"
check_grep "bash: xfercmp pro completes the subcommand probe" "^probe$" "$(complete_words xfercmp pro)"
check_grep "bash: -s sp completes the strategy splice" "^splice$" "$(complete_words xfercmp -s sp)"
check_grep "bash: -s all,re completes after the comma" "^all,real-rsync$" "$(complete_words xfercmp -s all,re)"
mkdir -p "$tmp/home/.ssh"
printf 'Host backup1 backup2\n  HostName 198.18.0.2\nHost *.example\n  User u\n' >"$tmp/home/.ssh/config"
hosts=$(HOME=$tmp/home complete_words xfercmp back)
[ "$(grep -c '^backup[12]$' <<<"$hosts")" -eq 2 ] && ! grep -q example <<<"$hosts"
ok $? "bash: the hosts of ~/.ssh/config are offered, patterns left out ($(echo $hosts))"
check_grep "bash: and after options too" "^backup1$" "$(HOME=$tmp/home complete_words xfercmp -s splice back)"
zsh -n "$root/share/zsh/vendor-completions/_xfercmp"
ok $? "zsh: the completion file parses"

# Help, man page and completions are all made from --help, and each command's
# --help and its parser from one option table (cmd/cli.h): every long option a
# command's help lists is taken by its parser, and `probe` refuses, by name,
# each option of the comparison its help leaves out. Each run has two
# arguments too many (three: one may be taken as a value), so it stops at a
# usage error before anything starts.
# help_options TEXT: the long options the help text lists as options (a line of its
# own), "NAME KIND" with KIND required, optional or no
help_options() {
	grep -oE '^  (-[A-Za-z0-9], |    )--[a-z0-9-]+(\[=| [A-Z])?' <<<"$1" |
		awk '{ sub(/^.*--/, "") } / [A-Z]$/ { sub(/ [A-Z]$/, " required"); print; next }
			/\[=$/ { sub(/\[=$/, " optional"); print; next } { print $0 " no" }' | sort -u
}
for cmd in "" gen verify serve probe diff clean; do
	help=$("$top/xfercmp" $cmd --help 2>&1)
	listed=$(help_options "$help")
	[ -n "$listed" ]
	ok $? "'xfercmp${cmd:+ $cmd} --help' lists options"
	unknown=
	while read -r opt kind; do
		if [ "$kind" = required ]; then arg=("--$opt=1"); else arg=("--$opt"); fi
		out=$("$top/xfercmp" $cmd "${arg[@]}" x y z 2>&1)
		rc=$?
		{ [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; } && ! grep -q "unknown option" <<<"$out" ||
			unknown="$unknown $opt"
	done <<<"$listed"
	[ -z "$unknown" ]
	ok $? "'xfercmp${cmd:+ $cmd}' takes every option its --help lists (not taken:${unknown:- none})"
done
# probe parses with a table of its own: what its help leaves out of the comparison's it must
# refuse
probe_listed=$(help_options "$("$top/xfercmp" probe --help 2>&1)" | cut -d' ' -f1)
taken=
while read -r opt kind; do
	grep -qx -- "$opt" <<<"$probe_listed" && continue
	if [ "$kind" = required ]; then arg=("--$opt" 1); else arg=("--$opt"); fi
	out=$("$top/xfercmp" probe "${arg[@]}" x y z 2>&1)
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "unknown option '--$opt': it is the comparison's" <<<"$out" ||
		taken="$taken $opt"
done < <(help_options "$("$top/xfercmp" --help 2>&1)")
[ -z "$taken" ]
ok $? "probe refuses each comparison option its help does not list (taken:${taken:- none})"
finish
