# shellcheck shell=bash
# shellcheck disable=SC2317 # helpers run through attempt
# Section raw of scripts/bench.sh (sourced): on the testbed
# host, cold source, durable destination, xfercmp splice against the plain tools and the
# ceilings of this machine:
#   - N small files: splice against `tar -cf - | nc` into `nc -l | tar -xf` and
#     `sync -f` in the namespace; target splice >= 2x faster;
#   - one large file: splice against the destination's durable write speed (the
#     disk_write_bytes_per_s probe of the same xfercmp invocation, writing the file's size with
#     --disk-probe-size); target >= 0.95;
#   - the large file from a warm source into a tmpfs (an agent started by hand in the
#     namespace): splice against iperf3 memory-to-memory TCP; target >= 0.85.
# Each part prints its table as soon as it is measured, so that a run stopped halfway
# (the testbed taken away for good, Ctrl-C) still shows what it got.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

# tar_nc SRC DST: one timed `tar -cf - -C SRC . | nc` into `nc -l | tar -xf - -C DST &&
# sync -f DST` in the namespace; sets RESULT to the seconds from the sender's start to the
# end of the receiver's sync (the receiver writes that time down itself), or "failed".
# The caller readies the source cache first.
tar_nc() {
	local src=$1 dst=$2 port recv send t0 rc=0
	RESULT=failed
	mkdir -p "$dst"
	rm -f "$WORK/nc-end"
	port=$(free_port)
	# shellcheck disable=SC2016 # $1..$4 belong to the inner sh
	server_start "tar | nc: the receiver did not listen on $HOST_ADDR:$port" "$WORK/nc-recv.log" "port:$port" 200 \
		sh -c 'nc -l "$1" "$2" </dev/null | tar -xf - -C "$3" && sync -f "$3" && date +%s.%N >"$4"' \
		_ "$HOST_ADDR" "$port" "$dst" "$WORK/nc-end" || return 0
	recv=$SERVER_PID
	t0=$(now)
	# shellcheck disable=SC2016 # $1..$3 belong to the inner bash
	bg_start "$WORK/nc-send.log" timeout "$LIMIT" bash -o pipefail -c \
		'tar -cf - -C "$1" . | nc -N "$2" "$3"' _ "$src" "$HOST_ADDR" "$port"
	send=$BG_PID
	watch "$send" "$recv" || rc=1
	bg_wait "$send" || rc=$?
	bg_wait "$recv" || rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$WORK/nc-end" ]; then
		say "tar | nc failed (exit $rc): $(tail -n 2 "$WORK/nc-send.log" "$WORK/nc-recv.log" | tr '\n' ' ')"
		FAILED=1
		return 0
	fi
	RESULT=$(elapsed "$t0" "$(cat "$WORK/nc-end")")
}

# splice_tmpfs JSON: one warm-source splice run of the large file into an agent started
# by hand in the namespace with its root on the tmpfs; sets RESULT as run_seconds does.
splice_tmpfs() {
	local json=$1 port pid
	port=$(free_port)
	rm -f "$json"
	# up to 60 s: right after gigabytes of tmpfs pages were freed, this VM has taken more
	# than 10 s to start the agent
	if server_start "the agent did not start" "$WORK/agent.log" "log:^xfercmp-agent listening" 1200 \
		"$XFERCMP" serve --listen "$HOST_ADDR:$port" --once --idle-timeout 120 \
		--token-file "$WORK/token" --root "$TMPFS/root"; then
		pid=$SERVER_PID
		xfercmp_watched "$json" --agent "$HOST_ADDR:$port" --token-file "$WORK/token" \
			-w largefile --size "$SIZE" --source-dir "$SRC_BIG" -s splice --warm --no-probes
		# --once: the agent exits (removing its root) once the session ends
		watch "$pid" || true
		bg_wait "$pid" || true
	fi
	run_seconds "$json"
}

# local_copy SRC DST: a cold `cp -r SRC/. DST` then `sync -f DST` on this file system, no
# network: what the one disk does when it must read the source and write the copy at
# once, as every testbed run here must; sets RESULT to its seconds.
local_copy() {
	local t0
	RESULT=failed
	mkdir -p "$2"
	cold_like_xfercmp "$1"
	t0=$(now)
	if timeout "$LIMIT" cp -r "$1/." "$2" && sync -f "$2"; then
		RESULT=$(elapsed "$t0" "$(now)")
	else
		FAILED=1
	fi
	rm -rf "$2"
}

# prefault_tmpfs: writes the large file's size of zeros into the tmpfs and removes it,
# so that the pages the splice run gets are backed by the host (see raw_tmpfs).
prefault_tmpfs() {
	dd if=/dev/zero of="$TMPFS/prefault" bs=1M count=$((BIG_BYTES >> 20)) status=none
	rm -f "$TMPFS/prefault"
}

# local_cat_tmpfs: the warm file copied by `cat` into the tmpfs, prefaulted as splice's
# runs are, no network: what filling fresh tmpfs pages costs on this machine; sets RESULT
# to its seconds.
local_cat_tmpfs() {
	local t0
	RESULT=failed
	prefault_tmpfs
	t0=$(now)
	if cat "$SRC_BIG"/* >"$TMPFS/cat.bin"; then
		RESULT=$(elapsed "$t0" "$(now)")
	else
		FAILED=1
	fi
	rm -f "$TMPFS/cat.bin"
}

raw_intro() {
	echo
	echo "## raw: the testbed host, cold source, durable destination"
	echo
	echo "xfercmp runs against the testbed over SSH (\`-F build/testbed/ssh_config ... testbed\`,"
	echo "agent started by xfercmp); its time is the JSON's \`results[0].seconds\` (transfer +"
	echo "flush, connection setup excluded). tar | nc is \`tar -cf - -C SRC . | nc -N $HOST_ADDR PORT\`"
	echo "into \`ip netns exec $NS sh -c 'nc -l $HOST_ADDR PORT | tar -xf - -C DST && sync -f DST'\`,"
	echo "timed from the sender's start to the end of the receiver's sync. Before every run:"
	echo "\`sync; echo 3 > /proc/sys/vm/drop_caches\`; xfercmp then opens every source file to"
	echo "drop its pages, which reads the inodes back, so tar | nc gets its inodes read back too"
	echo "(\`find SRC -type f -printf %s\`). Runs alternate: splice k, then tar | nc k."
}

raw_small() {
	local k sp=() tn=() meta_cold verified=no load s_sp s_tn r
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		attempt compare_testbed "$WORK/small-splice.$k.json" -w smallfiles --files "$FILES" \
			--source-dir "$SRC_SMALL" -s splice --no-probes
		sp+=("$RESULT")
		cold_like_xfercmp "$SRC_SMALL"
		attempt tar_nc "$SRC_SMALL" "$WORK/dst"
		tn+=("$RESULT")
		if [ "$k" -eq 1 ] && [ "$RESULT" != failed ]; then
			if "$XFERCMP" verify --manifest "$SRC_SMALL.manifest" "$WORK/dst" >"$WORK/verify.log" 2>&1; then
				verified=yes
			else
				verified="NO: $(head -n 1 "$WORK/verify.log")"
				FAILED=1
			fi
		fi
		rm -rf "$WORK/dst"
		say "small files run $k: splice ${sp[-1]} s, tar | nc ${tn[-1]} s"
	done
	drop_caches
	attempt tar_nc "$SRC_SMALL" "$WORK/dst"
	meta_cold=$RESULT
	rm -rf "$WORK/dst"
	say "small files: tar | nc with the inodes cold too: $meta_cold s"

	s_sp=$(median "${sp[@]}")
	s_tn=$(median "${tn[@]}")
	r=$(calc "%.2f" "b / a" "$s_sp" "$s_tn")
	echo
	echo "### $FILES small files, $(calc "%.1f" "a / 1048576" "$SMALL_BYTES" 1) MiB (load average $load)"
	echo
	md_head lrrrrrl command "median s" "min s" "max s" files/s MB/s runs
	md_row "xfercmp \`-s splice --no-probes\`" "$(secs "$s_sp")" "$(secs "$(minimum "${sp[@]}")")" \
		"$(secs "$(maximum "${sp[@]}")")" "$(calc "%.0f" "b / a" "$s_sp" "$FILES")" \
		"$(calc "%.1f" "b / a / 1e6" "$s_sp" "$SMALL_BYTES")" "$(secs_list "${sp[@]}")"
	md_row "tar \\| nc → nc -l \\| tar -x + sync -f (verified: $verified)" "$(secs "$s_tn")" \
		"$(secs "$(minimum "${tn[@]}")")" "$(secs "$(maximum "${tn[@]}")")" "$(calc "%.0f" "b / a" "$s_tn" "$FILES")" \
		"$(calc "%.1f" "b / a / 1e6" "$s_tn" "$SMALL_BYTES")" "$(secs_list "${tn[@]}")"
	md_row "tar \\| nc, inodes cold too (1 run, for information)" "$(secs "$meta_cold")" "" "" \
		"$(calc "%.0f" "b / a" "$meta_cold" "$FILES")" "$(calc "%.1f" "b / a / 1e6" "$meta_cold" "$SMALL_BYTES")" \
		"$(secs_list "$meta_cold")"
	echo
	md_ratios
	md_row "tar \\| nc time / splice time" "$r" "≥ 2" "$(verdict "$r" 2)"
}

raw_big() {
	local k sp=() tn=() cp=() disk=() rd=() wsp=() wdisk=() load b_sp b_tn b_cp b_disk b_read
	local b_wsp b_wdisk r r2 r3 r4
	load=$(loadavg)
	for ((k = 1; k <= REPEAT; k++)); do
		drop_caches
		attempt compare_testbed "$WORK/big-splice.$k.json" -w largefile --size "$SIZE" \
			--source-dir "$SRC_BIG" -s splice --disk-probe-size "$SIZE"
		sp+=("$RESULT")
		disk+=("$(json_get "$WORK/big-splice.$k.json" ceilings.disk_write_bytes_per_s)")
		rd+=("$(json_get "$WORK/big-splice.$k.json" ceilings.disk_read_bytes_per_s)")
		cold_like_xfercmp "$SRC_BIG"
		attempt tar_nc "$SRC_BIG" "$WORK/dst"
		tn+=("$RESULT")
		rm -rf "$WORK/dst"
		local_copy "$SRC_BIG" "$WORK/dst"
		cp+=("$RESULT")
		# the source read into the page cache: the disk only takes the destination's writes
		drop_caches
		cat "$SRC_BIG"/* >/dev/null
		attempt compare_testbed "$WORK/big-splice-warm.$k.json" -w largefile --size "$SIZE" \
			--source-dir "$SRC_BIG" -s splice --warm --disk-probe-size "$SIZE"
		wsp+=("$RESULT")
		wdisk+=("$(json_get "$WORK/big-splice-warm.$k.json" ceilings.disk_write_bytes_per_s)")
		say "large file run $k: splice ${sp[-1]} s (disk write ${disk[-1]:-?} B/s), tar | nc ${tn[-1]} s, local cp ${cp[-1]} s, warm-source splice ${wsp[-1]} s (disk write ${wdisk[-1]:-?} B/s)"
	done

	b_sp=$(median "${sp[@]}")
	b_tn=$(median "${tn[@]}")
	b_disk=$(median "${disk[@]}")
	b_read=$(median "${rd[@]}")
	b_cp=$(median "${cp[@]}")
	b_wsp=$(median "${wsp[@]}")
	b_wdisk=$(median "${wdisk[@]}")
	r3=$(calc "%.2f" "a / b" "$b_cp" "$b_sp")
	r4=$(calc "%.2f" "$BIG_BYTES / a / b" "$b_wsp" "$b_wdisk")
	r=$(calc "%.2f" "$BIG_BYTES / a / b" "$b_sp" "$b_disk")
	r2=$(awk -v s="$b_sp" -v n="$BIG_BYTES" -v w="$b_disk" -v d="$b_read" 'BEGIN {
		if (s !~ /^[0-9.]/ || w !~ /^[0-9.]/ || d !~ /^[0-9.]/ || s <= 0 || w <= 0 || d <= 0) { print "n/a"; exit }
		printf "%.2f", n / s * (1 / w + 1 / d) }')
	echo
	echo "### one file of $SIZE, $(calc "%.0f" "a / 1048576" "$BIG_BYTES" 1) MiB (load average $load)"
	echo
	echo "Source and destination share one disk here: every byte moved is read from it and"
	echo "written to it. A cold local \`cp\` of the file onto the same file system (then"
	echo "\`sync -f\`), runs alternating with splice's, shows what the disk does under that load."
	echo "The destination's durable write speed is the \`disk_write_bytes_per_s\` probe (sequential"
	echo "writes with write-behind and drop-behind, as splice's receiver writes, then fsync, into"
	echo "the agent's root on the same file system; \`--disk-probe-size $SIZE\`, as much as the"
	echo "file) that the same xfercmp invocation ran just before its splice run; the source's"
	echo "cold read speed (\`disk_read_bytes_per_s\`: sequential 1 MiB reads dropped behind the reader, as"
	echo "splice's sender reads, up to 1 GiB) is shown because the source read shares the disk"
	echo "with the destination's writes here: if the disk could only read or write at a time,"
	echo "moving each byte would take 1 / write + 1 / read. The warm-source rows are the same"
	echo "splice run with the file read into the page cache first (\`--warm\`, which also skips"
	echo "the source probe): the disk then takes only the destination's writes, as the"
	echo "destination's own disk would on two machines; their ratio is for information, the"
	echo "target is the cold one."
	echo
	md_head lrrl what "median s" MB/s runs
	md_row "xfercmp \`-s splice\`" "$(secs "$b_sp")" "$(calc "%.1f" "b / a / 1e6" "$b_sp" "$BIG_BYTES")" "$(secs_list "${sp[@]}")"
	md_row "tar \\| nc → nc -l \\| tar -x + sync -f" "$(secs "$b_tn")" "$(calc "%.1f" "b / a / 1e6" "$b_tn" "$BIG_BYTES")" "$(secs_list "${tn[@]}")"
	md_row "destination durable write (probe \`disk_write_bytes_per_s\`)" "" "$(calc "%.1f" "a / 1e6" "$b_disk" 1)" "$(calc_list "%.0f" "a / 1e6" "${disk[@]}")"
	md_row "source cold read (probe \`disk_read_bytes_per_s\`, information)" "" "$(calc "%.1f" "a / 1e6" "$b_read" 1)" "$(calc_list "%.0f" "a / 1e6" "${rd[@]}")"
	md_row "local \`cp\` + \`sync -f\`, cold, same disk, no network" "$(secs "$b_cp")" "$(calc "%.1f" "b / a / 1e6" "$b_cp" "$BIG_BYTES")" "$(secs_list "${cp[@]}")"
	md_row "xfercmp \`-s splice --warm\`, source in the page cache" "$(secs "$b_wsp")" "$(calc "%.1f" "b / a / 1e6" "$b_wsp" "$BIG_BYTES")" "$(secs_list "${wsp[@]}")"
	md_row "destination durable write in the warm-source runs (probe \`disk_write_bytes_per_s\`)" "" "$(calc "%.1f" "a / 1e6" "$b_wdisk" 1)" "$(calc_list "%.0f" "a / 1e6" "${wdisk[@]}")"
	echo
	md_ratios
	md_row "splice MB/s / destination durable write MB/s" "$r" "≥ 0.95" "$(verdict "$r" 0.95)"
	md_row "splice MB/s / (1 / (1 / durable write + 1 / source cold read)) MB/s: the disk reading and writing in turn (information)" "$r2" "" ""
	md_row "splice MB/s / local cp MB/s: the same disk reading and writing at once (information)" "$r3" "" ""
	md_row "warm-source splice MB/s / destination durable write MB/s: the disk writing only (information)" "$r4" "" ""
}

raw_tmpfs() {
	local k sp=() net=() ct=() load avail need i m_sp m_net m_ct r r2
	load=$(loadavg)
	echo
	echo "### one file of $SIZE, warm source, tmpfs destination (load average $load)"
	echo
	# the tmpfs and the warm source both take RAM; other work on the machine may hold
	# some for a while, so wait for it (at most a minute) before giving up
	need=$((2 * BIG_BYTES + (1 << 30)))
	for ((i = 0; i < 30; i++)); do
		avail=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
		[ "$avail" -lt "$need" ] || break
		[ "$i" -gt 0 ] || say "tmpfs: $((avail >> 20)) MiB available, waiting for $((need >> 20)) MiB"
		sleep 2
	done
	if [ "$avail" -lt "$need" ]; then
		say "tmpfs: skipped, $((avail >> 20)) MiB available"
		echo "Skipped: $((avail >> 20)) MiB of memory available, $((need >> 20)) MiB needed (tmpfs + warm source)."
		return 0
	fi
	TMPFS=$WORK/tmpfs
	mkdir "$TMPFS"
	# huge pages: on this VM, memory the guest has not touched lately costs a host fault
	# per page on first write, several times the copy itself; iperf3 reuses its buffers
	# and never pays it. 2 MiB pages fault 512 times less often. The prefault before each
	# run helps only while its freed pages stay with the guest, which free page
	# reporting cuts short (see the table's text); the local cat row measures that cost.
	mount -t tmpfs -o "size=$((BIG_BYTES + (512 << 20))),huge=always" xfercmp-bench "$TMPFS"
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$WORK/token"
	echo >>"$WORK/token"
	chmod 600 "$WORK/token"
	cat "$SRC_BIG"/* >/dev/null
	for ((k = 1; k <= REPEAT; k++)); do
		attempt iperf3_bps
		net+=("$RESULT")
		prefault_tmpfs
		attempt splice_tmpfs "$WORK/tmpfs-splice.$k.json"
		sp+=("$RESULT")
		local_cat_tmpfs
		ct+=("$RESULT")
		say "tmpfs run $k: iperf3 ${net[-1]} bit/s, splice ${sp[-1]} s, local cat ${ct[-1]} s"
	done
	umount "$TMPFS"
	rmdir "$TMPFS"
	TMPFS=""

	m_sp=$(median "${sp[@]}")
	m_net=$(median "${net[@]}")
	m_ct=$(median "${ct[@]}")
	r2=$(calc "%.2f" "a / b" "$m_ct" "$m_sp")
	r=$(awk -v s="$m_sp" -v n="$BIG_BYTES" -v b="$m_net" 'BEGIN {
		if (s !~ /^[0-9.]/ || b !~ /^[0-9.]/ || s <= 0 || b <= 0) print "n/a"; else printf "%.2f", n * 8 / s / b }')
	echo "A tmpfs (\`huge=always\`, filled with zeros and emptied before each run, so that its pages"
	echo "may still be backed: first-touch faults on this VM cost more than the copy) is mounted on the testbed"
	echo "side, an agent started in the namespace by hand"
	echo "(\`xfercmp serve --once --root TMPFS/root\`), and xfercmp runs \`--agent $HOST_ADDR:PORT"
	echo "--warm -s splice --no-probes\` with the source read into the page cache first."
	echo "TCP is \`iperf3 -c $HOST_ADDR -t $IPERF_SECONDS -J\` (one stream, received rate) against"
	echo "\`iperf3 -s -1\` in the namespace. Runs alternate: iperf3 k, splice k, then a local"
	echo "\`cat\` of the same warm file into the same tmpfs (prefaulted the same way, no network)."
	echo "This guest hands freed memory back to the hypervisor at once (free page reporting,"
	echo "\`/sys/module/page_reporting/parameters/min_free_ms\` = $(cat /sys/module/page_reporting/parameters/min_free_ms 2>/dev/null || echo 'not present'))"
	echo "so the prefault's pages are mostly gone again when a run writes: the cat row is what"
	echo "filling fresh tmpfs pages costs here, a bound iperf3, which reuses its buffers, never meets."
	echo
	md_head lrrrl what "median s" MB/s Gbit/s runs
	md_row "xfercmp \`-s splice --warm\` to tmpfs" "$(secs "$m_sp")" "$(calc "%.1f" "b / a / 1e6" "$m_sp" "$BIG_BYTES")" \
		"$(calc "%.2f" "b * 8 / a / 1e9" "$m_sp" "$BIG_BYTES")" "$(secs_list "${sp[@]}")"
	md_row "iperf3, 1 stream, memory to memory" "" "$(calc "%.1f" "a / 8e6" "$m_net" 1)" \
		"$(calc "%.2f" "a / 1e9" "$m_net" 1)" "$(calc_list "%.2f" "a / 1e9" "${net[@]}")"
	md_row "local \`cat\` of the warm file into the tmpfs, no network" "$(secs "$m_ct")" "$(calc "%.1f" "b / a / 1e6" "$m_ct" "$BIG_BYTES")" \
		"$(calc "%.2f" "b * 8 / a / 1e9" "$m_ct" "$BIG_BYTES")" "$(secs_list "${ct[@]}")"
	echo
	md_ratios
	md_row "splice throughput / iperf3 throughput" "$r" "≥ 0.85" "$(verdict "$r" 0.85)"
	md_row "splice throughput / local cat into the tmpfs (information)" "$r2" "" ""
}

section_raw() {
	generate_sources
	raw_intro
	raw_small
	raw_big
	raw_tmpfs
}
