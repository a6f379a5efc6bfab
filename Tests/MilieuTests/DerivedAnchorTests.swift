import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// Where a derived value is kept, and for how long: one value per set of inputs whichever input
/// is written, nothing of a replaced input kept past its write, and no cycle where no node has
/// one.
@Suite struct DerivedAnchorTests {
  /// A value built from two inputs, counting its builds and handing out objects whose release
  /// the tests watch.
  final class Fixture: Sendable {
    let shallow = EnvironmentValues.Entry(0)
    let deep = EnvironmentValues.Entry(0)
    let builds = DerivedExactlyOnceTests.Counter()
    let service: EnvironmentValues.Derived<Box>

    init() {
      let (shallow, deep, builds) = (shallow, deep, builds)
      service = EnvironmentValues.Derived { values in
        builds.increment()
        return Box(values[shallow] * 100 + values[deep])
      }
    }

    var buildCount: Int { builds.value }
  }

  final class Box: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
  }

  /// Readers that took their values before a write to the input that is not the anchor and
  /// readers after it each keep their value: two builds, however they alternate. Before, they
  /// shared the anchor's one place and evicted each other: 12 builds for 5 rounds.
  @Test func twoSetsOfInputsReadAlternatelyAreEachBuiltOnce() {
    let fixture = DerivedAnchorTests.Fixture()
    let root = EnvironmentNode("root")
    root.update { $0[fixture.shallow] = 1 }
    let app = root.child("app") { $0[fixture.deep] = 2 }
    let before = app.values
    #expect(before[fixture.service].value == 102)
    root.update { $0[fixture.shallow] = 3 }
    let after = app.values
    for _ in 0..<5 {
      #expect(before[fixture.service].value == 102)
      #expect(after[fixture.service].value == 302)
    }
    #expect(fixture.buildCount == 2)
  }

  /// Eight threads serve 64 requests each under one app, each request a child reading a
  /// service built from a value of the root and one of the app; halfway, one thread writes the
  /// root's, which is not where the service is kept. The service is built twice in all, before
  /// and after the write, in every one of 100 rounds. Before, the two sets of inputs evicted
  /// each other in 81 rounds of 100.
  @Test func aWriteMidBurstToTheInputThatIsNotTheAnchorRebuildsOnce() {
    var failures: [String] = []
    for round in 0..<100 {
      let fixture = Fixture()
      let root = EnvironmentNode("root")
      root.update { $0[fixture.shallow] = 1 }
      let app = root.child("app") { $0[fixture.deep] = 2 }
      let seen = Lock<Set<Int>>([])
      onThreads(8) { thread in
        for request in 0..<64 {
          if thread == 0 && request == 32 { root.update { $0[fixture.shallow] = 3 } }
          let value = app.child("request").values[fixture.service].value
          _ = seen.withLock { $0.insert(value) }
        }
      }
      if fixture.buildCount != 2 || seen.withLock({ $0 }) != [102, 302] {
        failures.append("round \(round): \(fixture.buildCount) builds")
      }
    }
    #expect(failures.isEmpty, "\(failures.count) rounds failed, the first: \(failures.prefix(3))")
  }

  /// A write to an input that is not the anchor frees the value built from the input it
  /// replaces, and the input, when the write returns; values taken before it keep both until
  /// they go.
  @Test func aReplacedInputAndWhatWasBuiltFromItAreFreedWhenTheWriteReturns() {
    let fixture = DerivedAnchorTests.Fixture()
    let root = EnvironmentNode("root")
    let held = EnvironmentValues.Entry(Box(0))
    root.update {
      $0[fixture.shallow] = 1
      $0[held] = Box(1)
    }
    let app = root.child("app") { $0[fixture.deep] = 2 }
    weak let built = app.values[fixture.service]
    weak let replaced = root.values[held]
    #expect(built != nil && replaced != nil)

    root.update {
      $0[fixture.shallow] = 3
      $0[held] = Box(2)
    }
    #expect(built == nil, "the value built from the replaced input outlived the write")
    #expect(replaced == nil, "the replaced input outlived the write")
    #expect(app.values[fixture.service].value == 302)

    // Values taken before a write keep what they see until they go.
    let kept = app.values
    weak let keptService = kept[fixture.service]
    root.update { $0[fixture.shallow] = 4 }
    #expect(keptService != nil)
    withExtendedLifetime(kept) {}
  }

  /// A write to an input that is the anchor, or to a value nothing read, keeps what still holds:
  /// a write elsewhere on the anchor's node does not rebuild.
  @Test func aWriteNoValueReadKeepsTheValues() {
    let fixture = DerivedAnchorTests.Fixture()
    let root = EnvironmentNode("root")
    root.update { $0[fixture.shallow] = 1 }
    let app = root.child("app") { $0[fixture.deep] = 2 }
    #expect(app.values[fixture.service].value == 102)
    app.set(\.retries, to: 7)
    root.set(\.greeting, to: "Hi")
    #expect(app.values[fixture.service].value == 102)
    #expect(fixture.buildCount == 1)
  }

  /// A reads B only where `mode` is fast, B reads A only where it is careful: no node has a
  /// cycle. Two threads building A in a fast node and B in a careful one at once, each waiting
  /// for the other's build to start, report nothing and get their values. Before, a claim made
  /// before any key was learned matched every reader, and the waits were taken for a cycle.
  @Test(arguments: 0..<20)
  func valuesThatReadEachOtherOnlyInDifferentNodesAreNoCycle(round: Int) {
    let started = RoundBarrier(threads: 2)
    let reported = Lock<[String]>([])
    let declarations = Lock<(a: Derived<String>?, b: Derived<String>?)>((nil, nil))
    let a = EnvironmentValues.Derived(fallback: "fallback A") { values in
      started.arrive(round: 0)
      guard values.mode == .fast, let b = declarations.withLock({ $0.b }) else { return "A" }
      return "A(\(values[b]))"
    }
    let b = EnvironmentValues.Derived(fallback: "fallback B") { values in
      started.arrive(round: 0)
      guard values.mode == .careful, let a = declarations.withLock({ $0.a }) else { return "B" }
      return "B(\(values[a]))"
    }
    declarations.withLock { $0 = (a, b) }
    let reporter = IssueReporter { issue in reported.withLock { $0.append(issue.message) } }
    let fast = EnvironmentNode("fast").child {
      $0.mode = .fast
      $0.issueReporter = reporter
    }
    let careful = EnvironmentNode("careful").child {
      $0.mode = .careful
      $0.issueReporter = reporter
    }
    let results = Lock<[String]>([])
    onThreads(2) { thread in
      let value = thread == 0 ? fast.values[a] : careful.values[b]
      results.withLock { $0.append(value) }
    }
    // Each declaration's closure holds the pair that holds it: let go of them.
    declarations.withLock { $0 = (nil, nil) }
    #expect(reported.withLock { $0 }.isEmpty)
    #expect(Set(results.withLock { $0 }) == ["A(B)", "B(A)"])
  }
}

private typealias Derived = EnvironmentValues.Derived

/// Writes that come from where a frame might be half-written: from inside a derived value's
/// build, from a change stream's consumer, from the deinit of a value a write replaces, and from
/// many threads at once. Each gets the documented behaviour, and every value reads whole.
@Suite struct WritesFromAwkwardPlacesTests {
  /// A build may write to the node it reads: the write is seen by reads after it, the build
  /// finishes on the values it started from, and nothing traps.
  @Test func aBuildThatWritesToItsNodeFinishesAndTheWriteIsSeen() {
    let node = EnvironmentNode("node")
    let service = EnvironmentValues.Derived { values in
      node.set(\.greeting, to: "written by the build")
      return "built with retries \(values.retries)"
    }
    #expect(node.values[service] == "built with retries 3")
    #expect(node[\.greeting] == "written by the build")
    #expect(node.values[service] == "built with retries 3")
  }

  /// A consumer of a change stream may write to the node it observes; the stream reports every
  /// change in order.
  @Test func aStreamsConsumerThatWritesSeesEveryChange() async {
    let node = EnvironmentNode("node")
    var seen: [Int] = []
    for await retries in node.changes(of: \.retries) {
      seen.append(retries)
      if retries < 6 { node.set(\.retries, to: retries + 1) } else { break }
    }
    #expect(seen == [3, 4, 5, 6])
  }

  /// A value whose deinit writes to the node whose write replaced it runs after the write is
  /// whole, with no lock held: its own write lands, and nothing deadlocks.
  @Test func aReplacedValueWhoseDeinitWritesToTheNodeWritesAfterTheWrite() {
    final class Noisy: Sendable {
      let node: EnvironmentNode
      init(_ node: EnvironmentNode) { self.node = node }
      deinit { node.set(\.greeting, to: "replaced") }
    }
    let noisy = EnvironmentValues.Entry<Noisy?>(nil)
    let root = EnvironmentNode("root")
    let node = root.child("node")
    node.update { $0[noisy] = Noisy(root) }
    node.update { $0[noisy] = nil }
    #expect(root[\.greeting] == "replaced")
    #expect(node.values[noisy] == nil)
  }

  /// Eight threads write and read one node's several values at once: every read sees values
  /// that one write wrote together.
  @Test func manyThreadsWritingOneNodeNeverTearAFrame() {
    let node = EnvironmentNode("node")
    let torn = Atomic<Int>(0)
    onThreads(8) { thread in
      for round in 0..<500 {
        let value = thread * 1_000 + round
        node.update {
          $0.retries = value
          $0.greeting = "\(value)"
          $0.limit = value
        }
        let values = node.values
        if "\(values.retries)" != values.greeting || values.limit != values.retries {
          torn.add(1, ordering: .relaxed)
        }
      }
    }
    #expect(torn.load(ordering: .relaxed) == 0)
  }

  /// A write evicts from a node's cache, under its node locks, the values built from what it
  /// replaced: it hands each back to be released after its locks, never releases one under them.
  @Test func aValueAWriteEvictsIsReleasedAfterTheWrite() throws {
    let fixture = DerivedAnchorTests.Fixture()
    let node = EnvironmentNode("root").child("node") { $0[fixture.deep] = 1 }
    weak let first = node.values[fixture.service]
    let cache = try #require(node.withLockedState { state, _ in state.own?.cache })
    #expect(cache.cell(for: fixture.service.derivation) != nil)
    let deep = ObjectIdentifier(fixture.deep)
    let input = Stamped(key: deep, stamp: node.values.stamp(of: deep))
    var released: [DerivedCell] = []
    var replaced = ReplacedWrites()
    replaced.insert(input)
    let before = cache.generation
    #expect(cache.evict(&replaced, into: &released) == before + 1)
    #expect(cache.cell(for: fixture.service.derivation) == nil)
    #expect(first != nil, "what the write hands back keeps the evicted value")
    released.removeAll()
    #expect(first == nil, "released with what the write handed back")
  }
}
