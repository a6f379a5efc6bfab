import Foundation
import MilieuTestSupport
import Synchronization
import Testing

@testable import Milieu

@Suite struct EnvironmentValuesTests {
  @Test func unsetValuesReadTheirDefaults() {
    let values = EnvironmentValues()
    #expect(values.retries == 3)
    #expect(values.greeting == "Hello")
    #expect(values.requestTimeout == 30)
  }

  @Test func entriesAndKeysStoreValues() {
    var values = EnvironmentValues()
    values.retries = 9
    values.requestTimeout = 5
    #expect(values.retries == 9)
    #expect(values.requestTimeout == 5)
    #expect(values.greeting == "Hello")
  }

  @Test func copiesAreIndependent() {
    var original = EnvironmentValues()
    original.retries = 1
    var copy = original
    copy.retries = 2
    #expect(original.retries == 1)
    #expect(copy.retries == 2)
  }

  /// Past one value, values move to a table, and past eight the table keeps an index: every
  /// size reads back what was written, and a copy taken along the way keeps its own values.
  @Test func manyValuesStayDistinctReplaceableAndCopyOnWrite() {
    let entries = (0..<20).map { EnvironmentValues.Entry($0) }
    var values = EnvironmentValues()
    var copies: [EnvironmentValues] = []
    for (index, entry) in entries.enumerated() {
      values[entry] = index * 10
      copies.append(values)
    }
    for (index, entry) in entries.enumerated() where index.isMultiple(of: 3) {
      values[entry] = -index
    }
    for (index, entry) in entries.enumerated() {
      #expect(values[entry] == (index.isMultiple(of: 3) ? -index : index * 10))
      // The copy taken after writing entry `size - 1` holds exactly the first `size` values.
      for (size, copy) in copies.enumerated() {
        #expect(copy[entry] == (index <= size ? index * 10 : index))
      }
    }
  }

  @Test func entriesWithTheSameNameInDifferentTypesDoNotCollide() {
    var values = EnvironmentValues()
    values.billingLimit = 1
    #expect(values.billingLimit == 1)
    #expect(values.storageLimit == 100)
    values.storageLimit = 2
    #expect(values.billingLimit == 1)
    #expect(values.storageLimit == 2)
  }

  @Test func aKeyDefaultIsComputedOnceWhateverTheNumberOfMisses() async {
    // Other tests in this process never read `counted`, so the count starts at zero.
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<100 { #expect(EnvironmentValues().counted == 7) }
        }
      }
    }
    #expect(EnvironmentNode("fresh")[\.counted] == 7)
    #expect(countingDefaultCalls.load(ordering: .relaxed) == 1)
  }
}

/// Key defaults are user code: Milieu computes each once, with none of its locks held.
@Suite struct KeyDefaultTests {
  /// A default that reports an issue reports it to the node the read is made in, like any code.
  @Test func aDefaultMayReportAnIssue() {
    let issues = IssueLog()
    let node = EnvironmentNode("node").child("child") { $0.issueReporter = issues.reporter }
    #expect(node.withCurrent { node.values[ReportingDefaultKey.self] } == 4)
    #expect(issues.messages == ["the default of ReportingDefaultKey was computed"])
  }

  /// Threads that read a default while it is computed wait for it: it is computed once.
  @Test func threadsReadingADefaultBeingComputedWaitForIt() {
    onThreads(8) { _ in
      waitingDefaultReaders.add(1, ordering: .acquiringAndReleasing)
      #expect(EnvironmentValues()[WaitingDefaultKey.self] == 5)
    }
    #expect(waitingDefaultComputations.load(ordering: .relaxed) == 1)
  }

  /// A default that reads its own key stops the program with the key's name, where a thread
  /// waiting for itself would hang.
  @Test func aDefaultThatReadsItselfStopsTheProgram() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EnvironmentValues()[SelfReadingDefaultKey.self]
    }
    let output = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      output.contains("the defaultValue of SelfReadingDefaultKey reads SelfReadingDefaultKey"))
  }

  /// Two defaults that read each other, computed on two threads at once, stop the program with
  /// both keys' names, where each thread would wait forever for the default the other computes.
  ///
  /// The child process must not hang, since an exit test has no timeout: its main thread waits
  /// for the two readers at most a minute, then stops the child with a message saying they
  /// hung, which the expectations on the message show. The program stops as soon as the second
  /// reader is about to wait, long before that bound; only code that lets both wait reaches it.
  @Test func twoDefaultsThatReadEachOtherOnTwoThreadsStopTheProgram() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let finished = DispatchGroup()
      let reads: [@Sendable () -> Void] = [
        { _ = EnvironmentValues()[PingDefaultKey.self] },
        { _ = EnvironmentValues()[PongDefaultKey.self] },
      ]
      for read in reads {
        finished.enter()
        Thread {
          read()
          finished.leave()
        }.start()
      }
      if finished.wait(timeout: .now() + 60) == .timedOut {
        preconditionFailure("both readers still wait for each other after a minute")
      }
    }
    let output = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
    let cycles = [
      "the defaultValue of PingDefaultKey reads PongDefaultKey, whose defaultValue reads "
        + "PingDefaultKey",
      "the defaultValue of PongDefaultKey reads PingDefaultKey, whose defaultValue reads "
        + "PongDefaultKey",
    ]
    #expect(cycles.contains { output.contains($0) }, "\(output)")
    #expect(
      output.contains("a default cannot be computed from another default that reads it"),
      "\(output)")
  }

  /// Defaults that read each other on one thread name every key of the cycle, in order.
  @Test func twoDefaultsThatReadEachOtherOnOneThreadStopTheProgram() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EnvironmentValues()[ChainedDefaultKey.self]
    }
    let output = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      output.contains(
        "the defaultValue of ChainedDefaultKey reads ChainingDefaultKey, whose defaultValue reads "
          + "ChainedDefaultKey: a default cannot be computed from another default that reads it"),
      "\(output)")
  }

  /// A thread computing a default that waits for one another thread computes, which reads
  /// neither, is no cycle: both defaults are computed.
  @Test func aDefaultWaitingForOneComputedElsewhereIsNoCycle() {
    onThreads(2) { index in
      if index == 0 {
        #expect(EnvironmentValues()[AwaitedDefaultKey.self] == 31)
      } else {
        waitUntil("the awaited default is computed") {
          awaitedComputing.load(ordering: .acquiring)
        }
        #expect(EnvironmentValues()[AwaitingDefaultKey.self] == 32)
      }
    }
  }

  /// A default that reads another key's default gets it.
  @Test func aDefaultMayReadAnotherDefault() {
    #expect(EnvironmentValues()[NestedDefaultKey.self] == 31)
  }
}

private struct ReportingDefaultKey: EnvironmentKey {
  static var defaultValue: Int {
    reportIssue("the default of ReportingDefaultKey was computed")
    return 4
  }
}

private let waitingDefaultReaders = Atomic<Int>(0)
private let waitingDefaultComputations = Atomic<Int>(0)

/// Computed once every one of eight readers has asked for it: a reader that computed a second
/// one would count it.
private struct WaitingDefaultKey: EnvironmentKey {
  static var defaultValue: Int {
    waitingDefaultComputations.add(1, ordering: .relaxed)
    waitUntil("eight threads read the default") {
      waitingDefaultReaders.load(ordering: .acquiring) == 8
    }
    return 5
  }
}

private struct SelfReadingDefaultKey: EnvironmentKey {
  static var defaultValue: Int { EnvironmentValues()[SelfReadingDefaultKey.self] }
}

private let pingComputing = Atomic<Bool>(false)
private let pongComputing = Atomic<Bool>(false)

/// Reads `PongDefaultKey` once another thread computes it, as that one reads this key.
private struct PingDefaultKey: EnvironmentKey {
  static var defaultValue: Int {
    pingComputing.store(true, ordering: .releasing)
    waitUntil("the pong default is computed") { pongComputing.load(ordering: .acquiring) }
    return EnvironmentValues()[PongDefaultKey.self] + 1
  }
}

/// Reads `PingDefaultKey` once another thread computes it, as that one reads this key.
private struct PongDefaultKey: EnvironmentKey {
  static var defaultValue: Int {
    pongComputing.store(true, ordering: .releasing)
    waitUntil("the ping default is computed") { pingComputing.load(ordering: .acquiring) }
    return EnvironmentValues()[PingDefaultKey.self] + 1
  }
}

private let awaitedComputing = Atomic<Bool>(false)

/// Finishes only once a thread computing `AwaitingDefaultKey` waits for it.
private struct AwaitedDefaultKey: EnvironmentKey {
  static var defaultValue: Int {
    awaitedComputing.store(true, ordering: .releasing)
    waitUntil("a default being computed waits for this one") {
      EnvironmentKeyDefaults.threadsWaiting(for: AwaitedDefaultKey.self) == 1
    }
    return EnvironmentValues()[RequestTimeoutKey.self] + 1
  }
}

private struct AwaitingDefaultKey: EnvironmentKey {
  static var defaultValue: Int { EnvironmentValues()[AwaitedDefaultKey.self] + 1 }
}

private struct ChainedDefaultKey: EnvironmentKey {
  static var defaultValue: Int { EnvironmentValues()[ChainingDefaultKey.self] }
}

private struct ChainingDefaultKey: EnvironmentKey {
  static var defaultValue: Int { EnvironmentValues()[ChainedDefaultKey.self] }
}

private struct NestedDefaultKey: EnvironmentKey {
  static var defaultValue: Int { EnvironmentValues()[RequestTimeoutKey.self] + 1 }
}
