import Milieu
import MilieuTestSupport
import Synchronization
import Testing

@Suite struct ChangeStreamTests {
  @Test func aStreamStartsWithTheCurrentValueAndReportsEachVisibleChange() async {
    let root = EnvironmentNode("root")
    let node = root.child("node")
    var iterator = node.changes(of: \.retries).makeAsyncIterator()
    #expect(await iterator.next() == 3)

    root.set(\.retries, to: 4)
    #expect(await iterator.next() == 4)

    root.set(\.greeting, to: "unrelated")  // another key: not a change of retries
    node.set(\.retries, to: 5)
    #expect(await iterator.next() == 5)

    root.set(\.retries, to: 6)  // shadowed by the node's own override: not visible here
    node.set(\.retries, to: 7)
    #expect(await iterator.next() == 7)
  }

  /// A write looks again only at the streams of the nodes it can change: the written node and
  /// its descendants. A write in another tree leaves a stream alone, so it neither costs the
  /// stream a read nor holds the stream's node alive while it reads.
  @Test func aWriteElsewhereDoesNotRefreshAStream() {
    let observed = EnvironmentNode("observed")
    let stream = observed.changes(of: \.countedRetries)
    #expect(CountedReads.count.load(ordering: .relaxed) == 1)  // the stream's first value

    let elsewhere = EnvironmentNode("elsewhere")
    elsewhere.set(\.retries, to: 9)
    elsewhere.child("below").set(\.retries, to: 10)
    #expect(CountedReads.count.load(ordering: .relaxed) == 1, "an unrelated write read the stream")

    observed.child("below").set(\.retries, to: 11)
    #expect(CountedReads.count.load(ordering: .relaxed) == 1, "a write below read the stream")
    observed.set(\.retries, to: 12)
    #expect(CountedReads.count.load(ordering: .relaxed) == 2)
    withExtendedLifetime(stream) {}
  }

  @Test func aStreamFinishesWhenItsNodeIsGone() async {
    var node: EnvironmentNode? = EnvironmentNode("short-lived")
    guard let stream = node?.changes(of: \.greeting) else { return }
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == "Hello")
    node = nil
    #expect(await iterator.next() == nil)
  }

  @Test func aStreamDoesNotKeepItsNodeAlive() {
    weak var weakNode: EnvironmentNode?
    let stream: AsyncStream<Int>
    do {
      let node = EnvironmentNode("observed")
      weakNode = node
      stream = node.changes(of: \.retries)
    }
    #expect(weakNode == nil)
    withExtendedLifetime(stream) {}
  }
}

/// Counts the reads of ``Milieu/EnvironmentValues/countedRetries``; only
/// `aWriteElsewhereDoesNotRefreshAStream` reads it.
enum CountedReads {
  static let count = Atomic<Int>(0)
}

extension EnvironmentValues {
  /// `retries`, counting every read.
  var countedRetries: Int {
    CountedReads.count.add(1, ordering: .relaxed)
    return retries
  }
}

@Suite struct ChangeStreamSourceTests {
  /// Two nodes on the observed path, written from the same line as their first update, each
  /// make a change the stream reports: a change is a new write, wherever it was made.
  @Test func writesFromOneLineToDifferentNodesAreEachReported() async {
    let top = EnvironmentNode()
    let middle = top.child()
    let observed = middle.child()
    var iterator = observed.changes(of: \.retries).makeAsyncIterator()
    #expect(await iterator.next() == 3)
    for (node, value) in [(top, 4), (middle, 5)] { node.set(\.retries, to: value) }
    #expect(await iterator.next() == 4)
    #expect(await iterator.next() == 5)
  }

  /// A write of the value the key already had is still a write: reported, as any other.
  @Test func writingTheSameValueAgainIsReported() async {
    let node = EnvironmentNode("node")
    var iterator = node.changes(of: \.retries).makeAsyncIterator()
    #expect(await iterator.next() == 3)
    for _ in 0..<2 { node.set(\.retries, to: 4) }
    #expect(await iterator.next() == 4)
    #expect(await iterator.next() == 4)
  }
}

/// A stream of a derived value whose build writes to the node the stream observes: the stream
/// reads the value, which builds it, which writes, which asks the stream to read again.
@Suite struct ChangeStreamReentryTests {
  @Test func aBuildThatWritesToTheObservedNodeNeitherTrapsNorLosesAChange() async {
    let metrics = EnvironmentNode("metrics")
    let sink = StatsSink(metrics)
    metrics.set(\.statsSink, to: sink)
    var iterator = metrics.changes(of: \.stamped).makeAsyncIterator()
    #expect(await iterator.next() == "stamped 3")
    #expect(metrics[\.builds] == 1)

    metrics.set(\.retries, to: 4)
    #expect(await iterator.next() == "stamped 4")
    #expect(metrics[\.builds] == 2)
    metrics.set(\.builds, to: 10)  // not an input: no change of the stamped value
    metrics.set(\.retries, to: 5)
    #expect(await iterator.next() == "stamped 5")
  }

  @Test func buildsThatWriteOnTwoThreadsDoNotDeadlockAndTheLastValueArrives() async {
    let metrics = EnvironmentNode("metrics")
    metrics.set(\.statsSink, to: StatsSink(metrics))
    let stream = metrics.changes(of: \.stamped)
    onThreads(2) { thread in
      for round in 0..<200 { metrics.set(\.retries, to: 1_000 + thread * 1_000 + round) }
    }
    metrics.set(\.retries, to: 42)
    var last: String?
    for await value in stream {
      last = value
      if value == "stamped 42" { break }
    }
    #expect(last == "stamped 42")
  }
}

/// Where a build records that it ran: a node it holds weakly, so that a node holding its own
/// sink is no cycle.
final class StatsSink: Sendable {
  nonisolated(unsafe) private weak var node: EnvironmentNode?

  init(_ node: EnvironmentNode) {
    self.node = node
  }

  func recordBuild() {
    node?.update { $0.builds += 1 }
  }
}

extension EnvironmentValues {
  static let statsSink = Entry<StatsSink?>(nil)
  var statsSink: StatsSink? {
    get { self[Self.statsSink] }
    set { self[Self.statsSink] = newValue }
  }

  static let builds = Entry(0)
  var builds: Int {
    get { self[Self.builds] }
    set { self[Self.builds] = newValue }
  }

  /// Built from `retries`; each build writes `builds` to the sink's node.
  static let stamped = Derived { values in
    values.statsSink?.recordBuild()
    return "stamped \(values.retries)"
  }
  var stamped: String { self[Self.stamped] }
}

/// Counts the reads of a key path by change streams.
private let unrelatedReads = Atomic<Int>(0)

extension EnvironmentValues {
  /// `retries`, counting its reads.
  fileprivate var retriesReadByAStream: Int {
    unrelatedReads.add(1, ordering: .relaxed)
    return retries
  }
}

extension ChangeStreamTests {
  /// A write reaches the streams of its node's subtree, found through the streams themselves:
  /// a stream deep below sees it, and one on another tree is not asked to read again. Before,
  /// a write with any stream alive listed its whole subtree under its locks, by identifiers of
  /// nodes it no longer held.
  @Test func aWriteReachesTheStreamsBelowItAndNoOther() async {
    let app = EnvironmentNode("app")
    var leaf = app
    for depth in 0..<100 { leaf = leaf.child("level \(depth)") }
    let other = EnvironmentNode("other")
    var below = leaf.changes(of: \.retries).makeAsyncIterator()
    let elsewhere = other.changes(of: \.retriesReadByAStream)
    #expect(await below.next() == 3)
    let readsBefore = unrelatedReads.load(ordering: .relaxed)
    app.set(\.retries, to: 4)
    #expect(await below.next() == 4)
    #expect(unrelatedReads.load(ordering: .relaxed) == readsBefore)
    withExtendedLifetime(elsewhere) {}
  }
}
