#!/usr/bin/env bash
# Issue 22's attacks that need a real agent, a real host or another user:
#  1. strangers that say a hello to `xfercmp serve` without the session
#     key's tag and then nothing: each refused at once, never given the
#     agent's proof; the real client, connecting after them, gets in and
#     verifies;
#  2. an upload of the agent that fails (the host's ~/.cache/xfercmp on a
#     full 1 MiB tmpfs): one clear line, and no .tmp file left there;
#  3. a job directory swapped for a symbolic link by the agent's own user, as
#     root and as a user the test creates, before the receive and in the
#     middle of it: refused or harmless, nothing written outside the root;
#     a --remote-dir that is a symbolic link: refused, naming it, nothing
#     written at its target;
#  4. two runs sharing one --remote-dir;
#  5. and 6. a tree with 0555 and 0000 directories through every strategy,
#     the agent as root and as the user: nothing left behind;
#  7. a cleanup that fails (root's files in the user's agent's job
#     directory): both the agent and the client say so, with what to do,
#     and exit 1.
# Needs root (the testbed, useradd, mount). Talks only to 127.0.0.1 and
# 198.18.0.2.
#
#   bash tests/integration/security.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
cfg="$tbdir/ssh_config"
user=xfercmp-sec

skip_all_unless_root

serve_pid=
stranger_pid=
cleanup() {
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null
	[ -n "$stranger_pid" ] && kill -TERM "$stranger_pid" 2>/dev/null
	if [ -n "${home:-}" ] && mountpoint -q "$home/.cache/xfercmp" 2>/dev/null; then
		umount "$home/.cache/xfercmp" 2>/dev/null || umount -l "$home/.cache/xfercmp"
	fi
	drop_test_user "$user"
}
user_test_work security cleanup
home="$work/home"
now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- 0. what serve --help says
check_grep "serve --help says the raw strategies' data is not encrypted, and why, and the SSH ones' is" \
	"data is NOT encrypted \(that is what they measure: the link without a cipher\);" \
	"$("$xf" serve --help | tr '\n' ' ' | sed 's/  */ /g')"
check_grep "serve --help says the token never crosses the network and every control message is authenticated" \
	"never crosses the network\); every control message is authenticated" \
	"$("$xf" serve --help | tr '\n' ' ' | sed 's/  */ /g')"

# ---------------------------------------------------------------- 1. a stalled handshake
echo "# a stranger that stops after the agent's proof, at ${SECONDS} s"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chmod 600 "$work/token"
"$xf" serve --listen 127.0.0.1:0 --token-file "$work/token" --root "$work/serve-root" \
	>"$work/serve.out" 2>&1 &
serve_pid=$!
for ((i = 0; i < 50; i++)); do grep -q listening "$work/serve.out" && break; sleep 0.1; done
port=$(sed -n 's/^xfercmp-agent listening 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.out")
[ -n "$port" ]
ok $? "serve: listening on 127.0.0.1:${port:-?}"

# The strangers: $strangers connections, each a hello as the client's but
# without the tag only a holder of the session key can make, then nothing;
# the first alone, the others once the agent answered it, then at once the
# client. The log has "answered" if the agent proved itself to one (the
# protocol-2 agent answered every hello with its proof), "refused" when it
# said no, "closed" when it closed one. An agent that waited on each
# stranger in turn (5 s each, the others queued before the client) kept the
# client out past its 10 s wait: an older agent's client failed here. (A
# key holder that stalls in its handshake: tests/unit/agent/test_agent_gate.c.)
strangers=3
cat >"$work/stranger.py" <<'EOF'
import json, os, select, socket, struct, sys
port, n, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def say(w):
    with open(log, "a") as f:
        f.write(w + "\n")
def knock():
    s = socket.create_connection(("127.0.0.1", port))
    body = json.dumps({"proto": 6, "role": "control", "nonce": os.urandom(32).hex()}).encode()
    s.sendall(struct.pack(">IB3x", len(body), 1) + body)
    return s
# the first, and once the agent is on it (its answer has come), the others
socks = [knock()]
select.select(socks, [], [], 3)
socks += [knock() for _ in range(n - 1)]
say("connected")
bufs = {s: b"" for s in socks}
alive = list(socks)
while alive:
    r, _, _ = select.select(alive, [], [], 60)
    if not r:
        break
    for s in r:
        try:
            c = s.recv(4096)
        except OSError:
            c = b""
        if not c:
            say("closed")
            alive.remove(s)
            continue
        bufs[s] += c
        b = bufs[s]
        if len(b) >= 8 and len(b) >= 8 + struct.unpack(">I", b[:4])[0] and b[4] in (3, 4):
            p = json.loads(b[8:8 + struct.unpack(">I", b[:4])[0]])
            if "proof" in p and "nonce" in p:
                say("answered")
            if b[4] == 4:
                say("refused")
            bufs[s] = b"\xff" * 4
EOF
: >"$work/stranger.log"
python3 "$work/stranger.py" "$port" "$strangers" "$work/stranger.log" &
stranger_pid=$!
count() { grep -c "$1" "$work/stranger.log"; }
for ((i = 0; i < 50; i++)); do [ "$(count connected)" -ge 1 ] && break; sleep 0.1; done
[ "$(count connected)" -eq 1 ]
ok $? "stalled handshakes: $strangers strangers connected and said hello"
timeout 60 "$xf" --agent "127.0.0.1:$port" --token-file "$work/token" --no-probes \
	-w smallfiles --files 50 --source-dir "$work/s50" -s splice >"$work/client.out" 2>"$work/client.err"
rc=$?
[ "$rc" -eq 0 ]
ok $? "stalled handshakes: the real client, connecting after the strangers, ran and verified (exit $rc)"
[ "$rc" -eq 0 ] || tail -3 "$work/client.err" | diag
answered=$(count answered)
refused=$(count refused)
[ "$answered" -eq 0 ] && [ "$refused" -eq "$strangers" ]
ok $? "stalled handshakes: no stranger had the agent's proof (their hellos carry no tag of the key): $refused of $strangers refused, $answered answered"
for ((i = 0; i < 150; i++)); do [ "$(count closed)" -ge "$strangers" ] && break; sleep 0.1; done
[ "$(count closed)" -eq "$strangers" ]
ok $? "stalled handshakes: the agent closed every stranger in the end"
{ wait "$stranger_pid"; } 2>/dev/null
stranger_pid=
kill -0 "$serve_pid" 2>/dev/null
ok $? "stalled handshakes: the agent still runs"
kill -TERM "$serve_pid"
{ wait "$serve_pid"; } 2>/dev/null
serve_pid=
[ ! -e "$work/serve-root" ]
ok $? "stalled handshakes: the agent stopped and removed its root"

# ---------------------------------------------------------------- a user the test creates
# the testbed's key and config exist once it has been up
"$tb" up >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
"$tb" down >/dev/null 2>&1
make_test_user "$user" "$home"
uid_user=$(id -u "$user")
mkdir -p "$home/.cache/xfercmp"
chown "$user:" "$home/.cache" "$home/.cache/xfercmp"

# ---------------------------------------------------------------- 2. a failed upload of the agent
echo "# the agent's upload fails: the host's cache on a full 1 MiB tmpfs, at ${SECONDS} s"
# mounted before sshd starts: it sees the mounts of its start (faults.t)
mount -t tmpfs -o size=1m,mode=0700,uid="$uid_user" tmpfs "$home/.cache/xfercmp"
ok $? "upload: a 1 MiB tmpfs on $home/.cache/xfercmp (the agent is $(stat -c %s "$work/bin/xfercmp-agent") bytes)"
"$tb" up >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed >"$work/upload.out" 2>"$work/upload.err"
rc=$?
[ "$rc" -ne 0 ]
ok $? "upload: the run fails (exit $rc)"
lines=$(grep -c . "$work/upload.err")
last=$(tail -n 1 "$work/upload.err")
[ "$lines" -eq 1 ]
ok $? "upload: one line on stderr ($lines)"
[ "$lines" -eq 1 ] || diag <"$work/upload.err"
check_grep "upload: it says the host's cache has no room for the agent, and what to do" \
	"^xfercmp: .*cannot upload the agent to '$home/\.cache/xfercmp/xfercmp-agent-[^']*' on the host: no room in '$home/\.cache/xfercmp' \([0-9]+ KiB free, the agent needs [0-9]+ KiB\): free some space there, or install xfercmp on the host$" \
	"$last"
left=$(ls -A "$home/.cache/xfercmp")
[ -z "$left" ]
ok $? "upload: nothing left in the host's cache (no .tmp file)"
[ -z "$left" ] || printf '%s\n' "$left" | diag
"$tb" down >/dev/null 2>&1
umount "$home/.cache/xfercmp"
ok $? "upload: unmounted"

# a cached agent cut short (an upload a crash stopped, a full disk): replaced, never started
"$tb" up >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
check_rc 0 "upload: with room, the agent is uploaded and the run verifies" \
	as_user "$xf" -F "$home/ssh_config" -v --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed
cached=$(find "$home/.cache/xfercmp" -name 'xfercmp-agent-*' ! -name '*.tmp*' | head -n 1)
[ -n "$cached" ] && cmp -s "$cached" "$work/bin/xfercmp-agent"
ok $? "upload: the host's cache holds this agent (${cached##*/})"
truncate -s $(($(stat -c %s "$cached") / 2)) "$cached"
check_rc 0 "upload: a cached agent cut to half its size: the run still verifies" \
	as_user "$xf" -F "$home/ssh_config" -v --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed
check_grep "upload: the cut-short agent was replaced by an upload" "uploaded the agent to testbed:" "$LAST_OUT"
cmp -s "$cached" "$work/bin/xfercmp-agent" && [ -z "$(find "$home/.cache/xfercmp" -name '*.tmp*')" ]
ok $? "upload: the cache holds this agent again, and no .tmp file"

# a cached agent of the right size but other content: a script that would
# leave a mark if it ran; replaced by an upload, never started
size=$(stat -c %s "$cached")
printf '#!/bin/sh\ntouch %s/started\nexit 1\n' "$home" >"$cached"
truncate -s "$size" "$cached"
check_rc 0 "upload: a cached agent of the right size altered: the run still verifies" \
	as_user "$xf" -F "$home/ssh_config" -v --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed
check_grep "upload: the altered agent was replaced by an upload" "uploaded the agent to testbed:" "$LAST_OUT"
[ ! -e "$home/started" ] && cmp -s "$cached" "$work/bin/xfercmp-agent"
ok $? "upload: the altered agent never started (no $home/started), the cache holds this agent"
"$tb" down >/dev/null 2>&1

# the client killed in the middle of the upload (a link of 8 Mbit/s: the
# agent takes about 6 s): sftp-server keeps what it had written, the watcher
# the client started beside it removes it. The old client left the .tmpPID.
"$tb" up --rate 8mbit >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
rm -f "$cached"
as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed >"$work/killed.out" 2>"$work/killed.err" &
runner=$!
part=
for ((i = 0; i < 300; i++)); do
	part=$(find "$home/.cache/xfercmp" -name 'xfercmp-agent-*.tmp*' -size +64k 2>/dev/null | head -n 1)
	[ -n "$part" ] && break
	sleep 0.1
done
[ -n "$part" ]
ok $? "upload killed: the upload is under way (${part##*/}, $(stat -c %s "$part" 2>/dev/null) of $size bytes)"
# the client itself: the user's xfercmp, a grandchild of $runner (the
# function's subshell, then runuser); `pgrep -P $runner` found none, the
# upload ran to its end and the test failed in a fresh-clone CI run
pkill -KILL -u "$user" -x xfercmp
ok $? "upload killed: the client was killed mid-upload"
{ wait "$runner"; } 2>/dev/null
t0=$SECONDS
until_empty 100 0.2 find "$home/.cache/xfercmp" -name '*.tmp*'
ok $? "upload killed: no .tmp copy left in the host's cache (after $((SECONDS - t0)) s)"
[ -z "$left" ] || printf '%s\n' "$left" | diag
[ ! -e "$cached" ]
ok $? "upload killed: the partial copy never became the cached agent"
check_rc 0 "upload killed: the next run uploads the agent and verifies" \
	as_user "$xf" -F "$home/ssh_config" -v --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice testbed
cmp -s "$cached" "$work/bin/xfercmp-agent" && [ -z "$(find "$home/.cache/xfercmp" -name '*.tmp*')" ]
ok $? "upload killed: the cache holds this agent, and no .tmp file"
"$tb" down >/dev/null 2>&1

# ---------------------------------------------------------------- 3. a job directory swapped
echo "# job directories swapped for links, at ${SECONDS} s"
"$tb" up --rate 200mbit >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
# wait_dest DIR PID: until DIR holds a job directory with something in it (0), or PID ended
wait_dest() {
	local i
	for ((i = 0; i < 600; i++)); do
		compgen -G "$1/xfercmp.*/*-splice/*" >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	compgen -G "$1/xfercmp.*/*-splice/*" >/dev/null
}
# leftovers DIR: the scratch roots left in DIR
leftovers() { find "$1" -mindepth 1 -maxdepth 1 -name 'xfercmp.*' 2>/dev/null; }

echo "# at ${SECONDS} s"
# 3a. root's agent, with a parent inside the user's home: the user could swap it, so refused
mkdir -p "$home/scratch"
chown "$user:" "$home/scratch"
"$xf" -F "$cfg" --no-probes -w smallfiles --files 20 --source-dir "$work/s20" -s splice \
	--remote-dir "$home/scratch" testbed >"$work/3a.out" 2>"$work/3a.err"
rc=$?
[ "$rc" -ne 0 ]
ok $? "as root, parent in $user's home: refused (exit $rc)"
check_grep "as root, parent in $user's home: one line naming the directory $user owns" \
	"^xfercmp: .*scratch parent '$home/scratch': '$home' belongs to uid $uid_user, who could move it away" \
	"$(tail -n 1 "$work/3a.err")"
[ -z "$(ls -A "$home/scratch")" ]
ok $? "as root, parent in $user's home: nothing made there"

echo "# at ${SECONDS} s"
# 3b. root's agent: the user tries to swap the job directory in the middle of the run
rd="$work/remote"
mkdir -p "$rd" "$work/outside-root"
chmod 755 "$work/outside-root"
chown "$user:" "$work/outside-root"
"$xf" -F "$cfg" --no-probes -w largefile --size 64M --source-dir "$work/big" -s splice \
	--remote-dir "$rd" --json "$work/3b.json" testbed >"$work/3b.out" 2>"$work/3b.err" &
pid=$!
wait_dest "$rd" "$pid"
ok $? "as root: splice is writing into its root in $rd (at ${SECONDS} s)"
# the agent listens where the SSH connection came in (SSH_CONNECTION's third field), no wider
listens=$(ip netns exec xfercmp-host ss -Hltnp 2>/dev/null | grep xfercmp-agent | awk '{print $4}')
[ -n "$listens" ] && ! grep -vq '^198\.18\.0\.2:[0-9]*$' <<<"$listens"
ok $? "as root: the agent listens only on the address SSH reached, 198.18.0.2 ($(tr '\n' ' ' <<<"$listens"))"
job=$(compgen -G "$rd/xfercmp.*/*-splice" | head -n 1)
as_user sh -c "mv '$job' '$job.moved' || exit 1; ln -s '$work/outside-root' '$job'" 2>"$work/3b.swap"
src=$?
{ wait "$pid"; } 2>/dev/null
rc=$?
[ "$src" -ne 0 ]
ok $? "as root: $user cannot touch the job directory ($(head -c 120 "$work/3b.swap"))"
[ "$rc" -eq 0 ]
ok $? "as root: the run verifies (exit $rc, at ${SECONDS} s)"
[ -z "$(ls -A "$work/outside-root")" ]
ok $? "as root: nothing written in the link's target"
[ -z "$(leftovers "$rd")" ]
ok $? "as root: its root in $rd removed"

echo "# at ${SECONDS} s"
# 3c. the user's agent: the user (the agent's own rights) swaps the job directory mid-run
mkdir -p "$home/outside"
chown "$user:" "$home/outside"
as_user "$xf" -F "$home/ssh_config" --no-probes -w largefile --size 64M --source-dir "$home/big" \
	-s splice --remote-dir "$home/scratch" --json "$home/3c.json" testbed \
	>"$work/3c.out" 2>"$work/3c.err" &
pid=$!
wait_dest "$home/scratch" "$pid"
ok $? "as $user: splice is writing into its root in $home/scratch (at ${SECONDS} s)"
job=$(compgen -G "$home/scratch/xfercmp.*/*-splice" | head -n 1)
as_user sh -c "mv '$job' '$job.moved' && ln -s '$home/outside' '$job'"
ok $? "as $user: the job directory $job swapped for a link to $home/outside"
{ wait "$pid"; } 2>/dev/null
rc=$?
[ "$rc" -eq 1 ]
ok $? "as $user: the run fails (exit $rc, at ${SECONDS} s)"
why=$(json_get "$home/3c.json" "d['results'][0]['error']")
check_grep "as $user: the agent refused the link, saying so" \
	"is a symbolic link now, not the directory the agent made: refused" "$why"
[ -z "$(ls -A "$home/outside")" ]
ok $? "as $user: nothing written in the link's target"
until_empty 30 0.5 leftovers "$home/scratch"
ok $? "as $user: its root removed, the moved directory with it"
[ -z "$left" ] || printf '%s\n' "$left" | diag

echo "# at ${SECONDS} s"
# 3d. the user's run with --remote-dir a symbolic link (the parent the agent
# would make its root in): the agent refuses it, naming the link; nothing is
# made at its target. The old agent made its root there (issue 22).
mkdir -p "$home/link-target"
chown "$user:" "$home/link-target"
as_user ln -s "$home/link-target" "$home/scratch-link"
as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	-s splice,tar-ssh --remote-dir "$home/scratch-link" testbed >"$work/3d.out" 2>"$work/3d.err"
rc=$?
[ "$rc" -eq 1 ]
ok $? "as $user, --remote-dir a link: refused (exit $rc)"
check_grep "as $user, --remote-dir a link: one line naming the link and what to do" \
	"^xfercmp: .*scratch parent '$home/scratch-link' is a symbolic link: name the directory itself" \
	"$(tail -n 1 "$work/3d.err")"
[ -z "$(ls -A "$home/link-target")" ] && [ -L "$home/scratch-link" ]
ok $? "as $user, --remote-dir a link: nothing made at its target, the link left as it was"

# ---------------------------------------------------------------- 4. two runs, one --remote-dir
echo "# two runs at once sharing --remote-dir, at ${SECONDS} s"
shared="$work/shared"
mkdir -p "$shared"
echo precious >"$shared/data.txt"
for k in 1 2; do
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 2000 --source-dir "$work/two$k" \
		-s splice,tar-ssh --remote-dir "$shared" >"$work/two$k.out" 2>"$work/two$k.err" &
	eval "two_pid$k=\$!"
done
{ wait "$two_pid1"; } 2>/dev/null
rc1=$?
{ wait "$two_pid2"; } 2>/dev/null
rc2=$?
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]
ok $? "two runs sharing --remote-dir: both verify (exit $rc1 and $rc2)"
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] || tail -n 2 "$work/two1.err" "$work/two2.err" | diag
[ "$(ls -A "$shared")" = data.txt ] && [ "$(cat "$shared/data.txt")" = precious ]
ok $? "two runs sharing --remote-dir: each removed only its own root; the data there is untouched"

# ---------------------------------------------------------------- 5. 0555 and 0000 directories, a user's agent
echo "# a tree with 0555 and 0000 directories to an agent run by $user, at ${SECONDS} s"
# read as root (only root reads a 0000 directory), received by the user's agent on
# loopback: it must verify what it cannot walk as it is, and remove all of it
t5="$work/ro-tree"
mkdir -p "$t5/d555/sub" "$t5/d000/in" "$t5/e000"
echo a >"$t5/d555/a"
echo c >"$t5/d555/sub/c"
echo b >"$t5/d000/b"
echo d >"$t5/d000/in/d"
chmod 0000 "$t5/d000/in"
chmod 0555 "$t5/d555"
chmod 0000 "$t5/d000" "$t5/e000"
cp "$work/token" "$home/token"
chown "$user:" "$home/token"
mkdir -p "$home/serve-parent"
chown "$user:" "$home/serve-parent"
as_user timeout 120 "$xf" serve --once --listen 127.0.0.1:0 --token-file "$home/token" \
	--root "$home/serve-parent" >"$work/serve5.out" 2>&1 &
serve_pid=$!
for ((i = 0; i < 50; i++)); do grep -q listening "$work/serve5.out" && break; sleep 0.1; done
port=$(sed -n 's/^xfercmp-agent listening 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve5.out")
timeout 120 "$xf" --agent "127.0.0.1:$port" --token-file "$work/token" --no-probes -w "dir:$t5" \
	-s splice,zstd,parallel --json "$work/ro.json" >"$work/ro.out" 2>"$work/ro.err"
rc=$?
[ "$rc" -eq 0 ]
ok $? "0000 directories to $user's agent: splice, zstd and parallel verify (exit $rc)"
[ "$rc" -eq 0 ] || grep -E "^(splice|zstd|parallel) " "$work/ro.out" | cut -c1-200 | diag
kept=$(json_get "$work/ro.json" "','.join(str((r.get('preserved') or {}).get('modes')) for r in d['results'])" 2>/dev/null)
[ "$kept" = "True,True,True" ]
ok $? "0000 directories to $user's agent: each kept the modes, 0000 ones included ($kept)"
# --once: the agent ends with the client's session, removing its root
{ wait "$serve_pid"; } 2>/dev/null
src=$?
serve_pid=
[ "$src" -eq 0 ] && [ -z "$(ls -A "$home/serve-parent")" ]
ok $? "0000 directories to $user's agent: it ended (exit $src) and nothing is left in its parent"
[ -z "$(ls -A "$home/serve-parent")" ] || find "$home/serve-parent" | head -5 | diag

# ---------------------------------------------------------------- 6. the same tree through every strategy
# The tree of 5 through every own and every reference strategy to the testbed,
# the remote side run as root and as $user (the client is root both times:
# only root reads a 0000 directory on this side); afterwards nothing is left
# under the scratch parent, whatever the strategy's own tool left behind.
# As root, -s all,real verifies and exits 0. As $user, every strategy but
# rsync's two verifies and exits 0; rsync's two, run apart, must be refused
# by the verification, naming the mode (NAME=PATTERN, the reason the result
# must give), and exit 1: rsync (real-rsync, and fpsync's rsync workers) sets
# d000 to 0000 before it comes to d000/in, cannot reach in to give it its
# mode and mtime, and exits 0 all the same (rsync 3.2.7, seen by hand:
# 'rsync -a' as that user leaves d000/in 0700).
rsync_refused='verification failed: .*mode differs: d000/in \(expected 0000, found 0700\)'
# results_bad JSON: prints what is wrong with the results (nothing when all is well)
results_bad() {
	python3 - "$1" "${refused[@]}" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
refused = dict(a.split("=", 1) for a in sys.argv[2:])
for r in d["results"]:
    why = r["error"] or ""
    if r["strategy"] in refused:
        if r["status"] == "ok" or not re.search(refused[r["strategy"]], why):
            print("%s: %s (%s), want refused: %s" % (r["strategy"], r["status"], why, refused[r["strategy"]]))
    elif r["status"] != "ok" or r["verified"] is not True:
        print("%s: status %s, verified %s, error %s" % (r["strategy"], r["status"], r["verified"], why))
PY
}
# everything_left PARENT: what is under PARENT, and the host's processes naming it
everything_left() {
	local p
	find "$1" -mindepth 1 2>/dev/null | head -n 5
	for p in $(ns_procs_with "$1"); do
		echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	done
}
"$tb" up >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
# ssh refuses a config another user owns: the user's, owned by root
cp "$home/ssh_config" "$work/user_ssh_config"
# every strategy but rsync's two
others=$("$xf" --list-strategies | cut -f1 | grep -vxE 'real-rsync|real-fpsync' | paste -sd, -)
# through NAME SIDE STRATEGIES WANT [NAME=PATTERN...]: the tree through STRATEGIES, the
# remote side as SIDE, each in a parent of its own; the run must exit WANT, each
# strategy verify or be refused as NAME=PATTERN says, and nothing be left
through() {
	local name=$1 side=$2 list=$3 want=$4 conf parent rc want_n got_n
	shift 4
	refused=("$@")
	echo "# the tree through -s $list, the remote side as $side, at ${SECONDS} s"
	if [ "$side" = root ]; then
		conf=$cfg parent="$work/p6-$name"
		mkdir -p "$parent"
	else
		conf="$work/user_ssh_config" parent="$home/p6-$name"
		mkdir -p "$parent"
		chown "$user:" "$parent"
	fi
	timeout 900 "$xf" -F "$conf" --no-probes --allow-cleartext -w "dir:$t5" -s "$list" \
		--remote-dir "$parent" --json "$work/$name.json" testbed >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	[ "$rc" -eq "$want" ]
	ok $? "0000 directories, $name (remote side $side): exits $want (exit $rc; ${#refused[@]} refused)"
	[ "$rc" -eq "$want" ] || tail -n 3 "$work/$name.err" | diag
	if [ "$list" = all,real ]; then
		want_n=$("$xf" --list-strategies | wc -l)
	else
		want_n=$(tr ',' '\n' <<<"$list" | wc -l)
	fi
	got_n=$(json_get "$work/$name.json" "len(d['results'])")
	[ "$got_n" = "$want_n" ]
	ok $? "0000 directories, $name (remote side $side): every strategy asked for ran ($got_n of $want_n)"
	ok_results "0000 directories, $name (remote side $side): each strategy verified, or refused saying why" \
		"$work/$name.json"
	until_empty 30 0.5 everything_left "$parent"
	ok $? "0000 directories, $name (remote side $side): nothing left under $parent, no process on the host naming it"
	[ -z "$left" ] || printf '%s\n' "$left" | diag
}
through all-real-as-root root all,real 0
through all-but-rsync-as-user "$user" "$others" 0
through rsync-as-user "$user" real-rsync,real-fpsync 1 \
	"real-rsync=$rsync_refused" "real-fpsync=$rsync_refused"

# ---------------------------------------------------------------- 7. a cleanup that fails
echo "# a cleanup that fails: root's files in $user's agent's job directory, at ${SECONDS} s"
# The user's agent on loopback (serve --once); root's client runs a cmd:
# strategy that copies, as root, a 0555 directory holding a file into the
# job directory: the copy verifies, but the user can neither remove the
# file (the directory is root's and read-only) nor make the directory
# writable. Both ends must say the cleanup failed, where, and what to do,
# and exit 1; the agent keeps the root's marker (for a fallback).
t7="$work/stuck-tree"
mkdir -p "$t7/d555"
echo a >"$t7/d555/a"
echo top >"$t7/top.txt"
chmod 0555 "$t7/d555"
p7="$home/serve-stuck"
mkdir -p "$p7"
chown "$user:" "$p7"
as_user timeout 120 "$xf" serve --once --listen 127.0.0.1:0 --token-file "$home/token" \
	--root "$p7" >"$work/serve7.out" 2>"$work/serve7.err" &
serve_pid=$!
for ((i = 0; i < 50; i++)); do grep -q listening "$work/serve7.out" && break; sleep 0.1; done
port=$(sed -n 's/^xfercmp-agent listening 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve7.out")
timeout 120 "$xf" --agent "127.0.0.1:$port" --token-file "$work/token" --no-probes -w "dir:$t7" \
	-s 'cmd:as-root=cp -a {src}/d555 {src}/top.txt {dst}' --json "$work/stuck.json" \
	>"$work/stuck.out" 2>"$work/stuck.err"
rc=$?
[ "$rc" -eq 1 ]
ok $? "cleanup fails: the client exits 1 (exit $rc)"
st=$(json_get "$work/stuck.json" "[(r['status'], r['verified']) for r in d['results']]")
[ "$st" = "[('ok', True)]" ]
ok $? "cleanup fails: the strategy itself verified, so the exit is the cleanup's ($st)"
root7=$(compgen -G "$p7/xfercmp.*" | head -n 1)
[ -n "$root7" ]
ok $? "cleanup fails: the agent's root is left in $p7 (${root7##*/})"
lines=$(grep -c . "$work/stuck.err")
[ "$lines" -eq 1 ]
ok $? "cleanup fails: the client says one line on stderr ($lines)"
check_grep "cleanup fails: the client says where it failed and why, and the command that removes the rest" \
	"^xfercmp: cleanup on 127\.0\.0\.1 failed: agent: cannot remove '$root7/1-as-root' \(first at 'd555/a'\): Permission denied; remove what is left there with: chmod -R u\+rwx '$root7' && rm -rf '$root7'$" \
	"$(cat "$work/stuck.err")"
{ wait "$serve_pid"; } 2>/dev/null
src=$?
serve_pid=
[ "$src" -eq 1 ]
ok $? "cleanup fails: the agent exits 1 (exit $src)"
check_grep "cleanup fails: the agent says its scratch root is left behind, where it failed, and the command that removes it" \
	"^xfercmp serve: scratch root left behind \(remove it with: chmod -R u\+rwx '$root7' && rm -rf '$root7'\): cannot remove '$root7' \(first at '1-as-root/d555/a'\): Permission denied$" \
	"$(cat "$work/serve7.err")"
[ -f "$root7/.xfercmp-agent" ]
ok $? "cleanup fails: the root keeps its marker"
rm -rf "$root7" && [ -z "$(ls -A "$p7")" ]
ok $? "cleanup fails: root removes what was left"

finish
