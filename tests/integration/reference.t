#!/usr/bin/env bash
# The reference strategies (the system's own scp, rsync, tar, ssh, zstd) and
# cmd:NAME=COMMAND against the testbed host: every real-* strategy ok and
# verified on small files and on a large file; a cmd: strategy verified, a
# failing one reporting its program's message, bad cmd: specs refused with
# exit 2; -s all without them, -s real without a host; a program missing here
# skips its strategies with the reason; a tree with links, hard links, a
# fifo, empty and read-only directories verified through each, keeping what
# its tool keeps; a client killed mid-run leaves no program of a reference
# strategy running.
# Needs root (the testbed). Only ever talks to 198.18.0.2 and loopback.
#
#   bash tests/integration/reference.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
ns=xfercmp-host
real=(real-scp real-scp-legacy real-rsync real-tar-ssh real-tar-zstd-ssh real-tar-nc real-rclone real-fpsync)
# fpsync pastes paths into shell lines and refuses a --remote-dir with a '$' (parallel_tools.t)
real_odd=(real-scp real-scp-legacy real-rsync real-tar-ssh real-tar-zstd-ssh real-tar-nc real-rclone)

skip_all_unless_root

work=$(mktemp -d /var/tmp/xfercmp-reference.XXXXXX) || exit 1
client_pid=
cleanup() {
	[ -n "$client_pid" ] && kill -KILL "$client_pid" 2>/dev/null
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup

# A private copy of the client and its agent: a rebuild meanwhile changes nothing here.
private_client "$work"

# procs_with TEXT: pids here or in the testbed namespace whose command line has TEXT
procs_with() {
	local p c
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] && continue
		c=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
		[[ $c == *"$1"* ]] && echo "$p"
	done
}

# ---------------------------------------------------------------- without the testbed
# -s all leaves them out; -s real without a host runs real-tar-nc on loopback
json="$work/all.json"
check_rc 0 "-s all, no host: runs" "$xf" --no-probes -w smallfiles --files 50 -s all --json "$json"
names=$(json_get "$json" "','.join(r['strategy'] for r in d['results'])" 2>/dev/null)
[ -n "$names" ] && ! grep -q 'real-' <<<"$names"
ok $? "-s all holds no real-* strategy ($names)"

json="$work/real_local.json"
check_rc 0 "-s real, no host: exit 0" "$xf" --no-probes -w smallfiles --files 300 -s real --json "$json"
ok_results "-s real, no host: real-tar-nc verified, the SSH ones skipped" "$json" "$(IFS=,; echo "${real[*]}")" \
	real-scp="SSH host" real-scp-legacy="SSH host" real-rsync="SSH host" real-tar-ssh="SSH host" \
	real-tar-zstd-ssh="SSH host" real-rclone="SSH host" real-fpsync="SSH host"

# bad cmd: specs: usage errors, nothing run
bad_spec() { # bad_spec DESCRIPTION SPEC PATTERN
	check_rc 2 "bad cmd spec: $1" "$xf" --no-probes -w smallfiles --files 10 -s "$2"
	check_grep "bad cmd spec: $1: says why" "$3" "$LAST_OUT"
}
bad_spec "quoted placeholder" "cmd:x=cp -r '{src}'/. {dst}" "placeholder \{src\} is inside '...' quotes"
bad_spec "double-quoted placeholder" 'cmd:x=cp -r {src}/. "{dst}"' 'placeholder \{dst\} is inside "..." quotes'
bad_spec "unknown placeholder" "cmd:x=cp -r {src}/. {dest}" "unknown placeholder '\{dest\}'"
bad_spec "bad name" "cmd:My_Copy=cp -r {src}/. {dst}" "name 'My_Copy': use 1 to 32 of a-z, 0-9 and '-'"
bad_spec "built-in name" "cmd:scp=cp -r {src}/. {dst}" "'scp' is a built-in strategy's"
bad_spec "no {dst}" "cmd:x=cp -r {src}/. /var/tmp" "does not use \{dst\}"
bad_spec "unterminated quote" "cmd:x=cp -r {src}/. {dst} 'x" "unterminated ' quote"
bad_spec "no =" "cmd:x" "expected cmd:NAME=COMMAND"
bad_spec "the same name twice" "cmd:x=cp -r {src}/. {dst},cmd:x=cp -a {src}/. {dst}" "two strategies named 'x'"

# cmd: strategies on loopback: two of them, a comma inside a command
json="$work/cmd_local.json"
check_rc 0 "two cmd: strategies, no host" "$xf" --no-probes -w smallfiles --files 200 --json "$json" \
	-s "cmd:cp=cp -r {src}/. {dst},cmd:rsync-local=rsync -a --chmod=u=rwX,go=rX {src}/ {dst}"
ok_results "two cmd: strategies, no host: both verified" "$json" "cp,rsync-local"

# a program missing here: PATH holds every program of this system but rsync and zstd
path_without "$work/norsync-bin" rsync zstd zstdmt unzstd

# ---------------------------------------------------------------- against the testbed
if ! out=$("$tb" up 2>&1); then
	printf '%s\n' "$out" | diag
	echo "Bail out! testbed.sh up failed"
	exit 1
fi

ensure_testbed "smallfiles"
json="$work/small.json"
check_rc 0 "smallfiles (1000 files), -s real: exit 0" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 1000 -s real --json "$json" testbed
ok_results "smallfiles: every real-* strategy ok and verified" "$json" "$(IFS=,; echo "${real[*]}")"
echo "# smallfiles: $(seconds "$json")"

# a --remote-dir that the host's shell would split or run: every program takes it as
# one path (rsync with -s, whatever its version); --zstd-threads 0 is zstd's
# --single-thread (its -T0 would be every core)
ensure_testbed "odd --remote-dir"
odd="$work/remote dir \$(touch $work/pwned)"
json="$work/odd.json"
check_rc 0 "--remote-dir with a space and \$(...), --zstd-threads 0, -s real but fpsync: exit 0" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 100 -s "$(IFS=,; echo "${real_odd[*]}")" --zstd-threads 0 \
	--remote-dir "$odd" --json "$json" testbed
ok_results "odd --remote-dir: every real-* strategy but fpsync ok and verified" "$json" "$(IFS=,; echo "${real_odd[*]}")"
[ ! -e "$work/pwned" ] && [ ! -e "$odd" ] && [ ! -e "$work/remote" ]
ok $? "odd --remote-dir: nothing ran on the host's shell, and the directory is gone"

ensure_testbed "largefile"
json="$work/large.json"
check_rc 0 "largefile (64M), -s real: exit 0" \
	"$xf" -F "$cfg" --no-probes -w largefile --size 64M -s real --json "$json" testbed
ok_results "largefile: every real-* strategy ok and verified" "$json" "$(IFS=,; echo "${real[*]}")"
echo "# largefile: $(seconds "$json")"
json_get "$json" "[r for r in d['results'] if r['strategy']=='real-tar-nc'][0]['wire_bytes'] >= d['workload']['bytes']" |
	grep -qx True
ok $? "largefile: real-tar-nc counts at least the workload's bytes on the wire"
# the tools that count nothing: the link's counters, marked so (issue 44, item 6)
from=$(json_get "$json" "sorted(set((r['wire_bytes_from'], r['wire_bytes'] is not None and r['wire_bytes'] > 0) for r in d['results'] if r['strategy'] != 'real-tar-nc'))")
[ "$from" = "[('link', True)]" ]
ok $? "largefile: every other real-* has its wire bytes from the link ($from)"
json_get "$json" "all(r['wire_bytes'] >= d['workload']['bytes'] for r in d['results'] if r['strategy'] in ('real-scp', 'real-tar-ssh'))" |
	grep -qx True
ok $? "largefile: real-scp's and real-tar-ssh's link bytes are at least the workload's"

ensure_testbed "cmd: over ssh"
qcfg=$(printf %q "$cfg")
json="$work/cmd.json"
check_rc 0 "cmd: tar | ssh tar: exit 0" "$xf" -F "$cfg" --no-probes -w smallfiles --files 500 --json "$json" \
	-s "real-tar-ssh,cmd:mycp=tar -cf - -C {src} . | ssh -F $qcfg {host} tar -xf - -C {rdst}" testbed
ok_results "cmd: tar | ssh tar: verified, as real-tar-ssh" "$json" "real-tar-ssh,mycp"

json="$work/cmd_fail.json"
check_rc 1 "cmd: failing on the host: exit 1" "$xf" -F "$cfg" --no-probes -w smallfiles --files 20 --json "$json" \
	-s "cmd:broken=tar -cf - -C {src} . | ssh -F $qcfg {host} tar -xf - -C {dst}/missing" testbed
err=$(json_get "$json" "d['results'][0]['error']" 2>/dev/null)
check_grep "cmd: failing: the error is the host tar's first line ($err)" \
	"^broken failed \(exit 2\): tar: .*/missing: Cannot open: No such file or directory" "$err"

ensure_testbed "missing programs"
json="$work/norsync.json"
check_rc 0 "no rsync or zstd here: exit 0" env PATH="$work/norsync-bin" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 200 -s real --json "$json" testbed
ok_results "no rsync or zstd here: real-rsync and real-tar-zstd-ssh skipped, the rest verified" "$json" \
	"$(IFS=,; echo "${real[*]}")" real-rsync="'rsync' is not installed here" \
	real-tar-zstd-ssh="'zstd' is not installed here" real-fpsync="'rsync' is not installed here"

# ---------------------------------------------------------------- a tree with links
# What OpenSSH's scp refuses or follows (links to directories at the top and
# deeper, dangling ones, one inside a 0555 directory, a fifo), hard links,
# empty and read-only directories, a 0664 file (the host's umask makes it
# 0644 for scp): the scp model and the reference strategies end ok and
# verified, each keeping what its tool keeps (real_scp.c, real_rsync.c,
# real_tar.c say why), and real scp's shared connection is gone afterwards.
# scp -O cannot carry a name holding a newline: such a tree is skipped, said by name.
make_tree() { # make_tree ROOT
	local r=$1
	mkdir -p "$r/src/lib" "$r/empty/a/b" "$r/ro" "$r/media" "$r/odd dir"
	printf 'hello\n' >"$r/src/main.c"
	printf 'int x;\n' >"$r/src/lib/x.h"
	printf 'shared\n' >"$r/media/one"
	ln "$r/media/one" "$r/media/two"
	ln "$r/media/one" "$r/src/three"
	printf 'group\n' >"$r/src/gw"
	printf 'spaces\n' >"$r/odd dir/a b"
	printf 'latin1\n' >"$r/odd dir/caf"$'\xe9'
	ln -s ../main.c "$r/src/lib/rel-link"
	ln -s /etc/hostname "$r/abs-link"
	ln -s does/not/exist "$r/dangling"
	ln -s src/lib "$r/dir-link"
	ln -s ../../src "$r/empty/a/deep-dir-link"
	ln -s ../../etc/passwd "$r/src/escape"
	printf 'ro\n' >"$r/ro/one"
	ln -s nowhere "$r/ro/dangling"
	mkfifo "$r/src/fifo"
	chmod 0664 "$r/src/gw"
	chmod 0600 "$r/media/one"
	find "$r" -mindepth 1 ! -type d -exec touch -h -d '2021-03-04 05:06:07' {} +
	find "$r" -mindepth 1 -depth -type d -exec touch -d '2020-01-02 03:04:05' {} +
	chmod 0555 "$r/ro"
}
# tree_bad JSON NAME=KEPT...: what is wrong (nothing when all is well): each NAME
# ok and verified with its content, keeping exactly KEPT (comma-separated kinds)
tree_bad() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict(a.split("=", 1) for a in sys.argv[2:])
kinds = ["symlinks", "hardlinks", "empty_dirs", "modes", "mtimes"]
got = {r["strategy"]: r for r in d["results"]}
if sorted(got) != sorted(want):
    print("results %s, want %s" % (sorted(got), sorted(want)))
for name, w in want.items():
    r = got.get(name)
    if r is None:
        continue
    p = r.get("preserved") or {}
    if r["status"] != "ok" or r["verified"] is not True or p.get("content") is not True:
        print("%s: status %s, verified %s, error %s" % (name, r["status"], r["verified"], r["error"]))
        continue
    kept = ",".join(k for k in kinds if p.get(k))
    if kept != w:
        print("%s: kept %s, want %s" % (name, kept or "-", w))
EOF
}
all_kinds=symlinks,hardlinks,empty_dirs,modes,mtimes
make_tree "$work/tree"
ensure_testbed "the tree with links"
json="$work/tree.json"
check_rc 0 "a tree with links, the scp model and the SSH reference strategies: exit 0" \
	"$xf" -F "$cfg" --no-probes -w "dir:$work/tree" --json "$json" \
	-s scp,real-scp,real-scp-legacy,real-rsync,real-tar-ssh,real-tar-zstd-ssh testbed
bad=$(tree_bad "$json" scp=empty_dirs real-scp=empty_dirs real-scp-legacy=empty_dirs \
	real-rsync=$all_kinds real-tar-ssh=$all_kinds real-tar-zstd-ssh=$all_kinds 2>&1)
[ -z "$bad" ]
ok $? "a tree with links: each ok and verified, keeping what its tool keeps"
[ -z "$bad" ] || printf '%s\n' "$bad" "$LAST_OUT" | diag
[ -z "$(procs_with xfercmp-scp.)" ] && ! compgen -G '/tmp/xfercmp-scp.*' >/dev/null
ok $? "a tree with links: real scp's shared ssh connection and its socket are gone"
# the same without the 0664 file: scp's modes are then all kept
chmod u+w "$work/tree/src" && rm "$work/tree/src/gw" && touch -d '2020-01-02 03:04:05' "$work/tree/src"
check_rc 0 "a tree with links, modes the umask leaves: exit 0" \
	"$xf" -F "$cfg" --no-probes -w "dir:$work/tree" --json "$json" -s scp,real-scp,real-scp-legacy testbed
bad=$(tree_bad "$json" scp=empty_dirs,modes real-scp=empty_dirs,modes real-scp-legacy=empty_dirs,modes 2>&1)
[ -z "$bad" ]
ok $? "modes the umask leaves: scp, real-scp and real-scp-legacy keep them"
[ -z "$bad" ] || printf '%s\n' "$bad" "$LAST_OUT" | diag
printf 'newline\n' >"$work/tree/odd dir/new"$'\n'"line"
touch -d '2020-01-02 03:04:05' "$work/tree/odd dir"
check_rc 0 "a name holding a newline: real-scp runs, real-scp-legacy is skipped" \
	"$xf" -F "$cfg" --no-probes -w "dir:$work/tree" -s real-scp,real-scp-legacy testbed
check_grep "a name holding a newline: real-scp verified, real-scp-legacy skipped naming that file" \
	"real-scp +ok.*real-scp-legacy +skipped +scp -O cannot carry a name holding a newline \('odd dir/new\\\\nline'" \
	"$(tr '\n' ' ' <<<"$LAST_OUT")"

# ---------------------------------------------------------------- killed mid-run
# kill_mid_run SIGNAL STRATEGY...: a 1G run; once the destination fills, the
# client gets SIGNAL; within 15 s no process may mention the source or the
# remote scratch directory, here or on the host
kill_mid_run() {
	local sig=$1 i left
	shift
	rm -rf "$work/remote"
	env --default-signal=INT "$xf" -F "$cfg" --no-probes --source-dir "$work/big" --remote-dir "$work/remote" \
		-w largefile --size 1G "$@" testbed >"$work/kill.out" 2>&1 &
	client_pid=$!
	for ((i = 0; i < 1200; i++)); do
		[ -n "$(find "$work/remote" -mindepth 2 -type f -size +1M 2>/dev/null | head -1)" ] && break
		kill -0 "$client_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$(procs_with "$work/big")" ]
	ok $? "kill $sig ($*): the programs run and the destination fills"
	kill -"$sig" "$client_pid" 2>/dev/null
	{ wait "$client_pid"; } 2>/dev/null
	client_pid=
	for ((i = 0; i < 150; i++)); do
		left="$(procs_with "$work/big")$(procs_with "$work/remote")"
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ]
	ok $? "kill $sig ($*): no program left running after $((i / 10)).$((i % 10)) s"
	[ -z "$left" ] || ps -o pid,args -p "$(tr '\n' ',' <<<"$left" | sed 's/,$//')" | diag
}
ensure_testbed "the kill checks"
kill_mid_run KILL -s real-tar-zstd-ssh --zstd-level 19
kill_mid_run TERM -s "cmd:slow=tar -cf - -C {src} . | zstd -19 -T2 | ssh -F $qcfg {host} zstd -d \\| tar -xf - -C {dst}"

"$tb" status >/dev/null 2>&1 ||
	echo "# the testbed was down at the end: another test may have taken it down during this one"
finish
