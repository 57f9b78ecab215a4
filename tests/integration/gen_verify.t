#!/usr/bin/env bash
# TAP test for `xfercmp gen` and `xfercmp verify` through the built binary:
# generation, determinism, every kind of difference verify must report, the
# refusal to write into a non-empty directory, usage errors and --help.
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
trap 'rm -rf "$tmp"' EXIT

plan 48

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

# ---- help and version ----

run "$bin" gen --help
help_ok=0
for opt in --files --size --seed --compressibility; do
	grep -- "$opt" <<<"$out" | grep -q "default" || help_ok=1
done
expect "gen --help exits 0 and lists --files, --size, --seed, --compressibility with defaults" \
	test "$rc$help_ok" = 00
run "$bin" --version
expect "xfercmp --version prints a version" \
	eval '[ "$rc" -eq 0 ] && grep -qE "^xfercmp [0-9]+\.[0-9]+" <<<"$out"'

finish
