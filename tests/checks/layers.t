#!/usr/bin/env bash
# The layers run one way (scripts/layers.mk, issue 40): scripts/check-layers.sh
# passes on the tree as built, and refuses a copy in which a low layer
# (transfer/sample) includes a header of a high one (transfer/run) or calls
# into it (runner_run), an agent layer that includes the client's, the
# runner including a report's header (cmd/report is a layer above
# transfer/run), and a forecast that reaches the run record (issue 41: it
# may see nothing a run measured).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

build=${BUILD:-build}
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
on_exit cleanup

plan 7

check "the tree as built: every include and call runs downward" "$top/scripts/check-layers.sh" "$top" "$top/$build/obj"

# A copy to plant in: the sources copied, the objects linked.
copy() {
	rm -rf "$tmp/src" "$tmp/obj"
	mkdir -p "$tmp/src" "$tmp/obj"
	cp -r "$top/common" "$top/workloads" "$top/transfer" "$top/cmd" "$tmp/src/"
	(cd "$top/$build/obj" && find . -name '*.o' -path './transfer/*' -o -name '*.o' -path './common/*' \
		-o -name '*.o' -path './workloads/*' -o -name '*.o' -path './cmd/report/*') | while read -r o; do
		mkdir -p "$tmp/obj/$(dirname "$o")"
		ln -s "$top/$build/obj/$o" "$tmp/obj/$o"
	done
}

copy
check "the copy passes before anything is planted" "$top/scripts/check-layers.sh" "$tmp/src" "$tmp/obj"

# refused DESCRIPTION PATTERN: check-layers on the copy exits 1 and names the planted use
refused() {
	run "$top/scripts/check-layers.sh" "$tmp/src" "$tmp/obj"
	[ "$rc" -eq 1 ] && grep -qF "$2" <<<"$out"
	ok $? "$1"
	[ "$rc" -eq 1 ] || show
}

echo '#include "run/runner.h"' >>"$tmp/src/transfer/sample/rss.h"
refused "an upward include (sample -> run) is refused, naming the file" \
	'transfer/sample/rss.h: transfer/sample includes transfer/run/runner.h'

copy
printf 'extern int runner_run(void);\nint planted_call(void);\nint planted_call(void) { return runner_run(); }\n' >"$tmp/planted.c"
cc -c -o "$tmp/obj/transfer/sample/planted.o" "$tmp/planted.c"
refused "an upward call (sample -> runner_run) is refused, naming the object" \
	'transfer/sample/planted.o: transfer/sample calls runner_run (transfer/run)'

copy
echo '#include "client/agent_client.h"' >>"$tmp/src/transfer/agent/agent.c"
refused "the agent including the client (siblings) is refused" \
	'transfer/agent includes transfer/client/agent_client.h'

copy
echo '#include "report/report.h"' >>"$tmp/src/transfer/run/runner.c"
refused "the runner including a report (run -> cmd/report) is refused" \
	'transfer/run/runner.c: transfer/run includes cmd/report/report.h (cmd/report)'

copy
echo '#include "model/accounting.h"' >>"$tmp/src/transfer/model/forecast.c"
refused "the forecast reaching the run record (through the accounting) is refused" \
	'transfer/model/forecast.c: reaches transfer/model/run_record.h, which it must not see'

finish
