@_spi(MilieuInternal) import Milieu
import MilieuTestSupport
import MilieuTesting
import Testing

/// A connection pool that records what it did.
final class ConnectionPool: LifecycleService {
  let url: String
  private let events = Lock<[String]>([])

  init(url: String) { self.url = url }

  var log: [String] { events.withLock { $0 } }
  var isOpen: Bool { log.last == "start" }

  func start() async throws { events.withLock { $0.append("start") } }
  func stop() async throws { events.withLock { $0.append("stop") } }
}

/// A cache warmed from the pool once it is open.
final class WarmCache: LifecycleService {
  let pool: ConnectionPool
  private let warmedWithOpenPool = Lock<Bool?>(nil)

  init(pool: ConnectionPool) { self.pool = pool }

  var wasWarmedWithOpenPool: Bool? { warmedWithOpenPool.withLock { $0 } }

  func start() async throws { warmedWithOpenPool.withLock { $0 = pool.isOpen } }
  func stop() async throws {}
}

struct PoolDown: Error {}
struct BodyFailed: Error {}

extension EnvironmentValues {
  static let poolURL = Entry("postgres://production")
  var poolURL: String {
    get { self[Self.poolURL] }
    set { self[Self.poolURL] = newValue }
  }

  static let pool = Derived { values in ConnectionPool(url: values.poolURL) }
  var pool: ConnectionPool { self[Self.pool] }

  static let warmCache = Derived { values in WarmCache(pool: values.pool) }
  var warmCache: WarmCache { self[Self.warmCache] }

  /// A pool that reads nothing: its start, beside another's, says the start claimed them both.
  static let signalPool = Entry(ConnectionPool(url: "signal"))
  var signalPool: ConnectionPool {
    get { self[Self.signalPool] }
    set { self[Self.signalPool] = newValue }
  }
}

/// An app node of its own, whose real pool is the one its tests' nodes read.
func poolApp() -> EnvironmentNode {
  EnvironmentNode("pool app").child("app") {
    $0.poolURL = "sqlite::memory:"
    $0.signalPool = ConnectionPool(url: "signal")
  }
}

/// The services of a test's node run while the test does, and stop when it ends, however it
/// ends.
@Suite struct WithRunningServicesTests {
  @Test func theServicesRunInOrderWhileTheBodyRunsAndStopAfter() async throws {
    let pool = try await withRunningServices([\.warmCache], .set(\.poolURL, "sqlite::memory:")) {
      let node = EnvironmentNode.current
      #expect(node[\.pool].isOpen)
      #expect(node[\.warmCache].wasWarmedWithOpenPool == true)
      return node[\.pool]
    }
    #expect(pool.url == "sqlite::memory:")
    #expect(pool.log == ["start", "stop"])
  }

  @Test func theServicesStopWhenTheBodyThrows() async throws {
    let pool = Lock<ConnectionPool?>(nil, audited: false)
    await #expect(throws: BodyFailed.self) {
      try await withRunningServices([\.pool], .set(\.poolURL, "sqlite::memory:")) {
        pool.withLock { $0 = EnvironmentNode.current[\.pool] }
        throw BodyFailed()
      }
    }
    #expect(pool.withLock { $0?.log } == ["start", "stop"])
  }

  @Test func theServicesStopWhenAnExpectationFails() async throws {
    let pool = Lock<ConnectionPool?>(nil, audited: false)
    await withKnownIssue {
      try await withRunningServices([\.pool], .set(\.poolURL, "sqlite::memory:")) {
        pool.withLock { $0 = EnvironmentNode.current[\.pool] }
        #expect(Bool(false), "the test fails")
      }
    }
    #expect(pool.withLock { $0?.log } == ["start", "stop"])
  }

  @Test func aDatabaseThatIsDownIsOneLine() async throws {
    let error = await #expect(throws: ServiceError.self) {
      try await withRunningServices(
        [\.warmCache], .set(\.poolURL, "sqlite::memory:"), .startFails(\.pool, throwing: PoolDown())
      ) {
        Issue.record("the body runs only once every service runs")
      }
    }
    #expect(error?.failures.map(\.path) == [["warmCache", "pool"]])
    #expect(
      error?.description.hasPrefix("pool (warmCache → pool) failed to start: PoolDown()") == true)
  }

  @Test func aStopThatHangsIsOneLineAndIsReportedWhenItsTimeoutPasses() async throws {
    let clock = TestClock()
    let advancer = Task {
      await eventually("the stop waits for its timeout") { clock.sleeperCount == 1 }
      clock.advance(by: .seconds(5))
    }
    let pool = Lock<ConnectionPool?>(nil, audited: false)
    try await withKnownIssue {
      try await withRunningServices(
        [\.warmCache], .set(\.poolURL, "sqlite::memory:"), .stopHangs(\.pool),
        stopTimeout: .seconds(5), clock: clock
      ) {
        // Only the stop is faked: the pool really started, and what reads it found it open.
        let node = EnvironmentNode.current
        pool.withLock { $0 = node[\.pool] }
        #expect(node[\.pool].log == ["start"])
        #expect(node[\.warmCache].wasWarmedWithOpenPool == true)
      }
    } matching: { issue in
      issue.comments.contains { "\($0)".hasPrefix("pool (warmCache → pool) did not stop within") }
    }
    await advancer.value
    // The pool's own stop follows the one that hung.
    #expect(pool.withLock { $0?.log } == ["start", "stop"])
  }

  /// A stop faked to hang under an app whose real pool runs stands in front of that pool, which
  /// is shared as always: started once, and still running for the app once the test ends.
  @Test func aHangingStopInFrontOfTheRunningRealServiceLeavesItRunning() async throws {
    let app = poolApp()
    let appServices = try await app.startServices([\.pool])
    let clock = TestClock()
    let advancer = Task {
      await eventually("the fake's stop waits for its timeout") { clock.sleeperCount == 1 }
      clock.advance(by: .seconds(5))
    }
    try await app.withCurrent {
      try await withKnownIssue {
        try await withRunningServices(
          [\.warmCache], .stopHangs(\.pool), stopTimeout: .seconds(5), clock: clock
        ) {
          #expect(EnvironmentNode.current[\.warmCache].wasWarmedWithOpenPool == true)
        }
      } matching: { issue in
        issue.comments.contains { "\($0)".hasPrefix("pool (warmCache → pool) did not stop") }
      }
    }
    await advancer.value
    #expect(app[\.pool].log == ["start"])
    try await appServices.stop()
    #expect(app[\.pool].log == ["start", "stop"])
  }

  @Test func aServiceStartedByTheCodeUnderTestGetsTheFakesToo() async throws {
    await withTestEnvironment(.set(\.poolURL, "sqlite::memory:"), .startHangs(\.pool)) {
      let node = EnvironmentNode.current
      let start = Task { try await node.startServices([\.warmCache]) }
      start.cancel()
      let error = await #expect(throws: ServiceError.self) { try await start.value }
      #expect(error?.failures.map(\.service) == ["pool", "warmCache"])
      #expect(node[\.pool].log.isEmpty)
    }
  }

  /// Under an app whose real pool runs, a fake of the pool is a service of its own: it starts,
  /// and fails, instead of borrowing the real one.
  @Test func aFakeUnderTheRunningRealServiceStartsItself() async throws {
    let app = poolApp()
    let appServices = try await app.startServices([\.pool])
    let error = await app.withCurrent {
      await #expect(throws: ServiceError.self) {
        try await withRunningServices([\.warmCache], .startFails(\.pool, throwing: PoolDown())) {
          Issue.record("the body runs against the real pool")
        }
      }
    }
    #expect(error?.failures.map(\.path) == [["warmCache", "pool"]])
    #expect(app[\.pool].log == ["start"])
    try await appServices.stop()
    #expect(app[\.pool].log == ["start", "stop"])
  }

  /// A real start is never lent a fake that runs: the app starts its own pool while a test's
  /// fake of it hangs.
  @Test func theRealServiceStartsBesideItsHangingFake() async throws {
    let app = poolApp()
    let signal = app[\.signalPool]
    let hanging = app.withCurrent {
      withTestEnvironment(.startHangs(\.pool)) {
        let node = EnvironmentNode.current
        return Task { try await node.startServices([\.pool, \.signalPool]) }
      }
    }
    await eventually("the fake's run claimed the pool") { signal.log == ["start"] }
    let appStart = Task { try await app.startServices([\.pool]) }
    await eventually("the app's own pool runs") { app[\.pool].log == ["start"] }
    hanging.cancel()
    await #expect(throws: ServiceError.self) { try await hanging.value }
    try await appStart.value.stop()
    #expect(app[\.pool].log == ["start", "stop"])
  }

  /// A fake that the services a test starts do not lead to applies to nothing: the test fails,
  /// naming it, before its body runs.
  @Test func aFakeOfAServiceTheTestDoesNotStartIsReported() async throws {
    let error = await #expect(throws: ServiceError.self) {
      try await withRunningServices(
        [\.pool], .set(\.poolURL, "sqlite::memory:"),
        .startFails(\.warmCache, throwing: PoolDown())
      ) {
        Issue.record("the body runs with a fake that applies to nothing")
      }
    }
    let failure = try #require(error?.failures.first)
    #expect(error?.failures.count == 1)
    #expect(failure.service == "warmCache")
    guard case .unusedFake(let fake, let started) = failure.reason else {
      Issue.record("expected an unused fake, got \(failure.reason)")
      return
    }
    #expect(fake == "startFails")
    #expect(started == "pool")
    #expect(
      failure.description
        == "warmCache is faked with .startFails(_:), but none of the services started here (pool) "
        + "leads to it, so the fake would apply to nothing. Name a service that reads warmCache, "
        + "or remove the fake.")
  }

  @Test func aStopTimeoutThatIsNotPositiveFailsBeforeTheBody() async throws {
    let error = await #expect(throws: ServiceError.self) {
      try await withRunningServices(
        [\.pool], .set(\.poolURL, "sqlite::memory:"), stopTimeout: .zero
      ) {
        Issue.record("the body runs with stops given no time")
      }
    }
    #expect(error?.failures.map { "\($0.reason)" } == ["invalid argument: stopTimeout"])
  }

  @Test func checkingForTestsFindsTheServiceATestWouldShareWithTheProgram() async throws {
    let error = await #expect(throws: ServiceError.self) {
      try await withTestEnvironment {
        try await EnvironmentNode.current.checkServices([\.warmCache], forTests: true)
      }
    }
    #expect(error?.failures.map(\.service) == ["pool", "warmCache"])
    #expect(EnvironmentValues()[keyPath: \.pool].log.isEmpty)
  }
}
