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

  /// Asks whether to share, through the nearest alert host: the sheet's.
  ///
  /// - Returns: Whether the user chose to share.
  func confirmSharing() async -> Bool {
    console.writeLine("Share sheet: showAlert reaches \($showAlert.node.alertHostProvenance).")
    let alert = AlertData(
      title: "Share \"\(noteTitle)\" with \(recipient)?",
      message: "They will be able to read and edit it.",
      buttons: [.default("Share"), .cancel()])
    return await showAlert.askReporting(alert, to: console).tappedButton?.title == "Share"
  }
}
