# The layers, lowest first: each folder is one archive and may use only the
# layers named after it (and itself). Nothing uses a layer above it. Read by
# the Makefile (link order) and by scripts/check-layers.sh (includes and
# symbols). Why this order: README.md, "Layout".
LAYERS := common workloads transfer/sample transfer/stream transfer/ssh transfer/agent \
	transfer/client transfer/probe transfer/strategy transfer/model transfer/run cmd/report

USES_common :=
USES_workloads := common
# /proc sampling, both ends
USES_transfer/sample := workloads common
# the wire: frames, tar streams, splice, the handshake both ends speak
USES_transfer/stream := transfer/sample workloads common
USES_transfer/ssh := transfer/stream transfer/sample workloads common
# the agent and the client are siblings: neither uses the other, both speak stream/
USES_transfer/agent := transfer/stream transfer/sample workloads common
USES_transfer/client := transfer/ssh transfer/stream transfer/sample workloads common
USES_transfer/probe := transfer/client transfer/ssh transfer/stream transfer/sample workloads common
USES_transfer/strategy := transfer/probe transfer/client transfer/ssh transfer/stream transfer/sample \
	workloads common
# the model: pure arithmetic over probes, strategy traits and its own run record
USES_transfer/model := transfer/strategy transfer/probe transfer/stream transfer/sample workloads common
# the runner and the comparison session: runs strategies, asks the model
USES_transfer/run := transfer/model transfer/strategy transfer/probe transfer/client transfer/ssh \
	transfer/stream transfer/sample workloads common
# the renderers: table, JSON, HTML, CSV/Markdown, diff, the live status line; they show
# what the layers below measured and decided. cmd/ above them only parses and wires.
USES_cmd/report := transfer/run transfer/model transfer/strategy transfer/probe transfer/client \
	transfer/ssh transfer/stream transfer/sample workloads common

# what the static agent links (it must not use ssh, client or any layer above)
AGENT_LAYERS := transfer/agent transfer/stream transfer/sample workloads common

# $(call layers_down,LIST): LIST in LAYERS' order, highest first (the link order)
layers_down = $(strip $(foreach i,$(shell seq $(words $(LAYERS)) -1 1),$(filter $(word $(i),$(LAYERS)),$(1))))

# Files held to less than their layer allows (scripts/check-layers.sh checks
# every header they reach, directly or through others): the forecast is made
# before the run it is compared with and may see nothing a run measured
# (docs/MODEL.md), so transfer/model/forecast* never reach the run record,
# the accounting or the runner.
FORBID_PREFIXES := transfer/model/forecast
FORBID_transfer/model/forecast := transfer/model/run_record.h transfer/model/accounting.h \
	transfer/model/what_if.h transfer/run/runner.h
