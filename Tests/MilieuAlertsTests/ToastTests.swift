import Milieu
import MilieuAlerts
import MilieuTestSupport
import MilieuTesting
import Synchronization
import Testing

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
    #expect(await first.value == .chosen(.expired))
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

  @Test func withNoHostAToastIsReportedAndDropped() async {
    let (outcome, issues) = await collectingIssuesAsync {
      await EnvironmentNode.current[\.showToast].ask(Toast("Lost"))
    }
    #expect(outcome == .dropped(.noHost))
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("installToastHost()") == true)
  }
}
