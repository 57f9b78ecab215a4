#!/usr/bin/env bash
# shellcheck disable=SC2317 # helpers run through attempt and the EXIT trap
# Benchmarks xfercmp against the plain tools it must beat and against the ceilings of this
# machine, and prints markdown tables of times and ratios. Every ratio compares two things
# measured side by side in the same run: the runs alternate (run k of one, then run k of
# the other), so a machine that gets busier or quieter halfway shifts both. Nothing here
# asserts an absolute time; a ratio is printed with its target and "met" or "not met".
#
#   scripts/bench.sh [--quick] [--files N] [--size SIZE] [--repeat N] [--only SECTIONS]
#
#   --quick       20,000 files and 1 GiB (default: 120,000 files and 4 GiB)
#   --files N     small files of the gen and raw workloads
#   --size SIZE   the large file of the raw section (K/M/G/T suffixes, powers of 1024)
#   --repeat N    runs of each timed command, 1 to 9; medians are reported (default 3)
#   --only S      gen, raw, strategies, a comma-separated list of them, or all (default)
#
# Sections:
#   gen  `xfercmp gen -w smallfiles` against `tar -xf` of the same tree from /dev/shm, both
#        into /var/tmp and both ending in `sync -f`.
#   raw  on the testbed host (scripts/testbed.sh; brought up if it is not, and then taken
#        down at the end), cold source, durable destination:
#        - N small files: xfercmp splice against `tar -cf - | nc` into `nc -l | tar -xf`
#          and `sync -f` in the namespace; target splice >= 2x faster;
#        - one large file: splice against the destination's durable write speed (the
#          disk_write_bps probe of the same xfercmp invocation, writing the file's size
#          with --disk-probe-size); target >= 0.95;
#        - the large file from a warm source into a tmpfs (an agent started by hand in the
#          namespace): splice against iperf3 memory-to-memory TCP; target >= 0.85.
#   strategies  on the testbed host, cold source, durable destination: iperf3 with 1 and
#        N streams, then every xfercmp strategy and every reference tool (-s all,real)
#        on the N small files and on the large file, REPEAT rounds, medians; the best
#        xfercmp strategy against the best reference tool (small files: target >= 2x;
#        large file: >= 0.95 of the durable-write ceiling and faster than every
#        reference), and each model against the real tool it models (within 15%).
#
# "Cold source" is what xfercmp's runner leaves before each run: `sync; echo 3 >
# drop_caches`, then every source file opened to drop its pages, so the file data is cold
# and the inodes are cached. The tar | nc baseline gets the same state (drop_caches, then
# `find -printf %s` to read the inodes back); one extra tar | nc run with the inodes cold
# too is shown for information.
#
# Needs root (drop_caches, network namespace, tmpfs mount), a built ./xfercmp (`make`),
# tar, netcat-openbsd, iperf3 and perl (JSON::PP). Markdown goes to stdout, progress to
# stderr. Everything it makes lives in one /var/tmp/xfercmp-bench.XXXXXX and one file in
# /dev/shm, both removed on exit, as are the processes and the mount it started. Traffic
# goes only over loopback and to 198.18.0.2.
#
# Exit status: 0 everything ran (whatever the ratios), 1 a timed command failed (its row
# says so), 2 usage error, 129/130/143 hung up, interrupted, terminated.
set -Eeuo pipefail

readonly NS=xfercmp-host
readonly HOST_ADDR=198.18.0.2
readonly PORT_FIRST=5300 PORT_LAST=5399
# Upper bound on any one timed command or wait, seconds.
readonly LIMIT=3600
readonly IPERF_SECONDS=5
# Runs of one timed command when the shared testbed goes away under it.
readonly ATTEMPTS=3
# Every strategy of -s all,real, each model next to the real tool it models: a run pays
# for what the one before it left behind on this VM (dirty data, memory handed back to
# the hypervisor), so a fidelity ratio compares neighbours. Odd rounds run the list
# forwards, even rounds backwards, so no strategy always runs first or last.
readonly ROUND_ORDER=(scp real-scp real-scp-legacy tar-ssh real-tar-ssh zstd-ssh
	real-tar-zstd-ssh splice parallel zstd real-tar-nc real-rsync)

die() {
	local code=$1
	shift
	echo "bench: $*" >&2
	exit "$code"
}
say() { echo "bench: $*" >&2; }

usage() { die 2 "usage: bench.sh [--quick] [--files N] [--size SIZE] [--repeat N] [--only gen,raw,strategies|all]"; }

top=$(cd "$(dirname "$0")/.." && pwd -P)
readonly TOP=$top
readonly XFERCMP=$TOP/xfercmp
readonly SSH_CONFIG=$TOP/build/testbed/ssh_config
readonly SSHD_PID_FILE=$TOP/build/testbed/sshd.pid

command_line="scripts/bench.sh"
for a in "$@"; do command_line+=" $(printf '%q' "$a")"; done
readonly COMMAND_LINE=$command_line

files=120000
size=4G
repeat=3
only=all
quick=0
files_set=0
size_set=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--files | --size | --repeat | --only)
		[ $# -ge 2 ] || die 2 "$1 needs a value"
		case $1 in
		--files) files=$2; files_set=1 ;;
		--size) size=$2; size_set=1 ;;
		--repeat) repeat=$2 ;;
		--only) only=$2 ;;
		esac
		shift 2
		;;
	-h | --help) sed -n '3,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
done
if [ "$quick" -eq 1 ]; then
	[ "$files_set" -eq 1 ] || files=20000
	[ "$size_set" -eq 1 ] || size=1G
fi
[[ $files =~ ^[1-9][0-9]{0,7}$ ]] || die 2 "--files: expected 1 to 99999999, got '$files'"
[[ $size =~ ^[1-9][0-9]*([KkMmGgTt][iI]?)?[bB]?$ ]] || die 2 "--size: expected e.g. 4G, got '$size'"
[[ $repeat =~ ^[1-9]$ ]] || die 2 "--repeat: expected 1 to 9, got '$repeat'"
[ "$only" != all ] || only=gen,raw,strategies
IFS=, read -r -a sections <<<"$only"
for section in "${sections[@]}"; do
	case $section in gen | raw | strategies) ;; *) die 2 "--only: expected gen, raw, strategies or all (or a comma-separated list), got '$only'" ;; esac
done
readonly FILES=$files SIZE=$size REPEAT=$repeat ONLY=$only SECTIONS=("${sections[@]}")

[ "$(id -u)" -eq 0 ] || die 2 "must run as root (drop_caches, network namespace, tmpfs mount)"
[ -x "$XFERCMP" ] || die 2 "$XFERCMP not found: run make first"
# ROUND_ORDER must name exactly the strategies of -s all,real (the help lists them)
have=$("$XFERCMP" --help | sed -n '/^strategies (/,$s/^  \([a-z][a-z-]*\) .*/\1/p' | sort | tr '\n' ' ')
want=$(printf '%s\n' "${ROUND_ORDER[@]}" | sort | tr '\n' ' ')
[ "$have" = "$want" ] || die 1 "bench.sh's ROUND_ORDER ($want) is not xfercmp's strategies ($have): update it"
for c in tar nc iperf3 perl ip ss mount umount timeout setsid awk sort find; do
	command -v "$c" >/dev/null || die 2 "$c not found (run scripts/setup.sh)"
done
perl -MJSON::PP -e 1 2>/dev/null || die 2 "perl's JSON::PP module is missing"

# ---------------------------------------------------------------- state and cleanup

work=$(mktemp -d /var/tmp/xfercmp-bench.XXXXXX)
readonly WORK=$work
SHM_TAR=""
TMPFS=""
RESULT=""
SRC_SMALL=""
SRC_BIG=""
SMALL_BYTES=0
BIG_BYTES=0
BROUGHT_UP=0
LOST=0
REMOTE_N=0
FAILED=0
declare -A BG=()	# process groups started here and not yet reaped: pid -> 1

cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM HUP
	set +e
	for pid in "${!BG[@]}"; do
		stop_group "$pid"
	done
	if [ -n "$TMPFS" ] && mountpoint -q "$TMPFS"; then
		umount "$TMPFS" || say "cannot unmount $TMPFS; unmount it by hand"
	fi
	[ -z "$SHM_TAR" ] || rm -f "$SHM_TAR"
	rm -rf "$WORK"
	if [ "$BROUGHT_UP" -eq 1 ]; then
		if testbed_in_use; then
			say "testbed: left up, someone else has processes in it"
		else
			"$TOP/scripts/testbed.sh" down >&2
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted (SIGINT)"; exit 130' INT
trap 'say "terminated (SIGTERM)"; exit 143' TERM
trap 'say "hung up (SIGHUP)"; exit 129' HUP

# proc_running PID: true while PID exists and is not a zombie (a child that has exited
# stays a zombie until bg_wait reaps it).
proc_running() {
	local stat=""
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	case ${stat:0:1} in
	Z | X | x | '') return 1 ;;
	esac
}

# bg_start OUT CMD...: runs CMD in a process group of its own (stdout and stderr to OUT)
# so that it and its children can be stopped together; sets BG_PID.
bg_start() {
	local out=$1
	shift
	setsid "$@" >"$out" 2>&1 </dev/null &
	BG_PID=$!
	BG[$BG_PID]=1
}

# stop_group PID: SIGTERM to the process group PID leads, SIGKILL after 5 s.
stop_group() {
	local i
	kill -TERM -- "-$1" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		proc_running "$1" || return 0
		sleep 0.1
	done
	kill -KILL -- "-$1" 2>/dev/null || true
}

# bg_wait PID: reaps a process started by bg_start (after watch, or one that runs under
# timeout) and returns its exit status.
bg_wait() {
	local rc=0
	wait "$1" || rc=$?
	unset "BG[$1]"
	return "$rc"
}

# ---------------------------------------------------------------- numbers

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# median V...: the median of the numeric arguments ("n/a" when none is a number).
median() {
	printf '%s\n' "$@" | awk '$1 ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
minimum() { printf '%s\n' "$@" | awk '$1 ~ /^[0-9.]/' | sort -g | awk 'NR == 1 { print; f = 1 } END { if (!f) print "n/a" }'; }
maximum() { printf '%s\n' "$@" | awk '$1 ~ /^[0-9.]/' | sort -g | awk '{ v = $1 } END { print (NR ? v : "n/a") }'; }

# calc FORMAT EXPR A B: printf FORMAT of EXPR over a and b, or "n/a" if either is not a
# positive number.
calc() {
	awk -v a="$3" -v b="$4" -v f="$1" "BEGIN {
		if (a !~ /^[0-9.]/ || b !~ /^[0-9.]/ || a + 0 <= 0 || b + 0 <= 0) { print \"n/a\"; exit }
		printf f, $2 }"
}
secs() { calc "%.2f" "a" "$1" 1; }
# secs_list V...: each value as secs, space-separated ("failed" stays).
secs_list() {
	local v out=()
	for v in "$@"; do out+=("$(secs "$v" | sed "s/^n\/a$/$v/")"); done
	echo "${out[*]}"
}

# verdict RATIO TARGET: "met" when RATIO >= TARGET.
verdict() {
	awk -v r="$1" -v t="$2" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 >= t + 0) print "target met"; else print "target not met" }'
}

# json_get FILE PATH: the value at a dot-separated PATH of keys and array indexes ("" if
# absent; booleans as true/false).
json_get() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 0;
		my $d = eval { decode_json(<$f>) } or exit 0;
		for my $k (split /\./, $ARGV[1]) {
			if (ref $d eq "ARRAY") { $d = $d->[$k] } elsif (ref $d eq "HASH") { $d = $d->{$k} } else { undef $d }
			last unless defined $d;
		}
		if (JSON::PP::is_bool($d)) { print $d ? "true" : "false" } elsif (defined $d && !ref $d) { print $d }
	' "$1" "$2"
}

# json_results FILE: one line per result: strategy, status, seconds, error (tab-separated).
json_results() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 0;
		my $d = eval { decode_json(<$f>) } or exit 0;
		for my $r (@{ $d->{results} || [] }) {
			my $e = $r->{error} // ""; $e =~ s/[\t\n|]/ /g;
			my $ok = $r->{status} eq "ok" && $r->{verified};
			printf "%s\t%s\t%s\t%s\n", $r->{strategy}, $ok ? "ok" : $r->{status},
				$ok ? $r->{seconds} : "-", $e;
		}
	' "$1"
}

# run_seconds FILE: sets RESULT to results[0].seconds of an xfercmp --json file if it ran
# and verified, else to "failed" (the error goes to stderr and FAILED is set). Timed
# helpers set RESULT rather than print, so that they run in this shell: FAILED and the
# background processes they start stay known to it.
run_seconds() {
	local line status secs error
	line=$(json_results "$1" | head -n 1)
	IFS=$'\t' read -r _ status secs error <<<"$line" || true
	if [ "${status:-}" = ok ]; then
		RESULT=$secs
		return 0
	fi
	say "xfercmp run failed: ${error:-no result, see $1.log}"
	[ ! -s "$1.log" ] || tail -n 5 "$1.log" | sed 's/^/    /' >&2
	FAILED=1
	RESULT=failed
}

# ---------------------------------------------------------------- machine

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# cold_like_xfercmp DIR: the state xfercmp's runner leaves before a run: file data out of
# the page cache, inodes read back in.
cold_like_xfercmp() {
	drop_caches
	find "$1" -type f -printf '%s\n' >/dev/null
}

# tree_bytes DIR: the bytes of the regular files under DIR. (%.0f, not %d: mawk,
# Debian's awk, prints %d as at most 2^31 - 1.)
tree_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f", s }'; }

header() {
	local dev model disk tb
	dev=$(df --output=source /var/tmp | tail -n 1)
	model=$(lsblk -dno MODEL "$dev" 2>/dev/null | sed 's/ *$//' || true)
	disk="$dev, $(lsblk -dno SIZE "$dev" 2>/dev/null | tr -d ' '), $(df --output=fstype /var/tmp | tail -n 1)"
	disk+=", model: ${model:-none reported}"
	[ "$(lsblk -dno ROTA "$dev" 2>/dev/null | tr -d ' ')" != 1 ] || disk+=" (reports rotational)"
	echo "# xfercmp benchmarks"
	echo
	echo "- date: $(date '+%F %T %Z')"
	echo "- command: \`$COMMAND_LINE\`"
	echo "- xfercmp: $("$XFERCMP" --version), commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$TOP" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
	echo "- machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), kernel $(uname -r), disk $disk"
	echo "- load average at start: $(loadavg)"
	echo "- workloads: $FILES small files (smallfiles), one file of $SIZE (largefile); medians of $REPEAT runs"
	if [ "$ONLY" != gen ]; then
		tb=$("$TOP/scripts/testbed.sh" status 2>/dev/null | sed -n 's/^link: //p' || true)
		echo "- testbed link: ${tb:-down}"
	fi
	echo
	echo '```'
	free -g
	echo '```'
}

# ---------------------------------------------------------------- section gen

section_gen() {
	local k t0 t1 d x gen=() untar=() g u r load
	say "gen: $REPEAT x (xfercmp gen, tar -xf) of $FILES files"
	load=$(loadavg)
	SHM_TAR=$(mktemp /dev/shm/xfercmp-bench.XXXXXX.tar)
	for ((k = 1; k <= REPEAT; k++)); do
		d=$WORK/gen.$k
		# not just sync: the caches dropped, so that neither command pays for the tree
		# removed before it (see inode reuse in docs/BENCHMARKS.md)
		drop_caches
		t0=$(now)
		if timeout "$LIMIT" "$XFERCMP" gen -q -w smallfiles --files "$FILES" "$d" >"$WORK/gen.log" 2>&1 &&
			sync -f "$d"; then
			t1=$(now)
			gen+=("$(elapsed "$t0" "$t1")")
		else
			say "xfercmp gen failed: $(tail -n 1 "$WORK/gen.log")"
			gen+=(failed)
			FAILED=1
			rm -rf "$d" "$d.manifest"
			continue
		fi
		# the tar archive is made once, from the first tree, outside any timing
		[ -s "$SHM_TAR" ] || tar -cf "$SHM_TAR" -C "$d" .
		rm -rf "$d" "$d.manifest"
		x=$WORK/untar.$k
		mkdir "$x"
		drop_caches
		t0=$(now)
		if timeout "$LIMIT" tar -xf "$SHM_TAR" -C "$x" && sync -f "$x"; then
			t1=$(now)
			untar+=("$(elapsed "$t0" "$t1")")
		else
			untar+=(failed)
			FAILED=1
		fi
		rm -rf "$x"
		say "gen run $k: gen ${gen[-1]} s, tar -xf ${untar[-1]} s"
	done
	rm -f "$SHM_TAR"
	SHM_TAR=""
	g=$(median "${gen[@]}")
	u=$(median "${untar[@]:-failed}")
	r=$(calc "%.2f" "a / b" "$g" "$u")
	echo
	echo "## gen: writing $FILES small files (load average $load)"
	echo
	echo "Both write into /var/tmp and end in \`sync -f\`; tar reads an archive of the same tree"
	echo "from /dev/shm, made once outside the timing. xfercmp gen also computes the content and"
	echo "the xxh3 of every file and writes the manifest."
	echo
	echo "| command | median s | min s | max s | files/s |"
	echo "|---|---:|---:|---:|---:|"
	echo "| \`xfercmp gen -w smallfiles --files $FILES DIR && sync -f DIR\` | $(secs "$g") | $(secs "$(minimum "${gen[@]}")") | $(secs "$(maximum "${gen[@]}")") | $(calc "%.0f" "b / a" "$g" "$FILES") |"
	echo "| \`tar -xf /dev/shm/T.tar -C DIR && sync -f DIR\` | $(secs "$u") | $(secs "$(minimum "${untar[@]:-failed}")") | $(secs "$(maximum "${untar[@]:-failed}")") | $(calc "%.0f" "b / a" "$u" "$FILES") |"
	echo
	echo "| ratio | value | target |"
	echo "|---|---:|---|"
	echo "| gen / tar -xf (time) | $r | none set |"
}

# ---------------------------------------------------------------- section raw: helpers

testbed_up() { "$TOP/scripts/testbed.sh" status >/dev/null 2>&1; }

# testbed_sshd: prints the pid in the testbed's sshd pid file ("" when there is none).
testbed_sshd() {
	local pid=""
	read -r pid 2>/dev/null <"$SSHD_PID_FILE" || true
	echo "$pid"
}

# testbed_in_use: true when the namespace holds processes besides the sshd listener.
testbed_in_use() {
	local pid listener
	listener=$(testbed_sshd)
	for pid in $(ip netns pids "$NS" 2>/dev/null); do
		[ "$pid" = "$listener" ] || return 0
	done
	return 1
}

# watch PID...: waits until every PID (started by bg_start) has exited, at most LIMIT
# seconds. Another user's `testbed.sh down` can delete the link under an established
# connection, and then no FIN ever comes and a client waits forever; so when the
# testbed's sshd is no longer the one it was at the start, watch stops the PIDs, sets
# LOST and returns 1. Returns 1 too (after stopping them) at the time limit.
watch() {
	local sshd0 i pid alive lost=0
	sshd0=$(testbed_sshd)
	for ((i = 0; i < LIMIT * 10; i++)); do
		alive=0
		for pid in "$@"; do
			! proc_running "$pid" || alive=1
		done
		[ "$alive" -eq 1 ] || return 0
		if [ "$(testbed_sshd)" != "$sshd0" ]; then
			say "the testbed's sshd changed under the run (another user took the testbed down?): stopping it"
			LOST=1
			lost=1
			break
		fi
		sleep 0.1
	done
	[ "$lost" -eq 1 ] || say "still running after $LIMIT s: stopping it"
	for pid in "$@"; do
		stop_group "$pid"
	done
	return 1
}

# The testbed is shared: another user's `testbed.sh down` can take it away at any time.
# ensure_testbed brings it up when it is down, and then it is ours to take down at the end.
ensure_testbed() {
	local i
	testbed_up && return 0
	say "testbed: down, bringing it up (and down again at the end)"
	BROUGHT_UP=1
	# a `down` by someone else at the same moment can make one `up` fail: try again
	for ((i = 1; i <= 3; i++)); do
		"$TOP/scripts/testbed.sh" up >&2 && return 0
		sleep 2
	done
	die 1 "cannot bring the testbed up"
}

# attempt HELPER ARGS...: runs a timed helper (one that sets RESULT) with the testbed up;
# when the helper fails because the testbed went away meanwhile, brings it up and runs
# the helper again, at most ATTEMPTS times in all.
attempt() {
	local failed_before=$FAILED i
	for ((i = 1; i <= ATTEMPTS; i++)); do
		LOST=0
		ensure_testbed
		"$@"
		[ "$RESULT" = failed ] || return 0
		[ "$LOST" -eq 1 ] || ! testbed_up || return 0
		[ "$i" -lt "$ATTEMPTS" ] || return 0
		say "the testbed went away during the run: running it again"
		FAILED=$failed_before
	done
}

in_ns() { ip netns exec "$NS" "$@"; }

listening() { in_ns ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# free_port: prints a port nothing in the namespace listens on.
free_port() {
	local p
	for ((p = PORT_FIRST; p <= PORT_LAST; p++)); do
		listening "$p" || { echo "$p"; return 0; }
	done
	die 1 "no free port in $PORT_FIRST..$PORT_LAST inside $NS"
}

# wait_listening PORT PID: until PORT listens in the namespace (at most 10 s) and the
# process PID is still alive.
wait_listening() {
	local i
	for ((i = 0; i < 200; i++)); do
		listening "$1" && return 0
		proc_running "$2" || return 1
		sleep 0.05
	done
	return 1
}

# tar_nc SRC DST: one timed `tar -cf - -C SRC . | nc` into `nc -l | tar -xf - -C DST &&
# sync -f DST` in the namespace; sets RESULT to the seconds from the sender's start to the
# end of the receiver's sync (the receiver writes that time down itself), or "failed".
# The caller readies the source cache first.
tar_nc() {
	local src=$1 dst=$2 port recv send t0 rc=0
	RESULT=failed
	mkdir -p "$dst"
	rm -f "$WORK/nc-end"
	port=$(free_port)
	# shellcheck disable=SC2016 # $1..$4 belong to the inner sh
	bg_start "$WORK/nc-recv.log" ip netns exec "$NS" timeout "$LIMIT" sh -c \
		'nc -l "$1" "$2" </dev/null | tar -xf - -C "$3" && sync -f "$3" && date +%s.%N >"$4"' \
		_ "$HOST_ADDR" "$port" "$dst" "$WORK/nc-end"
	recv=$BG_PID
	if ! wait_listening "$port" "$recv"; then
		say "tar | nc: the receiver did not listen on $HOST_ADDR:$port: $(tail -n 2 "$WORK/nc-recv.log")"
		stop_group "$recv"
		bg_wait "$recv" || true
		FAILED=1
		return 0
	fi
	t0=$(now)
	# shellcheck disable=SC2016 # $1..$3 belong to the inner bash
	bg_start "$WORK/nc-send.log" timeout "$LIMIT" bash -o pipefail -c \
		'tar -cf - -C "$1" . | nc -N "$2" "$3"' _ "$src" "$HOST_ADDR" "$port"
	send=$BG_PID
	watch "$send" "$recv" || rc=1
	bg_wait "$send" || rc=$?
	bg_wait "$recv" || rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$WORK/nc-end" ]; then
		say "tar | nc failed (exit $rc): $(tail -n 2 "$WORK/nc-send.log" "$WORK/nc-recv.log" | tr '\n' ' ')"
		FAILED=1
		return 0
	fi
	RESULT=$(elapsed "$t0" "$(cat "$WORK/nc-end")")
}

# xfercmp_watched JSON ARGS...: runs xfercmp ARGS --json JSON (output to JSON.log) under
# watch; the JSON tells how it went (none when it was stopped).
xfercmp_watched() {
	local json=$1 pid
	shift
	rm -f "$json"
	bg_start "$json.log" "$XFERCMP" "$@" --json "$json"
	pid=$BG_PID
	if ! watch "$pid"; then
		bg_wait "$pid" || true
		rm -f "$json"
		return 0
	fi
	bg_wait "$pid" || true
}

# compare_testbed JSON ARGS...: xfercmp ARGS against the testbed over SSH; sets RESULT
# as run_seconds does, from the first result. The agent's scratch root is put under WORK
# (the testbed shares this file system): an agent killed with the testbed cannot remove
# it, and then cleanup does.
compare_testbed() {
	local json=$1
	shift
	REMOTE_N=$((REMOTE_N + 1))
	xfercmp_watched "$json" -F "$SSH_CONFIG" --remote-dir "$WORK/remote.$REMOTE_N" "$@" testbed
	run_seconds "$json"
}

# compare_all JSON ARGS...: as compare_testbed, with several strategies; sets RESULT to
# "failed" when the run did not finish or a strategy failed, else "ok".
compare_all() {
	local json=$1 line status
	shift
	REMOTE_N=$((REMOTE_N + 1))
	xfercmp_watched "$json" -F "$SSH_CONFIG" --remote-dir "$WORK/remote.$REMOTE_N" "$@" testbed
	RESULT=ok
	[ -n "$(json_results "$json")" ] || RESULT=failed
	while IFS=$'\t' read -r _ status _ _; do
		[ "$status" != failed ] || RESULT=failed
	done < <(json_results "$json")
	if [ "$RESULT" = failed ]; then
		line=$(json_get "$json" error)
		say "xfercmp $*: ${line:-a strategy failed}"
	fi
}

# iperf3_bps: one iperf3 run, IPERF_STREAMS (default 1) TCP streams for IPERF_SECONDS,
# into the namespace; sets RESULT to the received rate in bits/s, or "failed".
iperf3_bps() {
	local port pid client bps rc=0
	RESULT=failed
	port=$(free_port)
	bg_start "$WORK/iperf3-server.log" ip netns exec "$NS" timeout "$LIMIT" iperf3 -s -1 -B "$HOST_ADDR" -p "$port"
	pid=$BG_PID
	if ! wait_listening "$port" "$pid"; then
		say "iperf3 server did not start: $(tail -n 2 "$WORK/iperf3-server.log")"
		stop_group "$pid"
		bg_wait "$pid" || true
		FAILED=1
		return 0
	fi
	bg_start "$WORK/iperf3.json" iperf3 -c "$HOST_ADDR" -p "$port" -t "$IPERF_SECONDS" -P "${IPERF_STREAMS:-1}" -J
	client=$BG_PID
	watch "$client" "$pid" || rc=1
	bg_wait "$client" || rc=$?
	bg_wait "$pid" || true
	bps=$(json_get "$WORK/iperf3.json" end.sum_received.bits_per_second)
	if [ "$rc" -ne 0 ] || [ -z "$bps" ]; then
		say "iperf3 failed (exit $rc): $(json_get "$WORK/iperf3.json" error)"
		FAILED=1
		return 0
	fi
	RESULT=$bps
}

# splice_tmpfs JSON: one warm-source splice run of the large file into an agent started
# by hand in the namespace with its root on the tmpfs; sets RESULT as run_seconds does.
splice_tmpfs() {
	local json=$1 port pid i
	port=$(free_port)
	bg_start "$WORK/agent.log" ip netns exec "$NS" timeout "$LIMIT" "$XFERCMP" serve \
		--listen "$HOST_ADDR:$port" --once --idle-timeout 120 --token-file "$WORK/token" \
		--root "$TMPFS/root"
	pid=$BG_PID
	# up to 60 s: right after gigabytes of tmpfs pages were freed, this VM has taken more
	# than 10 s to start the agent
	for ((i = 0; i < 1200; i++)); do
		grep -q '^xfercmp-agent listening' "$WORK/agent.log" && break
		proc_running "$pid" || break
		sleep 0.05
	done
	rm -f "$json"
	if grep -q '^xfercmp-agent listening' "$WORK/agent.log"; then
		xfercmp_watched "$json" --agent "$HOST_ADDR:$port" --token-file "$WORK/token" \
			-w largefile --size "$SIZE" --source-dir "$SRC_BIG" -s splice --warm --no-probes
	else
		say "the agent did not start: $(tail -n 2 "$WORK/agent.log")"
	fi
	# --once: the agent exits (removing its root) once the session ends
	watch "$pid" || true
	bg_wait "$pid" || true
	run_seconds "$json"
}

# ---------------------------------------------------------------- section raw
# Each part prints its table as soon as it is measured, so that a run stopped halfway
# (the testbed taken away for good, Ctrl-C) still shows what it got.

raw_intro() {
	echo
	echo "## raw: the testbed host, cold source, durable destination"
	echo
	echo "xfercmp runs against the testbed over SSH (\`-F build/testbed/ssh_config ... testbed\`,"
	echo "agent started by xfercmp); its time is the JSON's \`results[0].seconds\` (transfer +"
	echo "flush, connection setup excluded). tar | nc is \`tar -cf - -C SRC . | nc -N $HOST_ADDR PORT\`"
	echo "into \`ip netns exec $NS sh -c 'nc -l $HOST_ADDR PORT | tar -xf - -C DST && sync -f DST'\`,"
	echo "timed from the sender's start to the end of the receiver's sync. Before every run:"
	echo "\`sync; echo 3 > /proc/sys/vm/drop_caches\`; xfercmp then opens every source file to"
	echo "drop its pages, which reads the inodes back, so tar | nc gets its inodes read back too"
	echo "(\`find SRC -type f -printf %s\`). Runs alternate: splice k, then tar | nc k."
}

raw_small() {
	local k sp=() tn=() meta_cold verified=no load s_sp s_tn r
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		attempt compare_testbed "$WORK/small-splice.$k.json" -w smallfiles --files "$FILES" \
			--source-dir "$SRC_SMALL" -s splice --no-probes
		sp+=("$RESULT")
		cold_like_xfercmp "$SRC_SMALL"
		attempt tar_nc "$SRC_SMALL" "$WORK/dst"
		tn+=("$RESULT")
		if [ "$k" -eq 1 ] && [ "$RESULT" != failed ]; then
			if "$XFERCMP" verify --manifest "$SRC_SMALL.manifest" "$WORK/dst" >"$WORK/verify.log" 2>&1; then
				verified=yes
			else
				verified="NO: $(head -n 1 "$WORK/verify.log")"
				FAILED=1
			fi
		fi
		rm -rf "$WORK/dst"
		say "small files run $k: splice ${sp[-1]} s, tar | nc ${tn[-1]} s"
	done
	drop_caches
	attempt tar_nc "$SRC_SMALL" "$WORK/dst"
	meta_cold=$RESULT
	rm -rf "$WORK/dst"
	say "small files: tar | nc with the inodes cold too: $meta_cold s"

	s_sp=$(median "${sp[@]}")
	s_tn=$(median "${tn[@]}")
	r=$(calc "%.2f" "b / a" "$s_sp" "$s_tn")
	echo
	echo "### $FILES small files, $(calc "%.1f" "a / 1048576" "$SMALL_BYTES" 1) MiB (load average $load)"
	echo
	echo "| command | median s | min s | max s | files/s | MB/s | runs |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	echo "| xfercmp \`-s splice --no-probes\` | $(secs "$s_sp") | $(secs "$(minimum "${sp[@]}")") | $(secs "$(maximum "${sp[@]}")") | $(calc "%.0f" "b / a" "$s_sp" "$FILES") | $(calc "%.1f" "b / a / 1e6" "$s_sp" "$SMALL_BYTES") | $(secs_list "${sp[@]}") |"
	echo "| tar \\| nc → nc -l \\| tar -x + sync -f (verified: $verified) | $(secs "$s_tn") | $(secs "$(minimum "${tn[@]}")") | $(secs "$(maximum "${tn[@]}")") | $(calc "%.0f" "b / a" "$s_tn" "$FILES") | $(calc "%.1f" "b / a / 1e6" "$s_tn" "$SMALL_BYTES") | $(secs_list "${tn[@]}") |"
	echo "| tar \\| nc, inodes cold too (1 run, for information) | $(secs "$meta_cold") | | | $(calc "%.0f" "b / a" "$meta_cold" "$FILES") | $(calc "%.1f" "b / a / 1e6" "$meta_cold" "$SMALL_BYTES") | $(secs_list "$meta_cold") |"
	echo
	echo "| ratio | value | target | |"
	echo "|---|---:|---|---|"
	echo "| tar \\| nc time / splice time | $r | ≥ 2 | $(verdict "$r" 2) |"
}

# local_copy SRC DST: a cold `cp -r SRC/. DST` then `sync -f DST` on this file system, no
# network: what the one disk does when it must read the source and write the copy at
# once, as every testbed run here must; sets RESULT to its seconds.
local_copy() {
	local t0
	RESULT=failed
	mkdir -p "$2"
	cold_like_xfercmp "$1"
	t0=$(now)
	if timeout "$LIMIT" cp -r "$1/." "$2" && sync -f "$2"; then
		RESULT=$(elapsed "$t0" "$(now)")
	else
		FAILED=1
	fi
	rm -rf "$2"
}

raw_big() {
	local k sp=() tn=() cp=() disk=() rd=() wsp=() wdisk=() v load b_sp b_tn b_cp b_disk b_read
	local b_wsp b_wdisk r r2 r3 r4
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		attempt compare_testbed "$WORK/big-splice.$k.json" -w largefile --size "$SIZE" \
			--source-dir "$SRC_BIG" -s splice --disk-probe-size "$SIZE"
		sp+=("$RESULT")
		disk+=("$(json_get "$WORK/big-splice.$k.json" ceilings.disk_write_bps)")
		rd+=("$(json_get "$WORK/big-splice.$k.json" ceilings.disk_read_bps)")
		cold_like_xfercmp "$SRC_BIG"
		attempt tar_nc "$SRC_BIG" "$WORK/dst"
		tn+=("$RESULT")
		rm -rf "$WORK/dst"
		local_copy "$SRC_BIG" "$WORK/dst"
		cp+=("$RESULT")
		# the source read into the page cache: the disk only takes the destination's writes
		drop_caches
		cat "$SRC_BIG"/* >/dev/null
		attempt compare_testbed "$WORK/big-splice-warm.$k.json" -w largefile --size "$SIZE" \
			--source-dir "$SRC_BIG" -s splice --warm --disk-probe-size "$SIZE"
		wsp+=("$RESULT")
		wdisk+=("$(json_get "$WORK/big-splice-warm.$k.json" ceilings.disk_write_bps)")
		say "large file run $k: splice ${sp[-1]} s (disk write ${disk[-1]:-?} B/s), tar | nc ${tn[-1]} s, local cp ${cp[-1]} s, warm-source splice ${wsp[-1]} s (disk write ${wdisk[-1]:-?} B/s)"
	done

	b_sp=$(median "${sp[@]}")
	b_tn=$(median "${tn[@]}")
	b_disk=$(median "${disk[@]}")
	b_read=$(median "${rd[@]}")
	b_cp=$(median "${cp[@]}")
	b_wsp=$(median "${wsp[@]}")
	b_wdisk=$(median "${wdisk[@]}")
	r3=$(calc "%.2f" "a / b" "$b_cp" "$b_sp")
	r4=$(calc "%.2f" "$BIG_BYTES / a / b" "$b_wsp" "$b_wdisk")
	r=$(calc "%.2f" "$BIG_BYTES / a / b" "$b_sp" "$b_disk")
	r2=$(awk -v s="$b_sp" -v n="$BIG_BYTES" -v w="$b_disk" -v d="$b_read" 'BEGIN {
		if (s !~ /^[0-9.]/ || w !~ /^[0-9.]/ || d !~ /^[0-9.]/ || s <= 0 || w <= 0 || d <= 0) { print "n/a"; exit }
		printf "%.2f", n / s * (1 / w + 1 / d) }')
	echo
	echo "### one file of $SIZE, $(calc "%.0f" "a / 1048576" "$BIG_BYTES" 1) MiB (load average $load)"
	echo
	echo "Source and destination share one disk here: every byte moved is read from it and"
	echo "written to it. A cold local \`cp\` of the file onto the same file system (then"
	echo "\`sync -f\`), runs alternating with splice's, shows what the disk does under that load."
	echo "The destination's durable write speed is the \`disk_write_bps\` probe (sequential"
	echo "writes with write-behind and drop-behind, as splice's receiver writes, then fsync, into"
	echo "the agent's root on the same file system; \`--disk-probe-size $SIZE\`, as much as the"
	echo "file) that the same xfercmp invocation ran just before its splice run; the source's"
	echo "cold read speed (\`disk_read_bps\`: sequential 1 MiB reads dropped behind the reader, as"
	echo "splice's sender reads, up to 1 GiB) is shown because the source read shares the disk"
	echo "with the destination's writes here: if the disk could only read or write at a time,"
	echo "moving each byte would take 1 / write + 1 / read. The warm-source rows are the same"
	echo "splice run with the file read into the page cache first (\`--warm\`, which also skips"
	echo "the source probe): the disk then takes only the destination's writes, as the"
	echo "destination's own disk would on two machines; their ratio is for information, the"
	echo "target is the cold one."
	echo
	echo "| what | median s | MB/s | runs |"
	echo "|---|---:|---:|---|"
	echo "| xfercmp \`-s splice\` | $(secs "$b_sp") | $(calc "%.1f" "b / a / 1e6" "$b_sp" "$BIG_BYTES") | $(secs_list "${sp[@]}") |"
	echo "| tar \\| nc → nc -l \\| tar -x + sync -f | $(secs "$b_tn") | $(calc "%.1f" "b / a / 1e6" "$b_tn" "$BIG_BYTES") | $(secs_list "${tn[@]}") |"
	echo "| destination durable write (probe \`disk_write_bps\`) | | $(calc "%.1f" "a / 1e6" "$b_disk" 1) | $(for v in "${disk[@]}"; do calc "%.0f " "a / 1e6" "$v" 1; done)|"
	echo "| source cold read (probe \`disk_read_bps\`, information) | | $(calc "%.1f" "a / 1e6" "$b_read" 1) | $(for v in "${rd[@]}"; do calc "%.0f " "a / 1e6" "$v" 1; done)|"
	echo "| local \`cp\` + \`sync -f\`, cold, same disk, no network | $(secs "$b_cp") | $(calc "%.1f" "b / a / 1e6" "$b_cp" "$BIG_BYTES") | $(secs_list "${cp[@]}") |"
	echo "| xfercmp \`-s splice --warm\`, source in the page cache | $(secs "$b_wsp") | $(calc "%.1f" "b / a / 1e6" "$b_wsp" "$BIG_BYTES") | $(secs_list "${wsp[@]}") |"
	echo "| destination durable write in the warm-source runs (probe \`disk_write_bps\`) | | $(calc "%.1f" "a / 1e6" "$b_wdisk" 1) | $(for v in "${wdisk[@]}"; do calc "%.0f " "a / 1e6" "$v" 1; done)|"
	echo
	echo "| ratio | value | target | |"
	echo "|---|---:|---|---|"
	echo "| splice MB/s / destination durable write MB/s | $r | ≥ 0.95 | $(verdict "$r" 0.95) |"
	echo "| splice MB/s / (1 / (1 / durable write + 1 / source cold read)) MB/s: the disk reading and writing in turn (information) | $r2 | | |"
	echo "| splice MB/s / local cp MB/s: the same disk reading and writing at once (information) | $r3 | | |"
	echo "| warm-source splice MB/s / destination durable write MB/s: the disk writing only (information) | $r4 | | |"
}

# prefault_tmpfs: writes the large file's size of zeros into the tmpfs and removes it,
# so that the pages the splice run gets are backed by the host (see raw_tmpfs).
prefault_tmpfs() {
	dd if=/dev/zero of="$TMPFS/prefault" bs=1M count=$((BIG_BYTES >> 20)) status=none
	rm -f "$TMPFS/prefault"
}

# local_cat_tmpfs: the warm file copied by `cat` into the tmpfs, prefaulted as splice's
# runs are, no network: what filling fresh tmpfs pages costs on this machine; sets RESULT
# to its seconds.
local_cat_tmpfs() {
	local t0
	RESULT=failed
	prefault_tmpfs
	t0=$(now)
	if cat "$SRC_BIG"/* >"$TMPFS/cat.bin"; then
		RESULT=$(elapsed "$t0" "$(now)")
	else
		FAILED=1
	fi
	rm -f "$TMPFS/cat.bin"
}

raw_tmpfs() {
	local k sp=() net=() ct=() v load avail need i m_sp m_net m_ct r r2
	load=$(loadavg)
	echo
	echo "### one file of $SIZE, warm source, tmpfs destination (load average $load)"
	echo
	# the tmpfs and the warm source both take RAM; other work on the machine may hold
	# some for a while, so wait for it (at most a minute) before giving up
	need=$((2 * BIG_BYTES + (1 << 30)))
	for ((i = 0; i < 30; i++)); do
		avail=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
		[ "$avail" -lt "$need" ] || break
		[ "$i" -gt 0 ] || say "tmpfs: $((avail >> 20)) MiB available, waiting for $((need >> 20)) MiB"
		sleep 2
	done
	if [ "$avail" -lt "$need" ]; then
		say "tmpfs: skipped, $((avail >> 20)) MiB available"
		echo "Skipped: $((avail >> 20)) MiB of memory available, $((need >> 20)) MiB needed (tmpfs + warm source)."
		return 0
	fi
	TMPFS=$WORK/tmpfs
	mkdir "$TMPFS"
	# huge pages: on this VM, memory the guest has not touched lately costs a host fault
	# per page on first write, several times the copy itself; iperf3 reuses its buffers
	# and never pays it. 2 MiB pages fault 512 times less often. The prefault before each
	# run helps only while its freed pages stay with the guest, which free page
	# reporting cuts short (see the table's text); the local cat row measures that cost.
	mount -t tmpfs -o "size=$((BIG_BYTES + (512 << 20))),huge=always" xfercmp-bench "$TMPFS"
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$WORK/token"
	echo >>"$WORK/token"
	chmod 600 "$WORK/token"
	cat "$SRC_BIG"/* >/dev/null
	for ((k = 1; k <= REPEAT; k++)); do
		attempt iperf3_bps
		net+=("$RESULT")
		prefault_tmpfs
		attempt splice_tmpfs "$WORK/tmpfs-splice.$k.json"
		sp+=("$RESULT")
		local_cat_tmpfs
		ct+=("$RESULT")
		say "tmpfs run $k: iperf3 ${net[-1]} bit/s, splice ${sp[-1]} s, local cat ${ct[-1]} s"
	done
	umount "$TMPFS"
	rmdir "$TMPFS"
	TMPFS=""

	m_sp=$(median "${sp[@]}")
	m_net=$(median "${net[@]}")
	m_ct=$(median "${ct[@]}")
	r2=$(calc "%.2f" "a / b" "$m_ct" "$m_sp")
	r=$(awk -v s="$m_sp" -v n="$BIG_BYTES" -v b="$m_net" 'BEGIN {
		if (s !~ /^[0-9.]/ || b !~ /^[0-9.]/ || s <= 0 || b <= 0) print "n/a"; else printf "%.2f", n * 8 / s / b }')
	echo "A tmpfs (\`huge=always\`, filled with zeros and emptied before each run, so that its pages"
	echo "may still be backed: first-touch faults on this VM cost more than the copy) is mounted on the testbed"
	echo "side, an agent started in the namespace by hand"
	echo "(\`xfercmp serve --once --root TMPFS/root\`), and xfercmp runs \`--agent $HOST_ADDR:PORT"
	echo "--warm -s splice --no-probes\` with the source read into the page cache first."
	echo "TCP is \`iperf3 -c $HOST_ADDR -t $IPERF_SECONDS -J\` (one stream, received rate) against"
	echo "\`iperf3 -s -1\` in the namespace. Runs alternate: iperf3 k, splice k, then a local"
	echo "\`cat\` of the same warm file into the same tmpfs (prefaulted the same way, no network)."
	echo "This guest hands freed memory back to the hypervisor at once (free page reporting,"
	echo "\`/sys/module/page_reporting/parameters/min_free_ms\` = $(cat /sys/module/page_reporting/parameters/min_free_ms 2>/dev/null || echo 'not present'))"
	echo "so the prefault's pages are mostly gone again when a run writes: the cat row is what"
	echo "filling fresh tmpfs pages costs here, a bound iperf3, which reuses its buffers, never meets."
	echo
	echo "| what | median s | MB/s | Gbit/s | runs |"
	echo "|---|---:|---:|---:|---|"
	echo "| xfercmp \`-s splice --warm\` to tmpfs | $(secs "$m_sp") | $(calc "%.1f" "b / a / 1e6" "$m_sp" "$BIG_BYTES") | $(calc "%.2f" "b * 8 / a / 1e9" "$m_sp" "$BIG_BYTES") | $(secs_list "${sp[@]}") |"
	echo "| iperf3, 1 stream, memory to memory | | $(calc "%.1f" "a / 8e6" "$m_net" 1) | $(calc "%.2f" "a / 1e9" "$m_net" 1) | $(for v in "${net[@]}"; do calc "%.2f " "a / 1e9" "$v" 1; done)|"
	echo "| local \`cat\` of the warm file into the tmpfs, no network | $(secs "$m_ct") | $(calc "%.1f" "b / a / 1e6" "$m_ct" "$BIG_BYTES") | $(calc "%.2f" "b * 8 / a / 1e9" "$m_ct" "$BIG_BYTES") | $(secs_list "${ct[@]}") |"
	echo
	echo "| ratio | value | target | |"
	echo "|---|---:|---|---|"
	echo "| splice throughput / iperf3 throughput | $r | ≥ 0.85 | $(verdict "$r" 0.85) |"
	echo "| splice throughput / local cat into the tmpfs (information) | $r2 | | |"
}

# generate_sources: the workloads of the raw and strategies sections (not timed).
generate_sources() {
	[ -z "$SRC_SMALL" ] || return 0
	SRC_SMALL=$WORK/small
	SRC_BIG=$WORK/big
	say "generating $FILES small files and one file of $SIZE (not timed)"
	"$XFERCMP" gen -q -w smallfiles --files "$FILES" "$SRC_SMALL" >"$WORK/gen-small.log" 2>&1 ||
		die 1 "xfercmp gen failed: $(tail -n 1 "$WORK/gen-small.log")"
	"$XFERCMP" gen -q -w largefile --size "$SIZE" "$SRC_BIG" >"$WORK/gen-big.log" 2>&1 ||
		die 1 "xfercmp gen failed: $(tail -n 1 "$WORK/gen-big.log")"
	SMALL_BYTES=$(tree_bytes "$SRC_SMALL")
	BIG_BYTES=$(tree_bytes "$SRC_BIG")
}

section_raw() {
	generate_sources
	raw_intro
	raw_small
	raw_big
	raw_tmpfs
}

# ---------------------------------------------------------------- section strategies
# Every xfercmp strategy and every reference tool (the system's scp, rsync, tar | ssh,
# tar | nc), run by xfercmp itself so that all get the same cold source, fresh
# destination, flush to durable and verification. REPEAT rounds of all of them, one
# run each, so round k of every strategy runs before round k + 1 of any: a machine
# that gets busier halfway shifts all of them.

# iperf3_streams_bps STREAMS: as iperf3_bps, with -P STREAMS.
iperf3_streams_bps() {
	IPERF_STREAMS=$1 iperf3_bps
}

# round_list K: the strategies of round K, comma-separated.
round_list() {
	local i list=() n=${#ROUND_ORDER[@]}
	for ((i = 0; i < n; i++)); do
		if (($1 % 2)); then list+=("${ROUND_ORDER[i]}"); else list+=("${ROUND_ORDER[n - 1 - i]}"); fi
	done
	(IFS=,; echo "${list[*]}")
}

# strategy_rounds NAME ARGS...: REPEAT rounds of xfercmp ARGS -s (round_list K) against
# the testbed into $WORK/NAME.K.json.
strategy_rounds() {
	local name=$1 k
	shift
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		say "strategies: $name round $k of $REPEAT"
		attempt compare_all "$WORK/$name.$k.json" "$@" -s "$(round_list "$k")"
		[ "$RESULT" != failed ] || FAILED=1
	done
}

# strategy_medians NAME: one line per strategy over the rounds of NAME: strategy, kind
# (xfercmp or reference), median seconds, the rounds' seconds (comma-separated;
# "failed" or "skipped" for a round that did not verify), first error.
strategy_medians() {
	perl -MJSON::PP -e '
		my (%t, %err, @order, %seen, %ref);
		for my $file (@ARGV) {
			local $/; open(my $f, "<", $file) or next;
			my $d = eval { decode_json(<$f>) } or next;
			for my $r (@{ $d->{results} || [] }) {
				my $n = $r->{strategy};
				push @order, $n unless $seen{$n}++;
				$ref{$n} = $n =~ /^real-/ ? "reference" : "xfercmp";
				my $ok = $r->{status} eq "ok" && $r->{verified};
				push @{ $t{$n} }, $ok ? $r->{seconds} : $r->{status};
				if (!$ok && !defined $err{$n}) { my $e = $r->{error} // $r->{status}; $e =~ s/[\t\n|]/ /g; $err{$n} = $e }
			}
		}
		for my $n (@order) {
			my @v = sort { $a <=> $b } grep { /^[0-9.]/ } @{ $t{$n} };
			my $m = !@v ? "n/a" : @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
			printf "%s\t%s\t%s\t%s\t%s\n", $n, $ref{$n}, $m,
				join(",", map { /^[0-9.]/ ? sprintf("%.2f", $_) : $_ } @{ $t{$n} }), $err{$n} // "";
		}
	' "$@"
}

# within RATIO LO HI: "target met" when LO <= RATIO <= HI.
within() {
	awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 >= lo + 0 && r + 0 <= hi + 0) print "target met"; else print "target not met" }'
}

# keep_best TIME_VAR NAME_VAR SECONDS NAME: sets the two variables to SECONDS and NAME
# when SECONDS is a number below TIME_VAR's value (or TIME_VAR is n/a).
# shellcheck disable=SC2034 # best and best_name are namerefs to the caller's variables
keep_best() {
	local -n best=$1 best_name=$2
	[[ $3 =~ ^[0-9] ]] || return 0
	if [ "$best" = n/a ] || awk -v a="$3" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		best=$3
		best_name=$4
	fi
}

section_strategies() {
	local k load s1=() sn=() m1 mn disk=() m_disk line name kind med runs err
	local -A small_m=() small_runs=() small_err=() big_m=() big_runs=() big_err=() kind_of=()
	local names=() best_x_s=n/a best_x_sn="" best_r_s=n/a best_r_sn="" best_x_b=n/a best_x_bn=""
	local best_r_b=n/a best_r_bn="" streams
	streams=$(nproc)
	load=$(loadavg)
	say "strategies: iperf3, 1 and $streams streams, $REPEAT runs each"
	for ((k = 1; k <= REPEAT; k++)); do
		attempt iperf3_streams_bps 1
		s1+=("$RESULT")
		attempt iperf3_streams_bps "$streams"
		sn+=("$RESULT")
	done
	strategy_rounds small -w smallfiles --files "$FILES" --source-dir "$SRC_SMALL" --no-probes
	strategy_rounds big -w largefile --size "$SIZE" --source-dir "$SRC_BIG" --disk-probe-size "$SIZE"
	for ((k = 1; k <= REPEAT; k++)); do
		disk+=("$(json_get "$WORK/big.$k.json" ceilings.disk_write_bps)")
	done
	m1=$(median "${s1[@]}")
	mn=$(median "${sn[@]}")
	m_disk=$(median "${disk[@]}")

	while IFS=$'\t' read -r name kind med runs err; do
		names+=("$name")
		kind_of[$name]=$kind
		small_m[$name]=$med
		small_runs[$name]=$runs
		small_err[$name]=$err
	done < <(strategy_medians "$WORK"/small.*.json)
	while IFS=$'\t' read -r name kind med runs err; do
		[ -n "${kind_of[$name]:-}" ] || names+=("$name")
		kind_of[$name]=$kind
		big_m[$name]=$med
		big_runs[$name]=$runs
		big_err[$name]=$err
	done < <(strategy_medians "$WORK"/big.*.json)
	for name in "${names[@]}"; do
		if [ "${kind_of[$name]}" = xfercmp ]; then
			keep_best best_x_s best_x_sn "${small_m[$name]:-n/a}" "$name"
			keep_best best_x_b best_x_bn "${big_m[$name]:-n/a}" "$name"
		else
			keep_best best_r_s best_r_sn "${small_m[$name]:-n/a}" "$name"
			keep_best best_r_b best_r_bn "${big_m[$name]:-n/a}" "$name"
		fi
	done

	echo
	echo "## strategies: every xfercmp strategy and every reference tool (load average $load)"
	echo
	echo "\`xfercmp -F build/testbed/ssh_config -s LIST\` against the testbed, cold source,"
	echo "durable destination, every run verified; $REPEAT rounds (round k of every strategy"
	echo "before round k + 1 of any), medians. LIST is every strategy of \`-s all,real\`, each"
	echo "model next to the real tool it models, forwards in odd rounds and backwards in even"
	echo "ones: \`$(round_list 1)\`. The small files run with \`--no-probes\`; the"
	echo "large file's runs include the probes, whose \`disk_write_bps\` (sequential writes with"
	echo "write-behind and drop-behind, then fsync, on the destination's file system; \`--disk-probe-size $SIZE\`:"
	echo "as much as the file) is the durable-write ceiling. \"× best ref\" is the best reference"
	echo "tool's median time / this strategy's."
	echo
	echo "| network ceiling (iperf3 into the testbed, ${IPERF_SECONDS} s runs) | median Gbit/s | runs |"
	echo "|---|---:|---|"
	echo "| 1 stream | $(calc "%.2f" "a / 1e9" "$m1" 1) | $(for v in "${s1[@]}"; do calc "%.2f " "a / 1e9" "$v" 1; done)|"
	echo "| $streams streams | $(calc "%.2f" "a / 1e9" "$mn" 1) | $(for v in "${sn[@]}"; do calc "%.2f " "a / 1e9" "$v" 1; done)|"
	echo "| durable write ceiling (probe, MB/s) | $(calc "%.0f" "a / 1e6" "$m_disk" 1) MB/s | $(for v in "${disk[@]}"; do calc "%.0f " "a / 1e6" "$v" 1; done)|"
	echo
	echo "| strategy | kind | $FILES small files: median s | runs s | × best ref | one $SIZE file: median s | MB/s | runs s | × best ref |"
	echo "|---|---|---:|---|---:|---:|---:|---|---:|"
	for name in "${names[@]}"; do
		line="| $name | ${kind_of[$name]}"
		med=${small_m[$name]:-n/a}
		if [[ $med =~ ^[0-9] ]]; then
			line+=" | $(secs "$med") | ${small_runs[$name]} | $(calc "%.2f" "b / a" "$med" "$best_r_s")"
		else
			line+=" | ${small_err[$name]:-not run} | ${small_runs[$name]:-} | "
		fi
		med=${big_m[$name]:-n/a}
		if [[ $med =~ ^[0-9] ]]; then
			line+=" | $(secs "$med") | $(calc "%.1f" "b / a / 1e6" "$med" "$BIG_BYTES") | ${big_runs[$name]} | $(calc "%.2f" "b / a" "$med" "$best_r_b") |"
		else
			line+=" | ${big_err[$name]:-not run} | | ${big_runs[$name]:-} | |"
		fi
		echo "$line"
	done
	echo
	echo "| ratio | value | target | |"
	echo "|---|---:|---|---|"
	line=$(calc "%.2f" "b / a" "$best_x_s" "$best_r_s")
	echo "| small files: best reference ($best_r_sn) time / best xfercmp ($best_x_sn) time | $line | ≥ 2 | $(verdict "$line" 2) |"
	line=$(awk -v s="$best_x_b" -v n="$BIG_BYTES" -v d="$m_disk" 'BEGIN {
		if (s !~ /^[0-9.]/ || d !~ /^[0-9.]/ || s <= 0 || d <= 0) print "n/a"; else printf "%.2f", n / s / d }')
	echo "| large file: best xfercmp ($best_x_bn) MB/s / durable write ceiling MB/s | $line | ≥ 0.95 | $(verdict "$line" 0.95) |"
	line=$(calc "%.2f" "b / a" "$best_x_b" "$best_r_b")
	echo "| large file: fastest reference ($best_r_bn) time / best xfercmp ($best_x_bn) time | $line | > 1 (faster than every reference) | $(awk -v r="$line" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 > 1) print "target met"; else print "target not met" }') |"
	for pair in scp:real-scp scp:real-scp-legacy tar-ssh:real-tar-ssh zstd-ssh:real-tar-zstd-ssh; do
		local model=${pair%%:*} real=${pair#*:} target="0.85 – 1.15" v1 v2
		[ "$real" != real-scp-legacy ] || target="information (scp models SFTP scp)"
		v1=$(calc "%.2f" "a / b" "${small_m[$model]:-n/a}" "${small_m[$real]:-n/a}")
		v2=$(calc "%.2f" "a / b" "${big_m[$model]:-n/a}" "${big_m[$real]:-n/a}")
		if [ "$real" = real-scp-legacy ]; then
			echo "| fidelity, small files: $model time / $real time | $v1 | $target | |"
			echo "| fidelity, large file: $model time / $real time | $v2 | $target | |"
		else
			echo "| fidelity, small files: $model time / $real time | $v1 | $target | $(within "$v1" 0.85 1.15) |"
			echo "| fidelity, large file: $model time / $real time | $v2 | $target | $(within "$v2" 0.85 1.15) |"
		fi
	done
}

# ---------------------------------------------------------------- main

header
for section in "${SECTIONS[@]}"; do
	case $section in
	gen) section_gen ;;
	raw) section_raw ;;
	strategies)
		generate_sources
		section_strategies
		;;
	esac
done
echo
echo "Load average at the end: $(loadavg)."
[ "$FAILED" -eq 0 ] || { say "some timed commands failed: see the rows marked failed"; exit 1; }
exit 0
