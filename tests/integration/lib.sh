# shellcheck shell=bash
# Shared TAP helpers for the integration tests (sourced, not run).
# Each test calls `finish` last: it exits non-zero on failure, and prints the plan
# unless the test announced it first with `plan` (then it checks the count).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
xfercmp="${XFERCMP:-$top/xfercmp}"
n=0
failed=0
planned=""

# plan N: prints the plan up front, so a test that dies halfway shows as short
plan() {
	planned=$1
	echo "1..$planned"
}
# plan_root N: plan N, and every test skipped (the test exits 0) when not root
plan_root() {
	local i
	plan "$1"
	[ "$(id -u)" -eq 0 ] && return 0
	echo "# needs root; skipping"
	for ((i = 1; i <= planned; i++)); do echo "ok $i # SKIP not root"; done
	exit 0
}

# skip_all_unless_root: for a test that is all testbed and has no plan up front: when
# not root, the whole script is skipped (a plan of zero; tests/run.sh counts it as one
# skipped, and under CI=true as a failure) and it finishes here
skip_all_unless_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	echo "1..0 # SKIP needs root (the testbed makes a network namespace)"
	exit 0
}

ok() { # ok STATUS DESCRIPTION: STATUS 0 passes
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
diag() { sed 's/^/# /'; }
# run CMD...: runs CMD, keeps its exit status in $rc, stdout in $out, stderr in $err
# (the caller's $tmp holds the output while it runs)
# shellcheck disable=SC2154 # tmp is the caller's
run() {
	local o e
	o=$(mktemp "$tmp/out.XXXXXX")
	e=$(mktemp "$tmp/err.XXXXXX")
	"$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}
show() { # shows the last run's status and output as TAP diagnostics
	{ echo "exit status $rc"; echo "stdout:"; printf '%s\n' "$out"; echo "stderr:"; printf '%s\n' "$err"; } | diag
}
# ok_results DESCRIPTION ARGS...: one TAP line from the test's own `results_bad ARGS...`,
# which prints what is wrong with a run's results (nothing when all is well)
ok_results() {
	local desc=$1 bad
	shift
	bad=$(results_bad "$@" 2>&1)
	[ -z "$bad" ]
	ok $? "$desc"
	[ -z "$bad" ] || printf '%s\n' "$bad" | diag
}
check() { # check DESCRIPTION CMD...: passes if CMD exits 0
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	ok "$rc" "$desc"
	[ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -20 | diag
	return "$rc"
}
check_rc() { # check_rc WANT DESCRIPTION CMD...: passes if CMD exits with status WANT
	local want=$1 desc=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" -eq "$want" ]
	ok $? "$desc (exit $rc, want $want)"
	[ "$rc" -eq "$want" ] || printf '%s\n' "$out" | tail -20 | diag
	LAST_OUT=$out
}
# usage_errors: a table on stdin, a row a usage error of xfercmp, DESCRIPTION|PATTERN|
# ARGUMENTS (split on blanks); each row one test: exit 2, nothing on stdout, and one
# line on stderr, matching PATTERN (grep -E), that names the problem
usage_errors() {
	local desc pattern args argv out err rc lines e s
	e=$(mktemp) || return 1
	while IFS='|' read -r desc pattern args; do
		read -ra argv <<<"$args"
		out=$("$xfercmp" "${argv[@]}" </dev/null 2>"$e")
		rc=$?
		err=$(cat "$e")
		lines=$(grep -c . <<<"$err")
		[ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$lines" -eq 1 ] && grep -qE -- "$pattern" <<<"$err"
		s=$?
		ok "$s" "$desc: exit 2, one line naming the problem"
		[ "$s" -eq 0 ] || printf 'exit %s, stdout:\n%s\nstderr (%s lines, want one matching %s):\n%s\n' \
			"$rc" "$out" "$lines" "$pattern" "$err" | diag
	done
	rm -f "$e"
}
check_grep() { # check_grep DESCRIPTION PATTERN TEXT
	# a here-string, not a pipe: grep -q exits early and pipefail would see SIGPIPE
	grep -qE -- "$2" <<<"$3"
	local rc=$?
	ok "$rc" "$1"
	[ "$rc" -eq 0 ] || printf '%s\n' "$3" | tail -20 | diag
}
# wait_grep FILE PATTERN: waits up to 60 s for a line matching PATTERN in FILE
wait_grep() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# json_get FILE EXPR: a value from a JSON file (python3 is on every Debian with apt)
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"
}
# on_exit FUNCTION: runs FUNCTION when the test exits, also on INT, TERM and HUP
on_exit() {
	# shellcheck disable=SC2064 # the function's name, now
	trap "$1" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}
# private_client DIR: copies the client, and the agent beside it, into DIR/bin
# and sets xf to the copy: a rebuild while the test runs changes nothing here
private_client() {
	mkdir -p "$1/bin"
	cp "$xfercmp" "$1/bin/xfercmp" || { echo "Bail out! no client at $xfercmp"; exit 1; }
	if [ -f "$(dirname "$xfercmp")/xfercmp-agent" ]; then
		cp "$(dirname "$xfercmp")/xfercmp-agent" "$1/bin/"
	fi
	xf="$1/bin/xfercmp"
}
# ns_procs_with TEXT: pids in the testbed's namespace whose command line has TEXT
ns_procs_with() {
	local p c
	for p in $(ip netns pids xfercmp-host 2>/dev/null); do
		c=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
		[[ $c == *"$1"* ]] && echo "$p"
	done
}
# For the tests of the reference strategies (reference.t, parallel_tools.t); a test
# may define its own instead.
# results_bad JSON WANT_NAMES [SKIP...]: prints what is wrong: results other than
# WANT_NAMES (comma-separated, in order), a result not ok and verified with every
# byte, a SKIP one not skipped or skipped without a reason naming its program
# (SKIP items are NAME=PROGRAM); prints nothing when all is well
results_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2].split(",")
skip = dict(a.split("=", 1) for a in sys.argv[3:])
rs = d["results"]
names = [r["strategy"] for r in rs]
if names != want:
    print("results %s, want %s" % (names, want))
for r in rs:
    if r["strategy"] in skip:
        if r["status"] != "skipped" or skip[r["strategy"]] not in (r["error"] or ""):
            print("%s: status %s (%s), want skipped naming %s"
                  % (r["strategy"], r["status"], r["error"], skip[r["strategy"]]))
    elif (r["status"] != "ok" or r["verified"] is not True or r["bytes"] != d["workload"]["bytes"]
          or r["files"] != d["workload"]["files"]):
        print("%s: status %s, verified %s, bytes %s of %s, files %s of %s, error %s"
              % (r["strategy"], r["status"], r["verified"], r["bytes"], d["workload"]["bytes"],
                 r["files"], d["workload"]["files"], r["error"]))
EOF
}
# seconds JSON: "name 1.23s" for each result, for the log
seconds() {
	json_get "$1" "' '.join('%s %.2fs' % (r['strategy'], r['seconds'] or 0) for r in d['results'])" 2>/dev/null
}
# own_work NAME: a work directory ($work, removed at exit, and the testbed taken down
# then if testbed_part brought it up), the scratch beneath it, and a private client ($xf)
own_work() {
	work=$(mktemp -d "/var/tmp/xfercmp-$1.XXXXXX") || exit 1
	export XFERCMP_SCRATCH="$work/scratch"
	mkdir -p "$XFERCMP_SCRATCH"
	private_client "$work"
	on_exit own_work_cleanup
}
own_work_cleanup() {
	[ -n "${tb_up:-}" ] && "${tb:-$top/scripts/testbed.sh}" down >/dev/null 2>&1
	rm -rf "$work"
}
# testbed_part DESCRIPTION...: starts the part of a test that needs the testbed: when not
# root, each DESCRIPTION is a skipped test and the test finishes here; else the testbed
# comes up (tb_up=1: the test's cleanup takes it down) or the test bails out
testbed_part() {
	local d up_out
	if [ "$(id -u)" -ne 0 ]; then
		for d in "$@"; do n=$((n + 1)); echo "ok $n # SKIP $d: needs root"; done
		finish
	fi
	if ! up_out=$("${tb:-$top/scripts/testbed.sh}" up 2>&1); then
		diag <<<"$up_out"
		echo "Bail out! testbed.sh up failed"
		exit 1
	fi
	# shellcheck disable=SC2034 # read by the test's cleanup
	tb_up=1
}
ensure_testbed() {
	echo "# $1, at ${SECONDS} s"
	"${tb:-$top/scripts/testbed.sh}" status >/dev/null 2>&1 && return 0
	echo "# the testbed was down before $1 (did another test take it down?): bringing it up again"
	"${tb:-$top/scripts/testbed.sh}" up 2>&1 | diag
}
# path_without DIR PROGRAM...: fills DIR with links to every program of this system
# but the PROGRAMs, for a PATH=DIR that lacks them (the first of a name in PATH's
# order, as a shell would find it). One ln for them all: one each (some 1,600) took
# 92 s of a loaded 2-vCPU machine.
path_without() {
	local dir=$1 f b p
	local -A taken=()
	local links=()
	shift
	for p in "$@"; do taken[$p]=1; done
	mkdir -p "$dir"
	for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
		b=${f##*/}
		[ -z "${taken[$b]:-}" ] && [ -x "$f" ] && [ ! -e "$dir/$b" ] || continue
		taken[$b]=1
		links+=("$f")
	done
	[ ${#links[@]} -eq 0 ] || ln -s -t "$dir" -- "${links[@]}"
}
# make_test_user USER HOME: makes USER with HOME (emptied of nothing; made if missing),
# able to log in to the testbed with its key ($tbdir, $cfg: the test's), with its own
# HOME/ssh_config; defines as_user CMD... to run as it. Bails out when useradd fails.
make_test_user() {
	local u=$1 h=$2
	userdel "$u" >/dev/null 2>&1
	useradd -M -d "$h" -s /bin/sh "$u" || { echo "Bail out! useradd $u failed"; exit 1; }
	# useradd leaves the password '!' (locked): sshd without PAM refuses a locked account
	# even for a key, so unlock it with no password ('*': no password can match)
	usermod -p '*' "$u"
	mkdir -p "$h"
	cp "$tbdir/id_ed25519" "$h/key"
	cp "$tbdir/known_hosts" "$h/known_hosts"
	sed -e "s|^\( *User\) .*|\1 $u|" -e "s|^\( *IdentityFile\) .*|\1 $h/key|" \
		-e "s|^\( *UserKnownHostsFile\) .*|\1 $h/known_hosts|" "$cfg" >"$h/ssh_config"
	chown -R "$u:" "$h"
	chmod 700 "$h"
	chmod 600 "$h/key"
	eval "as_user() { runuser -u '$u' -- env HOME='$h' \"\$@\"; }"
}
# user_test_work NAME CLEANUP: for a test that makes a user (make_test_user): $work in
# /var/tmp, 0755 so that user reaches its home in it; CLEANUP run at exit (on_exit); and
# a private client ($xf) the user may run
user_test_work() {
	work=$(mktemp -d "/var/tmp/xfercmp-$1.XXXXXX") || exit 1
	chmod 755 "$work"
	on_exit "$2"
	private_client "$work"
	chmod -R a+rX "$work/bin"
}
# drop_test_user USER: the end of such a test: the testbed ($tb) down, USER's processes
# killed and USER deleted, $work removed (0000 directories in it included)
drop_test_user() {
	"$tb" down >/dev/null 2>&1
	pkill -KILL -u "$1" 2>/dev/null
	userdel "$1" >/dev/null 2>&1
	chmod -R u+rwx "$work" 2>/dev/null
	rm -rf "$work"
}
# until_empty TRIES PAUSE CMD...: runs CMD up to TRIES times, PAUSE seconds apart, until
# it prints nothing (0); $left holds what it printed last
until_empty() {
	local tries=$1 pause=$2 i
	shift 2
	for ((i = 0; i < tries; i++)); do
		left=$("$@")
		[ -z "$left" ] && return 0
		sleep "$pause"
	done
	return 1
}
finish() {
	if [ -z "$planned" ]; then
		echo "1..$n"
	elif [ "$n" -ne "$planned" ]; then
		echo "# planned $planned tests but ran $n"
		exit 1
	fi
	[ "$failed" -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
	exit 0
}
