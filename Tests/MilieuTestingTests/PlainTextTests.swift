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
    let alert = AlertData(title: "Bell\u{7}\u{1B}[31m")
    #expect(alert.plainText.hasPrefix("title: Bell\\u{7}\\u{1B}[31m\n"))
  }
}
