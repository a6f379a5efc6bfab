import Milieu

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Instruction counts, for the targets whose cases are too short, or too mixed with a write, for
// a clock: `instructions.sh` runs each case under callgrind twice, with two iteration counts,
// and divides the difference of the totals by the difference of the counts, which cancels the
// process's start and the fixtures' setup. A read after a write is the difference between the
// write followed by the read and the write alone.
//
// Usage: InstructionCounts CASE ITERATIONS

/// Hands a value to code the optimizer cannot see into, so that the value is computed.
@_optimize(none)
func blackHole<Value>(_ value: Value) {}

extension EnvironmentValues {
  static let retries = Entry(3)
  var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }
}

/// The floor for a read: a stored property of a final class.
final class StoredRetries {
  var retries = 5
}

struct RetriesService {
  @Environment(\.retries) var retries
}

enum Scope {
  @TaskLocal static var retries = 3
}

/// A reader `depth` levels below `top`, which sets the value read.
func reader(below top: EnvironmentNode, depth: Int) -> RetriesService {
  var node = top
  for _ in 0..<depth { node = node.child() }
  return node.withCurrent { RetriesService() }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let iterations = Int(arguments[2]) else {
  print("usage: InstructionCounts CASE ITERATIONS")
  exit(64)
}

let top = EnvironmentNode("top")
top.set(\.retries, to: 5)
let unrelated = EnvironmentNode("unrelated")
let stored = StoredRetries()

switch arguments[1] {
case "stored read":
  for _ in 0..<iterations { blackHole(stored.retries) }
case "unrelated set":
  for iteration in 0..<iterations { unrelated.set(\.retries, to: iteration) }
case "unrelated set, read at depth 1,000":
  let service = reader(below: top, depth: 1_000)
  for iteration in 0..<iterations {
    unrelated.set(\.retries, to: iteration)
    blackHole(service.retries)
  }
case "ancestor set, depth 10", "ancestor set, depth 1,000":
  let service = reader(below: top, depth: arguments[1].hasSuffix("10") ? 10 : 1_000)
  for iteration in 0..<iterations { top.set(\.retries, to: iteration) }
  blackHole(service)
case "ancestor set, read at depth 10", "ancestor set, read at depth 1,000":
  let service = reader(below: top, depth: arguments[1].hasSuffix("10") ? 10 : 1_000)
  for iteration in 0..<iterations {
    top.set(\.retries, to: iteration)
    blackHole(service.retries)
  }
case "child with one override, read":
  for iteration in 0..<iterations {
    let child = top.child { $0.retries = iteration }
    blackHole(child[\.retries])
  }
case "child with one override, withCurrent, @Environment read":
  for iteration in 0..<iterations {
    let child = top.child { $0.retries = iteration }
    blackHole(child.withCurrent { RetriesService().retries })
  }
case "TaskLocal withValue, read":
  for iteration in 0..<iterations {
    blackHole(Scope.$retries.withValue(iteration) { Scope.retries })
  }
default:
  print("unknown case: \(arguments[1])")
  exit(64)
}
