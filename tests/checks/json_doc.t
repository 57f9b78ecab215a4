#!/usr/bin/env bash
# docs/JSON.md and docs/report.schema.json cannot drift (issue 40, item 5):
# scripts/check-json-doc.py passes on the tree, and fails, naming the field,
# on a copy of the page with a row removed, a row the schema lacks, or a type
# changed, and on a copy of the schema with a field the page lacks. Local
# only: no build, no host, no network.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
on_exit cleanup

plan 5

check_doc="$top/scripts/check-json-doc.py"
schema="$top/docs/report.schema.json"
doc="$top/docs/JSON.md"

check "docs/JSON.md has a row for every field of the schema, and only those, with its type" \
	python3 "$check_doc" "$schema" "$doc"

# refused DESCRIPTION PATTERN SCHEMA DOC: the check exits 1 and names what was planted
refused() {
	run python3 "$check_doc" "$3" "$4"
	[ "$rc" -eq 1 ] && grep -qF -- "$2" <<<"$out"
	ok $? "$1"
	[ "$rc" -eq 1 ] || show
}

grep -v '^| `ceilings.zstd_ratio` ' "$doc" >"$tmp/JSON.md"
refused "a field of the schema without its row is refused" \
	'`ceilings.zstd_ratio` (number or null) is in the schema but has no row' "$schema" "$tmp/JSON.md"

sed 's/^| `fastest.next` | string or null | \(.*\)$/&\n| `fastest.planted` | number | not in the schema |/' "$doc" >"$tmp/JSON.md"
refused "a row the schema does not have is refused" \
	'`fastest.planted` is not in the schema' "$schema" "$tmp/JSON.md"

sed 's/^| `results\[\].files` | integer or null |/| `results[].files` | integer |/' "$doc" >"$tmp/JSON.md"
refused "a row whose type differs from the schema's is refused" \
	"\`results[].files\` says type 'integer', the schema 'integer or null'" "$schema" "$tmp/JSON.md"

python3 - "$schema" "$tmp/schema.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["properties"]["planted_field"] = {"type": ["string", "null"]}
json.dump(s, open(sys.argv[2], "w"))
PY
refused "a field added to the schema without a row is refused" \
	'`planted_field` (string or null) is in the schema but has no row' "$tmp/schema.json" "$doc"

finish
