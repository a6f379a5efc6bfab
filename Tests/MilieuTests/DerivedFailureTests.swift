import Foundation
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

/// Builds nested deep: each on the thread of the read that started it, with its task-locals,
/// up to a documented depth, past which the read is reported and gets its fallback.
@Suite struct DeepBuildTests {
  /// A chain of `length` derived values, each read by the next, the first reading `seed`; each
  /// has the fallback -1.
  static func chain(
    _ length: Int, seed: EnvironmentValues.Entry<Int>,
    bottom: @escaping @Sendable (EnvironmentValues) -> Int = { _ in 0 }
  ) -> [EnvironmentValues.Derived<Int>] {
    var chain: [EnvironmentValues.Derived<Int>] = [
      .init(fallback: -1) { $0[seed] + bottom($0) }
    ]
    for index in 1..<length {
      let previous = chain[index - 1]
      chain.append(.init(fallback: -1) { $0[previous] + 1 })
    }
    return chain
  }

  /// The innermost build of a chain 200 deep sees the node current where the read was made,
  /// and an issue it reports reaches that node's reporter: the running test's.
  @Test func theInnermostBuildOfADeepChainSeesTheReadersTaskLocals() {
    let issues = IssueLog()
    let node = EnvironmentNode("deep").child("reader") { $0.issueReporter = issues.reporter }
    let seed = EnvironmentValues.Entry(1)
    let chain = Self.chain(200, seed: seed) { _ in
      reportIssue("built at \(EnvironmentNode.current.name ?? "no node")")
      return 0
    }
    let value = node.withCurrent { node.values[chain[199]] }
    #expect(value == 200)
    #expect(issues.messages == ["built at reader"])
  }

  /// A build nested past the limit is reported with its chain, and the read that would nest it
  /// gets its fallback: the program goes on, on the same thread, and nothing built on the
  /// fallback is kept.
  @Test func aBuildNestedPastTheLimitIsReportedAndGetsItsFallback() {
    let issues = IssueLog()
    let node = EnvironmentNode("deep")
    node.set(\.issueReporter, to: issues.reporter)
    let seed = EnvironmentValues.Entry(1)
    let chain = Self.chain(3_000, seed: seed)
    let limit = DerivedBuild.depthLimit
    #expect(limit >= 256)
    // The build at depth `limit + 1` gets -1; the `limit` builds above it add one each.
    #expect(node.values[chain[2_999]] == limit - 1)
    let reported = issues.messages
    #expect(reported.count == 1)
    #expect(reported.first?.contains("more than \(limit) derived values deep") == true)
    #expect(reported.first?.contains("This read gets") == true)
    #expect(node.values[chain[2_999]] == limit - 1)
    #expect(issues.messages.count == 2)
  }

  /// A chain as deep as the limit builds on the stack of a detached task's thread, and on a
  /// thread of its own with a stack of 2 MiB: builds nest on the reader's stack.
  @Test func aChainAsDeepAsTheLimitBuildsOnTheReadersStack() async {
    let seed = EnvironmentValues.Entry(1)
    let chain = Self.chain(DerivedBuild.depthLimit, seed: seed)
    let top = chain[chain.count - 1]
    let detached = await Task.detached { EnvironmentNode("detached").values[top] }.value
    #expect(detached == DerivedBuild.depthLimit)
    let built = Lock<Int?>(nil, audited: false)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      built.withLock { $0 = EnvironmentNode("thread").values[top] }
      done.signal()
    }
    thread.stackSize = 2 << 20
    thread.start()
    done.wait()
    #expect(built.withLock { $0 } == DerivedBuild.depthLimit)
  }

  #if DEBUG
    /// A chain 200 deep builds, and rebuilds after its first input is written, in linear work.
    @Test func aChainTwoHundredDeepBuildsAndRebuildsInLinearWork() {
      let seed = EnvironmentValues.Entry(1)
      let chain = Self.chain(200, seed: seed)
      var counts: [Int] = []
      for top in [chain[99], chain[199]] {
        let node = EnvironmentNode("chain")
        let before = WorkCount.onThisThread
        let built = node.values[top]
        node.update { $0[seed] = 10 }
        let rebuilt = node.values[top]
        counts.append(WorkCount.onThisThread - before)
        #expect(rebuilt == built + 9)
      }
      #expect(counts[0] > 0)
      #expect(Double(counts[1]) <= Double(counts[0]) * 2.5, "\(counts)")
    }
  #endif
}
