#!/usr/bin/env bash
# The bench's own helpers (scripts/bench/selftest.sh): statistics, ratios,
# table rows, JSON readers, the model/real pairs read from
# `xfercmp --list-strategies`, starting a server; the forecast section's
# frozen-commit line, options, estimate, rows and summaries from fabricated
# schema-3 reports, and its runs with a stand-in xfercmp and testbed; no root,
# no testbed.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/bench/selftest.sh"
