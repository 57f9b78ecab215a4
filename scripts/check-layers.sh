#!/usr/bin/env bash
# Checks that the layers run one way (scripts/layers.mk): every #include and
# every symbol a layer's objects need from another layer go to a layer it
# may use. Prints each violation as "FILE: LAYER uses HIGHER (what)" and
# exits 1 if there is any, 0 otherwise.
#
#   scripts/check-layers.sh [SRC_ROOT [OBJ_ROOT]]
#
# SRC_ROOT (default: the repository) holds the layer folders; OBJ_ROOT
# (default: SRC_ROOT/build/obj) their objects, one folder a layer as the
# Makefile builds them. tests/checks/layers.t plants an upward include and
# an upward call in a copy and sees each refused.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${1:-$top}
obj=${2:-$src/build/obj}

# The table: "LAYER: USES..." lines, from the Makefile's own reading of it.
table=$(make -s --no-print-directory -C "$top" -f scripts/layers.mk -f - print-layers <<'EOF'
print-layers:
	@$(foreach l,$(LAYERS),echo "$(l): $(USES_$(l))";)
EOF
) || { echo "check-layers: cannot read scripts/layers.mk" >&2; exit 2; }
forbid=$(make -s --no-print-directory -C "$top" -f scripts/layers.mk -f - print-forbid <<'EOF'
print-forbid:
	@$(foreach f,$(FORBID_PREFIXES),echo "$(f): $(FORBID_$(f))";)
EOF
) || { echo "check-layers: cannot read scripts/layers.mk" >&2; exit 2; }

declare -A uses is_layer
layers=()
while IFS= read -r line; do
	l=${line%%:*}
	layers+=("$l")
	uses[$l]=" ${line#*:} "
	is_layer[$l]=1
done <<<"$table"

# layer_of PATH (relative to src): sets $other to the layer folder holding it, or "" (cmd/, tests)
layer_of() {
	local d=${1%/*}
	other=""
	[ -n "${is_layer[$d]:-}" ] && other=$d
}

may_use() { # may_use LAYER OTHER
	[ "$1" = "$2" ] || [[ "${uses[$1]}" == *" $2 "* ]]
}

bad=0
complain() {
	echo "$1"
	bad=$((bad + 1))
}

# Includes, resolved as the compiler does: the file's own folder first, then -I common
# workloads transfer cmd (the Makefile's INCLUDES).
for l in "${layers[@]}"; do
	for f in "$src/$l"/*.[ch]; do
		[ -e "$f" ] || continue
		rel=${f#"$src"/}
		while IFS= read -r inc; do
			found=""
			for dir in "$l" common workloads transfer cmd; do
				if [ -f "$src/$dir/$inc" ]; then
					found=$dir/$inc
					break
				fi
			done
			[ -n "$found" ] || continue
			layer_of "$found"
			if [ -z "$other" ]; then
				complain "$rel: $l includes $found, which is in no layer"
			elif ! may_use "$l" "$other"; then
				complain "$rel: $l includes $found ($other)"
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
done

# Files held to less: every header they reach (the preprocessor's own list) against FORBID_.
while IFS= read -r line; do
	[ -n "$line" ] || continue
	prefix=${line%%:*}
	for f in "$src/$prefix"*.[ch]; do
		[ -e "$f" ] || continue
		# shellcheck disable=SC2046 # the flags are words
		deps=$(cd "$src" && cpp -MM -Icommon -Iworkloads -Itransfer -Icmd $(pkg-config --cflags json-c 2>/dev/null) \
			"${f#"$src"/}" 2>/dev/null | tr -d '\\' | tr ' ' '\n')
		for header in ${line#*:}; do
			if grep -qx "$header" <<<"$deps"; then
				complain "${f#"$src"/}: reaches $header, which it must not see (scripts/layers.mk, FORBID_$prefix)"
			fi
		done
	done
done <<<"$forbid"

# Symbols: what each layer's objects define and what they need.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for l in "${layers[@]}"; do
	name=${l//\//_}
	objs=("$obj/$l"/*.o)
	if [ ! -e "${objs[0]}" ]; then
		echo "check-layers: no objects in $obj/$l: build first (make all)" >&2
		exit 2
	fi
	nm -g --defined-only "${objs[@]}" 2>/dev/null | awk -v l="$l" 'NF == 3 { print $3, l }' >>"$tmp/defined"
	nm -u -A "${objs[@]}" 2>/dev/null | awk -v l="$l" -v root="$obj/" '{ f = $1; sub(/:.*/, "", f); sub(root, "", f); print $NF, l, f }' >>"$tmp/needed"
done
sort -u -k1,1 "$tmp/defined" >"$tmp/defined.sorted"
sort -k1,1 "$tmp/needed" >"$tmp/needed.sorted"
while read -r sym needer object definer; do
	may_use "$needer" "$definer" || complain "$object: $needer calls $sym ($definer)"
done < <(join -1 1 -2 1 -o 1.1,1.2,1.3,2.2 "$tmp/needed.sorted" "$tmp/defined.sorted")

if [ "$bad" -gt 0 ]; then
	echo "check-layers: $bad uses the layers forbid (scripts/layers.mk says which layer may use which)" >&2
	exit 1
fi
echo "check-layers: ${#layers[@]} layers, every include and call runs downward"
