# shellcheck shell=bash
# The bench selftests' one check (sourced by scripts/bench/selftest*.sh): is NAME GOT
# WANT prints "ok N - NAME" or "not ok N - NAME" with both values, and sets failed.
# shellcheck disable=SC2034 # failed is read by the selftest that sources this
n=0
failed=0
is() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '#   got:  %s\n#   want: %s\n' "$2" "$3"
		failed=1
	fi
}
