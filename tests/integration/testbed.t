#!/usr/bin/env bash
# TAP test for scripts/testbed.sh: brings the testbed up and down, checks that sshd
# runs inside the namespace, that ssh and sftp work through the generated config,
# that up is idempotent, that --rate shapes the link, and that down leaves nothing.
# Needs root. Only ever talks to 198.18.0.2, inside the namespace the script creates.
#
#   bash tests/integration/testbed.t
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tb="$top/scripts/testbed.sh"
dir="$top/build/testbed"
cfg="$dir/ssh_config"
ns="xfercmp-host"

# A zombie (killed, not yet reaped by init) counts as dead.
pid_alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ -n "$stat" ] && [ "${stat:0:1}" != Z ] && [ "${stat:0:1}" != X ]
}
sshd_pid() { cat "$dir/sshd.pid" 2>/dev/null; }
ns_exists() { ip netns list | grep -E "^$ns( |\$)" >/dev/null; }
# (called through check; shellcheck cannot see that)
# shellcheck disable=SC2317
tbf_on() { tc qdisc show dev xfercmp0 | grep -E '^qdisc tbf .* rate 1Gbit' >/dev/null; }
# shellcheck disable=SC2317
tbf_off() { ! tc qdisc show dev xfercmp0 | grep '^qdisc tbf' >/dev/null; }

plan_root 22

# Whatever happens, leave nothing running.
cleanup() { "$tb" down >/dev/null 2>&1; }
on_exit cleanup

# --- up
check "down first (clean state)" "$tb" down
check "up" "$tb" up
check "namespace $ns exists" ns_exists
check "ssh testbed true" ssh -F "$cfg" testbed true </dev/null

out=$(ssh -F "$cfg" testbed 'ip -4 addr show xfercmp1' </dev/null 2>&1)
rc=$?
[ "$rc" -eq 0 ] && grep -F 'inet 198.18.0.2/24' >/dev/null <<<"$out"
rc=$?
ok "$rc" "ssh session runs inside the namespace (xfercmp1 has 198.18.0.2)"
[ "$rc" -eq 0 ] || diag <<<"$out"

out=$(printf 'pwd\n' | sftp -F "$cfg" -b - testbed 2>&1)
rc=$?
[ "$rc" -eq 0 ] && grep -F 'Remote working directory:' >/dev/null <<<"$out"
rc=$?
ok "$rc" "sftp batch 'pwd' works"
[ "$rc" -eq 0 ] || diag <<<"$out"

# --- idempotence
pid1=$(sshd_pid)
check "up again succeeds" "$tb" up
pid2=$(sshd_pid)
[ -n "$pid1" ] && [ "$pid1" = "$pid2" ] && pid_alive "$pid1"
ok $? "up again keeps the same sshd (pid ${pid1:-none} -> ${pid2:-none})"

# --- shaping
check "up --rate 1gbit" "$tb" up --rate 1gbit
check "tbf 1Gbit on xfercmp0" tbf_on
check "tbf 1Gbit on xfercmp1 (in namespace)" \
	bash -c "ip netns exec $ns tc qdisc show dev xfercmp1 | grep -E '^qdisc tbf .* rate 1Gbit'"
check "up without --rate" "$tb" up
check "up without --rate removes tbf" tbf_off
check_rc 2 "up --rate bogus exits 2" "$tb" up --rate bogus
check_rc 0 "status exits 0 while up" "$tb" status

# --- down
pid=$(sshd_pid)
check "down" "$tb" down
! ns_exists
ok $? "namespace $ns gone"
! ip link show dev xfercmp0 >/dev/null 2>&1
ok $? "veth xfercmp0 gone"
[ -n "$pid" ] && ! pid_alive "$pid"
ok $? "sshd (pid ${pid:-none}) no longer alive"
[ ! -e "$dir/sshd.pid" ]
ok $? "pid file removed"
check_rc 1 "status exits 1 when down" "$tb" status
check_rc 0 "down again exits 0" "$tb" down

finish
