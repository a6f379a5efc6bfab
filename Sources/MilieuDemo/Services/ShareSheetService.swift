import Milieu
import MilieuAlerts
import MilieuTerminal

/// The share sheet: a subtree of its own, whose alerts go to the alert host installed on the
/// sheet's node instead of the app's.
final class ShareSheetService {
  @Environment(\.showAlert) var showAlert
  @Environment(\.console) var console

  /// The note to share.
  let noteTitle: String
  /// Who to share it with.
  let recipient: String

  /// Creates the sheet's service; its environment is the current node's.
  init(noteTitle: String, recipient: String) {
    self.noteTitle = noteTitle
    self.recipient = recipient
  }

  /// Asks whether to share, and with whom, through the nearest alert host: the sheet's. The
  /// recipient is a text field, which starts with the suggested one.
  ///
  /// - Returns: Who to share with, or `nil` when the user chose not to share.
  func confirmSharing() async -> String? {
    console.writeLine("Share sheet: showAlert reaches \($showAlert.node.alertHostProvenance).")
    let alert = AlertData(
      title: "Share \"\(noteTitle)\"?",
      message: "They will be able to read and edit it.",
      textFields: [AlertTextField("Email", text: recipient)],
      buttons: [.default("Share"), .cancel()])
    guard let tap = await showAlert.askReporting(alert, to: console).tappedButton,
      tap.title == "Share"
    else { return nil }
    return tap.text(of: "Email")
  }
}
