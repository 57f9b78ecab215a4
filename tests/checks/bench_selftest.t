#!/usr/bin/env bash
# The bench's own helpers (scripts/bench/selftest.sh): statistics, ratios,
# table rows, JSON readers, the model/real pairs read from
# `xfercmp --list-strategies`, and starting a server; no root, no testbed.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/bench/selftest.sh"
