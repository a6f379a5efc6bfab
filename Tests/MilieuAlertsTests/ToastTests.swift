@_spi(MilieuInternal) import Milieu
import MilieuAlerts
import MilieuTestSupport
import MilieuTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct ToastTests {
  @Test func toastsQueueAndExpireOnTheHostsClock() async {
    let clock = TestClock()
    let app = EnvironmentNode("app")
    let host = app.installToastHost(clock: clock)
    let showToast = app[\.showToast]
    let first = Task { await showToast.ask(Toast("Saved", duration: .seconds(2))) }
    await eventually("the first toast is shown") { host.current?.message == "Saved" }
    showToast("Synced", style: .success, duration: .seconds(1))
    #expect(host.pending.map(\.message) == ["Synced"])

    await eventually("the first toast sleeps on the clock") { clock.sleeperCount == 1 }
    clock.advance(by: .seconds(1))
    #expect(host.current?.message == "Saved")
    clock.advance(by: .seconds(1))
    #expect(await first.value == .answered(.expired))
    #expect(host.current?.message == "Synced")
    await eventually("the second toast sleeps on the clock") { clock.sleeperCount == 1 }
    clock.advance(by: .seconds(1))
    await eventually("the second toast expired") { host.current == nil }
  }

  @Test func aToastCanBeDismissedEarly() async throws {
    let host = ToastHost(clock: TestClock())
    let toast = Toast("Copied")
    host.show(toast)
    try await host.dismissAndWait(toast)
    #expect(host.current == nil)
  }

  @Test func aNonPositiveDurationIsReportedAndReplaced() {
    let (toast, issues) = collectingIssues { Toast("Oops", duration: .zero) }
    #expect(toast.duration == Toast.defaultDuration)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("not positive") == true)
  }

  @Test func foreverIsAToastWithoutALifetime() async throws {
    let clock = TestClock()
    let host = ToastHost(clock: clock)
    let (toast, issues) = collectingIssues { Toast("Sticky", duration: Toast.forever) }
    #expect(issues.isEmpty)
    #expect(toast.duration == Toast.forever)
    #expect(toast.lifetime == nil)
    host.show(toast)
    clock.advance(by: .seconds(Int64.max / 4))
    #expect(clock.sleeperCount == 0)
    #expect(host.current?.id == toast.id)
    try await host.dismissAndWait(toast)
    #expect(host.current == nil)
  }

  @Test(arguments: [
    Duration.seconds(Int64.max), Duration(secondsComponent: Int64.max, attosecondsComponent: 1),
  ])
  func theLongestDurationsMeanForever(_ duration: Duration) {
    let (toast, issues) = collectingIssues { Toast("Sticky", duration: duration) }
    #expect(issues.isEmpty)
    #expect(toast.duration == Toast.forever)
    #expect(toast.lifetime == nil)
  }

  @Test(arguments: [
    Toast.longestTimedDuration + .nanoseconds(1), Duration.seconds(Int64.max / 2),
    Duration.seconds(Int64.max - 1),
  ])
  func aDurationTooLongToTimeIsReportedAndShownForever(_ duration: Duration) {
    let (toast, issues) = collectingIssues { Toast("Sticky", duration: duration) }
    #expect(toast.duration == Toast.forever)
    #expect(toast.lifetime == nil)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("Toast.forever") == true)
  }

  @Test func theLongestTimedDurationIsKept() {
    let (toast, issues) = collectingIssues {
      Toast("Long", duration: Toast.longestTimedDuration)
    }
    #expect(issues.isEmpty)
    #expect(toast.lifetime == Toast.longestTimedDuration)
  }

  @Test func aHostNeverTimesALifetimeItsClockCannotRepresent() async {
    await #expect(processExitsWith: .success) {
      let clock = WatchedContinuousClock()
      let forever = PresentationHost<Banner>(clock: clock)
      let timed = PresentationHost<Banner>(clock: clock)
      let sticky = Banner(lifetime: .seconds(Int64.max))
      forever.show(sticky)
      // Shown second, so its expiry task starts after the sticky one's would have.
      timed.show(Banner(lifetime: .seconds(3_600)))
      for _ in 0..<1_000_000 where clock.deadlines.isEmpty { await Task.yield() }
      guard !clock.deadlines.isEmpty else { exit(2) }
      for _ in 0..<1_000 { await Task.yield() }
      let start = ContinuousClock.now
      guard clock.deadlines.allSatisfy({ start.duration(to: $0) <= .seconds(3_600) }) else {
        exit(1)
      }
      try await forever.dismissAndWait(sticky)
    }
  }

  @Test func withNoHostAToastIsReportedAndDropped() async {
    let (outcome, issues) = await collectingIssuesAsync {
      await EnvironmentNode.current[\.showToast].ask(Toast("Lost"))
    }
    #expect(outcome == .dropped(.noHost))
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("installToastHost()") == true)
  }
}

/// An item with any lifetime, to show what a host does with one.
private struct Banner: Presentable {
  let id = PresentationID()
  var lifetime: Duration?
  var title: String { "Banner" }
  var deduplicationKey: String? { nil }
  var expiryAnswer: Toast.Ending? { .expired }
  func isValid(_ choice: Toast.Ending) -> Bool { true }
  func action(for choice: Toast.Ending?) -> (@Sendable () async -> Void)? { nil }
}

/// The continuous clock, remembering the deadline of every sleep it is asked for.
private final class WatchedContinuousClock: Clock, Sendable {
  private let requested = Lock<[ContinuousClock.Instant]>([])
  var deadlines: [ContinuousClock.Instant] { requested.withLock { $0 } }
  var now: ContinuousClock.Instant { ContinuousClock.now }
  var minimumResolution: Duration { ContinuousClock().minimumResolution }
  func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    requested.withLock { $0.append(deadline) }
    try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
  }
}
