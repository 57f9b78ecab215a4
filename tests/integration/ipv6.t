#!/usr/bin/env bash
# xfercmp over IPv6 (issue 27), on the testbed's IPv6 side (testbed.sh is
# dual-stack: 2001:2::1 here, 2001:2::2 in the namespace, alias testbed6):
# every strategy and every reference tool runs and verifies through an agent
# that listens on IPv6; the samplers on both ends and the probe find the
# interfaces of the IPv6 route; the probe reports the path and a round trip;
# a literal IPv6 HOST works in each of its spellings; an agent port that
# cannot be reached is named, bracketed, and reached through ssh instead.
# Needs root. Only
# ever talks to 2001:2::2 (and loopback).
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/ipv6.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
cfg="$tbdir/ssh_config"
ns=xfercmp-host
user=$(id -un)
host6=2001:2::2

skip_all_unless_root

work=$(mktemp -d /var/tmp/xfercmp-ipv6.XXXXXX) || exit 1
tmp=$work
cleanup() {
	ip netns exec "$ns" ip6tables -D INPUT ! -i lo -p tcp ! --dport 22 -j REJECT --reject-with tcp-reset 2>/dev/null
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

# results_bad JSON N: prints each result that is not ok and verified with every
# byte of the workload, and the count if it is not N; nothing when all is well
results_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
want_bytes = d["workload"]["bytes"]
rs = d["results"]
if len(rs) != want:
    print("%d results, want %d: %s" % (len(rs), want, [r["strategy"] for r in rs]))
for r in rs:
    if r["status"] != "ok" or r["verified"] is not True or r["bytes"] != want_bytes:
        print("%s: status %s, verified %s, bytes %s of %s, error %s"
              % (r["strategy"], r["status"], r["verified"], r["bytes"], want_bytes, r["error"]))
EOF
}
# sampled_ifaces JSON STRATEGY: "SOURCE-IFACE DESTINATION-IFACE" its samplers watched
sampled_ifaces() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["results"] if r["strategy"] == sys.argv[2]][0]
s = r.get("samples") or {}
def iface(side):
    net = (s.get(side) or {}).get("net") or {}
    return net.get("iface") or "-"
print(iface("source"), iface("destination"))
EOF
}
# how many strategies -s all and -s real name: the own ones, the reference ones
n_all=$("$xf" --list-strategies 2>/dev/null | awk '$2 == "own"' | grep -c .)
n_real=$("$xf" --list-strategies 2>/dev/null | awk '$2 == "reference"' | grep -c .)

if ! out=$("$tb" up 2>&1); then
	printf '%s\n' "$out" | diag
	echo "Bail out! testbed.sh up failed"
	exit 1
fi

# ---------------------------------------------------------------- the testbed's IPv6 side
addrs=$(ip netns exec "$ns" ip -6 addr show dev xfercmp1 2>&1)
check_grep "testbed: the namespace has $host6/64 and it is not tentative (nodad)" \
	"inet6 $host6/64 scope global( nodad)?( noprefixroute)? *$" "$(grep "inet6 $host6/" <<<"$addrs")"
check "testbed: ssh testbed6 reaches the host over IPv6" \
	sh -c 'ssh -F "$0" testbed6 "echo \$SSH_CONNECTION" </dev/null | grep -E "^2001:2::1 [0-9]+ 2001:2::2 22$"' "$cfg"
check_grep "testbed: env names the IPv6 addresses" "^TESTBED_HOST6=$host6\$" "$(cat "$tbdir/env")"

# ---------------------------------------------------------------- serve --listen
# (loopback only: the agent's own parsing of the address it is given)
printf '%064d\n' 0 >"$work/token"
chmod 600 "$work/token"
run timeout 10 "$xf" serve --listen '[::1]:0' --once --idle-timeout 1 --token-file "$work/token"
check_grep "serve --listen [::1]:0 listens on IPv6 and says so in brackets" \
	'^xfercmp-agent listening \[::1\]:[1-9][0-9]*$' "$out"
check_rc 1 "serve --listen with a bare IPv6 address and a port is refused" \
	"$xf" serve --listen 2001:2::2:0 --token-file "$work/token"
check_grep "... and told to use brackets" "an IPv6 address takes brackets: \[ADDR\]:PORT" "$LAST_OUT"

# ---------------------------------------------------------------- every strategy over IPv6
small=(-w smallfiles --files 2000 --seed 27)
json="$work/all.json"
check_rc 0 "-s all over IPv6 (testbed6): smallfiles, 2000 files" \
	"$xf" -F "$cfg" "${small[@]}" --no-probes -s all --json "$json" testbed6
ok_results "-s all over IPv6: every strategy ok and verified" "$json" "$n_all"
# the agent listened on 2001:2::2, so both samplers found the IPv6 route's interfaces
got=$(sampled_ifaces "$json" splice 2>&1)
[ "$got" = "xfercmp0 xfercmp1" ]
ok $? "-s all over IPv6: splice was sampled on xfercmp0 here and xfercmp1 at the agent ($got)"
got=$(json_get "$json" "d['environment']['local'].get('interface')" 2>&1)
[ "$got" = xfercmp0 ]
ok $? "-s all over IPv6: the environment names the local interface of the IPv6 route ($got)"

json="$work/real.json"
check_rc 0 "-s real over IPv6 (testbed6): smallfiles, 2000 files" \
	"$xf" -F "$cfg" "${small[@]}" --no-probes -s real --json "$json" testbed6
ok_results "-s real over IPv6: every reference tool ok and verified" "$json" "$n_real"

# ---------------------------------------------------------------- the probe
json="$work/probe.json"
check_rc 0 "probe over IPv6" "$xf" probe -F "$cfg" -w smallfiles --files 200 --probe-seconds 0.3 \
	--json "$json" testbed6
check_grep "probe: the table names the agent's IPv6 address, bracketed, and the interface" \
	"to the agent at \[$host6\]:[1-9][0-9]* via xfercmp0\$" "$LAST_OUT"
check_grep "probe: the table has a round trip" "round trip p50 [0-9]+ µs" "$LAST_OUT"
got=$(json_get "$json" "'%s %s %s' % (d['ceilings']['network_interface'], d['ceilings']['network_peer'].rsplit(':', 1)[0], d['ceilings']['rtt_p50_seconds'] > 0)" 2>&1)
[ "$got" = "xfercmp0 [$host6] True" ]
ok $? "probe JSON: interface, peer and a round trip over IPv6 ($got)"

# ---------------------------------------------------------------- a literal IPv6 HOST
# (a config with no alias: it gives only the user, port, key and known hosts,
# for any host, so the address itself is what the user typed; the bare
# address takes its port from the config)
cat >"$work/literal_config" <<EOF
Host *
    User $user
    Port 22
    IdentityFile $tbdir/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $tbdir/known_hosts
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
EOF
lit=(-F "$work/literal_config" -w smallfiles --files 300 --no-probes)
for target in "[$host6]" "$host6" "$user@[$host6]:22"; do
	json="$work/literal.json"
	check_rc 0 "literal HOST '$target': splice, tar-ssh, scp, real-scp, real-rsync, real-tar-ssh" \
		"$xf" "${lit[@]}" -s splice,tar-ssh,scp,real-scp,real-rsync,real-tar-ssh --json "$json" "$target"
	ok_results "literal HOST '$target': all ok and verified" "$json" 6
done

# ---------------------------------------------------------------- an agent that cannot be reached
# The host rejects every TCP port but ssh's from the network: the agent
# starts, but its port is closed to us. The client says so in one line naming
# the address tried, bracketed, and reaches the agent through ssh (a
# direct-tcpip channel to the IPv6 address) instead: the run verifies. Like
# every host firewall (ufw, firewalld) the rule spares loopback, which sshd's
# connection to the agent on the host's own address takes: a rule on lo too
# rejected it ("did not open a connection to 2001:2::2", a CI run).
remote="/var/tmp/xfercmp-ipv6-remote.$$"
# First a rule that rejects the host's own traffic too: ssh cannot carry it
# either, and the error says both ways and what to look at.
# sshd's own connection to the agent is then never answered (the reset does not
# reach it on lo): it waits for the kernel's SYN retries, 136 s here, and the client
# gave up on it only then, until the tunnel's open had a limit of its own (10 s).
ip netns exec "$ns" ip6tables -A INPUT -p tcp ! --dport 22 -j REJECT --reject-with tcp-reset
started=$EPOCHSECONDS
run "$xf" -F "$cfg" -w smallfiles --files 20 --no-probes -s splice --remote-dir "$remote" testbed6
took=$((EPOCHSECONDS - started))
ip netns exec "$ns" ip6tables -D INPUT -p tcp ! --dport 22 -j REJECT --reject-with tcp-reset
[ "$rc" -ne 0 ]
ok $? "a firewall that rejects loopback too: the run fails (exit $rc)"
check_grep "... naming the tunnel's refusal, the host's own traffic, and the direct failure" \
	"did not open a connection to $host6 port [1-9][0-9]* .*loopback.*; directly: cannot connect to \[$host6\]:[1-9][0-9]*: connection refused" \
	"$out $err"
check_grep "... and the wait it gave sshd" "did not open a connection to $host6 port [1-9][0-9]* for us within 10 s" "$err"
# a limit, not a speed: the kernel's SYN retries take over two minutes
[ "$took" -lt 60 ]
ok $? "... giving up on that wait, not on the kernel's (${took} s, under 60)"
ip netns exec "$ns" ip6tables -A INPUT ! -i lo -p tcp ! --dport 22 -j REJECT --reject-with tcp-reset
json="$work/closed.json"
check_rc 0 "an agent port the host's firewall rejects: the run goes through ssh" \
	"$xf" -F "$cfg" -w smallfiles --files 20 --no-probes -s splice --remote-dir "$remote" \
	--json "$json" testbed6
check_grep "... saying so, naming the address tried, in brackets, with the port" \
	"the agent's port on testbed6 cannot be reached directly \(cannot connect to \[$host6\]:[1-9][0-9]*: connection refused\)" "$LAST_OUT"
[ "$(jq -r '[.agent_via_ssh, .results[0].agent_via_ssh, .results[0].verified] | join(",")' "$json")" = true,true,true ]
ok $? "... and splice verified through ssh (JSON agent_via_ssh)"
check_grep "... the table says it" "^through ssh to the agent .*: splice;" "$LAST_OUT"
ip netns exec "$ns" ip6tables -D INPUT ! -i lo -p tcp ! --dport 22 -j REJECT --reject-with tcp-reset
[ ! -e "$remote" ]
ok $? "... and nothing is left on the host ($remote)"
rm -rf "$remote"

finish
