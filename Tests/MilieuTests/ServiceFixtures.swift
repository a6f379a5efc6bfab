@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import Synchronization
import Testing

/// What one test's services did, in order: `start database`, `stop database`.
final class LifecycleLog: Sendable {
  private let entries = Lock<[String]>([])

  func append(_ entry: String) { entries.withLock { $0.append(entry) } }

  var all: [String] { entries.withLock { $0 } }

  /// Where `entry` is in the log; records an issue if it is not there.
  func position(
    of entry: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Int {
    guard let position = all.firstIndex(of: entry) else {
      Issue.record("\(entry) is not in \(all)", sourceLocation: sourceLocation)
      return -1
    }
    return position
  }

  func count(of entry: String) -> Int { all.filter { $0 == entry }.count }
}

/// How a test wants its services to behave.
struct ServiceScript: Sendable {
  var log = LifecycleLog()
  /// Services whose start throws ``Oops``.
  var failingStarts: Set<String> = []
  /// Services whose start waits until it is cancelled.
  var hangingStarts: Set<String> = []
  /// Services whose start waits until the other named one has begun its own.
  var meetings: [String: Meeting] = [:]
  /// Services whose start waits until it is cancelled, then throws ``ConnectionClosed``: an
  /// error of its own, not a cancellation.
  var closingStarts: Set<String> = []
  /// Services whose stop waits at a gate until it opens, then logs `stopped NAME`.
  var stopGates: [String: Gate] = [:]
  /// Services whose start opens a gate.
  var opening: [String: Gate] = [:]
}

/// A door that tasks wait at until it is opened, once.
final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []), audited: false)

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }
}

/// What a start that was cancelled while it connected throws.
struct ConnectionClosed: Error {}

/// Two starts that must run at the same time: each waits, a bounded number of turns, for the
/// other to arrive.
final class Meeting: Sendable {
  private let arrived = Atomic<Int>(0)

  func arrive() async throws {
    arrived.add(1, ordering: .relaxed)
    for _ in 0..<100_000 {
      if arrived.load(ordering: .relaxed) >= 2 { return }
      await Task.yield()
    }
    throw NeverMet()
  }

  struct NeverMet: Error {}
}

/// Waits until the task is cancelled, then throws `CancellationError`.
func waitUntilCancelled() async throws {
  let (stream, continuation) = AsyncStream<Never>.makeStream()
  for await _ in stream {}
  withExtendedLifetime(continuation) {}
  try Task.checkCancellation()
}

/// A service that records its start and stop, and behaves as its script says.
final class ScriptedService: LifecycleService {
  let name: String
  let script: ServiceScript

  init(_ name: String, _ script: ServiceScript) {
    self.name = name
    self.script = script
  }

  func start() async throws {
    script.log.append("start \(name)")
    script.opening[name]?.open()
    if let meeting = script.meetings[name] { try await meeting.arrive() }
    if script.hangingStarts.contains(name) { try await waitUntilCancelled() }
    if script.closingStarts.contains(name) {
      try? await waitUntilCancelled()
      throw ConnectionClosed()
    }
    if script.failingStarts.contains(name) { throw Oops() }
    script.log.append("running \(name)")
  }

  func stop() async throws {
    script.log.append("stop \(name)")
    if let gate = script.stopGates[name] {
      await gate.wait()
      script.log.append("stopped \(name)")
    }
  }
}

/// A value without a lifecycle, built from one with.
struct NoteStore: Sendable {
  let database: ScriptedService
}

/// A service built on the database and the search index, and one built on nothing else.
extension EnvironmentValues {
  static let serviceScript = Entry(ServiceScript())
  var serviceScript: ServiceScript {
    get { self[Self.serviceScript] }
    set { self[Self.serviceScript] = newValue }
  }

  static let databaseURL = Entry("postgres://app")
  var databaseURL: String {
    get { self[Self.databaseURL] }
    set { self[Self.databaseURL] = newValue }
  }

  static let database = Derived { values in
    ScriptedService("database \(values.databaseURL)", values.serviceScript)
  }
  var database: ScriptedService { self[Self.database] }

  static let noteStore = Derived { values in NoteStore(database: values.database) }
  var noteStore: NoteStore { self[Self.noteStore] }

  static let searchIndex = Derived { values in
    _ = values.database
    return ScriptedService("searchIndex", values.serviceScript)
  }
  var searchIndex: ScriptedService { self[Self.searchIndex] }

  static let notesService = Derived { values in
    _ = (values.noteStore, values.searchIndex)
    return ScriptedService("notesService", values.serviceScript)
  }
  var notesService: ScriptedService { self[Self.notesService] }

  static let metrics = Derived { values in ScriptedService("metrics", values.serviceScript) }
  var metrics: ScriptedService { self[Self.metrics] }
}

/// A node with a script of its own, its issues logged.
func serviceNode(
  _ name: String = "app", script: ServiceScript = ServiceScript(), issues: IssueLog = IssueLog()
) -> EnvironmentNode {
  EnvironmentNode(name).child(name) {
    $0.serviceScript = script
    $0.issueReporter = issues.reporter
  }
}

/// A plain entry whose value has a lifecycle, and a derived value built from it.
extension EnvironmentValues {
  static let mailer = Entry(ScriptedService("mailer", ServiceScript()))
  var mailer: ScriptedService {
    get { self[Self.mailer] }
    set { self[Self.mailer] = newValue }
  }

  static let outbox = Derived { values in
    _ = values.mailer
    return ScriptedService("outbox", values.serviceScript)
  }
  var outbox: ScriptedService { self[Self.outbox] }
}

/// Services whose graph is wrong.
extension EnvironmentValues {
  static let cyclicA = Derived(fallback: ScriptedService("fallback A", ServiceScript())) {
    values in
    _ = values.cyclicB
    return ScriptedService("cyclicA", values.serviceScript)
  }
  var cyclicA: ScriptedService { self[Self.cyclicA] }

  static let cyclicB = Derived(fallback: ScriptedService("fallback B", ServiceScript())) {
    values in
    _ = values.cyclicA
    return ScriptedService("cyclicB", values.serviceScript)
  }
  var cyclicB: ScriptedService { self[Self.cyclicB] }

  /// One instance, set on a node, read again through a value that reads it.
  static let sharedService = Entry(ScriptedService("shared default", ServiceScript()))
  var sharedService: ScriptedService {
    get { self[Self.sharedService] }
    set { self[Self.sharedService] = newValue }
  }

  static let middle = Derived { values in
    _ = values.sharedService
    return ScriptedService("middle", values.serviceScript)
  }
  var middle: ScriptedService { self[Self.middle] }

  static let sharedAgain = Derived { values in
    _ = values.middle
    return values.sharedService
  }
  var sharedAgain: ScriptedService { self[Self.sharedAgain] }

  static let brokenService = Derived(fallback: ScriptedService("fallback", ServiceScript())) {
    values in
    _ = values.databaseURL
    throw Oops()
  }
  var brokenService: ScriptedService { self[Self.brokenService] }

  /// A configuration whose build throws, and a service built from it.
  static let brokenConfig = Derived(fallback: "unset") { values -> String in
    _ = values.databaseURL
    throw Oops()
  }
  var brokenConfig: String { self[Self.brokenConfig] }

  static let configuredService = Derived { values in
    ScriptedService("configured \(values.brokenConfig)", values.serviceScript)
  }
  var configuredService: ScriptedService { self[Self.configuredService] }

  /// A chain of 300 derived values, each read by the next, deeper than builds nest, and a
  /// service built on its top.
  static let deepChain: [Derived<Int>] = {
    var chain: [Derived<Int>] = [Derived(fallback: -1) { $0.databaseURL.count }]
    for index in 1..<300 {
      let previous = chain[index - 1]
      chain.append(Derived(fallback: -1) { $0[previous] + 1 })
    }
    return chain
  }()

  static let deepService = Derived { values in
    ScriptedService("deep \(values[Self.deepChain[299]])", values.serviceScript)
  }
  var deepService: ScriptedService { self[Self.deepService] }

  static let freshService = Derived(.newOnEveryRead) { values in
    ScriptedService("fresh", values.serviceScript)
  }
  var freshService: ScriptedService { self[Self.freshService] }
}

extension EnvironmentValues {
  /// A service read at its default by one test alone: a default is one for the process.
  static let checkedDefault = Entry(ScriptedService("checked default", ServiceScript()))
  var checkedDefault: ScriptedService {
    get { self[Self.checkedDefault] }
    set { self[Self.checkedDefault] = newValue }
  }
}
