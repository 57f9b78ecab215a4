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
missing=$(for c in gen verify serve probe diff; do grep -q "^XFERCMP ${c^^}" <<<"$page" || echo "$c"; done)
[ -z "$missing" ]
ok $? "it has a section per subcommand (missing: ${missing:-none})"
check_grep "and the comparison's options" -- "--strategies LIST" "$page"

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
zsh -n "$root/share/zsh/vendor-completions/_xfercmp"
ok $? "zsh: the completion file parses"

# Help, man page and completions are all made from --help: each getopt table in
# cmd/cmd_*.c and its command's --help must list the same long options, so that
# none of the three can leave one out (or name one that is gone).
# long_options FILE [ARGS]: the long options of FILE's getopt table, one a line
# (with ARGS: "NAME KIND", KIND required, optional or no)
long_options() {
	python3 - "$1" "$top/cmd/workload_opts.h" "${2:-}" <<'EOF2'
import re, sys
src, hdr = (open(f).read() for f in sys.argv[1:3])
kinds = sys.argv[3] == "ARGS"
work = re.search(r"#define WORKLOAD_LONG_OPTIONS(.*?)\n\n", hdr, re.S).group(1)
for table in re.findall(r"struct option longopts\[\] = \{(.*?)\};", src, re.S):
    table = table.replace("WORKLOAD_LONG_OPTIONS", work)
    for name, kind in re.findall(r'\{ "([a-z0-9-]+)", *([a-z]+)_argument', table):
        print(name + (" " + kind if kinds else ""))
EOF2
}
# help_options TEXT: the long options the help text lists as options (a line of its own)
help_options() { grep -oE '^  (-[A-Za-z0-9], |    )--[a-z0-9-]+' <<<"$1" | sed 's/.*--//' | sort -u; }
for pair in compare: gen:gen verify:verify serve:serve diff:diff; do
	file=${pair%%:*} cmd=${pair#*:}
	table=$(long_options "$top/cmd/cmd_$file.c" | sort -u)
	help=$("$top/xfercmp" $cmd --help 2>&1)
	listed=$(help_options "$help")
	[ -n "$table" ] && [ -n "$listed" ]
	ok $? "cmd_$file.c has a getopt table and 'xfercmp${cmd:+ $cmd} --help' options"
	missing=$(comm -23 <(echo "$table") <(echo "$listed") | tr '\n' ' ')
	[ -z "$missing" ]
	ok $? "every option of cmd_$file.c is in 'xfercmp${cmd:+ $cmd} --help' (missing: ${missing:-none})"
	extra=$(comm -13 <(echo "$table") <(echo "$listed") | tr '\n' ' ')
	[ -z "$extra" ]
	ok $? "'xfercmp${cmd:+ $cmd} --help' lists no option cmd_$file.c lacks (extra: ${extra:-none})"
done
# probe parses with the comparison's table: what its help leaves out it must refuse
# (the extra HOSTs: an option taken by mistake would fail on them, not start a run)
table=$(long_options "$top/cmd/cmd_compare.c" | sort -u)
listed=$(help_options "$("$top/xfercmp" probe --help 2>&1)")
extra=$(comm -13 <(echo "$table") <(echo "$listed") | tr '\n' ' ')
[ -z "$extra" ]
ok $? "'xfercmp probe --help' lists no option the table lacks (extra: ${extra:-none})"
taken=
while read -r opt kind; do
	grep -qx -- "$opt" <<<"$listed" && continue
	if [ "$kind" = required ]; then arg=("--$opt" 1); else arg=("--$opt"); fi
	out=$("$top/xfercmp" probe "${arg[@]}" x y 2>&1)
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "unknown option '--$opt'" <<<"$out" ||
		taken="$taken $opt"
done < <(long_options "$top/cmd/cmd_compare.c" ARGS)
[ -z "$taken" ]
ok $? "probe refuses each comparison option its help does not list (taken:${taken:- none})"
finish
