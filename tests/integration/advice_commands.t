#!/usr/bin/env bash
# The advice runs as printed (issue 44, item 4): for every strategy that has a real
# command (own and reference), xfercmp is run against the testbed with that strategy
# alone, on a tree this test makes; the command its recommendation prints ("The same
# without xfercmp: ..." or "The nearest without xfercmp: ...") must have N, HOST and
# DIR filled in; with only DST (a fresh, empty directory on the host) and PORT (a free
# port there) filled by us, as a user would, it is run as printed by a user the test
# makes, and what arrived on the host is compared with the tree (names, kinds, link
# texts and every file's sha256). A program missing here skips its strategy with the
# reason (under CI=true: a failure). About 50 s. Needs root (the testbed, useradd).
# Only ever talks to 198.18.0.2 and loopback.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/advice_commands.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
cfg="$tbdir/ssh_config"
ns=xfercmp-host
user=xfercmp-advice

# Each strategy with a real command: NAME|PROGRAMS THE PRINTED COMMAND RUNS|FOLLOWS|CLEAR.
# FOLLOWS: scp (SFTP and -O alike) follows a symbolic link to a file, which arrives as a
# copy of its target (real_scp.c's table); rsync -a, tar and fpsync's rsync keep it a
# link. CLEAR: the strategy sends in clear, so a dir: tree needs --allow-cleartext.
strategies=(
	"splice|tar nc|0|1"
	"zstd|tar zstd nc|0|1"
	"scp|scp ssh|1|0"
	"tar-ssh|tar ssh|0|0"
	"zstd-ssh|tar zstd ssh|0|0"
	"parallel|fpsync fpart rsync ssh|0|1"
	"real-scp|scp ssh|1|0"
	"real-scp-legacy|scp ssh|1|0"
	"real-rsync|rsync ssh|0|0"
	"real-tar-ssh|tar ssh|0|0"
	"real-tar-zstd-ssh|tar zstd ssh|0|0"
	"real-tar-nc|tar nc|0|1"
)

skip_all_unless_root

had_fpsync_dir=0
[ -e /tmp/fpsync ] && had_fpsync_dir=1
listener=
# Whatever happens: the listener on the host, the user's processes (here and on the
# host: one process namespace), the user, $work (the tree and the scratch the
# commands copied into: the host shares this file system), fpsync's default work
# directory if the printed fpsync made it, and the testbed.
cleanup() {
	[ -n "$listener" ] && kill -KILL "$listener" 2>/dev/null
	[ "$had_fpsync_dir" -eq 0 ] && [ -n "$(find /tmp/fpsync -maxdepth 0 -user "$user" 2>/dev/null)" ] &&
		rm -rf /tmp/fpsync
	drop_test_user "$user"
}
user_test_work advice cleanup

"$tb" up 2>&1 | diag
"$tb" status >/dev/null 2>&1 || { echo "Bail out! the testbed did not come up"; exit 1; }
# (first: the user is given the testbed's key and known_hosts, made by up)

# The printed commands name the host as the user typed it ("testbed"), so the user's
# own ssh must resolve it: OpenSSH reads ~/.ssh/config from the passwd entry's home,
# not from $HOME, so the commands run as a user of the test's whose home is here.
home="$work/home"
make_test_user "$user" "$home"
mkdir -p "$home/.ssh"
printf 'Include %s/ssh_config\n' "$home" >"$home/.ssh/config"
chown -R "$user:" "$home/.ssh"
chmod 700 "$home/.ssh"

# Every strategy with a real command has a row above (a new one without a row fails).
in_source=$(awk '/^[[:space:]]*\.name = "/ { n = $3; gsub(/[",]/, "", n) }
	/^[[:space:]]*\.real_command = / { print n }' "$top"/transfer/strategy/*.c | sort | tr '\n' ' ')
in_table=$(for s in "${strategies[@]}"; do echo "${s%%|*}"; done | sort | tr '\n' ' ')
[ -n "$in_source" ] && [ "$in_source" = "$in_table" ]
ok $? "every strategy with a real command is tested here (source: $in_source)"
[ "$in_source" = "$in_table" ] || echo "table: $in_table" | diag

# The tree, its own name holding a space (the printed DIR must be quoted to run): 300
# small files in nested directories, one of 300 KB, a name with a space, a symbolic
# link to a file, an empty directory. (No link to a directory or dangling one: scp
# refuses those, and its printed command would then rightly fail.) A dotfile and a dot
# directory at the top: a printed `scp -O -r DIR/*` missed them (the shell's *).
tree="$work/the tree"
for d in a b c d e; do
	for s in one two three; do
		mkdir -p "$tree/$d/$s"
		for i in $(seq 1 20); do printf '%s/%s file %s\n' "$d" "$s" "$i" >"$tree/$d/$s/f$i.txt"; done
	done
done
mkdir -p "$tree/odd dir" "$tree/empty/deeper"
printf 'spaces\n' >"$tree/odd dir/a file with spaces"
head -c 300000 /dev/urandom >"$tree/a/blob.bin"
printf 'read me\n' >"$tree/README"
printf 'hidden\n' >"$tree/.hidden"
mkdir -p "$tree/.config" && printf 'dot dir\n' >"$tree/.config/settings"
ln -s ../README "$tree/a/readme-link"
chmod -R a+rX "$tree"

# listing [-L]: what a tree holds, for comparing two (run in its top directory, by sh
# here and on the host): each entry's kind, name and a link's text, then each file's
# sha256. With -L, links are followed: the source as scp delivers it.
# shellcheck disable=SC2016 # $L is the inner shell's
listing='LC_ALL=C; export LC_ALL
find $L . -mindepth 1 \( -type l -printf "%y %p -> %l\n" -o -printf "%y %p\n" \) | sort
find $L . -type f -print0 | sort -z | xargs -0 -r sha256sum'
src_listing() { (cd "$tree" && L=$1 sh -c "$listing"); }

# free_port: a port nothing listens on in the host's namespace
free_port() {
	local p i
	for ((i = 0; i < 50; i++)); do
		p=$((20000 + RANDOM % 30000))
		[ -z "$(ip netns exec "$ns" ss -Hltn "sport = :$p" 2>/dev/null)" ] && { echo "$p"; return 0; }
	done
	return 1
}
# listening PORT: waits up to 10 s for a listener on PORT in the host's namespace
listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -n "$(ip netns exec "$ns" ss -Hltn "sport = :$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

# run_printed COMMAND LOG: runs COMMAND as the user typed it; "A, on testbed: B" (the nc
# forms) runs B on the host through ssh first, in the background, then A here
run_printed() {
	local c=$1 log=$2 a b rc i
	if [[ $c == *", on testbed: "* ]]; then
		a=${c%%, on testbed: *}
		b=${c#*, on testbed: }
		as_user ssh -n testbed "$b" >"$log.host" 2>&1 &
		listener=$!
		listening "$port" || { echo "no listener on $port on the host: $(cat "$log.host")" >"$log"; return 1; }
		timeout 30 runuser -u "$user" -- env HOME="$home" bash -c "$a" >"$log" 2>&1
		rc=$?
		# the host's side ends when the stream does
		for ((i = 0; i < 100; i++)); do kill -0 "$listener" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$listener" 2>/dev/null; then
			echo "the host's side still runs 10 s after the sender ended" >>"$log"
			kill -KILL "$listener" 2>/dev/null
			rc=1
		fi
		wait "$listener" || rc=1
		listener=
		cat "$log.host" >>"$log"
		return "$rc"
	fi
	timeout 120 runuser -u "$user" -- env HOME="$home" bash -c "$c" >"$log" 2>&1
}

scratch="$home/remote"
as_user ssh -n testbed "mkdir -m 700 -- '$scratch'"
ok $? "the scratch directory made on the host ($scratch)"

tmp=$work
for row in "${strategies[@]}"; do
	IFS='|' read -r s progs follows clear <<<"$row"
	missing=
	for p in $progs; do command -v "$p" >/dev/null || { missing=$p; break; }; done
	if [ -n "$missing" ]; then
		for d in "recommended" "command filled in" "the report prints it" "runs as printed" "the copy"; do
			n=$((n + 1))
			echo "ok $n # SKIP $s: $d: '$missing' is not installed here (scripts/setup.sh installs it)"
		done
		continue
	fi
	ensure_testbed "$s"
	json="$home/$s.json"
	extra=()
	[ "$clear" = 1 ] && extra=(--allow-cleartext)
	run timeout 120 runuser -u "$user" -- env HOME="$home" "$xf" -F "$home/ssh_config" --no-probes \
		"${extra[@]}" -w "dir:$tree" -s "$s" --json "$json" testbed
	rec=$(json_get "$json" "d['recommendation'] or ''" 2>/dev/null)
	[ "$rc" -eq 0 ] && [[ $rec == "use $s "*" without xfercmp: "* ]]
	ok $? "$s: recommended, with the command that does the same"
	[[ $rec == *" without xfercmp: "* ]] || { show; echo "recommendation: $rec" | diag; continue; }
	# the command: after "without xfercmp: ", up to " (about T for this data)" or
	# " (N rsync streams over ssh, ...)"
	cmd=${rec#* without xfercmp: }
	cmd=$(sed -E 's/ \((about |[0-9]+ rsync streams ).*$//' <<<"$cmd")
	# (a word, not an option: nc -N is not N)
	! grep -qE '(^|[^-[:alnum:]_])(N|HOST|DIR)([^[:alnum:]_]|$)' <<<"$cmd" && grep -qw DST <<<"$cmd" &&
		[[ $cmd == *"testbed"* ]] &&
		[[ $cmd == *"'$tree'"* ]]
	ok $? "$s: N, HOST and DIR (quoted) filled in, DST left to the user: $cmd"
	# the text report says the same, its lines joined (it wraps at 100 columns)
	text=$(tr '\n' ' ' <<<"$out" | sed 's/  */ /g')
	grep -qF -- "without xfercmp: $cmd" <<<"$text"
	ok $? "$s: the text report prints the same command"

	dst="$scratch/$s"
	port=$(free_port) || port=
	as_user ssh -n testbed "mkdir -- '$dst'"
	# only DST and PORT are ours to fill: the rest runs as printed
	run_cmd=$(sed -E "s|\\bDST\\b|$dst|g; s|\\bPORT\\b|$port|g" <<<"$cmd")
	start=$SECONDS
	run_printed "$run_cmd" "$work/$s.log"
	rc=$?
	ok "$rc" "$s: runs as printed ($((SECONDS - start)) s): $run_cmd"
	[ "$rc" -eq 0 ] || tail -20 "$work/$s.log" | diag

	# scp follows the link (the source seen through -L is what it must deliver); the
	# others keep it as a link with its text
	L=
	[ "$follows" = 1 ] && L=-L
	want=$(src_listing "$L")
	got=$(as_user ssh testbed "cd '$dst' && L= sh" <<<"$listing" 2>&1)
	[ -n "$want" ] && [ "$want" = "$got" ]
	ok $? "$s: the copy on the host holds the tree ($(grep -c '^[a-z] \./' <<<"$want") entries, links $([ "$follows" = 1 ] && echo followed || echo kept))"
	[ "$want" = "$got" ] || diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -20 | diag
	as_user ssh -n testbed "rm -rf -- '$dst'"
done

as_user ssh -n testbed "rm -rf -- '$scratch'"
# (sshd ends a session's processes a moment after its client left)
until_empty 50 0.1 pgrep -u "$user" -a
[ ! -e "$scratch" ] && [ -z "$left" ]
ok $? "nothing left on the host: the scratch directory is gone, no process of the user runs"
[ -z "$left" ] || printf '%s\n' "$left" | diag
finish
