import MilieuAlerts
import Testing

@testable import MilieuTerminal

@Suite("Drawing a host's alerts and toasts")
struct HostMappingTests {
  @Test("An AlertData becomes a TerminalAlert with the same text, buttons and order")
  func alert() {
    let alert = AlertData(
      title: "Delete 3 notes?", message: "This cannot be undone.",
      buttons: [.cancel(), .default("Archive"), .destructive("Delete")])
    let drawn = TerminalAlert(alert)
    #expect(drawn.title == "Delete 3 notes?")
    #expect(drawn.message == "This cannot be undone.")
    #expect(
      drawn.buttons == [
        TerminalButton("Cancel", role: .cancel), TerminalButton("Archive"),
        TerminalButton("Delete", role: .destructive),
      ])
  }

  @Test("Text fields keep their labels, texts, kinds and order")
  func textFields() {
    let alert = AlertData(
      title: "Sign in",
      textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("Password")])
    #expect(TerminalAlert(alert).textFields == alert.textFields)
    #expect(TerminalAlert(AlertData(title: "Saved")).textFields.isEmpty)
  }

  @Test("An alert without buttons gets its OK button, and no message stays no message")
  func defaults() {
    let drawn = TerminalAlert(AlertData(title: "Saved"))
    #expect(drawn.message == nil)
    #expect(drawn.buttons == [TerminalButton("OK", role: .cancel)])
  }

  @Test("Roles map one to one; a role added later is drawn as a default button")
  func roles() {
    #expect(TerminalButton.Role(AlertButton.Role.default) == .default)
    #expect(TerminalButton.Role(AlertButton.Role.cancel) == .cancel)
    #expect(TerminalButton.Role(AlertButton.Role.destructive) == .destructive)
    #expect(TerminalButton.Role(AlertButton.Role("archive")) == .default)
    let alert = AlertData(
      title: "Archive?", buttons: [AlertButton("Archive", role: AlertButton.Role("archive"))])
    #expect(TerminalAlert(alert).buttons == [TerminalButton("Archive")])
  }

  @Test("A toast keeps its message and style", arguments: Toast.Style.allCases)
  func toast(style: Toast.Style) {
    let drawn = TerminalToast(Toast("Saved", style: style))
    #expect(drawn.message == "Saved")
    #expect("\(drawn.style)" == style.rawValue)
  }

  @Test("An outcome is reported as one line: title, colon, outcome")
  func outcomeLines() throws {
    let alert = AlertData(title: "Delete 3 notes?", buttons: [.destructive("Delete"), .cancel()])
    let delete = try #require(alert.tapOfButton(at: 0))
    #expect(
      TerminalConsole.outcomeLine(AlertOutcome.answered(delete), of: alert)
        == "Delete 3 notes?: tapped Delete")
    #expect(
      TerminalConsole.outcomeLine(AlertOutcome.dismissed, of: alert)
        == "Delete 3 notes?: dismissed")
    #expect(
      TerminalConsole.outcomeLine(AlertOutcome.dropped(.noHost), of: alert)
        == "Delete 3 notes?: dropped (no host is installed)")
    let toast = Toast("Saved")
    #expect(
      TerminalConsole.outcomeLine(ToastOutcome.answered(.expired), of: toast) == "Saved: expired")
  }

  @Test("An outcome line never carries control characters from the title")
  func hostileTitle() {
    let alert = AlertData(title: "\u{1B}[2JWiped\nout")
    #expect(
      TerminalConsole.outcomeLine(AlertOutcome.dismissed, of: alert)
        == "^[[2JWiped out: dismissed")
  }
}
