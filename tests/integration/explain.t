#!/usr/bin/env bash
# --explain on the testbed, where the truth is known (issue 21): each case
# reruns a strategy with one resource taken away at a time, and the removal
# that saves most must be the resource the case is bound by, and the model's
# verdict must agree with it.
#
# Sizes: the issue's own (1 GiB shaped, 2 GiB unshaped, 20,000 small files),
# which this 2-vCPU VM moves in about 9 s, 4 s and 6 s a run; each case is
# the comparison, its control and 3 or 4 removals, so the file runs in about 4
# minutes (242 s on a quiet machine, 2026-12-07; each attempt run again adds
# about a minute; its last line says how long it took).
# Smaller would not do: below about 1 GiB the shaped run is short beside its
# setup, and below some 10,000 files the creates no longer dominate splice.
#
# The disk case runs cold: the source's disk and the destination's are one
# disk here, and either removal counts (the case says why).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tb="$top/scripts/testbed.sh"
cfg="$top/build/testbed/ssh_config"
tmp=$(mktemp -d /var/tmp/xfercmp-explain.XXXXXX)
cleanup() {
	"$tb" up >/dev/null 2>&1	# leave the link unshaped for whoever comes next
	"$tb" down >/dev/null 2>&1
	rm -rf "$tmp"
}
on_exit cleanup
private_client "$tmp"

# ab JSON REMOVED FIELD: that field of the first result's ablation REMOVED
ab() {
	json_get "$1" "[a for a in d['results'][0]['explain'] if a['removed'] == '$2'][0]['$3']"
}
# most JSON: the removal that saved most among those that ran
most() {
	json_get "$1" "max((a for a in d['results'][0]['explain'] if a['status'] == 'ok'), key=lambda a: a['saved_fraction'])['removed']"
}
# causal NAME JSON WANT_CAUSAL WANT_VERDICT MOST[|MOST] [TIED]: the shared assertions of a case.
# TIED (a removal that takes the same resource away): MOST must save most, or within
# EXPLAIN_NOISE (0.10 of the time) of TIED when TIED saved most. The model must say
# WANT_VERDICT and agree with the causal verdict; only with UNDERSTATED_OK=1 (the
# metadata case) may it instead say that ceiling was understated (below).
causal() {
	local name=$1 json=$2 want=$3 verdict=$4 want_most=$5 tied=${6:-} got m right held=
	got=$(json_get "$json" "d['results'][0].get('causal_verdict')" 2>&1)
	# withheld after every attempt (WITHHELD=1, see until_verdict): no cause is named, and none is wrong
	[ "${WITHHELD:-0}" = 1 ] && [ "$got" = None ] && held="; withheld: the baseline was an outlier on every attempt"
	[ "$got" = "$want" ] || [ -n "$held" ]
	ok $? "$name: causal verdict $got (want $want$held)"
	m=$(most "$json" 2>&1)
	right=1
	case "|$want_most|" in *"|$m|"*) right=0 ;; esac
	if [ "$right" != 0 ] && [ -n "$tied" ] && [ "$m" = "$tied" ]; then
		python3 -c "import sys; sys.exit(0 if float('$(ab "$json" "$want_most" saved_fraction)') >= float('$(ab "$json" "$tied" saved_fraction)') - 0.10 else 1)" 2>/dev/null
		right=$?
		m="$m, $want_most $([ "$right" = 0 ] && echo within || echo NOT within) 0.10 of it"
	fi
	# withheld: the savings name no cause either (the comparison was an outlier), so which
	# was largest is said, not held to WANT_MOST (seen: network 1.56 s, the null sink 1.58 s)
	[ -n "$held" ] && [ "$right" != 0 ] && m="$m (not held to it: the verdict was withheld)" && right=0
	ok $right "$name: without $m saved most (want $want_most)"
	# The metadata case only: a probe the run beat is said, not hidden
	# (docs/MODEL.md, "The accounting"). On this VM creates right after a mass
	# delete crawl (ext4 without a journal passes over inodes deleted less than
	# 60 s ago): a create probe once read 8.7 s for 20,000 creates a run made in
	# 3.0 s, and on a loaded machine the run's own creates can crawl while the
	# probe did not. An accounting whose per-file ceiling was understated says so,
	# and that stays accepted there. The network and disk ceilings have no such
	# crawl: those cases must agree outright.
	local left_out=False
	[ "${UNDERSTATED_OK:-0}" = 1 ] &&
		left_out=$(json_get "$json" "'${verdict%-bound}' in (d['results'][0]['understated'] or [])" 2>&1)
	got=$(json_get "$json" "d['results'][0]['verdict']" 2>&1)
	[ "$got" = "$verdict" ] || [ "$left_out" = True ]
	ok $? "$name: the model says $got (want $verdict${UNDERSTATED_OK:+, or its ceiling said to be understated: $left_out})"
	[ "$got" = "$verdict" ] || json_get "$json" "(d['results'][0]['seconds'], d['results'][0]['shares'], d['results'][0]['reason'], d['results'][0]['note'], d['results'][0].get('loads'))" 2>&1 | diag
	got=$(json_get "$json" "d['results'][0].get('causal_agrees')" 2>&1)
	[ "$got" = True ] || [ "$left_out" = True ] || { [ -n "$held" ] && [ "$got" = None ]; }
	ok $? "$name: model and causal verdicts agree ($got${UNDERSTATED_OK:+; ceiling understated: $left_out}$held)"
	echo "# $name: create probe $(json_get "$json" "d['ceilings'].get('create_files_per_s')" 2>&1)/s, loads $(json_get "$json" "d['results'][0].get('loads')" 2>&1)"
	json_get "$json" "'; '.join('%s %s %s' % (a['removed'], a['status'], a['seconds'] if a['status'] == 'ok' else a['reason']) for a in d['results'][0]['explain'])" | diag
}

# until_verdict NAME JSON WANT XFERCMP_ARGS...: runs the case, again (at most 3 times) while
# its causal verdict is not WANT; the assertions are on the last run. A verdict is withheld
# when the comparison's time was an outlier against the control (issue 44: no cause can be
# named from it); when the last run's still was, WITHHELD=1 and causal() accepts that, and
# only that, in place of WANT. Why it happens here, measured by hand (2026-12-07, 2 and 4
# GiB through splice, --explain, a quiet machine): the comparison is the first run to fill
# gigabytes of page cache after the probes (which read and write with drop-behind), and on
# this VM freed guest memory goes back to the hypervisor, so its fresh pages each cost a
# host fault; the control, a second later, reuses pages the comparison freed. Of 7 disk
# cases 4 were outliers, the comparison slower each time (2.73 s against 1.77 s; 4 GiB:
# 5.65 against 3.16 and 4.41 against 3.27); in a profile run all 3 attempts were. The
# metadata case's creates crawl after a mass delete the same way (docs/MODEL.md).
until_verdict() {
	local name=$1 json=$2 want=$3 attempt outlier got
	shift 3
	WITHHELD=0
	for attempt in 1 2 3; do
		run "$xf" "$@" --json "$json" testbed
		[ "$rc" -eq 0 ] || return
		got=$(json_get "$json" "d['results'][0].get('causal_verdict')" 2>&1)
		# a verdict found: an earlier attempt's withheld one no longer stands
		[ "$got" = "$want" ] && { WITHHELD=0; return; }
		outlier=$(json_get "$json" "d['results'][0].get('explain_baseline_outlier')" 2>&1)
		[ "$outlier" = True ] && WITHHELD=1 || WITHHELD=0
		echo "# $name: attempt $attempt: causal verdict $got$([ "$outlier" = True ] && echo ", withheld: the comparison's $(json_get "$json" "round(d['results'][0]['explain_baseline_seconds'], 2)" 2>&1) s is an outlier against the control's $(json_get "$json" "round(d['results'][0]['explain_control_seconds'], 2)" 2>&1) s"); the run $(json_get "$json" "round(d['results'][0]['seconds'], 2)" 2>&1) s; $(json_get "$json" "'; '.join('%s %s' % (a['removed'], round(a['seconds'], 2) if a['status'] == 'ok' else a['status']) for a in d['results'][0]['explain'])" 2>&1)"
	done
}

plan 37

# --- no strategy or option reaches the null sink
run "$xf" -s null --no-probes local
[ "$rc" -eq 2 ] && [[ $err == *"unknown strategy 'null'"* ]]
ok $? "the null sink is not a strategy (-s null: exit 2)"
run "$xf" --explain=null --no-probes local
[ "$rc" -eq 2 ] && [[ $err == *"--explain: unknown strategy 'null'"* ]]
ok $? "nor a strategy to explain (--explain=null: exit 2)"
! "$xf" --list-strategies | grep -qi null
ok $? "--list-strategies names no null sink"

# --- 1 GiB through a link shaped to 1 Gbit/s: network
check "testbed up, shaped to 1 Gbit/s" "$tb" up --rate 1gbit
ensure_testbed "network case"
json="$tmp/network.json"
check "network: runs and verifies" "$xf" -F "$cfg" --probe-seconds 1 -w largefile --size 1G -s splice \
	--explain --json "$json" testbed
saved=$(ab "$json" dest_disk saved_fraction 2>&1)
python3 -c "import sys; sys.exit(0 if float('$saved') < 0.20 else 1)" 2>/dev/null
ok $? "network: without the destination disk saves $saved (< 0.20)"
causal network "$json" network network-bound network
[ "$(ab "$json" dest_disk verified)" = False ] && [ "$(ab "$json" dest_disk stream_checked)" = True ]
ok $? "network: the null-sink run is checked in the stream, never verified"
[ "$(ab "$json" network verified)" = True ]
ok $? "network: the loopback run verified"
ctl=$(json_get "$json" "(d['results'][0]['explain_control_status'], d['results'][0]['explain_control_seconds'] > 0, d['results'][0]['explain_baseline_outlier'] in (True, False))" 2>&1)
[ "$ctl" = "('ok', True, True)" ]
ok $? "network: the control ran with nothing removed, and the baseline was checked against it ($ctl)"

# --- 2 GiB unshaped to durable ext4, source cold: disk
check "testbed unshaped" "$tb" up
ensure_testbed "disk case"
json="$tmp/disk.json"
# --disk-probe-size 2G: the durable-write ceiling at the file's own size, as docs/MODEL.md
# says to measure a large file's. With the 1 s budget alone the probe wrote less and read
# 12% slower than the run went (2 GiB in 1.43 s, at the ceiling 1.6 s; a fresh-clone run
# of 2026-12-04): the model set the disk aside as understated and named the network.
#
# Cold, not warm: the testbed's source and destination are one disk, and the case is
# then clearly disk-bound (seen: without the source disk 4.30 s -> 1.88 s, without the
# destination disk -> 2.13 s), so either disk's removal may save most. Warm, only the
# destination's disk is in the path, and on this VM it is about as fast as the rest of
# the path: in six runs by hand on 2026-12-05 (2 and 4 GiB) the null sink saved 16-30%;
# in two attempts of one explain.t run 5% and 10% (4 GiB: 1.95 and 1.81 s against runs
# of 2.05 and 2.01 s; the third attempt counted); in the fresh-clone run of 2026-12-04,
# less than the 10% that counts (the null sink took 1.04 s for 2 GiB, 0.84-0.89 s by hand).
#
# The case's truth is still the machine's, not ours: a run whose causal verdict is not
# disk is said and run again (until_verdict). The source is generated once, for all attempts.
until_verdict disk "$json" disk -F "$cfg" --probe-seconds 1 --disk-probe-size 2G -w largefile \
	--size 2G --source-dir "$tmp/disk-src" -s splice --explain
ok "$rc" "disk: runs and verifies"
[ "$rc" -eq 0 ] || show
# When no attempt of three was disk-bound, this machine did not make the case's truth, and
# what can still be asserted is asserted: every removal ran, a causal verdict was given and
# compared with the model's, and the model, from its own ceilings, says disk-bound. Seen in
# a closing CI run of 60b3aab (2026-12-07): causal cpu (no removal saved 10%: the run 2.30 s,
# the removals 2.55-3.22 s), withheld (2.73 s against its control's 1.73 s), cpu again (the
# run 1.80 s, the removals 1.98-4.46 s). With a control that agreed, by hand, the null sink
# saved 11-17% of this case, near the 10% that names a cause.
got=$(json_get "$json" "d['results'][0].get('causal_verdict')" 2>&1)
if [ "$got" = disk ] || [ "$WITHHELD" = 1 ]; then
	causal disk "$json" disk disk-bound 'dest_disk|durable_write|source_disk'
else
	echo "# disk: no attempt of 3 was disk-bound on this machine (the last one's causal verdict: $got)"
	st=$(json_get "$json" "sorted(a['removed'] for a in d['results'][0]['explain'] if a['status'] == 'ok')" 2>&1)
	[ "$st" = "['dest_disk', 'durable_write', 'network', 'source_disk']" ]
	ok $? "disk: every removal that applies ran ($st)"
	[ "$got" != None ]
	ok $? "disk: a causal verdict was given ($got; disk was not the machine's this time)"
	m=$(json_get "$json" "d['results'][0]['verdict']" 2>&1)
	[ "$m" = disk-bound ]
	ok $? "disk: the model says disk-bound from its ceilings ($m)"
	a=$(json_get "$json" "d['results'][0].get('causal_agrees')" 2>&1)
	[ "$a" = False ]
	ok $? "disk: the report says the model and the machine disagree (causal_agrees $a)"
fi
# --warm: the source is in the page cache, and there is no source disk to take away
json="$tmp/warm.json"
check "warm: runs and verifies" "$xf" -F "$cfg" --no-probes -w largefile --size 256M -s splice --warm \
	--explain --json "$json" testbed
[ "$(ab "$json" source_disk status)" = skipped ] && [[ $(ab "$json" source_disk reason) == *"--warm"* ]]
ok $? "warm: --warm skips the source disk removal, naming --warm"

# --- 20,000 small files through splice: metadata
json="$tmp/metadata.json"
# --repeat 2: the comparison's time is the median of two runs, and their spread widens the
# noise the control is held to. The creates of a run crawl when it follows a mass delete
# (ext4 without a journal here), and the comparison's run follows the probes' and the
# previous case's: by hand on loopback (2026-12-06, 20,000 files, load 6-9) one run read
# 4.97 s against its control's 2.26 s, and 5.82 s against 2.37 s with the control sampled
# as the comparison is (so the samplers are not the cause); another 0.76 s against 0.61 s.
until_verdict metadata "$json" metadata -F "$cfg" --probe-seconds 1 -w smallfiles --files 20000 \
	--source-dir "$tmp/metadata-src" -s splice --repeat 2 --explain
ok "$rc" "metadata: runs and verifies"
[ "$rc" -eq 0 ] || show
# tmpfs takes the destination's creates away too, and as cheaply: seen 5.69 s -> 0.31 s
# on tmpfs and -> 0.32 s through the null sink (and 0.38 s against 0.30 s in another
# run). Which of the two is first is noise, and either names the destination's creates;
# the source or the network saving most would fail. Not "within 0.10 of the other": the
# savings are against the control now, and in a CI run of 1d632bb (2026-12-06) the control
# took 0.63 s, the null sink 0.43 s and tmpfs 0.25 s: 0.19 s apart, 30% of the control.
UNDERSTATED_OK=1 causal metadata "$json" metadata metadata-bound 'dest_disk|durable_write'
# the report's own words: the null-sink line says it is not a copy and never "verified"
# (the line and its wrapped continuation: output is wrapped at 100 columns)
line=$(awk '/^    without the destination disk/ { on = 1; printf "%s", $0; next }
	on && /^     +[^ ]/ && !/^    without / { printf " %s", $0; next } { on = 0 }' <<<"$out")
[[ $line == *"not a copy"* ]] && [[ $line != *verified* ]]
ok $? "metadata: the null-sink line says not a copy, not verified ($line)"
want="causal verdict: metadata"
[ "$WITHHELD" = 1 ] && want="causal verdict: withheld"
grep -q "$want" <<<"$out"
ok $? "metadata: the table prints the causal verdict ($want)"

# --- an SSH strategy: the cipher removal runs on its own connection; the null sink and
# loopback do not apply, each skipped with the reason (2,000 files: enough for a run of
# a second or two, the removals' rules are what is tested here)
json="$tmp/ssh.json"
check "ssh: runs and verifies" "$xf" -F "$cfg" --no-probes -w smallfiles --files 2000 -s tar-ssh \
	--explain --json "$json" testbed
st=$(json_get "$json" "[(a['removed'], a['status'], a['verified']) for a in d['results'][0]['explain']]" 2>&1)
[[ $st == *"('cipher', 'ok', True)"* ]] && [[ $st == *"('durable_write', 'ok', True)"* ]]
ok $? "ssh: the cipher and tmpfs removals ran and verified ($st)"
[[ $(ab "$json" dest_disk reason) == *"a program on the host"* ]] && [[ $(ab "$json" network reason) == *"sshd"* ]]
ok $? "ssh: the null sink and loopback skipped with their reasons"

# --- Ctrl-C during the removals keeps what finished (256 MiB: about 2 s a run at 1 Gbit/s,
# so the removal running when the interrupt comes 0.1 s after it began is still running)
check "testbed shaped again" "$tb" up --rate 1gbit
json="$tmp/partial.json"
"$xf" -v -F "$cfg" --no-probes -w largefile --size 256M -s splice --explain --json "$json" testbed \
	>"$tmp/partial.out" 2>"$tmp/partial.err" &
pid=$!
for _ in $(seq 1200); do
	# 1/ is the control, 2/ the first removal: 3/ has it done
	grep -q "explain 3/" "$tmp/partial.err" 2>/dev/null && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ]
ok $? "interrupted: exit 130 ($rc)"
st=$(json_get "$json" "(d['partial'], [a['status'] for a in d['results'][0]['explain']])" 2>&1)
[[ $st == "(True, ['ok', 'not_run', "* ]]
ok $? "interrupted: partial, the first removal kept, the one running not run ($st)"
grep -q "partial: interrupted" "$tmp/partial.out"
ok $? "interrupted: the report says partial"
grep -Eq "^--explain will run 5 more transfers of about [0-9]+ s each" "$tmp/partial.err"
ok $? "the estimate came first: $(grep -m1 -e '--explain will run' "$tmp/partial.err")"
# the tmpfs agent's root goes with its SSH channel (the host is this machine: its /dev/shm is ours)
for _ in $(seq 100); do
	left=$(ls -d /dev/shm/xfercmp.* 2>/dev/null)
	[ -z "$left" ] && break
	sleep 0.2
done
[ -z "$left" ]
ok $? "interrupted: nothing left on the host's tmpfs (${left:-none})"
echo "# done at ${SECONDS} s"
finish
