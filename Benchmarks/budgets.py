#!/usr/bin/env python3
"""Counts the instructions and allocations of every path in budgets.tsv and checks its budget.

Usage: budgets.py BINARY [--write] [CASE...]

Runs each case of the InstructionCounts binary under callgrind at two iteration counts; the
difference of the totals over the difference of the counts is one operation, without the
process's start or the fixtures made once. A case with a baseline (InstructionCounts --list
names it) has the baseline's count per operation taken away. Allocations are the calls to
malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign that callgrind records.

A path fails when its instructions exceed its budget by more than 2 % (and at least one
instruction, as budgets are whole instructions and the cheapest paths count a few tenths apart
from run to run), when they fall as far below it (lower the budget in the commit that made the
path cheaper), or when its allocations differ from its budget at all. --write prints budgets.tsv with the counts of this
run instead of checking, for the commit that changes a budget on purpose. Naming cases counts
only those.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGETS = os.path.join(HERE, "budgets.tsv")
LOW, HIGH = 200, 1200
TOLERANCE = 0.02
LEAST_ALLOWANCE = 1.0
ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}


# The quality targets counted in instructions: (target, path, anchor path or None, bound). With an
# anchor the bound is a ratio to it, else an instruction count. Printed, never failed on: the
# budgets hold what was won, and a target not yet met is a figure to show, not a broken build.
TARGETS = [
    ("@Environment read after a set elsewhere, against a stored property read",
     "@Environment read after a set on an unrelated node", "stored property read", 5),
    ("first read after an ancestor's set, depth 1,000 against depth 10",
     "@Environment first read after an ancestor's set, depth 1,000",
     "@Environment first read after an ancestor's set, depth 10", 2),
    ("child with one override and a read", "child with one override, read", None, 1_500),
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


def list_cases(binary):
    output = subprocess.run([binary, "--list"], check=True, capture_output=True, text=True).stdout
    cases = {}
    for line in output.splitlines():
        name, _, baseline = line.partition("\t")
        cases[name] = baseline or None
    return cases


def callgrind(binary, case, iterations):
    """Total instructions and allocation calls of one run."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        # Deterministic hashing: a dictionary's probes would otherwise vary from run to run.
        env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--compress-strings=no", "--compress-pos=no",
             f"--callgrind-out-file={out.name}", binary, case, str(iterations)],
            capture_output=True, text=True, env=env)
        if run.returncode != 0:
            sys.exit(f"error: {case!r} at {iterations} iterations exited with status "
                     f"{run.returncode}:\n{run.stdout}{run.stderr}")
        instructions, allocations, callee = None, 0, None
        for line in open(out.name, encoding="utf-8", errors="replace"):
            if line.startswith("summary:") or line.startswith("totals:"):
                instructions = int(line.split()[1])
            elif line.startswith("cfn="):
                callee = line[4:].strip()
            elif line.startswith("calls=") and callee is not None:
                if callee in ALLOCATORS:
                    allocations += int(line[6:].split()[0])
                callee = None
        if instructions is None:
            sys.exit(f"error: callgrind wrote no total for {case!r}")
        return instructions, allocations


def per_operation(binary, case, cache):
    if case not in cache:
        low = callgrind(binary, case, LOW)
        high = callgrind(binary, case, HIGH)
        cache[case] = tuple((h - l) / (HIGH - LOW) for l, h in zip(low, high))
    return cache[case]


def read_budgets():
    budgets = {}
    for number, line in enumerate(open(BUDGETS, encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 3:
            sys.exit(f"error: budgets.tsv:{number}: expected a path, its instructions and its "
                     f"allocations, separated by tabs; got {line.strip()!r}")
        budgets[fields[0]] = (int(fields[1]), float(fields[2]))
    return budgets


def main():
    arguments = sys.argv[1:]
    if not arguments or arguments[0] in ("-h", "--help"):
        sys.exit(__doc__)
    binary, write = arguments[0], "--write" in arguments
    if not os.access(binary, os.X_OK):
        sys.exit(f"error: {binary!r} is not an executable file. Build the counts first "
                 "(swift build -c release --product InstructionCounts in Benchmarks/) and pass "
                 "the binary's path; Benchmarks/instructions.sh does both.")
    chosen = [a for a in arguments[1:] if a != "--write"]
    cases = list_cases(binary)
    budgets = read_budgets() if os.path.exists(BUDGETS) or not write else {}
    problems = []
    for name in budgets:
        if name not in cases:
            problems.append(f"budgets.tsv names {name!r}, which InstructionCounts does not count: "
                            "remove the line or add the case")
    for name in cases:
        if name not in budgets and not write:
            problems.append(f"{name!r} has no budget: add it to budgets.tsv "
                            "(budgets.py BINARY --write prints the line)")
    names = [n for n in cases if not chosen or n in chosen]
    cache, rows = {}, []
    for name in names:
        instructions, allocations = per_operation(binary, name, cache)
        baseline = cases[name]
        if baseline:
            base_instructions, base_allocations = per_operation(binary, baseline, cache)
            instructions -= base_instructions
            allocations -= base_allocations
        allocations = round(allocations, 2)
        rows.append((name, instructions, allocations))
        print(f"  {name:<72} {instructions:>10,.1f} instructions {allocations:>6g} allocations",
              file=sys.stderr, flush=True)
    if write:
        print("# Instructions and allocations per operation of each path users feel, checked by")
        print("# Benchmarks/instructions.sh in CI: instructions within 2 %")
        print("# (at least one instruction), allocations exactly.")
        print("# Lower a budget in the commit that makes its path cheaper; raise one only in a")
        print("# commit whose message says why the cost is worth it.")
        print("# path\tinstructions\tallocations")
        for name, instructions, allocations in rows:
            print(f"{name}\t{round(instructions)}\t{allocations:g}")
        return
    print()
    print("| path | instructions | budget | allocations | budget | |")
    print("|---|---:|---:|---:|---:|---|")
    for name, instructions, allocations in rows:
        if name not in budgets:
            continue
        budget, allocation_budget = budgets[name]
        verdict = "ok"
        allowance = max(budget * TOLERANCE, LEAST_ALLOWANCE)
        if instructions > budget + allowance:
            verdict = "OVER"
            problems.append(f"{name}: {instructions:,.1f} instructions per operation, over its "
                            f"budget of {budget:,} (+2 %, and at least one instruction, allowed). "
                            "Make it cheaper, or raise the budget in a commit whose message says "
                            "why it is worth it.")
        elif instructions < budget - allowance:
            verdict = "UNDER"
            problems.append(f"{name}: {instructions:,.1f} instructions per operation, more than "
                            f"2 % (and one instruction) under its budget of {budget:,}. Lower the "
                            f"budget to {round(instructions)} in this commit, so the gain stays "
                            "won.")
        if allocations != allocation_budget:
            verdict = "ALLOCATIONS"
            problems.append(f"{name}: {allocations:g} allocations per operation, its budget is "
                            f"{allocation_budget:g} (exact). "
                            + ("Find the new allocation, or raise the budget in a commit whose "
                               "message says why." if allocations > allocation_budget else
                               f"Lower the budget to {allocations:g} in this commit."))
        print(f"| {name} | {instructions:,.1f} | {budget:,} | {allocations:g} | "
              f"{allocation_budget:g} | {verdict} |")
    print_targets({name: instructions for name, instructions, _ in rows})
    if problems:
        print("\nBudgets not kept:", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        sys.exit(1)
    print("\nEvery path is within its budget.", file=sys.stderr)


if __name__ == "__main__":
    main()
