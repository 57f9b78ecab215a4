#!/usr/bin/env bash
# build/tests/tree_limit, the small-file limit of scripts/bench.sh's limits section
# (tests/tools/tree_limit.c): it creates the whole tree, byte for byte, in each mode
# that creates; it refuses bad arguments and an occupied destination with a one-line
# error and a non-zero exit. No root, no testbed.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
tool=$top/build/tests/tree_limit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/bench/tap.sh
. "$top/scripts/bench/tap.sh"

echo "1..12"
[ -x "$tool" ] || { echo "Bail out! $tool not built (make unit-tests)"; exit 1; }

# a tree with nested and empty directories, an empty file, a file of several read
# pieces (3 MiB + 1 byte) and names with spaces and a newline
src=$tmp/src
mkdir -p "$src/a/b/c" "$src/empty dir" "$src/odd name"
printf 'x' >"$src/a/one"
: >"$src/a/b/empty"
head -c $((3 * 1048576 + 1)) /dev/urandom >"$src/a/b/c/big"
for i in $(seq 1 300); do printf '%s\n' "$i" >"$src/odd name/f $i"; done
printf 'nl' >"$src/odd name/new
line"
cp -a "$src" "$tmp/content"
files=$(find "$src" -type f | wc -l)

run() { # MODE DST [READERS WRITERS]: tree_limit's stdout, its stderr in $tmp/err
	"$tool" "$1" "$src" "$tmp/content" "$2" "${3:-8}" "${4:-4}" 2>"$tmp/err"
}

for mode in create both; do
	rm -rf "$tmp/dst" && mkdir "$tmp/dst"
	out=$(run "$mode" "$tmp/dst")
	is "$mode: prints the seconds" "$([[ $out =~ ^[0-9]+\.[0-9]{3}$ ]] && echo number || echo "$out")" number
	is "$mode: every file created" "$(find "$tmp/dst" -type f | wc -l)" "$files"
	is "$mode: the copy is byte for byte the source" "$(diff -r "$src" "$tmp/dst" >/dev/null && echo same || echo differs)" same
done

rm -rf "$tmp/dst" && mkdir "$tmp/dst"
mode="read"
out=$(run "$mode" "$tmp/dst")
is "read: prints the seconds" "$([[ $out =~ ^[0-9]+\.[0-9]{3}$ ]] && echo number || echo "$out")" number
is "read: creates nothing" "$(find "$tmp/dst" -mindepth 1 | wc -l)" 0

# a destination that already holds the tree: O_EXCL refuses, one line, exit 1
run create "$tmp/dst" >/dev/null
run create "$tmp/dst" >/dev/null
rc=$?
is "an occupied destination exits 1" "$rc" 1
is "... with one line naming a file" "$(wc -l <"$tmp/err") $(grep -c "cannot create '.*' in the destination: File exists" "$tmp/err")" "1 1"

run both "$tmp/dst" 0 4 >/dev/null
is "READERS 0 is a usage error (exit 2)" "$? $(grep -c 'READERS: expected 1 to 256' "$tmp/err")" "2 1"
"$tool" sideways "$src" "$tmp/content" "$tmp/dst" 1 1 >/dev/null 2>"$tmp/err"
is "an unknown mode is a usage error (exit 2)" "$? $(grep -c '^usage: tree_limit' "$tmp/err")" "2 1"

exit "$failed"
