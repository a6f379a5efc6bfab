@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Where a presenter reports a problem with an item: `issueReporter(for:)`, asked from any
/// thread while the call that showed the item returns.
@Suite struct ItemReporterTests {
  /// A presenter's thread asks for the reporter of each alert while the thread that showed it
  /// returns and frees the node it was shown from. Every report lands with the node that showed
  /// the alert, or, once the host has let the alert go, with the asking thread's node; no node is
  /// read after it was freed (an address-sanitizer build of this test reported a
  /// heap-use-after-free in `issueReporter(for:)` when the host kept the node unretained).
  ///
  /// Both threads share one CPU, so that each is preempted at any instruction while the other
  /// runs on.
  @Test func aReporterAskedForWhileTheShowingNodeIsFreedIsThatNodes() {
    let rounds = 20_000
    let cpu = currentCPU()
    let published = Lock<AlertData?>(nil)
    let host = AlertHost(presenter: Publishing { alert in published.withLock { $0 = alert } })
    let shown = Atomic<Int>(0)
    let asked = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let late = IssueCollector()
    let app = EnvironmentNode("app")
    let asking = app.child("asking") { $0.issueReporter = IssueReporter { late.append($0) } }
    onThreads(2) { thread in
      shareCPU(cpu)
      if thread == 0 {
        for round in 0..<rounds {
          // The node lives only while `show` runs: the alert outlives it in the host.
          app.child("round \(round)") {
            $0.issueReporter = IssueReporter { _ in delivered.add(1, ordering: .relaxed) }
          }
          .withCurrent { host.show(AlertData(title: "\(round)")) }
          shown.add(1, ordering: .releasing)
          // Gives the asking thread a moment to ask after the node is gone.
          for _ in 0..<(round % 7) { _ = host.pendingCount }
          if let alert = host.current { host.withdraw(alert.id) }
        }
      } else {
        asking.withCurrent {
          while shown.load(ordering: .acquiring) < rounds {
            guard let alert = published.withLock({ $0 }) else { continue }
            host.issueReporter(for: alert).report(EnvironmentIssue("asked", at: alert.callSite))
            asked.add(1, ordering: .relaxed)
          }
        }
      }
    }
    #expect(asked.load(ordering: .relaxed) > 0)
    #expect(delivered.load(ordering: .relaxed) + late.all.count == asked.load(ordering: .relaxed))
    #expect(host.current == nil && host.pendingCount == 0)
  }
}

/// The CPU the calling thread runs on.
private func currentCPU() -> Int32 {
  #if os(Linux)
    typealias GetCPU = @convention(c) () -> Int32
    guard let symbol = dlsym(nil, "sched_getcpu") else { return 0 }
    return max(0, unsafeBitCast(symbol, to: GetCPU.self)())
  #else
    0
  #endif
}

/// Keeps the calling thread on one CPU: on Linux only (through `dlsym`, as Glibc's module does
/// not export these GNU calls); elsewhere the threads run as the system schedules them.
private func shareCPU(_ cpu: Int32) {
  #if os(Linux)
    typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
    if let symbol = dlsym(nil, "sched_setaffinity") {
      var set = [UInt8](repeating: 0, count: 128)
      set[Int(cpu) / 8] = UInt8(1) << (UInt8(cpu) % 8)
      _ = unsafeBitCast(symbol, to: SetAffinity.self)(0, set.count, set)
    }
  #endif
}

/// Hands each alert it is given to a closure; answers nothing.
private struct Publishing: Presenter {
  let publish: @Sendable (AlertData) -> Void
  func present(_ alert: AlertData, in host: AlertHost) { publish(alert) }
  func withdraw(_ alert: AlertData, from host: AlertHost) {}
}
