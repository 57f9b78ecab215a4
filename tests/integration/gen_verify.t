#!/usr/bin/env bash
# TAP test for `xfercmp gen` and `xfercmp verify` through the built binary:
# generation, determinism, every kind of difference verify must report, the
# refusal to write into a non-empty directory, tree features (--tree-features,
# -w realistic), usage errors and --help.
# Works in a temporary directory (under $TMPDIR, default /tmp) removed on exit.
#
#   bash tests/integration/gen_verify.t            # uses ./xfercmp at the top
#   XFERCMP=/path/to/xfercmp bash tests/integration/gen_verify.t
set -uo pipefail

# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$xfercmp

if [ ! -x "$bin" ]; then
	echo "1..1"
	echo "not ok 1 - xfercmp is built at $bin (run make)"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfercmp-gen-verify.XXXXXX") || exit 1
# chmod first: a tree with features has 0555 directories, which stop a non-root rm
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

plan 76

# expect DESCRIPTION TEST...: passes when the test command succeeds; shows the last run otherwise
expect() {
	local desc=$1
	shift
	if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; show; fi
}
has() { grep -qF -- "$2" <<<"$1"; }	# has TEXT NEEDLE
entries() { grep -c '^f' "$1"; }	# regular-file lines of a manifest
nfiles() { find "$1" -type f | wc -l | tr -d ' '; }

d1=$tmp/one
d2=$tmp/two

# ---- generate ----

run "$bin" gen -q -w smallfiles --files 3000 --seed 3 "$d1"
expect "gen smallfiles --files 3000 exits 0" test "$rc" -eq 0
expect "gen prints 'generated 3000 files'" has "$out" "generated 3000 files"
expect "gen names the manifest it wrote" has "$out" "manifest: $d1.manifest"
expect "DIR.manifest exists beside DIR, not inside it" \
	eval 'test -f "$d1.manifest" && test ! -e "$d1/$(basename "$d1").manifest"'
expect "the manifest has the version header" test "$(head -n1 "$d1.manifest" 2>/dev/null)" = "# xfercmp-manifest 2"
expect "the manifest has 3000 entry lines" test "$(entries "$d1.manifest")" -eq 3000
expect "the tree has 3000 files" test "$(nfiles "$d1")" -eq 3000

run "$bin" verify "$d1"
expect "verify DIR exits 0" test "$rc" -eq 0
expect "verify prints OK with the file count" has "$out" "OK: 3000 files"

run "$bin" gen -q -w smallfiles --files 3000 --seed 3 "$d2"
expect "the same gen into a second directory exits 0" test "$rc" -eq 0
expect "the two manifests are byte-identical" cmp "$d1.manifest" "$d2.manifest"
# taken from main's xfercmp before tree features existed: without the option, smallfiles is unchanged
expect "the smallfiles manifest (3000 files, seed 3) is byte for byte the one before --tree-features" \
	test "$(sha256sum <"$d1.manifest" | cut -d' ' -f1)" = 00ac863e7c955f4ff3712fddc156331252abd8fc6c7e528256c188303f01efea
run "$bin" verify --manifest "$d1.manifest" "$d2"
expect "verify --manifest DIR.manifest DIR2 passes" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 3000 files"' 

# (300 files: creating files is the slow part; the first 300 paths are the same)
run "$bin" gen -q -w smallfiles --files 300 --seed 4 "$tmp/seed4"
expect "another seed gives other content for the same paths" \
	eval '[ "$rc" -eq 0 ] && [ -n "$(comm -12 <(grep "^f" "$d1.manifest" | head -300 | cut -f6 | sort) <(grep "^f" "$tmp/seed4.manifest" | cut -f6 | sort) | sed -n 300p)" ] && [ -z "$(comm -12 <(grep "^f" "$d1.manifest" | head -300 | sort) <(grep "^f" "$tmp/seed4.manifest" | sort))" ]'
run "$bin" verify --manifest "$d1.manifest" "$tmp/seed4"
expect "verify --manifest of the other seed's tree exits 1" \
	eval '[ "$rc" -eq 1 ] && has "$out" "2700 missing, 0 extra"' 
rm -rf "$tmp/seed4" "$tmp/seed4.manifest"

run "$bin" verify "$d1/"
expect "verify DIR/ (trailing slash) finds DIR.manifest and passes" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 3000 files"'

# ---- differences ----

# a file from the middle of the manifest with at least 2 bytes
rel=$(grep '^f' "$d1.manifest" | awk -F'\t' 'NR >= 1500 && $3 >= 2 { print $6; exit }')
size=$(stat -c %s "$d1/$rel" 2>/dev/null || echo 0)
off=$((size / 2))
orig=$(od -An -tu1 -j "$off" -N1 "$d1/$rel" 2>/dev/null | tr -d ' ')
new=$(( (${orig:-0} + 1) % 256 ))
printf "\\$(printf '%03o' "$new")" | dd of="$d1/$rel" bs=1 seek="$off" count=1 conv=notrunc status=none
expect "one byte flipped in the middle of $rel (same size)" \
	eval '! cmp -s "$d1/$rel" "$d2/$rel" && [ "$(stat -c %s "$d1/$rel")" -eq "$size" ]'
run "$bin" verify "$d1"
expect "verify after a flipped byte exits 1" test "$rc" -eq 1
expect "verify names the file: content differs: $rel" has "$out" "content differs: $rel"
expect "verify counts exactly one difference" has "$out" "FAILED: 1 difference: 0 missing, 0 extra, 0 size, 1 content"

cp "$d2/$rel" "$d1/$rel"
run "$bin" verify "$d1"
expect "restored from the second tree, verify passes again" test "$rc" -eq 0

truncate -s $((size - 1)) "$d1/$rel"
run "$bin" verify "$d1"
expect "a truncated file: exit 1, 'size differs: $rel'" \
	eval '[ "$rc" -eq 1 ] && has "$out" "size differs: $rel (expected $size, found $((size - 1)))"'
cp "$d2/$rel" "$d1/$rel"

rm "$d1/$rel"
run "$bin" verify "$d1"
expect "a deleted file: exit 1, 'missing: $rel'" eval '[ "$rc" -eq 1 ] && has "$out" "missing: $rel"'
cp "$d2/$rel" "$d1/$rel"

echo extra >"$d1/$(dirname "$rel")/zz-extra"
run "$bin" verify "$d1"
expect "an added file: exit 1, 'extra: $(dirname "$rel")/zz-extra'" \
	eval '[ "$rc" -eq 1 ] && has "$out" "extra: $(dirname "$rel")/zz-extra"'
rm "$d1/$(dirname "$rel")/zz-extra"

run "$bin" verify "$d1"
expect "with everything put back, verify passes" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 3000 files"'

# ---- refusing a non-empty directory ----

cp -p "$d1.manifest" "$tmp/manifest.before"
run "$bin" gen -q -w smallfiles --files 10 --seed 9 "$d1"
expect "gen into the non-empty DIR exits non-zero" test "$rc" -ne 0
expect "and says 'not empty' on stderr" has "$err" "not empty"
expect "DIR still holds its 3000 files, unchanged" eval '[ "$(nfiles "$d1")" -eq 3000 ] && diff -r "$d1" "$d2" >/dev/null'
expect "DIR.manifest is unchanged" cmp "$d1.manifest" "$tmp/manifest.before"
run "$bin" verify "$d1"
expect "verify still reports OK" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 3000 files"'

# ---- usage errors: exit 2, one line on stderr, nothing written ----

usage_error() { # usage_error DESCRIPTION NEEDLE ARGS...
	local desc=$1 needle=$2
	shift 2
	run "$bin" "$@"
	local lines
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && has "$err" "$needle" && [ -z "$out" ] &&
		[ ! -e "$tmp/u" ] && [ ! -e "$tmp/u.manifest" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		show
	fi
}
usage_error "gen --size 4X: exit 2, names '4X'" "'4X'" gen --size 4X "$tmp/u"
usage_error "gen -w mixed --size 4X: exit 2, names '4X'" "'4X'" gen -w mixed --size 4X "$tmp/u"
usage_error "gen --files abc: exit 2, names 'abc'" "'abc'" gen --files abc "$tmp/u"
usage_error "gen -w nosuch: exit 2, names the workload" "nosuch" gen -w nosuch "$tmp/u"
usage_error "gen --compressibility 2: exit 2" "--compressibility" gen --compressibility 2 "$tmp/u"
usage_error "gen with no DIR: exit 2" "directory" gen
usage_error "gen with two DIRs: exit 2" "directory" gen "$tmp/u" "$tmp/u2"
usage_error "gen --size with smallfiles: exit 2" "--size" gen --size 1M "$tmp/u"
usage_error "verify with a missing manifest: exit 2, names it" "$tmp/u.manifest" verify "$tmp/u"

# a manifest that cannot be written is refused before anything is generated
run "$bin" gen -q -w smallfiles --files 100 --manifest "$tmp/no/such/dir/u.manifest" "$tmp/u"
expect "gen --manifest in a missing directory: exit 1, names the manifest, generates nothing" \
	eval '[ "$rc" -eq 1 ] && has "$err" "cannot create manifest '"'$tmp/no/such/dir/u.manifest'"'" && [ ! -e "$tmp/u" ]'

# ---- other workloads ----

run "$bin" gen -q -w largefile --size 5M "$tmp/large"
expect "gen -w largefile --size 5M exits 0" test "$rc" -eq 0
expect "it wrote one file of 5242880 bytes" \
	eval '[ "$(nfiles "$tmp/large")" -eq 1 ] && [ "$(stat -c %s "$tmp/large/large.bin")" -eq 5242880 ]'
run "$bin" verify "$tmp/large"
expect "verify of the largefile passes" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 1 files, 5.00 MiB verified"'

run "$bin" gen -q -w mixed --files 200 --size 8M "$tmp/mixed"
expect "gen -w mixed --files 200 --size 8M exits 0" test "$rc" -eq 0
expect "it wrote 204 files (200 small + 4 large), all in the manifest" \
	eval '[ "$(nfiles "$tmp/mixed")" -eq 204 ] && [ "$(entries "$tmp/mixed.manifest")" -eq 204 ]'
expect "the 4 large files total 8 MiB" \
	eval '[ "$(cat "$tmp/mixed"/large/*.bin | wc -c)" -eq 8388608 ]'
run "$bin" verify "$tmp/mixed"
expect "verify of the mixed tree passes" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 204 files"'

# ---- tree features ----

tf=$tmp/tf
run "$bin" gen -q -w smallfiles --files 3000 --seed 3 --tree-features "$tf"
expect "gen --tree-features exits 0 and counts what it added" \
	eval '[ "$rc" -eq 0 ] && has "$out" "generated 3000 files" && has "$out" "tree features: 150 symbolic links"'
expect "the manifest lists 3000 files, 150 symbolic links, hard links and directories" \
	eval '[ "$(entries "$tf.manifest")" -eq 3000 ] && [ "$(grep -c "^l" "$tf.manifest")" -eq 150 ] &&
		[ "$(grep -c "^h" "$tf.manifest")" -gt 0 ] && [ "$(grep -c "^d" "$tf.manifest")" -gt 0 ]'
expect "the manifest's workload line names the features" \
	has "$(sed -n 2p "$tf.manifest")" "tree-features=symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4%"
expect "the tree has 150 symbolic links, dangling ones and ones to directories among them" \
	eval '[ "$(find "$tf" -type l | wc -l)" -eq 150 ] && [ "$(find "$tf" -xtype l | wc -l)" -gt 0 ] &&
		[ "$(find "$tf" -type l -xtype d | wc -l)" -gt 0 ]'
expect "absolute links point only at the fixed system files, none into the tree or its directory" \
	eval '[ -z "$(find "$tf" -lname "/*" -printf "%l\n" | grep -vxE "/usr/share/zoneinfo/(Etc/)?UTC|/usr/share/common-licenses/GPL-3")" ] &&
		[ "$(find "$tf" -lname "/*" | wc -l)" -gt 0 ]'
expect "files with other names (hard links) and empty directories at depths 2, 3 and 5" \
	eval '[ "$(find "$tf" -type f -links +1 | wc -l)" -gt 0 ] &&
		[ "$(find "$tf" -mindepth 2 -maxdepth 2 -type d -empty | wc -l)" -gt 0 ] &&
		[ "$(find "$tf" -mindepth 3 -maxdepth 3 -type d -empty | wc -l)" -gt 0 ] &&
		[ "$(find "$tf" -mindepth 5 -maxdepth 5 -type d -empty | wc -l)" -gt 0 ]'
expect "0555 directories holding files, and 0755, 0444 and 0600 files" \
	eval '[ -n "$(find "$tf" -type d -perm 0555 -not -empty)" ] && [ -n "$(find "$tf" -type f -perm 0755)" ] &&
		[ -n "$(find "$tf" -type f -perm 0444)" ] && [ -n "$(find "$tf" -type f -perm 0600)" ]'
first=$(grep -m1 '^f' "$tf.manifest")
expect "a file's mtime and mode on disk are the manifest's" \
	test "$(stat -c '%Y %a' "$tf/$(cut -f6 <<<"$first")")" = "$(cut -f5 <<<"$first") $(cut -f4 <<<"$first" | sed 's/^0//')"
run "$bin" verify "$tf" --manifest "$tf.manifest"
expect "verify DIR --manifest M of the tree passes, every link and hard link kept, nothing differing" \
	eval '[ "$rc" -eq 0 ] && has "$out" "OK: 3000 files" && has "$out" "symlinks 150/150" && ! has "$out" "differ"'

run "$bin" gen -q -w smallfiles --files 3000 --seed 3 --tree-features symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4% "$tmp/tf2"
expect "--tree-features LIST as the next word, the default shares spelt out: the same manifest" \
	eval '[ "$rc" -eq 0 ] && cmp "$tf.manifest" "$tmp/tf2.manifest"'
expect "and the same tree (links and all)" diff -r --no-dereference "$tf" "$tmp/tf2"
run "$bin" gen -q -w realistic --files 3000 --seed 3 "$tmp/tf3"
expect "-w realistic is smallfiles with the default features: the same manifest" \
	eval '[ "$rc" -eq 0 ] && cmp "$tf.manifest" "$tmp/tf3.manifest"'
run "$bin" gen -q --files 3000 --seed 4 --tree-features "$tmp/tf4"
expect "another seed: other links" \
	eval '[ "$rc" -eq 0 ] && ! cmp -s <(grep "^l" "$tf.manifest") <(grep "^l" "$tmp/tf4.manifest")'
run "$bin" gen -q --files 3000 --seed 3 --tree-features=symlinks=0,hardlinks=0,links=2% "$tmp/tf5"
expect "--tree-features=LIST: links=2% (the later word) and no hard links" \
	eval '[ "$rc" -eq 0 ] && [ "$(grep -c "^l" "$tmp/tf5.manifest")" -eq 60 ] && [ "$(grep -c "^h" "$tmp/tf5.manifest")" -eq 0 ]'
run "$bin" gen -q -w mixed --files 1200 --size 4M --tree-features "$tmp/tf6"
expect "mixed with --tree-features: the small files get them, the large ones stay" \
	eval '[ "$rc" -eq 0 ] && [ "$(entries "$tmp/tf6.manifest")" -eq 1204 ] && grep -q "^l" "$tmp/tf6.manifest" &&
		grep -qP "^d\t0755\t-?[0-9]+\tlarge$" "$tmp/tf6.manifest"'
run "$bin" verify "$tmp/tf6"
expect "and verifies" eval '[ "$rc" -eq 0 ] && has "$out" "OK: 1204 files"'
chmod -R u+rwx "$tmp"/tf* && rm -rf "$tmp"/tf*

# Ctrl-C once 0555 directories exist: gen removes all it wrote (polls the tree, no timing asserted)
"$bin" gen -q --files 200000 --tree-features "$tmp/int" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 600); do
	[ -n "$(find "$tmp/int" -type d -perm 0555 2>/dev/null | head -n1)" ] && break
	sleep 0.1
done
had_rodir=$(find "$tmp/int" -type d -perm 0555 2>/dev/null | wc -l)
kill -INT "$pid"
wait "$pid"
rc=$?
expect "gen --tree-features interrupted (SIGINT) after making 0555 directories: exit 130, the tree and manifest gone" \
	eval '[ "$had_rodir" -gt 0 ] && [ "$rc" -eq 130 ] && [ ! -e "$tmp/int" ] && [ ! -e "$tmp/int.manifest" ] &&
		grep -q "interrupted; removed what was written" "$tmp/int.err"'
rm -f "$tmp/int.out" "$tmp/int.err"

usage_error "gen --tree-features=bogus=1%: exit 2, names the option and the feature" \
	"--tree-features: unknown feature 'bogus'" gen --tree-features=bogus=1% "$tmp/u"
usage_error "gen --tree-features links=60%: exit 2, at most 50%" \
	"--tree-features: 'links=60%': at most 50%" gen --tree-features links=60% "$tmp/u"
usage_error "gen --tree-features=symlinks=abc: exit 2, names the value" \
	"--tree-features: 'symlinks=abc'" gen --tree-features=symlinks=abc "$tmp/u"
usage_error "gen --tree-features=symlinks: exit 2, wants NAME=SHARE" \
	"--tree-features: 'symlinks': expected NAME=SHARE" gen --tree-features=symlinks "$tmp/u"
usage_error "gen -w largefile --tree-features: exit 2" \
	"--tree-features does not apply to the largefile workload" gen -w largefile --tree-features "$tmp/u"
usage_error "xfercmp --tree-features=hardlinks=1.234%: exit 2 before any run" \
	"--tree-features: 'hardlinks=1.234%'" --tree-features=hardlinks=1.234% --no-probes
usage_error "xfercmp --tree-features LIST A B: the list is the option's, not a host (the two hosts are refused)" \
	"expected at most one HOST, got 'a' and 'b'" --tree-features links=2% a b
usage_error "xfercmp -w dir:DIR --tree-features: exit 2" \
	"--tree-features does not apply to dir: workloads" -w "dir:$tmp" --tree-features --no-probes

# ---- help and version ----

run "$bin" gen --help
help_ok=0
for opt in --files --size --seed --compressibility; do
	grep -- "$opt" <<<"$out" | grep -q "default" || help_ok=1
done
expect "gen --help exits 0 and lists --files, --size, --seed, --compressibility with defaults" \
	test "$rc$help_ok" = 00
expect "gen --help names --tree-features, its default shares and -w realistic" \
	eval 'has "$out" "--tree-features[=LIST]" && has "$out" "symlinks=5%,hardlinks=1%,emptydirs=2%" && has "$out" "realistic"'
run "$bin" --help
expect "xfercmp --help names --tree-features and -w realistic" \
	eval '[ "$rc" -eq 0 ] && has "$out" "--tree-features[=LIST]" && has "$out" "realistic"' 
run "$bin" --version
expect "xfercmp --version prints a version" \
	eval '[ "$rc" -eq 0 ] && grep -qE "^xfercmp [0-9]+\.[0-9]+" <<<"$out"'

finish
