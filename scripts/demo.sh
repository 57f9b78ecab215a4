#!/usr/bin/env bash
# make demo: brings up the testbed host and runs the main job against it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

files=${DEMO_FILES:-20000}
work=build/demo
mkdir -p "$work"

scripts/testbed.sh up
echo
if [ ! -f "$work/smallfiles.manifest" ]; then
	./xfercmp gen -w smallfiles --files "$files" "$work/smallfiles"
fi
./xfercmp verify "$work/smallfiles"
