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

// A request as `Examples/NotesServer` handles one, without the HTTP server: a middleware makes
// the request's logger and a child of the app node holding the request's id, user and logger;
// the handler reads them, the configuration and the derived service, and the service logs with
// the current node's logger. The by-hand case does the same work with the values passed in.

/// Stands in for swift-log's `Logger`: a label and metadata the middleware adds to.
struct RequestLogger: Sendable {
  var label = "notes"
  var metadata: [String: String] = [:]
}

struct ServerConfiguration: Sendable {
  var maximumBodySize = 16_384
  var tokenLifetime = Duration.seconds(60)
}

final class NotesStore: Sendable {}

/// The service every request shares: derived from the app's values in Milieu's case.
final class NotesService: Sendable {
  let store: NotesStore
  let tokenLifetime: Duration

  init(store: NotesStore, tokenLifetime: Duration) {
    self.store = store
    self.tokenLifetime = tokenLifetime
  }

  @inline(never)
  func create(title: String, for user: String, logger: RequestLogger, maximumBodySize: Int) -> Int {
    title.utf8.count + user.utf8.count + logger.metadata.count + maximumBodySize
  }
}

extension EnvironmentValues {
  static let requestLogger = Entry(RequestLogger())
  var requestLogger: RequestLogger {
    get { self[Self.requestLogger] }
    set { self[Self.requestLogger] = newValue }
  }
  static let serverConfiguration = Entry(ServerConfiguration())
  var serverConfiguration: ServerConfiguration {
    get { self[Self.serverConfiguration] }
    set { self[Self.serverConfiguration] = newValue }
  }
  static let notesStore = Entry(NotesStore())
  var notesStore: NotesStore {
    get { self[Self.notesStore] }
    set { self[Self.notesStore] = newValue }
  }
  static let requestID = Entry(String?.none)
  var requestID: String? {
    get { self[Self.requestID] }
    set { self[Self.requestID] = newValue }
  }
  static let user = Entry(String?.none)
  var user: String? {
    get { self[Self.user] }
    set { self[Self.user] = newValue }
  }
  static let notesService = Derived { values in
    NotesService(
      store: values.notesStore, tokenLifetime: values.serverConfiguration.tokenLifetime)
  }
  var notesService: NotesService { self[Self.notesService] }
}

struct RequestMiddleware {
  @Environment(\.requestLogger) var logger
}

let serverApp = EnvironmentNode("app")
serverApp.update {
  $0.serverConfiguration = ServerConfiguration()
  $0.requestLogger = RequestLogger()
  $0.notesStore = NotesStore()
}
let middleware = serverApp.withCurrent { RequestMiddleware() }
let requestIDs = (0..<100).map { "request-\($0)" }
let byHandService = NotesService(store: NotesStore(), tokenLifetime: .seconds(60))
let byHandLogger = RequestLogger()

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
  for iteration in 0..<iterations {
    var logger = byHandLogger
    logger.metadata["request.id"] = requestIDs[iteration % 100]
    logger.metadata["user"] = "writer"
    blackHole(
      byHandService.create(
        title: "Load", for: "writer", logger: logger, maximumBodySize: 16_384))
    blackHole(logger.metadata.count)
  }
case "server request, node per request":
  for iteration in 0..<iterations {
    var logger = middleware.logger
    logger.metadata["request.id"] = requestIDs[iteration % 100]
    logger.metadata["user"] = "writer"
    let node = serverApp.child("request") { values in
      values.requestID = requestIDs[iteration % 100]
      values.user = "writer"
      values.requestLogger = logger
    }
    node.withCurrent {
      let values = EnvironmentNode.current.values
      let maximumBodySize = values.serverConfiguration.maximumBodySize
      blackHole(
        values.notesService.create(
          title: "Load", for: values.user ?? "", logger: values.requestLogger,
          maximumBodySize: maximumBodySize))
      blackHole(EnvironmentNode.current[\.requestLogger].metadata.count)
    }
  }
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
