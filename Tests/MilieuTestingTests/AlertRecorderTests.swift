import Milieu
import MilieuAlerts
import MilieuTestSupport
import Synchronization
import Testing

@testable import MilieuTesting

@Suite struct AlertRecorderTests {
  /// A test checks the alert's title, message and buttons, taps a button by its title, and sees
  /// the button's action ran.
  @Test func checksAnAlertThenTapsAButtonByTitle() async throws {
    try await withAlertRecorder { alertHelper in
      let session = Session()
      session.expire()  // perform something that should trigger an alert

      #expect(alertHelper.title == "Expected Title")
      #expect(alertHelper.message == "expected message")
      #expect(alertHelper.cancelButtonTitle == nil)
      #expect(alertHelper.otherButtonTitles == ["Ok", "Sign In"])

      try await alertHelper.tap("Sign In")

      #expect(session.isSigningIn)  // post-clicked conditions
      #expect(alertHelper.current == nil)
    }
  }

  @Test func alertsAreRecordedInOrderAndAnsweredOneAtATime() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      showAlert(title: "First")
      showAlert(title: "Second")
      #expect(alerts.alerts.map(\.title) == ["First", "Second"])
      #expect(alerts.current?.title == "First")
      try await alerts.dismiss()
      #expect(alerts.current?.title == "Second")
      try await alerts.tap("ok")  // letter case is ignored when only one button matches
      #expect(alerts.current == nil)
    }
  }

  @Test func askReceivesTheTappedButton() async throws {
    try await withAlertRecorder { alerts in
      let session = Session()
      let confirmation = Task { await session.confirmSignOut() }
      let alert = try await alerts.next()
      #expect(alert.title == "Sign out?")
      try await alerts.tap("Sign Out")
      #expect(await confirmation.value)
    }
  }

  @Test func tappingWithNoAlertIsAClearError() async {
    _ = await withAlertRecorder { alerts in
      await #expect(throws: AlertRecorderError.noAlert(request: "tap(\"OK\")", shownSoFar: [])) {
        try await alerts.tap("OK")
      }
    }
  }

  @Test func tappingAMissingButtonNamesTheButtonsThereAre() async {
    await withAlertRecorder { alerts in
      EnvironmentNode.current[\.showAlert](
        title: "Log in", buttons: [.default("Log In"), .cancel()])
      do throws(AlertRecorderError) {
        try await alerts.tap("Sign In")
        Issue.record("the tap was accepted")
      } catch {
        #expect(
          error.description
            == "tap(\"Sign In\"): the alert \"Log in\" has no button \"Sign In\"; its buttons are "
            + "\"Log In\", \"Cancel\".")
      }
      try? await alerts.dismiss()
    }
  }

  @Test func anAmbiguousTitleIsAClearError() async {
    await withAlertRecorder { alerts in
      EnvironmentNode.current[\.showAlert](
        title: "Case", buttons: [.default("Save"), .default("SAVE")])
      await #expect(
        throws: AlertRecorderError.ambiguousButton(
          "save", alert: "Case", matches: ["Save", "SAVE"])
      ) {
        try await alerts.tap("save")
      }
      try? await alerts.tap("Save")
    }
  }

  @Test func nextFailsClearlyWhenNoAlertComes() async {
    await withAlertRecorder { alerts in
      let clock = TestClock()
      let waiting = Task { try await alerts.next(timeout: .milliseconds(20), clock: clock) }
      await eventually("next() sleeps on the clock") { clock.sleeperCount == 1 }
      clock.advance(by: .milliseconds(20))
      let error = await #expect(throws: AlertRecorderError.self) { try await waiting.value }
      #expect(error == .timedOut(after: .milliseconds(20), shownSoFar: []))
      #expect(error?.description.contains("no alert was shown in time") == true)
    }
  }

  @Test func errorsNeutraliseTheTitlesTheyQuote() {
    let hostile = "\u{1B}]0;pwned\u{07}"
    let errors: [AlertRecorderError] = [
      .noAlert(request: "tap(\"\(hostile)\")", shownSoFar: [hostile]),
      .noSuchButton(hostile, alert: hostile, buttons: [hostile]),
      .ambiguousButton(hostile, alert: hostile, matches: [hostile]),
      .timedOut(after: .seconds(1), shownSoFar: [hostile]),
    ]
    for error in errors {
      #expect(!error.description.unicodeScalars.contains(where: DiagnosticText.needsNeutralising))
      #expect(error.description.contains("^[]0;pwned^G"))
    }
  }

  /// `next` registers as a waiter before it starts its timer: a timer that fired in between
  /// would find nobody to wake, and `next` would wait forever. With a clock whose sleeps end at
  /// once, each time the timer starts the clock checks that the waiter is registered; if it is
  /// not, it counts the fault and lets the waiter register before the timer fires, so that the
  /// wrong order shows as a count rather than a hang.
  ///
  /// `next` is awaited directly, leaving the second thread of a two-core pool idle, where the
  /// wrong order would show most often.
  @Test func theTimeoutStartsOnlyOnceNextIsWaiting() async {
    await withAlertRecorder { alerts in
      let early = Tally()
      let clock = ImmediateClock {
        guard alerts.waiterCount == 0 else { return }
        early.add()
        for _ in 0..<100_000 where alerts.waiterCount == 0 { await Task.yield() }
      }
      for _ in 0..<20_000 {
        await #expect(throws: AlertRecorderError.timedOut(after: .zero, shownSoFar: [])) {
          try await alerts.next(timeout: .zero, clock: clock)
        }
      }
      #expect(early.count == 0, "the timer started before the waiter \(early.count) times")
    }
  }

  /// The default timeout bounds a wait that has failed; it is no estimate of how long showing an
  /// alert takes, and one second left a busy CI machine little room.
  @Test func byDefaultNextWaitsTenSecondsBeforeFailing() async throws {
    try await withAlertRecorder { alerts in
      let clock = TestClock()
      let first = Task { try await alerts.next(clock: clock) }
      await eventually("next() sleeps on the clock") { clock.sleeperCount == 1 }
      clock.advance(by: .milliseconds(9_999))
      #expect(clock.sleeperCount == 1, "next() gave up before ten seconds")
      EnvironmentNode.current[\.showAlert](title: "Late")
      let late = try await first.value
      #expect(late.title == "Late")
      #expect(clock.sleeperCount == 0, "next() left its timer sleeping")

      let second = Task { try await alerts.next(clock: clock) }
      await eventually("the second next() sleeps on the clock") { clock.sleeperCount == 1 }
      clock.advance(by: .seconds(10))
      let timedOut = AlertRecorderError.timedOut(after: .seconds(10), shownSoFar: ["Late"])
      await #expect(throws: timedOut) { try await second.value }
    }
  }

  @Test func nextReturnsAlertsInOrderEachOnce() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      showAlert(title: "A")
      showAlert(title: "B")
      let first = try await alerts.next()
      try await alerts.tap("OK")  // B waits behind A: next() returns it once A is answered
      let second = try await alerts.next()
      #expect([first.title, second.title] == ["A", "B"])
      alerts.reset()
      #expect(alerts.current == nil)
    }
  }

  @Test func resetWithdrawsAndForgets() async {
    await withAlertRecorder { alerts in
      let outcome = Task { await EnvironmentNode.current[\.showAlert].ask(title: "Pending") }
      _ = try? await alerts.next()
      alerts.reset()
      #expect(await outcome.value == .dropped(.cancelled))
      #expect(alerts.alerts.isEmpty)
    }
  }

  @Test func anUncheckedAlertFailsTheTestWhenTheScopeEnds() {
    withKnownIssue {
      withAlertRecorder { _ in
        EnvironmentNode.current[\.showAlert](title: "Nobody looked at me")
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("never checked or answered")
        && text.contains(
          "\"Nobody looked at me\" shown at MilieuTestingTests/AlertRecorderTests.swift")
    }
  }

  @Test func aNonExhaustiveRecorderLetsUncheckedAlertsGo() {
    withAlertRecorder(exhaustive: false) { _ in
      EnvironmentNode.current[\.showAlert](title: "Ignored on purpose")
    }
  }

  @Test func aRecorderInstalledOnANodeRecordsItsSubtree() async throws {
    let app = EnvironmentNode("app")
    let alerts = app.installAlertRecorder()
    let service = app.child("deep").child("deeper").withCurrent { Session() }
    service.expire()
    try await alerts.tap("Ok")
    #expect(alerts.alerts.count == 1)
    alerts.finish()
  }

  @Test func theRecorderIsFreedWhenItsScopeEnds() {
    weak var weakRecorder: AlertRecorder?
    withAlertRecorder { alerts in weakRecorder = alerts }
    #expect(weakRecorder == nil)
  }
}

/// A count that tasks add to.
private final class Tally: Sendable {
  private let value = Atomic<Int>(0)
  func add() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// A clock whose every sleep ends at once, after calling `onSleep`.
private struct ImmediateClock: Clock {
  let onSleep: @Sendable () async -> Void
  var now: ContinuousClock.Instant { ContinuousClock.now }
  var minimumResolution: Duration { .zero }
  func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    await onSleep()
  }
}
