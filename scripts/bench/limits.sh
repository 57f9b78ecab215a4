# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section limits of scripts/bench.sh (sourced): the physical limits of this machine for
# each workload, measured the way a copy must meet them (the source read and the
# destination written at once, on whatever disks they are), and the best xfercmp
# strategy as a fraction of them (issue 24, item 1):
#   - one large file: fio reading the source file and writing a file of the same size in
#     the destination's file system at once, 1 MiB blocks, the write ending in fsync,
#     the later job's end: with direct I/O at queue depth LIMITS_DEPTH (64) into a new
#     file (the issue's limit: its blocks allocated as it goes), the same over a file
#     whose blocks were written before the clock (the device's own limit: nothing
#     allocated), and buffered (psync, the kernel's readahead and write-back); the limit
#     is the fastest;
#   - the small files: build/tests/tree_limit (tests/tools/tree_limit.c), LIMITS_READERS
#     (64) threads reading the tree cold while LIMITS_WRITERS threads create the same
#     tree, its contents loaded from a copy in /dev/shm before the clock, in the
#     destination's file system, then syncfs; each alone too, for information.
# REPEAT rounds, each: the limits, then xfercmp -s splice,parallel and the fast
# reference tools (LIMITS_REFS) on the same workload. Targets: best strategy time / limit
# time >= 0.9 on both; best reference time / best strategy time >= 3 on small files.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# Creators: tree_limit creating 120,000 files alone (then syncfs) with 4, 16 and 64 threads
# took 3.68/4.48, 3.71/3.97 and 5.09/3.94 s, and with 64 readers at once 5.82/5.64,
# 5.69/4.93 and 5.23/5.05 s (2026-12-04, two rounds; the read alone 1.71/1.68 s); 16 is
# also the receivers' depth (STRATEGY_RECEIVER_DEPTH).
readonly LIMITS_DEPTH=64 LIMITS_READERS=64 LIMITS_WRITERS=16
# the references that can come near on these workloads: tar | nc streams, fpsync and
# rclone run in parallel; scp, rsync and tar | ssh one stream (slower: see strategies)
readonly LIMITS_REFS=real-tar-nc,real-fpsync,real-rclone
readonly TREE_LIMIT=$TOP/build/tests/tree_limit
CONTENT=""

# fio_both_seconds JSON: the later end of fio's jobs in its --output-format=json file
# (jobs[].job_runtime, ms), in seconds; "failed" when a job failed or moved less than
# its size.
fio_both_seconds() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or do { print "failed\n"; exit };
		my $d = eval { decode_json(<$f>) } or do { print "failed\n"; exit };
		my ($max, $bad) = (0, !@{ $d->{jobs} || [] });
		for my $j (@{ $d->{jobs} || [] }) {
			$bad = 1 if $j->{error} || $j->{read}{io_bytes} + $j->{write}{io_bytes} < $ARGV[1];
			$max = $j->{job_runtime} if $j->{job_runtime} > $max;
		}
		print $bad ? "failed\n" : sprintf("%.3f\n", $max / 1000);
	' "$1" "$2"
}

# limit_fio MODE: one fio run, the large file read and its size written at once: with
# direct I/O into a new file (MODE direct), with direct I/O over a file written before
# the clock (overwrite), or through the page cache (buffered); sets RESULT.
limit_fio() {
	local src dst=$WORK/limits-fio.dst io
	src=$(find "$SRC_BIG" -type f | head -n 1)
	rm -f "$dst"
	if [ "$1" = overwrite ] && ! timeout "$LIMIT" fio --output="$WORK/fio-layout.log" --ioengine=libaio \
		--direct=1 --iodepth="$LIMITS_DEPTH" --bs=1M --name=layout --rw=write --filename="$dst" \
		--size="$BIG_BYTES" --end_fsync=1 >/dev/null 2>&1; then
		say "fio (laying out the file to overwrite) failed: $(tail -n 2 "$WORK/fio-layout.log" | tr '\n' ' ')"
		RESULT=failed
		FAILED=1
		rm -f "$dst"
		return
	fi
	drop_caches
	case $1 in
	direct | overwrite) io=(--ioengine=libaio --direct=1 --iodepth="$LIMITS_DEPTH") ;;
	*) io=(--ioengine=psync --direct=0) ;;
	esac
	if ! timeout "$LIMIT" fio --output-format=json --output="$WORK/fio.json" "${io[@]}" --bs=1M \
		--name=read --rw=read --filename="$src" --size="$BIG_BYTES" \
		--name=write --rw=write --filename="$dst" --size="$BIG_BYTES" --fallocate=none --end_fsync=1 \
		>"$WORK/fio.log" 2>&1; then
		say "fio failed: $(tail -n 2 "$WORK/fio.log" | tr '\n' ' ')"
		RESULT=failed
	else
		RESULT=$(fio_both_seconds "$WORK/fio.json" "$BIG_BYTES")
	fi
	rm -f "$dst"
	[ "$RESULT" != failed ] || FAILED=1
}

# limits_content: a copy of the small tree in /dev/shm (CONTENT), made once, that
# tree_limit loads into memory before its clock starts.
limits_content() {
	[ -z "${CONTENT:-}" ] || return 0
	CONTENT=$(mktemp -d /dev/shm/xfercmp-bench-content.XXXXXX)
	CLEANUP_PATHS+=("$CONTENT")
	cp -a "$SRC_SMALL/." "$CONTENT/" || die 1 "cannot copy $SRC_SMALL to $CONTENT"
}

# limit_small WHAT: WHAT is read, create or both (at once), timed by tree_limit from the
# state xfercmp's runs start in (cold file data, inodes read back); sets RESULT. Each run
# creates in a directory of its own, kept until the bench ends: removed at once, its
# 120,000 freed inodes slowed the next run's creates (ext4 here has no journal and skips
# inodes freed in the last minute): in the run of 273a341 the create alone, right after
# the removal of the read + create's copy, took 4.29 and 5.29 s where parallel created
# the same tree, with its reads, in 4.31 and 4.15 s.
LIMIT_RUNS=0
limit_small() {
	local dst out
	LIMIT_RUNS=$((LIMIT_RUNS + 1))
	dst=$WORK/limits-dst.$LIMIT_RUNS
	mkdir "$dst"
	cold_like_xfercmp "$SRC_SMALL"
	if out=$(timeout "$LIMIT" "$TREE_LIMIT" "$1" "$SRC_SMALL" "$CONTENT" "$dst" "$LIMITS_READERS" \
		"$LIMITS_WRITERS" 2>"$WORK/tree_limit.log"); then
		RESULT=$out
		if [ "$1" != read ] && [ "$(find "$dst" -type f | wc -l)" -ne "$FILES" ]; then
			say "limits: tree_limit created $(find "$dst" -type f | wc -l) files, not $FILES"
			RESULT=failed
		fi
	else
		say "tree_limit $1 failed: $(tail -n 1 "$WORK/tree_limit.log")"
		RESULT=failed
	fi
	[ "$RESULT" != failed ] || FAILED=1
}

# limits_best FILE...: "seconds name" of the fastest xfercmp strategy (kind xfercmp) and
# of the fastest reference over the rounds' JSON files, by median; prints two lines.
limits_best() {
	local name med bx=n/a bxn="" br=n/a brn=""
	while IFS=$'\t' read -r name med _ _; do
		case $name in
		real-*) keep_best br brn "$med" "$name" ;;
		*) keep_best bx bxn "$med" "$name" ;;
		esac
	done < <(strategy_medians "$@")
	echo "$bx ${bxn:-none}"
	echo "$br ${brn:-none}"
}

section_limits() {
	local k load big=() bigo=() bigb=() both=() rd=() cr=() m_big m_bigd m_bigo m_bigb m_both m_rd m_cr
	local bx bxn br brn sx sxn r m_alone
	local name med runs err
	generate_sources
	limits_content
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		say "limits: round $k of $REPEAT"
		limit_fio direct
		big+=("$RESULT")
		limit_fio overwrite
		bigo+=("$RESULT")
		limit_fio buffered
		bigb+=("$RESULT")
		drop_caches
		attempt compare_all "$WORK/limits-big.$k.json" -w largefile --size "$SIZE" --source-dir "$SRC_BIG" \
			--no-probes -s "$( ((k % 2)) && echo splice,parallel || echo parallel,splice)"
		limit_small both
		both+=("$RESULT")
		limit_small read
		rd+=("$RESULT")
		limit_small create
		cr+=("$RESULT")
		drop_caches
		attempt compare_all "$WORK/limits-small.$k.json" -w smallfiles --files "$FILES" --source-dir "$SRC_SMALL" \
			--no-probes -s "$( ((k % 2)) && echo "splice,parallel,$LIMITS_REFS" || echo "$LIMITS_REFS,parallel,splice")"
		say "limits round $k: fio ${big[-1]} s direct, ${bigo[-1]} s direct over written blocks, ${bigb[-1]} s buffered; small read+create ${both[-1]} s (read ${rd[-1]}, create ${cr[-1]})"
	done
	m_bigd=$(median "${big[@]}")
	m_bigo=$(median "${bigo[@]}")
	m_bigb=$(median "${bigb[@]}")
	m_big=$(minimum "$m_bigd" "$m_bigo" "$m_bigb")
	m_both=$(median "${both[@]}")
	m_rd=$(median "${rd[@]}")
	m_cr=$(median "${cr[@]}")
	read -r bx bxn < <(limits_best "$WORK"/limits-big.*.json | head -n 1)
	{ read -r sx sxn; read -r br brn; } < <(limits_best "$WORK"/limits-small.*.json)

	echo
	echo "## limits: this machine's physical limits, and the best strategy against them (load average $load)"
	echo
	echo "The large file's limit is fio reading the source file and writing as many bytes into the"
	echo "destination's file system at once: \`fio --ioengine=libaio --direct=1 --bs=1M --iodepth=$LIMITS_DEPTH"
	echo "--name=read --rw=read --filename=SRC --name=write --rw=write --filename=DST --fallocate=none"
	echo "--end_fsync=1\`, the later job's end (\`job_runtime\`), caches dropped first: into a new file"
	echo "(its blocks allocated as it goes: ext4 takes direct writes that extend a file one at a time),"
	echo "over a file of that size written before the clock (the device's own limit), and buffered"
	echo "(\`--ioengine=psync --direct=0\`: readahead, write-back, then the fsync). The limit is the"
	echo "fastest of the three. The small files' limit is \`build/tests/tree_limit\`: $LIMITS_READERS threads"
	echo "reading the tree cold while $LIMITS_WRITERS threads create the same tree (open, one write, close;"
	echo "the contents loaded from a copy in /dev/shm before the clock) in the destination's file"
	echo "system, then syncfs; from the state xfercmp's runs start in (caches dropped, inodes read back);"
	echo "and each part alone: no copy can take less than the slower of them (on one disk and two"
	echo "cores the two at once took longer than either: they share both). The"
	echo "strategies: xfercmp against the testbed, \`--no-probes\`, cold source, durable destination,"
	echo "verified; the fast reference tools ($LIMITS_REFS) beside them on the small files."
	echo "$REPEAT rounds, each: the limits, then the strategies; medians."
	echo
	md_head lrl "limit" "median s" "runs s"
	md_row "one $SIZE file: fio read + write at once, direct I/O, depth $LIMITS_DEPTH, new file" "$(secs "$m_bigd")" "$(secs_list "${big[@]}")"
	md_row "one $SIZE file: fio read + write at once, direct I/O, depth $LIMITS_DEPTH, over written blocks" "$(secs "$m_bigo")" "$(secs_list "${bigo[@]}")"
	md_row "one $SIZE file: fio read + write at once, buffered, then fsync" "$(secs "$m_bigb")" "$(secs_list "${bigb[@]}")"
	md_row "$FILES small files: $LIMITS_READERS readers + $LIMITS_WRITERS creators at once, then syncfs" "$(secs "$m_both")" "$(secs_list "${both[@]}")"
	md_row "$FILES small files: parallel cold read alone (information)" "$(secs "$m_rd")" "$(secs_list "${rd[@]}")"
	md_row "$FILES small files: parallel create + sync alone (information)" "$(secs "$m_cr")" "$(secs_list "${cr[@]}")"
	echo
	md_head lrl "strategy" "median s" "runs s"
	while IFS=$'\t' read -r name med runs err; do
		md_row "one $SIZE file: $name" "$( [[ $med =~ ^[0-9] ]] && secs "$med" || echo "${err:-n/a}")" "$runs"
	done < <(strategy_medians "$WORK"/limits-big.*.json)
	while IFS=$'\t' read -r name med runs err; do
		md_row "$FILES small files: $name" "$( [[ $med =~ ^[0-9] ]] && secs "$med" || echo "${err:-n/a}")" "$runs"
	done < <(strategy_medians "$WORK"/limits-small.*.json)
	echo
	md_ratios
	r=$(calc "%.2f" "a / b" "$m_big" "$bx")
	md_row "large file: limit time / best strategy ($bxn) time" "$r" "≥ 0.9" "$(verdict "$r" 0.9)"
	r=$(calc "%.2f" "a / b" "$m_both" "$sx")
	md_row "small files: limit (read + create at once) time / best strategy ($sxn) time" "$r" "≥ 0.9" "$(verdict "$r" 0.9)"
	m_alone=$(maximum "$m_rd" "$m_cr")
	r=$(calc "%.2f" "a / b" "$m_alone" "$sx")
	md_row "small files: the slower part alone (no copy beats it) time / best strategy ($sxn) time" "$r" "≥ 0.9" "$(verdict "$r" 0.9)"
	r=$(calc "%.2f" "a / b" "$br" "$sx")
	md_row "small files: best reference ($brn) time / best strategy ($sxn) time" "$r" "≥ 3" "$(verdict "$r" 3)"
	r=$(calc "%.2f" "a / b" "$br" "$m_alone")
	md_row "small files: best reference ($brn) time / the slower part alone: the most any copy could reach" "$r" "≥ 3" "$(verdict "$r" 3)"
}
