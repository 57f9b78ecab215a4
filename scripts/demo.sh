#!/usr/bin/env bash
# make demo: brings up the testbed host and runs the main job against it:
#   xfercmp --workload smallfiles --strategies all testbed
# DEMO_FILES (default 20000) sets the number of small files; the tree is kept in
# build/demo/ and reused by the next demo. The HTML report lands in build/demo/.
#
# The testbed stays up at the end, and the last lines say so and how to take it
# down: the demo shows a command to run against a host, and the next one (other
# strategies, --explain, `xfercmp clean`) needs the host still there. Said also when
# the run fails, so nothing is left running unannounced.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

files=${DEMO_FILES:-20000}
work=build/demo
mkdir -p "$work"

# after `up`, whatever happens: what is left running, and how to end it
left_up() {
	scripts/testbed.sh status >/dev/null 2>&1 || return 0
	echo
	echo "The testbed host is still up (network namespace xfercmp-host, sshd at 198.18.0.2),"
	echo "for more runs against it, such as:"
	echo "  ./xfercmp -F build/testbed/ssh_config -w smallfiles --files 2000 -s scp,splice testbed"
	echo "To remove what xfercmp left on it (the uploaded agent) and take it down:"
	echo "  ./xfercmp clean -F build/testbed/ssh_config testbed && scripts/testbed.sh down"
}

scripts/testbed.sh up
trap left_up EXIT
echo
echo "+ xfercmp -F build/testbed/ssh_config --workload smallfiles --files $files --strategies all testbed"
./xfercmp -F build/testbed/ssh_config --workload smallfiles --files "$files" --strategies all \
	--source-dir "$work/smallfiles-$files" --json "$work/report.json" --html "$work/report.html" testbed
echo
echo "report: $work/report.html (JSON: $work/report.json)"
