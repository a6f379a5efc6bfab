#!/usr/bin/env bash
# Builds Milieu's libFuzzer targets with swiftc (not SwiftPM) and runs each for a while.
#
# Usage:
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
#   SECONDS   how long each target runs (default 60)
#   TARGET    the targets to run, by folder name under Fuzz/ (default: every target whose
#             modules exist: AlertValidation, KeyDecoder, AlertRenderer, EnvironmentTree)
#
# Output, all under .fuzz/ (ignored by git):
#   .fuzz/build/               module objects and the target executables
#   .fuzz/corpus/<TARGET>/     the corpus each run grows and the next run starts from
#   .fuzz/artifacts/<TARGET>/  crashing, leaking or timed-out inputs (crash-…, leak-…, timeout-…)
#   .fuzz/logs/<TARGET>.log    libFuzzer's full output for the last run
#
# Fuzz/<TARGET>/dictionary.txt, when present, lists byte sequences libFuzzer splices into
# inputs (escape sequences, bidi controls, repaired titles), which reach deep states sooner.
#
# Prints the executions and seconds of each target, and exits non-zero when a target finds a
# crash, printing the path of the input that triggers it. Replay one with
# `.fuzz/build/<TARGET> <path>`; then add the input, inline, to a regression test.
#
# How it compiles. A fuzz target is an executable made of its entry point (Fuzz/<TARGET>/*.swift,
# whose `@_cdecl("LLVMFuzzerTestOneInput")` function libFuzzer calls), the shared reader in
# Fuzz/Support, and the object files of the library modules it imports. Each library module is
# compiled once, on its own, exactly as SwiftPM would see it — `-wmo` into one object file, with
# `-emit-module` so that the next module and the targets can `import` it, and one
# `-package-name` so that `package` declarations stay visible across modules, and with
# `-enable-testing` so that a target can `@testable import` a module's internals, such as the
# terminal's key decoder. Every object is
# compiled with `-sanitize=fuzzer,address`: libFuzzer's coverage instrumentation and
# AddressSanitizer's checks cover the library code, not only the entry point, and no source file
# is copied or edited. A module is rebuilt only when one of its sources, or this script, changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly seconds="${1:-60}"
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "fuzz: error: SECONDS must be a positive whole number, not '$seconds'" >&2
  exit 2
fi

readonly work=.fuzz
readonly build="$work/build"
mkdir -p "$build" "$work/corpus" "$work/artifacts" "$work/logs"

# The library modules, each followed by the modules it imports, in build order.
module_names=(Milieu MilieuAlerts MilieuTerminal)
module_dependencies=("" "Milieu" "Milieu MilieuAlerts")

# Each target and the library modules it links, dependencies included.
target_names=(AlertValidation KeyDecoder AlertRenderer EnvironmentTree)
target_modules=("Milieu MilieuAlerts" "Milieu MilieuAlerts MilieuTerminal"
  "Milieu MilieuAlerts MilieuTerminal" "Milieu")

readonly common_flags=(-swift-version 6 -sanitize=fuzzer,address -parse-as-library -O -g
  -package-name milieu -warnings-as-errors -use-ld=lld)

# Prints the sources of a folder, one per line, sorted.
sources_of() {
  find "$1" -name '*.swift' -type f | LC_ALL=C sort
}

# True when the file $1 is missing, or older than this script or any of the files $2...
is_stale() {
  local output="$1"
  shift
  [[ -f "$output" ]] || return 0
  [[ "${BASH_SOURCE[0]}" -nt "$output" ]] && return 0
  local file
  for file in "$@"; do
    [[ "$file" -nt "$output" ]] && return 0
  done
  return 1
}

build_module() {
  local index="$1" name="${module_names[$1]}"
  local sources=() file
  while IFS= read -r file; do
    sources+=("$file")
  done < <(sources_of "Sources/$name")
  local inputs=("${sources[@]}")
  local dependency
  for dependency in ${module_dependencies[index]}; do
    inputs+=("$build/$dependency.swiftmodule")
  done
  if ! is_stale "$build/$name.o" "${inputs[@]}"; then
    return 0
  fi
  echo "fuzz: compiling module $name (${#sources[@]} files)"
  swiftc "${common_flags[@]}" -wmo -enable-testing -module-name "$name" -I "$build" \
    -emit-module -emit-module-path "$build/$name.swiftmodule" \
    -c "${sources[@]}" -o "$build/$name.o"
}

build_target() {
  local index="$1" name="${target_names[$1]}"
  local sources=() file
  while IFS= read -r file; do
    sources+=("$file")
  done < <(sources_of "Fuzz/$name" && sources_of Fuzz/Support)
  local objects=() module
  for module in ${target_modules[index]}; do
    objects+=("$build/$module.o")
  done
  if ! is_stale "$build/$name" "${sources[@]}" "${objects[@]}"; then
    return 0
  fi
  echo "fuzz: linking target $name"
  swiftc "${common_flags[@]}" -module-name "Fuzz$name" -I "$build" \
    "${sources[@]}" "${objects[@]}" -o "$build/$name"
}

# The targets to run: the arguments, or every target whose modules all have sources.
selected=()
if (($# > 0)); then
  for name in "$@"; do
    found=0
    for index in "${!target_names[@]}"; do
      if [[ "${target_names[index]}" == "$name" ]]; then
        selected+=("$index")
        found=1
      fi
    done
    if ((found == 0)); then
      echo "fuzz: error: no target named '$name' (targets: ${target_names[*]})" >&2
      exit 2
    fi
  done
else
  for index in "${!target_names[@]}"; do
    available=1
    for module in ${target_modules[index]}; do
      [[ -d "Sources/$module" ]] || available=0
    done
    if ((available == 1)); then
      selected+=("$index")
    else
      echo "fuzz: skipping ${target_names[index]}: it needs ${target_modules[index]}"
    fi
  done
fi

# Build every module the selected targets need, in dependency order, then the targets.
for module_index in "${!module_names[@]}"; do
  needed=0
  for index in "${selected[@]}"; do
    for module in ${target_modules[index]}; do
      [[ "$module" == "${module_names[module_index]}" ]] && needed=1
    done
  done
  if ((needed == 1)); then
    build_module "$module_index"
  fi
done
for index in "${selected[@]}"; do
  build_target "$index"
done

# Run each target for its time. libFuzzer exits non-zero on a crash, a leak, a timeout or an
# out-of-memory input, and writes that input under the artifact prefix.
# stat::number_of_executed_units and stat::average_exec_per_sec come from -print_final_stats.
failed=()
summary=()
for index in "${selected[@]}"; do
  name="${target_names[index]}"
  corpus="$work/corpus/$name"
  artifacts="$work/artifacts/$name"
  log="$work/logs/$name.log"
  mkdir -p "$corpus" "$artifacts"
  extra=()
  [[ -f "Fuzz/$name/dictionary.txt" ]] && extra+=("-dict=Fuzz/$name/dictionary.txt")
  echo "fuzz: running $name for ${seconds}s (log: $log)"
  started=$SECONDS
  status=0
  # The Swift runtime's backtracer would fight AddressSanitizer over a crash; libFuzzer reports it.
  SWIFT_BACKTRACE=enable=no "$build/$name" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" "$corpus" \
    >"$log" 2>&1 || status=$?
  elapsed=$((SECONDS - started))
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  units="$(find "$corpus" -type f | wc -l | tr -d ' ')"
  line="$(printf '%-16s %12s executions in %4ss (%s/s), corpus %s inputs' "$name" \
    "${executions:-?}" "$elapsed" "${rate:-?}" "$units")"
  if ((status != 0)); then
    crash="$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)"
    line+=" — FAILED (exit status $status)"
    echo "fuzz: $name FAILED; the last lines of its log:" >&2
    tail -n 40 "$log" | sed 's/^/    /' >&2
    if [[ -n "$crash" ]]; then
      echo "fuzz: crashing input: $crash" >&2
      echo "fuzz: replay it with: $build/$name $crash" >&2
      line+=": $crash"
    fi
    failed+=("$name")
  fi
  summary+=("$line")
done

echo
echo "fuzz summary (${seconds}s per target):"
for line in "${summary[@]}"; do
  echo "  $line"
done
if ((${#failed[@]} > 0)); then
  echo "fuzz: crashes found in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no crashes found."
