@_spi(MilieuInternal) import Milieu

/// Counts builds, by name; each test sets its own on its root, so tests running in parallel
/// count only their own.
final class BuildLog: Sendable {
  private let builds = Lock<[String]>([])

  func record(_ name: String) { builds.withLock { $0.append(name) } }

  var entries: [String] { builds.withLock { $0 } }

  func count(of name: String) -> Int { entries.filter { $0 == name }.count }
}

/// A client that services are built on.
struct Client: Sendable, Equatable {
  var name: String
}

/// A service built from two values.
final class Repository: Sendable {
  let client: Client
  let label: String

  init(client: Client, label: String) {
    self.client = client
    self.label = label
  }
}

/// A service built from another derived value.
final class Feed: Sendable {
  let repository: Repository

  init(repository: Repository) {
    self.repository = repository
  }
}

/// A value built anew each time.
final class Ticket: Sendable {}

// Derived values shared by the tests of this target; each reads the test's `buildLog`.
extension EnvironmentValues {
  static let buildLog = Entry<BuildLog?>(nil)
  var buildLog: BuildLog? {
    get { self[Self.buildLog] }
    set { self[Self.buildLog] = newValue }
  }

  static let client = Entry(Client(name: "live"))
  var client: Client {
    get { self[Self.client] }
    set { self[Self.client] = newValue }
  }

  static let repository = Derived { values in
    values.buildLog?.record("repository")
    return Repository(client: values.client, label: values.greeting)
  }
  var repository: Repository {
    get { self[Self.repository] }
    set { self[Self.repository] = newValue }
  }

  static let feed = Derived { values in
    values.buildLog?.record("feed")
    return Feed(repository: values.repository)
  }
  var feed: Feed { self[Self.feed] }

  static let ticket = Derived(.newOnEveryRead) { values in
    values.buildLog?.record("ticket")
    return Ticket()
  }
  var ticket: Ticket { self[Self.ticket] }
}
