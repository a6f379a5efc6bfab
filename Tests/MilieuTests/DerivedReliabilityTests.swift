import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// Derived values under concurrency, at depth, with many inputs: what an attacker found
/// (RELIABILITY.md, round three).
@Suite struct DerivedReliabilityTests {
  // MARK: Many inputs

  /// A build that reads thousands of values records each once, and a write to one of them
  /// rebuilds the value once. (Its cost per input is held by a budget in Benchmarks.)
  @Test func aBuildOfThousandsOfInputsReadsEachOnceAndFollowsAWriteToOne() {
    let inputs = (0..<4_000).map { EnvironmentValues.Entry($0) }
    let builds = Atomic<Int>(0)
    let sum = EnvironmentValues.Derived { values in
      builds.add(1, ordering: .relaxed)
      return inputs.reduce(0) { $0 + values[$1] }
    }
    let app = EnvironmentNode("app")
    let request = app.child("request")
    #expect(request.values[sum] == 3_999 * 4_000 / 2)
    #expect(app.values[sum] == 3_999 * 4_000 / 2)
    #expect(builds.load(ordering: .relaxed) == 1)
    app.update { $0[inputs[2_000]] = 0 }
    #expect(request.values[sum] == 3_999 * 4_000 / 2 - 2_000)
    #expect(app.values[sum] == 3_999 * 4_000 / 2 - 2_000)
    #expect(builds.load(ordering: .relaxed) == 2)
  }

  // MARK: Failures

  /// A build that throws for one tenant's inputs does not hand its fallback to a reader with
  /// other inputs that waited for it: that reader builds its own value.
  @Test func aReaderNeverGetsTheFallbackOfABuildFromOtherInputs() {
    let issues = IssueLog()
    let brokenDone = Atomic<Bool>(false)
    let fineDone = Atomic<Bool>(false)
    let probe = DerivationProbe()
    let report = EnvironmentValues.Derived(fallback: "fallback") { values in
      let tenant = values.greeting
      guard tenant == "broken" else { return "built for \(tenant)" }
      probe.markBuilding()
      // Throws only once the other tenant's reader waits for this build, or has its value.
      waitUntil("the fine tenant waits or is served") {
        probe.readersWaiting() > 0 || fineDone.load(ordering: .acquiring)
      }
      throw Oops()
    }
    probe.derivation = report.derivation
    let app = EnvironmentNode("app")
    let broken = app.child("broken") { $0.greeting = "broken" }
    let fine = app.child("fine") {
      $0.greeting = "fine"
      $0.issueReporter = issues.reporter
    }
    broken.set(\.issueReporter, to: IssueReporter { _ in })
    let fineValue = Lock<String?>(nil)
    onThreads(2) { index in
      if index == 0 {
        _ = broken.values[report]
        brokenDone.store(true, ordering: .releasing)
      } else {
        waitUntil("the broken tenant's build runs") { probe.isBuilding() }
        let value = fine.values[report]
        fineValue.withLock { $0 = value }
        fineDone.store(true, ordering: .releasing)
      }
    }
    #expect(fineValue.withLock { $0 } == "built for fine")
    #expect(issues.all.isEmpty)
  }

  // MARK: Depth

  /// Beyond 32,767 levels, a value is still kept with the deepest value its build read, so it
  /// is freed with that value's node.
  @Test(arguments: [false, true])
  func aValueBuiltAtDepth100000IsKeptWithTheDeepestInput(swapped: Bool) {
    let top = EnvironmentNode("top")
    var node = top
    for _ in 0..<40_000 { node = node.child() }
    let middle = node
    if swapped {
      middle.set(\.greeting, to: "middle")
    } else {
      middle.set(\.client, to: Client(name: "middle"))
    }
    weak var built: Repository?
    do {
      var deep = middle
      for _ in 0..<60_000 { deep = deep.child() }
      if swapped {
        deep.set(\.client, to: Client(name: "deep"))
      } else {
        deep.set(\.greeting, to: "deep")
      }
      let value = deep[\.repository]
      built = value
      #expect(deep[\.repository] === value)
      #expect(deep.child()[\.repository] === value)
    }
    // The deep subtree is gone: a value kept with a shallower input would live on.
    #expect(built == nil)
    withExtendedLifetime(top) {}
  }
}

/// One build and one live value per set of inputs, however first reads, writes and new nodes
/// interleave on any number of threads. Each round declares its values afresh: the first reads
/// of a value in the process are where the promise broke.
@Suite struct DerivedExactlyOnceTests {
  /// One round's declarations: a client entry, and a repository derived from it that counts
  /// its builds.
  final class Round: Sendable {
    let client = EnvironmentValues.Entry("default client")
    let counter = Counter()
    let repository: EnvironmentValues.Derived<Repository>
    /// The instances read at the round's shared node.
    let seen = Lock<[ObjectIdentifier]>([])
    let built = BuildLog()

    var builds: Int { counter.value }

    init() {
      let (client, counter, built) = (client, counter, built)
      repository = EnvironmentValues.Derived { values in
        counter.increment()
        built.record(values[client])
        return Repository(client: Client(name: values[client]), label: values.greeting)
      }
    }
  }

  final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func increment() { count.add(1, ordering: .acquiringAndReleasing) }
  }

  /// Twelve threads a round: eight read one shared node at once, four read each an app of their
  /// own and then a child of it.
  @Test func firstReadsOnTwelveThreadsBuildOncePerSetOfInputs() {
    let rounds = 1_000
    let threads = 12
    let failures = Lock<[String]>([])
    let barrier = RoundBarrier(threads: threads)
    let fixtures = (0..<rounds).map { _ in Round() }
    let shared = fixtures.map { round in
      EnvironmentNode("shared").child("node") { $0[round.client] = "shared" }
    }
    let apps = fixtures.map { round in
      (0..<4).map { app in EnvironmentNode("app \(app)").child { $0[round.client] = "app \(app)" } }
    }
    onThreads(threads) { thread in
      for index in 0..<rounds {
        barrier.arrive(round: index)
        let round = fixtures[index]
        if thread < 8 {
          let value = shared[index].values[round.repository]
          round.seen.withLock { $0.append(ObjectIdentifier(value)) }
        } else {
          let app = apps[index][thread - 8]
          let atApp = app.values[round.repository]
          let atChild = app.child("request").values[round.repository]
          if atApp !== atChild {
            failures.withLock { $0.append("round \(index), thread \(thread): two instances") }
          }
        }
      }
    }
    for index in 0..<rounds {
      let builds = fixtures[index].builds
      if builds != 5 {
        failures.withLock {
          $0.append("round \(index): \(builds) builds, not 5: \(fixtures[index].built.entries)")
        }
      }
      if Set(fixtures[index].seen.withLock { $0 }).count != 1 {
        failures.withLock {
          $0.append("round \(index): the shared node's readers got two instances")
        }
      }
    }
    let found = failures.withLock { $0 }
    #expect(found.isEmpty, "\(found.count) failures, the first: \(found.prefix(3))")
  }

  /// Eight threads serve 64 requests each under one app; halfway, thread 0 writes the input:
  /// the value is built once before the write and once after it, and every request holds one
  /// of those two.
  @Test func aWriteToAnInputRebuildsOnceWhateverTheRequestsDo() {
    let failures = Lock<[String]>([])
    for index in 0..<100 {
      let round = Round()
      let app = EnvironmentNode("app")
      app.update { $0[round.client] = "before" }
      let instances = Lock<Set<ObjectIdentifier>>([])
      let kept = Lock<[Repository]>([])
      onThreads(8) { thread in
        for request in 0..<64 {
          if thread == 0 && request == 32 { app.update { $0[round.client] = "after" } }
          let value = app.child("request").values[round.repository]
          _ = instances.withLock { $0.insert(ObjectIdentifier(value)) }
          kept.withLock { $0.append(value) }
        }
      }
      let builds = round.builds
      let distinct = instances.withLock { $0.count }
      if builds != 2 || distinct != 2 {
        failures.withLock {
          $0.append(
            "round \(index): \(builds) builds, \(distinct) instances \(round.built.entries)")
        }
      }
    }
    let found = failures.withLock { $0 }
    #expect(found.isEmpty, "\(found.count) failures, the first: \(found.prefix(3))")
  }

  // MARK: Release

  /// A value that a rebuild replaces is released once no lock is held: its `deinit` may read
  /// the environment, even the derived value that replaced it.
  @Test func aReplacedValueMayReadTheEnvironmentAsItGoes() {
    let farewell = Farewell()
    let app = EnvironmentNode("app")
    app.update { $0[EnvironmentValues.farewell] = farewell }
    let request = app.child("request") { $0.greeting = "hi" }
    farewell.node.withLock { $0 = request }
    defer { farewell.node.withLock { $0 = nil } }

    #expect(request.values[EnvironmentValues.departing].label == "live hi")
    app.update { $0.client = Client(name: "next") }
    #expect(request.values[EnvironmentValues.departing].label == "next hi")
    #expect(farewell.said.withLock { $0 } == ["live hi, replaced by next hi"])
  }

  /// Near misses of a cycle: a thread waits for a build that has just finished, while the
  /// thread that finished it goes on to wait for the first thread's build. Nobody waits for
  /// anybody forever, so nothing is reported and nobody gets a fallback.
  @Test func aWaitForABuildThatJustFinishedIsNoCycle() {
    let failures = Lock<[String]>([])
    for index in 0..<40 {
      let issues = IssueLog()
      let probe = DerivationProbe()
      let first = EnvironmentValues.Derived(fallback: "fallback first") { values in
        // Finishes only once the other thread waits for it.
        waitUntil("the second build waits for the first") { probe.readersWaiting() > 0 }
        return "first \(values.greeting)"
      }
      probe.derivation = first.derivation
      let secondStarted = Atomic<Bool>(false)
      let second = EnvironmentValues.Derived(fallback: "fallback second") { values in
        secondStarted.store(true, ordering: .releasing)
        return "second reads \(values[first])"
      }
      let node = EnvironmentNode("node")
      node.set(\.issueReporter, to: issues.reporter)
      let results = Lock<[String]>([])
      onThreads(2) { thread in
        if thread == 0 {
          let built = node.values[first]
          // At once, while the other thread may still be registered as waiting for `first`.
          waitUntil("the second build started") { secondStarted.load(ordering: .acquiring) }
          let second = node.values[second]
          results.withLock { $0.append(built + " / " + second) }
        } else {
          waitUntil("the first build runs") { DerivationWaits.isBuilding(first.derivation) }
          let second = node.values[second]
          results.withLock { $0.append(second) }
        }
      }
      if !issues.all.isEmpty
        || results.withLock({ $0 }).contains(where: { $0.contains("fallback") })
      {
        failures.withLock {
          $0.append("round \(index): \(issues.messages.first ?? "") \(results.withLock { $0 })")
        }
      }
    }
    let found = failures.withLock { $0 }
    #expect(found.isEmpty, "\(found.count) failures, the first: \(found.prefix(2))")
  }
}

/// Lets threads start each round together.
final class RoundBarrier: Sendable {
  private let threads: Int
  private let arrived = Atomic<Int>(0)

  init(threads: Int) {
    self.threads = threads
  }

  /// Waits until every thread has arrived at `round`.
  func arrive(round: Int) {
    arrived.add(1, ordering: .acquiringAndReleasing)
    waitUntil("every thread arrived at round \(round)") {
      arrived.load(ordering: .acquiring) >= (round + 1) * threads
    }
  }
}

/// Watches one derivation's builds from a test.
final class DerivationProbe: @unchecked Sendable {
  // @unchecked: `derivation` is set once, before any thread reads it. Weak: the derivation's
  // build holds the probe.
  weak var derivation: AnyDerived?
  private let building = Atomic<Bool>(false)

  func readersWaiting() -> Int {
    derivation.map { DerivationWaits.readersWaiting(for: $0) } ?? 0
  }

  func isBuilding() -> Bool { building.load(ordering: .acquiring) }
  func markBuilding() { building.store(true, ordering: .releasing) }
}

/// Reads the derived value again when the value it replaced is freed.
final class Farewell: Sendable {
  let node = Lock<EnvironmentNode?>(nil, audited: false)
  let said = Lock<[String]>([], audited: false)

  func sayFarewell(to label: String) {
    guard let node = node.withLock({ $0 }) else { return }
    let successor = node.values[EnvironmentValues.departing].label
    said.withLock { $0.append("\(label), replaced by \(successor)") }
  }
}

/// A derived value that says farewell as it is freed.
final class Departing: Sendable {
  let label: String
  let farewell: Farewell?

  init(label: String, farewell: Farewell?) {
    self.label = label
    self.farewell = farewell
  }

  deinit { farewell?.sayFarewell(to: label) }
}

extension EnvironmentValues {
  fileprivate static let farewell = Entry<Farewell?>(nil)
  fileprivate static let departing = Derived { values in
    Departing(label: "\(values.client.name) \(values.greeting)", farewell: values[farewell])
  }
}
