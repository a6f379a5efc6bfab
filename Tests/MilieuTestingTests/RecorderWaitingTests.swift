import Milieu
import MilieuAlerts
import MilieuTestSupport
import MilieuTesting
import Synchronization
import Testing

/// What a test waits for in an `AlertRecorder` comes, or fails the test: `next()` returns an
/// alert that is current, `tap` does not wait on an answer only the test can give, and an alert
/// shown after the recorder's scope resolves at once.
@Suite struct RecorderWaitingTests {
  /// Delete's action asks a follow-up before it deletes.
  private struct Cleaner {
    @Environment(\.showAlert) var showAlert
    let deleted = Flag()

    func offerToDeleteAll() {
      showAlert(
        title: "Delete all?",
        buttons: [
          .destructive("Delete") {
            let really = await showAlert.ask(
              title: "Really?", buttons: [.destructive("Yes"), .cancel()])
            if really.tappedButton?.title == "Yes" { deleted.set() }
          },
          .cancel(),
        ])
    }
  }

  @Test func tapReturnsWhenTheActionAsksAFollowUp() async throws {
    try await withAlertRecorder { alerts in
      let cleaner = Cleaner()
      cleaner.offerToDeleteAll()
      #expect(try await alerts.next().title == "Delete all?")
      try await alerts.tap("Delete")  // returns while Delete's action waits on "Really?"
      let followUp = try await alerts.next()
      #expect(followUp.title == "Really?")
      #expect(cleaner.deleted.isSet == false)
      try await alerts.tap("Yes")  // returns once Delete's action has finished
      #expect(cleaner.deleted.isSet)
      #expect(alerts.current == nil)
    }
  }

  @Test func dismissReturnsWhenTheCancelActionAsksAFollowUp() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      let kept = Flag()
      showAlert(
        title: "Discard draft?",
        buttons: [
          .destructive("Discard"),
          .cancel("Keep") {
            _ = await showAlert.ask(title: "Kept. Save it now?", buttons: [.cancel("Later")])
            kept.set()
          },
        ])
      _ = try await alerts.next()
      try await alerts.dismiss()
      #expect(try await alerts.next().title == "Kept. Save it now?")
      try await alerts.tap("Later")
      #expect(kept.isSet)
    }
  }

  @Test func anActionThatShowsWithoutWaitingIsAwaitedToItsEnd() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      let finished = Flag()
      showAlert(
        title: "Archive?",
        buttons: [
          .default("Archive") {
            showAlert(title: "Archived")
            for _ in 0..<100 { await Task.yield() }
            finished.set()
          },
          .cancel(),
        ])
      _ = try await alerts.next()
      try await alerts.tap("Archive")
      #expect(finished.isSet)
      #expect(try await alerts.next().title == "Archived")
      try await alerts.tap("OK")
    }
  }

  @Test func nextReturnsAnAlertThatIsCurrent() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      showAlert(title: "A")
      showAlert(title: "B")
      #expect(alerts.current?.title == "A")
      try await alerts.tap("OK")  // answers A without next()
      let alert = try await alerts.next()
      #expect(alert.title == "B")
      #expect(alerts.current?.id == alert.id)
      try await alerts.tap("OK")
    }
  }

  @Test func nextThenTapNeverFindsNoAlert() async throws {
    for round in 0..<2_000 {
      try await withAlertRecorder { alerts in
        let answer = Task {
          await EnvironmentNode.current[\.showAlert].ask(title: "Round \(round)")
        }
        let alert = try await alerts.next()
        #expect(alerts.current?.id == alert.id, "round \(round): next() returned before current")
        try await alerts.tap("OK")
        _ = await answer.value
      }
    }
  }

  @Test func anAlertShownAfterTheScopeEndsFailsTheTestAndResolvesAtOnce() async {
    let showAlert = withAlertRecorder { _ in EnvironmentNode.current[\.showAlert] }
    await withKnownIssue {
      let outcome = await showAlert.ask(title: "Too late")
      #expect(outcome == .dropped(.noHost))
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("\"Too late\"") && text.contains("after the recorder")
    }
  }
}

/// A flag one task sets and another reads.
private final class Flag: Sendable {
  private let value = Atomic(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// `next` waiting behind an alert the test has not answered says so when it gives up.
@Suite struct RecorderWaitingBehindTests {
  @Test func nextWaitingBehindAnUnansweredAlertSaysWhichToAnswer() async throws {
    try await withAlertRecorder { alerts in
      let showAlert = EnvironmentNode.current[\.showAlert]
      showAlert(title: "A")
      showAlert(title: "B")
      _ = try await alerts.next()
      let clock = TestClock()
      let waiting = Task { try await alerts.next(timeout: .seconds(5), clock: clock) }
      await eventually("next() sleeps on the clock") { clock.sleeperCount == 1 }
      clock.advance(by: .seconds(5))
      let error = await #expect(throws: AlertRecorderError.self) { try await waiting.value }
      #expect(error == .waitingBehind("A", pending: ["B"], after: .seconds(5)))
      #expect(error?.description.contains("answer \"A\"") == true, "\(String(describing: error))")
      try await alerts.tap("OK")
      #expect(try await alerts.next().title == "B")
      try await alerts.tap("OK")
    }
  }
}
