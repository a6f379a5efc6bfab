import Milieu

extension EnvironmentValues {
  static let retries = Entry(3)
  var retries: Int {
    get { self[Self.retries] }
    set { self[Self.retries] = newValue }
  }

  /// A value no node sets: its reads find the default.
  static let timeout = Entry(30)
  var timeout: Int {
    get { self[Self.timeout] }
    set { self[Self.timeout] = newValue }
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

/// A reader `depth` levels below `top`.
func reader(below top: EnvironmentNode, depth: Int) -> RetriesService {
  var node = top
  for _ in 0..<depth { node = node.child() }
  return node.withCurrent { RetriesService() }
}
