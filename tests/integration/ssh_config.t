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
# the run; a ProxyCommand that never answers fails in one line within the
# connect timeout, its child ended, and every proxy child starts with no
# signal blocked. StrictHostKeyChecking is honoured (accept-new, yes, ask,
# no). Ciphers reaches libssh; what libssh cannot do (MACs it
# lacks, ControlMaster, Compression) is a warning line, once; a config
# libssh's own parser refuses is left out after a warning. Needs root.
# Only ever talks to 198.18.0.2 and loopback.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
skip_all_unless_root
work=$(mktemp -d /var/tmp/xfercmp-sshcfg.XXXXXX) || exit 1
tmp=$work
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
printf '#!/bin/sh\ntrap "" TERM\nexec sleep 601.%s\n' $$ >"$work/term-ignoring-proxy"
# (Python, not sh: dash clears the mask of the children it forks, so a shell's sed
# would read zeros whatever the proxy was given; exec keeps the mask)
cat >"$work/mask-recording-proxy" <<EOF2
#!/usr/bin/python3
import os, sys
status = open("/proc/self/status").read()
with open("$work/sigblk", "a") as f:
    f.write(status.split("SigBlk:")[1].split()[0] + "\\n")
os.execvp("ssh", ["ssh", "-F", "$cfg", "-W", "[%s]:%s" % (sys.argv[1], sys.argv[2]), "inc"])
EOF2
chmod +x "$work/term-ignoring-proxy" "$work/mask-recording-proxy"
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
# A proxy that never answers, and one that ignores SIGTERM too (libssh ends its
# proxy with SIGTERM, then waits for it without a bound)
Host hang
    HostName 198.18.0.2
    ProxyCommand sleep 600.$$
    ConnectTimeout 3
Host hangterm
    HostName 198.18.0.2
    ProxyCommand $work/term-ignoring-proxy
    ConnectTimeout 3
# A proxy that writes down the signal mask it was started with, then does its job
Host sigblk
    HostName 198.18.0.2
    ProxyCommand $work/mask-recording-proxy %h %p
# Ciphers: libssh's config parser is off, the list comes from ssh -G
Host cipher
    HostName 198.18.0.2
    Ciphers aes256-ctr
# what libssh cannot do: a warning line each, once a run, and the run goes on
Host macs
    HostName 198.18.0.2
    MACs umac-128@openssh.com
Host warned
    HostName 198.18.0.2
    ControlMaster auto
    ControlPath $work/cm-%C
    ControlPersist 60
    Compression yes
# StrictHostKeyChecking from the config, each host with a known_hosts file of its own
Host strict-new
    HostName 198.18.0.2
    StrictHostKeyChecking accept-new
    UserKnownHostsFile $work/kh_new
Host strict-yes
    HostName 198.18.0.2
    StrictHostKeyChecking yes
    UserKnownHostsFile $work/kh_yes
Host strict-ask
    HostName 198.18.0.2
    StrictHostKeyChecking ask
    UserKnownHostsFile $work/kh_ask
Host strict-no
    HostName 198.18.0.2
    StrictHostKeyChecking no
    UserKnownHostsFile $work/kh_no
# IdentityFile lines add up over the blocks that match: 'only' must not get this one
Host inc orig alias jump sigblk cipher macs warned strict-new strict-yes strict-ask strict-no
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

# A proxy that hangs: one line within the connect timeout (ConnectTimeout 3), the proxy
# child ended and reaped; the timeout command only guards against the old hang
sleepers() { pgrep -f "^sleep 60[01]\.$$\$" || true; }
for h in hang hangterm; do
	check_rc 1 "probe through a ProxyCommand that never answers ($h) fails" \
		timeout 120 "$xf" probe -F "$cfg" "$h"
	check_grep "$h: one line naming the proxy and the timeout" \
		"^xfercmp: cannot connect to '$h' \(198.18.0.2 port 22\) through the proxy command '[^']+': no answer within 3 s" \
		"$LAST_OUT"
	[ "$(grep -c . <<<"$LAST_OUT")" -eq 1 ]
	ok $? "$h: and nothing else"
	left=$(sleepers)
	[ -z "$left" ]
	ok $? "$h: its proxy child is not left running (${left:-none})"
	[ -z "$left" ] || kill -KILL $left
done
check_rc 1 "a comparison through the hanging proxy fails the same way" \
	timeout 120 "$xf" -F "$cfg" -w smallfiles --files 50 --no-probes -s tar-ssh hang
check_grep "naming the proxy" "through the proxy command 'sleep 600\.$$': no answer within 3 s" "$LAST_OUT"
left=$(sleepers)
[ -z "$left" ]
ok $? "and leaves no proxy child (${left:-none})"
[ -z "$left" ] || kill -KILL $left

# The proxy child's signal mask: xfercmp's threads block SIGINT, SIGTERM and SIGHUP for
# its interrupt watcher; a proxy forked with them blocked outlived every stop
rm -f "$work/sigblk"
check_rc 0 "a comparison through a ProxyCommand that records its signal mask" run_tar sigblk
masks=$(sort -u "$work/sigblk" 2>/dev/null | tr '\n' ' ')
[ "$masks" = "0000000000000000 " ]
ok $? "every proxy child started with no signal blocked (SigBlk: ${masks:-none recorded})"

# Ciphers from the config (libssh's own parser is off: ssh -G's list is handed over)
probe_bin="$top/build/tests/ssh_probe"
check_grep "Ciphers aes256-ctr: libssh negotiates it" "^cipher aes256-ctr$" \
	"$("$probe_bin" connect -F "$cfg" cipher 2>&1)"
check_grep "a host without Ciphers: libssh's own first choice" "^cipher chacha20-poly1305@openssh.com$" \
	"$("$probe_bin" connect -F "$cfg" inc 2>&1)"
check_grep "the caller's cipher list (--explain's) wins over the config's" "^cipher aes128-ctr$" \
	"$("$probe_bin" connect -F "$cfg" --cipher aes128-ctr cipher 2>&1)"

# What libssh cannot do is a warning line, once a run, and never a failure
check_rc 0 "MACs libssh has none of: the run goes on" run_tar macs
[ "$(grep -c "^xfercmp: warning: ssh config: MACs umac-128@openssh... not used: libssh has none$" <<<"$LAST_OUT")" -eq 1 ]
ok $? "with one warning line saying so"
[ "$(grep -c "^xfercmp: warning: " <<<"$LAST_OUT")" -eq 1 ]
ok $? "and no other"
check_rc 0 "ControlMaster, ControlPath, ControlPersist, Compression: the run goes on" run_tar warned
check_grep "one line for the Control* options, once over the run's connections" \
	"^1 xfercmp: warning: ssh config: ControlMaster/ControlPath ignored: libssh shares no connection$" \
	"$(grep "^xfercmp: warning: " <<<"$LAST_OUT" | sort | uniq -c | sed 's/^ *//')"
check_grep "one for Compression yes" \
	"^1 xfercmp: warning: ssh config: Compression yes ignored: SSH strategies uncompressed$" \
	"$(grep "^xfercmp: warning: " <<<"$LAST_OUT" | sort | uniq -c | sed 's/^ *//')"
[ "$(grep -c "^xfercmp: warning: " <<<"$LAST_OUT")" -eq 2 ]
ok $? "and no other warning"

# StrictHostKeyChecking as OpenSSH has it (issue 44, item 7): accept-new records an unknown
# host's key, yes and ask (nobody to ask) refuse it in one line, no goes on past a changed key
: >"$work/kh_new"
: >"$work/kh_yes"
: >"$work/kh_ask"
read -r _ host_key _ <"$tbdir/ssh_host_ed25519_key.pub"
check_rc 0 "StrictHostKeyChecking accept-new, empty known_hosts: connects" run_tar strict-new
grep -Fx "198.18.0.2 ssh-ed25519 $host_key" "$work/kh_new" >/dev/null
ok $? "and records the host's key in the config's known_hosts file"
check_grep "saying so in one warning line" \
	"^xfercmp: warning: added the ssh-ed25519 host key of 'strict-new' \(198.18.0.2 port 22\) to $work/kh_new as '198.18.0.2'$" \
	"$LAST_OUT"
check_rc 0 "the next run finds the key" run_tar strict-new
[ "$(grep -c "warning: added" <<<"$LAST_OUT")" -eq 0 ] && [ "$(grep -c . "$work/kh_new")" -eq 1 ]
ok $? "and adds nothing more"
check_rc 1 "StrictHostKeyChecking yes refuses an unknown host" run_tar strict-yes
check_grep "in one line naming the host, the file and the remedy" \
	"^xfercmp: host key for 'strict-yes' \(198.18.0.2 port 22\) is not known \(no entry for '198.18.0.2' in $work/kh_yes\) and the ssh config's StrictHostKeyChecking yes refuses unknown hosts; connect once with ssh to check it, or pass --accept-new-hostkey$" \
	"$LAST_OUT"
[ "$(grep -c . <<<"$LAST_OUT")" -eq 1 ] && [ ! -s "$work/kh_yes" ]
ok $? "nothing else said, nothing recorded"
check_rc 0 "--accept-new-hostkey wins over the config's yes, as ssh -o does" run_tar --accept-new-hostkey strict-yes
check_rc 1 "StrictHostKeyChecking ask: nobody to ask, refused" run_tar strict-ask
check_grep "saying it cannot ask and what to do" \
	"^xfercmp: host key for 'strict-ask' .* is not known .* and xfercmp cannot ask \(StrictHostKeyChecking ask\); .*set StrictHostKeyChecking accept-new, or pass --accept-new-hostkey$" \
	"$LAST_OUT"
# another ed25519 key under the host's name: a changed key
ssh-keygen -q -t ed25519 -N '' -f "$work/other_host_key"
read -r other_type other_key _ <"$work/other_host_key.pub"
printf '198.18.0.2 %s %s\n' "$other_type" "$other_key" >"$work/kh_no"
ssh -F "$cfg" -o BatchMode=yes strict-no true 2>/dev/null
ok $? "OpenSSH's ssh goes on past a changed key under StrictHostKeyChecking no (the reference)"
check_rc 0 "so does xfercmp" run_tar strict-no
check_grep "with a warning that the key does not match" \
	"^xfercmp: warning: host key for 'strict-no' \(198.18.0.2 port 22\) does not match the one recorded in $work/kh_no line 1; the ssh config's StrictHostKeyChecking no goes on" \
	"$LAST_OUT"
cp "$work/kh_no" "$work/kh_yes"
check_rc 1 "the same changed key under yes is refused" run_tar strict-yes
check_grep "as changed" "host key for 'strict-yes' .* has changed" "$LAST_OUT"

# Without OpenSSH's ssh (forced) libssh's parser reads the config and refuses the whole file
# over a line it does not know: the host is tried without the file, after one warning
run env XFERCMP_SSH_LIBSSH_CONFIG=1 "$xf" probe -F "$work/bad_config" 127.0.0.1:1
[ "$rc" -eq 1 ]
ok $? "libssh cannot read the config: the probe still tries the host (exit $rc, want 1)"
check_grep "one warning line naming the file and the line libssh refused" \
	"^xfercmp: warning: ssh config '$work/bad_config' not used, libssh cannot read it: Unknown argument 'address' for Match keyword$" \
	"$err"
check_grep "then the host's own error: the connection was tried (loopback port 1)" \
	"^xfercmp: cannot connect to '127.0.0.1' port 1: connection refused" "$err"
finish
