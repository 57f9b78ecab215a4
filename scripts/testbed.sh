#!/usr/bin/env bash
# Makes a second "host" on this machine for integration tests, benchmarks and the demo:
# a network namespace joined to the root namespace by a veth pair, with Debian's sshd
# running inside it on generated keys, and optional tbf shaping of the link.
#
#   scripts/testbed.sh up [--rate RATE] [--delay D] [--jump]
#                                         create (or re-use) the testbed; RATE e.g. 1gbit,
#                                         D e.g. 0.5ms, 2ms, 20ms (or 500us): a round trip
#                                         through the link takes D longer; --jump adds the
#                                         jump host (below), an up without it removes it
#   scripts/testbed.sh down               stop everything, remove namespace and link
#   scripts/testbed.sh status             exit 0 if namespace, link, sshd (and the
#                                         delayer, when a delay is set) are all up
#
# The kernel here has no netem, so the delay is ours: an iptables rule in the
# namespace sends every packet leaving the host's xfercmp1 to NFQUEUE queue 18, where
# build/tests/delayer (tests/tools/delayer.c, `make delayer`, run here when it is
# missing) holds it for D and then
# accepts it. Only what the host sends is delayed (replies and ACKs included), so a
# round trip grows by D once. An up without --delay removes it.
#
# Addresses: 198.18.0.1/24 (root namespace, xfercmp0) and 198.18.0.2/24 (namespace,
# xfercmp1), from 198.18.0.0/15, the range set aside for network benchmarks; and,
# always beside them (dual stack), 2001:2::1/64 and 2001:2::2/64 from 2001:2::/48,
# the range set aside for IPv6 benchmarking (RFC 5180). sshd listens on both. Nothing
# here ever sends traffic anywhere else.
#
# The jump host (--jump): a second namespace, xfercmp-jump, with an sshd of its own
# at 198.18.2.2 (veth xfercmp2 198.18.2.1 <-> xfercmp3), joined to the host by a
# third link (xfercmp4 198.18.1.1 <-> xfercmp5 198.18.1.2, the host's far side,
# where its sshd listens too). This machine reaches the jump host only: an
# unreachable route for 198.18.1.0/24 in the root namespace makes a connection to
# the far side fail at once (EHOSTUNREACH) instead of leaving by the default route.
# So `ssh -F build/testbed/ssh_config testbed-far` goes through ProxyJump
# testbed-jump, and an agent started through it listens where only the host and
# the jump host can connect. Nothing forwards between the links.
#
# Files (build/testbed/ under the repository top): host key, user key pair,
# authorized_keys, known_hosts, sshd_config, sshd.pid, sshd.log, ssh_config and env
# (shell-sourceable TESTBED_* variables); with a delay also delayer.pid, delayer.log and
# delay (what status reports). Use the testbed with:
#   ssh -F build/testbed/ssh_config testbed CMD      (IPv4)
#   ssh -F build/testbed/ssh_config testbed6 CMD     (IPv6)
set -Eeuo pipefail

readonly NS=xfercmp-host
readonly IF_ROOT=xfercmp0
readonly IF_NS=xfercmp1
readonly ADDR_ROOT=198.18.0.1
readonly ADDR_NS=198.18.0.2
readonly PREFIX=24
readonly ADDR6_ROOT=2001:2::1
readonly ADDR6_NS=2001:2::2
readonly PREFIX6=64
readonly NS_JUMP=xfercmp-jump
readonly IF_JUMP_ROOT=xfercmp2
readonly IF_JUMP_NS=xfercmp3
readonly IF_FAR_JUMP=xfercmp4
readonly IF_FAR_HOST=xfercmp5
readonly ADDR_JUMP_ROOT=198.18.2.1
readonly ADDR_JUMP=198.18.2.2
readonly ADDR_FAR_JUMP=198.18.1.1
readonly ADDR_FAR=198.18.1.2
readonly FAR_NET=198.18.1.0/24
readonly SSHD=/usr/sbin/sshd
readonly SFTP_SERVER=/usr/lib/openssh/sftp-server

die() { # die CODE MESSAGE...
	local code=$1
	shift
	echo "testbed: $*" >&2
	exit "$code"
}

# An unexpected failing command (set -e) still ends with a one-line testbed: message.
on_err() {
	local rc=$? line=$1 cmd=$2
	echo "testbed: command failed (exit $rc) at line $line: $cmd" >&2
	exit "$rc"
}
trap 'on_err "$LINENO" "$BASH_COMMAND"' ERR

usage() { die 2 "usage: testbed.sh up [--rate RATE] [--delay D] [--jump] | down | status"; }

[ "$(id -u)" -eq 0 ] || die 2 "must run as root (network namespaces, veth and tc need it)"

top=$(cd "$(dirname "$0")/.." && pwd -P)
readonly TOP=$top
readonly DIR="$TOP/build/testbed"
readonly HOST_KEY="$DIR/ssh_host_ed25519_key"
readonly USER_KEY="$DIR/id_ed25519"
readonly AUTH_KEYS="$DIR/authorized_keys"
readonly KNOWN_HOSTS="$DIR/known_hosts"
readonly SSHD_CONFIG="$DIR/sshd_config"
readonly SSHD_LOG="$DIR/sshd.log"
readonly PID_FILE="$DIR/sshd.pid"
readonly SSH_CONFIG="$DIR/ssh_config"
readonly ENV_FILE="$DIR/env"
readonly DELAYER="$TOP/build/tests/delayer"
readonly DELAYER_PID_FILE="$DIR/delayer.pid"
readonly DELAYER_LOG="$DIR/delayer.log"
readonly DELAY_FILE="$DIR/delay"
readonly JUMP_SSHD_CONFIG="$DIR/sshd_jump_config"
readonly JUMP_PID_FILE="$DIR/sshd_jump.pid"
readonly JUMP_SSHD_LOG="$DIR/sshd_jump.log"
# The NFQUEUE queue the delayer binds (queues are per namespace: any number works).
readonly QUEUE_NUM=18
user=$(id -un)
readonly USER_NAME=$user

# ---------------------------------------------------------------- state queries

# (grep without -q: an early exit could SIGPIPE ip, which pipefail would count as failure)
ns_exists() { [ -e "/var/run/netns/$NS" ] || ip netns list 2>/dev/null | grep -E -- "^$NS( |\$)" >/dev/null; }
in_ns() { ip netns exec "$NS" "$@"; }
root_link_exists() { ip link show dev "$IF_ROOT" >/dev/null 2>&1; }
ns_link_exists() { ns_exists && in_ns ip link show dev "$IF_NS" >/dev/null 2>&1; }

# True if the process exists and is not a zombie. (A killed sshd whose parent is
# init stays a zombie until init reaps it, and kill -0 still succeeds on a zombie;
# some container inits reap only every second or so.)
pid_alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	case ${stat:0:1} in
	Z | X | x | '') return 1 ;;
	esac
}

# Sends TERM to one process, waits up to 5 s for it to go, then KILLs it.
stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		pid_alive "$1" || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
}

# pidfile_ours FILE NAME TEXT: prints the pid in FILE if that process is still
# ours: alive, named NAME, its command line holding TEXT (guards against a stale
# file and pid reuse).
pidfile_ours() {
	local pid
	[ -r "$1" ] || return 1
	read -r pid <"$1" || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	pid_alive "$pid" || return 1
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -F -- "$3" >/dev/null || return 1
	echo "$pid"
}

# Prints the pid from the pid file if that process is still our sshd (its
# command line names our config).
pidfile_sshd() { pidfile_ours "$PID_FILE" sshd "$SSHD_CONFIG"; }

# Prints the pid of our sshd if it is alive and lives in our namespace.
sshd_pid() {
	local pid
	pid=$(pidfile_sshd) || return 1
	ns_exists || return 1
	ip netns pids "$NS" 2>/dev/null | grep -x -- "$pid" >/dev/null || return 1
	echo "$pid"
}

# Prints the tbf rate on a device ("" if none). $1: device; rest: command prefix.
tbf_rate() {
	local dev=$1
	shift
	"$@" tc qdisc show dev "$dev" 2>/dev/null |
		sed -n '/^qdisc tbf /s/^.* rate \([^ ]*\) .*/\1/p'
}

# ---------------------------------------------------------------- the jump host

jump_ns_exists() { [ -e "/var/run/netns/$NS_JUMP" ] || ip netns list 2>/dev/null | grep -E -- "^$NS_JUMP( |\$)" >/dev/null; }
in_jump() { ip netns exec "$NS_JUMP" "$@"; }
far_route_exists() { [ -n "$(ip route show type unreachable "$FAR_NET" 2>/dev/null)" ]; }
far_link_exists() { ns_exists && in_ns ip link show dev "$IF_FAR_HOST" >/dev/null 2>&1; }

# Prints the pid of the jump host's sshd if the pid file names a live sshd of ours
# (its command line names our config).
jump_sshd_pid() { pidfile_ours "$JUMP_PID_FILE" sshd "$JUMP_SSHD_CONFIG"; }

# True if anything of the jump host is left: its namespace, links, route or sshd.
jump_present() {
	jump_ns_exists || ip link show dev "$IF_JUMP_ROOT" >/dev/null 2>&1 || far_route_exists ||
		jump_sshd_pid >/dev/null || far_link_exists
}

# Removes the jump host: its sshd and whatever runs in its namespace, both links
# (by their outer ends first: a namespace's devices go asynchronously, and a
# fresh up could find the old names still taken), the route, the namespace.
remove_jump() {
	local pid pids i
	if pid=$(jump_sshd_pid); then
		stop_pid "$pid"
	fi
	rm -f "$JUMP_PID_FILE"
	if jump_ns_exists; then
		pids=$(ip netns pids "$NS_JUMP" 2>/dev/null || true)
		if [ -n "$pids" ]; then
			# shellcheck disable=SC2086
			kill -TERM $pids 2>/dev/null || true
			for ((i = 0; i < 30; i++)); do
				pids=$(ip netns pids "$NS_JUMP" 2>/dev/null || true)
				[ -n "$pids" ] || break
				sleep 0.1
			done
			for pid in $pids; do
				kill -KILL "$pid" 2>/dev/null || true
			done
		fi
	fi
	if ip link show dev "$IF_JUMP_ROOT" >/dev/null 2>&1; then
		ip link del dev "$IF_JUMP_ROOT" || die 1 "cannot delete $IF_JUMP_ROOT"
	fi
	if far_link_exists; then
		in_ns ip link del dev "$IF_FAR_HOST" || die 1 "cannot delete $IF_FAR_HOST in $NS"
	fi
	if far_route_exists; then
		ip route del unreachable "$FAR_NET" || die 1 "cannot delete the unreachable route for $FAR_NET"
	fi
	if jump_ns_exists; then
		ip netns del "$NS_JUMP" || die 1 "cannot delete network namespace $NS_JUMP"
	fi
}

# The jump namespace, its two links and the route (made afresh: remove_jump first).
setup_jump_network() {
	ip netns add "$NS_JUMP" || die 1 "cannot create network namespace $NS_JUMP"
	ip link add "$IF_JUMP_ROOT" type veth peer name "$IF_JUMP_NS" ||
		die 1 "cannot create veth pair $IF_JUMP_ROOT/$IF_JUMP_NS"
	ip link set dev "$IF_JUMP_NS" netns "$NS_JUMP" || die 1 "cannot move $IF_JUMP_NS into $NS_JUMP"
	ip addr replace "$ADDR_JUMP_ROOT/24" dev "$IF_JUMP_ROOT" || die 1 "cannot address $IF_JUMP_ROOT"
	ip link set dev "$IF_JUMP_ROOT" up || die 1 "cannot bring up $IF_JUMP_ROOT"
	in_jump ip addr replace "$ADDR_JUMP/24" dev "$IF_JUMP_NS" || die 1 "cannot address $IF_JUMP_NS"
	in_jump ip link set dev "$IF_JUMP_NS" up || die 1 "cannot bring up $IF_JUMP_NS"
	in_jump ip link set dev lo up || die 1 "cannot bring up loopback in $NS_JUMP"
	in_jump ip link add "$IF_FAR_JUMP" type veth peer name "$IF_FAR_HOST" ||
		die 1 "cannot create veth pair $IF_FAR_JUMP/$IF_FAR_HOST"
	in_jump ip link set dev "$IF_FAR_HOST" netns "$NS" || die 1 "cannot move $IF_FAR_HOST into $NS"
	in_jump ip addr replace "$ADDR_FAR_JUMP/24" dev "$IF_FAR_JUMP" || die 1 "cannot address $IF_FAR_JUMP"
	in_jump ip link set dev "$IF_FAR_JUMP" up || die 1 "cannot bring up $IF_FAR_JUMP"
	in_ns ip addr replace "$ADDR_FAR/24" dev "$IF_FAR_HOST" || die 1 "cannot address $IF_FAR_HOST"
	in_ns ip link set dev "$IF_FAR_HOST" up || die 1 "cannot bring up $IF_FAR_HOST"
	ip route add unreachable "$FAR_NET" || die 1 "cannot add the unreachable route for $FAR_NET"
}

start_jump_sshd() {
	cat >"$JUMP_SSHD_CONFIG" <<JEOF
# Generated by scripts/testbed.sh; the jump host's sshd inside namespace $NS_JUMP.
ListenAddress $ADDR_JUMP:22
HostKey $HOST_KEY
PidFile $JUMP_PID_FILE
AuthorizedKeysFile $AUTH_KEYS
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
MaxStartups 100:30:200
LogLevel INFO
PrintMotd no
X11Forwarding no
AllowTcpForwarding yes
JEOF
	"$SSHD" -t -f "$JUMP_SSHD_CONFIG" || die 1 "sshd -t rejects $JUMP_SSHD_CONFIG"
	echo "=== testbed.sh: starting the jump host's sshd $(date '+%F %T')" >>"$JUMP_SSHD_LOG"
	in_jump "$SSHD" -f "$JUMP_SSHD_CONFIG" -E "$JUMP_SSHD_LOG" ||
		die 1 "the jump host's sshd failed to start in $NS_JUMP (see $JUMP_SSHD_LOG)"
}

# Polls (bounded, ~5 s) until the jump host's sshd greets on $ADDR_JUMP:22 and the
# host's does on the far side (seen from the jump namespace); then ssh through it.
wait_jump() {
	local i out
	for ((i = 0; i < 50; i++)); do
		# shellcheck disable=SC2016 # $1 and $b belong to the inner bash
		if jump_sshd_pid >/dev/null && sshd_greets "$ADDR_JUMP" &&
			in_jump timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/22" && read -r -t 1 b <&3 && [[ $b == SSH-* ]]' _ "$ADDR_FAR" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	[ "$i" -lt 50 ] ||
		die 1 "the jump host ($ADDR_JUMP:22), or the host's far side ($ADDR_FAR:22 seen from $NS_JUMP), does not answer after 5 s"
	if ! out=$(ssh -F "$SSH_CONFIG" testbed-far true 2>&1 </dev/null); then
		echo "--- ssh said: ${out:-(nothing)}" >&2
		die 1 "ssh -F $SSH_CONFIG testbed-far true (ProxyJump testbed-jump) failed"
	fi
}

# Prints the jump line; returns 1 when the jump host is there only in part.
status_jump() {
	local pid
	if ! jump_present; then
		echo "jump: none"
		return 0
	fi
	if jump_ns_exists && far_route_exists && far_link_exists && pid=$(jump_sshd_pid) &&
		ip netns pids "$NS_JUMP" 2>/dev/null | grep -x -- "$pid" >/dev/null; then
		echo "jump: $NS_JUMP up, sshd pid $pid at $ADDR_JUMP:22; the host's far side $ADDR_FAR, $FAR_NET unreachable from here"
		return 0
	fi
	echo "jump: there only in part (namespace, link, route or sshd missing; up --jump or down fixes it)"
	return 1
}

# ---------------------------------------------------------------- rate handling

# Validates RATE and prints its value in bit/s.
rate_bits() {
	local rate=${1,,} num unit mult=1
	[[ $rate =~ ^([0-9]+)([kmg]?)bit$ ]] || return 1
	num=${BASH_REMATCH[1]}
	unit=${BASH_REMATCH[2]}
	[ ${#num} -le 12 ] || return 1
	num=$((10#$num))
	case $unit in
	k) mult=1000 ;;
	m) mult=1000000 ;;
	g) mult=1000000000 ;;
	esac
	[ "$num" -gt 0 ] || return 1
	echo $((num * mult))
}

# Applies (RATE non-empty) or removes (RATE empty) tbf shaping on both veth ends.
apply_rate() {
	local rate=$1 bits burst
	if [ -n "$rate" ]; then
		bits=$(rate_bits "$rate")
		# burst: 4 ms worth of bytes at this rate, at least 64 KiB (GSO on veth sends
		# large segments; a tiny bucket would throttle far below RATE).
		burst=$((bits / 8 / 250))
		[ "$burst" -ge 65536 ] || burst=65536
		tc qdisc replace dev "$IF_ROOT" root tbf rate "$rate" burst "$burst" latency 50ms ||
			die 1 "tc failed to shape $IF_ROOT at $rate"
		in_ns tc qdisc replace dev "$IF_NS" root tbf rate "$rate" burst "$burst" latency 50ms ||
			die 1 "tc failed to shape $IF_NS at $rate"
	else
		if [ -n "$(tbf_rate "$IF_ROOT")" ]; then
			tc qdisc del dev "$IF_ROOT" root || die 1 "tc failed to unshape $IF_ROOT"
		fi
		if [ -n "$(tbf_rate "$IF_NS" in_ns)" ]; then
			in_ns tc qdisc del dev "$IF_NS" root || die 1 "tc failed to unshape $IF_NS"
		fi
	fi
}

# ---------------------------------------------------------------- delay handling

# Validates D (digits with up to 3 decimals then ms, or digits then us; 1 us to 10 s)
# and prints it in microseconds.
delay_us() {
	local delay=${1,,} whole frac us
	if [[ $delay =~ ^([0-9]{1,5})(\.([0-9]{1,3}))?ms$ ]]; then
		whole=${BASH_REMATCH[1]}
		frac=${BASH_REMATCH[3]}000
		us=$((10#$whole * 1000 + 10#${frac:0:3}))
	elif [[ $delay =~ ^([0-9]{1,8})us$ ]]; then
		us=$((10#${BASH_REMATCH[1]}))
	else
		return 1
	fi
	[ "$us" -ge 1 ] && [ "$us" -le 10000000 ] || return 1
	echo "$us"
}

# iptables in the namespace: Debian's default (nf_tables backend), or the legacy
# one where nf_tables is missing. Sets IPTABLES; returns 1 when neither works.
IPTABLES=""
find_iptables() {
	local candidate
	[ -z "$IPTABLES" ] || return 0
	for candidate in iptables iptables-legacy; do
		command -v "$candidate" >/dev/null || continue
		if in_ns "$candidate" -S OUTPUT >/dev/null 2>&1; then
			IPTABLES=$candidate
			return 0
		fi
	done
	return 1
}
pick_iptables() {
	find_iptables ||
		die 1 "no working iptables in $NS (install the Debian package iptables, or run scripts/setup.sh)"
}

# Prints our NFQUEUE rules in the namespace's OUTPUT chain, in iptables -S form
# (nothing when there is no namespace or no working iptables: then there is no rule).
delay_rules() {
	ns_exists || return 0
	find_iptables || return 0
	in_ns "$IPTABLES" -S OUTPUT 2>/dev/null | grep -E -- "-j NFQUEUE --queue-num $QUEUE_NUM( |\$)" || true
}

# Prints the delayer's pid if the pid file names a live delayer of ours (its
# name is delayer and its command line names our pid file).
delayer_pid() { pidfile_ours "$DELAYER_PID_FILE" delayer "$DELAYER_PID_FILE"; }

# Removes the rule first (so no packet is queued to a queue nobody holds, which
# drops it), then stops the delayer (it accepts what it still holds on SIGTERM).
remove_delay() {
	local rule pid
	while read -r rule; do
		[ -n "$rule" ] || continue
		# shellcheck disable=SC2086 # the rule's words, as iptables -S printed them
		in_ns "$IPTABLES" ${rule/#-A /-D } || die 1 "cannot delete the rule '$rule' in $NS"
	done < <(delay_rules)
	if pid=$(delayer_pid); then
		stop_pid "$pid"
	fi
	# One started from another checkout (its pid file is not ours) would still hold
	# the queue: any delayer in our namespace is one of ours.
	if ns_exists; then
		for pid in $(ip netns pids "$NS" 2>/dev/null || true); do
			if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = delayer ]; then
				stop_pid "$pid"
			fi
		done
	fi
	rm -f "$DELAYER_PID_FILE" "$DELAY_FILE"
}

# Starts the delayer holding packets for $1 us, waits (bounded, ~5 s) until it has
# bound the queue (it writes its pid file then), then queues the host's packets to it.
start_delayer() {
	local hold_us=$1 i
	rm -f "$DELAYER_PID_FILE"
	echo "=== testbed.sh: starting delayer, hold $hold_us us, $(date '+%F %T')" >>"$DELAYER_LOG"
	in_ns "$DELAYER" --queue "$QUEUE_NUM" --delay-us "$hold_us" --pidfile "$DELAYER_PID_FILE" \
		</dev/null >>"$DELAYER_LOG" 2>&1 &
	for ((i = 0; i < 50; i++)); do
		delayer_pid >/dev/null && break
		if ! kill -0 $! 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	if ! delayer_pid >/dev/null; then
		tail -n 3 "$DELAYER_LOG" | sed 's/^/    /' >&2
		die 1 "the delayer did not start in $NS (see $DELAYER_LOG)"
	fi
	in_ns "$IPTABLES" -A OUTPUT -o "$IF_NS" -j NFQUEUE --queue-num "$QUEUE_NUM" ||
		die 1 "cannot add the NFQUEUE rule in $NS"
}

# Prints the median round trip, in us, of 41 pings to the host (5 more before them
# are left out: the first wakes of a fresh delayer came later).
median_rtt_us() {
	local out
	out=$(ping -n -c 46 -i 0.02 -W 1 "$ADDR_NS" 2>&1) || die 1 "ping $ADDR_NS failed: $(echo "$out" | tail -n 1)"
	sed -n 's/.* icmp_seq=\([0-9]*\) .* time=\([0-9.]*\) ms.*/\1 \2/p' <<<"$out" |
		awk '$1 > 5 { print $2 }' | sort -n |
		awk '{ us[NR] = $1 * 1000 } END {
			if (NR == 0) exit 1
			printf "%d\n", (NR % 2) ? us[(NR + 1) / 2] : (us[NR / 2] + us[NR / 2 + 1]) / 2 }' ||
		die 1 "no round trip in ping's output: $(echo "$out" | tail -n 1)"
}

# Sets a delay of $2 us ($1: as the user wrote it), or none ($1 empty).
#
# Calibration: the queue's own path (the kernel waking the delayer for each packet,
# the late wake from its timer) adds a cost of its own, measured on this machine at
# 40-170 us a round trip (ping, idle delayer), which alone is 8-34% of 0.5 ms. So
# the link's round trip without any delay is measured first, then with the delayer
# holding D, and the delayer is restarted holding D less the excess: the round trip
# is then the unshaped one plus D. (Packets that find the delayer already awake, as
# in a bulk transfer, pay less of that cost and so come a little earlier.) The cost
# moves with the machine's load: under a load average of 15 on 2 vCPUs one median
# of 41 pings swung by 100-200 us from one second to the next, so at 0.5 ms the
# round trip is then within 5% only most of the time; correcting again on a second
# measurement chased that noise rather than the cost (tried: worse).
apply_delay() {
	local text=$1 us=$2 base with excess hold
	if [ -z "$text" ]; then
		if [ -e "$DELAY_FILE" ] || [ -n "$(delay_rules)" ] || delayer_pid >/dev/null; then
			pick_iptables
			remove_delay
		fi
		return 0
	fi
	# built here when missing: a delay asked for should not need a second command first
	if [ ! -x "$DELAYER" ]; then
		echo "testbed.sh: building the delayer (make delayer)" >&2
		make -C "$TOP" --no-print-directory BUILD=build delayer >&2 && [ -x "$DELAYER" ] ||
			die 1 "cannot build $DELAYER ('make delayer' failed; it needs libnetfilter-queue-dev, which scripts/setup.sh installs)"
	fi
	command -v ping >/dev/null || die 1 "ping not found (run scripts/setup.sh)"
	mkdir -p "$DIR" || die 1 "cannot create $DIR"
	pick_iptables
	remove_delay
	base=$(median_rtt_us)
	start_delayer "$us"
	with=$(median_rtt_us)
	excess=$((with - base - us))
	hold=$us
	# Only a plausible excess is taken off: never more than half of D.
	if [ "$excess" -gt 0 ] && [ $((excess * 2)) -lt "$us" ]; then
		hold=$((us - excess))
		remove_delay
		start_delayer "$hold"
	fi
	cat >"$DELAY_FILE" <<EOF
DELAY=$text
DELAY_US=$us
HOLD_US=$hold
BASE_RTT_US=$base
RTT_US=$with
EOF
}

# ---------------------------------------------------------------- up

setup_network() {
	if ! ns_exists; then
		ip netns add "$NS" || die 1 "cannot create network namespace $NS"
	fi
	# A root-side end without its peer in the namespace is left over from a partial
	# run; so is a namespace-side end that never got moved. Start the pair afresh.
	if root_link_exists && ! ns_link_exists; then
		ip link del dev "$IF_ROOT" || die 1 "cannot delete stale $IF_ROOT"
	fi
	if ip link show dev "$IF_NS" >/dev/null 2>&1; then
		ip link del dev "$IF_NS" || die 1 "cannot delete stale $IF_NS in the root namespace"
	fi
	if ! root_link_exists; then
		if ns_link_exists; then
			in_ns ip link del dev "$IF_NS" || die 1 "cannot delete stale $IF_NS in $NS"
		fi
		ip link add "$IF_ROOT" type veth peer name "$IF_NS" || die 1 "cannot create veth pair $IF_ROOT/$IF_NS"
		ip link set dev "$IF_NS" netns "$NS" || die 1 "cannot move $IF_NS into $NS"
	fi
	ip addr replace "$ADDR_ROOT/$PREFIX" dev "$IF_ROOT" || die 1 "cannot address $IF_ROOT"
	ip link set dev "$IF_ROOT" up || die 1 "cannot bring up $IF_ROOT"
	in_ns ip addr replace "$ADDR_NS/$PREFIX" dev "$IF_NS" || die 1 "cannot address $IF_NS"
	in_ns ip link set dev "$IF_NS" up || die 1 "cannot bring up $IF_NS"
	in_ns ip link set dev lo up || die 1 "cannot bring up loopback in $NS"
	setup_network6
}

# The IPv6 half of the link. nodad: without it each address is "tentative"
# (unusable) for a second or two of duplicate address detection, and the
# first connection could fail. Both ends are ours: there is nothing to detect.
setup_network6() {
	[ -e /proc/net/if_inet6 ] || die 1 "this kernel has no IPv6 (no /proc/net/if_inet6): the testbed is dual-stack"
	sysctl -q -w "net.ipv6.conf.$IF_ROOT.disable_ipv6=0" >/dev/null || die 1 "cannot enable IPv6 on $IF_ROOT"
	in_ns sysctl -q -w "net.ipv6.conf.$IF_NS.disable_ipv6=0" >/dev/null || die 1 "cannot enable IPv6 on $IF_NS"
	ip -6 addr replace "$ADDR6_ROOT/$PREFIX6" dev "$IF_ROOT" nodad || die 1 "cannot give $IF_ROOT its IPv6 address"
	in_ns ip -6 addr replace "$ADDR6_NS/$PREFIX6" dev "$IF_NS" nodad || die 1 "cannot give $IF_NS its IPv6 address"
}

setup_keys() {
	mkdir -p "$DIR" || die 1 "cannot create $DIR"
	if [ ! -s "$HOST_KEY" ] || [ ! -s "$HOST_KEY.pub" ]; then
		rm -f "$HOST_KEY" "$HOST_KEY.pub"
		ssh-keygen -q -t ed25519 -N '' -C "xfercmp-testbed-host" -f "$HOST_KEY" </dev/null ||
			die 1 "ssh-keygen failed for the host key"
	fi
	if [ ! -s "$USER_KEY" ] || [ ! -s "$USER_KEY.pub" ]; then
		rm -f "$USER_KEY" "$USER_KEY.pub"
		ssh-keygen -q -t ed25519 -N '' -C "xfercmp-testbed-user" -f "$USER_KEY" </dev/null ||
			die 1 "ssh-keygen failed for the user key"
	fi
	# ssh and sshd refuse private keys that others can read.
	chmod 600 "$HOST_KEY" "$USER_KEY"
	cat "$USER_KEY.pub" >"$AUTH_KEYS"
	local type key
	read -r type key _ <"$HOST_KEY.pub"
	{
		echo "$ADDR_NS $type $key"
		echo "$ADDR6_NS $type $key"
		echo "$ADDR_JUMP $type $key"
		echo "$ADDR_FAR $type $key"
	} >"$KNOWN_HOSTS"
}

write_configs() {
	# Written to a temporary file first, so that a changed config can be detected.
	cat >"$SSHD_CONFIG.new" <<EOF
# Generated by scripts/testbed.sh; sshd inside network namespace $NS.
# Host key (recorded so that a regenerated key counts as a config change):
# $(cut -d' ' -f1,2 "$HOST_KEY.pub")
ListenAddress $ADDR_NS:22
ListenAddress [$ADDR6_NS]:22
${JUMP:+ListenAddress $ADDR_FAR:22}
AddressFamily any
HostKey $HOST_KEY
PidFile $PID_FILE
AuthorizedKeysFile $AUTH_KEYS
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
MaxStartups 100:30:200
MaxSessions 50
LogLevel INFO
PrintMotd no
X11Forwarding no
# No AcceptEnv: the client's environment is not passed through.
Subsystem sftp $SFTP_SERVER
EOF
	{
		ssh_host_block testbed "$ADDR_NS"
		ssh_host_block testbed6 "$ADDR6_NS"
		# the jump host, and the host through it (up --jump)
		ssh_host_block testbed-jump "$ADDR_JUMP"
		ssh_host_block testbed-far "$ADDR_FAR"
		echo "    ProxyJump testbed-jump"
	} >"$SSH_CONFIG"
	cat >"$ENV_FILE" <<EOF
TESTBED_HOST=$ADDR_NS
TESTBED_LOCAL=$ADDR_ROOT
TESTBED_NS=$NS
TESTBED_SSH_CONFIG=$(printf %q "$SSH_CONFIG")
TESTBED_KEY=$(printf %q "$USER_KEY")
TESTBED_KNOWN_HOSTS=$(printf %q "$KNOWN_HOSTS")
TESTBED_HOST6=$ADDR6_NS
TESTBED_LOCAL6=$ADDR6_ROOT
TESTBED_JUMP=$ADDR_JUMP
TESTBED_FAR=$ADDR_FAR
EOF
}

# ssh_host_block ALIAS ADDR: the ssh config's block for the testbed host at ADDR
# (testbed: IPv4, testbed6: the same host over IPv6).
ssh_host_block() {
	cat <<EOF
Host $1
    HostName $2
    Port 22
    User $USER_NAME
    IdentityFile $USER_KEY
    IdentitiesOnly yes
    UserKnownHostsFile $KNOWN_HOSTS
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
EOF
}

log_tail() {
	if [ -s "$SSHD_LOG" ]; then
		echo "--- last lines of $SSHD_LOG:" >&2
		tail -n 15 "$SSHD_LOG" | sed 's/^/    /' >&2
	else
		echo "--- $SSHD_LOG is empty or missing" >&2
	fi
}

stop_sshd() {
	local pid
	# pidfile_sshd, not sshd_pid: stop it even if the namespace was deleted under it.
	pid=$(pidfile_sshd) || { rm -f "$PID_FILE"; return 0; }
	stop_pid "$pid"
	rm -f "$PID_FILE"
}

# Stops sshd listeners in our namespace that run our config but are not in the pid
# file (pid file deleted by hand); they would hold 198.18.0.2:22. Sessions are left.
stop_stray_listeners() {
	local pid cmd i found=()
	ns_exists || return 0
	for pid in $(ip netns pids "$NS" 2>/dev/null || true); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sshd ] || continue
		cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
		[[ $cmd == *"$SSHD_CONFIG"*"[listener]"* ]] || continue
		kill -TERM "$pid" 2>/dev/null || true
		found+=("$pid")
	done
	for pid in "${found[@]}"; do
		for ((i = 0; i < 50; i++)); do
			pid_alive "$pid" || break
			sleep 0.1
		done
		if pid_alive "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
}

start_sshd() {
	local changed=0 out
	if [ ! -f "$SSHD_CONFIG" ] || ! cmp -s "$SSHD_CONFIG.new" "$SSHD_CONFIG"; then
		changed=1
	fi
	mv -f "$SSHD_CONFIG.new" "$SSHD_CONFIG"
	# Privilege separation directory (normally made by systemd's RuntimeDirectory).
	mkdir -p /run/sshd
	chmod 0755 /run/sshd
	if ! out=$("$SSHD" -t -f "$SSHD_CONFIG" 2>&1); then
		printf '    %s\n' "${out//$'\n'/$'\n    '}" >&2
		die 1 "sshd -t rejects $SSHD_CONFIG: $(echo "$out" | head -n1)"
	fi
	if sshd_pid >/dev/null && [ "$changed" -eq 0 ]; then
		return 0
	fi
	# Config changed under a running sshd, or an sshd of ours outlived its namespace
	# (namespace deleted by hand): stop it before starting afresh.
	stop_sshd
	stop_stray_listeners
	# -E appends to the log; keep a marker so the tail shows this start.
	echo "=== testbed.sh: starting sshd $(date '+%F %T')" >>"$SSHD_LOG"
	if ! in_ns "$SSHD" -f "$SSHD_CONFIG" -E "$SSHD_LOG"; then
		log_tail
		die 1 "sshd failed to start in $NS (see $SSHD_LOG)"
	fi
}

# Polls (bounded, ~5 s) until sshd has written its pid file and accepts TCP
# connections on $ADDR_NS:22 (reached over the veth from the root namespace) and
# greets with an SSH banner. (sshd logs the probe as "kex_exchange_identification:
# Connection closed by remote host"; that line is harmless.)
wait_sshd() {
	local i
	for ((i = 0; i < 50; i++)); do
		if sshd_pid >/dev/null && sshd_greets "$ADDR_NS" && sshd_greets "$ADDR6_NS"; then
			return 0
		fi
		sleep 0.1
	done
	log_tail
	die 1 "sshd in $NS is not accepting connections on $ADDR_NS:22 and [$ADDR6_NS]:22 after 5 s"
}

# True if sshd answers with an SSH banner on ADDR port 22 (IPv4 or IPv6).
sshd_greets() {
	# shellcheck disable=SC2016 # $1 and $banner belong to the inner bash
	timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/22" && read -r -t 1 banner <&3 && [[ $banner == SSH-* ]]' _ "$1" 2>/dev/null
}

verify_ssh() {
	local out
	if ! out=$(ssh -F "$SSH_CONFIG" testbed true 2>&1 </dev/null); then
		echo "--- ssh said: ${out:-(nothing)}" >&2
		log_tail
		if grep -q "account is locked" "$SSHD_LOG" 2>/dev/null; then
			echo "--- hint: with UsePAM no, sshd refuses accounts whose password field starts with '!'" >&2
		fi
		die 1 "ssh -F $SSH_CONFIG testbed true failed"
	fi
	if ! out=$(ssh -F "$SSH_CONFIG" testbed6 true 2>&1 </dev/null); then
		echo "--- ssh said: ${out:-(nothing)}" >&2
		log_tail
		die 1 "ssh -F $SSH_CONFIG testbed6 true failed (IPv6)"
	fi
}

cmd_up() {
	local rate="" delay="" us=""
	while [ $# -gt 0 ]; do
		case $1 in
		--rate | --delay)
			[ $# -ge 2 ] || die 2 "$1 needs a value, e.g. --rate 1gbit or --delay 2ms"
			if [ "$1" = --rate ]; then rate=$2; else delay=$2; fi
			shift 2
			;;
		--jump) JUMP=1 && shift ;;
		--rate=*) rate=${1#--rate=} && shift ;;
		--delay=*) delay=${1#--delay=} && shift ;;
		*) usage ;;
		esac
	done
	if [ -n "$rate" ] && ! rate_bits "$rate" >/dev/null; then
		die 2 "bad rate '$rate': want digits, optional k/m/g, then 'bit' (e.g. 100mbit, 1gbit)"
	fi
	if [ -n "$delay" ] && ! us=$(delay_us "$delay"); then
		die 2 "bad delay '$delay': want a number of ms (up to 3 decimals) or of us, 1 us to 10 s (e.g. 0.5ms, 2ms, 500us)"
	fi
	[ -x "$SSHD" ] || die 1 "$SSHD not found (run scripts/setup.sh)"
	[ -x "$SFTP_SERVER" ] || die 1 "$SFTP_SERVER not found (run scripts/setup.sh)"
	command -v ssh-keygen >/dev/null || die 1 "ssh-keygen not found (run scripts/setup.sh)"
	command -v tc >/dev/null || die 1 "tc not found (run scripts/setup.sh)"

	setup_network
	apply_rate "$rate"
	apply_delay "$delay" "$us"
	# made afresh each time, before sshd starts (with it, sshd listens on the far side too)
	remove_jump
	[ -z "$JUMP" ] || setup_jump_network
	setup_keys
	write_configs
	start_sshd
	wait_sshd
	verify_ssh
	if [ -n "$JUMP" ]; then
		start_jump_sshd
		wait_jump
	fi
	echo "testbed: up: $USER_NAME@$ADDR_NS and [$ADDR6_NS] (ns $NS), sshd pid $(sshd_pid), rate ${rate:-unshaped}, delay ${delay:-none}${JUMP:+, jump host $ADDR_JUMP to $ADDR_FAR}; ssh -F $SSH_CONFIG testbed (or testbed6${JUMP:+, testbed-far})"
}

# ---------------------------------------------------------------- down

cmd_down() {
	[ $# -eq 0 ] || usage
	local pids pid i
	if ns_exists || delayer_pid >/dev/null; then
		apply_delay "" ""
	fi
	rm -f "$DELAYER_PID_FILE" "$DELAY_FILE"
	remove_jump
	stop_sshd
	if ns_exists; then
		# Anything still running in the namespace was started into it by us.
		pids=$(ip netns pids "$NS" 2>/dev/null || true)
		if [ -n "$pids" ]; then
			# shellcheck disable=SC2086
			kill -TERM $pids 2>/dev/null || true
			for ((i = 0; i < 30; i++)); do
				pids=$(ip netns pids "$NS" 2>/dev/null || true)
				[ -n "$pids" ] || break
				sleep 0.1
			done
			for pid in $pids; do
				kill -KILL "$pid" 2>/dev/null || true
			done
		fi
	fi
	if root_link_exists; then
		ip link del dev "$IF_ROOT" || die 1 "cannot delete $IF_ROOT"
	fi
	if ns_exists; then
		ip netns del "$NS" || die 1 "cannot delete network namespace $NS"
	fi
	rm -f "$PID_FILE"
	echo "testbed: down"
}

# ---------------------------------------------------------------- status

cmd_status() {
	[ $# -eq 0 ] || usage
	local ok=0 rate pid state
	if ns_exists; then
		echo "namespace: $NS up"
	else
		echo "namespace: $NS down"
		ok=1
	fi
	if root_link_exists && ns_link_exists; then
		state=$(cat "/sys/class/net/$IF_ROOT/operstate" 2>/dev/null || echo unknown)
		rate=$(tbf_rate "$IF_ROOT")
		if [ "$state" = up ]; then
			echo "link: $IF_ROOT ($ADDR_ROOT, $ADDR6_ROOT) <-> $IF_NS ($ADDR_NS, $ADDR6_NS) up, ${rate:+tbf rate }${rate:-unshaped}"
		else
			echo "link: $IF_ROOT <-> $IF_NS present but $state"
			ok=1
		fi
	else
		echo "link: $IF_ROOT <-> $IF_NS down"
		ok=1
	fi
	if pid=$(sshd_pid); then
		echo "sshd: running, pid $pid, $ADDR_NS:22 and [$ADDR6_NS]:22"
	else
		echo "sshd: not running"
		ok=1
	fi
	status_delay || ok=1
	status_jump || ok=1
	return "$ok"
}

# Prints the delay line; returns 1 when a delay is set but not in force.
status_delay() {
	local rules pid DELAY="" DELAY_US="" HOLD_US="" BASE_RTT_US="" RTT_US=""
	rules=$(delay_rules)
	if [ ! -e "$DELAY_FILE" ]; then
		if [ -n "$rules" ] || delayer_pid >/dev/null; then
			echo "delay: none set, but a delayer or its rule is left over (up or down removes it)"
			return 1
		fi
		echo "delay: none"
		return 0
	fi
	# shellcheck disable=SC1090 # written by apply_delay
	. "$DELAY_FILE"
	if ! pid=$(delayer_pid); then
		echo "delay: $DELAY set, but the delayer is not running (see $DELAYER_LOG)"
		return 1
	fi
	if [ -z "$rules" ]; then
		echo "delay: $DELAY set, but the NFQUEUE rule is missing in $NS"
		return 1
	fi
	echo "delay: $DELAY ($DELAY_US us) on what $ADDR_NS sends (delayer pid $pid, queue $QUEUE_NUM, holds $HOLD_US us; round trip $BASE_RTT_US us without the delay, $RTT_US us holding D)"
}

# up --jump sets it
JUMP=""
[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
status) cmd_status "$@" || exit 1 ;;
*) usage ;;
esac
