# shellcheck shell=bash
# Section gen of scripts/bench.sh (sourced): `xfercmp gen -w
# smallfiles` against `tar -xf` of the same tree from /dev/shm, both into /var/tmp and
# both ending in `sync -f`. Runs on this machine only, no testbed.

# shellcheck source=scripts/bench/lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh"

section_gen() {
	local k t0 t1 d x gen=() untar=() g u r load
	say "gen: $REPEAT x (xfercmp gen, tar -xf) of $FILES files"
	load=$(loadavg)
	SHM_TAR=$(mktemp /dev/shm/xfercmp-bench.XXXXXX.tar)
	for ((k = 1; k <= REPEAT; k++)); do
		d=$WORK/gen.$k
		# not just sync: the caches dropped, so that neither command pays for the tree
		# removed before it (see inode reuse in docs/history/bench-machine-and-targets.md)
		drop_caches
		t0=$(now)
		if timeout "$LIMIT" "$XFERCMP" gen -q -w smallfiles --files "$FILES" "$d" >"$WORK/gen.log" 2>&1 &&
			sync -f "$d"; then
			t1=$(now)
			gen+=("$(elapsed "$t0" "$t1")")
		else
			say "xfercmp gen failed: $(tail -n 1 "$WORK/gen.log")"
			gen+=(failed)
			FAILED=1
			rm -rf "$d" "$d.manifest"
			continue
		fi
		# the tar archive is made once, from the first tree, outside any timing
		[ -s "$SHM_TAR" ] || tar -cf "$SHM_TAR" -C "$d" .
		rm -rf "$d" "$d.manifest"
		x=$WORK/untar.$k
		mkdir "$x"
		drop_caches
		t0=$(now)
		if timeout "$LIMIT" tar -xf "$SHM_TAR" -C "$x" && sync -f "$x"; then
			t1=$(now)
			untar+=("$(elapsed "$t0" "$t1")")
		else
			untar+=(failed)
			FAILED=1
		fi
		rm -rf "$x"
		say "gen run $k: gen ${gen[-1]} s, tar -xf ${untar[-1]} s"
	done
	rm -f "$SHM_TAR"
	SHM_TAR=""
	g=$(median "${gen[@]}")
	u=$(median "${untar[@]:-failed}")
	r=$(calc "%.2f" "a / b" "$g" "$u")
	echo
	echo "## gen: writing $FILES small files (load average $load)"
	echo
	echo "Both write into /var/tmp and end in \`sync -f\`; tar reads an archive of the same tree"
	echo "from /dev/shm, made once outside the timing. xfercmp gen also computes the content and"
	echo "the xxh3 of every file and writes the manifest."
	echo
	md_head lrrrr command "median s" "min s" "max s" files/s
	md_row "\`xfercmp gen -w smallfiles --files $FILES DIR && sync -f DIR\`" "$(secs "$g")" \
		"$(secs "$(minimum "${gen[@]}")")" "$(secs "$(maximum "${gen[@]}")")" "$(calc "%.0f" "b / a" "$g" "$FILES")"
	md_row "\`tar -xf /dev/shm/T.tar -C DIR && sync -f DIR\`" "$(secs "$u")" \
		"$(secs "$(minimum "${untar[@]:-failed}")")" "$(secs "$(maximum "${untar[@]:-failed}")")" "$(calc "%.0f" "b / a" "$u" "$FILES")"
	echo
	md_head lrl ratio value target
	md_row "gen / tar -xf (time)" "$r" "none set"
}
