# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section limits of scripts/bench.sh (sourced): the physical limits of this machine for
# each workload, measured the way a copy must meet them (the source read and the
# destination written at once, on whatever disks they are), and the best xfercmp
# strategy as a fraction of them (issue 24, item 1):
#   - one large file: fio reading the source file and writing a file of the same size in
#     the destination's file system at once, 1 MiB blocks, the write ending in fsync,
#     the later job's end: with direct I/O at queue depth LIMITS_DEPTH (64), and
#     buffered (psync, the kernel's readahead and write-back); the limit is the faster;
#   - the small files: a LIMITS_READERS-way (64) parallel cold read of the tree (cat
#     through xargs -P) while LIMITS_WRITERS (4) tar -x processes create the same tree
#     from tar archives in /dev/shm (LIMITS_WRITERS contiguous shards of the file list,
#     made once outside the timing) into the destination's file system, then sync -f;
#     each alone too, for information.
# REPEAT rounds, each: the limits, then xfercmp -s splice,parallel and the fast
# reference tools (LIMITS_REFS) on the same workload. Targets: best strategy time / limit
# time >= 0.9 on both; best reference time / best strategy time >= 3 on small files.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# Writers: 2, 4 and 16 tar -x creating 20,000 files (then sync -f) on this 2-core VM took
# 1.24/1.73, 1.03/1.13 and 1.69/1.36 s (2026-12-01, two runs each).
readonly LIMITS_DEPTH=64 LIMITS_READERS=64 LIMITS_WRITERS=4
# the references that can come near on these workloads: tar | nc streams, fpsync and
# rclone run in parallel; scp, rsync and tar | ssh one stream (slower: see strategies)
readonly LIMITS_REFS=real-tar-nc,real-fpsync,real-rclone
SHARDS=""

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

# limit_fio MODE: one fio run, the large file read and its size written at once, with
# direct I/O (MODE direct) or through the page cache (buffered); sets RESULT.
limit_fio() {
	local src dst=$WORK/limits-fio.dst io
	src=$(find "$SRC_BIG" -type f | head -n 1)
	rm -f "$dst"
	drop_caches
	if [ "$1" = direct ]; then
		io=(--ioengine=libaio --direct=1 --iodepth="$LIMITS_DEPTH")
	else
		io=(--ioengine=psync --direct=0)
	fi
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

# limits_shards: LIMITS_WRITERS tar archives of contiguous runs of the small tree's file
# list, in SHARDS (a directory in /dev/shm), made once.
limits_shards() {
	local s
	[ -z "${SHARDS:-}" ] || return 0
	SHARDS=$(mktemp -d /dev/shm/xfercmp-bench-shards.XXXXXX)
	CLEANUP_PATHS+=("$SHARDS")
	(cd "$SRC_SMALL" && find . -type f -print) >"$WORK/limits.list"
	split -n "l/$LIMITS_WRITERS" "$WORK/limits.list" "$WORK/limits.shard."
	for s in "$WORK"/limits.shard.*; do
		tar -cf "$SHARDS/${s##*.}.tar" -C "$SRC_SMALL" -T "$s"
	done
	rm -f "$WORK"/limits.shard.* "$WORK/limits.list"
}

limits_read() { find "$SRC_SMALL" -type f -print0 | xargs -0 -P "$LIMITS_READERS" -n 256 cat >/dev/null; }
limits_create() {
	find "$SHARDS" -name '*.tar' -print0 | xargs -0 -P "$LIMITS_WRITERS" -I{} tar -xf {} -C "$1" && sync -f "$1"
}

# limit_small WHAT: WHAT is read, create or both (at once); the timed step from the
# state xfercmp's runs start in (cold file data, inodes read back); sets RESULT.
limit_small() {
	local dst=$WORK/limits-dst t0 rc=0
	rm -rf "$dst"
	mkdir "$dst"
	cold_like_xfercmp "$SRC_SMALL"
	t0=$(now)
	case $1 in
	read) limits_read || rc=$? ;;
	create) limits_create "$dst" || rc=$? ;;
	both)
		limits_read &
		local rpid=$!
		limits_create "$dst" || rc=$?
		wait "$rpid" || rc=$?
		;;
	esac
	if [ "$rc" -eq 0 ]; then
		RESULT=$(elapsed "$t0" "$(now)")
		if [ "$1" != read ] && [ "$(find "$dst" -type f | wc -l)" -ne "$FILES" ]; then
			say "limits: the parallel create made $(find "$dst" -type f | wc -l) files, not $FILES"
			RESULT=failed
		fi
	else
		RESULT=failed
	fi
	rm -rf "$dst"
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
	local k load big=() bigb=() both=() rd=() cr=() m_big m_bigd m_bigb m_both m_rd m_cr bx bxn br brn sx sxn r
	local name med runs err
	generate_sources
	limits_shards
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		say "limits: round $k of $REPEAT"
		limit_fio direct
		big+=("$RESULT")
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
		say "limits round $k: fio ${big[-1]} s direct, ${bigb[-1]} s buffered; small read+create ${both[-1]} s (read ${rd[-1]}, create ${cr[-1]})"
	done
	m_bigd=$(median "${big[@]}")
	m_bigb=$(median "${bigb[@]}")
	m_big=$(minimum "$m_bigd" "$m_bigb")
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
	echo "--end_fsync=1\`, the later job's end (\`job_runtime\`), caches dropped first; and the same"
	echo "buffered (\`--ioengine=psync --direct=0\`: readahead, write-back, then the fsync), which on this"
	echo "VM's disk has written faster than direct I/O. The limit is the faster of the two. The small files'"
	echo "limit is a $LIMITS_READERS-way parallel cold read of the tree (\`find SRC -type f -print0 | xargs -0 -P"
	echo "$LIMITS_READERS -n 256 cat\`) while $LIMITS_WRITERS \`tar -xf\` create the same tree from archives in"
	echo "/dev/shm ($LIMITS_WRITERS contiguous shards of the file list) in the destination's file system, then"
	echo "\`sync -f\`; from the state xfercmp's runs start in (caches dropped, inodes read back). The"
	echo "strategies: xfercmp against the testbed, \`--no-probes\`, cold source, durable destination,"
	echo "verified; the fast reference tools ($LIMITS_REFS) beside them on the small files."
	echo "$REPEAT rounds, each: the limits, then the strategies; medians."
	echo
	md_head lrl "limit" "median s" "runs s"
	md_row "one $SIZE file: fio read + write at once, direct I/O, depth $LIMITS_DEPTH" "$(secs "$m_bigd")" "$(secs_list "${big[@]}")"
	md_row "one $SIZE file: fio read + write at once, buffered, then fsync" "$(secs "$m_bigb")" "$(secs_list "${bigb[@]}")"
	md_row "$FILES small files: parallel read + parallel create at once" "$(secs "$m_both")" "$(secs_list "${both[@]}")"
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
	md_row "small files: limit time / best strategy ($sxn) time" "$r" "≥ 0.9" "$(verdict "$r" 0.9)"
	r=$(calc "%.2f" "a / b" "$br" "$sx")
	md_row "small files: best reference ($brn) time / best strategy ($sxn) time" "$r" "≥ 3" "$(verdict "$r" 3)"
}
