#!/usr/bin/env bash
# TAP test for the SSH layer (transfer/ssh/ssh_conn.c and its parts, ssh_exec.c, scp_sender.c)
# against the testbed's sshd, through tests/tools/ssh_probe.c (built here):
# connecting (cipher, unknown / accepted / changed host key, wrong identity,
# refused port), exec channels (5 MiB through `cat >`, a failing command's
# exit status and stderr, the first output line), and the `scp` model
# (2,000 small files and one 20 MiB file, verified against their manifests;
# its sftp-server killed mid-transfer).
# The testbed shares our file system, so remote files are checked locally.
# Needs root. Only ever talks to 198.18.0.2, inside the namespace the testbed makes.
#
#   bash tests/integration/ssh_layer.t
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
probe="$top/build/tests/ssh_probe"
xf=$xfercmp

# expect_ok DESCRIPTION: the last run exited 0
expect_ok() {
	ok "$rc" "$1"
	[ "$rc" -eq 0 ] || show
}
# expect_fail DESCRIPTION PATTERN...: the last run exited 1 and stderr has every PATTERN (fixed strings)
expect_fail() {
	local desc=$1 p bad=0
	shift
	[ "$rc" -eq 1 ] || bad=1
	for p in "$@"; do
		grep -F -- "$p" >/dev/null <<<"$err" || bad=1
	done
	ok "$bad" "$desc"
	[ "$bad" -eq 0 ] || { show; echo "wanted exit 1 and: $*" | diag; }
}
# A copy of the testbed's ssh config with one option's value replaced.
config_with() { # config_with FILE OPTION VALUE
	sed "s|^\( *$2\) .*|\1 $3|" "$cfg" >"$1"
}
now_ms() { date +%s%3N; }

plan_root 39

tmp=$(mktemp -d /var/tmp/xfercmp-ssh-layer.XXXXXX) || exit 1
# Whatever happens, leave nothing running and nothing behind.
nodns=xfercmp-nodns-$$
cleanup() {
	"$tb" down >/dev/null 2>&1
	ip netns del "$nodns" 2>/dev/null
	rm -rf "$tmp"
}
on_exit cleanup
cd "$top" || exit 1

# --- built by make check (make all unit-tests)
run test -x "$top/xfercmp"
expect_ok "xfercmp is built"
run test -x "$probe"
expect_ok "ssh_probe is built"
run "$tb" up
expect_ok "testbed up"
if [ ! -x "$probe" ] || ! "$tb" status >/dev/null 2>&1; then
	echo "Bail out! no ssh_probe or no testbed"
	exit 1
fi

# --- connecting
run "$probe" connect -F "$cfg" testbed
[ "$rc" -eq 0 ] && [[ $out =~ ^cipher\ [a-z0-9] ]]
rc=$?
expect_ok "connect: works and prints the cipher (${out:-nothing})"

run "$probe" connect -F "$cfg" --cipher aes128-gcm@openssh.com testbed
[ "$rc" -eq 0 ] && [ "$out" = "cipher aes128-gcm@openssh.com" ]
rc=$?
expect_ok "connect --cipher aes128-gcm@openssh.com negotiates it"

: >"$tmp/known_empty"
config_with "$tmp/cfg_unknown" UserKnownHostsFile "$tmp/known_empty"
run "$probe" connect -F "$tmp/cfg_unknown" testbed
expect_fail "unknown host key: refused, says so and how to accept it" \
	"not known" "--accept-new-hostkey" "$tmp/known_empty"

run "$probe" connect -F "$tmp/cfg_unknown" --accept-new testbed
expect_ok "unknown host key with --accept-new: connects"
read -r _ host_key _ <"$top/build/testbed/ssh_host_ed25519_key.pub"
grep -Fx "198.18.0.2 ssh-ed25519 $host_key" "$tmp/known_empty" >/dev/null
ok $? "--accept-new added the host key to that known_hosts file"
run "$probe" connect -F "$tmp/cfg_unknown" testbed
expect_ok "the accepted key is known on the next connect"

ssh-keygen -q -t ed25519 -N '' -C throwaway -f "$tmp/other_key" </dev/null >/dev/null
read -r other_type other_key _ <"$tmp/other_key.pub"
printf '# another key for the testbed\n198.18.0.2 %s %s\n' "$other_type" "$other_key" >"$tmp/known_changed"
config_with "$tmp/cfg_changed" UserKnownHostsFile "$tmp/known_changed"
run "$probe" connect -F "$tmp/cfg_changed" --accept-new testbed
expect_fail "changed host key: refused even with --accept-new, names file and line" \
	"has changed" "$tmp/known_changed line 2" "ssh-keygen -R 198.18.0.2 -f $tmp/known_changed"

config_with "$tmp/cfg_wrong_id" IdentityFile "$tmp/other_key"
run "$probe" connect -F "$tmp/cfg_wrong_id" testbed
expect_fail "wrong identity: authentication failed, names user@host, methods and key" \
	"authentication failed for $(id -un)@198.18.0.2" "offers: publickey" "$tmp/other_key"

t0=$(now_ms)
run "$probe" connect -F "$cfg" testbed:2222
t1=$(now_ms)
expect_fail "port 2222 (nothing listens): refused" "connection refused" "198.18.0.2 port 2222"
[ $((t1 - t0)) -lt 3000 ]
ok $? "refused is reported fast ($((t1 - t0)) ms)"

# 198.18.0.3 is in the testbed's /24 and nobody holds it: nothing answers
t0=$(now_ms)
run "$xf" -F "$cfg" -s scp -w smallfiles --files 10 --no-probes 198.18.0.3
t1=$(now_ms)
expect_fail "a host that does not answer: an error naming it" "cannot connect to '198.18.0.3' port 22"
[ $((t1 - t0)) -lt 30000 ]
ok $? "a host that does not answer is reported within 30 s ($((t1 - t0)) ms)"

# a name that does not resolve: run inside a namespace of our own whose only interface,
# loopback, is down, so the lookup fails without a packet leaving this machine
ip netns add "$nodns"
run ip netns exec "$nodns" "$xf" -s scp -w smallfiles --files 10 --no-probes nosuchhost.invalid
ip netns del "$nodns"
expect_fail "a host name that does not resolve: says so" \
	"cannot connect to 'nosuchhost.invalid' port 22: cannot resolve the host name"

run "$probe" connect -F "$tmp/no_such_config" testbed
expect_fail "missing -F file: refused before connecting" "cannot read ssh config '$tmp/no_such_config'"

# --- exec channels
head -c 5M /dev/urandom >"$tmp/in.bin"
run "$probe" exec -F "$cfg" testbed "cat > '$tmp/remote.bin'" <"$tmp/in.bin"
[ "$rc" -eq 0 ] && [ "$out" = "exit 0" ]
rc=$?
expect_ok "exec: 5 MiB from stdin into 'cat > FILE', exit 0"
want=$(sha256sum <"$tmp/in.bin")
got=$(sha256sum <"$tmp/remote.bin" 2>/dev/null)
[ -n "$got" ] && [ "$want" = "$got" ]
ok $? "exec: the remote file has the same sha256 (${got:0:16})"

run "$probe" exec -F "$cfg" testbed "sh -c 'echo boom >&2; exit 3'" </dev/null
expect_fail "exec: failing command gives exit status and stderr" "exit 3" "boom"

run "$probe" exec -F "$cfg" testbed "cat > '$tmp/no/such/dir/f'" <"$tmp/in.bin"
expect_fail "exec: a command that exits before reading its input: status and reason" \
	"exit 1" "No such file or directory"

run "$probe" exec -F "$cfg" testbed "kill -TERM \$\$" </dev/null
expect_fail "exec: a command killed by a signal says which" "killed by signal TERM"

run "$probe" line -F "$cfg" testbed "echo noise >&2; printf 'ready 4242\\r\\nmore\\n'"
[ "$rc" -eq 0 ] && [ "$out" = $'line ready 4242\nexit 0' ]
rc=$?
expect_ok "read_line: the first stdout line, without CR LF, then exit 0"

t0=$(now_ms)
run "$probe" line -F "$cfg" --timeout-ms 300 testbed "sleep 5"
t1=$(now_ms)
expect_fail "read_line: no line in time is an error" "within 300 ms"
# The probe times read_line's own wait: connecting and closing are not what
# is under test, and took 11.9 s in all once on a loaded CI machine.
waited=$(sed -n 's/^read_line waited \([0-9]*\) ms$/\1/p' <<<"$err")
[ -n "$waited" ] && [ "$waited" -ge 300 ] && [ "$waited" -lt 3000 ]
ok $? "read_line: the timeout holds (waited ${waited:-?} ms of 300; $((t1 - t0)) ms in all)"

run "$probe" line -F "$cfg" testbed "echo 'agent: not found' >&2; exit 127"
expect_fail "read_line: output ends first: exit status and stderr" "exit 127" "agent: not found"

# --- scp (SFTP) model
run "$xf" gen -q -w smallfiles --files 2000 "$tmp/small"
expect_ok "gen smallfiles --files 2000"
run "$xf" gen -q -w largefile --size 20M "$tmp/large"
expect_ok "gen largefile --size 20M"
mkdir -p "$tmp/remote"

run "$probe" scp -F "$cfg" testbed "$tmp/small" "$tmp/remote/small"
expect_ok "scp: 2000 small files (${out:-no output})"
files=$(sed -n 's/.*files=\([0-9]*\).*/\1/p' <<<"$out")
trips=$(sed -n 's/.*round_trips=\([0-9]*\).*/\1/p' <<<"$out")
[ "${files:-0}" -eq 2000 ] && [ "${trips:-0}" -ge $((4 * files)) ]
ok $? "scp: at least 4 round trips per file, as OpenSSH 9.2 (${trips:-?} for ${files:-?} files)"
run "$xf" verify --manifest "$tmp/small.manifest" "$tmp/remote/small"
expect_ok "verify the small files: ${out:-$err}"

run "$probe" scp -F "$cfg" testbed "$tmp/large" "$tmp/remote/large"
expect_ok "scp: one 20 MiB file (${out:-no output})"
# 20 MiB in writes of at most 255 KiB is 81 writes, each with a head of at least 25 bytes
# (27 with OpenSSH's 4-byte handles); the rest is one mkdir, open, set-size and close
wire=$(sed -n 's/.*wire_bytes=\([0-9]*\).*/\1/p' <<<"$out")
extra=$((${wire:-0} - 20 * 1048576))
[ "$extra" -ge $((81 * 25)) ] && [ "$extra" -lt $((81 * 27 + 4096)) ]
ok $? "scp: writes are at most 255 KiB (${extra} bytes besides the data, want 81 write heads)"
# the writes are in flight together: mkdir, open, the last write, set-size, close wait
trips=$(sed -n 's/.*round_trips=\([0-9]*\).*/\1/p' <<<"$out")
[ "${trips:-0}" -eq 5 ]
ok $? "scp: one round trip for a file's writes (${trips:-?} round trips, want 5)"
run "$probe" scp -F "$cfg" testbed "$tmp/large" "$tmp/remote/large"
expect_ok "scp: again onto the existing directory and file"
run "$xf" verify --manifest "$tmp/large.manifest" "$tmp/remote/large"
expect_ok "verify the large file: ${out:-$err}"

run "$probe" scp -F "$cfg" testbed "$tmp/large" "$tmp/remote/missing/large"
expect_fail "scp: a missing remote parent names the remote path and the sftp status" \
	"'$tmp/remote/missing/large'" "no such file"

run "$xf" gen -q -w smallfiles --files 20 "$tmp/grown"
# the first regular file's path: the last field of its "f" line (manifest version 2)
victim=$(awk -F'\t' '$1 == "f" { print $NF; exit }' "$tmp/grown.manifest")
printf x >>"$tmp/grown/$victim"
run "$probe" scp -F "$cfg" testbed "$tmp/grown" "$tmp/remote/grown"
expect_fail "scp: a source file that changed size is an error naming it" \
	"'$tmp/grown/$victim'" "manifest says"

# the host's sftp-server dies mid-transfer: the model reports the session's end, and the
# pump thread between it and the channel (channel_pump.c) lets it exit instead of hanging
run "$xf" gen -q -w smallfiles --files 20000 "$tmp/many"
kill_sftp_server() {
	local i pid
	for ((i = 0; i < 100; i++)); do
		for pid in $(ns_procs_with sftp-server); do
			sleep 0.5
			kill "$pid"
			return
		done
		sleep 0.1
	done
}
kill_sftp_server &
killer=$!
run timeout 120 "$probe" scp -F "$cfg" testbed "$tmp/many" "$tmp/remote/many"
wait "$killer"
expect_fail "scp: sftp-server killed mid-transfer ends the run with the session's error" \
	"the sftp session ended"

finish
