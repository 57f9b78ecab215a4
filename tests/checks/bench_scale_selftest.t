#!/usr/bin/env bash
# The bench's helpers for its cost, limits, pairs and scale parts
# (scripts/bench/selftest_scale.sh): cost medians and tables, fio's JSON, best
# strategies, the pairs' fastest, peaks and targets, and bench.sh's refusal of bad
# option values; no root, no testbed.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/bench/selftest_scale.sh"
