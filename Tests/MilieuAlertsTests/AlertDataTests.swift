import Milieu
import MilieuAlerts
import Testing

@Suite struct AlertDataTests {
  @Test func buttonMakersSetRolesAndTitles() {
    let buttons: [AlertButton] = [
      .default("Retry") {}, .cancel(), .cancel("Keep") {}, .destructive("Delete") {},
    ]
    #expect(buttons.map(\.title) == ["Retry", "Cancel", "Keep", "Delete"])
    #expect(buttons.map(\.role) == [.default, .cancel, .cancel, .destructive])
    #expect(buttons.map { $0.action != nil } == [true, false, true, true])
  }

  @Test func noButtonsMeansOneOKCancelButton() {
    let alert = AlertData(title: "Saved")
    #expect(alert.buttons.map(\.title) == ["OK"])
    #expect(alert.buttons.map(\.role) == [.cancel])
    #expect(alert.diagnostics.isEmpty)
  }

  @Test func alertsAreIdentifiable() {
    #expect(AlertData(title: "A").id != AlertData(title: "A").id)
  }

  @Test func twoCancelButtonsAreReportedAndTheSecondBecomesDefault() {
    let line: UInt = #line + 2
    let (alert, issues) = collectingIssues {
      AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
    }
    #expect(alert.buttons.map(\.role) == [.cancel, .default])
    #expect(alert.diagnostics.map(\.rule) == [.oneCancelButton])
    #expect(issues.count == 1)
    guard let issue = issues.first else { return }
    #expect(issue.location.line == line)
    #expect(issue.message.contains("at most one cancel button"))
    #expect(issue.location.fileID == #fileID)
    #expect(!issue.message.contains("\(#fileID):\(line)"), "the issue carries its location")
    #expect(issue.message.contains("Fix: give the cancel role to one button only."))
  }

  @Test func duplicateTitlesAreReportedAndRenamed() {
    let (alert, issues) = collectingIssues {
      AlertData(title: "Pick", buttons: [.default("Same"), .default("Same"), .default("Same")])
    }
    #expect(alert.buttons.map(\.title) == ["Same", "Same (2)", "Same (3)"])
    #expect(alert.diagnostics.map(\.rule) == [.distinctButtonTitles, .distinctButtonTitles])
    #expect(issues.count == 2)
  }

  @Test func anEmptyTitleWithNoMessageIsReportedAndTitled() {
    let (alert, issues) = collectingIssues { AlertData(title: "") }
    #expect(alert.title == "Alert")
    #expect(alert.diagnostics.map(\.rule) == [.titleOrMessage])
    #expect(issues.count == 1)
  }

  @Test func anEmptyTitleWithAMessageIsFine() {
    let (alert, issues) = collectingIssues { AlertData(title: "", message: "Disk full") }
    #expect(alert.title.isEmpty)
    #expect(issues.isEmpty)
  }

  @Test func anUntitledButtonIsNamed() {
    let (alert, _) = collectingIssues { AlertData(title: "T", buttons: [.default(""), .cancel()]) }
    #expect(alert.buttons.map(\.title) == ["Button 1", "Cancel"])
    #expect(alert.diagnostics.map(\.rule) == [.buttonTitles])
  }

  @Test func aHugeTitleIsCutAndReported() {
    let huge = String(repeating: "x", count: 1_000_000)
    let (alert, issues) = collectingIssues { AlertData(title: huge, message: huge) }
    #expect(alert.title.count == 1_000)
    #expect(alert.title.hasSuffix("…"))
    #expect(alert.message?.count == 20_000)
    #expect(alert.diagnostics.map(\.rule) == [.reasonableLength, .reasonableLength])
    #expect(issues.count == 2)
  }

  @Test func tapsBelongToTheirAlert() {
    let alert = AlertData(title: "T", buttons: [.default("A"), .cancel()])
    let other = AlertData(title: "T", buttons: [.default("A"), .cancel()])
    guard let tap = alert.tapOfButton(at: 0) else {
      Issue.record("the alert has no first button")
      return
    }
    #expect(alert.isValid(tap))
    #expect(!other.isValid(tap))
    #expect(alert.tapOfButton(at: 2) == nil)
    #expect(throws: PresentationError.self) {
      let host = AlertHost()
      host.show(alert)
      try host.tap(other.buttons[0], of: alert)
    }
    #expect(alert.cancelButton?.title == "Cancel")
    #expect(alert.button(titled: "A")?.id == alert.buttons[0].id)
  }
}
