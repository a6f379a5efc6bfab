#!/usr/bin/env bash
# Counts the instructions of the cases too short, or too mixed with a write, for a clock, and
# prints them beside their anchors and targets. Instruction counts repeat exactly for the same
# binary and input, whatever else the machine is doing.
#
# Usage (from anywhere; needs valgrind):
#   Benchmarks/instructions.sh
#
# Each case runs under callgrind at two iteration counts; the difference of the totals divided
# by the difference of the counts is one iteration, without the process's start or the
# fixtures. A read after a write is the write followed by the read, less the write alone.
set -euo pipefail
cd "$(dirname "$0")"

swift build -c release --product InstructionCounts >&2
# Stripped: valgrind gives up on the debug information the Swift compiler writes.
binary=$(swift build -c release --show-bin-path)/InstructionCounts.stripped
strip --strip-debug -o "$binary" "${binary%.stripped}"

# per_iteration CASE: the instructions of one iteration of CASE.
per_iteration() {
  local low=200 high=1200 totals=()
  for count in $low $high; do
    totals+=("$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$count" \
      2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')")
  done
  echo $(((totals[1] - totals[0]) / (high - low)))
}

declare -A counts
for name in "stored read" "unrelated set" "unrelated set, read at depth 1,000" \
  "ancestor set, depth 10" "ancestor set, read at depth 10" \
  "ancestor set, depth 1,000" "ancestor set, read at depth 1,000" \
  "child with one override, read" "TaskLocal withValue, read" \
  "child with one override, withCurrent, @Environment read" \
  "values, plain entry read" "values, derived read" \
  "@Environment, plain entry read" "@Environment, derived read" \
  "child with one override, first derived read" \
  "server request, by hand" "server request, node per request"; do
  counts[$name]=$(per_iteration "$name")
  printf '  %-40s %8d instructions\n' "$name" "${counts[$name]}" >&2
done

w1=$((counts["unrelated set, read at depth 1,000"] - counts["unrelated set"]))
w2_10=$((counts["ancestor set, read at depth 10"] - counts["ancestor set, depth 10"]))
w2_1000=$((counts["ancestor set, read at depth 1,000"] - counts["ancestor set, depth 1,000"]))
stored=${counts["stored read"]}
scope=${counts["child with one override, read"]}
tasklocal=${counts["TaskLocal withValue, read"]}
first_derived=${counts["child with one override, first derived read"]}

row() { # CASE VALUE ANCHOR-NAME ANCHOR-VALUE TARGET-RATIO
  local ratio
  ratio=$(python3 -c "print(f'{$2 / $4:.2f}')")
  local verdict
  verdict=$(python3 -c "print('met' if $2 / $4 <= $5 else 'NOT MET')")
  printf '| %s | %d | %s, %d | %s× | ≤ %s× | %s |\n' "$1" "$2" "$3" "$4" "$ratio" "$5" "$verdict"
}
info_row() { # CASE VALUE ANCHOR-NAME ANCHOR-VALUE: a row without a target
  printf '| %s | %d | %s, %d | %s× |  |  |\n' "$1" "$2" "$3" "$4" \
    "$(python3 -c "print(f'{$2 / $4:.2f}')")"
}
echo
echo "| case (instructions) | count | anchor | ratio | target | |"
echo "|---|---:|---|---:|---:|---|"
row "W1: read at depth 1,000 after a set on an unrelated node" "$w1" "stored property read" \
  "$stored" 5
row "W2: read at depth 1,000 after a set at its ancestor" "$w2_1000" "the same at depth 10" \
  "$w2_10" 2
row "Scope: child with one override, then a read" "$scope" "TaskLocal withValue, read" \
  "$tasklocal" 3
# Measured against its target by the clock (ReadBenchmarks), which reads tens of nanoseconds
# well; counted here to show the work the lookup does.
info_row "Derived: EnvironmentValues read, built" "${counts["values, derived read"]}" \
  "the same of a plain entry" "${counts["values, plain entry read"]}"
row "Derived: @Environment read, built" "${counts["@Environment, derived read"]}" \
  "the same of a plain entry" "${counts["@Environment, plain entry read"]}" 2
row "Derived: child with one override, then a first read" "$first_derived" \
  "the same, a plain read" "$scope" 3
# Issue 18's target is measured under load (Examples/NotesServer/load.sh); this is the part of a
# request Milieu adds, which the load run cannot separate from the server's noise.
info_row "Server: NotesServer's request work, node per request" \
  "${counts["server request, node per request"]}" "the same by hand" \
  "${counts["server request, by hand"]}"
