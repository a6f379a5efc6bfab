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

/// A service, built from one value.
final class Service: Sendable {
  let retries: Int

  init(retries: Int) {
    self.retries = retries
  }
}

/// A small value derived from one environment value.
struct Settings: Sendable {
  let retries: Int
}

extension EnvironmentValues {
  /// The service as a plain entry, set on a node.
  static let plainService = Entry(Service(retries: 3))
  var plainService: Service {
    get { self[Self.plainService] }
    set { self[Self.plainService] = newValue }
  }

  /// The same kind of service, derived from `retries`.
  static let service = Derived { values in Service(retries: values.retries) }
  var service: Service { self[Self.service] }

  /// A derived value whose build only copies the value it reads.
  static let settings = Derived { values in Settings(retries: values.retries) }
  var settings: Settings { self[Self.settings] }
}

struct ServiceReaders {
  @Environment(\.plainService) var plainService
  @Environment(\.service) var service
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
/// A root of its own for the service reads, so that the cases writing to `top` visit no more
/// descendants than before.
let serviceTop = EnvironmentNode("services")
serviceTop.update {
  $0.retries = 5
  $0.plainService = Service(retries: 5)
}
/// A node below `serviceTop`, which sees the plain service and has built the derived one.
let serviceNode = serviceTop.child()
let readers = serviceNode.withCurrent { ServiceReaders() }
blackHole(readers.plainService)
blackHole(readers.service)
let serviceValues = serviceNode.values
let unrelated = EnvironmentNode("unrelated")
let stored = StoredRetries()

switch arguments[1] {
case "server request, by hand":
  ServerRequest.byHand(iterations: iterations)
case "server request, node per request":
  ServerRequest.nodePerRequest(iterations: iterations)
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
case "values, plain entry read":
  for _ in 0..<iterations { blackHole(serviceValues.plainService) }
case "values, derived read":
  for _ in 0..<iterations { blackHole(serviceValues.service) }
case "@Environment, plain entry read":
  for _ in 0..<iterations { blackHole(readers.plainService) }
case "@Environment, derived read":
  for _ in 0..<iterations { blackHole(readers.service) }
case "child with one override, first derived read":
  for iteration in 0..<iterations {
    let child = top.child { $0.retries = iteration }
    blackHole(child[\.settings])
  }
case "TaskLocal withValue, read":
  for iteration in 0..<iterations {
    blackHole(Scope.$retries.withValue(iteration) { Scope.retries })
  }
default:
  print("unknown case: \(arguments[1])")
  exit(64)
}
