#!/usr/bin/env bash
# ssh config as OpenSSH reads it (issue 23, item 3), and jump hosts (item 2):
# a config with lines libssh 0.10 ignores (Match originalhost, HostKeyAlias,
# IdentitiesOnly) and an Include; with OpenSSH's ssh installed, `ssh -G`
# resolves each host and libssh gets only what it needs, so every host of the
# file works as ssh would have it. (The Match keywords libssh rejects outright,
# address, localnetwork, tagged, ..., Debian 12's OpenSSH 9.2 rejects too:
# with ssh -G the message is then ssh's own.) A
# ProxyJump through the testbed to itself (its sshd forwards to 198.18.0.2
# only) connects within the timeout, and its ssh -W child does not outlive
# the run. Needs root. Only ever talks to 198.18.0.2.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (the testbed makes a network namespace)"
	exit 0
fi
work=$(mktemp -d /var/tmp/xfercmp-sshcfg.XXXXXX) || exit 1
agent_pid=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

"$tb" up 2>&1 | diag
"$tb" status >/dev/null 2>&1 || { echo "Bail out! the testbed did not come up"; exit 1; }
user=$(id -un)
key="$tbdir/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/wrong_key"
# the host key under an alias only: ssh (and so we) must look it up as that
sed -e 's/^[^ ]* /testbed-key-alias /' "$tbdir/known_hosts" >"$work/alias_known_hosts"
cat >"$work/included.conf" <<EOF2
Host inc
    HostName 198.18.0.2
EOF2
cfg="$work/ssh_config"
cat >"$cfg" <<EOF2
Include $work/included.conf
# libssh 0.10 ignores Match originalhost: 'orig' would be looked up as a name
Match originalhost orig
    HostName 198.18.0.2
Host alias
    HostName 198.18.0.2
    HostKeyAlias testbed-key-alias
    UserKnownHostsFile $work/alias_known_hosts
Host only
    HostName 198.18.0.2
    IdentityFile $work/wrong_key
Host jump
    HostName 198.18.0.2
    ProxyJump inc
# IdentityFile lines add up over the blocks that match: 'only' must not get this one
Host inc orig alias jump
    IdentityFile $key
Host *
    User $user
    IdentitiesOnly yes
    UserKnownHostsFile $tbdir/known_hosts
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
EOF2
ssh -F "$cfg" -o BatchMode=yes inc true
ok $? "OpenSSH's ssh reaches 'inc' with this config (the reference)"

run_tar() { "$xf" -F "$cfg" -w smallfiles --files 50 --no-probes -s tar-ssh "$@"; }
for h in inc orig alias; do
	check_rc 0 "'$h' works despite the lines libssh cannot read" run_tar "$h"
done
check_rc 1 "with libssh's own parser 'orig' fails (what ssh -G avoids)" \
	env XFERCMP_SSH_LIBSSH_CONFIG=1 "$xf" -F "$cfg" -w smallfiles --files 50 --no-probes -s tar-ssh orig
check_grep "as it cannot find the host" "cannot connect to .*orig" "$LAST_OUT"
check_rc 1 "and 'alias' fails: libssh looks the key up under the host, not the alias" \
	env XFERCMP_SSH_LIBSSH_CONFIG=1 "$xf" -F "$cfg" -w smallfiles --files 50 --no-probes -s tar-ssh alias
check_grep "its host key is not known there" "host key for .* is not known" "$LAST_OUT"
printf 'Match address 203.0.113.7\n    User x\n' >"$work/bad_config"
check_rc 1 "a line OpenSSH refuses is refused with ssh's own message" \
	"$xf" -F "$work/bad_config" -w smallfiles --files 50 --no-probes -s tar-ssh inc
check_grep "one line naming the file and ssh's reason" \
	"^xfercmp: ssh -G inc refused the configuration '$work/bad_config': .*Match" "$LAST_OUT"

# IdentitiesOnly: the right key in an agent, the wrong one configured: ssh refuses, so must we
eval "$(ssh-agent -s)" >/dev/null
ssh-add -q "$key" 2>/dev/null
ssh -F "$cfg" -o BatchMode=yes only true 2>/dev/null
ok $((! $?)) "ssh with IdentitiesOnly and a wrong IdentityFile is refused though the agent has the key"
check_rc 1 "so is xfercmp (libssh alone would have used the agent's key)" run_tar only
check_grep "the message says the keys were not accepted" "authentication failed" "$LAST_OUT"
ssh-agent -k >/dev/null 2>&1

# ProxyJump: through 'inc' (the testbed) to the testbed
start=$(date +%s)
check_rc 0 "ProxyJump: tar-ssh through the jump host connects and verifies" run_tar jump
took=$(($(date +%s) - start))
[ "$took" -lt 60 ]
ok $? "within a bound (${took} s of 60)"
left=$(pgrep -f -- "-W \[198.18.0.2\]:22 inc|-W \[%h\]" || true)
[ -z "$left" ]
ok $? "no ssh -W proxy is left running"
[ -z "$left" ] || ps -o pid,args -p "$left" | diag
finish
