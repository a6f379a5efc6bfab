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
    try await withKnownIssue {
      try await withRunningServices(
        [\.warmCache], .set(\.poolURL, "sqlite::memory:"), .stopHangs(\.pool),
        stopTimeout: .seconds(5), clock: clock
      ) {
        // Only the stop is faked: the pool really started, and what reads it found it open.
        let node = EnvironmentNode.current
        #expect(node[\.pool].log == ["start"])
        #expect(node[\.warmCache].wasWarmedWithOpenPool == true)
      }
    } matching: { issue in
      issue.comments.contains { "\($0)".hasPrefix("pool (warmCache → pool) did not stop within") }
    }
    await advancer.value
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
