#!/usr/bin/env bash
# Issue 43, finding 2: every data byte authenticated. A relay between the
# client and an agent on loopback (the agent started by hand, the client
# pointed at the relay with --agent) passes the control connection and
# alters a data stream:
#   - one byte of big.bin's content flipped (splice), of a small file's
#     (splice) or of the compressed stream (zstd): the run fails naming
#     integrity, never "verified";
#   - big.bin's first KiB replaced by a shell script whose last 128 bytes
#     keep its XXH3-64 (tests/tools/xxh3_collide.c: XXH3's stripes are
#     invertible; libxxhash gives the whole file the same hash after the
#     swap, so an XXH3 verify cannot tell): caught, naming integrity.
# The old client printed "splice ok ... verified" for the swap, and the
# flipped byte only as "content differs". big.bin's content crosses the
# data connection raw (transfer/stream/frames.h: content over 256 KiB), so
# both are caught at verify by the keyed hash the client sends; zstd's
# stream, sealed segment by segment, fails before a byte is written.
# A relay that changes nothing: the runs verify (the relay itself is sound).
# Talks only to 127.0.0.1.
#
#   bash tests/integration/relay.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

collide="$top/build/tests/xxh3_collide"
[ -x "$collide" ] || { echo "Bail out! $collide not built (make unit-tests)"; exit 1; }
work=$(mktemp -d /var/tmp/xfercmp-relay.XXXXXX) || exit 1
tmp=$work
serve_pid=
relay_pid=
cleanup() {
	[ -n "$relay_pid" ] && kill -TERM "$relay_pid" 2>/dev/null
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"

# the relay: RELAY.py PORTFILE AGENT_PORT MODE [ORIG NEW]; MODE pass, swap (ORIG's
# bytes replaced by NEW's wherever they pass, client to agent), or flip (byte
# 3000 of every connection after the first, the control connection, flipped)
cat >"$work/relay.py" <<'PY'
import socket, sys, threading
portfile, agent, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
orig = open(sys.argv[4], "rb").read() if mode == "swap" else b""
new = open(sys.argv[5], "rb").read() if mode == "swap" else b""
lst = socket.socket()
lst.bind(("127.0.0.1", 0))
lst.listen(64)
open(portfile, "w").write("%d\n" % lst.getsockname()[1])
count = [0]

def pump(src, dst, alter):
    held, seen = b"", 0
    try:
        while True:
            # a tail held back (it may begin ORIG) goes on when the sender
            # pauses: the sender may be waiting for an answer to those bytes
            src.settimeout(1.0 if held else None)
            try:
                b = src.recv(1 << 16)
            except socket.timeout:
                dst.sendall(held)
                held = b""
                continue
            if not b:
                break
            if alter == "flip":
                if seen <= 3000 < seen + len(b):
                    i = 3000 - seen
                    b = b[:i] + bytes([b[i] ^ 0x20]) + b[i + 1:]
                seen += len(b)
                dst.sendall(b)
            elif alter == "swap":
                held += b
                at = held.find(orig)
                if at >= 0:
                    held = held[:at] + new + held[at + len(orig):]
                # hold back only a tail that may begin ORIG (cut by a read)
                cut = len(held)
                for p in range(max(0, len(held) - len(orig) + 1), len(held)):
                    if held[p] == orig[0] and orig.startswith(held[p:]):
                        cut = p
                        break
                dst.sendall(held[:cut])
                held = held[cut:]
            else:
                dst.sendall(b)
        if held:
            dst.sendall(held)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR) if s is src else s.shutdown(socket.SHUT_WR)
        except OSError:
            pass

while True:
    c, _ = lst.accept()
    a = socket.create_connection(("127.0.0.1", agent))
    n = count[0]
    count[0] += 1
    alter = mode if (mode == "swap" or (mode == "flip" and n > 0)) else "pass"
    threading.Thread(target=pump, args=(c, a, alter), daemon=True).start()
    threading.Thread(target=pump, args=(a, c, "pass"), daemon=True).start()
PY

head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chmod 600 "$work/token"
"$xf" serve --listen 127.0.0.1:0 --token-file "$work/token" --root "$work/root" >"$work/serve.out" 2>&1 &
serve_pid=$!
for ((i = 0; i < 50; i++)); do grep -q listening "$work/serve.out" && break; sleep 0.1; done
agent_port=$(sed -n 's/^xfercmp-agent listening 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.out")
[ -n "$agent_port" ]
ok $? "an agent by hand on 127.0.0.1:${agent_port:-?}"

# relay MODE [ORIG NEW]: (re)starts the relay; sets relay_port
relay() {
	[ -n "$relay_pid" ] && kill -TERM "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null
	rm -f "$work/relay.port"
	python3 "$work/relay.py" "$work/relay.port" "$agent_port" "$@" &
	relay_pid=$!
	for ((i = 0; i < 50; i++)); do [ -s "$work/relay.port" ] && break; sleep 0.1; done
	relay_port=$(cat "$work/relay.port")
}
through_relay() { # through_relay STRATEGY [TREE]: the client through the relay; LAST_OUT, rc
	LAST_OUT=$(timeout 120 "$xf" --agent "127.0.0.1:$relay_port" --token-file "$work/token" \
		--no-probes -w "dir:${2:-$work/src}" -s "$1" 2>&1)
	rc=$?
}

mkdir -p "$work/src"
head -c $((3 << 20)) /dev/urandom >"$work/src/big.bin"
printf '#!/bin/sh\necho "this is not the file that was sent"\n' >"$work/script"
"$collide" "$work/src/big.bin" "$work/script" "$work/orig.blk" "$work/new.blk" >"$work/collide.out"
ok $? "a first KiB that keeps big.bin's XXH3-64 with a shell script in it ($(cat "$work/collide.out"))"

relay pass
through_relay splice,zstd
[ "$rc" -eq 0 ] && grep -q "^splice *ok " <<<"$LAST_OUT" && grep -q "^zstd *ok " <<<"$LAST_OUT"
ok $? "through a relay that changes nothing: splice and zstd verify (exit $rc)"
[ "$rc" -eq 0 ] || tail -5 <<<"$LAST_OUT" | diag

relay flip
through_relay splice
[ "$rc" -eq 1 ] && grep -q "integrity check failed" <<<"$LAST_OUT" && ! grep -q "^splice *ok" <<<"$LAST_OUT"
ok $? "splice: a byte flipped on the way fails the run, naming integrity (exit $rc)"
[ "$rc" -eq 1 ] || tail -5 <<<"$LAST_OUT" | diag
mkdir -p "$work/small"
head -c $((100 << 10)) /dev/urandom >"$work/small/a.bin"
through_relay splice "$work/small"
[ "$rc" -eq 1 ] && grep -q "integrity check failed: segment" <<<"$LAST_OUT" && ! grep -q "^splice *ok" <<<"$LAST_OUT"
ok $? "splice: a byte of a small file (sealed) flipped fails the stream itself, naming integrity (exit $rc)"
[ "$rc" -eq 1 ] || tail -5 <<<"$LAST_OUT" | diag
through_relay zstd
[ "$rc" -eq 1 ] && grep -q "integrity check failed" <<<"$LAST_OUT" && ! grep -q "^zstd *ok" <<<"$LAST_OUT"
ok $? "zstd: a byte of the compressed stream flipped fails the run, naming integrity (exit $rc)"
[ "$rc" -eq 1 ] || tail -5 <<<"$LAST_OUT" | diag

relay swap "$work/orig.blk" "$work/new.blk"
through_relay splice
[ "$rc" -eq 1 ] && grep -q "^splice *FAILED .*integrity check failed" <<<"$LAST_OUT" &&
	! grep -q "^splice *ok" <<<"$LAST_OUT"
swapped=$?
ok $swapped "splice: the same-XXH3 block swapped in on the way is caught, naming integrity (exit $rc)"
[ "$swapped" -eq 0 ] || tail -8 <<<"$LAST_OUT" | diag

kill -0 "$serve_pid" 2>/dev/null
ok $? "the agent still runs after the altered streams"
finish
