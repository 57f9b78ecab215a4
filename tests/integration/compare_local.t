#!/usr/bin/env bash
# The comparison against an agent on loopback: every raw-TCP strategy on small
# files, a large file and a mixed tree, each verified; a corrupted receive is
# caught; a hand-started agent with --agent; bad input is refused.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$(mktemp -d /var/tmp/xfercmp-test.XXXXXX)
# every temporary source and agent root of this test goes here, so that what
# is left behind can be counted without other processes' directories
export XFERCMP_SCRATCH="$work/scratch"
mkdir -p "$XFERCMP_SCRATCH"
scratch_count() { find "$XFERCMP_SCRATCH" -mindepth 1 -maxdepth 1 | wc -l; }
scratch_before=$(scratch_count)
agent_pid=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
	chattr -i "$work"/agent-root3/xfercmp.* 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
# The runs that assert nothing of the probes still probe (their code runs here, and
# under ASan in sanitizers.t), on a budget of 0.3 s a probe, not the default 2 s: a
# 300 MB comparison with the default probes took 20 s here, 11 s with these, 6-7 s
# with none. The probes' own checks (--warm, cold) set their budgets themselves.
probes=(--probe-seconds 0.3)

for wl in "smallfiles --files 3000" "largefile --size 300M" "mixed --files 1000 --size 64M"; do
	name=${wl%% *}
	json="$work/$name.json"
	check "$name: all raw strategies run and verify" \
		"$xfercmp" "${probes[@]}" -w $wl -s splice,zstd,parallel --json "$json"
	for s in splice zstd parallel; do
		v=$(json_get "$json" "[(r['verified'], r['authenticated']) for r in d['results'] if r['strategy']=='$s'][0]" 2>&1)
		[ "$v" = "(True, True)" ]
		ok $? "$name: $s verified and authenticated ($v)"
	done
	files=$(json_get "$json" "d['workload']['files']")
	sent=$(json_get "$json" "[r for r in d['results'] if r['strategy']=='splice'][0]['files']")
	[ "$files" = "$sent" ]
	ok $? "$name: splice sent every file ($sent of $files)"
done

# zstd on compressible data puts fewer bytes on the wire than it read
json="$work/z.json"
check "zstd on compressible data" "$xfercmp" "${probes[@]}" -w smallfiles --files 2000 --compressibility 0.9 -s zstd --json "$json"
wire=$(json_get "$json" "d['results'][0]['wire_bytes']")
bytes=$(json_get "$json" "d['results'][0]['bytes']")
[ "$wire" -lt "$bytes" ]
ok $? "zstd wire bytes $wire < content bytes $bytes"
from=$(json_get "$json" "d['results'][0]['wire_bytes_from']")
[ "$from" = sender ]
ok $? "zstd's wire bytes are its sender's count ($from)"

# a tool that counts nothing has the link's count instead of 0, marked so (issue 44, item 6)
json="$work/cp.json"
check_rc 0 "cmd: cp, which counts nothing" "$xfercmp" --no-probes -w smallfiles --files 200 \
	-s 'cmd:cp=cp -r {src}/. {dst}' --json "$json"
got=$(json_get "$json" "(d['results'][0]['wire_bytes_from'], d['results'][0]['wire_bytes'] is not None)")
[ "$got" = "('link', True)" ]
ok $? "cmd: cp's wire bytes come from the link's counters ($got)"
# its transport is the command's: verified by XXH3 alone, never "authenticated" (issue 43)
got=$(json_get "$json" "(d['results'][0]['verified'], d['results'][0]['authenticated'])")
[ "$got" = "(True, False)" ]
ok $? "cmd: cp verified but not authenticated ($got)"
check_grep "the table names it verified by XXH3 alone" "verified by XXH3 alone, not authenticated" "$LAST_OUT"

# a byte flipped on the receive path (test hook in the agent) fails verification
check_rc 1 "corrupted receive is caught" env XFERCMP_TEST_CORRUPT=1 "$xfercmp" "${probes[@]}" -w smallfiles --files 500 -s splice
check_grep "the failure names the content difference" "content differs" "$LAST_OUT"

# a name from the tree, quoted back by the agent, is shown as text: a file
# named ESC ] 0 ; ... BEL ESC [ 3 1 m retitles and reddens no terminal
esc_tree="$work/esc-tree"
mkdir -p "$esc_tree"
printf 'payload\n' >"$esc_tree/$(printf 'a\033]0;PWNED\007\033[31mred')"
check_rc 1 "a corrupted file with ESC in its name fails verification" env XFERCMP_TEST_CORRUPT=1 \
	"$xfercmp" -w "dir:$esc_tree" -s splice --no-probes
check_grep "its name is shown escaped" 'content differs: a\\x1b\]0;PWNED\\x07\\x1b\[31mred' "$LAST_OUT"
! grep -q "$(printf '\033')" <<<"$LAST_OUT"
ok $? "no ESC byte reaches the terminal"

# JSON to stdout is the whole document, nothing else
out=$("$xfercmp" "${probes[@]}" -w smallfiles --files 200 -s splice --json - 2>/dev/null)
printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["schema"]==3 and d["results"][0]["status"]=="ok"'
ok $? "--json - prints a schema-3 document on stdout"
# a stdout that takes nothing (/dev/full) is a failed run, not a cut document and exit 0
check_rc 1 "--json - into a full stdout" sh -c "exec \"\$0\" -w smallfiles --files 50 -s splice --no-probes --json - >/dev/full" "$xfercmp"
check_grep "says the JSON report could not be written, and why" "cannot write the JSON report to stdout: No space left on device" "$LAST_OUT"

# --repeat reports a median of several runs
json="$work/r.json"
check "--repeat 3" "$xfercmp" "${probes[@]}" -w smallfiles --files 300 -s splice --repeat 3 --json "$json"
runs=$(json_get "$json" "d['results'][0]['runs']")
[ "$runs" = 3 ]
ok $? "three runs recorded ($runs)"

# --warm keeps the source in the page cache, probes included: the source probe
# drops what it reads, so it is skipped and the strategy reads no file data from disk
warm_src="$work/warm-src"
check "--warm: the source is generated" "$xfercmp" gen -w largefile --size 256M "$warm_src"
cat "$warm_src"/* >/dev/null
check "--warm with probes" "$xfercmp" -w largefile --size 256M --source-dir "$warm_src" \
	-s splice --warm --probe-seconds 0.3 --json "$work/warm.json"
read_bps=$(json_get "$work/warm.json" "d['ceilings']['disk_read_bytes_per_s']")
[ "$read_bps" = None ]
ok $? "--warm skips the source disk probe (disk_read_bytes_per_s null: $read_bps)"
# the sampler counts the whole disk's reads: had the probe dropped the source, the run
# would read the 192 MiB the zstd probe's 64 MiB of samples did not bring back
disk_read=$(json_get "$work/warm.json" "d['results'][0]['samples']['source']['disk']['read_bytes']")
[ "$disk_read" -lt $((128 << 20)) ]
ok $? "--warm: the splice run read the source from the cache ($disk_read bytes from disk)"
once=$(json_get "$work/warm.json" "len(d['ceilings']['disk_at_once'])")
[ "$once" = 0 ]
ok $? "--warm: the disk is not read and written at once either ($once probed)"

# The source and the agent's root on one machine and, here, one disk: the probe reads it
# cold while it writes as many bytes durable, and a copy each way is no faster than either.
once_out=$("$xfercmp" -w largefile --size 256M --source-dir "$warm_src" -s splice --probe-seconds 0.5 \
	--json "$work/once.json" 2>&1)
ok $? "cold, with probes"
boot=$(json_get "$work/once.json" "d['agent']['boot_id']")
[ "$boot" = "$(cat /proc/sys/kernel/random/boot_id)" ]
ok $? "the agent says its boot id, ours ($boot)"
dev=$(json_get "$work/once.json" "d['agent']['root_device']")
src_dev=$(json_get "$work/once.json" "d['results'][0]['samples']['source']['disk']['device']")
once=$(json_get "$work/once.json" "[(o['depth'], o['copy_bytes_per_s'] <= min(o['read_bytes_per_s'], o['write_bytes_per_s']) and o['copy_bytes_per_s'] > 0) for o in d['ceilings']['disk_at_once']]")
if [ "$dev" != None ] && [ "$dev" = "$src_dev" ]; then
	[ "$once" = "[(1, True)]" ]
	ok $? "one disk ($dev): read and written at once with one stream, the copy no faster than either ($once)"
	check_grep "the ceilings say it" "at once .* GB/s each way, one disk read cold \\(1 stream" "$once_out"
else
	[ "$once" = "[]" ]
	ok $? "two disks ($src_dev, $dev): not read and written at once ($once)"
fi

# an agent started by hand, as iperf3 -s
printf '%s\n' "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$work/token"
chmod 600 "$work/token"
"$xfercmp" serve --listen 127.0.0.1:0 --once --token-file "$work/token" --root "$work/agent-root" >"$work/agent.out" 2>&1 &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$work/agent.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening 127.0.0.1:\([0-9]*\).*/\1/p' "$work/agent.out")
root1=$(compgen -G "$work/agent-root/xfercmp.*")
[ "$(stat -c '%a %u' "$root1" 2>/dev/null)" = "700 $(id -u)" ] && [ "$(cat "$root1/.xfercmp-agent")" != "" ]
ok $? "the agent made its own root in --root: $root1, 0700, ours, its marker holding the session id"
check_rc 1 "a second agent on the same port" "$xfercmp" serve --listen "127.0.0.1:$port" --once --token-file "$work/token" --root "$work/agent-root2"
check_grep "says the port is in use, names it and what to do" "cannot listen on 127\.0\.0\.1:$port: the port is in use; pick another" "$LAST_OUT"
# finished destinations wait for the session's end (so that no run pays for removing the
# one before it): a watcher sees more than one at once, and none after the session
(
	most=0
	for _ in $(seq 600); do
		n=$(find "$work/agent-root" -mindepth 2 -maxdepth 2 -path '*/xfercmp.*/[0-9]*-*' 2>/dev/null | wc -l)
		[ "$n" -le "$most" ] || most=$n
		echo "$most" >"$work/most-dests"
		kill -0 "$agent_pid" 2>/dev/null || break
		sleep 0.05
	done
) &
watcher=$!
check "--agent with a hand-started agent" "$xfercmp" "${probes[@]}" -w smallfiles --files 1500 -s splice,zstd,parallel --agent "127.0.0.1:$port" --token-file "$work/token"
wait "$watcher"
most=$(cat "$work/most-dests" 2>/dev/null || echo 0)
[ "$most" -ge 2 ]
ok $? "finished destinations wait for the session's end ($most seen at once)"
for _ in $(seq 50); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$agent_pid" 2>/dev/null
ok $? "--once agent exited after the session"
[ ! -e "$work/agent-root" ]
ok $? "agent left nothing behind: its root, and the parent it made for it"
agent_pid=

# --root naming a symbolic link: refused, nothing written where it points
mkdir -p "$work/link-target"
ln -sfn "$work/link-target" "$work/link-root"
check_rc 1 "--root naming a symbolic link is refused" "$xfercmp" serve --listen 127.0.0.1:0 --once \
	--token-file "$work/token" --root "$work/link-root"
check_grep "says it is a link" "scratch parent '$work/link-root' is a symbolic link" "$LAST_OUT"
[ -z "$(ls -A "$work/link-target")" ]
ok $? "nothing was written where the link points"
# a parent others may write into (no sticky bit): they could move the root away
mkdir -p "$work/open-parent" && chmod 0777 "$work/open-parent"
check_rc 1 "a --root others may write without the sticky bit is refused" "$xfercmp" serve \
	--listen 127.0.0.1:0 --once --token-file "$work/token" --root "$work/open-parent"
[ -z "$(ls -A "$work/open-parent")" ]
ok $? "nothing was made in it"

# a wrong token is refused
printf '%s\n' "$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$work/token2"
chmod 600 "$work/token2"
"$xfercmp" serve --listen 127.0.0.1:0 --once --idle-timeout 5 --token-file "$work/token" >"$work/agent2.out" 2>&1 &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$work/agent2.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening 127.0.0.1:\([0-9]*\).*/\1/p' "$work/agent2.out")
check_rc 1 "wrong token refused" "$xfercmp" "${probes[@]}" -w smallfiles --files 10 -s splice --agent "127.0.0.1:$port" --token-file "$work/token2"
check_grep "says the token is not the session's (the hello's tag)" "the hello's tag is not of the session key: not a client of this agent \\(or a wrong --token-file\\)" "$LAST_OUT"
kill "$agent_pid" 2>/dev/null
wait "$agent_pid" 2>/dev/null
agent_pid=

# an agent that cannot make a destination (its root made immutable) fails each
# strategy with that cause; the run goes on to the next strategy rather than stop
"$xfercmp" serve --listen 127.0.0.1:0 --token-file "$work/token" --root "$work/agent-root3" >"$work/agent3.out" 2>&1 &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$work/agent3.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening 127.0.0.1:\([0-9]*\).*/\1/p' "$work/agent3.out")
# --root names the parent: the agent's root is the xfercmp.XXXXXX it made there
root3=$(compgen -G "$work/agent-root3/xfercmp.*")
[ -n "$root3" ] && chattr +i "$root3"
ok $? "the agent's root ($root3) is made immutable (chattr +i)"
json="$work/refused.json"
check_rc 1 "an agent refusing every destination" "$xfercmp" "${probes[@]}" -w smallfiles --files 10 -s splice,zstd \
	--no-probes --agent "127.0.0.1:$port" --token-file "$work/token" --json "$json"
for s in splice zstd; do
	e=$(json_get "$json" "[r for r in d['results'] if r['strategy']=='$s'][0]['status'] + ': ' + [r for r in d['results'] if r['strategy']=='$s'][0]['error']" 2>&1)
	grep -q "^failed: .*cannot create destination .*Operation not permitted" <<<"$e"
	ok $? "$s failed on its own, with the agent's cause ($e)"
done
chattr -i "$root3"
kill "$agent_pid" 2>/dev/null
wait "$agent_pid" 2>/dev/null
agent_pid=

# an interrupt while the workload is being generated: exit 130, the interrupt's
# message and no other, and nothing left of the temporary source or the agent
before=$(scratch_count)
env --default-signal=INT "$xfercmp" -w smallfiles --files 400000 -s splice --no-probes >"$work/int.out" 2>&1 &
pid=$!
for _ in $(seq 200); do
	[ -n "$(find "$XFERCMP_SCRATCH" -path '*/xfercmp-src.*/d*/*' -type f -print -quit 2>/dev/null)" ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ]
ok $? "interrupted while generating: exit status $rc (want 130)"
others=$(grep -v -e '^$' -e 'generating:' -e 'interrupted, cleaning up' "$work/int.out")
grep -q "interrupted, cleaning up" "$work/int.out" && [ -z "$others" ]
ok $? "interrupted while generating: says it is cleaning up, and nothing else"
[ -z "$others" ] || diag <<<"$others"
left=$(scratch_count)
[ "$left" -eq "$before" ]
ok $? "interrupted while generating: nothing left in the scratch directory ($left entries, $before before)"
[ "$left" -eq "$before" ] || find "$XFERCMP_SCRATCH" -maxdepth 2 | head -5 | diag

# the disk probe writes what --disk-probe-size says, and by default at most 1 GiB
json="$work/dp.json"
check "--disk-probe-size 64M" "$xfercmp" -w smallfiles --files 100 -s splice --probe-seconds 0.2 --disk-probe-size 64M --json "$json"
wrote=$(json_get "$json" "d['ceilings']['disk_write_bytes']")
[ "$wrote" = 67108864 ]
ok $? "the disk probe wrote 64 MiB whole, whatever its 0.2 s budget ($wrote bytes)"
json="$work/dp0.json"
check "default disk probe" "$xfercmp" -w smallfiles --files 100 -s splice --probe-seconds 0.2 --json "$json"
wrote=$(json_get "$json" "d['ceilings']['disk_write_bytes']")
[ "$wrote" -gt 0 ] && [ "$wrote" -le 1073741824 ]
ok $? "by default the disk probe writes within its budget, at most 1 GiB ($wrote bytes)"

# usage errors: exit 2, one line naming the problem (DESCRIPTION|PATTERN|ARGUMENTS)
usage_errors <<EOF
--disk-probe-size out of range, named with the range|disk-probe-size: expected 1M to 64G, got '65G'|--disk-probe-size 65G
unknown strategy, named with the choices|unknown strategy 'nosuch': choose from .*splice|-s nosuch
bad size, named|--size: invalid size '12Q'|-w largefile --size 12Q
bad repeat, named with the range|--repeat: expected 1 to 100, got '0'|--repeat 0
--agent without --token-file|--agent and --token-file go together|--agent 127.0.0.1:1
a --remote-dir too long to hold, how long it may be|remote-dir: at most 511 bytes, not 601|--remote-dir /$(printf 'x%.0s' $(seq 600)) testbed
EOF
check_rc 2 "missing dir: workload: refused before the run, a usage error" "$xfercmp" -w dir:/nonexistent/xfercmp -s splice
check_grep "names the directory" "dir:/nonexistent/xfercmp: no such directory" "$LAST_OUT"

# the user's own tree (dir:) is read, never modified
src="$work/mine"
"$xfercmp" gen -q -w smallfiles --files 400 "$src" >/dev/null
before=$(cd "$src" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
check "dir: workload" "$xfercmp" "${probes[@]}" -w "dir:$src" -s splice,zstd,parallel
after=$(cd "$src" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
[ "$before" = "$after" ]
ok $? "dir: source untouched"
scratch_after=$(scratch_count)
[ "$scratch_after" -eq "$scratch_before" ]
ok $? "no temporary source or agent scratch directory left ($scratch_before before, $scratch_after after)"
finish
