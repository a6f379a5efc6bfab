import MilieuTestSupport
import Synchronization
import Testing

@_spi(MilieuInternal) @testable import Milieu

/// Two builds that meet: each arrives, then waits until both have.
final class Rendezvous: Sendable {
  private let arrived = Atomic<Int>(0)

  func meet() {
    arrived.add(1, ordering: .releasing)
    waitUntil("both builds arrived") { arrived.load(ordering: .acquiring) >= 2 }
  }
}

/// Collects the issues reported to it.
final class IssueLog: Sendable {
  private let issues = Lock<[EnvironmentIssue]>([])

  var all: [EnvironmentIssue] { issues.withLock { $0 } }
  var messages: [String] { all.map(\.message) }

  var reporter: IssueReporter {
    IssueReporter { issue in self.issues.withLock { $0.append(issue) } }
  }
}

struct Oops: Error, CustomStringConvertible {
  var description: String { "oops" }
}

// Values whose builds read each other.
extension EnvironmentValues {
  static let rendezvous = Entry<Rendezvous?>(nil)
  var rendezvous: Rendezvous? {
    get { self[Self.rendezvous] }
    set { self[Self.rendezvous] = newValue }
  }

  static let cycleA = Derived(fallback: "fallback A") { values in "A(\(values.cycleB))" }
  var cycleA: String { self[Self.cycleA] }

  static let cycleB = Derived(fallback: "fallback B") { values in "B(\(values.cycleA))" }
  var cycleB: String { self[Self.cycleB] }

  static let selfReading = Derived(fallback: 0) { values in values.selfReading + 1 }
  var selfReading: Int { self[Self.selfReading] }

  static let crossA = Derived(fallback: "fallback A") { values in
    values.rendezvous?.meet()
    return "A(\(values.crossB))"
  }
  var crossA: String { self[Self.crossA] }

  static let crossB = Derived(fallback: "fallback B") { values in
    values.rendezvous?.meet()
    return "B(\(values.crossA))"
  }
  var crossB: String { self[Self.crossB] }
}

/// Cycles, throwing builds and wrappers made inside builds are reported, and reads go on.
@Suite struct DerivedFailureTests {
  /// A node whose issues are collected, not reported.
  private func makeNode(_ issues: IssueLog) -> EnvironmentNode {
    let node = EnvironmentNode("app")
    node.set(\.issueReporter, to: issues.reporter)
    return node
  }

  @Test func aCycleIsReportedWithItsWholeChainAndTheReadGetsTheFallback() {
    let issues = IssueLog()
    let node = makeNode(issues)

    #expect(node[\.cycleA] == "A(B(fallback A))")
    let reported = issues.all
    #expect(reported.count == 1)
    #expect(reported.first?.message.hasPrefix("cycleA → cycleB → cycleA: ") == true)
    #expect(reported.first?.location.fileID == "MilieuTests/DerivedFailureTests.swift")
    #expect(reported.first?.message.contains("This read gets cycleA's fallback") == true)

    // Nothing built on a fallback is kept: the next read meets the cycle again.
    #expect(node[\.cycleB] == "B(A(fallback B))")
    #expect(issues.all.count == 2)
  }

  @Test func aValueThatReadsItselfIsReported() {
    let issues = IssueLog()
    let node = makeNode(issues)
    #expect(node[\.selfReading] == 1)
    #expect(issues.messages.first.map { $0.hasPrefix("selfReading → selfReading: ") } == true)
  }

  @Test func threadsWhoseBuildsWaitForEachOtherAreReportedNotDeadlocked() {
    let issues = IssueLog()
    let node = makeNode(issues)
    node.set(\.rendezvous, to: Rendezvous())
    let results = Lock<[String]>([])

    onThreads(2) { index in
      let value = index == 0 ? node[\.crossA] : node[\.crossB]
      results.withLock { $0.append(value) }
    }

    let reported = issues.all
    #expect(reported.count == 1)
    #expect(reported.first?.message.contains("built on another thread") == true)
    #expect(reported.first?.message.contains("would wait for each other forever") == true)
    // The thread that found the cycle read the other's fallback; the other waited for it.
    let outcomes: [Set<String>] = [
      ["A(B(fallback A))", "B(fallback A)"], ["B(A(fallback B))", "A(fallback B)"],
    ]
    #expect(outcomes.contains(Set(results.withLock { $0 })))
  }

  @Test func aBuildThatThrowsIsReportedAndTheNextReadTriesAgain() {
    let issues = IssueLog()
    let node = makeNode(issues)
    let attempts = Atomic<Int>(0)
    let flaky = EnvironmentValues.Derived(fallback: "fallback") { _ in
      if attempts.add(1, ordering: .relaxed).newValue == 1 { throw Oops() }
      return "built"
    }

    #expect(node.values[flaky] == "fallback")
    #expect(issues.messages.first.map { $0.hasPrefix("Building") } == true)
    #expect(issues.messages.first.map { $0.contains("threw oops") } == true)
    #expect(node.values[flaky] == "built")
    #expect(node.values[flaky] == "built")
    #expect(attempts.load(ordering: .relaxed) == 2)
    #expect(issues.all.count == 1)
  }

  @Test func aBindableWrapperMadeWhileASharedValueIsBuiltIsReportedReadsTheRootAndHoldsNoRequest() {
    let issues = IssueLog()
    let app = makeNode(issues)
    let shared = EnvironmentValues.Derived { _ in BeepReader() }
    weak var released: EnvironmentNode?
    let service: BeepReader = {
      let request = app.child("request")
      released = request
      return request.withCurrent { request.values[shared] }
    }()

    // Reported and bound to the root, as a plain wrapper is: binding to the request would send
    // every request's beeps to the first one's node, and keep that node alive with the service.
    #expect(service.$beep.node === EnvironmentNode.root)
    #expect(service.beep.node === EnvironmentNode.root)
    #expect(issues.messages.count == 1)
    #expect(issues.messages.first.map { $0.contains("no one node to read from") } == true)
    #expect(released == nil)
  }

  @Test func aWrapperMadeWhileASharedValueIsBuiltIsReportedAndReadsTheRoot() {
    let issues = IssueLog()
    let node = makeNode(issues)
    node.set(\.retries, to: 7)
    let shared = EnvironmentValues.Derived { _ in RetriesReader() }
    let fresh = EnvironmentValues.Derived(.newOnEveryRead) { _ in RetriesReader() }

    let inShared = node.withCurrent { node.values[shared] }
    #expect(inShared.$retries.node === EnvironmentNode.root)
    #expect(issues.all.count == 1)
    #expect(issues.messages.first.map { $0.contains("no one node to read from") } == true)

    let inFresh = node.withCurrent { node.values[fresh] }
    #expect(inFresh.$retries.node === node)
    #expect(inFresh.retries == 7)
    #expect(issues.all.count == 1)
  }
}

/// A value that learns the node it was read from, as `showAlert` does.
struct Beep: EnvironmentBindable {
  var node: EnvironmentNode?
  func bound(to node: EnvironmentNode) -> Beep { Beep(node: node) }
}

extension EnvironmentValues {
  static let beep = Entry(Beep())
  var beep: Beep {
    get { self[Self.beep] }
    set { self[Self.beep] = newValue }
  }
}

struct BeepReader {
  @Environment(\.beep) var beep
}
