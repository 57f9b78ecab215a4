#!/usr/bin/env bash
# The comparison against the testbed host over SSH, with nothing installed there
# by hand: the agent is uploaded once and then re-used, every strategy runs and
# verifies on small files, a large file and a mixed tree; the host key policy
# (unknown, accepted, changed); a wrong identity; a host without zstd (a second
# sshd whose PATH has no zstd); a client killed or interrupted mid-transfer
# leaves nothing on the host; a --remote-dir holding someone else's data is
# refused and left alone; a refused port fails fast.
# The testbed shares our file system, so the host's ~/.cache and /var/tmp are
# ours and are checked directly. Needs root. Only ever talks to 198.18.0.2.
#
#   bash tests/integration/compare_ssh.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
cfg="$tbdir/ssh_config"
ns=xfercmp-host
user=$(id -un)

skip_all_unless_root

work=$(mktemp -d /var/tmp/xfercmp-compare-ssh.XXXXXX) || exit 1
killdir="/var/tmp/xfercmp-killtest-$$"
client_pid=
# Whatever happens, leave nothing running and nothing behind: the test's own
# client and second sshd, the scratch, and the testbed (down kills whatever
# still runs in the namespace).
cleanup() {
	local pid
	[ -n "$client_pid" ] && kill -KILL "$client_pid" 2>/dev/null
	if [ -r "$work/sshd2.pid" ] && read -r pid <"$work/sshd2.pid"; then
		kill -TERM "$pid" 2>/dev/null
	fi
	"$tb" down >/dev/null 2>&1
	rm -rf "$work" "$killdir"
}
on_exit cleanup

# A private copy of the client and of the agent beside it: a rebuild in the tree
# while this runs must not change the agent under the upload checks. (An asan
# build has no agent beside it and uploads itself.)
mkdir -p "$work/bin"
cp "$xfercmp" "$work/bin/xfercmp" || { echo "Bail out! no client at $xfercmp"; exit 1; }
agent_local="$(dirname "$xfercmp")/xfercmp-agent"
if [ -f "$agent_local" ]; then
	cp "$agent_local" "$work/bin/xfercmp-agent"
	agent_local="$work/bin/xfercmp-agent"
else
	agent_local="$work/bin/xfercmp"
fi
xf="$work/bin/xfercmp"

# config_with FILE OPTION VALUE...: the testbed's ssh config with options replaced
config_with() {
	local out=$1 script=()
	shift
	while [ $# -ge 2 ]; do
		script+=(-e "s|^\( *$1\) .*|\1 $2|")
		shift 2
	done
	sed "${script[@]}" "$cfg" >"$out"
}
# results_bad JSON [SKIP...]: prints each result that is not ok and verified with
# every byte of the workload (strategies named in SKIP must be skipped instead),
# and the number of results if it is not 6 (-s all); prints nothing when all is well
results_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
skip = set(sys.argv[2:])
want_bytes = d["workload"]["bytes"]
rs = d["results"]
if len(rs) != 6:
    print("%d results, want 6: %s" % (len(rs), [r["strategy"] for r in rs]))
for r in rs:
    if r["strategy"] in skip:
        if r["status"] != "skipped":
            print("%s: status %s, want skipped" % (r["strategy"], r["status"]))
    elif r["status"] != "ok" or r["verified"] is not True or r["bytes"] != want_bytes:
        print("%s: status %s, verified %s, bytes %s of %s, error %s"
              % (r["strategy"], r["status"], r["verified"], r["bytes"], want_bytes, r["error"]))
EOF
}
# ok_gone DESCRIPTION JSON: the agent's scratch root named in the JSON is gone
ok_gone() {
	local root
	root=$(json_get "$2" "d['agent']['root']" 2>/dev/null)
	[ -n "$root" ] && [ ! -e "$root" ]
	ok $? "$1 (${root:-no root in the JSON})"
}
# The testbed is shared: another test's `testbed.sh down` (at its exit) can take
# it away between our sections. Bring it back (up is idempotent) and say so.
# (It also stamps the log with the time so far: this test runs for minutes.)
ensure_testbed() {
	echo "# $1, at ${SECONDS} s"
	"$tb" status >/dev/null 2>&1 && return 0
	echo "# the testbed was down before $1 (did another test take it down?): bringing it up again"
	"$tb" up 2>&1 | diag
}
# (~/.cache is shared by every user of this machine: a run by someone else
# against the testbed with another build replaces the cached agent)
ok_or_show_agents() { # ok_or_show_agents STATUS DESCRIPTION
	ok "$1" "$2"
	[ "$1" -eq 0 ] || stat -c '%n: inode %i, %s bytes, mtime %y' "$agent_local" "$HOME"/.cache/xfercmp/* 2>&1 | diag
}
# the cached copy of our agent: the name carries its content hash, so other
# builds' agents may sit beside it (another run on this machine) but only an
# identical file can have this one's name
cached_agent() {
	local f
	for f in "$HOME"/.cache/xfercmp/xfercmp-agent-*; do
		[ -f "$f" ] && cmp -s "$f" "$agent_local" && echo "$f"
	done
}
now_ms() { date +%s%3N; }

if ! out=$("$tb" up 2>&1); then
	printf '%s\n' "$out" | diag
	echo "Bail out! testbed.sh up failed"
	exit 1
fi
if ! "$tb" status >/dev/null 2>&1; then
	echo "Bail out! testbed is not up"
	exit 1
fi
# the upload is only exercised on a host without a matching xfercmp in its PATH
if ssh -F "$cfg" testbed 'command -v xfercmp' </dev/null >/dev/null 2>&1; then
	echo "# the testbed host has an xfercmp in its PATH: the upload checks will fail"
fi

# ---------------------------------------------------------------- 1. bootstrap
ensure_testbed "the bootstrap runs"
# (the first run as a user would run it, probes and all; the others without
# the probes, which take most of a run's time on a busy machine)
rm -rf "$HOME/.cache/xfercmp"
# left loose by an older run (or a umask): the client makes it 0700 before it trusts it
mkdir -p "$HOME/.cache/xfercmp" && chmod 0755 "$HOME/.cache/xfercmp"
json="$work/small.json"
check_rc 0 "bootstrap: smallfiles (2000 files), every strategy, nothing installed" \
	"$xf" -F "$cfg" -v -w smallfiles --files 2000 -s all --json "$json" testbed
check_grep "bootstrap: the client says it uploaded the agent" "uploaded the agent to testbed:" "$LAST_OUT"
ok_results "bootstrap: smallfiles: every strategy ok and verified" "$json"
# a generated workload may go in clear, and the report says once which strategies did
notes=$(grep -c "^sent unencrypted over TCP" <<<"$LAST_OUT")
[ "$notes" -eq 1 ]
ok $? "bootstrap: the report says once that data went unencrypted over TCP (seen $notes)"
check_grep "bootstrap: the note names the raw strategies, and says the SSH ones encrypt" \
	"sent unencrypted over TCP \(readable on the way\): splice, zstd, parallel; the SSH strategies encrypt" \
	"$(tr '\n' ' ' <<<"$LAST_OUT" | sed 's/  */ /g')"
clear=$(json_get "$json" "','.join(r['strategy'] for r in d['results'] if r['cleartext'])")
[ "$clear" = "splice,zstd,parallel" ]
ok $? "bootstrap: the JSON marks those three cleartext, no other ($clear)"
ok_gone "bootstrap: smallfiles: the agent removed its scratch root" "$json"
cached=$(cached_agent)
[ "$(wc -w <<<"$cached")" -eq 1 ] && [ -x "$cached" ] && cmp -s "$cached" "$agent_local"
ok_or_show_agents $? "bootstrap: ~/.cache/xfercmp holds the agent, executable and identical to ours (${cached:-none})"
stamp=$(stat -c '%i %s %y' "$cached" 2>/dev/null)
mode=$(stat -c %a "$HOME/.cache/xfercmp")
[ "$mode" = 700 ]
ok $? "bootstrap: the loose ~/.cache/xfercmp was made 0700 (now $mode; the old client used it as it was)"

json="$work/large.json"
check_rc 0 "bootstrap: largefile (200M), every strategy" \
	"$xf" -F "$cfg" -v --no-probes -w largefile --size 200M -s all --json "$json" testbed
! grep -q "uploaded the agent" <<<"$LAST_OUT"
ok $? "bootstrap: second run: the client does not upload again"
now=$(stat -c '%i %s %y' "$cached" 2>/dev/null)
[ -n "$stamp" ] && [ "$stamp" = "$now" ]
ok_or_show_agents $? "bootstrap: second run: the cached agent is the same file, same mtime ($now)"
ok_results "bootstrap: largefile: every strategy ok and verified" "$json"
ok_gone "bootstrap: largefile: the agent removed its scratch root" "$json"

# The keyed hashes of a raw strategy's large file read the source with
# drop-behind: read cold without it, fresh page-cache pages cost a host fault
# each on the VMs this runs on (4 GiB: 15.5 s of verify, 8.8 s with it).
# Nothing else reads the source after splice's run, so what is left of it in
# the page cache is what those hashes left.
check_rc 0 "largefile (64M) through splice, its source kept" \
	"$xf" -F "$cfg" --no-probes -w largefile --size 64M --source-dir "$work/src64" -s splice testbed
resident=$(fincore --bytes --noheadings --output RES "$work/src64/large.bin" 2>/dev/null)
[ -n "$resident" ] && [ "$resident" -le $((8 << 20)) ]
ok $? "the verify's keyed hashes left at most 8 MiB of the 64 MiB source in the page cache (${resident:-?} bytes)"

# the tree removed, its manifest left beside it: generated again, not "reused"
rm -rf "$work/src64"
check_rc 0 "a --source-dir removed after a run, its manifest left: the run generates it again" \
	"$xf" -F "$cfg" --no-probes -w largefile --size 64M --source-dir "$work/src64" -s splice testbed
[ "$(stat -c %s "$work/src64/large.bin" 2>/dev/null)" = $((64 << 20)) ]
ok $? "the source is there again, whole"

json="$work/mixed.json"
check_rc 0 "bootstrap: mixed (500 files, 64M), every strategy" \
	"$xf" -F "$cfg" --no-probes -w mixed --files 500 --size 64M -s all --json "$json" testbed
ok_results "bootstrap: mixed: every strategy ok and verified" "$json"
ok_gone "bootstrap: mixed: the agent removed its scratch root" "$json"
now=$(stat -c '%i %s %y' "$cached" 2>/dev/null)
[ "$(cached_agent)" = "$cached" ] && [ "$stamp" = "$now" ]
ok_or_show_agents $? "bootstrap: third run: still the same cached agent, unchanged"

# an altered agent of the same size in the cache (here a script that would leave a file
# behind): the host's sha256sum tells it apart; it is replaced, never started
size=$(stat -c %s "$cached")
{ printf '#!/bin/sh\ntouch %s/pwned\nexit 1\n' "$work"; head -c "$size" /dev/zero; } |
	head -c "$size" >"$cached"
chmod 0700 "$cached"
check_rc 0 "an altered cached agent of the same size: the run still works" \
	"$xf" -F "$cfg" -v --no-probes -w smallfiles --files 50 -s splice testbed
check_grep "the altered agent was replaced by an upload" "uploaded the agent to testbed:" "$LAST_OUT"
[ ! -e "$work/pwned" ] && cmp -s "$cached" "$agent_local"
ok_or_show_agents $? "the altered agent never ran, and the cache holds ours again"
# older agents pile up no more: the newest few are kept, ours among them
for i in 1 2 3 4 5; do
	old="$HOME/.cache/xfercmp/xfercmp-agent-0.0.$i-p1-000000000000000$i"
	echo old >"$old" && touch -d "2020-01-0$i" "$old"
done
touch -d "2020-01-01" "$HOME/.cache/xfercmp/xfercmp-agent-0.0.9-p1-x.tmp4242"
rm -f "$cached"
check_rc 0 "a run that uploads prunes the cache" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 50 -s splice testbed
left=$(find "$HOME/.cache/xfercmp" -name 'xfercmp-agent-*' | wc -l)
[ "$left" -le 3 ] && [ -n "$(cached_agent)" ] && [ ! -e "$HOME/.cache/xfercmp/xfercmp-agent-0.0.1-p1-0000000000000001" ] &&
	[ ! -e "$HOME/.cache/xfercmp/xfercmp-agent-0.0.9-p1-x.tmp4242" ]
ok_or_show_agents $? "the cache keeps at most 3 agents ($left), ours among them; the oldest and a stale upload are gone"
cached=$(cached_agent)

# ---------------------------------------------------------------- 2. host key policy
ensure_testbed "the host key checks"
small=(-w smallfiles --files 20 --no-probes -s splice)
: >"$work/known_empty"
config_with "$work/cfg_unknown" UserKnownHostsFile "$work/known_empty"
check_rc 1 "host key: unknown key refused" "$xf" -F "$work/cfg_unknown" "${small[@]}" testbed
check_grep "host key: says it is not known, names the file, tells how to accept it" \
	"not known.*$work/known_empty.*--accept-new-hostkey" "$LAST_OUT"
check_rc 0 "host key: --accept-new-hostkey runs" \
	"$xf" -F "$work/cfg_unknown" --accept-new-hostkey "${small[@]}" testbed
read -r _ host_key _ <"$tbdir/ssh_host_ed25519_key.pub"
grep -Fx "198.18.0.2 ssh-ed25519 $host_key" "$work/known_empty" >/dev/null
ok $? "host key: --accept-new-hostkey added the host key to that known_hosts file"

ssh-keygen -q -t ed25519 -N '' -C throwaway -f "$work/other_key" </dev/null >/dev/null
read -r other_type other_key _ <"$work/other_key.pub"
printf '198.18.0.2 %s %s\n' "$other_type" "$other_key" >"$work/known_changed"
before=$(sha256sum <"$work/known_changed")
config_with "$work/cfg_changed" UserKnownHostsFile "$work/known_changed"
check_rc 1 "host key: a changed key is refused, even with --accept-new-hostkey" \
	"$xf" -F "$work/cfg_changed" --accept-new-hostkey "${small[@]}" testbed
check_grep "host key: says it changed and names the known_hosts file" \
	"has changed.*$work/known_changed" "$LAST_OUT"
[ "$before" = "$(sha256sum <"$work/known_changed")" ]
ok $? "host key: the known_hosts file with the other key is unchanged"

# ---------------------------------------------------------------- 3. wrong identity
ensure_testbed "the identity check"
# (no ssh agent: one holding the testbed's key would log us in)
config_with "$work/cfg_wrong_id" IdentityFile "$work/other_key"
check_rc 1 "wrong identity refused" env -u SSH_AUTH_SOCK "$xf" -F "$work/cfg_wrong_id" "${small[@]}" testbed
check_grep "wrong identity: authentication failed for user@host, names the key" \
	"authentication failed for $user@198\.18\.0\.2.*$work/other_key" "$LAST_OUT"

# ---------------------------------------------------------------- 4. a host without zstd
ensure_testbed "the no-zstd host"
# A second sshd in the namespace, port 2222, whose sessions get a PATH holding
# every program of this system except zstd and rsync (the host's shell start-up
# files may call any of them; nothing the remote side runs is left out but those).
mkdir -p "$work/nozstd-bin"
for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
	b=${f##*/}
	case $b in *zstd* | rsync | xfercmp*) continue ;; esac
	[ -x "$f" ] && [ ! -e "$work/nozstd-bin/$b" ] && ln -s "$f" "$work/nozstd-bin/$b"
done
sed -e "s|^ListenAddress .*|ListenAddress 198.18.0.2:2222|" -e "s|^PidFile .*|PidFile $work/sshd2.pid|" \
	"$tbdir/sshd_config" >"$work/sshd2_config"
echo "SetEnv PATH=$work/nozstd-bin" >>"$work/sshd2_config"
printf '[198.18.0.2]:2222 ssh-ed25519 %s\n' "$host_key" >"$work/known_2222"
config_with "$work/cfg_2222" Port 2222 UserKnownHostsFile "$work/known_2222"
ip netns exec "$ns" /usr/sbin/sshd -f "$work/sshd2_config" -E "$work/sshd2.log"
sshd2_up=1
for ((i = 0; i < 50; i++)); do
	# shellcheck disable=SC2016 # $banner belongs to the inner bash
	[ -s "$work/sshd2.pid" ] &&
		timeout 2 bash -c 'exec 3<>/dev/tcp/198.18.0.2/2222 && read -r -t 1 banner <&3 && [[ $banner == SSH-* ]]' 2>/dev/null &&
		{ sshd2_up=0; break; }
	sleep 0.1
done
ok "$sshd2_up" "no zstd: a second sshd listens on 198.18.0.2:2222"
[ "$sshd2_up" -eq 0 ] || tail -5 "$work/sshd2.log" 2>/dev/null | diag
probe=$(ssh -F "$work/cfg_2222" testbed 'command -v zstd || echo no-zstd; command -v tar' </dev/null 2>/dev/null)
[ "$(head -n 1 <<<"$probe")" = no-zstd ] && [ "$(sed -n 2p <<<"$probe")" = "$work/nozstd-bin/tar" ]
ok $? "no zstd: on port 2222 the shell finds tar but no zstd ($(tr '\n' ' ' <<<"$probe"))"
json="$work/nozstd.json"
check_rc 0 "no zstd: every strategy, exit 0" \
	"$xf" -F "$work/cfg_2222" -w smallfiles --files 300 --no-probes -s all --json "$json" testbed
ok_results "no zstd: zstd-ssh skipped, the other five ok and verified" "$json" zstd-ssh
why=$(json_get "$json" "[r for r in d['results'] if r['strategy']=='zstd-ssh'][0]['error']" 2>/dev/null)
check_grep "no zstd: the reason names zstd (${why:-no reason})" "zstd" "$why"
# rsync is looked for by the same command that looks at the host (ssh_target.c)
json="$work/norsync.json"
check_rc 0 "no rsync on the host: real-rsync beside real-tar-ssh, exit 0" \
	"$xf" -F "$work/cfg_2222" -w smallfiles --files 300 --no-probes -s real-tar-ssh,real-rsync --json "$json" testbed
why=$(json_get "$json" "' '.join('%s:%s:%s' % (r['strategy'], r['status'], r['error']) for r in d['results'])" 2>/dev/null)
check_grep "no rsync on the host: real-tar-ssh ran, real-rsync skipped naming the host's rsync (${why:-no results})" \
	"^real-tar-ssh:ok:None real-rsync:skipped:host 'testbed' has no rsync program" "$why"
if [ -r "$work/sshd2.pid" ] && read -r pid <"$work/sshd2.pid"; then
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi

# ---------------------------------------------------------------- 5. client killed mid-run
ensure_testbed "the kill checks"
# kill_mid_run SIGNAL WANT_EXIT STRATEGY: starts a 2 GiB run (splice, then
# tar-ssh), waits (bounded) until STRATEGY is writing into the remote dir, sends
# SIGNAL to the client, and checks that within 15 s no process on the host
# mentions the remote dir and the dir is gone. (SIGINT is reset to its default:
# a background job of a script starts with it ignored.)
kill_mid_run() {
	local sig=$1 want=$2 stage=$3 i rc left
	env --default-signal=INT "$xf" -F "$cfg" --no-probes --source-dir "$kill_src" --remote-dir "$killdir" \
		$kill_wl testbed >"$work/kill.out" 2>&1 &
	client_pid=$!
	for ((i = 0; i < 1200; i++)); do
		compgen -G "$killdir/xfercmp.*/*-$stage/*" >/dev/null && break
		kill -0 "$client_pid" 2>/dev/null || break
		sleep 0.1
	done
	compgen -G "$killdir/xfercmp.*/*-$stage/*" >/dev/null && [ -n "$(ns_procs_with "$killdir")" ]
	ok $? "kill $sig: the agent runs and $stage is writing into $killdir"
	kill -"$sig" "$client_pid" 2>/dev/null
	# (braces: the shell's "Killed" notice goes to /dev/null too)
	{ wait "$client_pid"; } 2>/dev/null
	rc=$?
	client_pid=
	[ "$rc" -eq "$want" ]
	ok $? "kill $sig: the client exits with status $rc (want $want)"
	[ "$rc" -eq "$want" ] || tail -5 "$work/kill.out" | diag
	for ((i = 0; i < 150; i++)); do
		left=$(ns_procs_with "$killdir")
		[ -z "$left" ] && [ ! -e "$killdir" ] && break
		sleep 0.1
	done
	[ -z "$left" ]
	ok $? "kill $sig: no process on the host is left with $killdir (after $((i / 10)).$((i % 10)) s)"
	[ -z "$left" ] || ps -o pid,args -p "$(tr '\n' ',' <<<"$left" | sed 's/,$//')" | diag
	[ ! -e "$killdir" ]
	ok $? "kill $sig: the remote dir is gone"
	[ ! -e "$killdir" ] || ls -la "$killdir" | diag
	rm -rf "$killdir"
}
kill_src="$work/big"
kill_wl="-w largefile --size 2G -s splice,tar-ssh"
kill_mid_run KILL 137 splice
kill_mid_run INT 130 tar-ssh
check_grep "kill INT: the client says it is cleaning up" "interrupted, cleaning up" "$(cat "$work/kill.out")"
rm -rf "$work/big" "$work/big.manifest"
# many small files: the host's tar is still unpacking when the agent cleans up
kill_src="$work/small"
kill_wl="-w smallfiles --files 20000 -s zstd-ssh,tar-ssh"
kill_mid_run KILL 137 zstd-ssh
rm -rf "$work/small" "$work/small.manifest"

# ---------------------------------------------------------------- 6. someone else's directory
ensure_testbed "the --remote-dir check"
# --remote-dir names the parent: the agent makes its own root in it and writes nowhere else
mkdir -p "$work/theirs"
echo precious >"$work/theirs/data.txt"
check_rc 0 "--remote-dir holding someone else's data: the run makes its own root there" \
	"$xf" -F "$cfg" --remote-dir "$work/theirs" "${small[@]}" testbed
[ "$(cat "$work/theirs/data.txt" 2>/dev/null)" = precious ] && [ "$(ls -A "$work/theirs")" = data.txt ]
ok $? "their file is still there, and nothing is left next to it"

# ---------------------------------------------------------------- 7. refused port
ensure_testbed "the refused port check"
config_with "$work/cfg_2223" Port 2223
t0=$(now_ms)
check_rc 1 "port 2223 (nothing listens) fails" "$xf" -F "$work/cfg_2223" "${small[@]}" testbed
t1=$(now_ms)
check_grep "port 2223: says refused" "refused" "$LAST_OUT"
[ $((t1 - t0)) -lt 10000 ]
ok $? "port 2223: fails fast ($((t1 - t0)) ms, want < 10 s)"

# ---------------------------------------------------------------- 8. an address with a label
# An agent reached on an address listed under a label (ip addr ... label xfercmp1:v, as
# a virtual IP or an ifconfig-style alias is): the host's samples count the device the
# label belongs to, which is the name /proc/net/dev knows
ensure_testbed "the labeled address"
ip netns exec "$ns" ip addr add 198.18.0.3/24 dev xfercmp1 label xfercmp1:v
printf '%s\n' "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$work/alias.token"
chmod 600 "$work/alias.token"
ip netns exec "$ns" "$xf" serve --listen 198.18.0.3:0 --once --idle-timeout 30 \
	--token-file "$work/alias.token" --root "$work/alias-root" >"$work/alias.out" 2>&1 &
alias_pid=$!
for _ in $(seq 50); do grep -q listening "$work/alias.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening 198.18.0.3:\([0-9]*\).*/\1/p' "$work/alias.out")
json="$work/alias.json"
check "an agent on a labeled address" "$xf" --agent "198.18.0.3:$port" --token-file "$work/alias.token" \
	--no-probes -w smallfiles --files 200 -s splice --json "$json"
iface=$(json_get "$json" "((d['results'][0].get('samples') or {}).get('destination') or {}).get('net', {}).get('iface')" 2>&1)
[ "$iface" = xfercmp1 ]
ok $? "the host's samples count xfercmp1, the labeled address's device ($iface)"
wait "$alias_pid" 2>/dev/null
ip netns exec "$ns" ip addr del 198.18.0.3/24 dev xfercmp1 2>/dev/null

# libssh's own log is ours to route (ssh_log.h): a config with `LogLevel ERROR`
# and no known_hosts file made libssh print "[date, 1] ssh_known_hosts_read_entries:
# ..." lines (14 on a tar-ssh run before the fix); they go nowhere now, and with
# -vv to stderr as "libssh: ..." lines.
ensure_testbed "libssh's log"
sed 's|UserKnownHostsFile .*|UserKnownHostsFile /dev/null|; s|StrictHostKeyChecking yes|StrictHostKeyChecking no|' \
	"$cfg" >"$work/loglevel_config"
echo "    LogLevel ERROR" >>"$work/loglevel_config"
tmp=$work
run "$xf" -F "$work/loglevel_config" --accept-new-hostkey --no-probes -w smallfiles --files 200 \
	-s tar-ssh testbed
[ "$rc" -eq 0 ]
ok $? "LogLevel ERROR, no known_hosts: the run passes"
[ "$rc" -eq 0 ] || show
lines=$(grep -cE '^\[[0-9]{4}/|^libssh:|ssh_known_hosts_read_entries' <<<"$err")
[ "$lines" -eq 0 ]
ok $? "LogLevel ERROR: no libssh line on stderr ($lines)"
[ "$lines" -eq 0 ] || head -5 <<<"$err" | diag
# -v is our progress and warnings only (issue 44, item 7: it mixed in libssh's
# "Invalid SSH_MSG_GLOBAL_REQUEST packet"); -vv adds libssh's warnings
run "$xf" -v -F "$work/loglevel_config" --accept-new-hostkey --no-probes -w smallfiles --files 200 \
	-s tar-ssh testbed
lines=$(grep -c '^libssh: ' <<<"$err")
[ "$rc" -eq 0 ] && [ "$lines" -eq 0 ] && grep -q 'tar-ssh' <<<"$err"
ok $? "with -v: our progress on stderr, no libssh line ($lines)"
[ "$lines" -eq 0 ] || grep '^libssh: ' <<<"$err" | head -3 | diag
run "$xf" -vv -F "$work/loglevel_config" --accept-new-hostkey --no-probes -w smallfiles --files 200 \
	-s tar-ssh testbed
lines=$(grep -c '^libssh: ' <<<"$err")
[ "$rc" -eq 0 ] && [ "$lines" -gt 0 ] && ! grep -qE '^\[[0-9]{4}/' <<<"$err"
ok $? "with -vv: libssh's lines on stderr, prefixed 'libssh: ' ($lines)"

"$tb" status >/dev/null 2>&1 ||
	echo "# the testbed was down at the end: another test may have taken it down during this one"
finish
