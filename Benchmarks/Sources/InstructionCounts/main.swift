#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Instruction, allocation and byte counts of the paths users feel, for the budgets in
// `Benchmarks/budgets.tsv`: `instructions.sh` runs each case at two iteration counts, under
// callgrind for its instructions and with `libAllocationCounter.so` preloaded for its
// allocations, and divides the difference of the totals by the difference of the counts, which
// cancels the process's start and every fixture made once. A case with a baseline has that
// case's count per iteration taken away: the write before a read, or fixtures that grow with the
// count.
//
// Usage:
//   InstructionCounts --list             every case, one per line: name, a tab, its baseline, a
//                                        tab, and "anchor" for another library's path
//   InstructionCounts CASE ITERATIONS    runs one case

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
  for counted in CountedCase.all {
    print("\(counted.name)\t\(counted.baseline ?? "")\t\(counted.isAnchor ? "anchor" : "")")
  }
  exit(0)
}
guard arguments.count == 3, let iterations = Int(arguments[2]), iterations > 0 else {
  print("usage: InstructionCounts --list | InstructionCounts CASE ITERATIONS")
  exit(64)
}
guard let counted = CountedCase.all.first(where: { $0.name == arguments[1] }) else {
  print("unknown case: \(arguments[1]); InstructionCounts --list names them")
  exit(64)
}
counted.run(iterations: iterations)
