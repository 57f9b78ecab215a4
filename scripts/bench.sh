#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR/..
# Benchmarks xfercmp against the plain tools it must beat and against the ceilings of this
# machine, and prints markdown tables of times and ratios. Every ratio compares two things
# measured side by side in the same run: the runs alternate (run k of one, then run k of
# the other), so a machine that gets busier or quieter halfway shifts both. Nothing here
# asserts an absolute time; a ratio is printed with its target and "met" or "not met".
#
#   scripts/bench.sh [--quick] [--files N] [--size SIZE] [--repeat N] [--only SECTIONS]
#                    [--scale-files N] [--pair-streams LIST] [--cases LIST] [--links LIST]
#                    [--serial-files N] [--plan] [--old DIR] [--sample-cases LIST]
#                    [--sample-share SHARE] [--sample-strategies LIST] [--sample-tree DIR]
#
#   --quick       20,000 files and 1 GiB (default: 120,000 files and 4 GiB)
#   --files N     small files of the gen and raw workloads (and of the forecast section's
#                 small and realistic cases, when given: there 20,000 without it)
#   --size SIZE   the large file of the raw section (and of the forecast section's big case,
#                 when given: there 1G without it); K/M/G/T suffixes, powers of 1024
#   --repeat N    runs of each timed command, 1 to 9; medians are reported (default 3)
#   --only S      gen, raw, strategies, wan, link, limits, pairs, scale, forecast, explain,
#                 builds, sample, a comma-separated list of them, or all (default: gen, raw,
#                 strategies, wan, limits, pairs; link, scale, forecast, explain, builds and
#                 sample are long and run only when named)
#   --old DIR     the builds section's other build: DIR/xfercmp and DIR/xfercmp-agent
#   --sample-cases LIST  the sample section's cases: small, big, realistic, tree,
#                 comma-separated, or all (default)
#   --sample-share SHARE  the sample section's --sample (default 5%)
#   --sample-strategies LIST  the sample section's -s (default all,real)
#   --sample-tree DIR  the sample section's tree case: a real tree of this machine
#                 (default /usr)
#   --scale-files N  the scale section's big tree (default 1000000; --quick: 200000)
#   --pair-streams LIST  the -P values of the pairs section, comma-separated (default 8)
#   --cases LIST  the forecast section's cases: small, big, realistic, comma-separated, or
#                 all (default)
#   --links LIST  the forecast section's shaped links: 2ms (1 Gbit/s, 2 ms round trip),
#                 20ms (1 Gbit/s, 20 ms), 200m (200 Mbit/s, 10 ms), comma-separated, all
#                 (default) or none (part (a) only: the unshaped runs)
#   --serial-files N  the tree scp, real-scp, real-scp-legacy and real-rclone move on the
#                 forecast section's links in the small and realistic cases, in runs of
#                 their own (default 1000: 20,000 would take scp half an hour at 20 ms)
#   --plan        print the commit the model is frozen at and the forecast section's parts
#                 (--cases x --links) with their estimated durations, then exit; nothing
#                 runs, no root needed
#
# Sections:
#   gen  `xfercmp gen -w smallfiles` against `tar -xf` of the same tree from /dev/shm, both
#        into /var/tmp and both ending in `sync -f`.
#   raw  on the testbed host (scripts/testbed.sh; brought up if it is not, and then taken
#        down at the end), cold source, durable destination:
#        - N small files: xfercmp splice against `tar -cf - | nc` into `nc -l | tar -xf`
#          and `sync -f` in the namespace; target splice >= 2x faster;
#        - one large file: splice against the destination's durable write speed (the
#          disk_write_bytes_per_s probe of the same xfercmp invocation, writing the file's size
#          with --disk-probe-size); target >= 0.95;
#        - the large file from a warm source into a tmpfs (an agent started by hand in the
#          namespace): splice against iperf3 memory-to-memory TCP; target >= 0.85.
#   strategies  on the testbed host, cold source, durable destination: iperf3 with 1 and
#        N streams, then every xfercmp strategy and every reference tool (-s all,real)
#        on the N small files and on the large file, REPEAT rounds, medians; the best
#        xfercmp strategy against the best reference tool (small files: target >= 2x;
#        large file: >= 0.95 of the durable-write ceiling and faster than every
#        reference), and each model against the real tool it models (within 15%).
#        `xfercmp --list-strategies` names the strategies and which reference each one
#        models; the bench adds scp against real-scp-legacy for information only (scp
#        models SFTP scp, not the legacy protocol).
#   wan  on the testbed host with 0.5 ms and then 20 ms of added round trip (no rate
#        limit): parallel with -P auto against -P 1, 2 and 8 on the large file, REPEAT
#        rounds alternating; target: auto within 10% of the best fixed N. Leaves the
#        testbed without a delay.
#        The strategies' cost beside their time: CPU s/GiB on each end, peak RSS of
#        xfercmp and its agent (scripts/bench/cost.sh).
#   link  the testbed at 1 Gbit/s with 0.5 ms and with 20 ms of added round trip: iperf3
#        with 1 and 8 streams; the large file through parallel (-P auto) and splice as a
#        fraction of the link (target >= 0.85); the small files' best of splice, parallel
#        and tar-ssh against scp on 1,000 files scaled per file (target >= 20x)
#        (scripts/bench/link.sh).
#   limits  this machine's physical limits and the best strategy as a fraction of them:
#        fio reading the large file and writing as much at once (direct I/O at queue
#        depth 64 into a new file and over written blocks, and buffered: the fastest);
#        build/tests/tree_limit reading the small tree cold on 64 threads while 16 create
#        it from memory in the destination's file system, then syncfs; targets: best
#        strategy >= 0.9 of the limit on both, >= 3x the best reference on small files.
#   pairs  xfercmp's parallel beside real-rclone and real-fpsync at the same -P N, on the
#        small files and the large file: times, ratios, which is fastest where, and the
#        recommendation xfercmp gives.
#   scale  gen and splice, parallel, tar-ssh on FILES and on --scale-files files: time per
#        file (target: within 1.2x), client and agent peak RSS (target: < 300 MB).
#   forecast  held-out cross-validation of the model (issue 41; scripts/bench/forecast.sh):
#        the first line of output is the commit the model is frozen at ("dirty" when
#        transfer/model, transfer/strategy or docs/MODEL.md changed since); then (a) every
#        own and real strategy (-s all,real, REPEAT runs) on 20,000 small files, one 1 GiB
#        file and a 20,000-file realistic tree, unshaped: the probes-only forecast against
#        the measured time, target 0.67 - 1.5; (b) that run's --what-if for 1 Gbit/s with
#        2 ms and with 20 ms round trips and 200 Mbit/s with 10 ms, against the same tree
#        run on the testbed shaped so, target 0.80 - 1.25, and no forecast below the
#        link's time for the bytes on the wire; the spread of every median's runs and a
#        summary per part. A full pass takes about two hours and a quarter (the header and
#        --plan estimate each part); --cases and --links run parts of it.
#   explain  --explain on N small files and the large file, unshaped: per strategy the
#        accounting's verdict, the causal one and each removal's saving
#        (scripts/bench/explain.sh).
#   builds  this build against another (--old DIR, holding its xfercmp and xfercmp-agent)
#        on splice, zstd and parallel, N small files and the large file, REPEAT rounds
#        alternating which build goes first: medians, spread, new/old throughput; target
#        >= 0.95 (what authenticating every data byte may cost, issue 43). Only when named.
#   sample  per case (N small files, the large file, a realistic tree of N files, a real
#        tree of this machine), unshaped: a --sample SHARE invocation, then the whole; per
#        strategy the sample's forecast of the whole against the whole's measured time
#        (target 0.80 - 1.25), the sampled answer's time over the whole's (<= 0.15) and the
#        whole's answer over the sum of its runs (<= 1.25) (issue 42; scripts/bench/sample.sh).
#        Only when named; -s all,real on 120,000 files takes about an hour a case.
#
# The sections live in scripts/bench/{gen,raw,strategies,wan,link,limits,pairs,scale,forecast,explain,builds,sample}.sh, the steps they share
# (cleanup, background processes, the namespace and its servers, statistics, JSON,
# tables) in scripts/bench/lib.sh; scripts/bench/selftest.sh checks the pure helpers.
#
# "Cold source" is what xfercmp's runner leaves before each run: `sync; echo 3 >
# drop_caches`, then every source file opened to drop its pages, so the file data is cold
# and the inodes are cached. The tar | nc baseline gets the same state (drop_caches, then
# `find -printf %s` to read the inodes back); one extra tar | nc run with the inodes cold
# too is shown for information.
#
# Needs root (drop_caches, network namespace, tmpfs mount), a built ./xfercmp (`make`),
# tar, netcat-openbsd, iperf3 and perl (JSON::PP). Markdown goes to stdout, progress to
# stderr. Everything it makes lives in one /var/tmp/xfercmp-bench.XXXXXX and one file in
# /dev/shm, both removed on exit, as are the processes and the mount it started. Traffic
# goes only over loopback and to 198.18.0.2.
#
# Exit status: 0 everything ran (whatever the ratios), 1 a timed command failed (its row
# says so), 2 usage error (or an xfercmp without --list-strategies), 129/130/143 hung up,
# interrupted, terminated.
set -Eeuo pipefail

bench_dir=$(cd "$(dirname "$0")/bench" && pwd -P)
# shellcheck source=scripts/bench/lib.sh
. "$bench_dir/lib.sh"
# shellcheck source=scripts/bench/gen.sh
. "$bench_dir/gen.sh"
# shellcheck source=scripts/bench/raw.sh
. "$bench_dir/raw.sh"
# shellcheck source=scripts/bench/strategies.sh
. "$bench_dir/strategies.sh"
# shellcheck source=scripts/bench/wan.sh
. "$bench_dir/wan.sh"
# shellcheck source=scripts/bench/limits.sh
. "$bench_dir/limits.sh"
# shellcheck source=scripts/bench/pairs.sh
. "$bench_dir/pairs.sh"
# shellcheck source=scripts/bench/scale.sh
. "$bench_dir/scale.sh"
# shellcheck source=scripts/bench/forecast.sh
. "$bench_dir/forecast.sh"
# shellcheck source=scripts/bench/explain.sh
. "$bench_dir/explain.sh"
# shellcheck source=scripts/bench/link.sh
. "$bench_dir/link.sh"
# shellcheck source=scripts/bench/builds.sh
. "$bench_dir/builds.sh"
# shellcheck source=scripts/bench/sample.sh
. "$bench_dir/sample.sh"

usage() { die 2 "usage: bench.sh [--quick] [--files N] [--size SIZE] [--repeat N] [--only gen,raw,strategies,wan,link,limits,pairs,scale,forecast,explain,builds,sample|all] [--scale-files N] [--pair-streams LIST] [--cases small,big,realistic|all] [--links 2ms,20ms,200m|all|none] [--serial-files N] [--plan] [--old DIR] [--sample-cases LIST] [--sample-share SHARE] [--sample-strategies LIST] [--sample-tree DIR]"; }

command_line="scripts/bench.sh"
for a in "$@"; do command_line+=" $(printf '%q' "$a")"; done
readonly COMMAND_LINE=$command_line

files=120000
size=4G
repeat=3
only=all
quick=0
fc_cases=all
fc_links=all
serial_files=1000
plan=0
files_set=0
size_set=0
scale_files=1000000
scale_set=0
pair_streams=8
old_build=""
sample_cases=all
sample_share=5%
sample_strategies=all,real
sample_tree=/usr
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--plan) plan=1; shift ;;
	--files | --size | --repeat | --only | --scale-files | --pair-streams | --cases | --links | --serial-files | --old | \
		--sample-cases | --sample-share | --sample-strategies | --sample-tree)
		[ $# -ge 2 ] || die 2 "$1 needs a value"
		case $1 in
		--scale-files) scale_files=$2; scale_set=1 ;;
		--pair-streams) pair_streams=$2 ;;
		--files) files=$2; files_set=1 ;;
		--size) size=$2; size_set=1 ;;
		--repeat) repeat=$2 ;;
		--only) only=$2 ;;
		--cases) fc_cases=$2 ;;
		--links) fc_links=$2 ;;
		--serial-files) serial_files=$2 ;;
		--old) old_build=$2 ;;
		--sample-cases) sample_cases=$2 ;;
		--sample-share) sample_share=$2 ;;
		--sample-strategies) sample_strategies=$2 ;;
		--sample-tree) sample_tree=$2 ;;
		esac
		shift 2
		;;
	-h | --help) sed -n '3,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
done
if [ "$quick" -eq 1 ]; then
	[ "$files_set" -eq 1 ] || files=20000
	[ "$size_set" -eq 1 ] || size=1G
	[ "$scale_set" -eq 1 ] || scale_files=200000
fi
[[ $files =~ ^[1-9][0-9]{0,7}$ ]] || die 2 "--files: expected 1 to 99999999, got '$files'"
[[ $size =~ ^[1-9][0-9]*([KkMmGgTt][iI]?)?[bB]?$ ]] || die 2 "--size: expected e.g. 4G, got '$size'"
[[ $repeat =~ ^[1-9]$ ]] || die 2 "--repeat: expected 1 to 9, got '$repeat'"
[[ $scale_files =~ ^[1-9][0-9]{0,7}$ ]] || die 2 "--scale-files: expected 1 to 99999999, got '$scale_files'"
[[ $pair_streams =~ ^[1-9][0-9]?(,[1-9][0-9]?)*$ ]] || die 2 "--pair-streams: expected a comma-separated list of 1 to 64, got '$pair_streams'"
[[ $serial_files =~ ^[1-9][0-9]{0,7}$ ]] || die 2 "--serial-files: expected 1 to 99999999, got '$serial_files'"
fc_cases=$(fc_parse_list --cases "$fc_cases" "$FORECAST_CASES_ALL") || exit 2
fc_links=$(fc_parse_list --links "$fc_links" "$FORECAST_LINKS_ALL" none) || exit 2
sample_cases=$(fc_parse_list --sample-cases "$sample_cases" "$SAMPLE_CASES_ALL") || exit 2
[[ $sample_share =~ ^[0-9.]+%?$|^[0-9]+[KkMmGgTt]$ ]] || die 2 "--sample-share: expected a share such as 5%, a size such as 2G or a count of files, got '$sample_share'"
[ -d "$sample_tree" ] || die 2 "--sample-tree: '$sample_tree' is not a directory"
[ "$only" != all ] || only=gen,raw,strategies,wan,limits,pairs
IFS=, read -r -a sections <<<"$only"
for section in "${sections[@]}"; do
	case $section in gen | raw | strategies | wan | link | limits | pairs | scale | forecast | explain | builds | sample) ;; *) die 2 "--only: expected gen, raw, strategies, wan, link, limits, pairs, scale, forecast, explain, builds, sample or all (or a comma-separated list), got '$only'" ;; esac
done
readonly FILES=$files SIZE=$size REPEAT=$repeat ONLY=$only SECTIONS=("${sections[@]}")
readonly SCALE_FILES=$scale_files PAIR_STREAMS=$pair_streams
# the forecast section's cases are the issue's: 20,000 files and 1 GiB unless named
[ "$files_set" -eq 1 ] || files=20000
[ "$size_set" -eq 1 ] || size=1G
readonly FORECAST_FILES=$files FORECAST_SIZE=$size FORECAST_CASES=$fc_cases FORECAST_LINKS=$fc_links
readonly SERIAL_FILES=$serial_files
readonly OLD_BUILD=$old_build
readonly SAMPLE_CASES=$sample_cases SAMPLE_SHARE=$sample_share SAMPLE_STRATEGIES=$sample_strategies
readonly SAMPLE_TREE=$sample_tree
case ",$ONLY," in *,builds,*) [ -x "$OLD_BUILD/xfercmp" ] || die 2 "builds: --old DIR must hold another build's xfercmp (and its xfercmp-agent)" ;; esac

# forecast_header: the forecast section's lines of the header (and all --plan prints).
forecast_header() {
	local shown=${FORECAST_LINKS//,/, }
	echo "- forecast: cases ${FORECAST_CASES//,/, } (small and realistic $FORECAST_FILES files, big $FORECAST_SIZE);"
	echo "  links ${shown:-none}${shown:+ (on them ${FORECAST_SERIAL//,/, } move $SERIAL_FILES files)}; runs of each: $REPEAT"
	echo
	fc_plan
}
if [ "$plan" -eq 1 ]; then
	forecast_frozen "$TOP" "$XFERCMP"
	echo
	forecast_header
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die 2 "must run as root (drop_caches, network namespace, tmpfs mount)"
[ -x "$XFERCMP" ] || die 2 "$XFERCMP not found: run make first"
# the strategies, and which reference each models, as xfercmp lists them (exit 2 if it
# cannot), read before anything runs
case ",$ONLY," in *,strategies,* | *,forecast,*) strategies_load ;; esac
for c in tar nc iperf3 perl ip ss mount umount timeout setsid awk sort find split xargs; do
	command -v "$c" >/dev/null || die 2 "$c not found (run scripts/setup.sh)"
done
perl -MJSON::PP -e 1 2>/dev/null || die 2 "perl's JSON::PP module is missing"
case ",$ONLY," in *,limits,*) command -v fio >/dev/null || die 2 "fio not found (run scripts/setup.sh)" ;; esac
case ",$ONLY," in *,limits,*) [ -x "$TREE_LIMIT" ] || die 2 "$TREE_LIMIT not found: run make unit-tests first" ;; esac
case ",$ONLY," in *,scale,*) [ -x /usr/bin/time ] || die 2 "/usr/bin/time not found (Debian package time; run scripts/setup.sh)" ;; esac

header() {
	local dev model disk tb
	dev=$(df --output=source /var/tmp | tail -n 1)
	model=$(lsblk -dno MODEL "$dev" 2>/dev/null | sed 's/ *$//' || true)
	disk="$dev, $(lsblk -dno SIZE "$dev" 2>/dev/null | tr -d ' '), $(df --output=fstype /var/tmp | tail -n 1)"
	disk+=", model: ${model:-none reported}"
	[ "$(lsblk -dno ROTA "$dev" 2>/dev/null | tr -d ' ')" != 1 ] || disk+=" (reports rotational)"
	# the forecast section's first line, before all else: the commit its model is frozen at
	case ",$ONLY," in *,forecast,*) forecast_frozen "$TOP" "$XFERCMP"; echo ;; esac
	echo "# xfercmp benchmarks"
	echo
	echo "- date: $(date '+%F %T %Z')"
	echo "- command: \`$COMMAND_LINE\`"
	echo "- xfercmp: $("$XFERCMP" --version), commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$TOP" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
	echo "- machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), kernel $(uname -r), disk $disk"
	echo "- load average at start: $(loadavg)"
	echo "- workloads: $FILES small files (smallfiles), one file of $SIZE (largefile); medians of $REPEAT runs"
	case ",$ONLY," in *,scale,*) echo "- scale: $SCALE_FILES small files" ;; esac
	case ",$ONLY," in *,explain,*) echo "- explain: $EXPLAIN_STRATEGIES on $FILES small files and one file of $SIZE" ;; esac
	case ",$ONLY," in *,sample,*) echo "- sample: --sample $SAMPLE_SHARE of ${SAMPLE_CASES//,/, } (the tree: $SAMPLE_TREE), -s $SAMPLE_STRATEGIES" ;; esac
	if [ "$ONLY" != gen ]; then
		tb=$("$TOP/scripts/testbed.sh" status 2>/dev/null | sed -n 's/^link: //p' || true)
		echo "- testbed link: ${tb:-down}"
	fi
	echo
	echo '```'
	free -g
	echo '```'
	case ",$ONLY," in *,forecast,*) echo; forecast_header ;; esac
}

bench_start
header
for section in "${SECTIONS[@]}"; do
	case $section in
	gen) section_gen ;;
	raw) section_raw ;;
	strategies)
		generate_sources
		section_strategies
		;;
	limits) section_limits ;;
	pairs) section_pairs ;;
	scale) section_scale ;;
	forecast) section_forecast ;;
	explain) section_explain ;;
	wan) section_wan ;;
	link) section_link ;;
	builds) section_builds ;;
	sample) section_sample ;;
	esac
done
echo
echo "Load average at the end: $(loadavg)."
[ "$FAILED" -eq 0 ] || { say "some timed commands failed: see the rows marked failed"; exit 1; }
exit 0
