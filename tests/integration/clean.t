#!/usr/bin/env bash
# `xfercmp clean HOST` (issue 44, item 8) against the testbed, as a user the
# test makes (its own ~/.cache on the host): after a run that uploaded the
# agent and with a scratch root left behind, clean removes both and says so;
# a second clean finds nothing left. A --cleanup background run's remover,
# the user's own process, removes the user's root (0555 directories too) and
# ends; a root a dead remover left in another scratch parent, listed in the
# user's ~/.cache/xfercmp/removers, is finished by the next run. Clean never removes a root without our marker, with a marker that is
# not a session id, or of another user; a root a running process holds stays
# (exit 1, saying so) until it has ended; a root it cannot wholly remove
# (root's files in it) is exit 1 with what to do.
# Needs root (the testbed, useradd). Talks only to 198.18.0.2.
#
#   bash tests/integration/clean.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
tbdir="$top/build/testbed"
cfg="$tbdir/ssh_config"
user=xfercmp-clean

skip_all_unless_root
holder=
cleanup() {
	[ -n "$holder" ] && kill -KILL "$holder" 2>/dev/null
	drop_test_user "$user"
}
user_test_work clean cleanup
home="$work/home"
tmp=$work
rd="$work/rd"
ID=0123456789abcdef0123456789abcdef

"$tb" up >/dev/null 2>&1 || { echo "Bail out! testbed.sh up failed"; exit 1; }
make_test_user "$user" "$home"
mkdir -p "$rd"
chown "$user:" "$rd"
chmod 700 "$rd"
# a root of ours as a killed run leaves it: its marker, data, a read-only directory
plant_root() { # plant_root NAME [MARKER_TEXT]
	local r="$rd/$1"
	mkdir -p "$r/ro"
	[ $# -lt 2 ] || printf '%s\n' "$2" >"$r/.xfercmp-agent"
	head -c 300000 /dev/urandom >"$r/data"
	chown -R "$user:" "$r"
	chmod 555 "$r/ro"
}
clean() { as_user "$xf" clean -F "$home/ssh_config" --remote-dir "$rd" testbed; }

# a run that uploads the agent to the user's ~/.cache/xfercmp on the host
run as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	--remote-dir "$rd" -s tar-ssh testbed
ok "$rc" "a run as $user passes"
[ "$rc" -eq 0 ] || show
agent=$(ls "$home"/.cache/xfercmp/xfercmp-agent-* 2>/dev/null)
[ -n "$agent" ] && [ "$(wc -l <<<"$agent")" -eq 1 ]
ok $? "it left the uploaded agent in the host's ~/.cache/xfercmp (${agent:-none})"

# --cleanup background as this user: the remover, the user's own process, must
# open up the copies' 0555 directories (root would not need to) and then end
run as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 400 --tree-features \
	--source-dir "$home/tf" --remote-dir "$rd" -s tar-ssh,splice --cleanup background \
	--json "$home/bg.json" testbed
ok "$rc" "a --cleanup background run as $user passes"
[ "$rc" -eq 0 ] || show
got=$(json_get "$home/bg.json" "d['timing']['host_cleanup']")
rodirs=$(find "$home/tf" -type d -perm 555 | wc -l)
[ "$got" = background ] && [ "$rodirs" -gt 0 ]
ok $? "the host's copies, of a tree with $rodirs 0555 directories, went to the remover (host_cleanup: $got)"
until_empty 300 0.1 find "$rd" -mindepth 1 -maxdepth 1 -name 'xfercmp.*'
ok $? "the user's remover removes its root, read-only directories and all (left: ${left:-none})"
until_empty 50 0.1 pgrep -u "$user" -x xfercmp-remove
ok $? "and ends (left: ${left:-none})"

# a remover that died in another scratch parent, listed in the user's ~/.cache/xfercmp/removers:
# a run with --remote-dir elsewhere finishes its root before it measures, and drops the entry
rd2="$work/rd2"
mkdir -p "$rd2/xfercmp.Dead02.removing/copy/ro"
printf '%s\n' "$ID" >"$rd2/xfercmp.Dead02.removing/.xfercmp-agent"
for i in $(seq 30); do echo "$i" >"$rd2/xfercmp.Dead02.removing/copy/ro/f$i"; done
mkdir -p "$home/.cache/xfercmp/removers"
printf '%s' "$rd2/xfercmp.Dead02.removing" >"$home/.cache/xfercmp/removers/1-2"
chown -R "$user:" "$rd2" "$home/.cache"
chmod 700 "$rd2" "$rd2/xfercmp.Dead02.removing"
chmod 555 "$rd2/xfercmp.Dead02.removing/copy/ro"
run as_user "$xf" -F "$home/ssh_config" --no-probes -w smallfiles --files 20 --source-dir "$home/s20" \
	--remote-dir "$rd" -s tar-ssh --cleanup wait --json "$home/other.json" testbed
ok "$rc" "a run in another scratch parent passes"
[ "$rc" -eq 0 ] || show
got=$(json_get "$home/other.json" "d['timing']['leftover_removed']")
[ ! -e "$rd2/xfercmp.Dead02.removing" ] && [ ! -e "$home/.cache/xfercmp/removers/1-2" ] && [ "${got:-0}" -ge 30 ]
ok $? "it finished the listed root of a dead remover in the other parent and dropped its entry (leftover_removed: $got)"

plant_root xfercmp.Left01 "$ID"
plant_root xfercmp.NoMrk1
plant_root xfercmp.BadMrk "not-a-session-id"
plant_root xfercmp.Root01 "$ID"
chown -R root: "$rd/xfercmp.Root01"

run clean
ok "$rc" "clean: exit 0"
[ "$rc" -eq 0 ] || show
check_grep "it says it removed the uploaded agent, with its size" \
	"^removed $agent \(an uploaded agent, [0-9.]+ MiB\)$" "$out"
check_grep "and the scratch root left behind" \
	"^removed $rd/xfercmp.Left01 \(a scratch root, [0-9.]+ KiB\)$" "$out"
check_grep "and sums it up" "^testbed: removed 2 \([0-9.]+ MiB\)$" "$out"
[ ! -e "$agent" ] && [ ! -e "$rd/xfercmp.Left01" ]
ok $? "both are gone"
[ -f "$rd/xfercmp.NoMrk1/data" ] && [ -f "$rd/xfercmp.BadMrk/data" ] && [ -f "$rd/xfercmp.Root01/data" ]
ok $? "a root without our marker, with a marker that is no session id, or root's: all there"
check_grep "each said to be left, with why" \
	"left $rd/xfercmp.NoMrk1 \(no xfercmp marker in it\).*left $rd/xfercmp.Root01 \(owned by another user\)" \
	"$(sort <<<"$out" | tr '\n' ' ')"

run clean
[ "$rc" -eq 0 ] && grep -qx "testbed: nothing of xfercmp's left" <<<"$out" && ! grep -q '^removed' <<<"$out"
ok $? "a second clean: nothing of xfercmp's left, exit 0"
[ ! -e "$home/.cache/xfercmp" ]
ok $? "the empty list of removers went with the cache directory"
[ "$rc" -eq 0 ] || show

# a root a running process holds (as a run's agent holds its own): left, exit 1
plant_root xfercmp.InUse1 "$ID"
runuser -u "$user" -- python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDONLY); time.sleep(300)' \
	"$rd/xfercmp.InUse1" &
holder=$!
for ((i = 0; i < 50; i++)); do
	ls -l "/proc/$holder/fd" 2>/dev/null | grep -q xfercmp.InUse1 && break
	pid=$(pgrep -u "$user" -f "time.sleep\(300\)" | head -1)
	[ -n "$pid" ] && ls -l "/proc/$pid/fd" 2>/dev/null | grep -q xfercmp.InUse1 && break
	sleep 0.1
done
run clean
[ "$rc" -eq 1 ] && [ -f "$rd/xfercmp.InUse1/.xfercmp-agent" ]
ok $? "a root held open by a running process stays, exit 1 (exit $rc)"
check_grep "saying which process holds it" \
	"^not removed $rd/xfercmp.InUse1 \(a scratch root\): in use by process [0-9]+; clean again once it has ended$" \
	"$out"
kill -KILL "$holder" 2>/dev/null
pkill -KILL -u "$user" -f "time.sleep\(300\)" 2>/dev/null
wait "$holder" 2>/dev/null
holder=
sleep 0.2
run clean
[ "$rc" -eq 0 ] && grep -q "^removed $rd/xfercmp.InUse1 " <<<"$out"
ok $? "once it has ended, clean removes it"

# a root of ours with root's files in it: not wholly removed, exit 1, and what to do
plant_root xfercmp.Stuck1 "$ID"
mkdir "$rd/xfercmp.Stuck1/roots"
touch "$rd/xfercmp.Stuck1/roots/file"
run clean
[ "$rc" -eq 1 ] && [ -f "$rd/xfercmp.Stuck1/.xfercmp-agent" ]
ok $? "a root clean cannot wholly remove: exit 1, its marker kept for another try (exit $rc)"
check_grep "saying so, and how to remove it" \
	"^not removed $rd/xfercmp.Stuck1 \(a scratch root\): cannot remove all of it; remove it with: chmod -R u\+rwx '$rd/xfercmp.Stuck1' && rm -rf '$rd/xfercmp.Stuck1'$" \
	"$out"

check_rc 2 "clean without a host is a usage error" "$xf" clean
check_rc 2 "a relative --remote-dir is refused" "$xf" clean --remote-dir rel testbed
finish
