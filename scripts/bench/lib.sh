# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt and the EXIT trap
# The shared steps of scripts/bench.sh (sourced, not run): cleanup and the background
# processes it stops, the testbed's namespace and the servers started in it, the
# statistics, the JSON reading and the markdown tables. Sourcing it only defines things;
# bench_start makes the work directory and sets the traps. scripts/bench/selftest.sh
# exercises the pure helpers.

# sourced once, however many section files source it too
[ -z "${BENCH_LIB:-}" ] || return 0
readonly BENCH_LIB=1

readonly NS=xfercmp-host
readonly HOST_ADDR=198.18.0.2
readonly PORT_FIRST=5300 PORT_LAST=5399
# Upper bound on any one timed command or wait, seconds.
readonly LIMIT=3600
readonly IPERF_SECONDS=5
# Runs of one timed command when the shared testbed goes away under it.
readonly ATTEMPTS=3

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
readonly TOP=$top
# xfercmp (not readonly: the selftest stands in for it)
XFERCMP=$TOP/xfercmp
# the testbed's script (not readonly: the selftest stands in for it)
TESTBED_SH=$TOP/scripts/testbed.sh
readonly SSH_CONFIG=$TOP/build/testbed/ssh_config
readonly SSHD_PID_FILE=$TOP/build/testbed/sshd.pid

die() {
	local code=$1
	shift
	echo "bench: $*" >&2
	exit "$code"
}
say() { echo "bench: $*" >&2; }

# ---------------------------------------------------------------- state and cleanup

WORK=""
SHM_TAR=""
CLEANUP_PATHS=()	# more files and directories a section made outside WORK, removed on exit
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

# bench_start: makes WORK, the one directory under /var/tmp everything lives in, and
# sets the traps that remove it (and all else this run made) on exit.
bench_start() {
	WORK=$(mktemp -d /var/tmp/xfercmp-bench.XXXXXX)
	readonly WORK
	trap cleanup EXIT
	trap 'say "interrupted (SIGINT)"; exit 130' INT
	trap 'say "terminated (SIGTERM)"; exit 143' TERM
	trap 'say "hung up (SIGHUP)"; exit 129' HUP
}

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
	[ "${#CLEANUP_PATHS[@]}" -eq 0 ] || rm -rf "${CLEANUP_PATHS[@]}"
	[ -z "$WORK" ] || rm -rf "$WORK"
	if [ "$BROUGHT_UP" -eq 1 ]; then
		if testbed_in_use; then
			say "testbed: left up, someone else has processes in it"
		else
			"$TOP/scripts/testbed.sh" down >&2
		fi
	fi
	exit "$rc"
}

# ---------------------------------------------------------------- background processes

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
# calc_list FORMAT EXPR V...: calc FORMAT EXPR V 1 of each V, space-separated.
calc_list() {
	local f=$1 e=$2 v out=()
	shift 2
	for v in "$@"; do out+=("$(calc "$f" "$e" "$v" 1)"); done
	echo "${out[*]}"
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

# exceeds RATIO TARGET: "met" when RATIO > TARGET.
exceeds() {
	awk -v r="$1" -v t="$2" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 > t + 0) print "target met"; else print "target not met" }'
}

# within RATIO LO HI: "target met" when LO <= RATIO <= HI.
within() {
	awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (r !~ /^[0-9.]/) print "n/a"; else if (r + 0 >= lo + 0 && r + 0 <= hi + 0) print "target met"; else print "target not met" }'
}

# keep_best TIME_VAR NAME_VAR SECONDS NAME: sets the two variables to SECONDS and NAME
# when SECONDS is a number below TIME_VAR's value (or TIME_VAR is n/a).
# shellcheck disable=SC2034 # kb_time and kb_name are namerefs to the caller's variables
keep_best() {
	local -n kb_time=$1 kb_name=$2
	[[ $3 =~ ^[0-9] ]] || return 0
	if [ "$kb_time" = n/a ] || awk -v a="$3" -v b="$kb_time" 'BEGIN { exit !(a < b) }'; then
		kb_time=$3
		kb_name=$4
	fi
}

# ---------------------------------------------------------------- JSON

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

# keep_json JSON: BENCH_KEEP_JSON=DIR keeps a run's JSON (the ceilings and forecasts behind
# a ratio) past the run, in DIR (made when missing).
keep_json() {
	[ -n "${BENCH_KEEP_JSON:-}" ] && [ -e "$1" ] || return 0
	if ! { mkdir -p "$BENCH_KEEP_JSON" && cp "$1" "$BENCH_KEEP_JSON/"; }; then
		say "BENCH_KEEP_JSON: cannot keep $1 in $BENCH_KEEP_JSON"
	fi
}

# probed_link JSON: the link the run's probes measured, "0.93 Gbit/s, 2017 µs".
probed_link() {
	local bps rtt
	bps=$(json_get "$1" ceilings.network_1_stream_bits_per_s)
	rtt=$(json_get "$1" ceilings.rtt_p50_seconds)
	echo "$(calc "%.2f" "a / 1e9" "$bps" 1) Gbit/s, $(calc "%.0f" "a * 1e6" "$rtt" 1) µs"
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

# strategy_medians FILE...: one line per strategy over the rounds in the xfercmp --json
# FILEs, in the order of first appearance: strategy, median seconds, the rounds' seconds
# (comma-separated; "failed" or "skipped" for a round that did not verify), first error.
strategy_medians() {
	perl -MJSON::PP -e '
		my (%t, %err, @order, %seen);
		for my $file (@ARGV) {
			local $/; open(my $f, "<", $file) or next;
			my $d = eval { decode_json(<$f>) } or next;
			for my $r (@{ $d->{results} || [] }) {
				my $n = $r->{strategy};
				push @order, $n unless $seen{$n}++;
				my $ok = $r->{status} eq "ok" && $r->{verified};
				push @{ $t{$n} }, $ok ? $r->{seconds} : $r->{status};
				if (!$ok && !defined $err{$n}) { my $e = $r->{error} // $r->{status}; $e =~ s/[\t\n|]/ /g; $err{$n} = $e }
			}
		}
		for my $n (@order) {
			my @v = sort { $a <=> $b } grep { /^[0-9.]/ } @{ $t{$n} };
			my $m = !@v ? "n/a" : @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
			printf "%s\t%s\t%s\t%s\n", $n, $m,
				join(",", map { /^[0-9.]/ ? sprintf("%.2f", $_) : $_ } @{ $t{$n} }), $err{$n} // "";
		}
	' "$@"
}

# ---------------------------------------------------------------- markdown tables

# md_row CELL...: one table row, "| a | b |"; an empty cell is written "| |".
md_row() {
	local line="|" c
	for c in "$@"; do
		if [ -n "$c" ]; then line+=" $c |"; else line+=" |"; fi
	done
	printf '%s\n' "$line"
}

# md_head ALIGN CELL...: a table's header row and its rule; ALIGN has one letter per
# column, l (left) or r (right).
md_head() {
	local align=$1 rule="|" i
	shift
	md_row "$@"
	for ((i = 0; i < ${#align}; i++)); do
		case ${align:i:1} in r) rule+="---:|" ;; *) rule+="---|" ;; esac
	done
	printf '%s\n' "$rule"
}

# md_ratios: the header of a table of ratios against their targets.
md_ratios() { md_head lrll ratio value target ""; }

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

# ---------------------------------------------------------------- the testbed's namespace

testbed_up() { "$TESTBED_SH" status >/dev/null 2>&1; }

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

# testbed_shape ARGS...: `testbed.sh up ARGS` (a rate, a delay, or neither: unshaped). When the
# testbed was down before, it is this run's to take down at the end (BROUGHT_UP): the truth
# section once left it up, and a fresh clone's make check run right after could not start its
# own testbed's sshd ("Bind to port 22 on 198.18.0.2 failed: Address already in use").
testbed_shape() {
	testbed_up || BROUGHT_UP=1
	"$TESTBED_SH" up "$@" >&2
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

# server_start WHAT LOG READY TRIES CMD...: runs CMD in the namespace under timeout LIMIT
# (bg_start, output to LOG) and polls every 0.05 s, at most TRIES times, until READY
# holds: "port:P" (port P listens in the namespace) or "log:RE" (a line of LOG matches
# the grep pattern RE). Returns 0 once it does, with SERVER_PID set; the caller then
# waits for the server (watch, bg_wait). When CMD exits first or the tries run out, says
# "WHAT: " and LOG's last two lines, stops and reaps CMD, sets FAILED and returns 1.
server_start() {
	local what=$1 log=$2 ready=$3 tries=$4 pid i
	shift 4
	bg_start "$log" ip netns exec "$NS" timeout "$LIMIT" "$@"
	pid=$BG_PID
	for ((i = 0; i < tries; i++)); do
		case $ready in
		port:*) ! listening "${ready#port:}" || { SERVER_PID=$pid; return 0; } ;;
		log:*) ! grep -q -- "${ready#log:}" "$log" 2>/dev/null || { SERVER_PID=$pid; return 0; } ;;
		*) die 1 "server_start: bad READY '$ready'" ;;
		esac
		proc_running "$pid" || break
		sleep 0.05
	done
	say "$what: $(tail -n 2 "$log")"
	stop_group "$pid"
	bg_wait "$pid" || true
	FAILED=1
	return 1
}

# ---------------------------------------------------------------- timed runs

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
	server_start "iperf3 server did not start" "$WORK/iperf3-server.log" "port:$port" 200 \
		iperf3 -s -1 -B "$HOST_ADDR" -p "$port" || return 0
	pid=$SERVER_PID
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
	# shellcheck disable=SC2034 # read by the sections
	SMALL_BYTES=$(tree_bytes "$SRC_SMALL")
	# shellcheck disable=SC2034 # read by the sections
	BIG_BYTES=$(tree_bytes "$SRC_BIG")
}

# ---------------------------------------------------------------- the strategies, from xfercmp

# The bench's own information rows, MODEL:REAL:NOTE, beside the fidelity rows that
# --list-strategies gives: shown with NOTE and no target, MODEL run next to REAL. scp
# models OpenSSH's SFTP-based scp, not the legacy SCP protocol; the row shows how far
# apart the two are.
readonly INFO_PAIRS=("scp:real-scp-legacy:scp models SFTP scp")

# Set by strategies_parse. Every strategy, each model next to the real tool it models: a
# run pays for what the one before it left behind on this VM (dirty data, memory handed
# back to the hypervisor), so a fidelity ratio compares neighbours.
declare -A STRATEGY_KIND=()
ROUND_ORDER=()
PAIRS=()

# strategies_parse: reads `xfercmp --list-strategies` on stdin (one line per strategy in
# table order: NAME, own or reference, and the reference NAME models or "-", tab-separated)
# and sets STRATEGY_KIND (name -> xfercmp or reference), ROUND_ORDER (every strategy,
# each own one followed by the reference it models and then by those of INFO_PAIRS, then
# the references left, in table order) and PAIRS (model, real, note: "" for a fidelity
# row, else INFO_PAIRS' note; tab-separated, in ROUND_ORDER's order). Dies with exit 2 on
# text it does not understand.
strategies_parse() {
	local line name kind models extra real note info own=() refs=() n=0
	local -A model_of=() placed=()
	STRATEGY_KIND=()
	ROUND_ORDER=()
	PAIRS=()
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		IFS=$'\t' read -r name kind models extra <<<"$line" || true
		if ! [[ $name =~ ^[a-z][a-z0-9-]*$ && ${models:-} =~ ^(-|[a-z][a-z0-9-]*)$ ]] ||
			[ -n "${extra:-}" ] || [ -n "${STRATEGY_KIND[$name]:-}" ]; then
			die 2 "xfercmp --list-strategies, line $n: expected NAME<TAB>own|reference<TAB>MODELS or -, got '$line'"
		fi
		case $kind in
		own) STRATEGY_KIND[$name]=xfercmp; own+=("$name"); model_of[$name]=$models ;;
		reference) STRATEGY_KIND[$name]=reference; refs+=("$name") ;;
		*) die 2 "xfercmp --list-strategies, line $n: kind '$kind' is neither own nor reference" ;;
		esac
	done
	[ "${#own[@]}" -gt 0 ] || die 2 "xfercmp --list-strategies lists no strategy of its own"
	for name in "${own[@]}"; do
		real=${model_of[$name]}
		[ "$real" = - ] || [ "${STRATEGY_KIND[$real]:-}" = reference ] ||
			die 2 "xfercmp --list-strategies: $name models '$real', which is no reference strategy"
	done
	for name in "${own[@]}"; do
		ROUND_ORDER+=("$name")
		real=${model_of[$name]}
		if [ "$real" != - ]; then
			PAIRS+=("$name"$'\t'"$real"$'\t')
			[ -n "${placed[$real]:-}" ] || { ROUND_ORDER+=("$real"); placed[$real]=1; }
		fi
		for info in "${INFO_PAIRS[@]}"; do
			[ "${info%%:*}" = "$name" ] || continue
			real=${info#*:}
			note=${real#*:}
			real=${real%%:*}
			# a pair xfercmp does not list (or lists as a model already) is left out
			if [ "${STRATEGY_KIND[$real]:-}" != reference ] || [ "$real" = "${model_of[$name]}" ]; then
				continue
			fi
			PAIRS+=("$name"$'\t'"$real"$'\t'"$note")
			[ -n "${placed[$real]:-}" ] || { ROUND_ORDER+=("$real"); placed[$real]=1; }
		done
	done
	for name in "${refs[@]}"; do
		[ -n "${placed[$name]:-}" ] || ROUND_ORDER+=("$name")
	done
}

# strategies_load: strategies_parse of this xfercmp's --list-strategies; exit 2 when it
# has no such option (the bench does not guess which strategy models which).
strategies_load() {
	local list
	list=$("$XFERCMP" --list-strategies 2>/dev/null) ||
		die 2 "$XFERCMP has no --list-strategies (the bench reads the strategies and their models from it): rebuild it with make"
	strategies_parse <<<"$list"
}

# round_list K: the strategies of round K, comma-separated: ROUND_ORDER forwards in odd
# rounds, backwards in even ones, so no strategy always runs first or last.
round_list() {
	local i list=() n=${#ROUND_ORDER[@]}
	for ((i = 0; i < n; i++)); do
		if (($1 % 2)); then list+=("${ROUND_ORDER[i]}"); else list+=("${ROUND_ORDER[n - 1 - i]}"); fi
	done
	(IFS=,; echo "${list[*]}")
}
