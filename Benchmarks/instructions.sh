#!/usr/bin/env bash
# Counts the instructions, allocations and bytes allocated of every path users feel and checks
# them against their budgets in budgets.tsv; then prints the quality targets counted in
# instructions. The counts repeat exactly for the same binary and input, whatever else the
# machine is doing, so CI runs this and fails on a budget not kept.
#
# Usage (from anywhere; needs valgrind and python3):
#   Benchmarks/instructions.sh                    check every budget
#   Benchmarks/instructions.sh --write            print budgets.tsv with this build's counts
#   Benchmarks/instructions.sh CASE...            count only these paths
#
# See budgets.py for how a path is counted and when it fails.
set -euo pipefail
cd "$(dirname "$0")"

swift build -c release --product InstructionCounts >&2
swift build -c release --product AllocationCounter >&2
bin=$(swift build -c release --show-bin-path)
# Stripped: valgrind gives up on the debug information the Swift compiler writes.
binary=$bin/InstructionCounts.stripped
strip --strip-debug -o "$binary" "$bin/InstructionCounts"
exec python3 budgets.py "$binary" "$bin/libAllocationCounter.so" "$@"
