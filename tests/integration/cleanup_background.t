#!/usr/bin/env bash
# --cleanup background (issue 42, item 2): the host's copies go to a remover
# of the agent's after xfercmp exits; the report and the JSON say so; the
# remover finishes by itself and leaves no process. The next run in that
# scratch parent finishes, before it measures, a root whose remover is gone
# (read-only directory and all), waits for one whose remover still holds it,
# and leaves what is not a root of ours. On a terminal the default is background (the
# setup says while it waits); off one, to wait.
# Needs root (the testbed). Talks only to 198.18.0.2.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/cleanup_background.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
skip_all_unless_root
holder=
stop_holder() { [ -n "$holder" ] && kill -KILL "$holder" 2>/dev/null; holder=; }
own_work cleanup-background
on_exit 'stop_holder; own_work_cleanup'
tmp=$work
rd="$work/rd"
mkdir -p "$rd"
chmod 700 "$rd"
ID=0123456789abcdef0123456789abcdef
testbed_part "every case"

# compare JSON [OPTIONS...]: a small run into the test's scratch parent
compare() {
	local json=$1
	shift
	run "$xf" -F "$cfg" --no-probes -w smallfiles --files 300 --source-dir "$work/src" \
		--remote-dir "$rd" -s tar-ssh,splice --json "$json" -v "$@" testbed
}
# removing: the roots in the parent handed to a remover
removing() { find "$rd" -mindepth 1 -maxdepth 1 -name 'xfercmp.*.removing' 2>/dev/null; }
# plant NAME: a root as a remover leaves it when it dies: marker, a copy, a read-only directory
plant() {
	mkdir -m 700 "$rd/$1"
	printf '%s\n' "$ID" >"$rd/$1/.xfercmp-agent"
	mkdir -p "$rd/$1/1-splice/d/e"
	for i in $(seq 40); do echo "$i" >"$rd/$1/1-splice/d/f$i"; done
	chmod 555 "$rd/$1/1-splice/d"
}

compare "$work/bg.json" --cleanup background
ok "$rc" "--cleanup background: exit 0"
[ "$rc" -eq 0 ] || show
check_grep "the run says the host removes its copies after it exits" \
	"cleanup: removed [0-9,]+ entries here in [0-9.]+ s; the host removes about [0-9,]+ after" "$err"
got=$(json_get "$work/bg.json" "'%s %s' % (d['timing']['host_cleanup'], d['timing']['host_background_entries'])")
[[ $got =~ ^background\ [1-9][0-9]*$ ]]
ok $? "JSON: timing.host_cleanup background, host_background_entries counted (got: $got)"
until_empty 300 0.1 removing
ok $? "the remover removes the root by itself (left: ${left:-none})"
until_empty 50 0.1 pgrep -x xfercmp-remove
ok $? "and ends (left: ${left:-none})"

compare "$work/wait.json"
ok "$rc" "without --cleanup off a terminal: exit 0"
got=$(json_get "$work/wait.json" "'%s %s' % (d['timing']['host_cleanup'], d['timing']['host_removed'])")
[[ $got =~ ^done\ [1-9][0-9]*$ ]] && [ -z "$(removing)" ] &&
	[ -z "$(find "$rd" -mindepth 1 -maxdepth 1 -name 'xfercmp.*')" ]
ok $? "it waits: host_cleanup done, the copies removed before it exits (got: $got)"

# a root whose remover was killed, and what is not ours beside it
plant xfercmp.Dead01.removing
mkdir -m 700 "$rd/xfercmp.NoMrk1.removing"
touch "$rd/xfercmp.NoMrk1.removing/keep"
compare "$work/dead.json" --cleanup wait
ok "$rc" "a run after a remover died: exit 0"
[ ! -e "$rd/xfercmp.Dead01.removing" ]
ok $? "it finished the dead remover's root (read-only directory and all)"
got=$(json_get "$work/dead.json" "'%s %s' % (d['timing']['leftover_removed'], d['timing']['leftover_seconds'] is not None)")
[[ $got =~ ^([4-9][0-9]|[1-9][0-9]{2,})\ True$ ]]
ok $? "JSON: leftover_removed counts it, leftover_seconds set (got: $got)"
[ -e "$rd/xfercmp.NoMrk1.removing/keep" ]
ok $? "a directory of that name without our marker is left alone"
rm -rf "$rd/xfercmp.NoMrk1.removing"

# a root whose remover is still at work: held for 4 s from now; at the end of them the
# holder notes whether the root was still whole (the run must not have taken it)
plant xfercmp.Busy01.removing
flock "$rd/xfercmp.Busy01.removing" sh -c "sleep 4; [ -e '$rd/xfercmp.Busy01.removing/1-splice/d/f40' ] && echo whole >'$work/held'" &
holder=$!
compare "$work/busy.json" --cleanup wait
ok "$rc" "a run while an earlier remover works: exit 0"
wait "$holder"
holder=
got=$(json_get "$work/busy.json" "d['timing']['leftover_seconds']")
[ "$(cat "$work/held" 2>/dev/null)" = whole ] && [ ! -e "$rd/xfercmp.Busy01.removing" ] && [ "$got" != None ]
ok $? "it left that root alone while it was held, then finished it (leftover_seconds $got)"

# on a terminal: background by default, and the setup's line while it waits for a remover
plant xfercmp.Busy02.removing
flock "$rd/xfercmp.Busy02.removing" sleep 6 &
holder=$!
script -qec "$xf -F $cfg --no-probes -w smallfiles --files 300 --source-dir $work/src --remote-dir $rd -s splice --json $work/tty.json testbed" \
	"$work/tty.log" >/dev/null
wait "$holder"
holder=
check_grep "on a terminal the setup says it waits for the earlier run's remover" \
	"waiting for an earlier run's copies to go on the host: [0-9]+ s" "$(cat "$work/tty.log")"
got=$(json_get "$work/tty.json" "d['timing']['host_cleanup']")
[ "$got" = background ]
ok $? "on a terminal the cleanup is in the background by default (host_cleanup: $got)"
until_empty 300 0.1 removing
ok $? "and that remover finishes too (left: ${left:-none})"

# xfercmp clean takes a dead remover's root too
plant xfercmp.Dead02.removing
run "$xf" clean -F "$cfg" --remote-dir "$rd" testbed
[ "$rc" -eq 0 ] && [ ! -e "$rd/xfercmp.Dead02.removing" ]
ok $? "xfercmp clean removes a root whose remover died"
[ "$rc" -eq 0 ] || show

run "$xf" -F "$cfg" --cleanup later testbed
[ "$rc" -eq 2 ] && [[ $err == *"--cleanup: expected background or wait, got 'later'"* ]]
ok $? "--cleanup later: exit 2, naming what it expects"
finish
