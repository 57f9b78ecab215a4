#!/usr/bin/env bash
# Jump hosts and closed ports (issue 23, item 2), on the testbed with its jump
# host (scripts/testbed.sh up --jump): this machine reaches only the jump host,
# 198.18.2.2; the host's far side, 198.18.1.2, is behind it (an unreachable
# route here). Through a real ProxyJump the probe and a comparison of SSH and
# raw-TCP strategies run; the raw-TCP ones reach the agent through ssh by
# themselves (its port is not reachable from here) and say so, in the note, the
# table and the JSON; nothing is left behind on the host, and no proxy child
# (ssh -W) or tunnel outlives the run. Then the cleartext gate: a dir: tree to
# the directly reachable host is refused to the raw-TCP strategies without
# --allow-cleartext, and runs through ssh with --agent-via-ssh, encrypted.
# Needs root. Only ever talks to 198.18.0.0/15 addresses of the testbed.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
plan_root 34
work=$(mktemp -d /var/tmp/xfercmp-jump.XXXXXX) || exit 1
tmp=$work
cleanup() {
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

# proxies and tunnels of this run: an ssh -W child of libssh's ProxyCommand, or an
# ssh that ProxyJump started; matched on the jump host's alias
proxies() { pgrep -a -f -- "ssh .*(testbed-jump|-W .*198\.18\.1\.2)" || true; }

# A tree like a real one: a symbolic link, a hard link, an empty and a read-only
# directory, names with spaces and a non-ASCII one, a sparse file.
tree="$work/tree"
mkdir -p "$tree/src/sub dir" "$tree/empty" "$tree/ro"
for i in $(seq 1 60); do head -c $((i * 37)) /dev/urandom >"$tree/src/f$i"; done
printf 'text\n' >"$tree/src/sub dir/naïve file"
ln -s "sub dir/naïve file" "$tree/src/link"
ln "$tree/src/f1" "$tree/src/hard-f1"
truncate -s 3M "$tree/sparse" && printf 'end' >>"$tree/sparse"
printf 'r\n' >"$tree/ro/inside"
chmod 0555 "$tree/ro"

# A testbed left up by another checkout (its own sshd and host key on port 22) makes
# up fail on this machine's shared namespace: the lock is held, so it is ours to take down.
"$tb" down >/dev/null 2>&1
"$tb" up --jump 2>&1 | diag
check_grep "the testbed is up with its jump host" "^jump: xfercmp-jump up" "$("$tb" status 2>&1)"
timeout 5 bash -c 'exec 3<>/dev/tcp/198.18.1.2/22' 2>/dev/null
ok $((! $?)) "the host's far side cannot be reached from here directly"
ssh -F "$cfg" testbed-far true </dev/null
ok $? "OpenSSH reaches it through ProxyJump testbed-jump (the reference)"

# ---------------------------------------------------------------- probe
json="$work/probe.json"
run "$xf" probe -F "$cfg" -w smallfiles --files 100 --probe-seconds 0.5 --json "$json" testbed-far
[ "$rc" -eq 0 ]
ok $? "probe through the jump host exits 0"
[ "$rc" -eq 0 ] || show
check_grep "it says once that the agent's port is closed to us and ssh carries it" \
	"cannot be reached directly .*[Nn]o route to host" "$err"
[ "$(jq -r .agent_via_ssh "$json")" = true ]
ok $? "probe JSON: agent_via_ssh true"
[ "$(jq -r '.ceilings.network_peer' "$json" | grep -c 'through ssh')" -eq 1 ]
ok $? "probe JSON: the network ceiling was measured to the agent through ssh"
jq -e '.ceilings.network_1_stream_bits_per_s > 0' "$json" >/dev/null
ok $? "and it was measured (a rate above 0)"

# ---------------------------------------------------------------- comparison
strategies=tar-ssh,real-tar-ssh,splice,zstd,parallel,real-tar-nc
json="$work/compare.json"
remote="$work/remote"
mkdir -p "$remote"
run "$xf" -F "$cfg" --no-probes -w "dir:$tree" -s "$strategies" -P 3 --remote-dir "$remote" \
	--json "$json" testbed-far
[ "$rc" -eq 0 ]
ok $? "the comparison through the jump host exits 0 (no --allow-cleartext: the raw ones are encrypted)"
[ "$rc" -eq 0 ] || show
ok_results "every strategy ran, ok and verified, every file and byte" "$json" "$strategies"
bad=$(jq -r '.results[] | select((.strategy | test("ssh")) == .agent_via_ssh) | .strategy' "$json")
[ -z "$bad" ]
ok $? "agent_via_ssh true for each raw-TCP strategy, false for the SSH ones (wrong: ${bad:-none})"
[ "$(jq -r '.agent_via_ssh' "$json")" = true ] && [ "$(jq '[.results[] | select(.cleartext)] | length' "$json")" -eq 0 ]
ok $? "JSON: agent_via_ssh true at the top, no result marked cleartext"
# (its lines joined: the note is wrapped at 100 columns, continued two spaces in)
check_grep "the table names them, through ssh" \
	"^through ssh to the agent .*: splice, zstd, parallel, real-tar-nc; their times include the cipher" \
	"$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g' <<<"$out")"
wide=$(python3 -c 'import re, sys
for l in sys.stdin.read().splitlines():
    l = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", l)
    if len(l) > 100: print(len(l), l)' <<<"$out")
[ -z "$wide" ]
ok $? "the report through ssh fits 100 columns"
[ -z "$wide" ] || printf '%s\n' "$wide" | diag
"$top/build/tests/json_schema_check" "$top/docs/report.schema.json" "$json" >"$work/schema.check" 2>&1
ok $? "its JSON validates against docs/report.schema.json (agent_via_ssh true)"
grep -v ': valid$' "$work/schema.check" | head -20 | diag
[ "$(grep -c "cannot be reached directly" <<<"$err")" -eq 1 ]
ok $? "the fallback note is one line"
left=$(find "$remote" -mindepth 1 -maxdepth 1 | head -n 5)
[ -z "$left" ]
ok $? "nothing left in the remote dir on the host (${left:-empty})"
left=$(proxies)
[ -z "$left" ]
ok $? "no proxy child (ssh -W, ProxyJump's ssh) left running"
[ -z "$left" ] || printf '%s\n' "$left" | diag
left=$(ns_procs_with "serve --listen")
[ -z "$left" ]
ok $? "no agent left on the host"

# ---------------------------------------------------------------- volume through the tunnels
# Every byte must reach the agent before a tunnel ends its SSH session: in a
# fresh-clone CI run the tunnels cut streams short (32,781 bytes of the tree's
# 3 MiB sparse file, 1 MiB of a 1 GiB splice, "Truncated tar archive"): the
# session was ended while the host's sshd still held data for the agent, and
# sshd drops it when the client disconnects. A large file, then a many-file
# tree, each verified byte for byte at the agent, through several tunnels.
json="$work/large.json"
run "$xf" -F "$cfg" --no-probes -w largefile --size 512M --compressibility 0 \
	--source-dir "$work/large" -s splice,parallel -P 3 --remote-dir "$remote" --json "$json" testbed-far
[ "$rc" -eq 0 ]
ok $? "a 512 MiB file through the jump host: splice and parallel -P 3 exit 0"
[ "$rc" -eq 0 ] || show
ok_results "... each ok and verified, every byte of the 512 MiB" "$json" splice,parallel
rm -rf "$work/large"
json="$work/many.json"
many=splice,zstd,parallel,real-tar-nc
run "$xf" -F "$cfg" --no-probes -w smallfiles --files 20000 --source-dir "$work/many" -s "$many" -P 3 \
	--remote-dir "$remote" --json "$json" testbed-far
[ "$rc" -eq 0 ]
ok $? "20,000 small files through the jump host: $many exit 0"
[ "$rc" -eq 0 ] || show
ok_results "... each ok and verified, every file and byte" "$json" "$many"
rm -rf "$work/many"
left=$(proxies)
[ -z "$left" ]
ok $? "no proxy child left after them"

# ---------------------------------------------------------------- forced, and the gate
"$tb" status >/dev/null 2>&1 || "$tb" up --jump 2>&1 | diag
json="$work/gate.json"
run "$xf" -F "$cfg" --no-probes -w "dir:$tree" -s splice,real-tar-nc --json "$json" testbed
[ "$(jq -r '[.results[].status] | join(",")' "$json" 2>/dev/null)" = "skipped,skipped" ]
ok $? "to the host reached directly, a dir: tree is refused to the raw-TCP strategies in clear"
check_grep "naming --allow-cleartext" "allow-cleartext" "$(jq -r '.results[0].error' "$json")"
run "$xf" -F "$cfg" --no-probes -w "dir:$tree" -s splice,parallel,real-tar-nc --agent-via-ssh \
	--json "$json" testbed
[ "$rc" -eq 0 ]
ok $? "with --agent-via-ssh they run there, without --allow-cleartext"
[ "$rc" -eq 0 ] || show
ok_results "ok and verified" "$json" splice,parallel,real-tar-nc
[ "$(jq '[.results[] | select(.agent_via_ssh and (.cleartext | not))] | length' "$json")" -eq 3 ]
ok $? "each through ssh, none in clear"
! grep -q "cannot be reached directly" <<<"$err"
ok $? "forced, there is no fallback note"
check_rc 2 "--agent-via-ssh without a host is a usage error" "$xf" --agent-via-ssh -w smallfiles --files 10
check_grep "naming what it needs" "needs a HOST reached over ssh" "$LAST_OUT"
left=$(proxies)
[ -z "$left" ]
ok $? "still no proxy child left"

"$tb" down >/dev/null 2>&1
check_grep "down removes the jump host too" "^jump: none" "$("$tb" status 2>&1)"
finish
