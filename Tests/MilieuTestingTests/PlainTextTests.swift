import MilieuAlerts
import MilieuTesting
import Testing

@Suite struct PlainTextTests {
  @Test func anAlertRendersAsStablePlainText() {
    let alert = AlertData(
      title: "Delete 3 notes?", message: "This cannot be undone.\nReally.",
      buttons: [.destructive("Delete"), .cancel()])
    #expect(
      alert.plainText == """
        title: Delete 3 notes?
        message: This cannot be undone.\\nReally.
        buttons:
          1. Delete (destructive)
          2. Cancel (cancel)
        """)
  }

  @Test func controlCharactersAreSpelledOut() {
    let alert = AlertData(title: "Bell\u{7}\u{1B}[31m\u{85}\u{2028}end")
    #expect(alert.plainText.hasPrefix("title: Bell\\u{7}\\u{1B}[31m\\u{85}\\u{2028}end\n"))
  }

  @Test func textFieldsAndAPriorityAreShownWhenTheAlertHasThem() {
    let alert = AlertData(
      title: "Sign in",
      textFields: [AlertTextField("Email", text: "ada@example.com"), .secure("PIN", text: "1234")],
      buttons: [.default("Sign In"), .cancel()], priority: .high)
    #expect(
      alert.plainText == """
        title: Sign in
        text fields:
          1. Email: "ada@example.com"
          2. PIN (secure): (hidden)
        buttons:
          1. Sign In (default)
          2. Cancel (cancel)
        priority: high
        """)
  }
}
