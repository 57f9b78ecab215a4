#!/usr/bin/env bash
# Issue 43, finding 1: nothing of a user's tree is readable on the wire
# without --allow-cleartext. A capture on the testbed's veth (an AF_PACKET
# socket on xfercmp0, every frame both ways) during `-w dir:TREE -s tar-ssh`
# holds none of the tree's names nor its hashes: the manifest and verify's
# answers cross the agent's control connection sealed (ChaCha20-Poly1305),
# the tree itself the SSH channel. The same capture during `-s splice
# --allow-cleartext` does hold them (the data stream goes in clear, by
# consent): the capture sees payload, so their absence above means
# something. The old client put every path, size, mode, mtime and XXH3 of
# the manifest on the wire in clear.
# Needs root (the testbed, AF_PACKET). Only ever talks to 198.18.0.2.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/capture.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (the testbed makes a network namespace)"
	exit 0
fi

work=$(mktemp -d /var/tmp/xfercmp-capture.XXXXXX) || exit 1
tmp=$work
sniff_pid=
cleanup() {
	[ -n "$sniff_pid" ] && kill -TERM "$sniff_pid" 2>/dev/null
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

# sniff FILE: every frame on xfercmp0, both ways, appended to FILE until killed
cat >"$work/sniff.py" <<'PY'
import signal, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
s.bind(("xfercmp0", 0))
out = open(sys.argv[1], "wb", buffering=0)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
open(sys.argv[1] + ".ready", "w").close()
while True:
    out.write(s.recv(65536))
PY
# capture NAME CMD...: runs CMD while sniffing into $work/NAME.cap; LAST_OUT, rc
capture() {
	local name=$1 i
	shift
	: >"$work/$name.cap"
	python3 "$work/sniff.py" "$work/$name.cap" &
	sniff_pid=$!
	for ((i = 0; i < 50; i++)); do [ -e "$work/$name.cap.ready" ] && break; sleep 0.1; done
	LAST_OUT=$("$@" 2>&1)
	rc=$?
	sleep 0.3
	kill -TERM "$sniff_pid" 2>/dev/null
	wait "$sniff_pid" 2>/dev/null
	sniff_pid=
}
# found NAME WORD: 0 when the capture NAME holds WORD's bytes
found() { grep -qaF -- "$2" "$work/$1.cap"; }

if ! out=$("$tb" up 2>&1); then
	printf '%s\n' "$out" | diag
	echo "Bail out! testbed.sh up failed"
	exit 1
fi

# a tree whose names cannot occur by chance on the wire: generated files
# (their XXH3 in the generator's manifest, the same the client computes for
# the dir: workload) and files named here
tree="$work/tree"
"$xf" gen -q -w smallfiles --files 40 --seed 43 "$tree" >/dev/null 2>&1
mkdir -p "$tree/payroll-q7zk/board-minutes-x9v"
head -c 5000 /dev/urandom >"$tree/payroll-q7zk/ceo_password_wq3r.txt"
printf 'secret text\n' >"$tree/payroll-q7zk/board-minutes-x9v/merger-plan-k2j8.txt"
ln -s "ceo_password_wq3r.txt" "$tree/payroll-q7zk/link-to-secret-m4n6"
names=(payroll-q7zk board-minutes-x9v ceo_password_wq3r.txt merger-plan-k2j8.txt link-to-secret-m4n6)
hashes=()
while read -r kind h _; do [ "$kind" = f ] && hashes+=("$h"); done <"$tree.manifest"
[ ${#hashes[@]} -eq 40 ]
ok $? "the generated part's manifest lists its 40 files with their XXH3 (${#hashes[@]})"

capture tar-ssh "$xf" -F "$cfg" --no-probes -w "dir:$tree" -s tar-ssh testbed
ok "$rc" "tar-ssh of a dir: tree ran and verified (exit $rc)"
[ "$rc" -eq 0 ] || printf '%s\n' "$LAST_OUT" | tail -5 | diag
size=$(stat -c %s "$work/tar-ssh.cap")
found tar-ssh "SSH-2.0" && [ "$size" -gt 20000 ]
ok $? "the capture holds the run: $size bytes, the SSH banner among them"
leaked=()
for w in "${names[@]}"; do found tar-ssh "$w" && leaked+=("$w"); done
[ ${#leaked[@]} -eq 0 ]
ok $? "none of the tree's names is on the wire (found: ${leaked[*]:-none})"
leaked=()
for h in "${hashes[@]}"; do found tar-ssh "$h" && leaked+=("$h"); done
[ ${#leaked[@]} -eq 0 ]
ok $? "none of its files' XXH3 is on the wire (found: ${leaked[*]:-none})"

capture splice "$xf" -F "$cfg" --no-probes --allow-cleartext -w "dir:$tree" -s splice testbed
ok "$rc" "splice with --allow-cleartext ran and verified (exit $rc)"
found splice "merger-plan-k2j8.txt" && found splice "secret text"
ok $? "with consent the raw stream goes in clear: the names and the content are on the wire"

finish
