#!/usr/bin/env bash
# Writes the man page and the bash and zsh completions of a built xfercmp from
# the commands' own --help texts, so the three can never disagree with the
# option parser's help (each command's option lines are its option table):
#
#   scripts/gen-docs.sh XFERCMP OUTDIR
#
# OUTDIR gets xfercmp.1 (man), xfercmp.bash (bash-completion) and _xfercmp
# (zsh). `make docs` runs it; `make install` installs the three.
set -euo pipefail

xf=${1:?usage: gen-docs.sh XFERCMP OUTDIR}
out=${2:?usage: gen-docs.sh XFERCMP OUTDIR}
mkdir -p "$out"

# the subcommands, from --help's "commands:" block
mapfile -t commands < <("$xf" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[ ${#commands[@]} -gt 0 ] || { echo "gen-docs: no commands in '$xf --help'" >&2; exit 1; }
version=$("$xf" --version | awk '{ print $2 }')

# options CMD: every long option of a command's help ("--name" or "--name=")
options() {
	local help
	if [ "$1" = compare ]; then help=$("$xf" --help); else help=$("$xf" "$1" --help); fi
	grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*(\[?=| [A-Z])?' <<<"$help" |
		sed -E 's/^ +(-[a-zA-Z], )?//; s/ [A-Z]$/=/; s/\[=$//' | sort -u
}
# shorts CMD: its one-letter options
shorts() {
	local help
	if [ "$1" = compare ]; then help=$("$xf" --help); else help=$("$xf" "$1" --help); fi
	grep -oE '^ +-[a-zA-Z],' <<<"$help" | tr -d ' ,' | sort -u
}

# ---------------------------------------------------------------- man page
roff_text() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
# man_options: a --help text's option lines (stdin) as .TP entries: the option and its
# argument in bold, its description as running text (continuation lines joined)
man_options() {
	roff_text | awk '
		/^  (-[a-zA-Z0-9], |    )--/ {
			n = split($0, w, " ")
			k = 1
			opt = w[k]
			if (opt ~ /,$/) opt = opt " " w[++k]
			# the argument: capitals (FILE, ADDR:PORT, N|auto)
			if (k < n && w[k + 1] ~ /^[A-Z]/) opt = opt " " w[++k]
			desc = ""
			for (k++; k <= n; k++) desc = desc (desc == "" ? "" : " ") w[k]
			gsub(/-/, "\\-", opt)
			print ".TP"; print "\\fB" opt "\\fR"
			if (desc != "") print desc
			next
		}
		/^                    +[^ ]/ { line = $0; sub(/^ +/, "", line); print line; next }
	'
}
help=$("$xf" --help)
{
	echo ".TH XFERCMP 1 \"$(date -u +%Y-%m-%d)\" \"xfercmp $version\" \"User Commands\""
	echo ".SH NAME"
	echo "xfercmp \\- compare ways of moving data between two machines, and say why each is as fast as it is"
	echo ".SH SYNOPSIS"
	echo ".B xfercmp"
	echo "[\\fIOPTIONS\\fR] [\\fIHOST\\fR]"
	for c in "${commands[@]}"; do
		echo ".br"
		echo ".B xfercmp $c"
		echo "[\\fIOPTIONS\\fR] ..."
	done
	cat <<'ROFF'
.SH DESCRIPTION
.B xfercmp
moves one tree to
.I HOST
through several strategies in turn (OpenSSH's scp and tar over ssh, raw TCP
streams to an agent of its own, zstd, several streams at once, and the
system's own scp, rsync, tar, rclone and fpsync), each against a fresh
destination, verifies that every byte and name arrived, and reports each
strategy's time.
.PP
Before the strategies run it measures the ceilings of this pair of machines:
the network (one stream and several, the round trip), the destination disk
and its file creates, the source disk and its opens, compression. From them it
forecasts each strategy before it runs, and afterwards says where each one's
time went (network, latency, disk, metadata, cpu) and which of them bound it.
It ends with a recommendation: the strategy to use, and the command that does
the same without xfercmp.
.PP
.I HOST
is reached over ssh as OpenSSH would reach it (its configuration file,
keys, agent, known hosts and jump hosts); xfercmp copies its agent there and
removes what it made when it ends.
Without
.I HOST
(or with
.BR local )
the comparison runs against an agent on this machine over loopback.
The tree is generated
.RB ( \-w " smallfiles, largefile, mixed, realistic)"
or your own
.RB ( "\-w dir:" \fIPATH\fR ).
ROFF
	echo ".SH OPTIONS"
	sed -n '/^  -/,/^Exit status:/p' <<<"$help" | sed '$d' | man_options
	echo ".SH STRATEGIES"
	echo ".nf"
	sed -n '/^strategies (/,$p' <<<"$help" | roff_text
	echo ".fi"
	for c in "${commands[@]}"; do
		echo ".SH \"XFERCMP ${c^^}\""
		echo ".nf"
		"$xf" "$c" --help | roff_text
		echo ".fi"
	done
	cat <<'ROFF'
.SH EXAMPLES
Compare every strategy on 120,000 small files against a host from your ssh configuration:
.PP
.RS
.nf
xfercmp backup1
.fi
.RE
.PP
Your own tree, three runs each, two strategies, the report as JSON and HTML:
.PP
.RS
.nf
xfercmp \-w dir:/srv/data \-\-repeat 3 \-s tar\-ssh,parallel \e
        \-\-json run.json \-\-html run.html backup1
.fi
.RE
.PP
What the same comparison would take on a 1 Gbit/s link with a 20 ms round trip:
.PP
.RS
.nf
xfercmp \-\-what\-if rate=1gbit,rtt=20ms backup1
.fi
.RE
.PP
Two reports side by side, and what xfercmp left on the host removed:
.PP
.RS
.nf
xfercmp diff before.json after.json
xfercmp clean backup1
.fi
.RE
.SH EXIT STATUS
.TP
.B 0
every strategy ran and verified (skipped ones aside)
.TP
.B 1
a strategy or a verification failed, or an error at run time
.TP
.B 2
a usage error: nothing was run
.TP
.B 130
interrupted (Ctrl\-C, SIGTERM); what was made is cleaned up and the finished strategies reported
.SH FILES
.TP
.I ~/.ssh/config
read as OpenSSH reads it (or the file given with \fB\-F\fR)
.TP
.I ~/.ssh/known_hosts
the host keys checked, as OpenSSH checks them
.TP
.I ~/.cache/xfercmp/
on each host: the uploaded agent, kept for the next run
.RB ( "xfercmp clean" " removes it)"
.TP
.I /var/tmp/xfercmp.*
scratch roots, removed at the end (\fB\-\-remote\-dir\fR on the host; \fBXFERCMP_SCRATCH\fR here)
.SH SEE ALSO
.BR ssh (1),
.BR ssh_config (5),
.BR scp (1),
.BR rsync (1),
.BR fpsync (1),
.BR iperf3 (1)
ROFF
} >"$out/xfercmp.1"

# ---------------------------------------------------------------- bash
{
	echo "# bash completion for xfercmp $version (generated by scripts/gen-docs.sh from --help)"
	# the hosts the user's ssh configuration names (Host lines, patterns left out)
	echo '_xfercmp_hosts() {'
	echo '	awk '"'"'tolower($1) == "host" { for (i = 2; i <= NF; i++) if ($i !~ /[*?!]/) print $i }'"'"' \'
	echo '		"$HOME/.ssh/config" 2>/dev/null'
	echo '}'
	echo "_xfercmp() {"
	echo '	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=compare i'
	echo '	for ((i = 1; i < COMP_CWORD; i++)); do'
	echo '		case ${COMP_WORDS[i]} in'
	echo "		$(IFS='|'; echo "${commands[*]}")) cmd=\${COMP_WORDS[i]}; break ;;"
	echo '		esac'
	echo '	done'
	echo '	case $prev in'
	# a list: what comes after its last comma is completed, what is before kept
	echo '	-s | --strategies)'
	echo '		local pre= word=$cur'
	echo '		[[ $cur == *,* ]] && pre=${cur%,*}, word=${cur##*,}'
	echo '		COMPREPLY=($(compgen -P "$pre" -W "all real $(xfercmp --list-strategies 2>/dev/null | cut -f1)" -- "$word"))'
	echo '		[ -n "$pre" ] && compopt -o nospace 2>/dev/null; return ;;'
	echo '	-w | --workload)'
	echo '		COMPREPLY=($(compgen -W "smallfiles largefile mixed realistic dir:" -- "$cur")); return ;;'
	echo '	-F | --ssh-config | --json | --html | --export-csv | --export-markdown | --manifest | --token-file | --source-dir)'
	echo '		COMPREPLY=($(compgen -f -- "$cur")); return ;;'
	echo '	esac'
	echo '	local opts'
	echo '	case $cmd in'
	for c in compare "${commands[@]}"; do
		echo "	$c) opts=\"$(options "$c" | tr '\n' ' ')$(shorts "$c" | tr '\n' ' ')\" ;;"
	done
	echo '	esac'
	echo '	if [[ $cur == -* ]]; then'
	echo '		COMPREPLY=($(compgen -W "$opts" -- "$cur"))'
	echo '		[[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null'
	echo '	elif [ "$cmd" = compare ] && [ "$COMP_CWORD" -eq 1 ]; then'
	echo "		COMPREPLY=(\$(compgen -W \"${commands[*]} \$(_xfercmp_hosts)\" -- \"\$cur\") \$(compgen -A hostname -- \"\$cur\"))"
	echo '	elif [ "$cmd" = compare ] || [ "$cmd" = probe ] || [ "$cmd" = clean ]; then'
	echo '		COMPREPLY=($(compgen -W "$(_xfercmp_hosts)" -- "$cur") $(compgen -A hostname -- "$cur"))'
	echo '	else'
	echo '		COMPREPLY=($(compgen -f -- "$cur"))'
	echo '	fi'
	echo '}'
	echo 'complete -F _xfercmp xfercmp'
} >"$out/xfercmp.bash"

# ---------------------------------------------------------------- zsh
{
	echo "#compdef xfercmp"
	echo "# zsh completion for xfercmp $version (generated by scripts/gen-docs.sh from --help)"
	echo "_xfercmp() {"
	echo '	local cmd=compare w'
	echo '	for w in ${words[2,CURRENT-1]}; do'
	echo "		case \$w in ($(IFS='|'; echo "${commands[*]}")) cmd=\$w; break ;; esac"
	echo '	done'
	echo '	case $cmd in'
	for c in compare "${commands[@]}"; do
		printf '\t%s) compadd -- %s ;;\n' "$c" "$(options "$c" | sed 's/=$//' | tr '\n' ' ')"
	done
	echo '	esac'
	echo "	[ \$cmd = compare ] && [ \$CURRENT -eq 2 ] && compadd -- ${commands[*]}"
	echo '}'
	echo '_xfercmp "$@"'
} >"$out/_xfercmp"
