#!/usr/bin/env bash
# The parallel reference strategies, real-rclone and real-fpsync, against the
# testbed host: ok and verified on a real tree's small files (keeping what
# their .preserves claim) and on a large file; -P 1 and -P 8 change how many
# workers they start (SSH sessions seen on the host's side); a program
# missing here skips them with the reason and the package; a --remote-dir
# that fpsync's shell lines would break on is refused before anything runs;
# nothing of theirs is left on either side (scratch directories, rclone
# config, fpsync's work directories, processes).
# Needs root (the testbed). Only ever talks to 198.18.0.2 and loopback.
#
#   flock /tmp/xfercmp-testbed.lock bash tests/integration/parallel_tools.t
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
both=real-rclone,real-fpsync

skip_all_unless_root

work=$(mktemp -d /var/tmp/xfercmp-ptools.XXXXXX) || exit 1
had_rclone_config=no
[ -e "$HOME/.config/rclone" ] && had_rclone_config=yes
cleanup() {
	"$tb" down >/dev/null 2>&1
	rm -rf "$work"
}
on_exit cleanup
private_client "$work"
# our scratch (temporary sources, rclone's known_hosts copy, fpsync's -t) is the test's own
export XFERCMP_SCRATCH="$work/scratch"
mkdir -p "$XFERCMP_SCRATCH"

# peak_sessions OUT CMD...: runs CMD (output to OUT, exit status to $LAST_RC) and
# sets $PEAK to the most SSH sessions seen at once on the host's side while it ran
# (sshd's "USER@notty" processes in the namespace: one per connection, xfercmp's own
# included)
peak_sessions() {
	local out=$1 c p pid
	shift
	PEAK=0
	"$@" >"$out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		c=0
		for p in $(ip netns pids xfercmp-host 2>/dev/null); do
			[[ $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") == "sshd: "*@notty* ]] && c=$((c + 1))
		done
		[ "$c" -gt "$PEAK" ] && PEAK=$c
		sleep 0.05
	done
	wait "$pid"
	LAST_RC=$?
}

# ---------------------------------------------------------------- without the testbed
# a program missing here: PATH holds every program of this system but rclone and fpsync
path_without "$work/nobin" rclone fpsync

if ! out=$("$tb" up 2>&1); then
	printf '%s\n' "$out" | diag
	echo "Bail out! testbed.sh up failed"
	exit 1
fi

# ---------------------------------------------------------------- a real tree's small files
ensure_testbed "realistic small files"
json="$work/small.json"
check_rc 0 "realistic (2000 files), -s $both: exit 0" \
	"$xf" -F "$cfg" --no-probes -w realistic --files 2000 -s "$both" --remote-dir "$work/remote" \
	--json "$json" testbed
ok_results "realistic: both ok and verified" "$json" "$both"
echo "# realistic: $(seconds "$json")"
# what each keeps, as its .preserves claims (verification fails a claimed kind that is lost)
kept=$(json_get "$json" "';'.join(r['strategy'] + ' ' + ','.join(k for k in ('symlinks','hardlinks','empty_dirs','modes','mtimes') if r['preserved'][k]) for r in d['results'])" 2>/dev/null)
[ "$kept" = "real-rclone empty_dirs;real-fpsync symlinks,empty_dirs,modes,mtimes" ]
ok $? "realistic: rclone keeps empty dirs only, fpsync all but hard links ($kept)"

# ---------------------------------------------------------------- a large file
ensure_testbed "largefile"
json="$work/large.json"
check_rc 0 "largefile (256M), -s $both: exit 0" \
	"$xf" -F "$cfg" --no-probes -w largefile --size 256M -s "$both" --remote-dir "$work/remote" \
	--json "$json" testbed
ok_results "largefile: both ok and verified" "$json" "$both"
echo "# largefile: $(seconds "$json")"

# ---------------------------------------------------------------- -P sets their workers
# rclone: one SSH connection per transfer (and one more for listing); fpsync: one
# rsync over ssh per worker, on 20,000 files at -P 8, so that fpart cuts 10 partitions of
# 2,000, and on 6,000 at -P 1: three partitions, which one worker must take in turn (20,000
# there as well would move ten partitions one after another)
workers() { # workers NAME P FILES: sets $PEAK
	peak_sessions "$work/workers.out" "$xf" -F "$cfg" --no-probes -q -w smallfiles --files "$3" \
		-P "$2" -s "$1" --remote-dir "$work/remote" testbed
	ok "$LAST_RC" "$1 -P $2 ($3 files): exit 0, $PEAK SSH sessions at most"
	[ "$LAST_RC" -eq 0 ] || diag <"$work/workers.out"
}
ensure_testbed "workers"
workers real-rclone 1 2000
r1=$PEAK
workers real-rclone 8 2000
r8=$PEAK
[ "$r1" -le 3 ] && [ "$r8" -ge 8 ]
ok $? "real-rclone: -P 1 at most 3 SSH sessions at once ($r1), -P 8 at least 8 ($r8)"
workers real-fpsync 1 6000
f1=$PEAK
workers real-fpsync 8 20000
f8=$PEAK
[ "$f1" -le 2 ] && [ "$f8" -ge 5 ]
ok $? "real-fpsync: -P 1 at most 2 SSH sessions at once ($f1), -P 8 at least 5 ($f8)"

# ---------------------------------------------------------------- a --remote-dir fpsync cannot take
ensure_testbed "odd --remote-dir"
odd="$work/remote dir \$(touch $work/pwned)"
json="$work/odd.json"
check_rc 1 "--remote-dir with \$(...): exit 1" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 100 -s "$both" --remote-dir "$odd" --json "$json" testbed
err=$(json_get "$json" "[r for r in d['results'] if r['strategy']=='real-fpsync'][0]['error']" 2>/dev/null)
check_grep "odd --remote-dir: fpsync refused, saying why ($err)" \
	"^fpsync cannot copy with '.*': it pastes paths into shell command lines, and this one holds a '\\$'" "$err"
st=$(json_get "$json" "[r['status'] for r in d['results'] if r['strategy']=='real-rclone'][0]" 2>/dev/null)
[ "$st" = ok ] && [ ! -e "$work/pwned" ] && [ ! -e "$odd" ]
ok $? "odd --remote-dir: rclone copied into it ($st), nothing ran on a shell, the directory is gone"

# ---------------------------------------------------------------- missing programs
ensure_testbed "missing programs"
json="$work/missing.json"
check_rc 0 "no rclone or fpsync here: exit 0" env PATH="$work/nobin" \
	"$xf" -F "$cfg" --no-probes -w smallfiles --files 50 -s "$both" --json "$json" testbed
ok_results "no rclone or fpsync here: both skipped, naming the program and its package" "$json" "$both" \
	real-rclone="'rclone' is not installed here (not found in PATH; install the rclone package)" \
	real-fpsync="'fpsync' is not installed here (not found in PATH; install the fpart package)"

# ---------------------------------------------------------------- nothing left
left=$(find "$XFERCMP_SCRATCH" -mindepth 1 2>/dev/null | head -5)
[ -z "$left" ]
ok $? "no scratch left here (rclone's known_hosts copy, fpsync's work directory)${left:+: $left}"
[ ! -e "$work/remote" ] && [ ! -e /tmp/fpsync ]
ok $? "no destination left on the host, no /tmp/fpsync"
now=no
[ -e "$HOME/.config/rclone" ] && now=yes
[ "$now" = "$had_rclone_config" ]
ok $? "no rclone config directory made (before: $had_rclone_config, after: $now)"
# theirs: in the namespace by name, here by a command line naming the test's directory
procs=$({
	for p in $(ip netns pids xfercmp-host 2>/dev/null); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in rclone | fpsync | fpart | rsync) echo "$p" ;; esac
	done
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		[[ $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") == *"$work"* ]] && echo "$p"
	done
} | sort -u | tr '\n' ' ')
[ -z "${procs// /}" ]
ok $? "no rclone, fpsync, fpart or rsync process left on either side${procs:+: $procs}"

"$tb" status >/dev/null 2>&1 ||
	echo "# the testbed was down at the end: another test may have taken it down during this one"
finish
