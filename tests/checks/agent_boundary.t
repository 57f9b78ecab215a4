#!/usr/bin/env bash
# The agent's boundary, checked on the binaries (issue 18): the static
# xfercmp-agent links only transfer/agent, transfer/stream, transfer/sample,
# workloads and common (scripts/layers.mk, AGENT_LAYERS). This test
# - finds no symbol of the SSH layer, the client, the probes, a strategy,
#   the model or the runner in the built
#   agent, and none of libssh's;
# - links the agent again with one extra object that calls into each
#   forbidden role and sees each link fail on that call, while the same
#   object calling into an allowed role links.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

build=${BUILD:-build}
agent=$top/xfercmp-agent
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
on_exit cleanup

plan 15

[ -x "$agent" ]
ok $? "the agent is built ($agent)"

# Global symbols each forbidden role defines, from its objects.
forbidden_symbols() {
	local role=$1
	nm --defined-only -g "$top/$build"/obj/transfer/"$role"/*.o 2>/dev/null |
		awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u
}
nm "$agent" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/agent.syms"
for role in ssh client probe strategy model run; do
	forbidden_symbols "$role" >"$tmp/$role.syms"
	found=$(comm -12 "$tmp/agent.syms" "$tmp/$role.syms")
	[ -s "$tmp/$role.syms" ] && [ -z "$found" ]
	ok $? "the agent holds none of transfer/$role's $(wc -l <"$tmp/$role.syms") symbols"
	[ -z "$found" ] || head -5 <<<"$found" | diag
done
libssh=$(grep -cE '^(ssh_(new|connect|channel_[a-z_]+|userauth_[a-z_]+)|sftp_[a-z_]+)$' "$tmp/agent.syms")
[ "$libssh" -eq 0 ]
ok $? "the agent holds no libssh symbol ($libssh found)"

# link_with NAME CALL: links the agent with one object whose function calls
# CALL (declared here; only the link matters), into $tmp/NAME; keeps the
# link's output in $tmp/NAME.log. Returns the link's status.
link_with() {
	local name=$1 call=$2
	printf 'extern int %s(void);\nint boundary_probe(void);\nint boundary_probe(void) { return %s(); }\n' \
		"$call" "$call" >"$tmp/$name.c"
	cc -c -o "$tmp/$name.o" "$tmp/$name.c" || return 2
	make -C "$top" --no-print-directory -s AGENT_BIN="$tmp/$name" AGENT_EXTRA_OBJ="$tmp/$name.o" \
		"$tmp/$name" >"$tmp/$name.log" 2>&1
}

link_with stream frame_encode
rc=$?
ok $rc "an agent that calls transfer/stream (frame_encode) links"
[ $rc -eq 0 ] || tail -5 "$tmp/stream.log" | diag

for pair in ssh:ssh_conn_open client:agent_client_connect probe:probe_network strategy:strategy_find \
	model:verdict_compute run:runner_run; do
	role=${pair%%:*}
	call=${pair#*:}
	link_with "$role" "$call"
	rc=$?
	[ "$rc" -ne 0 ] && grep -q "undefined reference to \`$call'" "$tmp/$role.log" && [ ! -e "$tmp/$role" ]
	rc=$?
	ok $rc "an agent that calls transfer/$role ($call) fails to link"
	[ $rc -eq 0 ] || tail -5 "$tmp/$role.log" | diag
done
finish
