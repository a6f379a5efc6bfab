#!/usr/bin/env bash
# Runs the benchmark suites once and prints one table: each case's median (p50), the anchor it
# is compared with from the same run, the ratio, the quality target and whether it is met.
#
# Usage (from anywhere):
#   Benchmarks/compare.sh                      run every suite, keep the run as baseline
#                                              "compare", print the table
#   Benchmarks/compare.sh --target 'Read.*'    pass options on to `swift package benchmark`
#   Benchmarks/compare.sh --no-run [--baseline NAME]
#                                              print the table of a run stored before, e.g. by
#                                              `swift package benchmark baseline update NAME`
#
# Medians come from the stored baseline (.benchmarkBaselines/<suite>/<name>/results.json): the
# HDR histogram of each metric is read back exactly as package-benchmark computes its
# percentiles, and divided by the benchmark's own scaling factor, which the file records.
# Whole runs drift by a third from one run to the next on shared machines, so only ratios
# within one run are compared.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

baseline=compare
run=1
plugin_options=()
while (($# > 0)); do
  case $1 in
    --baseline)
      baseline=${2:?--baseline needs a name}
      shift 2
      ;;
    --no-run)
      run=0
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      plugin_options+=("$1")
      shift
      ;;
  esac
done

cd "$(dirname "$0")"

if ((run)); then
  # A run replaces the whole baseline, so that a run of some suites shows only those suites.
  rm -rf .benchmarkBaselines/*/"$baseline"
  log=$(mktemp -t milieu-compare.XXXXXX)
  echo "Running the suites into baseline '$baseline' (several minutes; log: $log)..." >&2
  if ! swift package --allow-writing-to-package-directory benchmark baseline update "$baseline" \
    --no-progress "${plugin_options[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "compare.sh: the benchmark run failed; the whole log is in $log" >&2
    exit 1
  fi
  rm -f "$log"
fi

exec python3 - "$baseline" <<'PYTHON'
import glob
import json
import math
import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the table quietly

baseline = sys.argv[1]
paths = sorted(glob.glob(f".benchmarkBaselines/*/{baseline}/results.json"))
if not paths:
    sys.exit(f"compare.sh: no stored run named '{baseline}' in .benchmarkBaselines/")


# --- Reading medians back from package-benchmark's stored histograms -----------------------

def value_at_percentile(histogram, percentile):
    """HdrHistogram's valueAtPercentile, as package-benchmark's percentiles use it."""
    total = histogram["_totalCount"]
    if total == 0:
        return None
    counts = histogram["counts"]
    unit = histogram["unitMagnitude"]
    half_magnitude = histogram["subBucketHalfCountMagnitude"]
    half_count = 1 << half_magnitude
    mask = histogram["subBucketMask"]
    zero_base = histogram["leadingZeroCountBase"]
    minimum = 0 if counts[0] > 0 else histogram["minNonZeroValue"]
    maximum = histogram["maxValue"]

    def bucket_of(value):
        return zero_base - (64 - (value | mask).bit_length())

    def highest_equivalent(value):
        bucket = bucket_of(value)
        sub_bucket = value >> (bucket + unit)
        lowest = sub_bucket << (bucket + unit)
        size_bucket = bucket + 1 if sub_bucket >= 2 * half_count else bucket
        return lowest + (1 << (unit + size_bucket)) - 1

    requested = min(max(math.nextafter(percentile, -math.inf), 0.0), 100.0)
    wanted = max(1, math.ceil(requested * total / 100.0))
    running = 0
    for index, count in enumerate(counts):
        running += count
        if running >= wanted:
            bucket = (index >> half_magnitude) - 1
            sub_bucket = (index & (half_count - 1)) + half_count
            if bucket < 0:
                sub_bucket -= half_count
                bucket = 0
            value = sub_bucket << (bucket + unit)
            return max(min(highest_equivalent(value), maximum), minimum)
    return 0


def metric_name(encoded):
    (kind, payload), = encoded.items()
    if kind == "custom":
        return payload.get("name") or payload.get("_0") or next(iter(payload.values()))
    return kind


# medians[case][metric] = median per operation (raw median / the case's scaling factor)
medians = {}
for path in paths:
    with open(path) as file:
        stored = json.load(file)
    entries = stored["results"]  # [identifier, [result, ...], identifier, [result, ...], ...]
    for identifier, results in zip(entries[0::2], entries[1::2]):
        case = medians.setdefault(identifier["name"], {})
        for result in results:
            raw = value_at_percentile(result["statistics"]["histogram"], 50.0)
            if raw is None:
                continue
            name = metric_name(result["metric"])
            scale = result["scalingFactor"] if name != "throughput" else 1
            case[name] = raw / scale


# --- Formatting ---------------------------------------------------------------------------

def grouped(number, decimals):
    return f"{number:,.{decimals}f}"


def nanoseconds(value):
    if value is None:
        return "—"
    if value < 10:
        return f"{value:.2f} ns"
    if value < 1_000:
        return f"{value:.1f} ns"
    return f"{grouped(value, 0)} ns"


def ratio_text(value):
    if value is None:
        return "—"
    return f"{value:.2f}×" if value < 10 else f"{grouped(value, 0)}×"


rows = []  # case, median, anchor case, anchor median, ratio, target, met
notes = []


def row(case, median, anchor="—", anchor_median="—", ratio=None, target="—", met=None):
    verdict = "—" if met is None else ("yes" if met else "no")
    rows.append((case, median, anchor, anchor_median, ratio_text(ratio), target, verdict))


def missing(case, target="—"):
    row(case, "not measured", target=target)


def wall(case):
    return medians.get(case, {}).get("wallClock")


def allocations(case):
    return medians.get(case, {}).get("mallocCountTotal")


def with_allocations(case):
    time, count = wall(case), allocations(case)
    if time is None:
        return "not measured"
    return nanoseconds(time) + ("" if count is None else f", {count:g} allocs")


# --- Suite 1, Read ----------------------------------------------------------------------------

FLOOR = "Read: stored property of a final class"
DEPTHS = ["1", "10", "100", "1,000", "10,000"]
floor = wall(FLOOR)
slowest_read_case, slowest_read = None, None
for depth in DEPTHS:
    case = f"Read: @Environment at depth {depth}"
    time, count = wall(case), allocations(case)
    if time is None or floor is None:
        missing(case, "≤ 5× floor, 0 allocs")
        continue
    if slowest_read is None or time > slowest_read:
        slowest_read_case, slowest_read = case, time
    ratio = time / floor
    row(case, with_allocations(case), FLOOR, nanoseconds(floor), ratio, "≤ 5× floor, 0 allocs",
        ratio <= 5 and count == 0)

# The same read through a final class service: no target; the ratio to the struct service's read
# at the same depth is what keeping the wrapper in a class's stored `var` costs the client.
CLASS_READ = "Read: @Environment at depth 1, service a final class"
STRUCT_READ = "Read: @Environment at depth 1"
if wall(CLASS_READ) is None or wall(STRUCT_READ) is None:
    missing(CLASS_READ)
else:
    row(CLASS_READ, with_allocations(CLASS_READ), STRUCT_READ, with_allocations(STRUCT_READ),
        wall(CLASS_READ) / wall(STRUCT_READ))

# A class instance, read under the wrapper's lock: no target (the targets' reads are of an
# `Int`). Its anchor is a class instance in a stored property, which handing on retains and
# releases just as the read does: the ratio shows what the wrapper's lock and cache cost.
INSTANCE_READ = "Read: @Environment at depth 1, a class instance"
INSTANCE_FLOOR = "Read: class instance in a stored property of a final class"
if wall(INSTANCE_READ) is None or wall(INSTANCE_FLOOR) is None:
    missing(INSTANCE_READ)
else:
    row(INSTANCE_READ, with_allocations(INSTANCE_READ), INSTANCE_FLOOR,
        nanoseconds(wall(INSTANCE_FLOOR)), wall(INSTANCE_READ) / wall(INSTANCE_FLOOR))

for case in ["Read: EnvironmentValues", "Read: EnvironmentValues, EnvironmentKey form"]:
    if wall(case) is None or floor is None:
        missing(case)
        continue
    row(case, with_allocations(case), FLOOR, nanoseconds(floor), wall(case) / floor)

for case in ["Read: @Dependency (swift-dependencies)", "Read: Swinject resolve at the root",
             "Read: Swinject resolve through 10 child containers"]:
    if wall(case) is None or slowest_read is None:
        missing(case, "≥ 100× the read")
        continue
    ratio = wall(case) / slowest_read
    slowest = slowest_read_case.removeprefix("Read: @Environment at ")
    row(case, with_allocations(case), f"slowest @Environment read ({slowest})",
        nanoseconds(slowest_read), ratio, "≥ 100× the read", ratio >= 100)

# Reads on two threads at once: the throughput ratio is one thread's median (1,000,000 reads a
# sample either way) divided by the two threads' median. The CPU time the reading threads spent
# tells contention (more CPU time per read on two threads) from a machine with no core to spare
# (CPU time ÷ wall clock, the cores the readers kept busy, well under 2 on two threads).

ONE_THREAD = "Read: @Environment, 1,000,000 reads on one thread"
THREAD_CPU = "CPU time of the reading threads (ns)"


def thread_cpu(case):
    return medians.get(case, {}).get(THREAD_CPU)


def cpu_text(case):
    return f"{nanoseconds(thread_cpu(case))} ({thread_cpu(case) / wall(case):.2f} cores busy)"


for variant in ["a service each", "one shared service"]:
    case = f"Read: @Environment, 1,000,000 reads on two threads, {variant}"
    target = "throughput ≥ 1.8× one thread"
    if wall(case) is None or wall(ONE_THREAD) is None:
        missing(case, target)
        continue
    ratio = wall(ONE_THREAD) / wall(case)
    row(f"{case}: wall clock per read", nanoseconds(wall(case)),
        f"{ONE_THREAD}: wall clock per read", nanoseconds(wall(ONE_THREAD)), ratio, target,
        ratio >= 1.8)
    if thread_cpu(case) is not None and thread_cpu(ONE_THREAD) is not None:
        row(f"{case}: CPU time per read", cpu_text(case), f"{ONE_THREAD}: CPU time per read",
            cpu_text(ONE_THREAD), thread_cpu(case) / thread_cpu(ONE_THREAD))

# --- Suite 2, Scope ---------------------------------------------------------------------------

CHILD = "Scope: child node with one override, then a read"
TASK_LOCAL = "Scope: TaskLocal withValue, then a read"
CHILD_CURRENT = "Scope: child node with one override, withCurrent, then an @Environment read"
DEPENDENCIES = "Scope: withDependencies override, then a @Dependency read"
FLOOR_SCOPE = "Scope: the floor, a model node with Milieu's API shape, then a read"
if wall(CHILD) is None or wall(TASK_LOCAL) is None:
    missing(CHILD, "≤ 1.5× TaskLocal")
else:
    ratio = wall(CHILD) / wall(TASK_LOCAL)
    row(CHILD, with_allocations(CHILD), TASK_LOCAL, with_allocations(TASK_LOCAL), ratio,
        "≤ 1.5× TaskLocal", ratio <= 1.5)
# The floor is what the API shape alone costs (see Sources/ScopeFloor): over TaskLocal, the
# shape's own price; under the child, what Milieu's features add to it.
if wall(FLOOR_SCOPE) is None or wall(TASK_LOCAL) is None:
    missing(FLOOR_SCOPE)
else:
    row(FLOOR_SCOPE, with_allocations(FLOOR_SCOPE), TASK_LOCAL, with_allocations(TASK_LOCAL),
        wall(FLOOR_SCOPE) / wall(TASK_LOCAL))
if wall(CHILD) is not None and wall(FLOOR_SCOPE) is not None:
    row(CHILD, with_allocations(CHILD), FLOOR_SCOPE, with_allocations(FLOOR_SCOPE),
        wall(CHILD) / wall(FLOOR_SCOPE))
if wall(CHILD_CURRENT) is None or wall(TASK_LOCAL) is None:
    missing(CHILD_CURRENT)
else:
    row(CHILD_CURRENT, with_allocations(CHILD_CURRENT), TASK_LOCAL, with_allocations(TASK_LOCAL),
        wall(CHILD_CURRENT) / wall(TASK_LOCAL))
if wall(DEPENDENCIES) is None or wall(CHILD_CURRENT) is None:
    missing(DEPENDENCIES)
else:
    row(DEPENDENCIES, with_allocations(DEPENDENCIES), CHILD_CURRENT,
        with_allocations(CHILD_CURRENT), wall(DEPENDENCIES) / wall(CHILD_CURRENT))

# --- Suite 3, Build ---------------------------------------------------------------------------

HEADER_BYTES = 16  # the malloc interposer's header in front of every allocation it counts
build_case = next((name for name in medians if name.startswith("Build: tree of")), None)
if build_case is None:
    missing("Build: time per node")
    missing("Build: bytes per node, requested", "≤ 96 B")
    missing("Build: bytes per node, heap", "≤ 96 B")
else:
    nodes = int(re.search(r"([\d,]+) nodes", build_case).group(1).replace(",", ""))
    build = medians[build_case]
    row("Build: time per node", nanoseconds(build["wallClock"] / nodes)
        + f" ({build.get('mallocCountTotal', 0) / nodes:.1f} allocs)")
    requested = build.get("memoryLeakedBytes")
    if requested is None:
        missing("Build: bytes per node, requested", "≤ 96 B")
    else:
        row("Build: bytes per node, requested", f"{requested / nodes:.1f} B",
            target="≤ 96 B", met=requested / nodes <= 96)
    heap, kept = build.get("Heap bytes in use (mallinfo2)"), build.get("mallocFreeDelta")
    if heap is None or kept is None:
        missing("Build: bytes per node, heap", "≤ 96 B")
    else:
        per_node = (heap - HEADER_BYTES * kept) / nodes
        row("Build: bytes per node, heap", f"{per_node:.1f} B", target="≤ 96 B",
            met=per_node <= 96)

# --- Suite 4, Alerts --------------------------------------------------------------------------

# Every case is shown as alerts per second; the target holds for one producer showing alerts
# made beforehand, which is present → tap → next through the host and nothing else. The other
# cases are compared with it.

ONE_PRODUCER = "Alerts: one producer, alerts made beforehand"
ALERT_TARGET = "≥ 1,000,000/s on one core"


def alert_rate(time, count=None):
    text = f"{grouped(1e9 / time, 0)}/s ({nanoseconds(time)}"
    return text + ("" if count is None else f", {count:.3g} allocs") + ")"


def per_alert(case):
    """Wall clock and allocations per alert; a case "…, N alerts a sample" is divided by N."""
    time, count = wall(case), allocations(case)
    if time is None:
        return None, None
    sample = re.search(r"([\d,]+) alerts a sample", case)
    if sample:
        alerts = int(sample.group(1).replace(",", ""))
        time, count = time / alerts, None if count is None else count / alerts
    return time, count


one_producer, one_producer_allocations = per_alert(ONE_PRODUCER)
if one_producer is None:
    missing(ONE_PRODUCER, ALERT_TARGET)
else:
    row(ONE_PRODUCER, alert_rate(one_producer, one_producer_allocations), target=ALERT_TARGET,
        met=1e9 / one_producer >= 1_000_000)
others = sorted(name for name in medians if name.startswith("Alerts:") and name != ONE_PRODUCER)
for case in others:
    time, count = per_alert(case)
    name = re.sub(r", ([\d,]+) alerts a sample", " (per alert)", case)
    if one_producer is None:
        row(name, alert_rate(time, count))
    else:
        row(name, alert_rate(time, count), ONE_PRODUCER,
            alert_rate(one_producer, one_producer_allocations), time / one_producer)

# --- Suite 5, Propagation ---------------------------------------------------------------------

CHANGED = "Propagation: set at the root, then read at 1,000 leaves"
UNCHANGED = "Propagation: read at 1,000 leaves, nothing changed"
if wall(CHANGED) is None or wall(UNCHANGED) is None:
    missing(CHANGED)
else:
    row(CHANGED + " (per leaf)", nanoseconds(wall(CHANGED) / 1_000), UNCHANGED + " (per leaf)",
        nanoseconds(wall(UNCHANGED) / 1_000), wall(CHANGED) / wall(UNCHANGED))

# --- Retains and releases, counted apart --------------------------------------------------------

for case in sorted(name for name in medians if name.startswith("ARC: ")):
    counts = medians[case]
    rows.append((case, f"{counts.get('retainCount', 0):g} retains, "
                 f"{counts.get('releaseCount', 0):g} releases, "
                 f"{counts.get('objectAllocCount', 0):g} objects per op",
                 "—", "—", "—", "—", "—"))

# --- The table --------------------------------------------------------------------------------

header = ("case", "median", "anchor case", "anchor median", "ratio", "target", "met")
widths = [max(len(str(line[column])) for line in [header] + rows) for column in range(7)]


def line(cells):
    return "| " + " | ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)) + " |"


print(line(header))
print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
for cells in rows:
    print(line(cells))
machine = stored.get("machine", {})
print()
print(f"Baseline '{baseline}': {len(paths)} suite(s) on host '{machine.get('hostname', '?')}', "
      f"{machine.get('processors', '?')} processors. Medians are per operation; ratios compare "
      "cases of the same run only.")
PYTHON
