#!/usr/bin/env python3
"""Counts the instructions, allocations and bytes of every path in budgets.tsv and checks its budget.

Usage: budgets.py BINARY COUNTER [--write] [CASE...]

BINARY is the InstructionCounts binary; COUNTER is libAllocationCounter.so, built beside it
(Benchmarks/instructions.sh builds both and passes them).

Each case of InstructionCounts runs at two iteration counts, 1,000 operations apart: under
callgrind, whose total instructions it keeps, and on its own with COUNTER loaded by LD_PRELOAD,
which counts every call to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign
and the bytes they ask for. The difference of two runs' totals is 1,000 operations, without the
process's start or the fixtures made once. A case with a baseline (InstructionCounts --list
names it) has the baseline's difference taken away.

A path fails when its instructions exceed its budget by more than 2 % (and at least one
instruction, as budgets are whole instructions and the cheapest paths count a few tenths apart
from run to run), when they fall as far below it (lower the budget in the commit that made the
path cheaper), or when its allocations or its bytes differ from their budgets at all. Those two
budgets are per operation and exact to a thousandth, since the runs are 1,000 operations apart:
each predicts exactly how many allocations (and bytes) the second run makes more than the first,
and one allocation more in 1,000 operations fails. --write prints budgets.tsv with the counts
of this run instead of checking, for the commit that changes a budget on purpose. Naming cases
counts only those.

A path also fails when it calls one of the runtime's lookups in FORBIDDEN on every operation
(at least once every two, to leave room for a lookup now and then, as a buffer's growth makes):
the callgrind dump of each run names every function called and how often, and a call count
that grows with the operations means the path instantiates generic metadata or applies a key
path at run time as it goes, hundreds of instructions each. Lookups made once (a first use that
a cache keeps) are in both runs alike and cancel. Anchors, the other libraries' paths the
targets compare with, are not held to it, nor to exact allocations and bytes (only their
instructions are checked, so that a toolchain that moves them shows); nor, until they are rid
of it, are the paths that KNOWN_LOOKUPS names, each at most as often as it says.

This is the only reader of budgets.tsv.
"""
import re
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGETS = os.path.join(HERE, "budgets.tsv")
LOW, HIGH = 200, 1200
# The operations between the two runs: an allocation or byte budget per operation is a whole
# number of thousandths, so that it predicts the difference of the two runs exactly.
SPAN = HIGH - LOW
TOLERANCE = 0.02
# Runtime entry points no budgeted path of Milieu's may call on every operation.
FORBIDDEN = ("swift_getGenericMetadata", "swift_getAtKeyPath")
# Paths that still look up generic metadata, with the calls per operation they may make: a
# path that makes more fails, and one that makes fewer must have its line lowered or removed.
KNOWN_LOOKUPS = {}
LEAST_ALLOWANCE = 1.0
COLUMNS = "path\tinstructions\tallocations\tbytes"


# The quality targets counted in instructions: (target, path, anchor path or None, bound). With an
# anchor the bound is a ratio to it, else an instruction count. Printed, never failed on: the
# budgets hold what was won, and a target not yet met is a figure to show, not a broken build.
TARGETS = [
    ("@Environment read after a set elsewhere, against a stored property read",
     "@Environment read after a set on an unrelated node", "stored property read", 5),
    ("first read after an ancestor's set, depth 1,000 against depth 10",
     "@Environment first read after an ancestor's set, depth 1,000",
     "@Environment first read after an ancestor's set, depth 10", 2),
    ("child with one override and a read", "child with one override, read", None, 1_200),
    ("set on a childless node", "set on a childless node", None, 1_000),
    ("child, withCurrent and an @Environment read, against withDependencies and a @Dependency read",
     "child with one override, withCurrent, @Environment read",
     "anchor: withDependencies override, @Dependency read (swift-dependencies)", 0.35),
    ("server-shaped request",
     "server-shaped request: a child, three services × five @Environment wrappers, read twice",
     None, 20_000),
    ("server-shaped request, against swift-dependencies",
     "server-shaped request: a child, three services × five @Environment wrappers, read twice",
     "anchor: the same request with withDependencies and @Dependency (swift-dependencies)", 0.1),
    ("NotesServer request with a node per request", "NotesServer request, node per request", None,
     5_500),
    ("derived service read through @Environment, against a plain entry",
     "@Environment read, derived service, built", "@Environment read, plain entry holding a service",
     2),
    ("present → tap → outcome", "alert: present → tap → outcome, through AlertHost", None, 6_000),
    ("present → tap, fire and forget", "alert: present → tap, fire and forget, through AlertHost",
     None, 1_500),
    ("fire and forget through @Environment, against host.show",
     "alert: present → tap, fire and forget, through @Environment(\\.showAlert)",
     "alert: present → tap, fire and forget, through AlertHost", 1.1),
]


def print_targets(counted):
    print()
    print("| target | instructions | anchor | ratio | bound | |")
    print("|---|---:|---|---:|---:|---|")
    for target, path, anchor, bound in TARGETS:
        if path not in counted or (anchor and anchor not in counted):
            continue
        value = counted[path]
        if anchor:
            ratio = value / counted[anchor]
            met = ratio <= bound
            print(f"| {target} | {value:,.0f} | {counted[anchor]:,.0f} | {ratio:.2f}× | "
                  f"≤ {bound}× | {'met' if met else 'NOT MET'} |")
        else:
            met = value <= bound
            print(f"| {target} | {value:,.0f} | | | ≤ {bound:,} | {'met' if met else 'NOT MET'} |")


def per_operation(difference):
    """A difference over SPAN operations, written exactly: 3004 is "3.004", 3100 is "3.1"."""
    sign = "-" if difference < 0 else ""
    whole, thousandths = divmod(abs(difference), SPAN)
    return f"{sign}{whole:,}.{thousandths:03d}".rstrip("0").rstrip(".")


def list_cases(binary):
    """Each case's baseline (or None), and the names of the anchors."""
    output = subprocess.run([binary, "--list"], check=True, capture_output=True, text=True).stdout
    cases, anchors = {}, set()
    for line in output.splitlines():
        name, baseline, kind = (line.split("\t") + ["", ""])[:3]
        cases[name] = baseline or None
        if kind == "anchor":
            anchors.add(name)
    return cases, anchors


# Deterministic hashing: a dictionary's probes, and so its instructions and its growth, would
# otherwise vary from run to run.
ENVIRONMENT = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")


def run_case(command, case, iterations, environment=ENVIRONMENT):
    run = subprocess.run(command, capture_output=True, text=True, env=environment)
    if run.returncode != 0:
        sys.exit(f"error: {case!r} at {iterations} iterations exited with status "
                 f"{run.returncode}:\n{run.stdout}{run.stderr}")


def callgrind(binary, case, iterations):
    """The total instructions of one run, and how often it called each function of FORBIDDEN."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        run_case(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", binary, case,
                  str(iterations)], case, iterations)
        total, calls = None, dict.fromkeys(FORBIDDEN, 0)
        # The dump names a function once, "fn=(7) name" or "cfn=(7) name", whichever comes
        # first, and by its number after that; each "calls=N ..." line that follows a "cfn="
        # counts calls to that function.
        names, callee = {}, None
        for line in open(out.name, encoding="utf-8", errors="replace"):
            if line.startswith("fn=") or line.startswith("cfn="):
                number, _, name = line.partition("=")[2].strip().partition(" ")
                if name:
                    names[number] = name
                if line.startswith("cfn="):
                    callee = names.get(number, "").split("'")[0]
            elif line.startswith("calls=") and callee in calls:
                calls[callee] += int(line[6:].split()[0])
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
        if total is None:
            sys.exit(f"error: callgrind wrote no total for {case!r}")
        return total, calls


def allocations(binary, counter, case, iterations):
    """The allocations of one run and the bytes they asked for, counted by COUNTER."""
    with tempfile.NamedTemporaryFile(suffix=".allocations") as out:
        environment = dict(ENVIRONMENT, LD_PRELOAD=counter, MILIEU_ALLOCATION_REPORT=out.name)
        run_case([binary, case, str(iterations)], case, iterations, environment)
        report = open(out.name, encoding="utf-8").read().split()
        if len(report) != 2:
            sys.exit(f"error: {counter} wrote no allocation count for {case!r}: is it the "
                     "AllocationCounter library, on glibc?")
        return int(report[0]), int(report[1])


class Counts:
    """One path's counts: the totals of each run, and their difference over SPAN operations, less
    its baseline's if it has one."""

    def __init__(self, low, high, lookups=None):
        self.low, self.high = low, high  # (instructions, allocations, bytes) of each run
        self.instructions, self.allocations, self.bytes = (h - l for l, h in zip(low, high))
        # The calls to each function of FORBIDDEN that the SPAN operations made.
        self.lookups = lookups or {}
        self.baseline = None

    def less(self, name, baseline):
        counts = Counts(self.low, self.high, self.lookups)
        counts.instructions -= baseline.instructions
        counts.allocations -= baseline.allocations
        counts.bytes -= baseline.bytes
        counts.baseline = name
        return counts


def count(binary, counter, case, cache):
    if case not in cache:
        grinds = [callgrind(binary, case, n) for n in (LOW, HIGH)]
        runs = [(total,) + allocations(binary, counter, case, n)
                for (total, _), n in zip(grinds, (LOW, HIGH))]
        lookups = {name: grinds[1][1][name] - grinds[0][1][name] for name in FORBIDDEN}
        cache[case] = Counts(*runs, lookups)
    return cache[case]


def read_budgets():
    """Each path's budget: instructions per operation, and allocations and bytes per SPAN
    operations (whole numbers, as the file's thousandths of one operation are exact)."""
    if not os.path.exists(BUDGETS):
        sys.exit(f"error: {BUDGETS} is missing, so no path has a budget and the gate would check "
                 "nothing. Restore it (git checkout -- Benchmarks/budgets.tsv), or write it anew "
                 "with Benchmarks/instructions.sh --write.")
    budgets = {}
    for number, line in enumerate(open(BUDGETS, encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 4:
            sys.exit(f"error: budgets.tsv:{number}: expected a path, its instructions, its "
                     f"allocations and its bytes per operation, separated by tabs; got "
                     f"{line.strip()!r}. instructions.sh --write prints every line.")
        try:
            instructions = int(fields[1])
            exact = [Fraction(field) * SPAN for field in fields[2:]]
        except ValueError:
            sys.exit(f"error: budgets.tsv:{number}: {fields[1:]} are not numbers")
        if any(value.denominator != 1 for value in exact):
            sys.exit(f"error: budgets.tsv:{number}: allocations and bytes are counted exactly to "
                     f"a thousandth of an operation; {fields[2]!r} or {fields[3]!r} is finer")
        budgets[fields[0]] = (instructions, int(exact[0]), int(exact[1]))
    return budgets


def exact_problem(name, what, counts, index, difference, budget):
    """The message for allocations or bytes that differ from their budget, with both runs."""
    low, high = counts.low[index], counts.high[index]
    less = (f", less {high - low - difference:,} for its baseline {counts.baseline!r}"
            if counts.baseline else "")
    advice = ("Find what allocates more, or raise the budget in a commit whose message says why."
              if difference > budget else
              f"Lower the budget to {per_operation(difference)} in this commit.")
    return (f"{name}: {per_operation(difference)} {what} per operation, its budget is "
            f"{per_operation(budget)} (exact): {low:,} at {LOW:,} operations and {high:,} at "
            f"{HIGH:,}{less}, that is {difference:,} in the {SPAN:,} operations between them, "
            f"where the budget predicts {budget:,}. {advice}")


def main():
    arguments = sys.argv[1:]
    if len(arguments) < 2 or arguments[0] in ("-h", "--help"):
        sys.exit(__doc__)
    binary, counter, write = arguments[0], arguments[1], "--write" in arguments
    if not os.access(binary, os.X_OK):
        sys.exit(f"error: {binary!r} is not an executable file. Build the counts first "
                 "(swift build -c release --product InstructionCounts in Benchmarks/) and pass "
                 "the binary's path; Benchmarks/instructions.sh does both.")
    if not os.path.isfile(counter):
        sys.exit(f"error: {counter!r} is not a file. Build the allocation counter first "
                 "(swift build -c release --product AllocationCounter in Benchmarks/) and pass "
                 "the library's path; Benchmarks/instructions.sh does both.")
    chosen = [a for a in arguments[2:] if a != "--write"]
    cases, anchors = list_cases(binary)
    budgets = {} if write else read_budgets()
    problems = []
    for name in budgets:
        if name not in cases:
            problems.append(f"budgets.tsv names {name!r}, which InstructionCounts does not count: "
                            "remove the line or add the case")
    for name in cases:
        if name not in budgets and not write:
            problems.append(f"{name!r} has no budget: add it to budgets.tsv "
                            "(instructions.sh --write prints the line)")
    unknown = [name for name in chosen if name not in cases]
    if unknown:
        sys.exit(f"error: InstructionCounts counts no path named {unknown}; --list names them")
    names = [n for n in cases if not chosen or n in chosen]
    if not names:
        sys.exit("error: InstructionCounts names no case, so no budget would be checked")
    cache, rows = {}, []
    for name in names:
        counts = count(binary, counter, name, cache)
        if cases[name]:
            counts = counts.less(cases[name], count(binary, counter, cases[name], cache))
        rows.append((name, counts))
        for function, calls in counts.lookups.items():
            allowed = KNOWN_LOOKUPS.get(name, 0) * SPAN if function.endswith("Metadata") else 0
            if name in anchors or calls * 2 < SPAN and allowed == 0:
                continue
            if calls > allowed + SPAN // 2:
                problems.append(
                    f"{name}: calls {function} {per_operation(calls)} times per operation "
                    f"({calls:,} calls in {SPAN:,} operations): a lookup at run time on every "
                    "operation, hundreds of instructions each. Find the generic code that is not "
                    "specialized, or the key path applied through the runtime "
                    "(callgrind_annotate --tree=caller on a dump of the case names the caller), "
                    "and make it resolve once.")
            elif calls * 2 < allowed:
                problems.append(
                    f"{name}: calls {function} {per_operation(calls)} times per operation, where "
                    f"KNOWN_LOOKUPS in budgets.py allows {allowed // SPAN}: lower its line, or "
                    "remove it, in this commit.")
        print(f"  {name:<72} {counts.instructions / SPAN:>10,.1f} instructions "
              f"{per_operation(counts.allocations):>7} allocations "
              f"{per_operation(counts.bytes):>10} bytes", file=sys.stderr, flush=True)
    if write:
        print("# Instructions, allocations and bytes allocated per operation of each path users")
        print("# feel, checked by Benchmarks/instructions.sh in CI: instructions within 2 % (at")
        print("# least one instruction), allocations and bytes exactly, to the thousandth")
        print("# (anchors, another library's paths: their instructions only).")
        print("# Lower a budget in the commit that makes its path cheaper; raise one only in a")
        print("# commit whose message says why the cost is worth it.")
        print(f"# {COLUMNS}")
        for name, counts in rows:
            print(f"{name}\t{round(counts.instructions / SPAN)}\t"
                  f"{per_operation(counts.allocations).replace(',', '')}\t"
                  f"{per_operation(counts.bytes).replace(',', '')}")
        return
    print()
    print("| path | instructions | budget | allocations | budget | bytes | budget | |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, counts in rows:
        if name not in budgets:
            continue
        budget, allocation_budget, byte_budget = budgets[name]
        instructions = counts.instructions / SPAN
        verdicts = []
        allowance = max(budget * TOLERANCE, LEAST_ALLOWANCE)
        if instructions > budget + allowance:
            verdicts.append("OVER")
            problems.append(f"{name}: {instructions:,.1f} instructions per operation, over its "
                            f"budget of {budget:,} (+2 %, and at least one instruction, allowed). "
                            "Make it cheaper, or raise the budget in a commit whose message says "
                            "why it is worth it.")
        elif instructions < budget - allowance:
            verdicts.append("UNDER")
            problems.append(f"{name}: {instructions:,.1f} instructions per operation, more than "
                            f"2 % (and one instruction) under its budget of {budget:,}. Lower the "
                            f"budget to {round(instructions)} in this commit, so the gain stays "
                            "won.")
        # Another library's caches may grow once in a while (a dictionary doubling inside the
        # 1,000 operations in one run and not in the next), so an anchor's allocations and bytes
        # are shown beside its budget but not held to it.
        held = name not in anchors
        if held and counts.allocations != allocation_budget:
            verdicts.append("ALLOCATIONS")
            problems.append(exact_problem(name, "allocations", counts, 1, counts.allocations,
                                          allocation_budget))
        if held and counts.bytes != byte_budget:
            verdicts.append("BYTES")
            problems.append(exact_problem(name, "bytes", counts, 2, counts.bytes, byte_budget))
        print(f"| {name} | {instructions:,.1f} | {budget:,} | "
              f"{per_operation(counts.allocations)} | {per_operation(allocation_budget)} | "
              f"{per_operation(counts.bytes)} | {per_operation(byte_budget)} | "
              f"{', '.join(verdicts) or 'ok'} |")
    print_targets({name: counts.instructions / SPAN for name, counts in rows})
    if problems:
        print("\nBudgets not kept:", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"\nEvery path is within its budget ({len(rows)} checked).", file=sys.stderr)


if __name__ == "__main__":
    main()
