#!/usr/bin/env bash
# TAP test for scripts/testbed.sh: brings the testbed up and down, checks that sshd
# runs inside the namespace, that ssh and sftp work through the generated config,
# that up is idempotent, that --rate shapes the link, that --delay adds its delay to
# the round trip (within 5% at 0.5, 2 and 20 ms), building the delayer when it is
# missing, that a second up replaces or removes the delay, and that down leaves nothing.
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

# The delayer's pid, from its pid file.
delayer_pid() { cat "$dir/delayer.pid" 2>/dev/null; }
# Our NFQUEUE rules in the namespace (the testbed's iptables, whichever backend works).
delay_rules() {
	ip netns exec "$ns" iptables -S OUTPUT 2>/dev/null | grep -- '-j NFQUEUE' ||
		ip netns exec "$ns" iptables-legacy -S OUTPUT 2>/dev/null | grep -- '-j NFQUEUE'
}
# Live delayers started from this checkout (a pid file of ours on the command line).
delayers() { pgrep -f -- "--pidfile $dir/delayer.pid" || true; }
# Median round trip to the host, in us, of 21 pings (2 more before them left out).
median_rtt_us() {
	ping -n -c 23 -i 0.02 -W 1 198.18.0.2 2>/dev/null |
		sed -n 's/.* icmp_seq=\([0-9]*\) .* time=\([0-9.]*\) ms.*/\1 \2/p' |
		awk '$1 > 2 { print $2 }' | sort -n |
		awk '{ us[NR] = $1 * 1000 } END { if (NR == 21) printf "%d\n", us[11] }'
}
# rtt_near DESCRIPTION DELAY_US UP_ARGS...: the median round trip is base + DELAY_US,
# within 5% (at least 100 us, below). Up to 3 tries, then `up UP_ARGS` again (which measures the queue's own
# cost afresh) and 3 more, four times: on this shared 2-vCPU machine a burst of load
# can hold up a whole run of pings (seen: 2450 us once at 2 ms, 2050-2100 us before
# and after) or the measurement at up (at 0.5 ms, 463-480 us three times after one up;
# in a fresh-clone CI run of 311437b, 648, 997 and 666 us, then 436-462 after one up
# again). Two rounds were not enough in CI on 2026-12-06 (a5352c5): 742-810 us, 581-616
# after one up, 773-901 after the second, against 551 +-27; nor five, in a fresh-clone
# CI run of 4f421d1: 577-628, 487-518, 643-652, 807-844, 769-847 against 546 +-27.
# A round costs about 3 s, and a second's pause before each up lets a burst pass.
# Within 5%, or 100 us when that is more: at 0.5 ms, 5% is 27 us, less than one late
# wake-up of the userspace delayer on this machine (the medians above sit 60-300 us
# off); 100 us would have passed each of those CI runs at its first or second try, and
# still fails a delay left out (base alone) or doubled. 2 ms and 20 ms keep 5%.
rtt_near() {
	local desc=$1 delay=$2 got want tol try seen="" tries=15
	shift 2
	want=$((base + delay))
	tol=$((want / 20 > 100 ? want / 20 : 100))
	for ((try = 0; try < tries; try++)); do
		if [ "$try" -gt 0 ] && [ $((try % 3)) -eq 0 ]; then
			sleep 1
			"$tb" up "$@" >/dev/null 2>&1
			seen="$seen, up again:"
		fi
		got=$(median_rtt_us)
		seen="$seen ${got:-none}"
		[ -n "$got" ] && [ $((got - want)) -le "$tol" ] && [ $((want - got)) -le "$tol" ] && break
	done
	[ "$try" -lt "$tries" ]
	ok $? "$desc: median RTT (us, each try):$seen; want $want +-$tol (base $base + $delay)"
}

plan_root 42

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

# --- delay
base=$(median_rtt_us)
[ -n "$base" ]
ok $? "base RTT without delay: ${base:-none} us"
base=${base:-0}
check_rc 2 "up --delay bogus exits 2" "$tb" up --delay 2
# a missing delayer is built, not asked for (issue 44, item 8)
rm -f "$top/build/tests/delayer"
check "up --delay 0.5ms, the delayer missing: built, and up" "$tb" up --delay 0.5ms
[ -x "$top/build/tests/delayer" ]
ok $? "the delayer is built again"
rtt_near "0.5 ms" 500 --delay 0.5ms
grep -E '^delay: 0\.5ms .*delayer pid [0-9]+' >/dev/null <<<"$("$tb" status)"
ok $? "status names the delay and the delayer"

pid_half=$(delayer_pid)
check "a second up --delay 2ms" "$tb" up --delay 2ms
pid_two=$(delayer_pid)
[ -n "$pid_half" ] && ! pid_alive "$pid_half" && [ "$(delayers)" = "$pid_two" ]
ok $? "it replaced the delayer (pid ${pid_half:-none} gone, ${pid_two:-none} alone)"
[ "$(delay_rules | wc -l)" -eq 1 ]
ok $? "one NFQUEUE rule"
rtt_near "2 ms" 2000 --delay 2ms

# Throughput and the delayer's CPU through 2 ms: reported, not asserted.
# (-1: the server exits after this one client; down would end it otherwise)
ip netns exec "$ns" iperf3 -s -1 -B 198.18.0.2 -D >/dev/null 2>&1
for ((i = 0; i < 30; i++)); do
	ip netns exec "$ns" ss -ltn | grep -F '198.18.0.2:5201' >/dev/null && break
	sleep 0.1
done
# CPU ticks the delayer used so far (fields 14 and 15 of its stat: user and system)
delayer_ticks() { [ -n "$pid_cpu" ] && awk '{ print $14 + $15 }' "/proc/$pid_cpu/stat" 2>/dev/null; }
pid_cpu=$(delayer_pid)
ticks0=$(delayer_ticks)
ns0=$(date +%s%N)
iperf_json=$(timeout 20 iperf3 -c 198.18.0.2 -t 2 -J 2>/dev/null)
ticks1=$(delayer_ticks)
ns1=$(date +%s%N)
gbits=$(python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))' \
	<<<"$iperf_json" 2>/dev/null)
[ -n "$gbits" ]
ok $? "iperf3 -t 2 through 2 ms ran"
cpu=$(awk -v t="$((${ticks1:-0} - ${ticks0:-0}))" -v hz="$(getconf CLK_TCK)" -v ns="$((ns1 - ns0))" \
	'BEGIN { printf "%.0f", 100 * t / hz / (ns / 1e9) }')
echo "# through 2 ms: iperf3 ${gbits:-?} Gbit/s, the delayer at ${cpu}% of a core"

check "up --rate 1gbit --delay 20ms" "$tb" up --rate 1gbit --delay 20ms
check "tbf 1Gbit on xfercmp0 with the delay" tbf_on
rtt_near "20 ms, shaped" 20000 --rate 1gbit --delay 20ms

pid_twenty=$(delayer_pid)
check "up without --delay" "$tb" up
[ -z "$(delay_rules)" ]
ok $? "up without --delay leaves no NFQUEUE rule"
[ -n "$pid_twenty" ] && ! pid_alive "$pid_twenty" && [ -z "$(delayers)" ]
ok $? "up without --delay leaves no delayer (pid ${pid_twenty:-none} gone)"
grep -x 'delay: none' >/dev/null <<<"$("$tb" status)"
ok $? "status says delay: none"

check "up --delay 2ms before down" "$tb" up --delay 2ms
pid_last=$(delayer_pid)

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
[ -n "$pid_last" ] && ! pid_alive "$pid_last" && [ -z "$(delayers)" ] && [ ! -e "$dir/delayer.pid" ]
ok $? "down stopped the delayer (pid ${pid_last:-none}) and removed its pid file"
check_rc 1 "status exits 1 when down" "$tb" status
check_rc 0 "down again exits 0" "$tb" down

finish
