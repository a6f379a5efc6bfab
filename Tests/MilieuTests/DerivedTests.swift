import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

#if canImport(Glibc)
  import Glibc
#endif

/// A derived value is built from what it reads, shared by the nodes that see the same inputs,
/// and rebuilt where they differ.
@Suite struct DerivedTests {
  /// A root of the test's own, counting its builds.
  private func makeApp(_ log: BuildLog) -> EnvironmentNode {
    let app = EnvironmentNode("app")
    app.update {
      $0.buildLog = log
      $0.client = Client(name: "app")
    }
    return app
  }

  @Test func nodesThatSeeTheSameInputsShareOneValueBuiltOnce() {
    let log = BuildLog()
    let app = makeApp(log)
    let first = app.child("first request") { $0.retries = 1 }
    let second = app.child("second request") { $0.retries = 2 }
    let quiet = app.child("no overrides")

    let repository = first[\.repository]
    #expect(second[\.repository] === repository)
    #expect(quiet[\.repository] === repository)
    #expect(app[\.repository] === repository)
    #expect(repository.client.name == "app")
    #expect(log.count(of: "repository") == 1)
  }

  @Test func aSubtreeThatOverridesAnInputGetsItsOwnValueAndNobodyElseDoes() {
    let log = BuildLog()
    let app = makeApp(log)
    let shared = app[\.repository]
    let feature = app.child("feature") { $0.client = Client(name: "staging") }
    let screen = feature.child("screen") { $0.retries = 9 }
    let sibling = app.child("sibling")

    #expect(feature[\.repository].client.name == "staging")
    #expect(screen[\.repository] === feature[\.repository])
    #expect(sibling[\.repository] === shared)
    #expect(app[\.repository] === shared)
    #expect(log.count(of: "repository") == 2)
  }

  @Test func aWriteToAnInputRebuildsAtTheNextReadAndOtherWritesDoNot() {
    let log = BuildLog()
    let app = makeApp(log)
    let request = app.child("request")
    let before = request[\.repository]

    app.set(\.retries, to: 8)
    request.set(\.ratio, to: 0.1)
    #expect(request[\.repository] === before)

    app.set(\.client, to: Client(name: "replaced"))
    let after = request[\.repository]
    #expect(after !== before)
    #expect(after.client.name == "replaced")
    #expect(log.count(of: "repository") == 2)
  }

  @Test func aValueBuiltFromAnotherFollowsTheOtherOnesInputs() {
    let log = BuildLog()
    let app = makeApp(log)
    let appFeed = app[\.feed]
    let feature = app.child("feature") { $0.client = Client(name: "mock") }

    #expect(feature[\.feed].repository.client.name == "mock")
    #expect(feature[\.feed] !== appFeed)
    #expect(app[\.feed] === appFeed)
    #expect(appFeed.repository === app[\.repository])
    #expect(log.count(of: "feed") == 2)
  }

  @Test func anOverrideOfTheDerivedValueItselfWins() {
    let log = BuildLog()
    let app = makeApp(log)
    let fake = Repository(client: Client(name: "fake"), label: "fake")
    let test = app.child("test") { $0.repository = fake }

    #expect(test[\.repository] === fake)
    #expect(test[\.feed].repository === fake)
    #expect(app[\.repository] !== fake)
    #expect(log.count(of: "repository") == 1)
  }

  @Test func removingAnOverrideOfADerivedValueLeavesItsInputsAlone() {
    let app = makeApp(BuildLog())
    let fake = Repository(client: Client(name: "fake"), label: "fake")
    let test = app.child("test") {
      $0.client = Client(name: "test")
      $0.repository = fake
    }
    test.removeOverride(\.repository)
    #expect(test[\.repository] !== fake)
    #expect(test[\.repository].client.name == "test")
  }

  @Test func aChangeStreamOfADerivedValueYieldsWhenAnInputChanges() async {
    let app = makeApp(BuildLog())
    let request = app.child("request")
    var values = request.changes(of: \.repository).makeAsyncIterator()
    let first = await values.next()
    app.set(\.retries, to: 4)  // not an input: no change
    app.set(\.client, to: Client(name: "next"))
    let second = await values.next()
    #expect(first?.client.name == "app")
    #expect(second?.client.name == "next")
    #expect(second !== first)
  }

  @Test func valuesWithLocalWritesSeeTheirOwnInputs() {
    let log = BuildLog()
    let app = makeApp(log)
    var values = app.values
    values.client = Client(name: "local")
    #expect(values.repository.client.name == "local")
    #expect(values.repository === values.repository)
    #expect(app[\.repository].client.name == "app")
  }

  @Test func aValueNewOnEveryReadIsNeverKeptNotEvenByAWrapper() {
    let log = BuildLog()
    let app = makeApp(log)
    #expect(app[\.ticket] !== app[\.ticket])

    let holder = app.withCurrent { TicketHolder() }
    let first = holder.ticket
    #expect(holder.ticket !== first)
    #expect(log.count(of: "ticket") == 4)
  }

  @Test func aValueOnePerProcessIsBuiltOnceAndReportsAReadItCannotFollow() {
    let log = BuildLog()
    let issues = Lock<[String]>([])
    let app = makeApp(log)
    app.set(
      \.issueReporter, to: IssueReporter { issue in issues.withLock { $0.append("\(issue)") } })
    let builds = Atomic<Int>(0)
    let session = EnvironmentValues.Derived(.onePerProcess) { values in
      builds.add(1, ordering: .relaxed)
      return Repository(client: values.client, label: "session")
    }
    let first = app.values[session]
    let other = app.child("other") { $0.client = Client(name: "other") }
    #expect(other.values[session] === first)
    #expect(other.values[session] === first)
    #expect(EnvironmentNode("elsewhere").values[session] === first)
    #expect(builds.load(ordering: .relaxed) == 1)
    let reported = issues.withLock { $0 }
    #expect(reported.count == 1)
    #expect(reported.first?.contains("one value per process") == true)
    #expect(reported.first?.contains("client (set on node \"other\"") == true)
  }

  @Test func discardingAValueRebuildsItAndWhatWasBuiltFromIt() {
    let log = BuildLog()
    let app = makeApp(log)
    let request = app.child("request") { $0.retries = 1 }
    let reader = request.withCurrent { FeedReader() }
    let repository = request[\.repository]
    let feed = reader.feed

    request.discardDerived(\.repository)

    #expect(app[\.repository] !== repository)
    #expect(request[\.repository] === app[\.repository])
    #expect(reader.feed !== feed)
    #expect(reader.feed.repository === app[\.repository])
    #expect(log.count(of: "repository") == 2)
    #expect(log.count(of: "feed") == 2)
  }

  @Test func aKeptValueIsFreedWithTheLastNodeThatCanSeeIt() {
    weak var repository: Repository?
    var reader: FeedReader?
    do {
      let app = makeApp(BuildLog())
      let feature = app.child("feature") { $0.client = Client(name: "feature") }
      repository = feature[\.repository]
      reader = feature.withCurrent { FeedReader() }
      _ = reader?.feed
      #expect(repository != nil)
    }
    #expect(repository != nil, "a wrapper that reads from the node keeps it alive")
    reader = nil
    #expect(repository == nil)
  }

  /// Two values read the same two values of one node, in opposite orders: each cell holds the
  /// slots it was not kept with, and the two must not hold each other's anchors.
  @Test func valuesKeptWithTwoSlotsOfOneNodeAreFreedWithIt() {
    let forwards = EnvironmentValues.Derived { Repository(client: $0.client, label: $0.greeting) }
    let backwards = EnvironmentValues.Derived { values in
      let label = values.greeting
      return Repository(client: values.client, label: label)
    }
    weak var first: Repository?
    weak var second: Repository?
    do {
      let node = EnvironmentNode("node")
      node.update {
        $0.client = Client(name: "node")
        $0.greeting = "Hi"
      }
      first = node.values[forwards]
      second = node.values[backwards]
      #expect(first != nil && second != nil)
    }
    #expect(first == nil)
    #expect(second == nil)
  }

  /// A derivation keeps its defaults-only values in a table of its own; the cells there must
  /// not keep the derivation alive.
  @Test func aDerivedValueDeclaredLocallyIsFreedWithItsValues() {
    weak var derived: EnvironmentValues.Derived<Ticket>?
    weak var built: Ticket?
    do {
      let local = EnvironmentValues.Derived { _ in Ticket() }
      derived = local
      built = EnvironmentValues()[local]
      #expect(built != nil)
    }
    #expect(derived == nil)
    #expect(built == nil)
  }

  @Test func sixteenConcurrentFirstReadsAtOneNodeBuildOnce() {
    let started = Atomic<Int>(0)
    let builds = Atomic<Int>(0)
    let slow = EnvironmentValues.Derived { values in
      builds.add(1, ordering: .relaxed)
      // Hold the build until every reader has asked for it.
      waitUntil("16 readers started") { started.load(ordering: .acquiring) == 16 }
      return Repository(client: values.client, label: "slow")
    }
    let node = makeApp(BuildLog()).child("node") { $0.retries = 1 }
    let results = Lock<[ObjectIdentifier]>([])
    onThreads(16) { _ in
      started.add(1, ordering: .releasing)
      let value = node.values[slow]
      results.withLock { $0.append(ObjectIdentifier(value)) }
    }
    #expect(builds.load(ordering: .relaxed) == 1)
    #expect(Set(results.withLock { $0 }).count == 1)
  }

  @Test func sixteenConcurrentFirstReadsUnderSixteenRequestsBuildOnce() {
    let started = Atomic<Int>(0)
    let builds = Atomic<Int>(0)
    let slow = EnvironmentValues.Derived { values in
      builds.add(1, ordering: .relaxed)
      waitUntil("16 readers started") { started.load(ordering: .acquiring) == 16 }
      return Repository(client: values.client, label: "slow")
    }
    let app = makeApp(BuildLog())
    let requests = (0..<16).map { index in app.child("request \(index)") { $0.retries = index } }
    onThreads(16) { index in
      started.add(1, ordering: .releasing)
      _ = requests[index].values[slow]
    }
    #expect(builds.load(ordering: .relaxed) == 1)
  }

  @Test func twoDifferentValuesBuildAtOnceOnTwoThreads() {
    let inBuild = Atomic<Int>(0)
    let rendezvous = { @Sendable (values: EnvironmentValues) -> Repository in
      inBuild.add(1, ordering: .releasing)
      // Returns only once both builds run at the same time: no lock serializes them.
      waitUntil("both builds running") { inBuild.load(ordering: .acquiring) == 2 }
      return Repository(client: values.client, label: "rendezvous")
    }
    let first = EnvironmentValues.Derived { rendezvous($0) }
    let second = EnvironmentValues.Derived { rendezvous($0) }
    let node = makeApp(BuildLog())
    onThreads(2) { index in
      _ = node.values[index == 0 ? first : second]
    }
    #expect(inBuild.load(ordering: .relaxed) == 2)
  }
}

/// Reads the feed through a wrapper.
struct FeedReader {
  @Environment(\.feed) var feed
}

/// Reads a value that is new on every read through a wrapper.
struct TicketHolder {
  @Environment(\.ticket) var ticket
}

/// Yields this thread until `condition` holds; stops the test run, naming what never happened,
/// if it still does not hold after a minute, a bound no healthy run comes near even under a
/// sanitizer on a loaded machine. For code running on threads of its own, where no test is current
/// to record an issue in.
func waitUntil(_ what: String, _ condition: () -> Bool) {
  let deadline = ContinuousClock.now + .seconds(60)
  while !condition() {
    if ContinuousClock.now > deadline { preconditionFailure("gave up waiting until \(what)") }
    sched_yield()
  }
}
