import Milieu
import MilieuAlerts
import Testing

/// Messages read once: each says where it happened once, and nests no parentheses.
@Suite struct DiagnosticMessageTests {
  @Test func aBadInputIssueNamesItsLocationOnce() {
    let (_, issues) = collectingIssues {
      AlertData(title: "Quit?", buttons: [.cancel("No"), .cancel("Never")])
    }
    let line = try? #require(issues.first).description
    let location = issues.first.map { "\($0.location)" } ?? "?"
    #expect(line?.components(separatedBy: location).count == 2, "\(line ?? "")")
    #expect(line?.hasPrefix("\(location): an alert breaks the rule") == true, "\(line ?? "")")
  }

  @Test func everyOutcomeReadsWithoutNestedParentheses() {
    let reasons: [DropReason] = [
      .noHost, .hostDeallocated, .duplicate(of: AlertData(title: "A").id), .queueFull(limit: 1),
      .replaced(by: AlertData(title: "B").id), .busy, .cancelled, .unanswered,
    ]
    for reason in reasons {
      let text = AlertOutcome.dropped(reason).description
      #expect(!text.dropFirst("dropped (".count).dropLast().contains("("), "\(text)")
    }
    #expect(
      AlertOutcome.dropped(.queueFull(limit: 1)).description
        == "dropped (the queue is full, with a limit of 1)")
  }
}
