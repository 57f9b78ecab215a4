#!/usr/bin/env bash
# make demo: brings up the testbed host and runs the main job against it:
#   xfercmp --workload smallfiles --strategies all testbed
# DEMO_FILES (default 20000) sets the number of small files; the tree is kept in
# build/demo/ and reused by the next demo. The HTML report lands in build/demo/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

files=${DEMO_FILES:-20000}
work=build/demo
mkdir -p "$work"

scripts/testbed.sh up
echo
echo "+ xfercmp -F build/testbed/ssh_config --workload smallfiles --files $files --strategies all testbed"
./xfercmp -F build/testbed/ssh_config --workload smallfiles --files "$files" --strategies all \
	--source-dir "$work/smallfiles-$files" --json "$work/report.json" --html "$work/report.html" testbed
echo
echo "report: $work/report.html (JSON: $work/report.json)"
