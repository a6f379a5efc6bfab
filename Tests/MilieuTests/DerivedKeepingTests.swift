import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// Where a built derived value is kept, so that every reader of the same inputs finds it, and
/// for how long: through writes made while it is built, through frames whose addresses come
/// back, and no longer than the writes it was built from.
@Suite struct DerivedKeepingTests {
  /// A node named `name` whose client is named so too, and the log of the builds it reads.
  static func node(_ name: String) -> (EnvironmentNode, BuildLog) {
    let log = BuildLog()
    let node = EnvironmentNode(name)
    node.update {
      $0.buildLog = log
      $0.client = Client(name: name)
    }
    return (node, log)
  }

  /// A request whose frame is allocated where a freed request's was still finds the app's value
  /// current: one set of inputs has one live value.
  @Test func aFrameAtAFreedFramesAddressFindsTheValueKeptForItsInputs() {
    let log = BuildLog()
    let app = EnvironmentNode("app")
    app.update {
      $0.buildLog = log
      $0.greeting = "app"
    }
    let kept = app[\.repository]
    do {
      let overriding = app.child("first request") { $0.client = Client(name: "other") }
      #expect(overriding[\.repository] !== kept)
    }
    // The same size of frame as the first request's, freed just now.
    let request = app.child("second request") { $0.retries = 1 }
    #expect(request[\.repository] === kept)
    #expect(app[\.repository] === kept)
    #expect(log.count(of: "repository") == 2)
  }

  /// A write to the node, made while a value kept with the node is built for the first time,
  /// that drops another value kept there: the value built is kept where later readers look.
  @Test func aValueBuiltWhileAWriteDropsAnotherIsKeptWhereReadersLook() {
    let log = BuildLog()
    let node = EnvironmentNode("node")
    node.update {
      $0.buildLog = log
      $0.retries = 1
      $0.ratio = 0.5
    }
    let byRatio = EnvironmentValues.Derived { values in
      values.buildLog?.record("by ratio")
      return values.ratio * 2
    }
    let writer = FirstBuildWriter(node)
    defer { writer.release() }
    let byRetries = EnvironmentValues.Derived { values in
      values.buildLog?.record("by retries")
      writer.once { $0.set(\.ratio, to: 0.75) }
      return values.retries + 1
    }
    #expect(node.values[byRatio] == 1)
    #expect(node.values[byRetries] == 2)
    #expect(node.values[byRetries] == 2)
    #expect(node.values[byRatio] == 1.5)
    #expect(log.count(of: "by retries") == 1)
    #expect(log.count(of: "by ratio") == 2)
  }

  /// The same at a node that has a child, whose values a build reads through its view: a write
  /// to the node while the value is built for the first time does not lose it.
  @Test func aValueFirstBuiltAtANodeWithAChildSurvivesAWriteMadeWhileItIsBuilt() {
    let log = BuildLog()
    let node = EnvironmentNode("node")
    node.update {
      $0.buildLog = log
      $0.retries = 1
    }
    let child = node.child("child")
    let writer = FirstBuildWriter(node)
    defer { writer.release() }
    let byRetries = EnvironmentValues.Derived { values in
      values.buildLog?.record("by retries")
      writer.once { $0.set(\.greeting, to: "Hi") }
      return values.retries + 1
    }
    #expect(node.values[byRetries] == 2)
    #expect(node.values[byRetries] == 2)
    #expect(child.values[byRetries] == 2)
    #expect(log.count(of: "by retries") == 1)
  }

  /// A derived value read inside an update's body leaves the values kept with the node before
  /// the update where they were: none of them is built again.
  @Test func aValueReadInsideAnUpdateKeepsTheNodesOtherValues() {
    let (node, log) = Self.node("node")
    let kept = node[\.repository]
    let byRatio = EnvironmentValues.Derived { values in
      values.buildLog?.record("by ratio")
      return values.ratio * 2
    }
    node.update { values in
      values.ratio = 1
      #expect(values[byRatio] == 2)
    }
    #expect(node[\.repository] === kept)
    #expect(node.values[byRatio] == 2)
    #expect(log.count(of: "repository") == 1)
    #expect(log.count(of: "by ratio") == 1)
  }

  /// A write to a node that a write above left unresolved while the write's body ran replaces
  /// the writes the node inherits, not defaults: what was built from the inherited write is
  /// freed when the write returns.
  @Test func aWriteToANodeUnresolvedMeanwhileFreesWhatWasBuiltFromTheWriteItShadows() {
    let app = EnvironmentNode("app")
    app.set(\.client, to: Client(name: "app"))
    let feature = app.child("feature")
    let request = feature.child("request") { $0.retries = 1 }
    let holder = EnvironmentValues.Derived { values in
      ClientHolder(client: values.client, retries: values.retries)
    }
    weak let built = request.values[holder]
    #expect(built != nil)
    feature.update { values in
      values.client = Client(name: "feature")
      // Leaves `feature` and `request` unresolved; reading `request` resolves it past
      // `feature`, which overrides nothing yet.
      app.set(\.greeting, to: "Hi")
      #expect(request[\.greeting] == "Hi")
    }
    #expect(built == nil)
    #expect(request.values[holder].client.name == "feature")
  }
}

/// The three ways a value kept with a frame that writes replace went wrong (issue 40), each with
/// the test that failed on it.
extension DerivedKeepingTests {
  /// A build that writes to its own node, replacing one of its inputs, delivers its value to
  /// the read that asked, keeps it nowhere, and lets it go with that read: the node never holds
  /// a value built from what it no longer sees.
  @Test func aBuildThatSpansAWriteToItsInputKeepsNothingStale() {
    let log = BuildLog()
    let node = EnvironmentNode("node")
    node.update {
      $0.buildLog = log
      $0.client = Client(name: "old")
    }
    let writer = FirstBuildWriter(node)
    defer { writer.release() }
    let holder = EnvironmentValues.Derived { values in
      values.buildLog?.record("holder")
      let holder = ClientHolder(client: values.client, retries: values.retries)
      writer.once { $0.set(\.client, to: Client(name: "new")) }
      return holder
    }
    weak var stale: ClientHolder?
    do {
      let first = node.values[holder]
      #expect(first.client.name == "old")
      stale = first
    }
    #expect(stale == nil, "the value built from the replaced client is freed with its read")
    #expect(!node.treeDescription().contains("keeps derived"))
    #expect(node.values[holder].client.name == "new")
    #expect(log.count(of: "holder") == 2)
  }

  /// Values taken from a node, then a write to the node of a key the value does not read, then
  /// a read from the values taken, then one from the node: one build, one value.
  @Test func valuesTakenBeforeAWriteOfAnUnreadKeyShareTheNodesValue() {
    let (node, log) = Self.node("node")
    let taken = node.values
    node.set(\.retries, to: 9)
    let fromTaken = taken.repository
    #expect(node[\.repository] === fromTaken)
    #expect(log.count(of: "repository") == 1)
  }

  /// The same when the write is above the node.
  @Test func valuesTakenBeforeAWriteAboveShareTheNodesValue() {
    let log = BuildLog()
    let app = EnvironmentNode("app")
    app.set(\.buildLog, to: log)
    let node = app.child("node") { $0.client = Client(name: "node") }
    let taken = node.values
    app.set(\.retries, to: 9)
    let fromTaken = taken.repository
    #expect(node[\.repository] === fromTaken)
    #expect(log.count(of: "repository") == 1)
  }

  /// A child's closure that overrides an input, reads a value built from it and writes a key
  /// twice, then the next child's closure on the thread, which overrides nothing: the second
  /// child reads the app's value, built once.
  @Test func aChildAfterAnotherChildsClosureOnItsThreadReadsTheAppsValue() {
    let (app, log) = Self.node("app")
    let kept = app[\.feed]
    let first = app.child("first") { values in
      values.client = Client(name: "first")
      _ = values.feed
      values.retries = 1
      values.retries = 2
    }
    let second = app.child("second")
    #expect(second[\.feed] === kept)
    #expect(app[\.feed] === kept)
    #expect(first[\.feed] !== kept)
    #expect(log.count(of: "feed") == 2)
  }
}

final class ClientHolder: Sendable {
  let client: Client
  let retries: Int

  init(client: Client, retries: Int) {
    self.client = client
    self.retries = retries
  }
}

/// Makes one write to a node from inside the first build that asks for it.
///
/// It holds the node for the test only: the derived value's declaration, which the node's table
/// holds, must not hold the node, so the test calls ``release()`` when it ends.
private final class FirstBuildWriter: Sendable {
  private let node: Lock<EnvironmentNode?>
  private let writes = Atomic<Int>(0)

  init(_ node: EnvironmentNode) {
    self.node = Lock(node, audited: false)
  }

  /// Runs `write` on the node the first time it is called, and never again.
  func once(_ write: (EnvironmentNode) -> Void) {
    guard writes.add(1, ordering: .relaxed).oldValue == 0 else { return }
    if let node = node.withLock({ $0 }) { write(node) }
  }

  func release() {
    node.withLock { $0 = nil }
  }
}
